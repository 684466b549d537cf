"""Tiling for one chip: cube (matmul / implicit-GEMM conv) and vector kernels.

Cube tiling follows Ascend C's TCubeTiling (cann-facts.md section 7): base block
(baseM, baseN, baseK) = (256 if L0C is 256 KiB else 128, 256, 128*8/bits) clipped to the
problem, dbL0A = dbL0B = 2, every L0/L1 capacity respected, singleCoreK = K (no K split).
The split of M and N over the cores is chosen among the factor pairs (mDim, nDim) of the core
count by the cost model of `compiler.target.cost_model` (cube cycles against GM->L1 traffic per core).
Results are cached by (op kind, shapes, dtype, chip).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from compiler.target.chips import ChipProfile
from compiler.target.conv_geometry import fmap_window_rows
from compiler.target.cost_model import CubeCoreCost, cube_core_cycles
from compiler.target.formats import ceil_div

ALIGN_M = ALIGN_N = 16


def align(v: int, a: int) -> int:
    return ceil_div(v, a) * a


@dataclass(frozen=True)
class Buffer:
    space: str
    size: int
    role: str


@dataclass(frozen=True)
class CubeTiling:
    fields: dict[str, int]
    buffers: tuple[Buffer, ...]
    block_dim: int
    est_cycles: float


class TilingError(ValueError):
    pass


def _base_block(chip: ChipProfile, m: int, n: int, k: int, in_bytes: int, c0: int):
    base_m = 256 if chip.l0c >= 256 * 1024 else 128
    base_n = 256
    base_k = 128 * 8 // (in_bytes * 8)
    base_m = min(base_m, align(m, ALIGN_M))
    base_n = min(base_n, align(n, ALIGN_N))
    base_k = min(base_k, align(k, c0))
    db_a = db_b = 2
    db_c = 1
    # Shrink until the L0 buffers hold (never needed for the recommended blocks, kept as a rule).
    while base_m * base_k * in_bytes * db_a > chip.l0a and base_m > ALIGN_M:
        base_m //= 2
    while base_n * base_k * in_bytes * db_b > chip.l0b and base_n > ALIGN_N:
        base_n //= 2
    if base_m * base_n * 4 * 2 <= chip.l0c:
        db_c = 2
    while base_m * base_n * 4 * db_c > chip.l0c and base_n > ALIGN_N:
        base_n //= 2
    return base_m, base_n, base_k, db_a, db_b, db_c


def _block_candidates(chip: ChipProfile, base_m: int, base_n: int, base_k: int, in_bytes: int):
    """Base blocks (baseM, baseN) the solver tries: the recommended one first, then powers of
    two from 64 to 256 that fit L0A/L0B with dbL0A = dbL0B = 2 and L0C (fp32) with dbL0C = 1."""
    seen = [(base_m, base_n)]
    for bm in (64, 128, 256):
        for bn in (64, 128, 256):
            if bm * base_k * in_bytes * 2 <= chip.l0a and bn * base_k * in_bytes * 2 <= chip.l0b \
                    and bm * bn * 4 <= chip.l0c and (bm, bn) not in seen:
                seen.append((bm, bn))
    return seen


def _factor_pairs(cores: int):
    for m_dim in range(1, cores + 1):
        for n_dim in range(1, cores // m_dim + 1):
            yield m_dim, n_dim


#: TCubeTiling's fields are int32 (asc-devkit matmul_tilingdata.h): an extent beyond this cannot
#: be described by a tiling.
MAX_EXTENT = 2**31 - 1


def check_extents(kind: str, **dims: int) -> None:
    """Diagnostics for shapes the tiling cannot serve: dynamic (< 0), empty, or beyond int32."""
    dyn = [k for k, v in dims.items() if v < 0]
    if dyn:
        raise TilingError(f"{kind}: dynamic dimension {', '.join(dyn)} is not supported at the "
                          "kernel level (the tiling needs static shapes)")
    empty = [k for k, v in dims.items() if v == 0]
    if empty:
        raise TilingError(f"{kind}: empty dimension {', '.join(empty)}")
    big = [f"{k}={v}" for k, v in dims.items() if v > MAX_EXTENT]
    if big:
        raise TilingError(f"{kind}: {', '.join(big)} exceeds the tiling's int32 range ({MAX_EXTENT})")


def candidate_splits(chip: ChipProfile, batch: int, m: int, n: int):
    """(bDim, mDim, nDim) core grids with bDim*mDim*nDim <= cores (the solver's search space)."""
    for b_dim in range(1, min(batch, chip.cube_cores) + 1):
        for m_dim, n_dim in _factor_pairs(chip.cube_cores // b_dim):
            if m_dim > ceil_div(m, ALIGN_M) or n_dim > ceil_div(n, ALIGN_N):
                continue
            yield b_dim, m_dim, n_dim


def tiling_cost(chip: ChipProfile, batch: int, m: int, n: int, k: int, in_bytes: int,
                b_dim: int, single_m: int, single_n: int, base_m: int, base_n: int,
                a_gm_bytes: int | None = None) -> float:
    """Cycles of the slowest core: its batch share times its GEMM (cost_model)."""
    return ceil_div(batch, b_dim) * cube_core_cycles(chip, single_m, single_n, k, base_m, base_n,
                                                     in_bytes, a_gm_bytes=a_gm_bytes)


#: A conv's feature map for the Load3D path (compiler/target/conv_geometry.py):
#: (N, H, W, C1, Ho, Wo, kh, stride_h, dilation_h) of x NC1HWC0 and the output.
Fmap = tuple[int, ...]  # 9 values; a 3-D conv's: conv_geometry.py Fmap3 (16)


def fmap_window_bytes(fmap: Fmap, bm: int, c0: int, in_bytes: int,
                      single_m: int = 0) -> tuple[int, int, int]:
    """(rows, bytes, plane rows) of the L1 feature-map window of bm consecutive output pixels
    (the blocks of a core's single_m pixels).  A 3-D conv's window is one 2-D window per depth
    tap (plane rows each, rows = kd * plane rows: conv_geometry.py fmap3d_plane_rows) where every
    block lies in one output plane (its starts, multiples of bm: single_m a multiple of bm) and
    that holds fewer rows than the span from the first plane's rows to the last's (plane rows
    0)."""
    if len(fmap) != 9:  # a 3-D conv's (conv_geometry.py Fmap3)
        from compiler.target.conv_geometry import fmap3d_plane_rows, fmap3d_window_rows

        rows, plane = fmap3d_window_rows(fmap, bm), 0
        if single_m and single_m % bm == 0:
            per_tap = fmap3d_plane_rows(fmap, bm)
            if per_tap and fmap[12] * per_tap < rows:
                rows, plane = fmap[12] * per_tap, per_tap
        return rows, fmap[3] * rows * fmap[2] * c0 * in_bytes, plane
    n, h, w, c1, ho, wo, kh, sh, dh = fmap
    rows = fmap_window_rows(bm, n, h, ho, wo, kh, sh, dh, math.gcd(single_m, bm) if single_m else 1)
    return rows, c1 * rows * w * c0 * in_bytes, 0


def _best_split(chip: ChipProfile, m: int, n: int, k: int, in_bytes: int, c0: int, batch: int,
                base_k: int, ub_a_tiles: int, ub_epilogue_tiles: int, fmap: Fmap | None,
                fixed: list[tuple[int, int]], ub_window_tiles: int = 0, whole_n: bool = False,
                fmap_c0: int = 0):
    """The cheapest (core split, base block) under `tiling_cost`: the least key (cycles, cores
    used, -(baseM*baseN)), the first in the search order among equal keys, or None when no
    block fits UB.  Returns (key + (grid order,), singleM, singleN, used, baseM, baseN,
    singleBatch, bUsed, window bytes).

    Search order: the core grids of `candidate_splits`; per grid, the blocks `fixed` (the
    recommended block and the powers of two, `_block_candidates`), then the balanced blocks.
    The same choice with less work: two grids with the same (singleM, singleN, singleBatch) cost
    the same for every block, and so do two blocks clipped to the same (baseM, baseN): only the
    first of each is costed (a later one, equal, could not replace it).  The grids are searched
    by their cost floor (`CubeCoreCost.floor`: no block of theirs costs less), the grid's place
    in the search order breaking ties of the key, and the search stops at the first grid whose
    floor exceeds the best cycles found: neither it nor a later one can win."""
    fits_l0 = base_k * in_bytes * 2
    ub_bound = bool(ub_a_tiles or ub_epilogue_tiles > 1)
    with_window = fmap is not None and batch == 1
    windows: dict[tuple[int, int], int] = {}  # (baseM, singleM) -> the window's bytes
    b_l1 = 2 * base_k * in_bytes  # a double-buffered B block's bytes per column
    # the largest blocks: the recommended and power-of-two ones, the balanced ones (<= 256)
    max_bm, max_bn = max(256, *(b[0] for b in fixed)), max(256, *(b[1] for b in fixed))
    # (floor, order, singleM, singleN, used, singleBatch, bUsed, cost, share)
    grids: list[tuple[float, int, int, int, int, int, int, CubeCoreCost, int]] = []
    seen: set[tuple[int, int, int]] = set()
    for b_dim, m_dim, n_dim in candidate_splits(chip, batch, m, n):
        single_m = align(ceil_div(m, m_dim), ALIGN_M)
        single_n = align(ceil_div(n, n_dim), ALIGN_N)
        single_b = ceil_div(batch, b_dim)
        grid = (single_m, single_n, single_b)
        if grid in seen:
            continue
        seen.add(grid)
        if whole_n and single_n < n:
            continue  # a row epilogue: the whole N extent on each core
        used = ceil_div(m, single_m) * ceil_div(n, single_n)
        b_used = ceil_div(batch, single_b)
        if used * b_used > chip.cube_cores:
            continue
        cost = CubeCoreCost(single_m, single_n, k, in_bytes)
        share = ceil_div(batch, b_used)  # tiling_cost: the slowest core's batch share
        floor = cost.floor(min(max_bm, single_m), min(max_bn, single_n), not with_window)
        grids.append((share * floor, len(grids), single_m, single_n, used, single_b, b_used,
                      cost, share))
    grids.sort(key=lambda g: g[0])
    best = None
    best_cycles = 0.0
    for floor, order, single_m, single_n, used, single_b, b_used, cost, share in grids:
        if best is not None and floor > best_cycles:
            break  # this grid and every later one cost more than the best, whatever the block
        # The recommended block (section 7), and the larger / smaller power-of-two blocks that
        # still fit L0A/L0B (double-buffered) and L0C: the cost model decides.
        cands = list(fixed)
        # balanced blocks: the core's extent cut into equal 16-aligned pieces of at most 256
        for cap_m in (128, 256):
            bm_b = align(ceil_div(single_m, ceil_div(single_m, cap_m)), ALIGN_M)
            for cap_n in (128, 256):
                bn_b = align(ceil_div(single_n, ceil_div(single_n, cap_n)), ALIGN_N)
                if bm_b * fits_l0 <= chip.l0a and bn_b * fits_l0 <= chip.l0b \
                        and bm_b * bn_b * 4 <= chip.l0c:
                    cands.append((bm_b, bn_b))
        if whole_n:  # every block spans the core's N extent, where L0B and L0C hold it
            cands = [(bm0, single_n) for bm0, _ in cands
                     if single_n * fits_l0 <= chip.l0b and min(bm0, single_m) * single_n * 4 <= chip.l0c]
        costed: set[tuple[int, int]] = set()
        for bm0, bn0 in cands:
            bm, bn = min(bm0, single_m), min(bn0, single_n)
            if (bm, bn) in costed:
                continue
            costed.add((bm, bn))
            epi_ub = bm * bn * 4 * ub_epilogue_tiles
            tiles_fit = not ub_bound or epi_ub + ub_a_tiles * bm * base_k * in_bytes <= chip.ub
            cycles = share * cost.cycles(bm, bn)
            window = 0
            if with_window:
                # the feature-map window in L1 (double-buffered) beside one B block pair
                win = windows.get((bm, single_m))
                if win is None:
                    assert fmap is not None
                    win = windows[bm, single_m] = fmap_window_bytes(fmap, bm, fmap_c0 or c0,
                                                                    in_bytes, single_m)[1]
                if 2 * win + bn * b_l1 + bn * 4 <= chip.l1 and (tiles_fit or ub_window_tiles) \
                        and epi_ub + ub_window_tiles * win <= chip.ub:
                    c_win = share * cost.cycles(bm, bn, a_gm_bytes=ceil_div(single_m, bm) * win)
                    # a prologue staged on the window runs once per window element, on the A
                    # tiles once per tile element per N block: the fewer elements wins (the
                    # cube cost above does not see that vector work)
                    tile_bytes = ceil_div(single_n, bn) * k * bm * in_bytes
                    # (where the A tiles do not fit UB, the window staged there may)
                    if c_win < cycles or not tiles_fit or (ub_window_tiles and win < tile_bytes):
                        cycles, window = c_win, win
            if not tiles_fit and not window:
                continue  # the epilogue tiles and the A tiles staged in UB must fit together
            key = (cycles, used * b_used, -(bm * bn), order)
            if best is None or key < best[0]:
                best = (key, single_m, single_n, used, bm, bn, single_b, b_used, window)
                best_cycles = cycles
    return best


@lru_cache(maxsize=4096)
def _cube_tiling(kind: str, m: int, n: int, k: int, in_bytes: int, c0: int,
                 chip: ChipProfile, batch: int = 1, ub_a_tiles: int = 0,
                 ub_epilogue_tiles: int = 1, fmap: Fmap | None = None,
                 ub_window_tiles: int = 0, whole_n: bool = False, fmap_c0: int = 0) -> CubeTiling:
    check_extents(kind, M=m, N=n, K=k, batch=batch)
    base_m, base_n, base_k, db_a, db_b, db_c = _base_block(chip, m, n, k, in_bytes, c0)
    best = _best_split(chip, m, n, k, in_bytes, c0, batch, base_k, ub_a_tiles, ub_epilogue_tiles,
                       fmap, _block_candidates(chip, base_m, base_n, base_k, in_bytes),
                       ub_window_tiles, whole_n, fmap_c0)
    if best is None and whole_n:
        raise TilingError(f"{kind}: no base block holds the {n} columns of a row on "
                          f"{chip.name} (L0B {chip.l0b}, L0C {chip.l0c}, UB {chip.ub} bytes)")
    if best is None:
        raise TilingError(f"{kind}: no base block fits {chip.name}'s UB ({chip.ub} bytes) with "
                          f"{ub_a_tiles} A tiles staged there and {ub_epilogue_tiles} epilogue tiles")
    (cycles, _, _, _), single_m, single_n, used, base_m, base_n, single_b, b_used, window = best
    db_c = 2 if base_m * base_n * 4 * 2 <= chip.l0c else 1
    k_blocks = ceil_div(k, base_k)
    step_ka = step_kb = k_blocks
    bias_bytes = base_n * 4

    def l1_bytes(ska: int, skb: int) -> int:
        a_l1 = 2 * window if window else ska * 2 * base_m * base_k * in_bytes
        return a_l1 + skb * 2 * base_n * base_k * in_bytes + bias_bytes

    while l1_bytes(step_ka, step_kb) > chip.l1 and max(step_ka, step_kb) > 1:
        if step_ka >= step_kb:
            step_ka = max(1, step_ka // 2)
        else:
            step_kb = max(1, step_kb // 2)
    if l1_bytes(step_ka, step_kb) > chip.l1:
        raise TilingError(f"{kind}: no tiling fits L1 ({chip.l1} bytes) for M={m} N={n} K={k}")
    depth_a1, depth_b1 = step_ka * 2, step_kb * 2
    # B stays in L1 across the core's M blocks (GM -> L1 once, cube_core_cycles' b_reads) where
    # the core has one N block and L1 holds all its K blocks (stepKb = K / baseK): the same
    # [K, baseN] panel every M block would load again (compiler/conversions/cann_to_kernel/base.py
    # gemm_body loads it once, before the M loop)
    b_resident = ceil_div(single_n, base_n) == 1 and ceil_div(single_m, base_m) > 1 \
        and step_kb == k_blocks
    fields = {
        "usedCoreNum": used * b_used, "M": m, "N": n, "Ka": k, "Kb": k,
        "singleCoreM": single_m, "singleCoreN": single_n, "singleCoreK": k,
        "baseM": base_m, "baseN": base_n, "baseK": base_k,
        "depthA1": depth_a1, "depthB1": depth_b1,
        "stepM": 1, "stepN": 1, "stepKa": step_ka, "stepKb": step_kb,
        "iterateOrder": 0 if single_m >= single_n else 1,
        "dbL0A": db_a, "dbL0B": db_b, "dbL0C": db_c,
    }
    if b_resident:
        fields["weightReads"] = 1
    if batch != 1:  # batch / group split over the cores (this project's extension of TCubeTiling)
        fields["batchNum"] = batch
        fields["singleCoreBatch"] = single_b
    if window:  # Load3D: the window of x's rows goes to L1, img2col on the way to L0A
        assert fmap is not None
        rows, win_bytes, plane = fmap_window_bytes(fmap, base_m, fmap_c0 or c0, in_bytes, single_m)
        fields["fmapRows"], fields["fmapBytes"] = rows, win_bytes
        if plane:  # one window per depth tap (a 3-D conv's)
            fields["fmapPlaneRows"] = plane
    buffers = (
        *((Buffer("L1", 2 * window, "fmap"),) if window else
          (Buffer("L1", depth_a1 * base_m * base_k * in_bytes, "A"),)),
        Buffer("L1", depth_b1 * base_n * base_k * in_bytes, "B"),
        Buffer("L1", bias_bytes, "bias"),
        Buffer("L0A", base_m * base_k * in_bytes * db_a, "A"),
        Buffer("L0B", base_n * base_k * in_bytes * db_b, "B"),
        Buffer("L0C", base_m * base_n * 4 * db_c, "C"),
        Buffer("UB", base_m * base_n * 4, "epilogue"),
        # a fused epilogue's further live tiles (compiler/transforms/fusion/auto.py live_tiles)
        *(Buffer("UB", base_m * base_n * 4, f"epilogue{i}") for i in range(1, ub_epilogue_tiles)),
        # A tiles staged in UB (Conv2DScaled: the tile and its scale), or with the window a
        # prologue's tiles of it (GM -> UB, the body, UB -> L1)
        *((Buffer("UB", window, f"fmap{i}") for i in range(ub_window_tiles)) if window else
          (Buffer("UB", base_m * base_k * in_bytes, f"A{i}") for i in range(ub_a_tiles))),
    )
    for b in buffers:
        cap = chip.capacity(b.space)
        if cap is not None and b.size > cap:  # never expected: the rules above fit every buffer
            raise TilingError(f"{kind}: {b.space} buffer '{b.role}' needs {b.size} bytes, "
                              f"{chip.name} has {cap}")
    return CubeTiling(fields, buffers, used * b_used, cycles)


def cube_tiling(kind: str, m: int, n: int, k: int, in_bytes: int, c0: int,
                chip: ChipProfile, batch: int = 1, ub_a_tiles: int = 0,
                ub_epilogue_tiles: int = 1, fmap: Fmap | None = None,
                ub_window_tiles: int = 0, whole_n: bool = False, fmap_c0: int = 0) -> CubeTiling:
    """The tiling of a (batched) GEMM: cached by (op kind, M, N, K, dtype bytes, C0, chip, batch,
    ub_a_tiles: A tiles also held in UB next to the epilogue tile; ub_epilogue_tiles: the [baseM,
    baseN] fp32 tiles a fused epilogue keeps live in UB at once; fmap: a conv whose A tiles may
    come from its feature map in L1 by Load3D (`Fmap`): where the cost model finds that cheaper
    than the img2col tiles from GM, the fields get fmapRows / fmapBytes, the rows and bytes of
    one base block's window of x (and fmapPlaneRows, a 3-D conv's window per depth tap:
    `fmap_window_bytes`), and L1 holds two windows instead of the A tiles);
    ub_window_tiles: a fused prologue that may run on the window in UB instead of on the A tiles
    (compiler/conversions/cann_to_kernel/cube.py), that many window-sized UB tiles: the window
    is then also taken where the prologue runs on fewer elements so, and where the ub_a_tiles
    A tiles do not fit UB); whole_n: every output row in one base block of one core (nDim = 1,
    baseN = singleCoreN: a row epilogue, compiler/conversions/cann_to_kernel/row_epilogue.py), a
    TilingError where that fits no L0); fmap_c0: the lanes of x's pixels in the window when they
    are not C0 (a small-C_in conv's NC1HWC0_C04 x, compiler/target/c04.py; 0: C0)."""
    return _cube_tiling(kind, m, n, k, in_bytes, c0, chip, batch, ub_a_tiles, ub_epilogue_tiles,
                        fmap, ub_window_tiles, whole_n, 0 if fmap_c0 == c0 else fmap_c0)


@dataclass(frozen=True)
class VectorTiling:
    fields: dict[str, int]
    buffers: tuple[Buffer, ...]
    block_dim: int


#: Below this many elements per core, adding cores costs more in launch than it saves.
MIN_ELEMS_PER_CORE = 1024
VECTOR_BLOCK = 128  # elements per vector instruction (fp16)


@lru_cache(maxsize=4096)
def _vector_tiling(kind: str, elems: int, n_buffers: int, elem_bytes: int, chip: ChipProfile,
                   unit_elems: int = 1, blocks: int = 0) -> VectorTiling:
    check_extents(kind, elements=elems)
    if blocks:  # a phase of a kernel launched on `blocks` cores: the last ones may have no work
        cores = blocks
        per_core = ceil_div(elems, cores)
    else:
        cores = max(1, min(chip.vector_cores, elems,
                           ceil_div(elems * unit_elems, MIN_ELEMS_PER_CORE)))
        per_core = ceil_div(elems, cores)
        cores = ceil_div(elems, per_core)
    # n_buffers UB tiles, double-buffered, 32-byte granular.
    cap = chip.ub // (n_buffers * 2) // elem_bytes
    if cap <= 0:
        raise TilingError(f"{kind}: {n_buffers} double-buffered UB tiles of {elem_bytes}-byte "
                          f"elements do not fit {chip.name}'s UB ({chip.ub} bytes)")
    cap = cap // VECTOR_BLOCK * VECTOR_BLOCK if cap >= VECTOR_BLOCK else cap
    tile = min(align(per_core, max(1, 32 // elem_bytes)), cap)
    fields = {"totalElems": elems, "elemsPerCore": per_core, "tileElems": tile,
              "tilesPerCore": ceil_div(per_core, tile)}
    buffers = tuple(Buffer("UB", tile * elem_bytes * 2, f"io{i}") for i in range(n_buffers))
    return VectorTiling(fields, buffers, cores)


def vector_tiling(kind: str, elems: int, n_buffers: int, elem_bytes: int, chip: ChipProfile,
                  unit_elems: int = 1) -> VectorTiling:
    """Tiles of `elems` units (elements, or rows of `unit_elems` elements each: a unit is never
    split), cached by all arguments and the chip.  Cores: one per MIN_ELEMS_PER_CORE elements."""
    return _vector_tiling(kind, elems, n_buffers, elem_bytes, chip, unit_elems)


def vector_tiling_on(kind: str, elems: int, n_buffers: int, elem_bytes: int, chip: ChipProfile,
                     blocks: int) -> VectorTiling:
    """The tiles of `elems` elements split over exactly `blocks` cores (block_dim = blocks): one
    phase of a kernel whose phases share one launch, e.g. ConcatV2D's one copy per input.  Every
    phase's kernel.cores grid must be the kernel's block_dim; blocks past the data get none."""
    return _vector_tiling(kind, elems, n_buffers, elem_bytes, chip, 1, blocks)


def cache_clear() -> None:
    _cube_tiling.cache_clear()
    _vector_tiling.cache_clear()


def cache_stats() -> dict[str, tuple[int, int]]:
    """(hits, misses) of each tiling cache."""
    return {"cube": (_cube_tiling.cache_info().hits, _cube_tiling.cache_info().misses),
            "vector": (_vector_tiling.cache_info().hits, _vector_tiling.cache_info().misses)}


def squeeze_excite_tiling(n: int, c1: int, hw: int, c0: int, hidden: int, channels: int,
                          elem_bytes: int, chip: ChipProfile) -> VectorTiling:
    """The squeeze-excite gate kernel (compiler/conversions/cann_to_kernel/squeeze_excite.py): one batch per
    vector core, or, when the batches fill at most half the cores, each batch over `splits` cores
    (blocksPerSplit channel blocks each; the partial hidden sums pass through a GM workspace of
    splits x hidden per batch); UB in six equal parts, each holding one of the largest tiles that are live
    together: x chunk and its accumulator [c1Tile, chunkLen, C0], w1 block and its product
    [hidden, c1Tile, C0]; later w2 block and its product [cTile, hidden]."""
    check_extents("SqueezeExcite", N=n, C1=c1, HW=hw, hidden=hidden)
    cores = min(n, chip.vector_cores)
    per_core = ceil_div(n, cores)
    cores = ceil_div(n, per_core)
    # Too few batches to fill the cores: split each batch's channel blocks over `splits` cores
    # (two phases with a barrier between: partial hidden sums, then output channels).
    splits = min(c1, chip.vector_cores // n) if n * 2 <= chip.vector_cores else 1
    blocks_per_split = ceil_div(c1, max(splits, 1))
    splits = ceil_div(c1, blocks_per_split)
    if splits > 1:
        cores, per_core = n * splits, 1
    part = chip.ub // 6 // elem_bytes  # elements per part
    if hidden * c0 > part or splits * hidden > part:
        raise TilingError(f"SqueezeExcite: a hidden width of {hidden} does not fit {chip.name}'s UB "
                          f"({chip.ub} bytes) with one C0 block of channels")
    share = blocks_per_split if splits > 1 else c1  # channel blocks one core reduces
    c1_tile = min(share, part // (hidden * c0))
    chunk = min(hw, max(1, part // (c1_tile * c0)))
    c_out = min(channels, share * c0)  # output channels one core computes
    c_tile = min(align(c_out, ALIGN_N), max(ALIGN_N, part // hidden // ALIGN_N * ALIGN_N))
    fields = {"batch": n, "batchPerCore": per_core, "channels": channels, "hidden": hidden,
              "channelBlocks": c1, "splits": splits, "blocksPerSplit": blocks_per_split,
              "reduceLen": hw, "c1Tile": c1_tile, "chunkLen": chunk, "cTile": c_tile,
              "totalElems": n * c1 * hw * c0,
              "elemsPerCore": per_core * min(c1, blocks_per_split) * hw * c0}
    buffers = (Buffer("UB", c1_tile * chunk * c0 * elem_bytes, "x"),
               Buffer("UB", c1_tile * chunk * c0 * elem_bytes, "xsum"),
               Buffer("UB", hidden * c1_tile * c0 * elem_bytes, "w1"),
               Buffer("UB", hidden * c1_tile * c0 * elem_bytes, "w1x"),
               Buffer("UB", c_tile * hidden * elem_bytes, "w2"),
               Buffer("UB", c_tile * hidden * elem_bytes, "w2h"))
    return VectorTiling(fields, buffers, cores)
