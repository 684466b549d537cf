"""A conv whose x is another conv's result, computed in its L1 window (conv -> conv fusion:
compiler/transforms/fusion/conv_stage.py marks the producer).

The reader C is lowered as a Load3D conv (compiler/conversions/cann_to_kernel/base.py gemm_body,
fmap_parts with one part and an emitter): per M block, the window (C1, rows, W, C0) of x's rows
is a zero-filled L1 buffer (kernel.alloc) that the producer P's GEMM fills.  From the window's
first pixel (kernel.fmap_base: fmap_first_row x W) over rows x W output pixels of P (clipped at
P's M), in base blocks of P's one-core tiling (compiler/transforms/fusion/conv_stage.py
window_tiling): P's A tiles (img2col from P's x in GM, or P's pool prologue computed in UB,
compiler/conversions/cann_to_kernel/fused.py emit_pool_prologue) and B tiles to L1 and L0, mmad,
fixpipe, P's bias and activation in UB, and the tile stored UB -> L1 into its rows and channels
of the window (store view fmap_window, channels past P's C_out left zero).  Rows outside the
image are Load3D's pads (C's conv pads), never P evaluated there; rows past N*H stay zero.
C then reads the window by Load3D as usual.

P's x is the kernel's argument 0 (so its own prologue reads it there), C's filter and bias
arguments 1 and 2, P's filter and bias after them.  L1 holds C's buffers (two windows, B, bias)
and P's (A, B, bias) together; UB C's epilogue tiles and P's; L0 is used by one GEMM at a time.

Kept only where the perf report's cost of the fused kernel (compiler/backend/perf_report.py
kernel_cost: C's cube cycles without the window load, plus P's per-window GEMMs,
cost_model.staged_window_cycles; the body's vector work walked) is below the two kernels'
estimate (`separate_us`); else the caller drops the mark and both are kernels of their own.
"""

from __future__ import annotations

from xdsl.dialects.builtin import f32
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import gemm_body, kernel_op, num_elems
from compiler.ir.typed import shape_of
from compiler.target.formats import Format, ceil_div
from compiler.target.tiling import TilingError, cube_tiling
from dialects import cann, kernel
from dialects.common import numpy_dtype


def lower_staged(pattern, c_op, p_op, rewriter: PatternRewriter) -> bool:
    """Lower conv c_op with its x computed in its windows from conv p_op; False (nothing
    changed) where that does not fit or is not estimated to gain."""
    from compiler.backend.perf_report import kernel_cost
    from compiler.conversions.cann_to_kernel.cube import (
        _epilogue,
        conv_gemm,
        epilogue_tiles,
        erase_unread,
        replace_with_epilogue,
    )
    from compiler.conversions.cann_to_kernel.fused import (
        Epilogue,
        emit_pool_prologue,
        epilogue_consumer,
        pool_prologue_lowerable,
    )
    from compiler.transforms.fusion.conv_stage import pool_a_tiles, stage_tilings

    chip = pattern.chip
    fc, fp = (cann.format_of(o.x.type) for o in (c_op, p_op))
    wc, wp = (cann.format_of(o.filter.type) for o in (c_op, p_op))
    if fc is None or fc.fmt != Format.NC1HWC0 or fp is None or wc is None or wp is None \
            or wc.fmt != Format.FRACTAL_Z or cann.format_of(c_op.y.type) is None:
        return False
    if (fp.fmt, wp.fmt) not in ((Format.NC1HWC0, Format.FRACTAL_Z),
                                (Format.NC1HWC0_C04, Format.FRACTAL_Z_C04)):
        return False
    dc, dp = conv_gemm(c_op, wc), conv_gemm(p_op, wp)
    if dc.groups != 1 or dp.groups != 1 or dc.et != dp.et:
        return False
    et, eb, c0 = dc.et, dc.dtype.itemsize, dc.c0
    fk = epilogue_consumer(c_op)
    pool = p_op.x.owner if pool_prologue_lowerable(p_op.x.owner) else None
    ub_a = pool_a_tiles(pool)
    x_shape = list(shape_of(c_op.x))
    _, c1x, hx, wx, _ = x_shape
    fmap = (dc.n, hx, wx, c1x, dc.ho, dc.wo, dc.kh, dc.sh, dc.dh)
    got = stage_tilings(chip, dc.m, dc.ncols, dc.kk, fmap, dp.ncols, dp.kk, eb, c0, ub_a,
                        epilogue_tiles(fk))
    if got is None:
        return False
    t, tp = got
    pb = [b for b in tp.buffers if b.space in ("L1", "UB")]
    f, g_ = t.fields, tp.fields
    bm, bn, bk = g_["baseM"], g_["baseN"], g_["baseK"]
    k0 = 32 // eb
    operands = [pool.x if pool is not None else p_op.x, c_op.filter]
    if c_op.bias is not None:
        operands.append(c_op.bias)
    w_arg = len(operands)
    operands.append(p_op.filter)
    b_arg = None
    if p_op.bias is not None:
        b_arg = len(operands)
        operands.append(p_op.bias)
    p_params = dp.a_params()
    p_epilogue = _epilogue(p_op)

    def producer_window(body, x, g, mi, pshape, et_, win):
        wl1 = body.alloc(pshape, et, "L1")
        base = body.fmap_base(mi, win)
        with body.loop(base, pshape[1] * wx, bm, dp.m) as pm:
            with body.loop(body.index(0), dp.ncols, bn, dp.ncols) as pn:
                c = body.alloc([bn // 16, bm // 16, 16, 16], f32, "L0C")
                with body.loop(body.index(0), dp.kk, bk, dp.kk) as ki:
                    if pool is not None:
                        au = emit_pool_prologue(body, pool, p_params, et, g, pm, ki, bm, bk)
                        a1 = body.load(au, [], "copy", [bm, bk], et, "L1")
                    else:
                        a1 = body.load(body.args[0], [g, pm, ki], "img2col", [bm, bk], et, "L1",
                                       **p_params)
                    a0 = body.load(a1, [], "Zz", [bm // 16, bk // k0, 16, k0], et, "L0A")
                    b1 = body.load(body.args[w_arg], [g, ki, pn], "fz", [bk, bn], et, "L1",
                                   K=dp.kk, N=dp.ncols)
                    b0 = body.load(b1, [], "Zn", [bk // k0, bn // 16, 16, k0], et, "L0B")
                    body.mmad(c, a0, b0)
                u = body.fixpipe(c, [bm, bn])
                if b_arg is not None:
                    bb = body.load(body.args[b_arg], [g, pn], "channel", [1, bn], f32, "UB",
                                   offset=0, N=dp.ncols)
                    u = body.vec("Add", [u, bb], [bm, bn], f32)
                for fn, attrs in p_epilogue:
                    u = body.vec(f"act:{fn}", [u], [bm, bn], f32, attrs)
                body.store(u, wl1, [base, pm, pn], "fmap_window", M=dp.m, N=dp.cout)
        return [wl1]

    store_p = dict(out_hw=[dc.ho, dc.wo], M=dc.m, N=dc.ncols, offset=0, cout=dc.cout)
    a_params = dict(dc.a_params(), in_hw=[hx, wx])
    epilogue = _epilogue(c_op)
    y_type = c_op.y.type
    if fk is not None:
        epilogue = [*epilogue, ("region", Epilogue(fk, len(operands), ("nc1hwc0", store_p),
                                                   ("channel", dict(offset=0, N=dc.ncols))))]
        operands, y_type = operands + list(fk.inputs)[1:], fk.y.type
    region = gemm_body(
        [*(v.type for v in operands), y_type], t, batch=1, m=dc.m, n=dc.ncols, k=dc.kk, et=et,
        a_load=("img2col", a_params), fmap_parts=[(0, c1x, {}, producer_window)],
        x_shape=x_shape, b_load=("fz", dict(K=dc.kk, N=dc.ncols)),
        bias_load=("channel", dict(offset=0, N=dc.ncols)) if c_op.bias is not None else None,
        epilogue=epilogue, store=("nc1hwc0", store_p))
    fields = dict(f, stageM=g_["singleCoreM"], stageN=g_["singleCoreN"], stageK=dp.kk,
                  stageBaseM=bm, stageBaseN=bn)
    buffers = (*t.buffers, *(type(b)(b.space, b.size, f"stage {b.role}") for b in pb))
    new = kernel_op(kernel.CubeKernelOp, "Conv2D", operands, y_type, region, t.block_dim, fields,
                    buffers, fk or c_op)
    fused_us = kernel_cost(new, 0, chip).total_us
    if fused_us >= separate_us(chip, c_op, p_op, dc, dp, t, fk, pool, ub_a, new):
        return False
    replace_with_epilogue(rewriter, c_op, fk, new)
    erase_unread(rewriter, p_op)
    if pool is not None:
        erase_unread(rewriter, pool)
    return True


def separate_us(chip, c_op, p_op, dc, dp, t, fk, pool, ub_a: int, fused) -> float:
    """The estimate of P and C as two kernels: two launches; C's cube cycles with its windows
    loaded from GM (its tiling t), P's on its own tiling over its whole M; the vector work of
    the fused body split as it is done: P's per base block (the walk of one turn of P's block
    loop) times P's blocks on its own busiest core, C's the rest; each kernel's time
    launch + max(compute, HBM bytes / bandwidth) as the perf report has it."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.kernel_cost_walk import BodyCost, _walk_block, trip_count, walk_body

    eb = dc.dtype.itemsize
    total = walk_body(fused)
    p_loop = next(o for o in fused.walk() if isinstance(o, kernel.ForOp)
                  and isinstance(o.base.owner, kernel.FmapBaseOp))
    per = BodyCost()
    _walk_block(p_loop.body.block, 1, per)
    per_block = per.vector_cycles + per.ub_to_l1_cycles
    f = t.fields
    c_blocks = ceil_div(f["singleCoreM"], f["baseM"])
    fused_p_vec = per_block * c_blocks * trip_count(p_loop)
    c_vec = max(0.0, total.vector_cycles + total.ub_to_l1_cycles - fused_p_vec)
    if pool is not None or dp.kh * dp.kw == 1:
        fmap_p = None
    else:
        _, _, hpx, wpx, c0p = shape_of(p_op.x)
        fmap_p = (dp.n, hpx, wpx, dp.c1x, dp.ho, dp.wo, dp.kh, dp.sh, dp.dh)
    try:
        tp = cube_tiling("Conv2D", dp.m, dp.ncols, dp.kk, eb, dc.c0, chip, 1, ub_a_tiles=ub_a,
                         fmap=fmap_p, fmap_c0=shape_of(p_op.x)[-1] if fmap_p else 0)
    except TilingError:
        return float("inf")
    g, wf = tp.fields, fused.properties["tiling"].as_dict()
    # P's own busiest core: its base blocks' elements, at the fused block's vector cycles per
    # element (the same ops on each output element and each A tile element)
    own = ceil_div(g["singleCoreM"], g["baseM"]) * ceil_div(g["singleCoreN"], g["baseN"]) \
        * g["baseM"] * g["baseN"]
    p_vec = per_block * own / (wf["stageBaseM"] * wf["stageBaseN"])
    bw = chip.hbm_tb_per_s * 1e6  # bytes per µs

    def nbytes(v) -> int:
        return num_elems(v.type) * numpy_dtype(v.type.element_type).itemsize
    y_p = nbytes(p_op.y)
    p_in = sum(nbytes(v) for v in (pool.x if pool is not None else p_op.x, p_op.filter, p_op.bias)
               if v is not None)
    c_in = sum(nbytes(v) for v in (c_op.filter, c_op.bias) if v is not None) + y_p
    c_out = nbytes(fk.y if fk is not None else c_op.y)
    p_us = LAUNCH_OVERHEAD_US + max(max(tp.est_cycles, p_vec) / chip.clock_mhz,
                                    (p_in + y_p) / bw)
    c_us = LAUNCH_OVERHEAD_US + max(max(t.est_cycles, c_vec) / chip.clock_mhz, (c_in + c_out) / bw)
    return p_us + c_us

