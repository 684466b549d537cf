"""Cost model built from the chip's parameters (cann-facts.md sections 2 and 6).

Per core, a cube kernel is a pipeline of data movement (GM->L1 at 32 B/cycle, L1->L0A 512,
L1->L0B 256, results UB->GM 64) and cube work (one 16 x 16 x (32 bytes of K) fractal
multiply-accumulate per cycle: 16x16x16 fp16, 16x16x8 fp32).  The pipes overlap (double
buffering), so a kernel costs its slowest pipe.
"""

from __future__ import annotations

from compiler.chips import BYTES_PER_CYCLE, ChipProfile
from compiler.formats import ceil_div


def cube_core_cycles(chip: ChipProfile, single_m: int, single_n: int, k: int,
                     base_m: int, base_n: int, in_bytes: int) -> float:
    k_per_cycle = 32 // in_bytes
    cube = ceil_div(single_m, 16) * ceil_div(single_n, 16) * ceil_div(k, k_per_cycle)
    # A is re-read for every N block, B for every M block (no L1 reuse across blocks).
    a_bytes = single_m * k * in_bytes * ceil_div(single_n, base_n)
    b_bytes = single_n * k * in_bytes * ceil_div(single_m, base_m)
    mte2 = (a_bytes + b_bytes) / BYTES_PER_CYCLE["GM->L1"]
    mte1 = a_bytes / BYTES_PER_CYCLE["L1->L0A"] + b_bytes / BYTES_PER_CYCLE["L1->L0B"]
    out = single_m * single_n * 4 / BYTES_PER_CYCLE["UB->GM"]
    return float(max(cube, mte2, mte1, out))
