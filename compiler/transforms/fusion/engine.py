"""The fusion engine: rules compiled to xDSL rewrite patterns, applied greedily by priority.

Each `Rule` becomes a `RulePattern` (an xDSL `RewritePattern`): at a candidate root op it
enumerates the structural matches of the rule's DAG (backtracking over commutative operands),
checks the constraints in order (the implicit no-external-consumer constraints first, then the
`require`s, then acyclicity), and on the first match that passes builds the replacement.

`run_rules` applies the rules rule by rule in priority order (higher first; ties in file order),
each over the whole function, and repeats until nothing changes: a higher-priority rule always
sees (and may consume) the ops before a lower-priority one does.  Every rejected structural
candidate is recorded (rule, root, node, failed constraint) for the fusion report.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnregisteredOp,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.irdl import OptOperandDef, VarOperandDef
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from compiler.ir.diagnostics import CompileError, node_name, one_line
from compiler.ir.fast_verify import passes
from compiler.ir.rewriting import with_loc, with_locs
from compiler.ir.typed import parent_block_of
from compiler.transforms.fusion.helpers import full_name, short_name
from compiler.transforms.fusion.language import Expr, Rule, Stmt
from dialects.op_kinds import launches_kernel


def is_kernel(op: Operation) -> bool:
    """A cann op that launches a device kernel: not a view, not a constant (its kind trait)."""
    return launches_kernel(op)


def count_kernels(root: Operation) -> int:
    """Kernel launches: the ops inside a cann.FusedKernel body are that one kernel, and a
    FusedKernel that is a cube op's epilogue or its convs' prologue, or a depthwise conv run in
    its 1x1 reader's A tiles, or a conv computed in its reader conv's window (conv_stage.py), is
    part of that op's kernel."""
    from compiler.transforms.fusion.auto import epilogue_host, is_prologue
    from compiler.transforms.fusion.conv_stage import is_staged_conv
    from compiler.transforms.fusion.depthwise import is_depthwise_prologue
    from compiler.transforms.fusion.mean_prologue import is_mean_prologue
    from compiler.transforms.fusion.row_epilogue import row_epilogue_of
    from dialects.cann import FusedKernelOp

    return sum(1 for op in root.walk() if is_kernel(op)
               and not isinstance(op.parent_op(), FusedKernelOp) and epilogue_host(op) is None
               and not is_prologue(op) and not is_depthwise_prologue(op) and not is_staged_conv(op)
               and row_epilogue_of(op) is None and not is_mean_prologue(op))


def describe(op: Operation) -> str:
    n = node_name(op)
    return f"{short_name(op)} '{n}'" if n else short_name(op)


def _nbytes(v: SSAValue) -> int:
    t = v.type
    if not isinstance(t, TensorType):
        return 0
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return 0
    try:
        from dialects.common import numpy_dtype

        size = numpy_dtype(t.element_type).itemsize
    except ValueError:
        size = 4
    return math.prod(shape) * size if shape else size


@dataclass
class Rejection:
    rule: str
    root: str
    node: str
    constraint: str
    detail: str = ""


@dataclass
class Stats:
    matches: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)
    hbm_bytes_saved: dict[str, int] = field(default_factory=dict)
    inactive: dict[str, str] = field(default_factory=dict)
    _seen: set = field(default_factory=set)

    def reject(self, rule: str, root: Operation, node: str, constraint: str, detail: str = ""):
        key = (rule, id(root), node, constraint)
        if key in self._seen:
            return
        self._seen.add(key)
        self.rejections.append(Rejection(rule, describe(root), node, constraint, detail))


class _Failed(Exception):
    def __init__(self, node: str, constraint: str, detail: str = ""):
        self.node, self.constraint, self.detail = node, constraint, detail


def _value(x: Any) -> Any:
    if isinstance(x, Operation):
        return x.results[0]
    return x


#: op class -> (how its operands map to pattern positions, its operand definitions' names):
#: "flat" (the operand list: not a registered IRDL op), "variadic" (one variadic definition:
#: the operand list), "none" (a variadic among others: no positions), "single" (single
#: operands only: the operand list), "one_optional" (one optional operand, at the plan's index,
#: among single ones: the operand list, None at that index when the list is one short),
#: "named" (several optional operands: by name)
_OPERAND_PLAN: dict[type[Operation], tuple[str, tuple[str, ...], int]] = {}


def _operand_plan(cls: type[Operation]) -> tuple[str, tuple[str, ...], int]:
    from xdsl.irdl import IRDLOperation

    plan = _OPERAND_PLAN.get(cls)
    if plan is None:
        if not issubclass(cls, IRDLOperation) or cls.name.startswith("builtin.unregistered"):
            plan = ("flat", (), -1)
        else:
            defs = cls.get_irdl_definition().operands
            names = tuple(name for name, _ in defs)
            if len(defs) == 1 and isinstance(defs[0][1], VarOperandDef):
                plan = ("variadic", names, -1)
            elif any(isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef)
                     for _, d in defs):
                plan = ("none", names, -1)
            elif sum(isinstance(d, OptOperandDef) for _, d in defs) == 1:
                # one optional operand among single ones: present exactly when the operand
                # list is full (xDSL gives it what the single operands leave)
                k = next(i for i, (_, d) in enumerate(defs) if isinstance(d, OptOperandDef))
                plan = ("one_optional", names, k)
            elif any(isinstance(d, OptOperandDef) for _, d in defs):
                plan = ("named", names, -1)
            else:
                plan = ("single", names, -1)
        _OPERAND_PLAN[cls] = plan
    return plan


def operand_values(op: Operation, n: int) -> list[SSAValue | None] | None:
    """The op's operands as n pattern positions: one per operand definition of a registered op
    (an absent optional operand is None, wherever it sits), else the flat operand list.  None
    when the op does not have that shape.  (How a class's operands map is found once per
    class: `_operand_plan`.)"""
    kind, names, opt = _operand_plan(type(op))
    if kind == "variadic":
        # one variadic operand (e.g. FusedKernel's inputs): matched by position, at most n of them
        # (missing trailing positions are None: only optional operands `v?` accept them)
        ops = list(op.operands)
        return ops + [None] * (n - len(ops)) if len(ops) <= n else None
    if kind == "none":
        return None  # variadic operands are not matched by position
    if kind == "flat":
        ops = list(op.operands)
        if len(ops) > n:
            return None
        return ops + [None] * (n - len(ops))
    vals: list[SSAValue | None] = list(op.operands)
    if kind == "one_optional" and len(vals) == len(names) - 1:
        vals.insert(opt, None)
    elif kind == "one_optional" and len(vals) == len(names):
        pass
    elif kind != "single" or len(vals) != len(names):
        vals = [getattr(op, name) for name in names]
    if len(vals) > n:
        if any(v is not None for v in vals[n:]):
            return None
        vals = vals[:n]
    return vals + [None] * (n - len(vals))


class RulePattern(RewritePattern):
    """One compiled rule.  Usable in any xDSL walker; `run_rules` drives it by priority."""

    def __init__(self, rule: Rule, ctx: Context, stats: Stats):
        self.rule = rule
        self.ctx = ctx
        self.stats = stats
        self.nodes = {n.name: n for n in rule.nodes}
        self.internal = [n for n in rule.nodes[:-1] if not n.shared]
        #: node name -> the nodes its operands name (each must produce one of its operands)
        self.producers = {n.name: [self.nodes[p.name] for p in n.operands if p.name in self.nodes]
                          for n in rule.nodes}
        #: op -> position in walk order, set by `run_rules` (None: used standalone; `_OpIndex`
        #: keeps it).  Ops created since it was computed may have no entry; the relative order
        #: of the others never changes during fusion (ops are only inserted before a root and
        #: erased).
        self.positions: dict[Operation, float] | None = None

    # --- matching ----------------------------------------------------------------------------

    def matches(self, root: Operation) -> Iterator[dict[str, Any]]:
        yield from self._node(self.rule.root, root, {})

    def _node(self, node, op: Operation, env: dict[str, Any]) -> Iterator[dict[str, Any]]:
        bound = env.get(node.name)
        if bound is not None:
            if bound is op:
                yield env
            return
        if full_name(op) not in node.ops or op.name.startswith("func."):
            return
        if any(v is op for k, v in env.items() if k in self.nodes):
            return  # one op cannot be two nodes
        pats = node.operands
        vals = operand_values(op, len(pats))
        if vals is None:
            return
        if any(v is None and not p.optional for p, v in zip(pats, vals)):
            return
        env = dict(env)
        env[node.name] = op
        orders = [list(range(len(pats)))]
        if node.commutative and len(pats) == 2:
            orders.append([1, 0])
        for order in orders:
            yield from self._operands(pats, [vals[i] for i in order], 0, env)

    def _operands(self, pats, vals, i, env) -> Iterator[dict[str, Any]]:
        if i == len(pats):
            yield env
            return
        p, v = pats[i], vals[i]
        if p.name is None:
            yield from self._operands(pats, vals, i + 1, env)
            return
        if p.name in self.nodes:
            if v is None or (type(v) is not OpResult and not isinstance(v, OpResult)) or v.index != 0:
                return
            for env2 in self._node(self.nodes[p.name], v.owner, env):
                yield from self._operands(pats, vals, i + 1, env2)
            return
        if p.name in env:
            if env[p.name] is not v:
                return
            yield from self._operands(pats, vals, i + 1, env)
            return
        env = dict(env)
        env[p.name] = v
        yield from self._operands(pats, vals, i + 1, env)

    def may_match(self, op: Operation, node, depth: int = 3) -> bool:
        """A necessary condition of a structural match of `node` at `op`, cheap to test: the
        op's name is one of the node's, and each node the node's operands name is the op name
        of some operand's producer (result #0) where it may match in turn (`depth` levels
        down).  A structural mismatch records no rejection: a root this rejects is one
        `matches` yields nothing for."""
        if full_name(op) not in node.ops:
            return False
        subs = self.producers[node.name]
        if not subs or depth == 0:
            return True
        operands = op.operands
        for sub in subs:
            for v in operands:
                if (type(v) is OpResult or isinstance(v, OpResult)) and v.index == 0 \
                        and self.may_match(v.owner, sub, depth - 1):
                    break
            else:
                return False
        return True

    # --- constraints ----------------------------------------------------------------------------

    def _node_of(self, expr: Expr) -> str:
        return expr.names[0] if expr.names else self.rule.root.name

    def check(self, env: dict[str, Any]) -> None:
        matched = {id(env[n.name]) for n in self.rule.nodes}
        for n in self.internal:
            op = env[n.name]
            for r in op.results:
                for use in r.uses:
                    if id(use.operation) not in matched:
                        raise _Failed(n.name, f"no_external_consumer({n.name})",
                                      f"also used by {describe(use.operation)}")
        for c in self.rule.constraints:
            try:
                ok = c.expr.fn(env)
            except Exception as e:  # noqa: BLE001 - a helper that cannot apply fails its constraint
                raise _Failed(self._node_of(c.expr), c.expr.text, f"{type(e).__name__}: {e}") from None
            if isinstance(ok, np.ndarray):
                ok = bool(ok.all())
            if not ok:
                raise _Failed(self._node_of(c.expr), c.expr.text)
        self.check_acyclic(env)

    def check_acyclic(self, env: dict[str, Any]) -> None:
        """No path may leave the matched set and re-enter it (through a leaf operand)."""
        ops = [env[n.name] for n in self.rule.nodes]
        matched = {id(o) for o in ops}
        leaf_producers = {}
        for name, v in env.items():
            # (`v is None` first: a negative isinstance against the SSAValue ABC walks all of
            # its subclasses, milliseconds each time the ABC caches were invalidated)
            if name in self.nodes or v is None or not isinstance(v, SSAValue):
                continue
            if isinstance(v, OpResult) and id(v.owner) not in matched:
                leaf_producers[id(v.owner)] = name
        if not leaf_producers:
            return
        stack = [u.operation for o in ops for r in o.results for u in r.uses
                 if id(u.operation) not in matched]
        # A path back into the match runs through ops before a leaf producer, hence before
        # the root (every leaf feeds a matched op, every matched op feeds the root): ops after
        # the root cannot be on one, so the search never walks the rest of the graph.
        pos, limit = self.positions, None
        if pos is not None:
            o = env[self.rule.root.name]
            while o is not None and o not in pos:
                o = o.next_op
            limit = pos[o] if o is not None else None
        seen: set[int] = set()
        while stack:
            op = stack.pop()
            if id(op) in seen:
                continue
            seen.add(id(op))
            if limit is not None and pos is not None:
                p = pos.get(op)
                if p is not None and p >= limit:
                    continue
            if id(op) in leaf_producers:
                raise _Failed(leaf_producers[id(op)], "acyclic",
                              f"'{leaf_producers[id(op)]}' depends on the matched ops through "
                              f"{describe(op)}")
            for r in op.results:
                stack.extend(u.operation for u in r.uses)

    # --- rewriting ------------------------------------------------------------------------------

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        found = self.first_match(op)
        if found is not None:
            self.apply(found[0], op, found[1], rewriter)

    def first_match(self, op: Operation) -> tuple[dict[str, Any], list[Operation]] | None:
        """(env, replacement ops) of the first match at root `op` that passes the constraints
        and builds (each failure recorded in the stats); None when there is none.  The IR is
        not changed (`apply` does that)."""
        if not self.may_match(op, self.rule.root):
            return None
        for env in self.matches(op):
            try:
                self.check(env)
                new_ops = self.build(env)
            except _Failed as f:
                self.stats.reject(self.rule.name, op, f.node, f.constraint, f.detail)
                continue
            return env, new_ops
        return None

    def _op_class(self, name: str):
        cls = self.ctx.get_optional_op(name)
        if cls is None:
            raise _Failed(self.rule.root.name, "replacement",
                          f"replacement op {name} is not registered")
        return cls

    def build(self, env: dict[str, Any]) -> list[Operation]:
        env = dict(env)
        root = env[self.rule.root.name]
        new_ops: list[Operation] = []
        for st in self.rule.replacement:
            try:
                op = self._build_stmt(st, env, root, new_ops)
            except (_Failed, CompileError):
                raise
            except Exception as e:  # noqa: BLE001
                raise _Failed(self.rule.root.name, f"replacement {short_name_of(st.op)}",
                              f"{type(e).__name__}: {e}") from None
            new_ops.append(op)
            if st.name is not None:
                env[st.name] = op.results[0]
        return new_ops

    def _build_stmt(self, st: Stmt, env, root: Operation, new_ops: list[Operation]) -> Operation:
        from dialects.cann import ConstOp
        from dialects.common import dense_from_numpy

        cls = self._op_class(st.op)
        opdef = cls.get_irdl_definition()
        args = []
        for a in st.args:
            v = _value(a.fn(env))
            if isinstance(v, np.ndarray):
                c = ConstOp(dense_from_numpy(np.ascontiguousarray(v)))
                new_ops.append(c)
                v = c.output
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                c = ConstOp(dense_from_numpy(np.asarray(v, dtype=np.float32)))
                new_ops.append(c)
                v = c.output
            args.append(v)
        defs = opdef.operands
        if len(args) > len(defs):
            raise ValueError(f"{st.op} takes {len(defs)} operands, got {len(args)}")
        operands: list[Any] = []
        for i, (_, d) in enumerate(defs):
            v = args[i] if i < len(args) else None
            if isinstance(d, (OptOperandDef, VarOperandDef)):
                if v is None:
                    operands.append([])
                elif isinstance(v, (list, tuple)):
                    operands.append(list(v))
                else:
                    operands.append([v])
            else:
                if v is None:
                    raise ValueError(f"{st.op}: operand '{defs[i][0]}' is required")
                operands.append(v)
        props: dict[str, Attribute] = {}
        prop_names = set(opdef.properties)
        for name, expr, src in st.attrs:
            if src is not None:
                sop = env[src]
                for pn, a in [*sop.properties.items(), *sop.attributes.items()]:
                    if pn in prop_names and pn not in props:
                        props[pn] = a
                continue
            if name not in prop_names:
                raise ValueError(f"{st.op} has no attribute '{name}'")
            if expr is None:  # (the parser gives every attribute not copied its expression)
                raise ValueError(f"{st.op}: attribute '{name}' has no value")
            val = expr.fn(env)
            if val is None:
                props.pop(name, None)
                continue
            props[name] = to_attr(val, props.get(name))
        if st.result_type is not None:
            t = st.result_type.fn(env)
            t = _value(t)
            rtype = t.type if isinstance(t, SSAValue) else t
        else:
            rtype = root.results[0].type
        op = cls(operands=operands, result_types=[rtype], properties=props)
        if not op.regions and passes(op):  # (the fast check of one op: compiler/ir/fast_verify)
            return op
        try:  # an invalid replacement is the rule file's mistake: name it, not the model
            op.verify()
        except VerifyException as e:
            msg = one_line(str(e).removeprefix("Operation does not verify: "))
            raise CompileError(f"{st.source or self.rule.source}: error: rule {self.rule.name}: "
                               f"the replacement {st.op} does not verify: {msg}") from None
        return op

    def apply(self, env: dict[str, Any], root: Operation, new_ops: list[Operation],
              rewriter: PatternRewriter) -> None:
        matched = [env[n.name] for n in self.rule.nodes]
        pos = self.positions
        if pos is not None and all(o in pos for o in matched):
            matched.sort(key=pos.__getitem__)
        else:
            block = root.parent_block()
            order = {id(o): i for i, o in enumerate(block.ops)} if block is not None else {}
            matched.sort(key=lambda o: order.get(id(o), 0))
        final = new_ops[-1]
        with_locs(new_ops, *matched)
        rewriter.insert(new_ops, InsertPoint.before(root))
        saved = 0
        for r, nr in zip(root.results, final.results):
            rewriter.replace_all_uses_with(r, nr)
        rewriter.erase(root)
        for o in reversed(matched[:-1] if matched[-1] is root else matched):
            if o is root or o.parent is None:
                continue
            if all(not r.uses for r in o.results):
                saved += sum(2 * _nbytes(r) for r in o.results)
                rewriter.erase(o)
        self.stats.matches[self.rule.name] = self.stats.matches.get(self.rule.name, 0) + 1
        self.stats.hbm_bytes_saved[self.rule.name] = \
            self.stats.hbm_bytes_saved.get(self.rule.name, 0) + saved


def short_name_of(name: str) -> str:
    return name.split(".", 1)[1] if name.startswith("cann.") else name


def to_attr(v: Any, like: Attribute | None = None) -> Attribute:
    """A Python value as an attribute (shaped like `like`, the attribute it overrides, if any)."""
    if isinstance(v, Attribute):
        return v
    if isinstance(v, bool):
        return IntegerAttr(int(v), 1)
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, (int, np.integer)):
        if isinstance(like, IntegerAttr):
            return IntegerAttr(int(v), like.type)
        return IntegerAttr(int(v), i64)
    if isinstance(v, (float, np.floating)):
        if isinstance(like, FloatAttr):
            return FloatAttr(float(v), like.type)
        return FloatAttr(float(v), f32)
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
            return DenseArrayBase.from_list(i64, [int(x) for x in v])
        return ArrayAttr([to_attr(x) for x in v])
    raise ValueError(f"cannot make an attribute from {v!r}")


def forward_see_through(block_root: Operation, names: set[str]) -> int:
    """Forward ops that run no kernel and only pass values on (Identity, IdentityN, ...)."""
    n = 0
    for op in list(block_root.walk()):
        if full_name(op) in names and len(op.operands) == len(op.results):
            for r, v in zip(op.results, op.operands):
                r.replace_all_uses_with(v)
            op.detach()
            op.erase()
            n += 1
    return n


def dead_code(block_root: Operation) -> None:
    """Erase cann ops whose results are unused (the folded constants, seen-through views):
    xDSL's DCE (compiler/ir/rewriting.erase_dead)."""
    from compiler.ir.rewriting import erase_dead

    erase_dead(block_root)


#: rules with a lower priority run in a second phase, after the others reached their fixpoint
LATE_PRIORITY = 10


def run_rules(module: Operation, rules: list[Rule], ctx: Context, stats: Stats,
              max_rounds: int = 8) -> None:
    """Greedy by priority: rule by rule (higher priority first) over the whole module, until
    a round changes nothing."""
    ordered = sorted(enumerate(rules), key=lambda t: (-t[1].priority, t[0]))
    patterns = [RulePattern(r, ctx, stats) for _, r in ordered]
    for p in patterns:
        for st in p.rule.replacement:
            if ctx.get_optional_op(st.op) is None:
                stats.inactive[p.rule.name] = f"replacement op {st.op} is not registered"
    active = [p for p in patterns if p.rule.name not in stats.inactive]
    # Ops by name (and walk positions), kept across rewrites (`_OpIndex`): each rule visits
    # the ops of its root names, in walk order, as they were when it started - what a walk of
    # the whole module per rule gave, without the walk.  A rule that matched nothing is not
    # run again until some rule changed the module (`_Progress`).
    # Rules below LATE_PRIORITY (the elementwise chains) only start once the others have
    # reached their fixpoint: they must not take ops a higher rule would fuse in a later round.
    early = [p for p in active if p.rule.priority >= LATE_PRIORITY]
    phases = [early, active] if len(early) < len(active) else [active]
    index, progress = _OpIndex(module, active), _Progress()
    try:
        for phase in phases:
            _run_phase(index, phase, progress, max_rounds)
    finally:
        for p in active:
            p.positions = None


class _OpIndex:
    """The module's ops by name and their walk positions, kept up to date across rewrites
    instead of rebuilt by a walk after each rule that changed the module.

    A rewrite only inserts ops right before its root and erases ops (`RulePattern.apply`):
    each new op gets a position between the op before it and the root; an erased op is left
    in the index and skipped (its parent is None).  When no position fits in between (the
    root begins its block, the op before it has regions, the gap is spent) the index is
    rebuilt by a walk when next read."""

    def __init__(self, module: Operation, patterns: list[RulePattern]):
        self.module = module
        self.patterns = patterns
        self.by_name: dict[str, list[Operation]] = {}
        self.pos: dict[Operation, float] = {}
        #: names with ops added since their list was last in walk order
        self.unsorted: set[str] = set()
        self.stale = True

    def ops(self, names: tuple[str, ...]) -> list[Operation]:
        """The live ops of these names, in walk order."""
        if self.stale:
            self._rebuild()
        roots = set(names)
        for name in roots & self.unsorted:
            live = [o for o in self.by_name[name] if o.parent is not None]
            live.sort(key=self.pos.__getitem__)
            self.by_name[name] = live
            self.unsorted.discard(name)
        todo = [o for name in roots for o in self.by_name.get(name, ()) if o.parent is not None]
        if len(roots) > 1:
            todo.sort(key=self.pos.__getitem__)
        return todo

    def _rebuild(self) -> None:
        by_name: dict[str, list[Operation]] = {}
        pos: dict[Operation, float] = {}
        for k, o in enumerate(self.module.walk()):
            by_name.setdefault(full_name(o), []).append(o)
            pos[o] = k
        self.by_name, self.pos, self.stale = by_name, pos, False
        self.unsorted.clear()
        for q in self.patterns:
            q.positions = pos

    def inserted(self, new_ops: list[Operation], root: Operation) -> None:
        """`new_ops` were inserted right before `root`, in order."""
        if self.stale:
            return
        pos = self.pos
        prev = new_ops[0].prev_op
        hi = pos.get(root)
        lo = pos.get(prev) if prev is not None and not prev.regions else None
        if hi is None or lo is None or any(o.regions for o in new_ops):
            self.stale = True
            return
        step = (hi - lo) / (len(new_ops) + 1)
        last = lo
        for k, o in enumerate(new_ops, 1):
            p = lo + step * k
            if not last < p < hi:  # (no float left in between)
                self.stale = True
                return
            pos[o] = last = p
        for o in new_ops:
            name = full_name(o)
            self.by_name.setdefault(name, []).append(o)
            self.unsorted.add(name)


@dataclass
class _Progress:
    """How the module changed: `version` counts the rule runs that rewrote it; `idle[id(p)]` is
    the version at which rule p last ran over the module and matched nothing.  Run again at
    that version - the same module - it would match nothing again: it is not run."""

    version: int = 0
    idle: dict[int, int] = field(default_factory=dict)


def _run_phase(index: _OpIndex, phase: list[RulePattern], progress: _Progress,
               max_rounds: int) -> None:
    """Rule by rule of `phase` over the whole module, until a round changes nothing."""
    for _ in range(max_rounds):
        changed = False
        for p in phase:
            if progress.idle.get(id(p)) == progress.version:
                continue
            rule_changed = False
            for op in index.ops(p.rule.root_ops):
                if op.parent is None:
                    continue
                found = p.first_match(op)  # (a rewriter only for the roots that match)
                if found is None:
                    continue
                rewriter = PatternRewriter(op)
                p.apply(found[0], op, found[1], rewriter)
                index.inserted(found[1], op)
                if rewriter.has_done_action:
                    rule_changed = True
            if rule_changed:
                changed = True
                progress.version += 1
            else:
                progress.idle[id(p)] = progress.version
        if not changed:
            break


def fold_constants(root: Operation) -> int:
    """Replace the FoldedInFusion elementwise cann ops whose operands are all compile-time
    constants (fusion's `const_value`), and the AlwaysFolded ops (tensors made from constant
    scalars, by the one constant evaluator), by a cann.Const (GE's constant folding): they would
    otherwise launch a kernel at run time."""
    from compiler.interpreters.constant_eval import constant_value
    from compiler.transforms.fusion.helpers import const_value
    from dialects.cann import AlwaysFolded, ConstOp, FoldedInFusion, format_of
    from dialects.common import dense_from_numpy, numpy_dtype

    n = 0
    for op in list(root.walk()):
        if isinstance(op, UnregisteredOp) or op.parent is None or len(op.results) != 1:
            continue  # (an unregistered op says it has every trait)
        always = op.has_trait(AlwaysFolded)
        if not always and not op.has_trait(FoldedInFusion):
            continue
        r = op.results[0]
        if not isinstance(r.type, TensorType) or format_of(r.type) is not None:
            continue  # (already in a device layout)
        a = constant_value(r) if always else const_value(r)
        if a is None:
            continue
        c = ConstOp(dense_from_numpy(np.ascontiguousarray(a.astype(numpy_dtype(r.type.element_type)))))
        if c.output.type != r.type:
            continue
        with_loc(c, op)
        block = parent_block_of(op)
        block.insert_op_before(c, op)
        r.replace_all_uses_with(c.output)
        op.detach()
        op.erase()
        n += 1
    return n
