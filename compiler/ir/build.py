"""build(OpClass, ...): the op IRDL's builder (`OpClass(operands=..., ...)`) makes, built in a
fifth of its time.

`IRDLOperation.__init__` (xDSL's irdl_op_init) walks the op definition on every call: each
operand, result, region and successor argument checked against its definition, Operations
turned into their results, lists flattened, the segment-size property built.  A lowering that
builds ~10^4 kernel-body ops (cann-to-kernel on a NAS-cell CNN) spends a third of its time
there.  `build` reads the definition once per op class (which arguments are variadic, which
segment sizes the op records) and then only flattens the lists and calls `Operation.create`: the
same operands, result types, properties in the same order (None dropped, the segment sizes
last), attributes and regions, and the same `__post_init__`.  Anything the plan does not cover
(successors, a region given as ops or blocks, an Operation as an operand, a None argument, a
count that does not match the definition) goes to the IRDL builder itself, which builds it or
raises its own error.  Nothing is checked that the builder would check and the verifier would
not: the module is verified after the pass as before."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC, DenseArrayBase, LocationAttr, i32
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation
from xdsl.irdl.operations import (
    AttrSizedOperandSegments,
    AttrSizedRegionSegments,
    AttrSizedResultSegments,
    AttrSizedSegments,
    AttrSizedSuccessorSegments,
    SameVariadicSize,
    VariadicDef,
)

_OpT = TypeVar("_OpT", bound=IRDLOperation)

_Plan = tuple[tuple[bool, ...], tuple[bool, ...], tuple[bool, ...], "str | None"]

#: op class -> (variadic flags of operands, of results, of regions, operand segments' property
#: container ("properties" / "attributes" / None)), or None when the op needs IRDL's builder
_PLANS: dict[type, _Plan | None] = {}

#: segment sizes -> their DenseArrayBase (immutable: one per distinct tuple)
_SIZES: dict[tuple[int, ...], DenseArrayBase] = {}


def _plan(cls: type[IRDLOperation]) -> _Plan | None:
    op_def = cls.get_irdl_definition()
    segments: str | None = None
    for option in op_def.options:
        if isinstance(option, AttrSizedOperandSegments):
            segments = "properties" if option.as_property else "attributes"
        elif isinstance(option, (AttrSizedResultSegments, AttrSizedRegionSegments,
                                 AttrSizedSuccessorSegments, SameVariadicSize)):
            return None
        elif isinstance(option, AttrSizedSegments):
            return None
    if op_def.successors:
        return None
    return (tuple(isinstance(d, VariadicDef) for _, d in op_def.operands),
            tuple(isinstance(d, VariadicDef) for _, d in op_def.results),
            tuple(isinstance(d, VariadicDef) for _, d in op_def.regions), segments)


#: (argument type, kind) -> whether an argument of that type is a `kind` (isinstance against
#: xDSL's ABC-based classes is slow; the answer depends on the type only)
_IS: dict[tuple[type, type], bool] = {}


def _is(arg: object, kind: type) -> bool:
    key = (type(arg), kind)
    got = _IS.get(key)
    if got is None:
        got = _IS[key] = isinstance(arg, kind)
    return got


def _flatten(args: Sequence, variadic: tuple[bool, ...], kind: type) -> tuple[list, list[int]] | None:
    """(flat list, size of each argument), or None when an argument is not `kind` (or, for a
    variadic definition, a list or tuple of `kind`)."""
    if len(args) != len(variadic):
        return None
    if not args:
        return [], []
    flat: list = []
    sizes: list[int] = []
    for arg, var in zip(args, variadic):
        if _is(arg, kind):
            flat.append(arg)
            sizes.append(1)
        elif var and type(arg) in (list, tuple) and all(_is(a, kind) for a in arg):
            flat.extend(arg)
            sizes.append(len(arg))
        else:
            return None
    return flat, sizes


def _fast_init(op: IRDLOperation, operands: Sequence, result_types: Sequence,
               properties: Mapping[str, Attribute | None] | None,
               attributes: Mapping[str, Attribute | None] | None, regions: Sequence) -> bool:
    """Initialize `op` as irdl_op_init would; False (op untouched) when the plan does not cover
    these arguments."""
    cls = type(op)
    if cls in _PLANS:
        plan = _PLANS[cls]
    else:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None:
        return False
    ops = _flatten(operands, plan[0], SSAValue)
    res = _flatten(result_types, plan[1], Attribute)
    regs = _flatten(regions, plan[2], Region)
    if ops is None or res is None or regs is None:
        return False
    props = {k: v for k, v in (properties or {}).items() if v is not None}
    attrs = {k: v for k, v in (attributes or {}).items() if v is not None}
    if plan[3] is not None:
        key = tuple(ops[1])
        sizes = _SIZES.get(key)
        if sizes is None:
            sizes = _SIZES[key] = DenseArrayBase.from_list(i32, list(key))
        (props if plan[3] == "properties" else attrs)[
            AttrSizedOperandSegments.attribute_name] = sizes
    init_op(op, ops[0], res[0], props, attrs, regions=regs[0])
    return True


_OpU = TypeVar("_OpU", bound=Operation)


def init_op(op: _OpU, operands: Sequence[SSAValue], result_types: Sequence[Attribute],
            properties: Mapping[str, Attribute], attributes: Mapping[str, Attribute] | None = None,
            location: LocationAttr = UNKNOWN_LOC, regions: Sequence[Region] = ()) -> _OpU:
    """`Operation.__init__(op, ...)` for an op without successors: the same fields (operands and
    their uses, added in operand order; results; copies of the property and attribute dicts;
    the location; no successors; the regions added one by one), then the op's `__post_init__`,
    without the generic setters' work (swapping out old uses and successors, generators): a
    third of the time of creating a kernel-body op (~10^4 per cann-to-kernel on a NAS-cell
    CNN).  tests/pytest/test_ir_build.py checks the fields against Operation.create's."""
    values = SSAValues(operands)
    uses = tuple([Use(op, i) for i in range(len(values))])
    for v, u in zip(values, uses):
        v.add_use(u)
    op._operands, op._operand_uses = values, uses
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    op.properties = dict(properties)
    op.attributes = dict(attributes) if attributes else {}
    op.location = location
    op._successors = op._successor_uses = ()
    op.regions = ()
    for region in regions:
        op.add_region(region)
    op.__post_init__()
    return op


def create_op(cls: type[_OpU], operands: Sequence[SSAValue] = (),
              result_types: Sequence[Attribute] = (),
              properties: Mapping[str, Attribute] | None = None) -> _OpU:
    """`cls.create(operands=..., result_types=..., properties=...)` (no attributes, successors
    or regions; unknown location), by `init_op`."""
    return init_op(cls.__new__(cls), operands, result_types, properties or {})


class FastBuilt(IRDLOperation):
    """An IRDL op whose keyword constructor takes `_fast_init`'s path when it can (the same op),
    IRDL's builder otherwise."""

    def __init__(self, *, operands: Sequence | None = None, result_types: Sequence | None = None,
                 properties: Mapping[str, Attribute | None] | None = None,
                 attributes: Mapping[str, Attribute | None] | None = None,
                 successors: Sequence | None = None, regions: Sequence | None = None) -> None:
        if not successors and _fast_init(self, operands or (), result_types or (), properties,
                                         attributes, regions or ()):
            return
        super().__init__(operands=operands, result_types=result_types, properties=properties,
                         attributes=attributes, successors=successors, regions=regions)


def build(cls: type[_OpT], *, operands: Sequence = (), result_types: Sequence = (),
          properties: Mapping[str, Attribute | None] | None = None,
          attributes: Mapping[str, Attribute | None] | None = None,
          regions: Sequence = ()) -> _OpT:
    """`cls(operands=..., result_types=..., properties=..., attributes=..., regions=...)`, for an
    op class that is not a FastBuilt."""
    op = cls.__new__(cls)
    if _fast_init(op, operands, result_types, properties, attributes, regions):
        return op
    return cls(operands=list(operands), result_types=list(result_types),
               properties=dict(properties or {}), attributes=dict(attributes or {}),
               regions=list(regions))


def clone(op: _OpU) -> _OpU:
    """`op.clone()`: the same ops, each by `init_op` (what `Operation.create` makes) instead of
    xDSL's generic `create`, which a pack-launches trial pays on every op of the module.  As
    xDSL's clone does it: each op made with no operands (results with the name hints, copies of
    the attribute and property dicts, the location, empty regions), each region's blocks made
    first, then their arguments (types, locations, name hints) and ops; then every op's operands
    set, walking the clone in order, so every value's uses are in the order xDSL's clone gives.
    An op with successors anywhere in `op`: xDSL's clone itself."""
    values: dict[SSAValue, SSAValue] = {}
    made: list[tuple[Operation, Operation]] = []
    new = _clone_shell(op, values, made)
    if new is None:
        return op.clone()
    for old, n in made:
        n.operands = [values.get(v, v) for v in old._operands]
    return new


def _clone_shell(op: _OpU, values: dict[SSAValue, SSAValue],
                 made: list[tuple[Operation, Operation]]) -> _OpU | None:
    """op and its regions cloned without operands (None when an op has successors); `made`
    gets (op, its clone) in walk order, `values` each result and block argument's clone."""
    if op._successors:
        return None
    new = init_op(type(op).__new__(type(op)), (), [r.type for r in op.results], op.properties,
                  op.attributes, op.location, [Region() for _ in op.regions])
    made.append((op, new))
    for r, nr in zip(op.results, new.results, strict=True):
        values[r] = nr
        nr.name_hint = r.name_hint
    for region, dest in zip(op.regions, new.regions, strict=True):
        pairs = [(b, Block()) for b in region.blocks]
        dest.insert_block([nb for _, nb in pairs], 0)
        for b, nb in pairs:
            for k, a in enumerate(b.args):
                na = nb.insert_arg(a.type, k, a.location)
                values[a] = na
                na.name_hint = a.name_hint
            for o in b.ops:
                c = _clone_shell(o, values, made)
                if c is None:
                    return None
                nb.add_op(c)
    return new
