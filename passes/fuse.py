"""fuse: fusion rules on the cann dialect, each a rewrite pattern with a name that can be disabled.

Rules (names borrowed from CANN's fusion passes, cann-facts.md section 5):
  AABiasaddConvFusion   Conv2D(x, w) -> BiasAdd(b)          => FusedConv2D(x, w, b)
  TbeConv2DReluFusion   Conv2D / FusedConv2D(none) -> Relu  => FusedConv2D(activation = Relu)
Together they turn Conv2D + BiasAdd + Relu into one FusedConv2D.  A rule fires only when the
intermediate value has no other consumer (otherwise the unfused value is still needed).

    cann-opt --fuse input.mlir
    cann-opt --fuse='disable=TbeConv2DReluFusion' input.mlir
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.diagnostics import CompileError
from compiler.rewriting import rewrite, with_loc
from dialects import cann


def _single_use(value: SSAValue) -> bool:
    return value.has_one_use()


def _fused_conv(conv: cann.ConvLike, bias: SSAValue | None, activation: str,
                result_type) -> cann.FusedConv2DOp:
    props = {k: conv.properties[k] for k in ("strides", "pads", "dilations", "groups", "data_format")}
    props["activation"] = StringAttr(activation)
    return cann.FusedConv2DOp(operands=[conv.x, conv.filter, [bias] if bias is not None else []],
                              result_types=[result_type], properties=props)


class AABiasaddConvFusion(RewritePattern):
    """Conv2D + BiasAdd (bias along the conv's channel axis) -> conv with a bias input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.BiasAddOp, rewriter: PatternRewriter):
        conv = op.x.owner
        if not isinstance(conv, cann.Conv2DOp) or conv.bias is not None:
            return
        if not _single_use(conv.y) or op.data_format.data != conv.data_format.data:
            return
        rewriter.replace(op, with_loc(_fused_conv(conv, op.bias, "none", op.y.type), conv, op))
        rewriter.erase(conv)


class TbeConv2DReluFusion(RewritePattern):
    """A Relu epilogue on a convolution, applied to the tile in UB before write-back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.ReluOp, rewriter: PatternRewriter):
        conv = op.x.owner
        if isinstance(conv, cann.FusedConv2DOp):
            if conv.activation.data != "none":
                return
        elif not isinstance(conv, cann.Conv2DOp):
            return
        if not _single_use(conv.y):
            return
        rewriter.replace(op, with_loc(_fused_conv(conv, conv.bias, "Relu", op.y.type), conv, op))
        rewriter.erase(conv)


RULES: dict[str, type[RewritePattern]] = {
    "AABiasaddConvFusion": AABiasaddConvFusion,
    "TbeConv2DReluFusion": TbeConv2DReluFusion,
}


@dataclass(frozen=True)
class FusePass(ModulePass):
    name = "fuse"

    disable: tuple[str, ...] = ()
    """Rule names to switch off (`disable=A,B`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        off = set(self.disable)
        unknown = sorted(off - RULES.keys())
        if unknown:
            raise CompileError(
                f"fuse: error: unknown fusion rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
        rewrite(op, [rule() for name, rule in RULES.items() if name not in off])
