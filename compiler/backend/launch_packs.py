"""Packed launches at the kernel level: what `kernel.pack` means, read by the memory plan and
the perf report (the pass that writes it is compiler/transforms/launch_packing.py).

A run of consecutive top-level kernels of a function carrying the same `kernel.pack = N : i64`
attribute is ONE launch: one kernel whose body branches on its block index, each member running
on its own range of cores (Ascend C's `GetBlockIdx()`: a kernel reads its block index and
chooses its work from it; the packing pass tiled each member for its share, so the members'
block_dims together fit the chip).  XLA's GPU horizontal fusion (`horizontal_loop_fusion`)
packs independent kernels into one launch the same way, to save launch overhead.

* Members are independent (no data path between any two): the pass groups ops of one
  dependency level only.
* Execution (cann-run, compiler/interpreters): the members run one after another, which equals
  their concurrent run because they are independent.
* Memory plan: the run is one time slot: every member's inputs live until the launch ends,
  every member's outputs are allocated from its start (`launch_slots`), and no member writes
  in place over a tensor another member reads.
* Perf report: one row (one launch overhead), compute = the slowest member, HBM bytes = all
  members' (the bandwidth is shared).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

PACK_ATTR = "kernel.pack"


def pack_id(op: Operation) -> int | None:
    a = op.attributes.get(PACK_ATTR)
    return a.value.data if isinstance(a, IntegerAttr) else None


def launch_slots(launches: Sequence[Operation]) -> list[int]:
    """The time slot of each launch, in program order: consecutive launches with the same
    `kernel.pack` share one slot, every other launch has its own."""
    slots: list[int] = []
    prev: int | None = None
    for k, op in enumerate(launches):
        p = pack_id(op)
        if k and p is not None and p == prev:
            slots.append(slots[-1])
        else:
            slots.append(slots[-1] + 1 if slots else 0)
        prev = p
    return slots


def packs(launches: Sequence[Operation]) -> list[list[Operation]]:
    """The launches grouped by slot (a list of one op for an unpacked launch)."""
    out: list[list[Operation]] = []
    for op, s in zip(launches, launch_slots(launches), strict=True):
        if s == len(out):
            out.append([op])
        else:
            out[-1].append(op)
    return out
