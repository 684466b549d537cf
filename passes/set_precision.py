"""set-precision: ATC's --precision_mode as a pass that inserts visible `cann.Cast` ops.

    cann-opt --tf-to-cann --precision-mode=allow_mix_precision model.mlir
    cann-opt -p 'tf-to-cann,set-precision{mode=force_fp16}' model.mlir

Modes (cann-facts.md section 9; accuracy order force_fp32 > must_keep_origin_dtype >
allow_fp32_to_fp16 > allow_mix_precision > force_fp16):

* `force_fp16`: every float32 op whose CANN kernel takes float16 computes in float16.
* `allow_fp32_to_fp16`: cube ops (Conv2D, DepthwiseConv2D, MatMulV2, BatchMatMulV2 and their
  fused forms) compute in float16; vector ops keep float32.
* `allow_mix_precision`: white list (cube ops) -> float16; black list (BNInfer, LayerNorm,
  SoftmaxV2, reductions, Rsqrt/Sqrt/Exp/Log/Pow/RealDiv/Erf/Erfc/SquaredDifference/Reciprocal)
  keeps float32; grey ops (elementwise, activations, data movement) follow their inputs: float16
  when a float input already comes from a float16 op.
* `must_keep_origin_dtype`: nothing changes.
* `force_fp32`: every float16 op computes in float32.

An op moved to another precision gets a Cast on each float operand and a Cast back on each
result; Cast pairs that cancel (f16 -> f32 -> f16) are not emitted between two float16 ops, so
a float16 region has casts only at its borders.  Function arguments and results keep their types.
Constants are cast by a Cast op too (fold-constants turns Cast(Const) into a float16 Const).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float16Type, Float32Type, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from compiler.diagnostics import CompileError
from compiler.rewriting import with_loc
from dialects import cann

MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
         "force_fp32")

CUBE_OPS = ("cann.Conv2D", "cann.FusedConv2D", "cann.DepthwiseConv2D", "cann.MatMulV2",
            "cann.BatchMatMulV2", "cann.FusedDepthwiseConv2D", "cann.FusedMatMulV2",
            "cann.FusedBatchMatMulV2")
#: Precision-sensitive ops kept in float32 under allow_mix_precision.
BLACK_LIST = ("cann.BNInfer", "cann.LayerNorm", "cann.SoftmaxV2", "cann.ReduceMeanD",
              "cann.ReduceSumD", "cann.ReduceProdD", "cann.Rsqrt", "cann.Sqrt", "cann.Exp",
              "cann.Log", "cann.Pow", "cann.RealDiv", "cann.Erf", "cann.Erfc",
              "cann.SquaredDifference", "cann.Reciprocal")
#: Never retyped: they define or convert types themselves.
_SKIP = ("cann.Const", "cann.Cast", "cann.HostCall", "cann.TransData")


def _elt(v: SSAValue) -> str:
    return str(v.type.element_type) if isinstance(v.type, TensorType) else ""


def _retype(t: TensorType, elt) -> TensorType:
    return TensorType(elt, t.get_shape(), t.encoding)


def _from_cast(v: SSAValue, src: str) -> SSAValue | None:
    """If v = Cast(x) with x of element type `src`, return x."""
    owner = v.owner
    if isinstance(owner, cann.CastOp) and _elt(owner.x) == src:
        return owner.x
    return None


@dataclass(frozen=True)
class SetPrecisionPass(ModulePass):
    name = "set-precision"

    mode: str = "must_keep_origin_dtype"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise CompileError(f"set-precision: unknown precision mode '{self.mode}'; "
                               f"known: {', '.join(MODES)}")
        if self.mode == "must_keep_origin_dtype":
            return
        if self.mode == "force_fp32":
            src, dst, src_t, dst_t = "f16", "f32", Float16Type(), Float32Type()
        else:
            src, dst, src_t, dst_t = "f32", "f16", Float32Type(), Float16Type()
        changed = 0
        for o in list(op.walk()):
            if self._wanted(o, src, dst):
                self._convert(o, src, dst, src_t, dst_t)
                changed += 1
        # Casts nothing reads any more (a float16 op took the value before a cast back).
        for o in reversed(list(op.walk())):
            if isinstance(o, cann.CastOp) and not o.y.uses:
                o.parent_block().erase_op(o)

    def _wanted(self, o: Operation, src: str, dst: str) -> bool:
        if o.dialect_name() != "cann" or o.name in _SKIP or not o.has_trait(Pure):
            return False
        floats = [v for v in (*o.operands, *o.results) if _elt(v) in ("f16", "f32", "bf16")]
        if not floats or any(_elt(v) != src for v in floats):
            return False
        from compiler.legalization import CANN_DTYPES

        allowed = CANN_DTYPES.get(o.name.removeprefix("cann."))
        if allowed is not None and dst not in allowed:
            return False
        if self.mode in ("force_fp16", "force_fp32"):
            return True
        if self.mode == "allow_fp32_to_fp16":
            return o.name in CUBE_OPS
        # allow_mix_precision
        if o.name in CUBE_OPS:
            return True
        if o.name in BLACK_LIST:
            return False
        return any(_from_cast(v, dst) is not None for v in o.operands if _elt(v) == src)

    def _convert(self, o: Operation, src: str, dst: str, src_t, dst_t) -> None:
        block = o.parent_block()
        operands = []
        for v in o.operands:
            if _elt(v) != src:
                operands.append(v)
                continue
            inner = _from_cast(v, dst)
            if inner is None:
                cast = with_loc(cann.CastOp(operands=[v], result_types=[_retype(v.type, dst_t)],
                                            properties={"dst_type": dst_t}), o)
                block.insert_op_before(cast, o)
                inner = cast.y
            operands.append(inner)
        result_types = [_retype(r.type, dst_t) if _elt(r) == src else r.type for r in o.results]
        new = type(o).create(operands=operands, result_types=result_types,
                             properties=dict(o.properties), attributes=dict(o.attributes))
        new.location = o.location
        block.insert_op_before(new, o)
        for r, nr in zip(o.results, new.results, strict=True):
            if _elt(r) != src:
                r.replace_all_uses_with(nr)
                continue
            back = with_loc(cann.CastOp(operands=[nr], result_types=[r.type],
                                        properties={"dst_type": src_t}), o)
            block.insert_op_after(back, new)
            r.replace_all_uses_with(back.y)
        block.erase_op(o)
