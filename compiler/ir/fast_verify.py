"""A fast path for verifying one op: the checks of xDSL's `Operation.verify` (with
`verify_nested_ops=False`) and of the op's IRDL definition (`OpDef.verify`), compiled once per
op class.

`OpDef.verify` walks the definition on every call (the variadic sizes recomputed from the
options, each operand's range constraint run through a fresh context, every trait's `verify`
called, `IsolatedFromAbove` walking the op's whole body); on a kernel-level module of ~10^4
small ops that is a fifth of a compile.  `checker(cls)` reads the definition once: the counts
of operands, results, regions and successors it allows, for each operand / result / property /
attribute / region entry the constraint when it is not trivially satisfied (`AnyAttr`), as an
isinstance test memoized per attribute type when the constraint is one (`BaseAttr`, or a
constraint offering `type_only_bases`), else the constraint's own `verify`; the traits whose
`verify` does something; the op's custom `verify_`.  The checker answers True only when every
check xDSL would run passes; on False (or on an exception) the caller runs xDSL's own
`op.verify`, so a message is always exactly xDSL's.  A class the checker cannot follow exactly
(segment-size options, several variadics, constraints with variables, a `verify` or `verify_`
that is not xDSL's, an unregistered op) gets no checker: xDSL's verify runs.

`IsolatedFromAbove` is checked for the whole module in the one walk of `isolation_problems`:
each op's operands against the innermost isolated op that encloses it (the op whose trait's
walk would reach it), which is what each isolated op's own `verify` checks, without walking a
body once per enclosing isolated op."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Block, BlockArgument, Operation, OpResult
from xdsl.ir.core import ErasedSSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import (
    AnyAttr,
    AttrConstraint,
    BaseAttr,
    EqIntConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    VerificationContext,
)
from xdsl.irdl.operations import (
    AttrSizedSegments,
    OpDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    OptSingleBlockRegionDef,
    SingleBlockRegionDef,
    VariadicDef,
    VarSingleBlockRegionDef,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException

#: an attribute check: True when the constraint holds
_Check = Callable[[object], bool]

#: op class -> its checker, or None when xDSL's verify must run
_CHECKERS: dict[type, Callable[[Operation], bool] | None] = {}


class _Unsupported(Exception):
    """The definition uses something the checker does not reproduce exactly."""


def _type_check(bases: tuple[type, ...]) -> _Check:
    memo: dict[type, bool] = {}

    def check(attr: object) -> bool:
        t = type(attr)
        got = memo.get(t)
        if got is None:
            got = memo[t] = isinstance(attr, bases)
        return got
    return check


def _attr_check(constr: AttrConstraint, bases: tuple[type, ...] | None = None) -> _Check | None:
    """A check of one attribute against `constr` (None: always holds)."""
    if bases is not None:
        return _type_check(bases)
    if type(constr) is AnyAttr:
        return None
    if type(constr) is BaseAttr:
        return _type_check((constr.attr,))
    only = getattr(constr, "type_only_bases", None)
    if only is not None:
        return _type_check(tuple(only))
    if constr.variables():
        raise _Unsupported
    return _verifies(constr)


def _verifies(constr) -> _Check:
    """The check that runs the constraint's own verify (a constraint without a faster form)."""
    def check(value: object) -> bool:
        try:
            constr.verify(value, VerificationContext())
        except VerifyException:
            return False
        return True
    return check


def _range_check(constr: RangeConstraint, single: bool) -> tuple[_Check | None, bool]:
    """(check, per element): a check of each element of the range, or of the whole range."""
    if type(constr) is RangeOf:
        return _attr_check(constr.constr), True
    if (single and type(constr) is RangeLengthConstraint and type(constr.constraint) is RangeOf
            and type(constr.length) is EqIntConstraint and constr.length.value == 1):
        return _attr_check(constr.constraint.constr), True  # a single value: length 1
    if constr.variables() or constr.variables_from_length():
        raise _Unsupported
    return _verifies(constr), False


def _types_ok(check: _Check, per: bool, types) -> bool:
    """A range check on `types`: each element (`per`) or the whole range at once."""
    return all(check(t) for t in types) if per else check(types)


def _count(defs: Sequence[tuple[str, object]]) -> tuple[int, int, bool]:
    """(number of definitions, index of the variadic one or -1, whether it is optional);
    verify_variadic_same_size's rule for at most one variadic."""
    variadic = [k for k, (_, d) in enumerate(defs) if isinstance(d, VariadicDef)]
    if len(variadic) > 1:
        raise _Unsupported
    k = variadic[0] if variadic else -1
    return len(defs), k, k >= 0 and isinstance(defs[k][1], OptionalDef)


def _count_ok(length: int, n: int, var: int, opt: bool) -> bool:
    if var < 0:
        return length == n
    if opt:
        return length in (n, n - 1)
    return length >= n - 1


def _groups(length: int, n: int, var: int) -> list[tuple[int, int]]:
    """[start, end) of each definition's values (a single variadic takes the rest)."""
    if var < 0:
        return [(i, i + 1) for i in range(n)]
    extra = length - n  # the variadic holds extra + 1 values
    out = [(i, i + 1) for i in range(var)]
    out.append((var, var + extra + 1))
    out += [(i + extra, i + extra + 1) for i in range(var + 1, n)]
    return out


def _values_check(defs: Sequence[tuple[str, object]], kind: str
                  ) -> Callable[[Sequence], bool]:
    """A check of an op's operands or results (their count and types)."""
    n, var, opt = _count(defs)
    checks = [_range_check(d.constr, not isinstance(d, VariadicDef))  # type: ignore[attr-defined]
              for _, d in defs]
    if all(c is None for c, _ in checks):
        if kind == "operand":
            return lambda values: _count_ok(len(values), n, var, opt) and _not_erased(values)
        return lambda values: _count_ok(len(values), n, var, opt)
    if any(c is not None and not per for c, per in checks):
        def check(values: Sequence) -> bool:
            length = len(values)
            if not _count_ok(length, n, var, opt):
                return False
            if kind == "operand" and not _not_erased(values):
                return False
            for (start, end), (c, per) in zip(_groups(length, n, var), checks):
                if c is None:
                    continue
                if not _types_ok(c, per, [v.type for v in values[start:end]]):
                    return False
            return True
        return check
    # per-element checks: the definitions before a variadic one by index, those after it by
    # index from the end, the variadic one over the rest
    head = [(i, c) for i, (c, _) in enumerate(checks) if c is not None and (var < 0 or i < var)]
    tail = [(i - n, c) for i, (c, _) in enumerate(checks) if c is not None and 0 <= var < i]
    middle = checks[var][0] if var >= 0 else None
    after = n - var - 1

    def check_each(values: Sequence) -> bool:
        length = len(values)
        if not _count_ok(length, n, var, opt):
            return False
        if kind == "operand" and not _not_erased(values):
            return False
        types = [v.type for v in values]
        for i, c in head:
            if not c(types[i]):
                return False
        for i, c in tail:
            if not c(types[i]):
                return False
        if middle is not None:
            for t in types[var:length - after]:
                if not middle(t):
                    return False
        return True
    return check_each


_PLAIN_VALUES: set[type] = {OpResult, BlockArgument}


def _not_erased(values: Sequence) -> bool:
    for v in values:
        t = type(v)
        if t not in _PLAIN_VALUES:
            if isinstance(v, ErasedSSAValue):
                return False
            _PLAIN_VALUES.add(t)
    return True


def _regions_check(op_def: OpDef) -> Callable[[Sequence], bool]:
    defs = op_def.regions
    if not defs:
        return lambda regions: not regions
    n, var, opt = _count(defs)
    single = [isinstance(d, (SingleBlockRegionDef, VarSingleBlockRegionDef, OptSingleBlockRegionDef))
              for _, d in defs]
    entries = [_range_check(d.entry_args, False) for _, d in defs]

    def check(regions: Sequence) -> bool:
        if not _count_ok(len(regions), n, var, opt):
            return False
        for (start, end), one, (c, per) in zip(_groups(len(regions), n, var), single, entries):
            for r in regions[start:end]:
                first = r.first_block
                if one and (first is None or first is not r.last_block):
                    return False
                if c is not None and first is not None and not _types_ok(c, per, first.arg_types):
                    return False
        return True
    return check


def _generated_verify(cls: type[IRDLOperation]) -> tuple[OpDef, Callable | None]:
    """The op definition and the custom `verify_` the class's IRDL `verify_` runs."""
    fn = cls.__dict__.get("verify_")
    code = getattr(fn, "__code__", None)
    if fn is None or code is None or fn.__qualname__ != "get_accessors_from_op_def.<locals>.verify_":
        raise _Unsupported
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
    op_def = cells.get("op_def")
    if op_def is not cls.get_irdl_definition():
        raise _Unsupported
    return op_def, cells.get("custom_verify")


def _compile(cls: type) -> Callable[[Operation], bool]:
    if not issubclass(cls, IRDLOperation):
        raise _Unsupported
    from dialects.common import EnumProperties, enum_properties  # here: dialects.common imports compiler.ir

    if cls.verify is EnumProperties.verify:
        enums = enum_properties(cls)
    elif cls.verify is Operation.verify:
        enums = {}
    else:
        raise _Unsupported
    op_def, custom = _generated_verify(cls)
    if op_def.successors or any(isinstance(o, AttrSizedSegments) for o in op_def.options):
        raise _Unsupported
    operands = _values_check(op_def.operands, "operand")
    results = _values_check(op_def.results, "result")
    regions = _regions_check(op_def)
    props = [(name, isinstance(d, OptPropertyDef),
              _attr_check(d.constr, (enums[name],) if name in enums else None))
             for name, d in op_def.properties.items()]
    attrs = [(name, isinstance(d, OptAttributeDef), _attr_check(d.constr))
             for name, d in op_def.attributes.items()]
    traits = [t for t in op_def.traits
              if type(t).verify is not OpTrait.verify and type(t) is not IsolatedFromAbove]
    terminator = cls.has_trait(IsTerminator)

    def check(op: Operation) -> bool:
        if op._successors or not operands(op._operands) or not results(op.results):
            return False
        if not terminator and not _terminator_ok(op):
            return False
        if not regions(op.regions):
            return False
        present = 0
        properties = op.properties
        for name, optional, c in props:
            if name not in properties:
                if not optional:
                    return False
                continue
            present += 1
            if c is not None and not c(properties[name]):
                return False
        if present != len(properties):
            return False
        attributes = op.attributes
        for name, optional, c in attrs:
            if name not in attributes:
                if not optional:
                    return False
            elif c is not None and not c(attributes[name]):
                return False
        for t in traits:
            t.verify(op)
        if custom is not None:
            custom(op)
        return True
    return check


def _terminator_ok(op: Operation) -> bool:
    """Operation.verify's rule for an op that is not a terminator: it must not end a block of
    a region that needs one."""
    block = op.parent
    if block is None or block.last_op is not op:
        return True
    region = block.parent
    if region is None:
        return True
    if region.first_block is region.last_block:
        parent = region.parent
        return parent is None or parent.has_trait(NoTerminator)
    return False


def checker(cls: type) -> Callable[[Operation], bool] | None:
    """The fast check of ops of class `cls` (None: run xDSL's verify)."""
    try:
        return _CHECKERS[cls]
    except KeyError:
        pass
    try:
        got: Callable[[Operation], bool] | None = _compile(cls)
    except _Unsupported:
        got = None
    _CHECKERS[cls] = got
    return got


def passes(op: Operation) -> bool:
    """True when xDSL's `op.verify(verify_nested_ops=False)` would pass, except for the
    IsolatedFromAbove trait (see `isolation_problems`); False when it may not."""
    check = checker(type(op))
    if check is None:
        return False
    try:
        return check(op)
    except Exception:  # xDSL's verify reports it
        return False


_ISOLATED: dict[type, bool] = {}


def is_isolated(op: Operation) -> bool:
    cls = type(op)
    got = _ISOLATED.get(cls)
    if got is None:
        got = _ISOLATED[cls] = cls.has_trait(IsolatedFromAbove)
    return got


def _inside(x: Operation, owner: Operation | Block) -> bool:
    """IsolatedFromAbove.verify's test: `owner` is strictly inside `x`."""
    return owner is not x and x.is_ancestor(owner)


def isolation_problems(module: Operation, order: list[Operation] | None = None) -> set[int]:
    """ids of the isolated ops whose IsolatedFromAbove check fails: an op they enclose (not
    through another isolated op) uses a value defined outside them.  `order`, when given,
    receives the ops in `module.walk()`'s order."""
    bad: set[int] = set()
    scope: dict[int, Operation | None] = {}  # id(op) -> the innermost isolated op around it
    seen = order.append if order is not None else None

    def visit(op: Operation, x: Operation | None) -> None:
        scope[id(op)] = x
        if seen is not None:
            seen(op)
        if x is not None:
            for v in op._operands:
                if type(v) is OpResult:
                    if scope.get(id(v.op), op) is x:
                        continue
                    owner: Operation | Block = v.op
                elif type(v) is BlockArgument:
                    p = v.block.parent_op()
                    if p is x or (p is not None and scope.get(id(p), op) is x):
                        continue
                    owner = v.block
                else:
                    owner = v.owner
                if not _inside(x, owner):
                    bad.add(id(x))
        inner = op if is_isolated(op) else x
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    visit(child, inner)

    visit(module, None)
    return bad
