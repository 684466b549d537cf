"""cann.Conv3D -> kernel.cube: the 2-D conv's implicit GEMM (cube.py) with a depth axis.

x is NDC1HWC0 read through its (N*D) batch view, NC1HWC0 (N*D_in, C1, H, W, C0); the filter is
FRACTAL_Z_3D (formats.py: FRACTAL_Z rows (d*C1 + c1)*kh*kw + h*kw + w).  M = N*D_out*Ho*Wo
rows (n, do, ho, wo), K = kd*C1*kh*kw*C0 columns (d, c1, i, j, c0): the A tiles are the img2col
view with `depth` params, element (m, k) = x[n*D_in + do*sd + d*dd - pad_front, c1,
ho*sh + i*dh - pt, wo*sw + j*dw - pl, c0], 0 outside x (D's pads are the conv's, as H's and W's).
Where the tiling's cost model finds it cheaper, each M block's window of x's rows (from the
first plane and row its pixels read to the last, compiler/target/conv_geometry.py Fmap3; or,
where every block lies in one output plane and that is fewer rows, one 2-D window per depth
tap, param plane_rows: conv_geometry.py fmap3d_plane_rows) goes GM -> L1 once and the A tiles
are expanded from it by Load3D, as for the 2-D conv; else the A tiles come from GM as img2col
tiles.  No A-tile prologue (the fusion pass gives a Conv3D none,
compiler/transforms/fusion/auto.py _conv_reader); the epilogue (bias, a fused pointwise
reader) is the 2-D conv's.
A small-C_in conv (compiler/target/c04.py) has x NC1HWC0_C04 (the batch view of C0 = 4 lanes)
and a FRACTAL_Z_C04 filter: K = ceil(kd*kh*kw*4 / 16)*16 columns (d, i, j, c < 4), the same
img2col view on x's 4 lanes (its columns past kd*kh*kw*4 read nothing)."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import ChipPattern, gemm_body, kernel_op
from compiler.conversions.cann_to_kernel.fused import Epilogue, epilogue_consumer
from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format, c0_for, c04_k
from compiler.target.tiling import TilingError, cube_tiling
from dialects import cann, kernel
from dialects.common import numpy_dtype


def lower_conv3d(pattern: ChipPattern, op: cann.Conv3DOp, rewriter: PatternRewriter) -> None:
    from compiler.conversions.cann_to_kernel.cube import _epilogue, epilogue_tiles, replace_with_epilogue

    formats = pattern.cube_formats_or_fail(op, Format.FRACTAL_Z_3D,
                                           "NC1HWC0 (the batch view of NDC1HWC0)")
    if formats is None:
        return
    _, wf = formats
    et = elem_of(op.x)
    dtype = numpy_dtype(et)
    c0 = c0_for(dtype)
    (sh, sw), (dh, dw), pads = op.geometry()
    kd, kh, kw, cin, cout = wf.origin
    d_in, d_out, _, sd, dd, pf, pb = op.depth_geometry()
    c1x = shape_of(op.x)[1]
    ny, _, ho, wo, _ = shape_of(op.y)
    m, kk = ny * ho * wo, kd * c1x * kh * kw * c0
    if wf.fmt == Format.FRACTAL_Z_C04:  # x C0 = 4: the taps' channel groups packed in K
        kk = c04_k(kd * kh * kw)
    fk = epilogue_consumer(op)
    nx, _, hx, wx, _ = shape_of(op.x)
    fmap = (nx // d_in, hx, wx, c1x, ho, wo, kh, sh, dh, pads[0], d_in, d_out, kd, sd, dd, pf)
    try:
        t = cube_tiling("Conv3D", m, cout, kk, dtype.itemsize, c0, pattern.chip, 1,
                        ub_a_tiles=0, ub_epilogue_tiles=epilogue_tiles(fk), fmap=fmap,
                        fmap_c0=shape_of(op.x)[-1])
    except TilingError as e:
        pattern.fail(op, str(e))
        return
    a_params = dict(kernel_hw=[kh, kw], strides=[sh, sw], dilations=[dh, dw], pads=list(pads),
                    out_hw=[ho, wo], depth=[d_in, d_out, kd, sd, dd, pf, pb], cin_group=cin,
                    cin=cin, M=m, K=kk)
    if "fmapRows" in t.fields:  # Load3D from the window of the kd depth planes' rows in L1
        a_params.update(fmap3d=list(fmap), block_m=t.fields["baseM"])
        if "fmapPlaneRows" in t.fields:  # one 2-D window per depth tap (conv_geometry.py)
            a_params.update(plane_rows=t.fields["fmapPlaneRows"])
    store_p = dict(out_hw=[ho, wo], M=m, N=cout, offset=0, cout=cout)
    epilogue = _epilogue(op)
    operands, y_type = list(op.operands), op.y.type
    if fk is not None:
        epilogue = [*epilogue, ("region", Epilogue(fk, len(operands), ("nc1hwc0", store_p),
                                                   ("channel", dict(offset=0, N=cout))))]
        operands, y_type = operands + list(fk.inputs)[1:], fk.y.type
    region = gemm_body(
        [*(v.type for v in operands), y_type], t, batch=1, m=m, n=cout, k=kk, et=et,
        a_load=("img2col", a_params), b_load=("fz", dict(K=kk, N=cout)),
        bias_load=("channel", dict(offset=0, N=cout)) if op.bias is not None else None,
        epilogue=epilogue, residual=None, store=("nc1hwc0", store_p))
    new = kernel_op(kernel.CubeKernelOp, "Conv3D", operands, y_type, region, t.block_dim,
                    t.fields, t.buffers, fk or op)
    replace_with_epilogue(rewriter, op, fk, new)
