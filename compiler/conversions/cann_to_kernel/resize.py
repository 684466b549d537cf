"""ResizeBilinearV2 / ResizeNearestNeighborV2 -> kernel.vec_kernel.

x is NC1HWC0 (assign-layouts' rule: resizing is per channel, so each (n, c1) plane is resized
with its C0 channels as vector lanes) or NHWC row-major (one plane of C lanes).  Per core, tiles
of output pixels (n, c1, ho, wo) x lanes.  Nearest: one load of the source pixels
(`resize_rows`, corner -1).  Bilinear: the four corner pixels and the two float32 lerp weights
(`resize_weights`: TensorFlow's source coordinates, legacy / align_corners / half-pixel) are
loaded, then top = tl + (tr - tl) * wx, bottom = bl + (br - bl) * wx,
y = top + (bottom - top) * wy on the vector unit, in TensorFlow's order."""

from __future__ import annotations

from xdsl.dialects.builtin import f32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    kernel_op,
    row_major,
    stored_as,
)
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format
from dialects import cann, kernel
from dialects.common import numpy_dtype


class ResizeToVectorBody(ChipPattern):
    applies_to = roots(cann.ResizeBilinearV2Op, cann.ResizeNearestNeighborV2Op)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ResizeBilinearV2Op, cann.ResizeNearestNeighborV2Op)):
            return
        from compiler.conversions.cann_to_kernel.cube import lower_concat_readers
        from compiler.transforms.fusion.auto import is_prologue, live_uses

        if is_prologue(op):  # computed on the windows of the convs reading its concat
            users = live_uses(op.results[0])
            if lower_concat_readers(self, users[0], rewriter) and op.parent is None:
                return
        xt, yt = op.x.type, op.y.type
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        xf, yf = cann.format_of(xt), cann.format_of(yt)
        if xf is not None and xf.fmt == Format.NC1HWC0 and yf is not None \
                and yf.fmt == Format.NC1HWC0 and xf.origin_fmt == Format.NHWC:
            n_, c1, _, _, lanes = shape_of(xt)
            _, _, ho, wo, _ = yt.get_shape()
        elif row_major(xt) and row_major(yt):
            n_, _, _, lanes = shape_of(xt)
            _, ho, wo, _ = yt.get_shape()
            c1 = 1
        else:
            self.fail(op, f"{op.name}: x stored as {stored_as(xt)}, y as {stored_as(yt)} has no "
                          "resize kernel (needs NHWC row-major or NC1HWC0 of NHWC for both)")
            return
        nearest = isinstance(op, cann.ResizeNearestNeighborV2Op)
        rows = n_ * c1 * ho * wo
        xe, ye = elem_of(xt), elem_of(yt)
        eb = max(numpy_dtype(xe).itemsize, numpy_dtype(ye).itemsize)
        kind = op.name.removeprefix("cann.")
        # UB per output pixel, double-buffered: nearest in + out; bilinear 4 corners, 4 partial
        # results, out and the two float32 weights
        row_bytes = eb * lanes * (2 if nearest else 9) + (0 if nearest else 8)
        t = self.vector_tiling_or_fail(op, kind, rows, 1, row_bytes, lanes)
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        geo = {"out_hw": [ho, wo], "align_corners": int(op.align_corners.value.data),
               "half_pixel_centers": int(op.half_pixel_centers.value.data)}
        body = Body([xt, yt])
        x = body.args[0]
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                if nearest:
                    v = body.load(x, [ti], "resize_rows", [tile, lanes], xe, "UB", corner=-1,
                                  **geo)
                else:
                    tl, tr, bl, br = (body.load(x, [ti], "resize_rows", [tile, lanes], xe, "UB",
                                                corner=k, **geo) for k in range(4))
                    wy, wx = (body.load(x, [ti], "resize_weights", [tile, 1], f32, "UB", axis=a,
                                        **geo) for a in (0, 1))
                    v = bilinear(body, (tl, tr, bl, br).__getitem__, wy, wx, [tile, lanes], ye)
                body.store(v, body.args[-1], [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, kind, [op.x], yt, body.region(), t.block_dim, f,
                        t.buffers, op)
        size = op.size.owner
        rewriter.replace(op, new)
        if isinstance(size, cann.ConstOp) and not size.results[0].uses:
            rewriter.erase(size)  # the output size is the result type's (static) H, W


def bilinear(body: Body, corner, wy, wx, shape, et):
    """top = tl + (tr - tl) * wx, bottom = bl + (br - bl) * wx, top + (bottom - top) * wy on the
    vector unit (TensorFlow's order): 3 Sub, 3 Mul, 3 Add on tiles of `shape`; corner(k) gives
    corner k's tile (0..3: tl, tr, bl, br), asked for as the lerp needs it."""
    def lerp(a, b, w):
        d = body.vec("Sub", [b, a], shape, et)
        return body.vec("Add", [a, body.vec("Mul", [d, w], shape, et)], shape, et)
    top = lerp(corner(0), corner(1), wx)
    return lerp(top, lerp(corner(2), corner(3), wx), wy)


def bilinear_params(op: cann.ResizeBilinearV2Op) -> dict:
    """The resize params of the window loads reading op's input (dialects/kernel.py fmap)."""
    return {"align_corners": int(op.align_corners.value.data),
            "half_pixel_centers": int(op.half_pixel_centers.value.data)}


#: live UB tiles of one plane while emit_bilinear_window lerps it (top, the two bottom corners,
#: their difference: the corners are loaded as the lerp needs them)
BILINEAR_PLANE_TILES = 4


def emit_bilinear_window(body: Body, x, g, mi, shape, et, win: dict) -> list:
    """The window tile `shape` (C1, rows, W, C0) of view fmap of a bilinear resize of x (win:
    fmap's params with in_hw = the resized H, W, and the resize params), as its C1 planes in
    L1: each plane computed in UB from its four corner windows (view fmap, resize_corner k,
    c1_range [c, 1]) and the two lerp weights (view fmap_resize_weights, once), by `bilinear`
    (9 vector ops on the plane), and moved UB -> L1."""
    rows, w = shape[1], shape[2]
    pshape = [1, *shape[1:]]
    wy = body.load(x, [g, mi], "fmap_resize_weights", [1, rows, 1, 1], f32, "UB", axis=0, **win)
    wx = body.load(x, [g, mi], "fmap_resize_weights", [1, 1, w, 1], f32, "UB", axis=1, **win)
    planes = []
    for c in range(shape[0]):
        def corner(k, c=c):
            return body.load(x, [g, mi], "fmap", pshape, et, "UB",
                             **dict(win, resize_corner=k, c1_range=[c, 1]))
        p = bilinear(body, corner, wy, wx, pshape, et)
        planes.append(body.load(p, [], "copy", pshape, et, "L1"))
    return planes
