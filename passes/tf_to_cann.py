"""tf-to-cann: legalize the tf dialect into the CANN operator library, one pattern per TF op.

Attribute conversion follows cann-facts.md section 4: SAME/VALID/EXPLICIT padding becomes
explicit `pads = [top, bottom, left, right]` (GetPadConv2D), strides and dilations stay 4-tuples
in data_format order, groups = 1.  Dtypes are checked per CANN op; every node that cannot be
legalized is reported in one error (node name, TF op, dtype, why).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.conv_geometry import same_pads
from compiler.diagnostics import OpError
from compiler.rewriting import rewrite, with_loc
from dialects import cann, tf
from dialects.common import int_array, ints

#: Element types each CANN op accepts (its kernel registrations).
CANN_DTYPES = {
    "Conv2D": ("f16", "f32", "bf16"),
    "BiasAdd": ("f16", "f32", "bf16", "i32"),
    "Relu": ("f16", "f32", "bf16", "i8", "i32"),
}
_DTYPE_NAMES = {"f16": "float16", "f32": "float32", "bf16": "bfloat16", "i8": "int8",
                "i32": "int32", "f64": "float64", "i64": "int64"}


class LegalizationError(Exception):
    pass


def _check_dtype(cann_name: str, op: Operation, value_type) -> None:
    et = str(value_type.element_type)
    allowed = CANN_DTYPES[cann_name]
    if et not in allowed:
        names = ", ".join(_DTYPE_NAMES.get(a, a) for a in allowed)
        raise LegalizationError(
            f"{cann_name} supports {names}; got {_DTYPE_NAMES.get(et, et)}")


class PlaceholderToArgument(RewritePattern):
    """A Placeholder forwards its function argument: uses read the argument directly."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.PlaceholderOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.input])


class IdentityToOperand(RewritePattern):
    """Identity is a GE built-in that runs no kernel: its uses read its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.IdentityOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.input])


class ConstToCann(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.ConstOp, rewriter: PatternRewriter):
        rewriter.replace(op, with_loc(cann.ConstOp(op.value), op))


def conv_pads(op: tf.Conv2DOp) -> list[int]:
    """[top, bottom, left, right] for SAME, VALID or EXPLICIT padding."""
    fmt = op.data_format.data
    h_ax, w_ax = (1, 2) if fmt == "NHWC" else (2, 3)
    padding = op.padding.data
    if padding == "VALID":
        return [0, 0, 0, 0]
    if padding == "EXPLICIT":
        e = ints(op.explicit_paddings)
        return [e[2 * h_ax], e[2 * h_ax + 1], e[2 * w_ax], e[2 * w_ax + 1]]
    xs = op.input.type.get_shape()
    ks = op.filter.type.get_shape()
    s, d = ints(op.strides), ints(op.dilations)
    if xs[h_ax] < 0 or xs[w_ax] < 0:
        raise LegalizationError("SAME padding needs static spatial dimensions; got "
                                f"{'x'.join('?' if v < 0 else str(v) for v in xs)}")
    top, bottom = same_pads(xs[h_ax], ks[0], s[h_ax], d[h_ax])
    left, right = same_pads(xs[w_ax], ks[1], s[w_ax], d[w_ax])
    return [top, bottom, left, right]


class Conv2DToCann(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.Conv2DOp, rewriter: PatternRewriter):
        _check_dtype("Conv2D", op, op.input.type)
        new = cann.Conv2DOp(
            operands=[op.input, op.filter, []],
            result_types=[op.output.type],
            properties={
                "strides": op.strides,
                "pads": int_array(conv_pads(op)),
                "dilations": op.dilations,
                "groups": IntegerAttr(1, i64),
                "data_format": op.data_format,
            },
        )
        rewriter.replace(op, with_loc(new, op))


class BiasAddToCann(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.BiasAddOp, rewriter: PatternRewriter):
        _check_dtype("BiasAdd", op, op.value.type)
        new = cann.BiasAddOp(operands=[op.value, op.bias], result_types=[op.output.type],
                             properties={"data_format": op.data_format})
        rewriter.replace(op, with_loc(new, op))


class ReluToCann(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tf.ReluOp, rewriter: PatternRewriter):
        _check_dtype("Relu", op, op.x.type)
        rewriter.replace(op, with_loc(cann.ReluOp(operands=[op.x], result_types=[op.y.type]), op))


PATTERNS = (PlaceholderToArgument, IdentityToOperand, ConstToCann, Conv2DToCann,
            BiasAddToCann, ReluToCann)


class _Collecting(RewritePattern):
    """Runs one pattern; records (op, why) instead of stopping at the first failure."""

    def __init__(self, inner: RewritePattern, failures: list[tuple[Operation, str]]):
        self.inner, self.failures = inner, failures

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        try:
            self.inner.match_and_rewrite(op, rewriter)
        except LegalizationError as e:
            if all(f is not op for f, _ in self.failures):
                self.failures.append((op, f"{op.name} cannot be legalized: {e}"))


@dataclass(frozen=True)
class TfToCannPass(ModulePass):
    name = "tf-to-cann"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        failures: list[tuple[Operation, str]] = []
        rewrite(op, [_Collecting(p(), failures) for p in PATTERNS], recursive=False)
        for left in op.walk():
            if left.dialect_name() == "tf" and all(f is not left for f, _ in failures):
                failures.append((left, f"{left.name} has no CANN lowering"))
        if failures:
            raise OpError(failures)
