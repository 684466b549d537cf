"""Device memory planning: every intermediate tensor and kernel workspace at an offset in one
arena of global memory (HBM), as ATB plans its intermediate memory (cann-facts.md section 8).

The model, in two halves:

* `plan_tensors` / `check_plan` work on plain `TensorReq`s (bytes, lifetime, alias requests) and
  know nothing about IR, so the allocator and the checker can be tested on synthetic problems.
* `collect` / `plan_function` / `read_plan` / `check_function` read and write a `func.func` at
  the kernel level.  Any op of the `kernel` dialect at the top level of the function body is a
  kernel launch; launches run in program order, step 0, 1, ...

Lifetimes.  A kernel result is live from the step of its kernel to the step of its last
consumer, inclusive (a kernel reads its inputs while writing its output, so an input and the
output overlap in time unless the kernel works in place).  A workspace lives for its kernel's
step only.  Function arguments (model inputs) and values returned by the function (model
outputs) are not in the arena: the caller binds their buffers at execution time, as ACL's
aclmdlExecute does.  Constants live in the weight region of the offline model.

Reuse.
* In place: an elementwise kernel (its `fn` a pointwise cann op)
  whose operand has exactly the result's type, lives in the arena and dies at this kernel,
  writes its result over that operand (tile by tile each element is read before it is written).
* Concat (zero-copy): an input is written by its producer straight into its slab of the
  concat's buffer when, on the stored shapes, every dimension before the concat axis is 1 (the
  slab is contiguous; on NC1HWC0 a concat over C is one over C1, and an input is a slab only at
  a channel offset that is a multiple of C0, `concat_slab_offsets`), the slab starts on a
  32-byte UB block (SLAB_ALIGN) and the input is an arena tensor not already a slab of another
  concat.  The input may be read elsewhere too (its bytes live as long as the concat's buffer);
  a concat's result may itself be a slab of a later concat (a dense block: the whole chain is one
  buffer).  Other inputs are copied by the concat kernel; a concat none of whose inputs is
  copied moves no data (`mem.elided`, no launch in the perf report).
* Views (zero-copy slices): a slicing kernel (SplitD / SplitVD piece, StridedSliceD) whose result
  is one contiguous slab of its operand (`slice_view_offset`; on NC1HWC0 a piece of whole C0
  blocks, N = 1) shares the operand's bytes at that offset and moves no data (`mem.elided`), when
  the result is an arena tensor and the offset is SLAB_ALIGN-aligned.  A piece that is a concat
  slab too joins the concat's group with its operand: the two buffers then meet on the piece
  (a wide conv's last piece as a concat's first input: the wide output ends where the concat's
  buffer starts), an overlap the checker allows because every byte they share is the piece's,
  a slab of both (`_in_common_slab`); any other overlap refuses the merge (the split copies).
  The overlap checker treats it as a slab of its operand, so nothing may write over either
  while the other is read (an in-place write over the operand is refused).
* Groups: tensors sharing one buffer (concat slabs, in-place results) form a group at fixed
  offsets (`choose_aliases`); every merge is re-checked by the overlap checker and refused if
  the group would be unsound (an in-place write over a slab whose concat still lives).
* Workspace: a kernel's GM buffers (`#kernel.buffer<GM, ...>` and/or an integer `workspace`
  property) form one workspace tensor of that step, planned like any other tensor, so
  workspaces of different kernels share memory.

Control flow (kernel.if / kernel.case / kernel.while, host-side ops naming functions by symbol).
Each function is planned by itself (callees before callers, `plan_module`), its offsets relative
to a base the caller chooses.  The control op is one step of its caller with one workspace
(`control_layout`) holding, from offset 0:
  kernel.while  two sets of loop-variable buffers (iteration i reads set i % 2 and its body
                writes the other, so a loop-carried value is never overwritten while the body
                still reads it; a variable the body updates in place, `mem.inplace_of`, has
                one buffer in both), then the cond's predicate;
  all           then the largest arena of its functions (they never run at the same time).
A function's arguments and results are bound by the caller, as for @main: a branch writes the
control op's results, a body the other set, a cond the predicate slot.  `check_module` re-checks
every function's plan and every control op's workspace layout with the overlap checker.

Placement: greedy by size (largest first), each at the lowest 512-byte aligned offset (or the
best-fitting gap) that does not collide with an already placed tensor of overlapping lifetime;
the better of a few orderings is kept.  The lower bound is the largest sum, over steps, of the
(aligned) bytes simultaneously live; the naive sum is every planned tensor in its own buffer.

Recorded in the IR (round-trips through the textual form):
  on each launch   `mem.offsets = array<i64: o0, ...>`  one per result, -1 = model output
                   `mem.workspace = array<i64: offset, bytes>`  when it has a workspace
                   `mem.elided`  (unit) for a concat all of whose inputs were written in place,
                                 or a slicing kernel whose result is a view of its operand
  on the function  `mem.plan = {alignment = 512, arena = N, live_bound = N, naive = N,
                                tensors = N, inplace = N, concat_inplace = N}`
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.traits import ConstantLike

from compiler.backend.launch_packs import launch_slots
from compiler.ir.typed import block_of, dict_of, int_of
from compiler.target.formats import ceil_div
from dialects.common import ints, string_value
from dialects.kernel import ELEMENTWISE_KINDS, LoadView, LoadViewAttr
from dialects.op_kinds import Broadcast, Elementwise, is_pointwise, kind_of_class

ALIGNMENT = 512
#: Where a concat input may start inside the concat's buffer: its producer stores whole 32-byte
#: UB blocks (cann-facts.md section 6, "UB access granularity 32 B"), so a slab starting
#: elsewhere would share a block with its neighbour; such an input is copied by the concat.
SLAB_ALIGN = 32

OFFSETS_ATTR = "mem.offsets"
WORKSPACE_ATTR = "mem.workspace"
ELIDED_ATTR = "mem.elided"
PLAN_ATTR = "mem.plan"

#: Concatenation: a vector kernel's `fn`.
CONCAT_FNS = frozenset({"Concat", "ConcatD", "ConcatV2", "ConcatV2D"})


class PlanError(ValueError):
    pass


def align(n: int, a: int = ALIGNMENT) -> int:
    return ceil_div(n, a) * a if n > 0 else 0


# --- the allocator, on plain data -----------------------------------------------------------

@dataclass
class TensorReq:
    """One tensor to place: bytes, lifetime [start, end] in kernel steps (inclusive)."""

    name: str
    size: int
    start: int
    end: int
    kind: str = "activation"  # or "workspace"
    #: Share memory with tensor `alias[0]` at byte offset `alias[1]` inside it (in place) or
    #: with the later tensor whose slab this is (concat): (index, offset of self within it).
    alias: tuple[int, int] | None = None
    alias_kind: str = ""  # "inplace" | "concat"


@dataclass
class Plan:
    offsets: list[int]
    arena: int
    live_bound: int
    naive: int
    alignment: int
    strategy: str = ""
    steps: int = 0
    inplace: int = 0
    concat_inplace: int = 0

    def summary(self) -> str:
        ratio = self.arena / self.live_bound if self.live_bound else 1.0
        naive_ratio = self.arena / self.naive if self.naive else 1.0
        return (f"arena {self.arena} B, live-set bound {self.live_bound} B ({ratio:.3f}x), "
                f"naive sum {self.naive} B ({naive_ratio:.3f}x), {len(self.offsets)} tensors, "
                f"{self.inplace} in place, {self.concat_inplace} concat inputs in place")


def _roots(reqs: list[TensorReq]) -> tuple[list[int], list[int]]:
    """(root index, offset within the root's buffer) of every tensor (follows alias chains)."""
    root = list(range(len(reqs)))
    rel = [0] * len(reqs)
    for i in range(len(reqs)):
        seen = set()
        j, off = i, 0
        while (alias := reqs[j].alias) is not None:
            if j in seen:
                raise PlanError(f"alias cycle through '{reqs[j].name}'")
            seen.add(j)
            target, o = alias
            off += o
            j = target
        root[i], rel[i] = j, off
    return root, rel


def _place(buffers: list[tuple[int, int, int]], order: list[int], best_fit: bool,
           alignment: int) -> tuple[list[int], int]:
    """buffers[i] = (size, start, end): offsets of each, and the arena size."""
    placed: list[tuple[int, int, int, int]] = []  # (offset, size, start, end)
    offsets = [0] * len(buffers)
    top = 0
    for i in order:
        size, start, end = buffers[i]
        need = align(size, alignment)
        busy = sorted((o, o + align(s, alignment)) for o, s, st, en in placed
                      if st <= end and start <= en)
        chosen, best_gap = None, None
        cursor = 0
        for lo, hi in busy:
            if lo - cursor >= need:
                gap = lo - cursor
                if not best_fit:
                    chosen = cursor
                    break
                if best_gap is None or gap < best_gap:
                    chosen, best_gap = cursor, gap
            cursor = max(cursor, hi)
        if chosen is None:
            chosen = cursor
        offsets[i] = chosen
        placed.append((chosen, size, start, end))
        top = max(top, chosen + need)
    return offsets, top


#: Work budget of the local search (placements x buffers^2), so large graphs stay fast.
SEARCH_BUDGET = 4_000_000
#: Every this many tries of the local search starts from a fresh random order.
RESTART_EVERY = 4


def _local_search(bufs, best, bound: int, alignment: int):
    """Perturb the best order so far (swap nearby entries) while the arena is above the
    live-set bound, every RESTART_EVERY-th try a fresh random order instead (a multi-start: the
    nearby swaps alone stay stuck where a long-lived buffer sits under a chain of short ones, e.g.
    a TCN's residual over a dilated-conv chain, 1.27x the bound); keep any order that does no
    worse.  Deterministic (seeded)."""
    import random

    rng = random.Random(0)
    offs, top, strategy, order, best_fit = best
    n = len(bufs)
    tries = max(8, min(300, SEARCH_BUDGET // (n * n)))
    improved = False
    for t in range(tries):
        if t % RESTART_EVERY == RESTART_EVERY - 1:
            cand = list(range(n))
            rng.shuffle(cand)
        else:
            cand = list(order)
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(n - 1)
                j = min(n - 1, i + rng.randint(1, 6))
                cand[i], cand[j] = cand[j], cand[i]
        for fit in (best_fit, not best_fit):
            o2, t2 = _place(bufs, cand, fit, alignment)
            if t2 <= top:
                improved |= t2 < top
                offs, top, order, best_fit = o2, t2, cand, fit
                break
        if top <= bound:
            break
    if improved:
        strategy += "+local-search"
    return offs, top, strategy, order, best_fit


def live_bound(buffers: list[tuple[int, int, int]], alignment: int = ALIGNMENT) -> int:
    """Largest sum of aligned bytes simultaneously live: no placement can do better."""
    events: dict[int, int] = {}
    for size, start, end in buffers:
        events[start] = events.get(start, 0) + align(size, alignment)
        events[end + 1] = events.get(end + 1, 0) - align(size, alignment)
    best = cur = 0
    for t in sorted(events):
        cur += events[t]
        best = max(best, cur)
    return best


def plan_tensors(reqs: list[TensorReq], alignment: int = ALIGNMENT) -> Plan:
    """Place every tensor; aliased tensors share their root's buffer."""
    if alignment <= 0 or alignment & (alignment - 1):
        raise PlanError(f"alignment must be a power of two, got {alignment}")
    for r in reqs:
        if r.size < 0 or r.end < r.start:
            raise PlanError(f"tensor '{r.name}': bad size {r.size} or lifetime [{r.start}, {r.end}]")
    root, rel = _roots(reqs)
    roots = sorted(set(root))
    index = {r: k for k, r in enumerate(roots)}
    bufs = []
    for rr in roots:
        members = [i for i in range(len(reqs)) if root[i] == rr]
        size = max(rel[i] + reqs[i].size for i in members)
        bufs.append((size, min(reqs[i].start for i in members), max(reqs[i].end for i in members)))
    orders = {
        "greedy-by-size": sorted(range(len(bufs)), key=lambda k: (-bufs[k][0], bufs[k][1])),
        "greedy-by-start": sorted(range(len(bufs)), key=lambda k: (bufs[k][1], -bufs[k][0])),
        "greedy-by-breadth": sorted(range(len(bufs)),
                                    key=lambda k: (-(bufs[k][0] * (bufs[k][2] - bufs[k][1] + 1)))),
    }
    bound = live_bound(bufs, alignment)
    best = None
    for name, order in orders.items():
        for best_fit in (False, True):
            offs, top = _place(bufs, order, best_fit, alignment)
            if best is None or top < best[1]:
                best = (offs, top, f"{name}/{'best-fit' if best_fit else 'first-fit'}",
                        order, best_fit)
    if best is not None and best[1] > bound and len(bufs) > 2:
        best = _local_search(bufs, best, bound, alignment)
    offs, top, strategy = best[:3] if best else ([], 0, "empty")
    offsets = [offs[index[root[i]]] + rel[i] for i in range(len(reqs))]
    steps = max((r.end for r in reqs), default=-1) + 1
    return Plan(offsets=offsets, arena=top, live_bound=bound,
                naive=sum(align(r.size, alignment) for r in reqs), alignment=alignment,
                strategy=strategy, steps=steps,
                inplace=sum(1 for r in reqs if r.alias_kind == "inplace"),
                concat_inplace=sum(1 for r in reqs if r.alias_kind == "concat"))


def _containers(reqs: list[TensorReq], offsets: list[int],
                allowed: dict[tuple[int, int], tuple[str, int]]) -> list[set[int]]:
    """For each tensor, every tensor it is a slab of, directly or through a chain of concats
    (a dense block: a layer's output is a slab of its concat, which is a slab of the next
    concat, ...), counting only relations the offsets actually honour."""
    parent: dict[int, list[int]] = {}
    for (a, b), (kind, d) in allowed.items():
        if kind != "concat":
            continue
        # d = 0: the smaller tensor is the slab (a slice's result is produced after its operand)
        slab, whole, off = (a, b, d) if d > 0 or (d == 0 and reqs[a].size <= reqs[b].size) \
            else (b, a, -d)
        if offsets[slab] == offsets[whole] + off and reqs[slab].size + off <= reqs[whole].size:
            parent.setdefault(slab, []).append(whole)
    out: list[set[int]] = []
    for i in range(len(reqs)):
        seen: set[int] = set()
        todo = list(parent.get(i, ()))
        while todo:
            j = todo.pop()
            if j not in seen:
                seen.add(j)
                todo.extend(parent.get(j, ()))
        out.append(seen)
    return out


def _in_common_slab(i: int, j: int, offsets: list[int], reqs: list[TensorReq],
                    inside: list[set[int]]) -> bool:
    """The bytes i and j share are all one tensor's that is a slab of both (a piece of a wide
    conv's output that is a view of it and its concat's slab: the two buffers meet on it)."""
    lo = max(offsets[i], offsets[j])
    hi = min(offsets[i] + reqs[i].size, offsets[j] + reqs[j].size)
    return any(i in inside[k] and j in inside[k] and offsets[k] <= lo and
               hi <= offsets[k] + reqs[k].size for k in range(len(reqs)))


def check_plan(reqs: list[TensorReq], offsets: list[int], arena: int,
               alignment: int = ALIGNMENT,
               allowed: dict[tuple[int, int], tuple[str, int]] | None = None) -> list[str]:
    """Every problem of a placement, as messages (empty: the plan is sound).

    Two tensors whose lifetimes overlap must not share a byte, unless `allowed[(i, j)]`
    (i < j) says j may sit on i: ("inplace", 0) if at exactly i's offset, ("concat", d) if i is
    a slab of j at byte d (or the reverse), or one is a slab of the other through a chain of
    such concat relations.  By default the tensors' own alias requests are the allowed
    overlaps.  Every tensor must lie within the arena.  A tensor that is a slab of another
    (where the offsets say so) must start on a SLAB_ALIGN boundary, every other one on
    `alignment`."""
    problems: list[str] = []
    if allowed is None:
        allowed = {}
        for j, r in enumerate(reqs):
            if r.alias is not None:
                i, d = r.alias
                allowed[(min(i, j), max(i, j))] = (r.alias_kind or "inplace", d if i > j else -d)
    if len(offsets) != len(reqs):
        return [f"{len(offsets)} offsets for {len(reqs)} tensors"]
    inside = _containers(reqs, offsets, allowed)
    # a tensor written in place over a slab (or under it) sits where the slab does
    slab_like = {i for i in range(len(reqs)) if inside[i]}
    grew = True
    while grew:
        grew = False
        for (a, b), (kind, _) in allowed.items():
            if kind == "inplace" and offsets[a] == offsets[b] and (a in slab_like) != (b in slab_like):
                slab_like.update((a, b))
                grew = True
    for i, (r, o) in enumerate(zip(reqs, offsets)):
        if o < 0 or o + r.size > arena:
            problems.append(f"'{r.name}' at [{o}, {o + r.size}) lies outside the arena of {arena} B")
        need = SLAB_ALIGN if i in slab_like else alignment
        if o % need:
            what = "a concat slab" if i in slab_like else "a buffer"
            problems.append(f"'{r.name}' at offset {o} is not {need}-byte aligned ({what})")
    order = sorted(range(len(reqs)), key=lambda k: offsets[k])
    for a_pos, i in enumerate(order):
        lo_i, hi_i = offsets[i], offsets[i] + reqs[i].size
        for j in order[a_pos + 1:]:
            if offsets[j] >= hi_i:
                break
            if reqs[j].size == 0 or reqs[i].size == 0:
                continue
            ri, rj = reqs[i], reqs[j]
            if ri.end < rj.start or rj.end < ri.start:
                continue
            if j in inside[i] or i in inside[j] or _in_common_slab(i, j, offsets, reqs, inside):
                continue
            key = (min(i, j), max(i, j))
            rule = allowed.get(key)
            if rule is not None and rule[0] == "inplace" and offsets[i] == offsets[j]:
                continue
            problems.append(
                f"'{ri.name}' [{lo_i}, {hi_i}) live in steps {ri.start}..{ri.end} overlaps "
                f"'{rj.name}' [{offsets[j]}, {offsets[j] + rj.size}) live in steps "
                f"{rj.start}..{rj.end}")
    return problems


# --- the IR side ----------------------------------------------------------------------------

def op_name(op: Operation) -> str:
    """The op's name (an unregistered op's real name, so hand-made IR can use future kernels)."""
    real = getattr(op, "op_name", None)
    return real.data if isinstance(real, StringAttr) else op.name


def is_kernel(op: Operation) -> bool:
    return op_name(op).split(".", 1)[0] == "kernel"


def is_constant(op: Operation) -> bool:
    """A constant (cann.Const, arith.constant: xDSL's ConstantLike trait)."""
    return op.has_trait(ConstantLike, value_if_unregistered=False) and not op.operands


def tensor_bytes(t) -> int:
    from dialects.common import numpy_dtype

    if not isinstance(t, TensorType):
        raise PlanError(f"{t} is not a tensor")
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        raise PlanError(f"{t} has a dynamic shape; plan memory after shapes are known")
    n = 1
    for d in shape:
        n *= d
    return n * numpy_dtype(t.element_type).itemsize


def _prop(op: Operation, name: str):
    return op.properties.get(name, op.attributes.get(name))


def _int_prop(op: Operation, name: str) -> int | None:
    v = _prop(op, name)
    if isinstance(v, IntegerAttr):
        return v.value.data
    if isinstance(v, DenseArrayBase):
        vals = v.get_values()
        return int(vals[0]) if len(vals) == 1 else None
    return None


def fn_of(op: Operation) -> str | None:
    return string_value(_prop(op, "fn"))


@functools.cache
def pointwise_fn(fn: str | None) -> bool:
    """A vector kernel's `fn` names the cann op it computes (kernel.vector's "Relu"): is that
    op elementwise or broadcast (its kind trait, dialects/op_kinds.py)?"""
    from dialects.cann import CANN

    cls = next((c for c in CANN.operations if c.name == f"cann.{fn}"), None)
    return cls is not None and kind_of_class(cls) in (Elementwise, Broadcast)


def is_elementwise(op: Operation) -> bool:
    kind = _prop(op, "kind")
    return (pointwise_fn(fn_of(op))
            or (isinstance(kind, StringAttr) and kind.data in ELEMENTWISE_KINDS))


def is_concat(op: Operation) -> bool:
    kind = _prop(op, "kind")
    return (fn_of(op) in CONCAT_FNS
            or (isinstance(kind, StringAttr) and kind.data in CONCAT_FNS))


def workspace_bytes(op: Operation) -> int:
    """GM buffers of a kernel (its workspace), plus an integer `workspace` property; a control
    op's workspace is its `control_layout`."""
    if is_control(op):
        return control_layout(op).size
    total = 0
    bufs = _prop(op, "buffers")
    if bufs is not None and hasattr(bufs, "data"):
        for b in bufs.data:
            space = getattr(b, "space", None)
            if isinstance(space, StringAttr) and space.data == "GM":
                total += b.size.data
    extra = _int_prop(op, "workspace")
    return total + (extra or 0)


def _concat_axis(op: Operation) -> int | None:
    for name in ("concat_dim", "axis", "dim"):
        v = _int_prop(op, name)
        if v is not None:
            return v
    return None


def concat_slab_offsets(op: Operation) -> list[tuple[int, bool] | None] | None:
    """For each input of a concat kernel, (byte offset within the result, whether it must die
    at the concat) when the input is one contiguous slab of the result, else None (the concat
    copies it); None for all when the op is no such concat.

    The rule, on the stored (device) shapes, which is what a kernel's types are: along axis a,
    an input is contiguous in the result exactly when every dimension before a is 1; it then
    starts at (sum of the earlier inputs' bytes).  The concat's `concat_dim` is an axis of the
    stored shape.  On NC1HWC0 a concat over C is one over C1 (axis 1), and an input is a slab
    only if its channel offset is a multiple of C0: then its C1 blocks are whole blocks of the
    result (cann-facts.md section 3); at any other offset its channels share C0 blocks with the
    previous input and the kernel stores it lane by lane (`concat_c0`).  A slab whose channels
    end inside a block (C mod C0 != 0) and that is not the last input shares its last block
    with the next input, which the concat writes over its padding lanes: it may sit there only
    if nothing reads it after the concat.  Whether a slab is really written in place (32-byte
    start, an arena tensor, ...) is decided by `collect`."""
    axis = _concat_axis(op)
    if axis is None or len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
        return None
    yt = op.results[0].type
    shape = yt.get_shape()
    axis = axis + len(shape) if axis < 0 else axis
    if not 0 <= axis < len(shape) or any(d != 1 for d in shape[:axis]):
        return None
    if any(not isinstance(v.type, TensorType) or list(v.type.get_shape())[:axis] != list(shape[:axis])
           for v in op.operands):
        return None
    fy = _nc1hwc0(yt)
    if fy is not None and axis == 1:
        c_axis = 3 if fy.origin_fmt.value == "NHWC" else 1
        c0 = shape[4]
        block = tensor_bytes(yt) // shape[1]
        out, ch = [], 0
        for k, v in enumerate(op.operands):
            fv = _nc1hwc0(v.type)
            if fv is None:
                return None
            c = fv.origin[c_axis]
            last = k == len(op.operands) - 1
            out.append((ch // c0 * block, not last and c % c0 != 0) if ch % c0 == 0 else None)
            ch += c
        return out if ch <= shape[1] * c0 else None
    offs: list[tuple[int, bool] | None] = []
    off = 0
    for v in op.operands:
        offs.append((off, False))
        off += tensor_bytes(v.type)
    return offs if off == tensor_bytes(yt) else None


#: Kernel kinds that copy a box of their one operand into their result (SplitD / SplitVD pieces,
#: StridedSliceD): when the box is contiguous the result may be a view (`slice_view_offset`).
SLICE_KINDS = ("SplitD", "SplitVD", "StridedSliceD")


def slice_view_offset(op: Operation) -> int | None:
    """The byte offset of a slicing kernel's result inside its one operand when the result is
    one contiguous slab of it, else None.  The kernel's body loads the box [start, start+count)
    with unit steps (`slice_flat`) of the stored operand (on NC1HWC0 a split over C on whole C0
    blocks is one over C1); the box is contiguous when, on the stored shapes, every axis before
    some axis a has count 1 and every axis after a is whole.  Its bytes are then the operand's
    from (row-major index of start) * element size, so the result can share them."""
    kind = _prop(op, "kind")
    if not (isinstance(kind, StringAttr) and kind.data in SLICE_KINDS) or len(op.operands) != 1 \
            or len(op.results) != 1:
        return None
    xt, yt = op.operands[0].type, op.results[0].type
    if not isinstance(xt, TensorType) or not isinstance(yt, TensorType) or not op.regions:
        return None
    loads = [o for o in op.walk() if o.name == "kernel.load"]
    if len(loads) != 1:
        return None
    view, params = loads[0].properties.get("view"), loads[0].properties.get("params")
    if view != LoadViewAttr.of(LoadView.slice_flat) or params is None:
        return None
    try:
        start, step, count = (list(ints(dict_of(params)[k])) for k in ("start", "step", "count"))
    except (KeyError, AttributeError, TypeError):
        return None
    xs, ys = list(xt.get_shape()), list(yt.get_shape())
    if len(start) != len(xs) or any(d < 0 for d in xs) or any(v != 1 for v in step) \
            or [c for c in count if c != 1] != [d for d in ys if d != 1] or xt.element_type != yt.element_type:
        return None
    a = next((i for i, c in enumerate(count) if c != 1), len(xs) - 1)
    if any(c != 1 for c in count[:a]) or any(o != 0 or c != d for o, c, d in
                                             zip(start[a + 1:], count[a + 1:], xs[a + 1:])):
        return None
    flat, stride = 0, 1
    for o, d in zip(reversed(start), reversed(xs)):
        flat += o * stride
        stride *= d
    return flat * (tensor_bytes(xt) // max(1, stride))


def _nc1hwc0(t):
    f = getattr(t, "encoding", None)
    fmt = getattr(f, "format", None)
    return f if fmt is not None and getattr(fmt, "data", "") == "NC1HWC0" and f.origin_format.data else None


# --- host-side control flow -------------------------------------------------------------------

#: Control op -> the properties naming its functions, in order.
CONTROL_CALLEES = {"kernel.if": ("then_branch", "else_branch"), "kernel.case": ("branches",),
                   "kernel.while": ("cond", "body")}


def is_control(op: Operation) -> bool:
    return op_name(op) in CONTROL_CALLEES


def callees(op: Operation) -> list[func.FuncOp]:
    """The functions a control op names (while: cond, body), looked up in the module."""
    from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
    from xdsl.traits import SymbolTable

    out = []
    for name in CONTROL_CALLEES[op_name(op)]:
        v = _prop(op, name)
        for sym in (v.data if isinstance(v, ArrayAttr) else [v]):
            f = SymbolTable.lookup_symbol(op, sym) if isinstance(sym, SymbolRefAttr) else None
            if not isinstance(f, func.FuncOp):
                raise PlanError(f"{op_name(op)}: {name} does not name a func.func of the module")
            out.append(f)
    return out


@dataclass
class ControlLayout:
    """A control op's workspace, offsets from its start (see the module docstring)."""

    functions: list[func.FuncOp]
    base: int  # where the functions' arena starts
    sets: list[list[int]]  # kernel.while: the two sets of loop-variable buffers
    pred: int  # kernel.while: the cond's predicate; -1 otherwise
    size: int
    parts: list[TensorReq]  # every piece, all live during the op (for the checker)
    offsets: list[int]


#: On a kernel whose result is its operand k's buffer (written in place: `mem.inplace_of = k`,
#: compiler/conversions/cann_to_kernel/inplace_update.py).
INPLACE_ATTR = "mem.inplace_of"


def inplace_loop_variables(op: Operation, fns: list[func.FuncOp]) -> set[int]:
    """The loop variables a kernel.while's body updates in place: the body returns at k the
    result of a kernel marked `mem.inplace_of` whose in-place operand is the body's argument k.
    Such a variable has ONE buffer in both sets (the body reads and writes it there)."""
    from xdsl.ir import BlockArgument

    body = fns[1] if len(fns) > 1 else None
    if body is None or not body.body.blocks:
        return set()
    block = block_of(body.body)
    ret = block.last_op
    out = set()
    for k, v in enumerate(ret.operands if isinstance(ret, func.ReturnOp) else ()):
        o = v.owner
        attr = o.attributes.get(INPLACE_ATTR) if isinstance(o, Operation) else None
        if attr is None or not isinstance(o, Operation):
            continue
        src = o.operands[int_of(attr)]
        if isinstance(src, BlockArgument) and src.block is block and src.index == k:
            out.add(k)
    return out


def control_layout(op: Operation) -> ControlLayout:
    fns = callees(op)
    missing = [f.sym_name.data for f in fns if not has_plan(f)]
    if missing:
        raise PlanError(f"{op_name(op)} calls @{missing[0]}, which has no '{PLAN_ATTR}': plan "
                        "callees before their callers (plan_module)")
    alignment = max(read_plan_info(f).get("alignment", ALIGNMENT) for f in fns)
    parts: list[TensorReq] = []
    offsets: list[int] = []
    cursor = 0

    def put(name: str, size: int) -> int:
        nonlocal cursor
        parts.append(TensorReq(name, size, 0, 0))
        offsets.append(cursor)
        cursor += align(size, alignment)
        return offsets[-1]

    sets, pred = [], -1
    if op_name(op) == "kernel.while":
        shared = inplace_loop_variables(op, fns)
        set0 = [put(f"loop variable {i} (set 0)", tensor_bytes(v.type))
                for i, v in enumerate(op.operands)]
        sets = [set0, [set0[i] if i in shared else put(f"loop variable {i} (set 1)",
                                                       tensor_bytes(v.type))
                       for i, v in enumerate(op.operands)]]
        pred = put(f"predicate of @{fns[0].sym_name.data}",
                   tensor_bytes(fns[0].function_type.outputs.data[0]))
    arena = max(read_plan_info(f)["arena"] for f in fns)
    base = put("arena of " + ", ".join(f"@{f.sym_name.data}" for f in fns), arena)
    return ControlLayout(fns, base, sets, pred, cursor, parts, offsets)


def read_plan_info(fn: func.FuncOp) -> dict[str, int]:
    attr = fn.attributes.get(PLAN_ATTR)
    if not isinstance(attr, DictionaryAttr):
        raise PlanError(f"@{fn.sym_name.data} has no '{PLAN_ATTR}': run plan-memory first")
    return {k: v.value.data for k, v in attr.data.items() if isinstance(v, IntegerAttr)}


def planned_functions(module: Operation) -> list[func.FuncOp]:
    """Every function with a body, each after the functions its control ops name."""
    from xdsl.dialects.builtin import ModuleOp

    tops = module.ops if isinstance(module, ModuleOp) else module.walk()  # not the kernel bodies
    fns = [op for op in tops if isinstance(op, func.FuncOp) and not op.is_declaration]
    order: list[func.FuncOp] = []
    state: dict[func.FuncOp, str] = {}

    def visit(fn: func.FuncOp, chain: list[str]) -> None:
        if state.get(fn) == "done":
            return
        if state.get(fn) == "open":
            raise PlanError(f"recursive functions: {' -> '.join(chain + [fn.sym_name.data])}")
        state[fn] = "open"
        for op in fn.body.blocks.first.ops if fn.body.blocks.first else ():
            if is_control(op):
                for callee in callees(op):
                    visit(callee, chain + [fn.sym_name.data])
        state[fn] = "done"
        order.append(fn)

    for fn in fns:
        visit(fn, [])
    return order


def plan_module(module: Operation, alignment: int = ALIGNMENT, inplace: bool = True,
                concat: bool = True, verify: bool = True) -> dict[str, Plan]:
    """Plan every function, callees first (a control op's workspace needs their arenas)."""
    plans = {}
    for fn in planned_functions(module):
        try:
            plans[fn.sym_name.data] = plan_function(fn, alignment, inplace, concat, verify)
        except PlanError as e:
            raise PlanError(f"@{fn.sym_name.data}: {e}") from None
    return plans


def check_control(op: Operation) -> list[str]:
    """Problems of a control op's workspace layout: its pieces must not overlap, and each
    function's recorded arena must fit the piece reserved for it."""
    try:
        lay = control_layout(op)
    except PlanError as e:
        return [str(e)]
    problems = check_plan(lay.parts, lay.offsets, lay.size)
    for f in lay.functions:
        if read_plan_info(f)["arena"] > lay.parts[-1].size:
            problems.append(f"the arena of @{f.sym_name.data} does not fit {op_name(op)}'s workspace")
    return problems


def check_module(module: Operation) -> list[str]:
    """Problems of every function's recorded plan and every control op's workspace."""
    problems = []
    try:
        fns = planned_functions(module)
    except PlanError as e:
        return [str(e)]
    for fn in fns:
        name = f"@{fn.sym_name.data}"
        problems += [f"{name}: {p}" for p in check_function(fn)]
        for k, op in enumerate(o for o in block_of(fn.body).ops if is_kernel(o)):
            if is_control(op):
                problems += [f"{name}: {_describe(op, k)}: {p}" for p in check_control(op)]
    return problems


@dataclass
class Collected:
    """The planning problem of one function."""

    launches: list[Operation]
    reqs: list[TensorReq]
    #: (kernel step, result index) -> tensor index; workspaces: step -> tensor index
    result_tensor: dict[tuple[int, int], int] = field(default_factory=dict)
    workspace_tensor: dict[int, int] = field(default_factory=dict)
    #: every legal overlap (candidates the planner may use): (i, j) -> (kind, d)
    allowed: dict[tuple[int, int], tuple[str, int]] = field(default_factory=dict)
    #: concat launches whose inputs may be written in place: step -> [(input tensor, offset)]
    concat_slabs: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    #: slicing launches whose result may be a view of their operand: step -> (result tensor,
    #: operand tensor, byte offset)
    views: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    outputs: int = 0


def _describe(op: Operation, step: int) -> str:
    from compiler.ir.diagnostics import node_name

    node = node_name(op)
    return f"#{step} {op_name(op)}" + (f" '{node}'" if node else "")


def _graph_level_fn(op: Operation) -> str | None:
    """For `any_op` planning above the kernel level: `cann.Relu` -> "Relu"."""
    name = op_name(op)
    return name.split(".", 1)[1] if "." in name else None


def collect(fn: func.FuncOp, inplace: bool = True, concat: bool = True,
            any_op: bool = False) -> Collected:
    """Lifetimes and legal aliasing of every tensor @fn's kernel launches produce.

    any_op=True treats every top-level op (but constants) as a launch, elementwise / concat by
    its name (`cann.Relu`, `cann.ConcatV2D`): an estimate for IR not yet lowered to kernels
    (used by the benchmarks while a model does not reach the kernel level)."""
    block = fn.body.blocks.first
    if block is None:
        return Collected([], [])
    launches: list[Operation] = []
    step_of: dict[Operation, int] = {}
    returned: set[SSAValue] = set()
    bad: list[str] = []
    for op in block.ops:
        if is_kernel(op) or (any_op and not is_constant(op) and not isinstance(op, func.ReturnOp)):
            step_of[op] = len(launches)
            launches.append(op)
        elif isinstance(op, func.ReturnOp):
            returned.update(op.operands)
        elif not is_constant(op):
            bad.append(op.name)
    if bad:
        raise PlanError(f"{', '.join(sorted(set(bad)))} is not a kernel launch; "
                        "run cann-to-kernel before plan-memory")
    c = Collected(launches, [])
    value_tensor: dict[SSAValue, int] = {}
    # a packed launch (compiler/backend/launch_packs.py) is one time slot: its members' inputs
    # live until it ends, its members' outputs from its start
    slot = launch_slots(launches)
    n_steps = slot[-1] + 1 if slot else 0
    for k, op in enumerate(launches):
        for r, res in enumerate(op.results):
            if res in returned or not isinstance(res.type, TensorType):
                continue
            last = slot[k]
            for use in res.uses:
                user = use.operation
                while user is not None and user.parent_op() is not fn:
                    user = user.parent_op()
                if user in step_of:
                    last = max(last, slot[step_of[user]])
                elif user is not None and not isinstance(user, func.ReturnOp):
                    last = n_steps  # used by something we do not order: keep it to the end
            idx = len(c.reqs)
            c.reqs.append(TensorReq(f"{_describe(op, k)} result {r}", tensor_bytes(res.type),
                                    slot[k], last))
            c.result_tensor[(k, r)] = idx
            value_tensor[res] = idx
        ws = workspace_bytes(op)
        if ws:
            idx = len(c.reqs)
            c.reqs.append(TensorReq(f"{_describe(op, k)} workspace", ws, slot[k], slot[k],
                                    kind="workspace"))
            c.workspace_tensor[k] = idx
    c.outputs = len(returned)

    claimed: set[int] = set()  # tensors already a slab of an earlier concat
    if concat:
        for k, op in enumerate(launches):
            if not (is_concat(op) or (any_op and _graph_level_fn(op) in CONCAT_FNS)) \
                    or len(op.results) != 1 or (k, 0) not in c.result_tensor:
                continue
            slabs = concat_slab_offsets(op)
            if slabs is None:
                continue
            out_idx = c.result_tensor[(k, 0)]
            chosen, seen = [], set()
            for v, slab in zip(op.operands, slabs):
                i = value_tensor.get(v)
                if slab is None or i is None or v in seen or i in claimed or slab[0] % SLAB_ALIGN \
                        or (slab[1] and c.reqs[i].end != slot[k]):
                    seen.add(v)
                    continue  # the concat kernel copies this input
                seen.add(v)
                off = slab[0]
                chosen.append((i, off))
                c.allowed[(min(i, out_idx), max(i, out_idx))] = ("concat", off if i < out_idx else -off)
            if chosen:
                c.concat_slabs[k] = chosen
                claimed.update(i for i, _ in chosen)
        # a slicing kernel whose result is a contiguous slab of its operand: a view of it
        for k, op in enumerate(launches):
            view_off = slice_view_offset(op)
            view_out = c.result_tensor.get((k, 0))
            i = value_tensor.get(op.operands[0]) if view_off is not None else None
            if view_off is None or i is None or view_out is None or view_off % SLAB_ALIGN:
                continue
            c.allowed[(min(i, view_out), max(i, view_out))] = ("concat", view_off if view_out < i else -view_off)
            c.views[k] = (view_out, i, view_off)
    if inplace:
        for k, op in enumerate(launches):
            if not (is_elementwise(op) or (any_op and is_pointwise(op))) \
                    or len(op.results) != 1 or (k, 0) not in c.result_tensor:
                continue
            out_idx = c.result_tensor[(k, 0)]
            for v in op.operands:
                i = value_tensor.get(v)
                if i is None or v.type != op.results[0].type or c.reqs[i].end != slot[k] \
                        or _read_by_another_member(v, op, launches, slot, k):
                    continue
                c.allowed[(i, out_idx)] = ("inplace", 0)
    return c


def _read_by_another_member(v: SSAValue, op: Operation, launches: list[Operation],
                            slot: list[int], k: int) -> bool:
    """v is also read by another member of launch k's packed launch (their cores run at the
    same time: writing over v in place would race with that read)."""
    mates = {o for o, s in zip(launches, slot, strict=True) if s == slot[k] and o is not op}
    return any(u.operation in mates for u in v.uses) if mates else False


class _Groups:
    """Tensors sharing one buffer (union-find with offsets): the planner's alias requests.
    A group is one root tensor (alias None) and members at a byte offset within it."""

    def __init__(self, c: Collected, alignment: int = ALIGNMENT):
        self.c = c
        self.alignment = alignment  # the plan's: the root is placed on it
        self.root = list(range(len(c.reqs)))
        self.rel = [0] * len(c.reqs)
        self.members = {i: [i] for i in range(len(c.reqs))}
        self.allowed_of: dict[int, list[tuple[int, int]]] = {}
        for key in c.allowed:
            for t in key:
                self.allowed_of.setdefault(t, []).append(key)

    def merge(self, a: int, b: int, d: int, kind: str) -> bool:
        """Put tensor a at byte d of tensor b (d = 0 and kind "inplace": the same bytes) if
        they are in different groups and the merged group still checks; True if done."""
        ra, rb = self.root[a], self.root[b]
        if ra == rb:
            return False
        # a at rel[b] + d within rb's buffer: ra's root sits at rel[b] + d - rel[a]
        shift = self.rel[b] + d - self.rel[a]
        top, sub, shift = (rb, ra, shift) if shift >= 0 else (ra, rb, -shift)
        moved = self.members.pop(sub)
        for t in moved:
            self.root[t] = top
            self.rel[t] += shift
        self.members[top].extend(moved)
        if self._sound(top):
            self.c.reqs[sub].alias, self.c.reqs[sub].alias_kind = (top, shift), kind
            return True
        for t in moved:  # undo
            self.root[t] = sub
            self.rel[t] -= shift
        del self.members[top][-len(moved):]
        self.members[sub] = moved
        return False

    def _sound(self, g: int) -> bool:
        """The group's members checked against each other (offsets relative to its root, which
        the plan puts on `alignment`) by the same rules as the final plan: a member that is no
        slab (a concat's buffer meeting a wide conv's output on a piece) stays on the grid."""
        members = sorted(self.members[g])  # keeps each pair's order (the sign of d)
        pos = {t: n for n, t in enumerate(members)}
        reqs = [self.c.reqs[t] for t in members]
        offsets = [self.rel[t] for t in members]
        allowed = {}
        for t in members:
            for key in self.allowed_of.get(t, ()):
                if key[0] in pos and key[1] in pos:
                    allowed[(pos[key[0]], pos[key[1]])] = self.c.allowed[key]
        arena = max(o + r.size for o, r in zip(offsets, reqs))
        return not check_plan(reqs, offsets, arena, self.alignment, allowed)


def choose_aliases(c: Collected, inplace: bool = True, concat: bool = True,
                   alignment: int = ALIGNMENT) -> None:
    """Turn the legal overlaps into alias requests, as groups of tensors sharing one buffer.

    Concats first, in program order: each input slab joins its concat's buffer, so a concat of
    a concat (a dense block) nests and the whole chain resolves to one buffer.  Then in-place
    writes: an elementwise result joins the buffer of the operand that dies with it (or that
    operand joins the result's buffer, when the result is already a concat slab: conv -> relu
    -> concat writes all three in one slab).  Every merge is kept only if the merged group
    still passes the overlap checker (e.g. an in-place write over a slab whose concat is still
    live is refused)."""
    for r in c.reqs:
        r.alias, r.alias_kind = None, ""
    groups = _Groups(c, alignment)
    if concat:
        for k in sorted(c.concat_slabs):
            out_idx = c.result_tensor[(k, 0)]
            for i, off in c.concat_slabs[k]:
                if groups.root[i] == i:
                    groups.merge(i, out_idx, off, "concat")
        for k in sorted(c.views):  # a slicing kernel's result as a view of its operand
            out_idx, i, off = c.views[k]  # (a concat slab too: its concat's group joins)
            groups.merge(out_idx, i, off, "concat")
    if inplace:
        taken: set[int] = set()
        for (i, j), (kind, _) in sorted(c.allowed.items(), key=lambda kv: -kv[0][1]):
            if kind != "inplace" or i in taken:
                continue
            if groups.merge(j, i, 0, "inplace"):
                taken.add(i)


def in_place_inputs(c: Collected, offsets: list[int], k: int) -> list[bool]:
    """For concat launch k: which inputs sit in their slab of its result under `offsets` (an
    empty list when k is no concat with slabs).  A concat all of whose inputs do moves no data
    (`mem.elided`)."""
    if k not in c.concat_slabs:
        return []
    op = c.launches[k]
    out = offsets[c.result_tensor[(k, 0)]]
    placed = {i: off for i, off in c.concat_slabs[k]}
    value_of: dict[SSAValue, int] = {}
    for (step, r), ti in c.result_tensor.items():
        value_of[c.launches[step].results[r]] = ti
    slabs = concat_slab_offsets(op) or []
    flags, seen = [], set()
    for v, slab in zip(op.operands, slabs):
        t = value_of.get(v)
        flags.append(slab is not None and t is not None and v not in seen
                     and placed.get(t) == slab[0] and offsets[t] == out + slab[0])
        seen.add(v)
    return flags


def is_view(c: Collected, offsets: list[int], k: int) -> bool:
    """Launch k is a slicing kernel whose result sits on its slab of the operand under
    `offsets`: it moves no data (`mem.elided`)."""
    if k not in c.views:
        return False
    out_idx, i, off = c.views[k]
    return offsets[out_idx] == offsets[i] + off


def _i64s(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def plan_function(fn: func.FuncOp, alignment: int = ALIGNMENT, inplace: bool = True,
                  concat: bool = True, verify: bool = True) -> Plan:
    """Plan @fn and record the plan on it and its launches."""
    c = collect(fn, inplace, concat)
    choose_aliases(c, inplace, concat, alignment)
    plan = plan_tensors(c.reqs, alignment)
    if verify:
        problems = check_plan(c.reqs, plan.offsets, plan.arena, alignment, c.allowed)
        if problems:
            raise PlanError("the memory plan is unsound (a compiler bug): " + problems[0])
    for k, op in enumerate(c.launches):
        offs = [plan.offsets[c.result_tensor[(k, r)]] if (k, r) in c.result_tensor else -1
                for r in range(len(op.results))]
        op.attributes[OFFSETS_ATTR] = _i64s(offs)
        if k in c.workspace_tensor:
            t = c.workspace_tensor[k]
            op.attributes[WORKSPACE_ATTR] = _i64s([plan.offsets[t], c.reqs[t].size])
        else:
            op.attributes.pop(WORKSPACE_ATTR, None)
        flags = in_place_inputs(c, plan.offsets, k) if concat else []
        if (flags and all(flags)) or is_view(c, plan.offsets, k):
            op.attributes[ELIDED_ATTR] = UnitAttr()
        else:
            op.attributes.pop(ELIDED_ATTR, None)
    fn.attributes[PLAN_ATTR] = DictionaryAttr({
        "alignment": IntegerAttr(alignment, i64),
        "arena": IntegerAttr(plan.arena, i64),
        "live_bound": IntegerAttr(plan.live_bound, i64),
        "naive": IntegerAttr(plan.naive, i64),
        "tensors": IntegerAttr(len(c.reqs), i64),
        "inplace": IntegerAttr(plan.inplace, i64),
        "concat_inplace": IntegerAttr(plan.concat_inplace, i64),
    })
    return plan


@dataclass
class RecordedPlan:
    """A plan read back from the IR."""

    collected: Collected
    offsets: list[int]
    arena: int
    alignment: int
    live_bound: int
    naive: int
    info: dict[str, int]


def has_plan(fn: func.FuncOp) -> bool:
    return isinstance(fn.attributes.get(PLAN_ATTR), DictionaryAttr)


def read_plan(fn: func.FuncOp) -> RecordedPlan:
    attr = fn.attributes.get(PLAN_ATTR)
    if not isinstance(attr, DictionaryAttr):
        raise PlanError(f"@{fn.sym_name.data} has no '{PLAN_ATTR}': run plan-memory first")
    info = {k: v.value.data for k, v in attr.data.items() if isinstance(v, IntegerAttr)}
    for key in ("alignment", "arena"):
        if key not in info:
            raise PlanError(f"'{PLAN_ATTR}' lacks '{key}'")
    a = info["alignment"]
    if a <= 0 or a & (a - 1):
        raise PlanError(f"'{PLAN_ATTR}': alignment must be a power of two, got {a}")
    c = collect(fn)
    offsets = [-1] * len(c.reqs)
    for k, op in enumerate(c.launches):
        offs = op.attributes.get(OFFSETS_ATTR)
        if not isinstance(offs, DenseArrayBase):
            raise PlanError(f"{_describe(op, k)} has no '{OFFSETS_ATTR}': run plan-memory again")
        vals = [int(v) for v in offs.get_values()]
        if len(vals) != len(op.results):
            raise PlanError(f"{_describe(op, k)}: '{OFFSETS_ATTR}' has {len(vals)} values for "
                            f"{len(op.results)} results")
        for r, v in enumerate(vals):
            t = c.result_tensor.get((k, r))
            if t is None:
                if v != -1:
                    raise PlanError(f"{_describe(op, k)}: result {r} is a model output; its "
                                    f"offset must be -1, got {v}")
                continue
            offsets[t] = v
        if k in c.workspace_tensor:
            ws = op.attributes.get(WORKSPACE_ATTR)
            vals = [int(v) for v in ws.get_values()] if isinstance(ws, DenseArrayBase) else []
            if len(vals) != 2 or vals[1] != c.reqs[c.workspace_tensor[k]].size:
                raise PlanError(f"{_describe(op, k)}: '{WORKSPACE_ATTR}' must be "
                                f"[offset, {c.reqs[c.workspace_tensor[k]].size}]")
            offsets[c.workspace_tensor[k]] = vals[0]
    return RecordedPlan(c, offsets, info["arena"], info["alignment"], info.get("live_bound", 0),
                        info.get("naive", 0), info)


def check_function(fn: func.FuncOp) -> list[str]:
    """Problems of the plan recorded on @fn (empty: sound), re-derived from the IR alone."""
    try:
        p = read_plan(fn)
    except PlanError as e:
        return [str(e)]
    problems = check_plan(p.collected.reqs, p.offsets, p.arena, p.alignment, p.collected.allowed)
    for k, op in enumerate(p.collected.launches):
        if ELIDED_ATTR in op.attributes and not (
                is_concat(op) and all(in_place_inputs(p.collected, p.offsets, k) or [False])) \
                and not is_view(p.collected, p.offsets, k):
            problems.append(f"{_describe(op, k)} is marked '{ELIDED_ATTR}' but not every input "
                            "sits in its slab of the result")
    return problems
