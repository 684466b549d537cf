"""cann-to-kernel: one tiled kernel per cann op, tiled for a chip profile.

    cann-opt --cann-to-kernel='soc-version=Ascend910A' in.mlir

The chip is the pass option, else the module's `cann.soc_version`, else Ascend910B3; the module
records the chip it was tiled for.  Convolutions become `kernel.cube_conv2d` (implicit GEMM on
NC1HWC0 x FRACTAL_Z: M = N*Ho*Wo, N = Cout, K = C1*kh*kw*C0), elementwise ops `kernel.vector`,
TransData `kernel.transdata`.  Layouts must have been assigned (`assign-layouts`) first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from compiler.diagnostics import CompileError, OpError
from compiler.formats import Format, c0_for
from compiler.tiling import TilingError, cube_tiling, vector_tiling
from compiler.rewriting import rewrite, with_loc
from dialects import cann, kernel
from dialects.common import int_array, numpy_dtype


def _kernel_props(block_dim: int, fields: dict[str, int], buffers) -> dict:
    return {
        "block_dim": IntegerAttr(block_dim, i64),
        "tiling": kernel.TilingAttr(fields),
        "buffers": ArrayAttr([kernel.BufferAttr(b.space, b.size, b.role) for b in buffers]),
    }


class _ChipPattern(RewritePattern):
    def __init__(self, chip: str, failures: list[tuple[Operation, str]]):
        self.chip, self.failures = chip, failures

    def fail(self, op: Operation, msg: str) -> None:
        if all(f is not op for f, _ in self.failures):
            self.failures.append((op, msg))


class ConvToCube(_ChipPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.ConvLike, rewriter: PatternRewriter):
        xf, wf = cann.format_of(op.x.type), cann.format_of(op.filter.type)
        if xf is None or xf.fmt != Format.NC1HWC0 or wf is None or wf.fmt != Format.FRACTAL_Z:
            self.fail(op, f"{op.name}: x must be NC1HWC0 and the filter FRACTAL_Z; "
                          "run assign-layouts before cann-to-kernel")
            return
        dtype = numpy_dtype(op.x.type.element_type)
        c0 = c0_for(dtype)
        (sh, sw), (dh, dw), pads = op.geometry()
        kh, kw, _, cout = cann.origin_shape(op.filter.type)
        n, c1, _, _, _ = op.x.type.get_shape()
        _, _, ho, wo, _ = op.y.type.get_shape()
        m, k = n * ho * wo, c1 * kh * kw * c0
        try:
            t = cube_tiling("Conv2D", m, cout, k, dtype.itemsize, c0, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        activation = op.activation.data if isinstance(op, cann.FusedConv2DOp) else "none"
        props = {
            "strides": int_array([sh, sw]), "dilations": int_array([dh, dw]),
            "pads": int_array(pads), "kernel_hw": int_array([kh, kw]),
            "activation": StringAttr(activation),
            **_kernel_props(t.block_dim, t.fields, t.buffers),
        }
        new = kernel.CubeConv2DOp(
            operands=[op.x, op.filter, [op.bias] if op.bias is not None else []],
            result_types=[op.y.type], properties=props)
        rewriter.replace(op, with_loc(new, op))


class ElementwiseToVector(_ChipPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ReluOp, cann.BiasAddOp)):
            return
        fn = op.name.removeprefix("cann.")
        y = op.results[0].type
        elems = 1
        for d in y.get_shape():
            elems *= d
        try:
            t = vector_tiling(fn, elems, len(op.operands) + 1,
                              numpy_dtype(y.element_type).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        new = kernel.VectorOp(operands=[list(op.operands)], result_types=[y],
                              properties={"fn": StringAttr(fn),
                                          **_kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))


class TransDataToKernel(_ChipPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        st = op.src.type
        elems = 1
        for d in st.get_shape():
            elems *= d
        try:
            t = vector_tiling("TransData", elems, 2, numpy_dtype(st.element_type).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        new = kernel.TransDataOp(operands=[op.src], result_types=[op.dst.type],
                                 properties={"src_format": op.src_format, "dst_format": op.dst_format,
                                             **_kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))


@dataclass(frozen=True)
class CannToKernelPass(ModulePass):
    name = "cann-to-kernel"

    soc_version: str = ""
    """The chip (ATC's --soc_version name); default: the module's, else Ascend910B3."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        chip = self.soc_version
        if not chip:
            attr = op.attributes.get(kernel.SOC_ATTR)
            chip = attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP
        try:
            get_chip(chip)
        except UnknownChipError as e:
            raise CompileError(f"cann-to-kernel: error: {e}") from None
        op.attributes[kernel.SOC_ATTR] = StringAttr(chip)
        failures: list[tuple[Operation, str]] = []
        rewrite(op, [ConvToCube(chip, failures), ElementwiseToVector(chip, failures),
                     TransDataToKernel(chip, failures)], recursive=False)
        for left in op.walk():
            if left.dialect_name() in ("tf", "cann") and not isinstance(left, cann.ConstOp) \
                    and all(f is not left for f, _ in failures):
                failures.append((left, f"{left.name} has no kernel lowering"))
        if failures:
            raise OpError(failures)
