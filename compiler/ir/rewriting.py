"""Small helpers the rewrite patterns share: locations of replaced and fused ops."""

from __future__ import annotations

from xdsl.dialects.builtin import FusedLoc, NoneAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern


def with_loc(new: Operation, *sources: Operation) -> Operation:
    """Give `new` the location of the op(s) it replaces (a fused location for several); a
    diagnostic about `new` then also gives the line:col of the first of them."""
    from compiler.ir.diagnostics import record_origin

    if sources:
        record_origin(new, sources[-1])
    locs = []
    for s in sources:
        loc = s.location
        parts = loc.locations.data if isinstance(loc, FusedLoc) else (loc,)
        for p in parts:
            if not isinstance(p, UnknownLoc) and p not in locs:
                locs.append(p)
    if len(locs) == 1:
        new.location = locs[0]
    elif locs:
        new.location = FusedLoc(locs, NoneAttr())
    return new


def rewrite(module: Operation, patterns: list[RewritePattern], recursive: bool = True) -> bool:
    """Apply patterns with a walker; never deletes unused ops behind the patterns' backs."""
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns, dce_enabled=False),
        apply_recursively=recursive,
    )
    return walker.rewrite_module(module)
