"""Small helpers the rewrite patterns share: locations of replaced and fused ops, the pattern
walker, and dead-op erasure (xDSL's DCE)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects.builtin import ArrayAttr, FusedLoc, LocationAttr, ModuleOp, NoneAttr, UnknownLoc
from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from compiler.ir.typed import array_of, loc_parts

_OpT = TypeVar("_OpT", bound=Operation)


def with_loc(new: _OpT, *sources: Operation) -> _OpT:
    """Give `new` the location of the op(s) it replaces (a fused location for several); a
    diagnostic about `new` then also gives the line:col of the first of them."""
    with_locs([new], *sources)
    return new


def with_locs(news: Sequence[Operation], *sources: Operation) -> None:
    """`with_loc` for each op of `news`, the location built once."""
    from compiler.ir.diagnostics import record_origin

    if sources:
        for new in news:
            record_origin(new, sources[-1])
    locs: list[LocationAttr] = []
    for s in sources:
        for p in loc_parts(s.location):
            if not isinstance(p, UnknownLoc) and p not in locs:
                locs.append(p)
    if not locs:
        return
    if len(locs) == 1:
        loc = locs[0]
    elif len(sources) == 1 and isinstance(own := sources[0].location, FusedLoc) \
            and isinstance(own.metadata, NoneAttr) and len(array_of(own.locations)) == len(locs):
        loc = own  # already the fused location of its parts (none dropped): no new attribute
    else:
        loc = FusedLoc(ArrayAttr(locs), NoneAttr())
    for new in news:
        new.location = loc


def pattern_applies_to(pattern: RewritePattern) -> Callable[[type[Operation]], bool]:
    """Which op classes `pattern` can rewrite at (a test of the class, never of one op): its
    `applies_to(cls)` when it has one (a pattern that checks the op's class itself, e.g. its
    kind), else the op type of an `op_type_rewrite_pattern`'s annotation, else every class."""
    own = getattr(pattern, "applies_to", None)
    if own is not None:
        return own
    fn = getattr(type(pattern), "match_and_rewrite", None)
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None)
    if code is not None and cells and getattr(fn, "__qualname__", "") == "op_type_rewrite_pattern.<locals>.impl":
        # (xDSL's decorator closes over the annotated type and tests isinstance before the call)
        free = dict(zip(code.co_freevars, (c.cell_contents for c in cells), strict=True))
        expected = free.get("expected_type")
        if expected is not None:
            return lambda cls: issubclass(cls, expected)
    return lambda cls: True


def roots(*classes: type[Operation]) -> staticmethod:
    """A pattern's `applies_to` for a pattern that only rewrites instances of `classes`:
    `applies_to = roots(cann.MulOp, cann.AddOp)` in its class body."""
    return staticmethod(lambda cls: issubclass(cls, classes))


class _ByClassApplier(RewritePattern):
    """xDSL's GreedyRewritePatternApplier without its DCE and folding: the patterns in order
    until one acts, each tried only at ops of a class it applies to (`pattern_applies_to`),
    the list per class made once - so a walk costs per op, not per (op, pattern)."""

    def __init__(self, patterns: list[RewritePattern]):
        self.patterns = patterns
        self.tests = [pattern_applies_to(p) for p in patterns]
        self.by_class: dict[type[Operation], list[RewritePattern]] = {}

    def for_class(self, cls: type[Operation]) -> list[RewritePattern]:
        got = self.by_class.get(cls)
        if got is None:
            got = self.by_class[cls] = [p for p, t in zip(self.patterns, self.tests, strict=True)
                                        if t(cls)]
        return got

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for pattern in self.for_class(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


class _Walker(PatternRewriteWalker):
    """xDSL's PatternRewriteWalker (same worklist, same order, same listeners), skipping the
    ops no pattern applies to: they are not put on the worklist, and popping one resets no
    rewriter."""

    pattern: _ByClassApplier

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        for_class, push = self.pattern.for_class, self._worklist.push
        for sub_op in op.walk(reverse=not self.walk_reverse, region_first=not self.walk_regions_first):
            if for_class(type(sub_op)):
                push(sub_op)

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        worklist, for_class = self._worklist, self.pattern.for_class
        done = False
        rewriter: PatternRewriter | None = None
        while worklist:
            op = worklist.pop()
            patterns = for_class(type(op))
            if not patterns:
                continue
            if rewriter is None:
                rewriter = PatternRewriter(op)
                rewriter.extend_from_listener(listener)
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            rewriter.name_hint = None
            try:
                for pattern in patterns:
                    pattern.match_and_rewrite(op, rewriter)
                    if rewriter.has_done_action:
                        break
            except Exception as err:  # (as xDSL's walker: the error names the op)
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            done |= rewriter.has_done_action
        return done


class _SeededWalker(_Walker):
    """A non-recursive _Walker whose worklist starts with given ops instead of every op."""

    seeds: Sequence[Operation] = ()

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        for_class, push = self.pattern.for_class, self._worklist.push
        for sub_op in reversed(self.seeds):  # a stack: the first seed is popped first
            if for_class(type(sub_op)):
                push(sub_op)


def rewrite_ops(module: ModuleOp, ops: Sequence[Operation], patterns: list[RewritePattern]) -> bool:
    """`rewrite(module, patterns, recursive=False)` with only `ops` on the worklist, in that
    order (module.walk()'s).  A non-recursive walk tries each op of its worklist once and pushes
    nothing, so when no pattern acts at any other op this does the same rewrites as the walk
    over every op, without visiting the others."""
    walker = _SeededWalker(_ByClassApplier(patterns), apply_recursively=False)
    walker.seeds = ops
    return walker.rewrite_module(module)


def rewrite(module: ModuleOp, patterns: list[RewritePattern], recursive: bool = True) -> bool:
    """Apply patterns with a walker; never deletes unused ops behind the patterns' backs.

    xDSL's applier would erase every unused pure op before any pattern sees it (its DCE): tf ops
    are Pure, so tf-to-cann would then report no node whose result nothing reads, and
    cann-to-kernel would lower (and diagnose) no such op.  A pass that wants its dead ops gone
    calls `erase_dead` after the walk.  The walk is xDSL's (PatternRewriteWalker with a
    GreedyRewritePatternApplier), each pattern tried only at the op classes it applies to
    (`pattern_applies_to`)."""
    walker = _Walker(_ByClassApplier(patterns), apply_recursively=recursive)
    return walker.rewrite_module(module)


#: op class -> whether an op of it has no effect but its results (xDSL's
#: `would_be_trivially_dead` is then true of every op of the class: memory-effect traits that
#: are all NoMemoryEffect's own, no terminator, no symbol); a class's traits are fixed when it
#: is defined
_EFFECT_FREE_CLASS: dict[type[Operation], bool] = {}


def _effect_free_class(cls: type[Operation]) -> bool:
    from xdsl.dialects.builtin import UnregisteredOp
    from xdsl.traits import IsTerminator, MemoryEffect, NoMemoryEffect, SymbolOpInterface

    if issubclass(cls, UnregisteredOp):
        return False
    effects = cls.get_traits_of_type(MemoryEffect)  # type: ignore[type-abstract]
    own = NoMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]
    return bool(effects) and all(
        getattr(type(t).get_effects, "__func__", None) is own for t in effects) \
        and not cls.has_trait(IsTerminator) and not cls.has_trait(SymbolOpInterface)


def is_dead(op: Operation) -> bool:
    """xDSL's `is_trivially_dead(op)`, the class's answer to its effects memoized."""
    if any(r.first_use is not None for r in op.results):
        return False
    cls = type(op)
    free = _EFFECT_FREE_CLASS.get(cls)
    if free is None:
        free = _EFFECT_FREE_CLASS[cls] = _effect_free_class(cls)
    if free:
        return True
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

    return would_be_trivially_dead(op)


def erase_dead(root: Operation, only: tuple[type[Operation], ...] = ()) -> bool:
    """Erase the ops under `root` that nothing reads and that have no other effect (Pure ops,
    transitively), as xDSL's DCE decides (`is_trivially_dead`): a worklist from the last op
    back, each erased op's operand producers checked again (the result of xDSL's `region_dce`
    on this acyclic IR, without its liveness sweeps over every op).  `only`: erase just ops of
    these types (a pass cleaning up what it made, leaving other unused ops to later passes and
    their diagnostics).  True if anything was erased."""
    erased: set[Operation] = set()
    # Popped from the end: last op first.  An op whose result is read is not dead: it is left
    # out here (the test is_trivially_dead makes first, without its call), and comes back as a
    # producer when its last reader goes (a reader nested in an erased op's regions included).
    work = [op for op in root.walk() if op is not root
            and not any(r.first_use is not None for r in op.results)]
    while work:
        op = work.pop()
        if op in erased or op.parent is None or (only and not isinstance(op, only)) \
                or not is_dead(op):
            continue
        inside = list(op.walk())
        producers = [v.owner for o in inside for v in o.operands if isinstance(v.owner, Operation)]
        erased.update(inside)
        op.parent.erase_op(op)
        work.extend(producers)
    return bool(erased)
