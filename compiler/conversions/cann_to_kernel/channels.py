"""Kernels over the channels of NC1HWC0 values (assign-layouts' rules `reduce-hw` over C and
`reshape-c`, compiler/transforms/layout_assignment.py):

- a reduction over C alone of an NHWC value stored NC1HWC0 (N, C1, H, W, C0): rows (n, h, w),
  each C1 blocks of C0 lanes loaded side by side with the padding lanes of the last block
  dropped (`nc1hwc0_rows`), so the statistic sees exactly C values for any channel count;
- a Reshape between NC1HWC0 [N, H, W, C] and FRACTAL_NZ [N*H*W, C] (Tensordot's flatten around
  a matmul): the same rows (n, h, w) = m of C channels in both, so the kernel moves rows from
  one view to the other (`nc1hwc0_rows` <-> `nz_origin_rows`); when N = 1 and H*W is a multiple
  of 16 the two layouts hold the same bytes and the reshape is a kernel.view (no kernel);
- a Reshape of NC1HWC0 that only regroups H and W (N and C unchanged; also to and from the
  channels-last values of other ranks of compiler/target/formats.py): a kernel.view.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, f32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    kernel_op,
    prod,
)
from compiler.ir.rewriting import roots, with_loc
from compiler.ir.typed import shape_of
from compiler.target.formats import Format
from dialects import cann, kernel
from dialects.common import numpy_dtype


def _fmt(t):
    f = cann.format_of(t)
    return None if f is None else f.fmt


def lower_reduce_over_c(pat: ChipPattern, op: cann.ReduceDOp, rewriter: PatternRewriter, acc_fn: str) -> None:
    """ReduceMeanD / SumD / MaxD / MinD / ProdD over C of x NC1HWC0 -> kernel.vec_kernel: per
    core, tiles of rows (n, h, w) loaded as [tile, C] (`nc1hwc0_rows`), reduced along the row;
    the result NC1HWC0 (N, 1, H, W, C0) with keep_dims (lane 0, padding lanes zero), else
    row-major [N, H, W]."""
    xt, yt = op.x.type, op.y.type
    n_, h, w, c = cann.origin_shape(xt)
    rows = n_ * h * w
    et = yt.element_type
    eb = numpy_dtype(et).itemsize
    kind = op.name.removeprefix("cann.")
    t = pat.vector_tiling_or_fail(op, kind, rows, 2, eb * c, c)
    if t is None:
        return
    f, tile = t.fields, t.fields["tileElems"]
    red = {"Add": "RowSum", "Max": "RowMax", "Min": "RowMin", "Mul": "RowProd"}[acc_fn]
    keep = _fmt(yt) == Format.NC1HWC0
    body = Body([xt, yt])
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
            x = body.load(body.args[0], [ti], "nc1hwc0_rows", [tile, c], et, "UB", channels=c)
            r = body.vec(red, [x], [tile, 1], et)
            if isinstance(op, cann.ReduceMeanDOp):
                r = body.vec("Muls", [r], [tile, 1], et, {"value": FloatAttr(1.0 / c, f32)})
            if keep:
                body.store(r, body.args[-1], [ti], "nc1hwc0_rows", channels=1)
            else:
                body.store(r, body.args[-1], [ti], "rows")
    rewriter.replace(op, kernel_op(kernel.VectorKernelOp, kind, [op.x], yt, body.region(),
                                   t.block_dim, f, t.buffers, op))


def _view_ok(xt, yt) -> bool:
    """The reshape moves no byte: NC1HWC0 -> NC1HWC0 with N and C (so C1, C0) unchanged, or
    NC1HWC0 (1, C1, H, W, C0) <-> FRACTAL_NZ (C1, H*W/16, 16, C0) of [H*W, C]."""
    fx, fy = _fmt(xt), _fmt(yt)
    xs, ys = tuple(xt.get_shape()), tuple(yt.get_shape())
    if fx == fy == Format.NC1HWC0:  # also channels-last values of other ranks (formats.py)
        return (xs[0], xs[1], xs[-1]) == (ys[0], ys[1], ys[-1])
    five, nz = (xs, ys) if fx == Format.NC1HWC0 else (ys, xs)
    if len(five) != 5:
        return False
    n_, c1, h, w, c0 = five
    return n_ == 1 and len(nz) == 4 and nz == (c1, h * w // 16, 16, c0) and (h * w) % 16 == 0


class ReshapeChannelsToKernel(ChipPattern):
    """Reshape with an NC1HWC0 operand or result (assign-layouts' `reshape-c`): a kernel.view
    when the bytes are the same (_view_ok), else a vector kernel moving rows (n, h, w) between
    NC1HWC0 and FRACTAL_NZ [M, C] (the NZ padding rows past M and padding lanes written zero)."""

    applies_to = roots(cann.ReshapeOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReshapeOp):
            return
        xt, yt = op.x.type, op.y.type
        fx, fy = _fmt(xt), _fmt(yt)
        if Format.NC1HWC0 not in (fx, fy):
            return
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        pair = {fx, fy}
        if pair not in ({Format.NC1HWC0}, {Format.NC1HWC0, Format.FRACTAL_NZ}):
            self.fail(op, f"{op.name}: a reshape from {fx and fx.value} to {fy and fy.value} has no "
                          "kernel lowering")
            return
        if _view_ok(xt, yt):
            rewriter.replace(op, with_loc(kernel.ViewOp(operands=[op.x], result_types=[yt]), op))
            return
        if pair == {Format.NC1HWC0}:
            self.fail(op, f"{op.name}: a reshape of NC1HWC0 that changes N or C has no kernel lowering")
            return
        to_nz = fy == Format.FRACTAL_NZ
        five_t, nz_t = (xt, yt) if to_nz else (yt, xt)
        m, c = cann.origin_shape(nz_t)
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        k1, m1, m0, c0 = shape_of(nz_t)
        # to NZ: every padded row (M1*16) is written (rows past M as zeros); from NZ: the M rows
        units = m1 * m0 if to_nz else prod(cann.origin_shape(five_t)[:3])
        t = self.vector_tiling_or_fail(op, "Reshape", units, 2, eb * c, c)
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        nz_p = {"rows": m, "cols": c}
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, units) as ti:
                if to_nz:
                    v = body.load(body.args[0], [ti], "nc1hwc0_rows", [tile, c], et, "UB", channels=c)
                    body.store(v, body.args[-1], [ti], "nz_origin_rows", **nz_p)
                else:
                    v = body.load(body.args[0], [ti], "nz_origin_rows", [tile, c], et, "UB", **nz_p)
                    body.store(v, body.args[-1], [ti], "nc1hwc0_rows", channels=c)
        rewriter.replace(op, kernel_op(kernel.VectorKernelOp, "Reshape", [op.x], yt, body.region(),
                                       t.block_dim, f, t.buffers, op))

