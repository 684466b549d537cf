"""set-precision: ATC's --precision_mode as a pass that inserts visible `cann.Cast` ops.

    cann-opt --tf-to-cann --precision-mode=allow_mix_precision model.mlir
    cann-opt -p 'tf-to-cann,set-precision{mode=force_fp16}' model.mlir

Modes (cann-facts.md section 9; accuracy order force_fp32 > must_keep_origin_dtype >
allow_fp32_to_fp16 > allow_mix_precision > force_fp16):

* `force_fp16`: every float32 op whose CANN kernel takes float16 computes in float16.
* `allow_fp32_to_fp16`: cube ops (Conv2D, DepthwiseConv2D, MatMulV2, BatchMatMulV2 and their
  fused forms) compute in float16; vector ops keep float32.
* `allow_mix_precision`: white list (cube ops) -> float16; black list (the ops declaring CANN's
  precision_reduce=false, the PrecisionReduce(False) trait of dialects/op_kinds.py: BNInfer,
  LayerNorm, SoftmaxV2, ReduceMeanD/SumD/ProdD, Rsqrt/Sqrt/Exp/Log/Pow/RealDiv/Erf/Erfc/
  SquaredDifference/Reciprocal) keeps float32; grey ops (elementwise, activations, data
  movement) follow their inputs: float16 when a float input already comes from a float16 op.
* `must_keep_origin_dtype`: nothing changes.
* `force_fp32`: every float16 op computes in float32.

Ops with the FixedPrecision trait (Const, Cast, TransData, HostCall) are never retyped: their
element types are what they do.  An op moved to another precision gets a Cast on each float
operand and a Cast back on each result; Cast pairs that cancel (f16 -> f32 -> f16) are not
emitted between two float16 ops, so a float16 region has casts only at its borders.  Function
arguments and results keep their types.  Constants are cast by a Cast op too (fold-constants
turns Cast(Const) into a float16 Const).

Per-op options (ATC's --keep_dtype, --customize_dtypes and --output_type; the pipeline builder
fills them from the cfg files):

* `keep=a,OpType::SoftmaxV2`: these ops (by TF node name, or by CANN op type) keep their dtype
  whatever the mode says;
* `customize=a=float16,OpType::Relu=float32`: these ops compute in that dtype (a name wins
  over a type; customize wins over keep);
* `outputs=*=float16` or `outputs=logits:1=float16`: @main's outputs (all, or the one named
  as in `tf.entry_function`) are cast to that dtype.

A named op that no longer exists as an op of its own is a warning: fused into another op
(its location is part of a fused location: the setting does not apply, as in ATC) or removed
(folded or dead).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    FunctionType,
    FusedLoc,
    IntegerType,
    ModuleOp,
    NameLoc,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from compiler.ir.diagnostics import CompileError
from compiler.ir.rewriting import erase_dead, with_loc
from compiler.ir.typed import elem_of, loc_parts, parent_block_of, shape_of, tensor_of
from dialects import cann
from dialects.op_kinds import FixedPrecision, is_cube, precision_reduce

MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
         "force_fp32")


#: dtype names of the cfg files / --output_type (ATC's spelling and the IR's) -> element type.
DTYPES: dict[str, Attribute] = {
    "float16": Float16Type(), "fp16": Float16Type(), "f16": Float16Type(),
    "float32": Float32Type(), "float": Float32Type(), "fp32": Float32Type(), "f32": Float32Type(),
    "int8": IntegerType(8), "i8": IntegerType(8), "int32": IntegerType(32), "i32": IntegerType(32),
    "uint8": IntegerType(8, Signedness.UNSIGNED), "ui8": IntegerType(8, Signedness.UNSIGNED),
}
FLOAT_DTYPES = ("f16", "f32")
OP_TYPE = "OpType::"

log = logging.getLogger("cann")


def _elt(v: SSAValue) -> str:
    return str(v.type.element_type) if isinstance(v.type, TensorType) else ""


def _retype(t: Attribute, elt) -> TensorType:
    t = tensor_of(t)
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

    keep: tuple[str, ...] = ()
    """Op names / `OpType::T` entries that keep their dtype (ATC's --keep_dtype)."""

    customize: tuple[str, ...] = ()
    """`name=dtype` / `OpType::T=dtype`: the op computes in dtype (ATC's --customize_dtypes)."""

    outputs: tuple[str, ...] = ()
    """`*=dtype` / `output:index=dtype`: @main's outputs cast to dtype (ATC's --output_type)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise CompileError(f"set-precision: unknown precision mode '{self.mode}'; "
                               f"known: {', '.join(MODES)}")
        keep_names, keep_types = _split_entries(self.keep)
        custom = [_entry_dtype(e, "customize") for e in self.customize]
        custom_names = {k: t for k, t in custom if not k.startswith(OP_TYPE)}
        custom_types = {k[len(OP_TYPE):]: t for k, t in custom if k.startswith(OP_TYPE)}
        _warn_missing(op, "keep_dtype", keep_names)
        _warn_missing(op, "customize_dtypes", custom_names)

        def setting(o: Operation) -> str | None:
            """'keep', a float element type name, or None (the mode decides)."""
            name, kind = _own_name(o), o.name.removeprefix("cann.")
            if name in custom_names:
                return custom_names[name]
            if kind in custom_types:
                return custom_types[kind]
            if name in keep_names or kind in keep_types:
                return "keep"
            return None

        # customized ops first: under mixed precision their neighbours follow them
        for o in list(op.walk()):
            if o.parent is None:  # in the body of a fused kernel converted before it
                continue
            want = setting(o) if custom else None
            if want in FLOAT_DTYPES and self._retypable(o):
                src = _float_elt(o)
                if src in FLOAT_DTYPES and src != want:
                    self._convert(o, src, want, _type(src), _type(want))
        if self.mode != "must_keep_origin_dtype":
            src_t: Float16Type | Float32Type
            dst_t: Float16Type | Float32Type
            if self.mode == "force_fp32":
                src, dst, src_t, dst_t = "f16", "f32", Float16Type(), Float32Type()
            else:
                src, dst, src_t, dst_t = "f32", "f16", Float32Type(), Float16Type()
            for o in list(op.walk()):
                if o.parent is None:  # in the body of a fused kernel converted before it
                    continue
                if (not (keep_names or keep_types or custom) or setting(o) is None) and \
                        self._wanted(o, src, dst):
                    self._convert(o, src, dst, src_t, dst_t)
        if self.outputs:
            self._cast_outputs(op)
        # Casts nothing reads any more (a float16 op took the value before a cast back).
        erase_dead(op)

    def _retypable(self, o: Operation) -> bool:
        # The ops of a fused body change with their kernel (`_convert_fused`), never alone.
        if _in_fused_body(o):
            return False
        if isinstance(o, cann.FusedKernelOp):
            src = _float_elt(o)
            return src is not None and all(_body_op_allows(b, src, None) for b in o.body.block.ops)
        return o.dialect_name() == "cann" and not o.has_trait(FixedPrecision) and o.has_trait(Pure)

    def _cast_outputs(self, module: ModuleOp) -> None:
        fn = next((f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"),
                  None)
        if fn is None:
            raise CompileError("set-precision: outputs= needs a @main function")
        ret = fn.body.blocks[-1].last_op
        if not isinstance(ret, func.ReturnOp):
            raise CompileError("set-precision: outputs= needs @main to end in a func.return")
        names = _output_names(fn, len(ret.operands))
        wanted: dict[int, Attribute] = {}
        for entry in self.outputs:
            key, dtype = _entry_dtype(entry, "outputs", floats_only=False)
            hits = range(len(names)) if key == "*" else [i for i, n in enumerate(names)
                                                         if n == key or n == key.removesuffix(":0")]
            if not hits:
                raise CompileError(f"set-precision: outputs: '{key}' is no output of the model; "
                                   f"they are: {', '.join(names)}")
            for i in hits:
                wanted[i] = DTYPES[dtype]
        block = parent_block_of(ret)
        operands = list(ret.operands)
        for i, elt in wanted.items():
            v = operands[i]
            if not isinstance(v.type, TensorType) or v.type.element_type == elt:
                continue
            inner = v.owner.x if isinstance(v.owner, cann.CastOp) and \
                elem_of(v.owner.x) == elt else None
            if inner is None:
                cast = cann.CastOp(operands=[v], result_types=[_retype(v.type, elt)],
                                   properties={"dst_type": elt})
                if isinstance(v.owner, Operation):
                    with_loc(cast, v.owner)
                block.insert_op_before(cast, ret)
                inner = cast.y
            operands[i] = inner
        ret.operands = operands
        fn.function_type = FunctionType.from_lists(fn.function_type.inputs.data,
                                                   [v.type for v in operands])

    def _wanted(self, o: Operation, src: str, dst: str) -> bool:
        if o.dialect_name() != "cann" or o.has_trait(FixedPrecision) or not o.has_trait(Pure) or \
                _in_fused_body(o):
            return False
        floats = [v for v in (*o.operands, *o.results) if _elt(v) in ("f16", "f32", "bf16")]
        if not floats or any(_elt(v) != src for v in floats):
            return False
        if isinstance(o, cann.FusedKernelOp):  # as its body's ops would be, each alone
            body = [b for b in o.body.block.ops if not isinstance(b, (cann.ConstOp, cann.YieldOp))]
            if not all(_body_op_allows(b, src, dst) for b in o.body.block.ops):
                return False
            if self.mode in ("force_fp16", "force_fp32"):
                return True
            if self.mode == "allow_fp32_to_fp16" or any(precision_reduce(b) is False for b in body):
                return False
            return any(_from_cast(v, dst) is not None for v in o.operands if _elt(v) == src)
        from compiler.conversions.tf_to_cann.legalization import CANN_DTYPES

        allowed = CANN_DTYPES.get(o.name.removeprefix("cann."))
        if allowed is not None and dst not in allowed:
            return False
        if self.mode in ("force_fp16", "force_fp32"):
            return True
        if self.mode == "allow_fp32_to_fp16":
            return is_cube(o)
        # allow_mix_precision
        if is_cube(o):  # the op-kind trait: runs on the cube unit
            return True
        if precision_reduce(o) is False:  # the blocklist (PrecisionReduce(False) on the op)
            return False
        return any(_from_cast(v, dst) is not None for v in o.operands if _elt(v) == src)

    def _convert(self, o: Operation, src: str, dst: str, src_t, dst_t) -> None:
        block = parent_block_of(o)
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
        regions = [_retyped_body(o, src, dst_t)] if isinstance(o, cann.FusedKernelOp) else []
        new = type(o).create(operands=operands, result_types=result_types,
                             properties=dict(o.properties), attributes=dict(o.attributes),
                             regions=regions)
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


def _in_fused_body(o: Operation) -> bool:
    """An op of a cann.FusedKernel's body (retyped with its kernel, never alone)."""
    return isinstance(o.parent_op(), cann.FusedKernelOp)


def _body_op_allows(b: Operation, src: str, dst: str | None) -> bool:
    """Whether op `b` of a fused body computes in `src` throughout (its float operands and
    results) and, when `dst` is given, has a `dst` implementation (legalization's CANN_DTYPES)."""
    if isinstance(b, (cann.ConstOp, cann.YieldOp)):
        return True
    if isinstance(b, cann.CastOp) or b.regions:
        return False
    floats = [v for v in (*b.operands, *b.results) if _elt(v) in ("f16", "f32", "bf16")]
    if any(_elt(v) != src for v in floats):
        return False
    if dst is None:
        return True
    from compiler.conversions.tf_to_cann.legalization import CANN_DTYPES

    allowed = CANN_DTYPES.get(b.name.removeprefix("cann."))
    return allowed is None or dst in allowed


def _retyped_body(o: cann.FusedKernelOp, src: str, dst_t) -> Region:
    """A copy of the fused kernel's body computing in `dst_t` where it computed in `src`: the
    block arguments, every op's results, and the float constants (their values converted)."""
    import numpy as np

    from dialects.common import dense_from_numpy, numpy_dtype, numpy_from_dense

    old = o.body.block
    block = Block(arg_types=[_retype(a.type, dst_t) if _elt(a) == src else a.type for a in old.args])
    mapping: dict[SSAValue, SSAValue] = dict(zip(old.args, block.args, strict=True))
    for a, na in mapping.items():
        na.name_hint = a.name_hint
    for b in old.ops:
        operands = [mapping.get(v, v) for v in b.operands]
        result_types = [_retype(r.type, dst_t) if _elt(r) == src else r.type for r in b.results]
        props = dict(b.properties)
        if isinstance(b, cann.ConstOp) and _elt(b.results[0]) == src:
            value = np.asarray(numpy_from_dense(props["value"])).astype(numpy_dtype(dst_t))
            props["value"] = dense_from_numpy(value.reshape(shape_of(b.results[0])))
        new = type(b).create(operands=operands, result_types=result_types, properties=props,
                             attributes=dict(b.attributes))
        new.location = b.location
        block.add_op(new)
        for r, nr in zip(b.results, new.results, strict=True):
            nr.name_hint = r.name_hint
            mapping[r] = nr
    return Region(block)


def _type(elt: str):
    return Float16Type() if elt == "f16" else Float32Type()


def _float_elt(o: Operation) -> str | None:
    """The one float element type of an op's float operands and results, if they agree."""
    kinds = {_elt(v) for v in (*o.operands, *o.results) if _elt(v) in ("f16", "f32", "bf16")}
    return kinds.pop() if len(kinds) == 1 else None


def _split_entries(entries) -> tuple[set[str], set[str]]:
    names = {e for e in entries if not e.startswith(OP_TYPE)}
    types = {e[len(OP_TYPE):] for e in entries if e.startswith(OP_TYPE)}
    return names, types


def _entry_dtype(entry: str, option: str, floats_only: bool = True) -> tuple[str, str]:
    key, eq, dtype = entry.rpartition("=")
    elt = DTYPES.get(dtype.lower())
    if not eq or not key or elt is None or floats_only and str(elt) not in FLOAT_DTYPES:
        known = "float16, float32" if floats_only else ", ".join(DTYPES)
        raise CompileError(f"set-precision: {option}: '{entry}' is not NAME=DTYPE with DTYPE one "
                           f"of {known}")
    return key, str(elt)


def _own_name(o: Operation) -> str | None:
    loc = o.location
    return loc.desc.data if isinstance(loc, NameLoc) else None


def _warn_missing(module: ModuleOp, option: str, names) -> None:
    """A warning for every named op that is no op of its own any more."""
    if not names:
        return
    own: set[str] = set()
    fused: dict[str, Operation] = {}
    for o in module.walk():
        loc = o.location
        if isinstance(loc, NameLoc):
            own.add(loc.desc.data)
        elif isinstance(loc, FusedLoc):
            for part in loc_parts(loc):
                if isinstance(part, NameLoc):
                    fused.setdefault(part.desc.data, o)
    from compiler.ir.diagnostics import node_name

    for name in sorted(names):
        if name in own:
            continue
        if name in fused:
            o = fused[name]
            log.warning(f"--{option}: '{name}' was fused into {o.name} '{node_name(o)}': its "
                        "setting does not apply")
        else:
            log.warning(f"--{option}: '{name}' was removed by the compile (folded or dead): its "
                        "setting does not apply")


def _output_names(fn: func.FuncOp, n: int) -> list[str]:
    from compiler.ir.entry import io_names

    return io_names(fn)[1][:n]
