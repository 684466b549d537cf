"""The body-less kernel forms (`--cann-to-kernel='legacy=true'`): kernel.cube_conv2d and
kernel.vector, whose semantics are built into the interpreter."""


from __future__ import annotations

from xdsl.dialects.builtin import (
    StringAttr,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    op_type_rewrite_pattern,
)

from compiler.target.formats import Format, c0_for
from compiler.conversions.cann_to_kernel.base import ChipPattern, kernel_props
from compiler.ir.rewriting import with_loc
from compiler.target.tiling import TilingError, cube_tiling
from dialects import cann, kernel
from dialects.common import int_array, numpy_dtype


class ConvToCube(ChipPattern):
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
            **kernel_props(t.block_dim, t.fields, t.buffers),
        }
        new = kernel.CubeConv2DOp(
            operands=[op.x, op.filter, [op.bias] if op.bias is not None else []],
            result_types=[op.y.type], properties=props)
        rewriter.replace(op, with_loc(new, op))


class ElementwiseToVector(ChipPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ReluOp, cann.BiasAddOp)):
            return
        fn = op.name.removeprefix("cann.")
        y = op.results[0].type
        elems = 1
        for d in y.get_shape():
            elems *= d
        t = self.vector_tiling_or_fail(op, fn, elems, len(op.operands) + 1,
                              numpy_dtype(y.element_type).itemsize)
        if t is None:
            return
        new = kernel.VectorOp(operands=[list(op.operands)], result_types=[y],
                              properties={"fn": StringAttr(fn),
                                          **kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))
