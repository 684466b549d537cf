"""A conv computed in its reader conv's L1 window (conv -> conv fusion, the fused-layer /
overlapped-tile chain: CUTLASS's back-to-back GEMM is its 1x1 case).

A conv C whose A operand comes from a window of x's rows in L1 (Load3D, compiler/target/
conv_geometry.py) need not load that window from GM when x is the result of another conv P: each
core computes P's output on exactly the rows the window holds (C's M block's rows plus its halo,
recomputed where two blocks' windows overlap) and writes them into the window in L1
(compiler/conversions/cann_to_kernel/conv_stage.py).  P is then no kernel (engine.count_kernels),
its result no GM buffer, and C's window is no GM -> L1 load.

P: an ungrouped Conv2D / FusedConv2D (any kernel, stride, dilation; its own bias and activation;
no residual), NHWC, static shapes, whose x is the model's data or a pool run on its A tiles (a
pool prologue), not another staged value; its only live reader is C.  C: an ungrouped Conv2D /
FusedConv2D (no residual) reading P's result as x only, itself not computed in another window.

The mark (auto.PROLOGUE_ATTR) is set where the estimate `stage_gain_us` says the fusion gains:
the launch and P's result's HBM write + read saved, against P's recomputed halo rows on the
cube (per C window, P's GEMM over the window's rows: `stage_tilings`; None where the pair
does not fit one core's L1 / UB).  The lowering decides
again with the lowered kernel's perf-report cost (conv_stage.py `gains`) and drops the mark
where the fused kernel does not fit L1 / UB or costs more; P is then a kernel of its own.
Switch name ConvStageFusion (off with `ConvStageFusion:off` in --fusion_switch_file or
`fuse{disable=ConvStageFusion}`); AutomaticPrologueFusion:off turns it off too.
"""

from __future__ import annotations

from typing import TypeGuard

from xdsl.ir import Block, Operation, SSAValue

from compiler.ir.typed import elem_of, shape_of
from compiler.transforms.fusion.auto import Switch
from dialects import cann

SWITCH = Switch("ConvStageFusion")
#: the conv ops that stage (and are staged into): ungrouped 2-D convs of one data input
STAGE_CONVS = (cann.Conv2DOp, cann.FusedConv2DOp)
StageConv = cann.Conv2DOp | cann.FusedConv2DOp


def _plain_conv(op: Operation | Block | None) -> TypeGuard[StageConv]:
    if not isinstance(op, STAGE_CONVS) or op.data_format.data != "NHWC":
        return False
    if getattr(op, "residual", None) is not None or getattr(op, "scale", None) is not None:
        return False
    if any(d < 0 for v in (op.x, op.filter, op.y) for d in shape_of(v)):
        return False
    x, w = cann.origin_shape(op.x.type), cann.origin_shape(op.filter.type)
    return len(x) == 4 and len(w) == 4 and w[2] == x[3]  # ungrouped


def stage_problem(op: Operation) -> str | None:
    """Why the conv `op` cannot be computed in its reader conv's window, or None."""
    from compiler.transforms.fusion.auto import is_prologue, live_uses

    if not _plain_conv(op):
        return "not an ungrouped NHWC Conv2D / FusedConv2D of static shapes without a residual"
    src = op.x.owner
    if isinstance(src, Operation) and is_prologue(src) and \
            not isinstance(src, (cann.MaxPoolOp, cann.AvgPoolOp)):
        return "its x is itself computed in its tiles (a pointwise, concat or resample prologue)"
    if _marked(src):
        return "its x is a conv computed in its window"
    users = list(dict.fromkeys(live_uses(op.y)))
    if len(users) != 1:
        return f"{len(users)} readers, not one"
    c = users[0]
    if not _plain_conv(c) or c.operands[0] is not op.y or \
            any(v is op.y for v in c.operands[1:]):
        return "its reader is no ungrouped conv reading it as x only"
    if _marked(c):
        return "its reader is itself computed in its own reader's window"
    return None


def _marked(op) -> bool:
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR

    return isinstance(op, STAGE_CONVS) and PROLOGUE_ATTR in op.attributes


def is_staged_conv(op: Operation | Block | None) -> TypeGuard[StageConv]:
    """op is a conv marked to be computed in its reader's window and still can be."""
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR

    return isinstance(op, STAGE_CONVS) and PROLOGUE_ATTR in op.attributes and \
        stage_problem(op) is None


def staged_producer(conv_x: SSAValue) -> StageConv | None:
    """The staged conv whose result is the conv input conv_x, or None."""
    p = conv_x.owner
    return p if is_staged_conv(p) else None


def _dims(op: StageConv):
    """(N, H, W, C_in) of x, (Ho, Wo, C_out), (kh, kw), strides, dilations, pads."""
    n, h, w, c = cann.origin_shape(op.x.type)
    _, ho, wo, co = cann.origin_shape(op.y.type)
    kh, kw = list(cann.origin_shape(op.filter.type))[:2]
    (sh, sw), (dh, dw), pads = op.geometry()
    return (n, h, w, c), (ho, wo, co), (kh, kw), (sh, sw), (dh, dw), pads


def stage_gain_us(p: StageConv, chip) -> float | None:
    """Estimated µs saved on `chip` by computing p in its reader's windows (None: the reader's
    tiling takes no window, or the pair does not fit L1 / UB, `stage_tilings`): the launch and
    p's result's HBM write + read, minus the busiest core's recompute: its windows' P-GEMMs
    (the window tiling's cube cycles per M block) against p's own kernel's cube cycles (its
    tiling on the chip) and the window loads from GM the reader no longer makes.  Vector work
    (p's epilogue, a pool prologue) is not counted here: the lowering's exact check
    (compiler/conversions/cann_to_kernel/conv_stage.py) sees it."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.formats import c0_for, ceil_div
    from compiler.target.tiling import TilingError, cube_tiling
    from compiler.transforms.fusion.auto import epilogue_host, is_prologue, live_tiles, live_uses
    from dialects.common import numpy_dtype

    c = live_uses(p.y)[0]
    assert _plain_conv(c)
    dtype = numpy_dtype(elem_of(p.x))
    eb, c0 = dtype.itemsize, c0_for(dtype)
    (n, h, w, ci), (ho, wo, co), (kh, kw), _, _, _ = _dims(p)
    (_, hc, wc, cc), (hoc, woc, coc), (khc, kwc), (shc, _), (dhc, _), _ = _dims(c)
    kp = ceil_div(ci, c0) * c0 * kh * kw
    kc = ceil_div(cc, c0) * c0 * khc * kwc
    pool = p.x.owner if isinstance(p.x.owner, (cann.MaxPoolOp, cann.AvgPoolOp)) and \
        is_prologue(p.x.owner) else None
    fk = next((u for u in live_uses(c.y) if isinstance(u, cann.FusedKernelOp)
               and epilogue_host(u) is c), None)
    got = stage_tilings(chip, n * hoc * woc, coc, kc,
                        (n, hc, wc, ceil_div(cc, c0), hoc, woc, khc, shc, dhc), co, kp, eb, c0,
                        pool_a_tiles(pool), 1 if fk is None else max(1, live_tiles(fk.body_ops())))
    if got is None:
        return None
    tc, tw = got
    try:
        tp = cube_tiling("Conv2D", n * ho * wo, co, kp, eb, c0, chip)
    except TilingError:
        return None
    f = tc.fields
    blocks = ceil_div(f["singleCoreM"], f["baseM"])
    window_load = blocks * f["fmapBytes"] / _gm_l1()
    extra_us = (blocks * tw.est_cycles - tp.est_cycles - window_load) / chip.clock_mhz
    nbytes = n * ho * wo * co * eb
    return LAUNCH_OVERHEAD_US + 2 * nbytes / (chip.hbm_tb_per_s * 1e6) - max(0.0, extra_us)


def _gm_l1() -> float:
    from compiler.target.chips import BYTES_PER_CYCLE

    return BYTES_PER_CYCLE["GM->L1"]


def one_core(chip):
    """The chip's profile with one cube core: the tiling of a GEMM one core runs alone (the
    producer conv's GEMM over one window)."""
    import dataclasses

    return dataclasses.replace(chip, cube_cores=1)


def window_tiling(chip, m: int, n: int, k: int, eb: int, c0: int, ub_a_tiles: int = 0):
    """The producer conv's one-core tiling over one window's m output pixels (its A tiles from
    GM, or computed in UB by its pool prologue: ub_a_tiles)."""
    from compiler.target.tiling import cube_tiling

    return cube_tiling("Conv2D", m, n, k, eb, c0, one_core(chip), ub_a_tiles=ub_a_tiles)


def pool_a_tiles(pool) -> int:
    """The UB tiles a pool prologue keeps beside a conv's A tile (the running max / sum, a
    window tile, the mask and the zeros; a padded pool's offset mask and max / count too)."""
    if pool is None:
        return 0
    return 4 if pool.pads() == (0, 0, 0, 0) else 6


def stage_tilings(chip, m: int, n: int, k: int, fmap, p_n: int, p_k: int, eb: int, c0: int,
                  ub_a_tiles: int, epilogue_tiles: int):
    """(the reader's tiling, the producer's window tiling) of a staged pair, or None where the
    reader's tiling takes no window of x's rows or the two do not fit one core's L1 and UB
    together: the reader's GEMM (m, n, k) with its window (`fmap`, conv_geometry's), the
    producer's (p_n columns, K p_k) over one window's rows x W pixels (`window_tiling`), its A
    tiles with ub_a_tiles UB tiles of a pool prologue.  L0 holds one GEMM's tiles at a time."""
    from compiler.target.tiling import TilingError, cube_tiling

    try:
        t = cube_tiling("Conv2D", m, n, k, eb, c0, chip, 1, ub_epilogue_tiles=epilogue_tiles,
                        fmap=fmap)
        if "fmapRows" not in t.fields:
            return None
        tp = window_tiling(chip, t.fields["fmapRows"] * fmap[2], p_n, p_k, eb, c0, ub_a_tiles)
    except TilingError:
        return None

    def used(space: str) -> int:
        return sum(b.size for b in (*t.buffers, *tp.buffers) if b.space == space)
    if used("L1") > chip.l1 or used("UB") > chip.ub:
        return None
    return t, tp


def mark_conv_stages(root: Operation, chip_name: str | None = None) -> list[str]:
    """Mark every conv in `root` that can be computed in its reader's window and that the
    estimate says gains (stage_gain_us > 0 on chip `chip_name`, else the module's chip);
    returns the marked pairs as "producer -> reader" node names.  In program order: a conv
    whose x is marked is not marked."""
    from compiler.ir.diagnostics import node_name
    from compiler.transforms.fusion.auto import live_uses
    from compiler.transforms.fusion.depthwise import mark_gaining

    return [" -> ".join(str(node_name(o)).split("+")[0] for o in (op, live_uses(op.results[0])[0]))
            for op in mark_gaining(root, chip_name, STAGE_CONVS, stage_problem, stage_gain_us)]


def unstage(op: Operation) -> None:
    """Drop the mark: the conv is lowered as a kernel of its own."""
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR

    op.attributes.pop(PROLOGUE_ATTR, None)
