"""Horizontal launch packing (issue 12): independent ops of @main become one kernel launch.

Every zoo model is launch-bound: the perf report charges LAUNCH_OVERHEAD_US per launch
(compiler/backend/perf_report.py) and most kernels compute in well under that.  Ops with no
data path between them (Inception's branch convs and pool, a shortcut conv beside the main
path's, small vector kernels on 1-4 of the 40 vector cores) still run one after another, each
paying a launch.  XLA's GPU horizontal fusion (`horizontal_loop_fusion` /
`horizontal_input_fusion`) packs such independent kernels into one launch to cut that overhead;
here an Ascend C kernel reads its block index (`GetBlockIdx()`) and runs member i's body on its
own range of cores (that one launch may run different bodies on its core ranges is an
assumption, stated in the perf report).

The mechanism, at the cann level just before cann-to-kernel:
1. Independence: an op may join a pack when no path (through any op, and through the packs
   chosen so far, each contracted to one node) leads from it to a member or back, so the
   contracted graph stays a DAG and one topological order has each pack's members adjacent.
   The graph is the cann graph plus the trial lowering's kernel edges: a kernel that took a
   neighbour in (a MaxPool whose kernel took the residual Add after it as its epilogue) reads
   what that neighbour read (the shortcut conv's result), so its op depends on that reader's
   producer too, though no cann path says so.
2. Costs: a trial lowering of a copy of the module (cann-to-kernel itself) gives every op its
   kernels and their perf-report cost.  Candidates: ops that lower to exactly one launch that
   is not a concat or a slicing view (the memory plan may make those free) and that reads only
   what the op depends on in the cann graph (a kernel that took a neighbour in is emitted at
   that neighbour, not at its op).
3. Packs: members are added in program order while the estimated packed time,
   LAUNCH + max(member compute at its core share, all members' HBM bytes / bandwidth), is
   below the members' separate times.  Core shares: a cube member on b cube cores also holds
   b * vector_cores / cube_cores vector cores (its epilogue runs on the vector cores paired
   with its cube cores: an assumption, 910B pairs one cube with two vector cores per AI core);
   the members' cube cores and vector cores each fit the chip.  The estimate scales a member's
   compute by (cores it used / cores of its share); it only chooses.
4. Exact check: a second trial lowers the members with `cann.core_budget` (tiled for their
   share: a chip profile with that many cores, compiler/target/tiling.py) and keeps a pack only
   when the perf report's cost of the packed launch (perf_report.packed_cost) is below the
   members' separate costs at the full chip, and the tiled members still fit together.
5. The kept packs' members get `cann.pack = N` and their budgets, and @main's ops are
   re-ordered (a stable topological order, each pack's members adjacent), so cann-to-kernel
   emits each pack as a run of kernels with `kernel.pack = N` (compiler/backend/launch_packs.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from compiler.backend.launch_packs import PACK_ATTR as KERNEL_PACK_ATTR
from compiler.target.chips import ChipProfile

PACK_ATTR = "cann.pack"
BUDGET_ATTR = "cann.core_budget"


@dataclass(frozen=True)
class Switch:
    """`LaunchPacking:off` in an ATC fusion switch file turns the packing off."""

    name: str = "LaunchPacking"
    group: str = "GraphFusion"


SWITCH = Switch()


# --- cann-to-kernel's side: a budget per op, the pack id onto its kernels -------------------

def budget_of(op: Operation) -> tuple[int, int] | None:
    a = op.attributes.get(BUDGET_ATTR)
    if isinstance(a, DenseArrayBase):
        c, v = (int(x) for x in a.get_values())
        return c, v
    return None


class _Budgeted(RewritePattern):
    """`inner` applied only to ops whose core budget is `budget`; the top-level kernels it
    inserts get the op's pack id."""

    def __init__(self, inner: RewritePattern, budget: tuple[int, int] | None):
        from compiler.ir.rewriting import pattern_applies_to

        self.inner, self.budget = inner, budget
        self.applies_to = pattern_applies_to(inner)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if budget_of(op) != self.budget:
            return
        pack = op.attributes.get(PACK_ATTR)
        if pack is None:
            self.inner.match_and_rewrite(op, rewriter)
            return
        block = op.parent
        added: list[Operation] = []
        handler = added.append
        rewriter.operation_insertion_handler.append(handler)
        try:
            self.inner.match_and_rewrite(op, rewriter)
        finally:
            rewriter.operation_insertion_handler.remove(handler)
        for o in added:
            if o.parent is block and o.name.startswith("kernel."):
                o.attributes[KERNEL_PACK_ATTR] = pack


def lower_packed(module: ModuleOp, chip: ChipProfile, failures: list, impl) -> None:
    """cann-to-kernel's rewrite when ops carry budgets or pack ids: each budget's ops with a
    chip profile of that many cores, then the rest with the full chip."""
    from compiler.conversions.cann_to_kernel import host_ops, lowering_patterns
    from compiler.ir.rewriting import rewrite, rewrite_ops

    budgets = sorted({b for o in host_ops(module) if (b := budget_of(o)) is not None})
    for cube, vector in budgets:
        sub = dataclasses.replace(chip, cube_cores=min(cube, chip.cube_cores),
                                  vector_cores=min(vector, chip.vector_cores))
        # only this budget's ops on the worklist: the patterns act at no other op (_Budgeted);
        # no budgeted op is inside a kernel's body (host_ops leaves the bodies out)
        seeds = [o for o in host_ops(module) if budget_of(o) == (cube, vector)]
        rewrite_ops(module, seeds, [_Budgeted(p, (cube, vector))
                                    for p in lowering_patterns(sub, failures, impl=impl)])
    rewrite(module, [_Budgeted(p, None) for p in lowering_patterns(chip, failures, impl=impl)],
            recursive=False)


# --- the planner ------------------------------------------------------------------------------

@dataclass
class Member:
    index: int  # position in @main's block
    unit: str
    cores: int
    compute_us: float
    memory_us: float
    total_us: float


@dataclass
class Pack:
    members: list[Member]
    shares: list[int] = field(default_factory=list)
    estimate_us: float = 0.0


def _main_ops(module: ModuleOp) -> list[Operation]:
    from compiler.ir.entry import main_func

    block = main_func(module).body.blocks.first
    return [] if block is None else [o for o in block.ops if not isinstance(o, func.ReturnOp)]


def _preds(ops: list[Operation]) -> list[set[int]]:
    """The ops of @main each op reads (by index)."""
    pos = {o: k for k, o in enumerate(ops)}
    out: list[set[int]] = []
    for o in ops:
        out.append({d for v in o.operands if isinstance(v.owner, Operation)
                    and (d := pos.get(v.owner)) is not None})
    return out


class _Packing:
    """The graph of @main's ops with the packs chosen so far contracted to one node each, and
    what every node reaches (bitsets): an op may join a pack only when neither reaches the other,
    so the contracted graph stays a DAG."""

    def __init__(self, preds: list[set[int]]):
        self.preds = preds
        self.node = list(range(len(preds)))  # op -> its pack's node (its first member)
        self._reach()

    def _reach(self) -> None:
        n = len(self.preds)
        succ: list[set[int]] = [set() for _ in range(n)]
        for k, ps in enumerate(self.preds):
            for d in ps:
                if self.node[d] != self.node[k]:
                    succ[self.node[d]].add(self.node[k])
        nodes = sorted(set(self.node))
        indeg = {v: 0 for v in nodes}
        for v in nodes:
            for t in succ[v]:
                indeg[t] += 1
        ready = [v for v in nodes if indeg[v] == 0]
        order: list[int] = []  # a topological order of the contracted graph (Kahn)
        while ready:
            v = ready.pop()
            order.append(v)
            for t in succ[v]:
                indeg[t] -= 1
                if indeg[t] == 0:
                    ready.append(t)
        assert len(order) == len(nodes), "launch packing: the packs made a cycle"
        reach = [0] * n
        for v in reversed(order):
            r = 0
            for s in succ[v]:
                r |= reach[s] | (1 << s)
            reach[v] = r
        self.reach = reach

    def independent(self, a: int, b: int) -> bool:
        na, nb = self.node[a], self.node[b]
        return not (self.reach[na] >> nb) & 1 and not (self.reach[nb] >> na) & 1

    def merge(self, a: int, b: int) -> None:
        """Contract the nodes of a and b (independent) into a's.  The closure is updated in
        place, as `_reach` would recompute it: a path through the merged node enters it at
        one of the two and leaves it from one of the two, so a node reaching either now
        reaches both one's and the other's reach, and the merged node reaches the union."""
        na, nb = self.node[a], self.node[b]
        if na == nb:
            return
        for k, v in enumerate(self.node):
            if v == nb:
                self.node[k] = na
        reach = self.reach
        union = reach[na] | reach[nb]
        reach[na], reach[nb] = union, 0
        both, bit_b, add = (1 << na) | (1 << nb), ~(1 << nb), union | (1 << na)
        for v, r in enumerate(reach):
            if r & both:
                reach[v] = (r & bit_b) | add


def _trial(module: ModuleOp, lower: Callable[[ModuleOp], None],
           budgets: dict[int, tuple[int, int]],
           order: list[int] | None = None) -> tuple[ModuleOp, list[list[Operation]]] | None:
    """A copy of the module lowered with every op tagged by its index (and `budgets`), and the
    kernels each op became, by index; None when the copy does not lower.  `order`: the copy's
    @main ops are first put in that order (indices into @main's ops, a topological order)."""
    from compiler.backend.launch_packs import pack_id
    from compiler.ir.build import clone

    copy = clone(module)
    ops = _main_ops(copy)
    for k, o in enumerate(ops):
        o.attributes[PACK_ATTR] = IntegerAttr(k, i64)
        if k in budgets:
            o.attributes[BUDGET_ATTR] = DenseArrayBase.from_list(i64, list(budgets[k]))
    if order is not None:
        _place(ops, order)
    try:
        lower(copy)
    except Exception:  # noqa: BLE001 - the real lowering reports the error
        return None
    out: list[list[Operation]] = [[] for _ in ops]
    for o in _main_ops(copy):
        p = pack_id(o)
        if p is not None and 0 <= p < len(out):
            out[p].append(o)
    return copy, out


def _kernel_preds(kernels: list[list[Operation]]) -> list[set[int]]:
    """The ops (by index) whose kernels each op's kernels read, in a trial lowering."""
    from compiler.backend.launch_packs import pack_id

    out: list[set[int]] = []
    for k, ks in enumerate(kernels):
        out.append({t for o in ks for v in o.operands if isinstance(v.owner, Operation)
                    and (t := pack_id(v.owner)) is not None and t != k and 0 <= t < len(kernels)})
    return out


def _topological(preds: list[set[int]]) -> list[int] | None:
    """A topological order of the graph (Kahn, smallest index first), None when it has a cycle."""
    import heapq

    succs: list[list[int]] = [[] for _ in preds]
    indeg = [len(ps) for ps in preds]
    for k, ps in enumerate(preds):
        for d in ps:
            succs[d].append(k)
    ready = [k for k, d in enumerate(indeg) if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for s in succs[v]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, s)
    return order if len(order) == len(preds) else None


def _ancestors(preds: list[set[int]], order: list[int]) -> list[int]:
    """Each node's ancestors (a bitset), walking `order` (topological)."""
    anc = [0] * len(preds)
    for k in order:
        for d in preds[k]:
            anc[k] |= anc[d] | (1 << d)
    return anc


def _same_edges(kernels: list[Operation], preds: int) -> bool:
    """The kernels an op became read only what the op depends on (a bitset of its ancestors in
    the cann graph).  A lowering that took a neighbour in, e.g. a conv taking the residual Add
    after it as its epilogue, reads a value the op does not depend on: not a candidate (its
    kernel is emitted at the neighbour).  Who reads the op's kernels needs no check: the
    packing graph has the kernel edges (a consumer that took the op's reader in is a
    dependent there)."""
    from compiler.backend.launch_packs import pack_id

    mine = set(kernels)
    for o in kernels:
        for v in o.operands:
            d = v.owner
            if isinstance(d, Operation) and d not in mine and (t := pack_id(d)) is not None \
                    and not (preds >> t) & 1:
                return False
    return True


def _member(k: int, kernels: list[Operation], chip: ChipProfile, preds: int) -> Member | None:
    from compiler.backend import memory_plan as mp
    from compiler.backend.perf_report import kernel_cost
    from dialects.kernel import ViewOp

    live = [o for o in kernels if not isinstance(o, ViewOp)]
    if len(live) != 1 or mp.is_control(live[0]) or mp.is_concat(live[0]) \
            or mp.slice_view_offset(live[0]) is not None or mp.workspace_bytes(live[0]) \
            or not _same_edges(kernels, preds):
        return None
    c = kernel_cost(live[0], 0, chip)
    if c.unit not in ("cube", "vector"):
        return None
    return Member(k, c.unit, max(c.cores, 1), c.compute_us, c.memory_us, c.total_us)


def _vector_per_cube(chip: ChipProfile) -> int:
    return max(1, chip.vector_cores // max(chip.cube_cores, 1))


def _shares(members: list[Member], chip: ChipProfile) -> list[int] | None:
    """Cores for each member minimizing the slowest estimated member (one more core at a time to
    the slowest that can take one), or None when the members cannot all have one."""
    r = _vector_per_cube(chip)
    shares = [1] * len(members)

    def used() -> tuple[int, int]:
        cube = sum(s for s, m in zip(shares, members, strict=True) if m.unit == "cube")
        vec = sum(s for s, m in zip(shares, members, strict=True) if m.unit == "vector")
        return cube, vec + r * cube

    def est(i: int) -> float:
        m = members[i]
        return m.compute_us * m.cores / min(shares[i], m.cores)

    cube, vec = used()
    if cube > chip.cube_cores or vec > chip.vector_cores:
        return None
    while True:
        order = sorted(range(len(members)), key=est, reverse=True)
        for i in order:
            if shares[i] >= members[i].cores:
                continue
            shares[i] += 1
            cube, vec = used()
            if cube <= chip.cube_cores and vec <= chip.vector_cores:
                break
            shares[i] -= 1
        else:
            return shares
        if est(order[0]) == 0:
            return shares


def _estimate(members: list[Member], shares: list[int], launch_us: float) -> float:
    compute = max(m.compute_us * m.cores / min(s, m.cores) for m, s in zip(members, shares, strict=True))
    return launch_us + max(compute, sum(m.memory_us for m in members))


def plan_packs(preds: list[set[int]], cands: list[Member], chip: ChipProfile,
               launch_us: float) -> list[Pack]:
    """Packs of independent candidates: greedily, in program order, a candidate joins the pack
    of an earlier one while the estimate beats the separate launches and neither reaches the
    other in the graph `preds` (through the packs already made)."""
    g = _Packing(preds)
    left = list(cands)
    out: list[Pack] = []
    while len(left) >= 2:
        pack = [left[0]]
        shares = [left[0].cores]
        for m in left[1:]:
            if not g.independent(pack[0].index, m.index):
                continue
            trial = [*pack, m]
            s = _shares(trial, chip)
            if s is None:
                continue
            if _estimate(trial, s, launch_us) < _estimate(pack, shares, launch_us) + m.total_us:
                pack, shares = trial, s
                g.merge(pack[0].index, m.index)
        if len(pack) > 1:
            out.append(Pack(pack, shares, _estimate(pack, shares, launch_us)))
        left = [m for m in left if m not in pack]
    return out


def _reorder(n: int, deps: list[set[int]], groups: list[list[int]]) -> list[int]:
    """A topological order of the n ops of the graph `deps` (what each op depends on, by
    index), as close to program order as possible, with the ops of each group adjacent (the
    groups were chosen so that the order exists)."""
    import heapq

    node = list(range(n))  # op index -> node id (a group's node: its first member's index)
    for g in groups:
        for k in g:
            node[k] = min(g)
    members: dict[int, list[int]] = {}
    for k in range(n):
        members.setdefault(node[k], []).append(k)
    preds: dict[int, set[int]] = {v: set() for v in members}
    for k, ds in enumerate(deps):
        for d in ds:
            if node[d] != node[k]:
                preds[node[k]].add(node[d])
    succs: dict[int, list[int]] = {v: [] for v in members}
    for v, ps in preds.items():
        for p in ps:
            succs[p].append(v)
    indeg = {v: len(ps) for v, ps in preds.items()}
    ready = [v for v, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        v = heapq.heappop(ready)
        order += members[v]
        for s in succs[v]:
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, s)
    if len(order) != n:
        raise AssertionError("launch packing: the packs would make a cycle")
    return order


def pack_launches(module: ModuleOp, chip: ChipProfile, lower: Callable[[ModuleOp], None],
                  launch_us: float | None = None,
                  lowered: Callable[[ModuleOp], None] | None = None) -> list[str]:
    """Mark and order @main's packs (see the module docstring); returns one report line per
    kept or refused pack.  `lowered` is given a trial copy that is `module`, as this leaves
    it, lowered by `lower`: when no pack is kept (the module left as it was), the first
    trial's copy, its ops and kernels tagged with `cann.pack` / `kernel.pack` = the op's index;
    when every proposed pack is kept and the module's new order is the one the tiled trial was
    lowered in, the tiled trial's copy, its tags made the kept packs' ids."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US, kernel_cost, packed_cost
    from compiler.ir.diagnostics import node_name

    launch = LAUNCH_OVERHEAD_US if launch_us is None else launch_us
    ops = _main_ops(module)
    if len(ops) < 2:
        return []
    trial = _trial(module, lower, {})
    if trial is None:
        return []
    copy, full = trial

    def keep(m: ModuleOp, packs: dict[int, int] | None = None) -> None:
        if lowered is not None:
            _retag(m, packs or {})
            lowered(m)
    preds = _preds(ops)
    anc = _ancestors(preds, list(range(len(ops))))  # program order is topological
    deps = [p | q for p, q in zip(preds, _kernel_preds(full), strict=True)]
    if _topological(deps) is None:
        keep(copy)
        return ["pack-launches: the trial lowering's kernel edges make a cycle: nothing packed"]
    cands = [m for k, kernels in enumerate(full)
             if (m := _member(k, kernels, chip, anc[k])) is not None]
    proposed = plan_packs(deps, cands, chip, launch)
    if not proposed:
        keep(copy)
        return []
    budgets: dict[int, tuple[int, int]] = {}
    r = _vector_per_cube(chip)
    for p in proposed:
        for m, s in zip(p.members, p.shares, strict=True):
            budgets[m.index] = (s, s * r) if m.unit == "cube" else (1, s)
    # the tiled trial is lowered in the order the module gets if every pack is kept (with the
    # kernel edges known so far): it is then the lowering itself (`keep`)
    groups = [[m.index for m in p.members] for p in proposed]
    spec_order = _reorder(len(ops), deps, groups)
    tiled_trial = _trial(module, lower, budgets, spec_order)
    if tiled_trial is None:
        keep(copy)
        return ["pack-launches: the tiled trial did not lower: nothing packed"]
    tiled = tiled_trial[1]
    deps = [p | q for p, q in zip(deps, _kernel_preds(tiled), strict=True)]
    if _topological(deps) is None:
        keep(copy)
        return ["pack-launches: the tiled trial's kernel edges make a cycle: nothing packed"]
    graph = _Packing(deps)  # the kept packs contracted, with the tiled lowering's kernel edges too
    lines: list[str] = []
    kept: list[list[int]] = []
    for p in proposed:
        names = ", ".join(f"'{(node_name(ops[m.index]) or ops[m.index].name).split('+')[-1]}'"
                          for m in p.members)
        ks = [tiled[m.index] for m in p.members]
        live = [[o for o in k if o.name != "kernel.view"] for k in ks]
        if any(len(k) != 1 for k in live):
            lines.append(f"pack-launches: not packed {names}: a member's tiled lowering is not one kernel")
            continue
        costs = [kernel_cost(k[0], 0, chip, launch) for k in live]
        cube = sum(c.cores for c in costs if c.unit == "cube")
        vec = sum(c.cores for c in costs if c.unit == "vector") + r * cube
        packed = packed_cost(costs, chip).total_us
        separate = sum(m.total_us for m in p.members)
        if cube > chip.cube_cores or vec > chip.vector_cores or packed >= separate:
            lines.append(f"pack-launches: not packed {names}: {packed:.3f} us packed vs "
                         f"{separate:.3f} us separate")
            continue
        first = p.members[0].index
        if not all(graph.independent(first, m.index) for m in p.members[1:]):
            lines.append(f"pack-launches: not packed {names}: the tiled kernels depend on each other")
            continue
        for m in p.members[1:]:
            graph.merge(first, m.index)
        kept.append([m.index for m in p.members])
        lines.append(f"pack-launches: packed {names} into one launch on "
                     + " + ".join(f"{c.cores} {c.unit}" for c in costs)
                     + f" cores: {packed:.3f} us vs {separate:.3f} us separate")
    for n, g in enumerate(kept):
        for k in g:
            ops[k].attributes[PACK_ATTR] = IntegerAttr(n, i64)
            ops[k].attributes[BUDGET_ATTR] = DenseArrayBase.from_list(i64, list(budgets[k]))
    if not kept:
        keep(copy)
        return lines
    order = _reorder(len(ops), deps, kept)
    _place(ops, order)
    if order == spec_order and kept == groups:
        # every proposed pack kept, in the order the tiled trial was lowered in: the tiled
        # trial is the lowering of the module as it is now, once its ops' and kernels' index
        # tags are the kept packs' ids
        keep(tiled_trial[0], {k: n for n, g in enumerate(kept) for k in g})
    return lines


def _place(ops: list[Operation], order: list[int]) -> None:
    """Put @main's `ops` (its ops but the return, in block order) in `order` (indices)."""
    block = ops[0].parent
    assert block is not None
    ret = block.last_op
    for k in order:
        o = ops[k]
        o.detach()
        block.insert_op_before(o, ret) if ret is not None else block.add_op(o)


def _retag(lowered: ModuleOp, packs: dict[int, int]) -> None:
    """A trial lowering's tags (op k's kernels `kernel.pack = k`, op k `cann.pack = k`) made
    the real lowering's: pack `packs[k]` on the kernels and ops of a packed op k, no pack (and
    no core budget on an op) elsewhere."""
    from compiler.ir.entry import main_func

    block = main_func(lowered).body.blocks.first
    assert block is not None
    for o in block.ops:
        for name in (PACK_ATTR, KERNEL_PACK_ATTR):
            a = o.attributes.get(name)
            if not isinstance(a, IntegerAttr):
                continue
            n = packs.get(a.value.data)
            if n is not None:
                o.attributes[name] = IntegerAttr(n, i64)
                continue
            del o.attributes[name]
            if name == PACK_ATTR:
                o.attributes.pop(BUDGET_ATTR, None)
