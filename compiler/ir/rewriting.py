"""Small helpers the rewrite patterns share: locations of replaced and fused ops, the pattern
walker, and dead-op erasure (xDSL's DCE)."""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import ArrayAttr, FusedLoc, LocationAttr, ModuleOp, NoneAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern

from compiler.ir.typed import loc_parts

_OpT = TypeVar("_OpT", bound=Operation)


def with_loc(new: _OpT, *sources: Operation) -> _OpT:
    """Give `new` the location of the op(s) it replaces (a fused location for several); a
    diagnostic about `new` then also gives the line:col of the first of them."""
    from compiler.ir.diagnostics import record_origin

    if sources:
        record_origin(new, sources[-1])
    locs: list[LocationAttr] = []
    for s in sources:
        for p in loc_parts(s.location):
            if not isinstance(p, UnknownLoc) and p not in locs:
                locs.append(p)
    if len(locs) == 1:
        new.location = locs[0]
    elif locs:
        new.location = FusedLoc(ArrayAttr(locs), NoneAttr())
    return new


def rewrite(module: ModuleOp, patterns: list[RewritePattern], recursive: bool = True) -> bool:
    """Apply patterns with a walker; never deletes unused ops behind the patterns' backs.

    xDSL's applier would erase every unused pure op before any pattern sees it (its DCE): tf ops
    are Pure, so tf-to-cann would then report no node whose result nothing reads, and
    cann-to-kernel would lower (and diagnose) no such op.  A pass that wants its dead ops gone
    calls `erase_dead` after the walk."""
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False),
        apply_recursively=recursive,
    )
    return walker.rewrite_module(module)


def erase_dead(root: Operation, only: tuple[type[Operation], ...] = ()) -> bool:
    """Erase the ops under `root` that nothing reads and that have no other effect (Pure ops,
    transitively), as xDSL's DCE decides (`is_trivially_dead`): a worklist from the last op
    back, each erased op's operand producers checked again (the result of xDSL's `region_dce`
    on this acyclic IR, without its liveness sweeps over every op).  `only`: erase just ops of
    these types (a pass cleaning up what it made, leaving other unused ops to later passes and
    their diagnostics).  True if anything was erased."""
    from xdsl.transforms.dead_code_elimination import is_trivially_dead

    erased: set[Operation] = set()
    work = [op for op in root.walk() if op is not root]  # popped from the end: last op first
    while work:
        op = work.pop()
        if op in erased or op.parent is None or (only and not isinstance(op, only)) \
                or not is_trivially_dead(op):
            continue
        producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        erased.update(op.walk())
        op.parent.erase_op(op)
        work.extend(producers)
    return bool(erased)
