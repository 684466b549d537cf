"""The cube tiling search (compiler/target/tiling.py _best_split) skips grids and blocks that
cannot win; it must pick exactly what costing every candidate in the search order picks (the
least key, the first among equal keys)."""

from __future__ import annotations

import random

import pytest

from compiler.target import tiling
from compiler.target.chips import get_chip
from compiler.target.formats import ceil_div

CHIPS = ("Ascend910B3", "Ascend910A", "Ascend310P3")


def every_candidate(chip, m, n, k, in_bytes, c0, batch, ub_a, ub_epi, fmap):
    """The search's specification: every grid of candidate_splits, every block, in order."""
    base_m, base_n, base_k, *_ = tiling._base_block(chip, m, n, k, in_bytes, c0)
    best = None
    for b_dim, m_dim, n_dim in tiling.candidate_splits(chip, batch, m, n):
        sm = tiling.align(ceil_div(m, m_dim), 16)
        sn = tiling.align(ceil_div(n, n_dim), 16)
        used = ceil_div(m, sm) * ceil_div(n, sn)
        sb = ceil_div(batch, b_dim)
        b_used = ceil_div(batch, sb)
        if used * b_used > chip.cube_cores:
            continue
        cands = list(tiling._block_candidates(chip, base_m, base_n, base_k, in_bytes))
        for cap_m in (128, 256):
            for cap_n in (128, 256):
                bm = tiling.align(ceil_div(sm, ceil_div(sm, cap_m)), 16)
                bn = tiling.align(ceil_div(sn, ceil_div(sn, cap_n)), 16)
                if bm * base_k * in_bytes * 2 <= chip.l0a and \
                        bn * base_k * in_bytes * 2 <= chip.l0b and bm * bn * 4 <= chip.l0c:
                    cands.append((bm, bn))
        for bm0, bn0 in cands:
            bm, bn = min(bm0, sm), min(bn0, sn)
            if (ub_a or ub_epi > 1) and bm * bn * 4 * ub_epi + ub_a * bm * base_k * in_bytes \
                    > chip.ub:
                continue
            cycles = tiling.tiling_cost(chip, batch, m, n, k, in_bytes, b_used, sm, sn, bm, bn)
            window = 0
            if fmap is not None and batch == 1:
                win = tiling.fmap_window_bytes(fmap, bm, c0, in_bytes, sm)[1]
                if 2 * win + 2 * bn * base_k * in_bytes + bn * 4 <= chip.l1:
                    c_win = tiling.tiling_cost(chip, batch, m, n, k, in_bytes, b_used, sm, sn,
                                               bm, bn, ceil_div(sm, bm) * win)
                    if c_win < cycles:
                        cycles, window = c_win, win
            key = (cycles, used * b_used, -(bm * bn))
            if best is None or key < best[0]:
                best = (key, sm, sn, used, bm, bn, sb, b_used, window)
    return best


def problems(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        in_bytes = rng.choice([1, 2, 4])
        c0 = 32 // in_bytes
        m = rng.choice([rng.randint(1, 64), rng.randint(1, 5000), rng.randint(1, 300000)])
        n = rng.choice([rng.randint(1, 64), rng.randint(1, 4096)])
        k = rng.choice([c0, rng.randint(1, 100) * c0, rng.randint(1, 2000) * c0])
        batch = rng.choice([1, 1, rng.randint(1, 64)])
        fmap = None
        if batch == 1 and rng.random() < 0.5:  # a conv whose x may go to L1 as it is
            kh, sh, dh = rng.randint(1, 7), rng.randint(1, 3), rng.randint(1, 2)
            h = rng.randint(kh * dh, 64)
            ho, wo, nb = (h - dh * (kh - 1) - 1) // sh + 1, rng.randint(1, 64), rng.randint(1, 8)
            m = nb * ho * wo
            fmap = (nb, h, wo + rng.randint(0, 6), rng.randint(1, 8), ho, wo, kh, sh, dh)
        yield (m, n, k, in_bytes, c0, batch, rng.choice([0, 0, 2, 4, 7]),
               rng.choice([1, 1, 2, 3, 8]), fmap)


@pytest.mark.parametrize("chip_name", CHIPS)
def test_search_picks_what_costing_every_candidate_picks(chip_name):
    chip = get_chip(chip_name)
    for m, n, k, in_bytes, c0, batch, ub_a, ub_epi, fmap in problems(len(chip_name), 150):
        base_m, base_n, base_k, *_ = tiling._base_block(chip, m, n, k, in_bytes, c0)
        got = tiling._best_split(chip, m, n, k, in_bytes, c0, batch, base_k, ub_a, ub_epi, fmap,
                                 tiling._block_candidates(chip, base_m, base_n, base_k, in_bytes))
        want = every_candidate(chip, m, n, k, in_bytes, c0, batch, ub_a, ub_epi, fmap)
        if want is None:
            assert got is None
        else:  # the same choice; got's key carries the grid's place in the search order too
            assert got is not None and (got[0][:3], *got[1:]) == want, (m, n, k, batch, fmap)
