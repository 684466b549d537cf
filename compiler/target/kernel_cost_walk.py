"""What one core of an explicit-body kernel does, from a walk of its body (the busiest core).

For a `kernel.cube` / `kernel.vec_kernel` body (dialects/kernel.py), one core runs one block of
the `kernel.cores` grid; each `kernel.for` inside turns ceil(min(extent, limit - base) / step)
times, with `base` at its smallest value (a constant `kernel.index`, 0 for a core offset, an
enclosing loop's smallest base): the first core, whose loops the limit clips least, is the busiest.
Every op counts once per turn of the loops around it:

  kernel.vec         the measured fit of its fn (cann-facts.md section 6, compiler/target/cost_model.py)
                     on max(elements of its operand tiles, of its result tile): a reduction
                     (RowSum, PoolMax, ReduceSum) reads more than it writes.  "act:X" costs the
                     activation X (Swish = Sigmoid + Mul, HardSwish = Add + Relu6 + 2 Mul, as
                     `numerics.activate` computes them).  Element bytes: the first operand's (an
                     elementwise Cast f16->f32 is the measured f16 fit), the result's without one.
  kernel.accumulate  like its fn: Add, Max (Maximum), Min (Minimum), Mul, on the accumulator tile
  kernel.join        nothing (the parts' loads wrote them at their offsets of one buffer: a conv's
                     window from a staged concat's sources, compiler/transforms/fusion/concat_stage.py)
  kernel.sync_all    nothing (the all-core barrier between two kernel.cores phases, whose busiest
                     cores' work adds up; the reference gives no figure for the barrier itself)
  kernel.store       MTE3 bytes (UB -> GM, 64 B/cycle per core: reference section 6); a store
                     into L1 (view fmap_window: a producer conv's tile into its reader's
                     window) as a UB -> L1 load below
  kernel.load        UB -> L1 (a vector-scaled cube operand, or a conv's A tile computed by a
                     fused prologue, whose kernel.vec ops and pad-mask Mul count as above): bytes at an
                     assumed UB->GM rate
                     (neither path nor rate is in the reference).  GM -> UB loads and
                     kernel.gather are not costed per core: the reference gives no GM->UB rate
                     (only the kernel's HBM bytes / bandwidth, in compiler/backend/perf_report.py, see
                     them).  GM -> L1 and L1 -> L0 moves of cube kernels are `cube_core_cycles`'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block

from compiler.target.chips import BYTES_PER_CYCLE
from compiler.target.cost_model import ACTIVATION_STEPS, vector_core_cycles, vector_fit
from compiler.target.formats import ceil_div

#: kernel.accumulate's fn -> the vector op it is
ACCUMULATE_FNS = {"Add": "Add", "Max": "Maximum", "Min": "Minimum", "Mul": "Mul",
                  "Copy": "Copy"}  # Copy: a UB -> UB DataCopy, no measured fit (the default's)
#: The rate UB -> L1 moves are charged at (an assumption: the reference lists no such path).
UB_TO_L1 = "UB->GM"


@dataclass
class BodyCost:
    """One (the busiest) core's work in a kernel body."""

    vector_cycles: float = 0.0
    #: vector fn -> instructions executed per core (in body order)
    counts: dict[str, int] = field(default_factory=dict)
    #: vector fn -> where its fit comes from, for the fns without a measured fit
    aliases: dict[str, str] = field(default_factory=dict)
    ub_to_l1_bytes: int = 0
    ub_to_gm_bytes: int = 0

    @property
    def mte3_cycles(self) -> float:
        return self.ub_to_gm_bytes / BYTES_PER_CYCLE["UB->GM"]

    @property
    def ub_to_l1_cycles(self) -> float:
        return self.ub_to_l1_bytes / BYTES_PER_CYCLE[UB_TO_L1]

    def summary(self) -> str:
        return ", ".join(f"{fn} x{n}" for fn, n in self.counts.items())

    def _vec(self, fn: str, elems: int, elem_bytes: int, trips: int) -> None:
        self.vector_cycles += trips * vector_core_cycles(fn, elems, elem_bytes)
        self.counts[fn] = self.counts.get(fn, 0) + trips
        _, _, src = vector_fit(fn)
        if src != "measured":
            self.aliases[fn] = src


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= max(d, 0)
    return n


def _elem_bytes(t) -> int:
    from dialects.common import numpy_dtype

    return numpy_dtype(t.element_type).itemsize


def _bytes(t) -> int:
    return _elems(t) * _elem_bytes(t)


def min_index(v) -> int:
    """The smallest value an index SSA value takes on any core (the busiest core's value)."""
    from dialects import kernel

    owner = v.owner
    if isinstance(owner, kernel.IndexOp):
        return owner.value.value.data
    if isinstance(owner, kernel.MulIndexOp):
        return min_index(owner.value) * owner.by.value.data
    if isinstance(owner, Block):
        parent = owner.parent_op()
        if isinstance(parent, kernel.ForOp):
            return min_index(parent.base)
    return 0  # a kernel.cores block offset: block 0's is 0


def trip_count(op) -> int:
    """Turns of a kernel.for on the busiest core."""
    base = min_index(op.base)
    span = min(op.extent.value.data, op.limit.value.data - base)
    return ceil_div(max(span, 0), op.step.value.data)


def vec_fns(op) -> list[str]:
    """The vector instructions a kernel.vec runs on its tile (fit names)."""
    fn = op.fn.data
    if fn.startswith("act:"):
        act = fn[4:]
        return list(ACTIVATION_STEPS.get(act, (act,)))
    if fn == "TopKIndices":
        return sort_steps(op.inputs[0].type.get_shape()[-1])
    return [fn]


def sort_steps(n: int) -> list[str]:
    """The vector instructions that sort rows of n elements (TopKIndices; Ascend C Sort /
    MrgSort): an assumption, not a measured fit: a merge sort's ceil(log2 n) passes over the
    row, each a compare and a select per element (each costed by its own fit)."""
    return ["Greater", "SelectV2"] * max(1, (max(n, 1) - 1).bit_length())


def walk_body(kernel_op) -> BodyCost:
    """The busiest core's work in `kernel_op`'s body (a kernel.cube or kernel.vec_kernel)."""
    cost = BodyCost()
    _walk_block(kernel_op.body.block, 1, cost)
    return cost


def _walk_block(block: Block, trips: int, cost: BodyCost) -> None:
    from dialects import kernel
    from dialects.kernel import space_of

    for op in block.ops:
        if isinstance(op, kernel.ForOp):
            _walk_block(op.body.block, trips * trip_count(op), cost)
        elif isinstance(op, kernel.CoresOp):
            _walk_block(op.body.block, trips, cost)  # one core's share: one block
        elif isinstance(op, kernel.SyncAllOp):  # the phases before and after it add up
            cost.counts["SyncAll"] = cost.counts.get("SyncAll", 0) + trips
            cost.aliases["SyncAll"] = "not charged (the reference gives no cycles for a barrier)"
        elif isinstance(op, kernel.VecOp):
            tiles = [*(v.type for v in op.inputs), op.result.type]
            elems = max(_elems(t) for t in tiles)
            eb = _elem_bytes(tiles[0])
            for fn in vec_fns(op):
                cost._vec(fn, elems, eb, trips)
        elif isinstance(op, kernel.AccumulateOp):
            t = op.acc.type
            cost._vec(ACCUMULATE_FNS[op.fn.data], _elems(t), _elem_bytes(t), trips)
        elif isinstance(op, kernel.StoreOp) and space_of(op.dst.type) == "L1":
            cost.ub_to_l1_bytes += trips * _bytes(op.value.type)  # fmap_window: into L1
        elif isinstance(op, (kernel.StoreOp, kernel.ScatterOp)):
            cost.ub_to_gm_bytes += trips * _bytes(op.value.type)
        elif isinstance(op, kernel.LoadOp) and (
                (space_of(op.src.type), space_of(op.result.type)) == ("UB", "L1")):
            cost.ub_to_l1_bytes += trips * _bytes(op.result.type)
