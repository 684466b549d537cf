"""The one constant evaluator: the value of an SSA value that constants alone compute.

An op is evaluated on constant operands with the cann numpy semantics
(`compiler/interpreters/cann_impl.py`), the implementations `cann-run` executes, so a folded
program computes bit for bit what the unfolded one computes.  Its users:

- `constant_value(v)`: any pure cann op over constants, and views of constants (fold-constants,
  algebraic-simplify, tf-to-cann's constant inputs -> attributes and its BroadcastTo / Tile /
  Cumsum of a constant, the TensorList types, the control-flow trip counts, fusion's constant
  masks and AlwaysFolded ops);
- `constant_value(v, only=FoldedInFusion, depth=16)`: fusion's `const_value`, the same walk
  seeing only through views and the elementwise ops with that trait, in the origin shape;
- `fold_module(module)`: the fold-constants pass, every foldable op replaced by a `cann.Const`;
- `evaluate(op, args)`: one op on given constant operands (the step of both).
"""

from __future__ import annotations

import math
from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, UnregisteredOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import OpTrait

from compiler.ir.typed import parent_block_of, shape_of, tensor_of

#: Results larger than this many elements are not folded (a folded constant is stored).
MAX_ELEMENTS = 1 << 24

_INTERP = None


def _interpreter():
    global _INTERP
    if _INTERP is None:
        from xdsl.interpreter import Interpreter

        from compiler.interpreters.cann_impl import CannFunctions
        from compiler.interpreters.fused_impl import FusedFunctions

        _INTERP = Interpreter(ModuleOp([]))
        _INTERP.register_implementations(CannFunctions())
        _INTERP.register_implementations(FusedFunctions())
    return _INTERP


def is_constant_op(op: Operation | None) -> TypeGuard[Operation]:
    """A `cann.Const` or a `tf.Const` (typed, generic or unregistered)."""
    if op is None:
        return False
    from dialects import cann, tf

    if isinstance(op, (cann.ConstOp, tf.ConstOp)):
        return True
    return isinstance(op, UnregisteredOp) and op.op_name.data == "tf.Const"


def constant_attr_value(op: Operation) -> np.ndarray | None:
    """The dense `value` of a constant op as a numpy array (storage layout), else None."""
    from dialects.common import numpy_from_dense

    value = op.properties.get("value")
    if value is None:  # not `or`: an empty dense attribute is falsy
        value = op.attributes.get("value")
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return None
    try:
        return numpy_from_dense(value)
    except ValueError:
        return None


#: op class -> a pure cann op that is not a constant (its class's name and traits)
_FOLDABLE_CLASS: dict[type[Operation], bool] = {}


def foldable(op: Operation) -> bool:
    """A pure cann op with results, that has execution semantics and is not a constant (a host
    call is not pure)."""
    cls = type(op)
    ok = _FOLDABLE_CLASS.get(cls)
    if ok is None:
        from xdsl.traits import ConstantLike, Pure

        ok = _FOLDABLE_CLASS[cls] = (cls.dialect_name() == "cann" and not cls.has_trait(ConstantLike)
                                     and cls.has_trait(Pure))
    return ok and len(op.results) == 1 and isinstance(op.results[0].type, TensorType)


def evaluate(op: Operation, args: list[np.ndarray], limit: int | None = MAX_ELEMENTS
             ) -> np.ndarray | None:
    """op's result on constant operands (storage layout), or None if it cannot be evaluated or
    has more than `limit` elements (None: no limit)."""
    shape = shape_of(op.results[0].type)
    if any(d < 0 for d in shape) or limit is not None and math.prod(shape) > limit:
        return None
    try:
        (out,) = _interpreter().run_op(op, tuple(args))
    except Exception:  # noqa: BLE001 - not foldable (no semantics, bad shapes): leave it
        return None
    return np.asarray(out)


def constant_value(v: SSAValue, memo: dict | None = None, *, limit: int | None = MAX_ELEMENTS,
                   only: type[OpTrait] | None = None, depth: int | None = None
                   ) -> np.ndarray | None:
    """The value of `v` if it is a constant or computed from constants by cann ops (results of
    at most `limit` elements each), in storage layout.  `memo` (value -> value or None) may be
    shared by calls.

    Fusion's constants (`compiler/transforms/fusion/helpers.const_value`) are this walk
    restricted: with `only` (a trait) just the ops with that trait are evaluated and View-kind
    ops seen through, every value on the way must be a cann constant or such a result, of a
    static shape and not in a device layout (a #cann.format type), and is taken in its type's
    (origin) shape; `depth` bounds how many ops deep the walk goes (nothing is memoized then:
    how deep a value is depends on the path to it)."""
    if depth is not None and depth < 0:
        return None
    if memo is None or depth is not None:
        memo = {}
    if v in memo:
        return memo[v]
    op = v.owner if isinstance(v, OpResult) else None
    below = None if depth is None else depth - 1
    result = None
    if only is not None and not _plain_static(v):
        pass
    elif is_constant_op(op) and (only is None or op.dialect_name() == "cann"):
        result = constant_attr_value(op)
    elif op is not None and foldable(op) and (only is None or op.has_trait(only)):
        args = [constant_value(o, memo, limit=limit, only=only, depth=below) for o in op.operands]
        known = [a for a in args if a is not None]
        if len(known) == len(args):
            result = evaluate(op, known, limit)
    elif op is not None:
        result = _view_value(v, op, memo, limit, only, below)
    if result is not None and only is not None:
        result = _reshaped(result, shape_of(v.type))
    memo[v] = result
    return result


def _plain_static(v: SSAValue) -> bool:
    """A tensor of a static shape stored as it is (no #cann.format device layout)."""
    from dialects.cann.base import format_of

    return (isinstance(v.type, TensorType) and format_of(v.type) is None
            and all(d >= 0 for d in shape_of(v.type)))


def _reshaped(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    try:
        return np.asarray(a).reshape(shape)
    except (ValueError, TypeError):
        return None


def _view_value(v: SSAValue, op: Operation, memo: dict, limit: int | None,
                only: type[OpTrait] | None, depth: int | None) -> np.ndarray | None:
    """The value of a result of a View-kind op without semantics here (an unregistered
    cann.Identity / IdentityN / Squeeze / ExpandDims of hand-written IR; with `only`, any view):
    its operand's value (result i of a multi-result view is operand i) in the result's static
    shape."""
    from dialects.op_kinds import View, kind_of

    if kind_of(op) is not View or not op.operands or not isinstance(v.type, TensorType):
        return None
    shape = shape_of(v.type)
    if any(d < 0 for d in shape):
        return None
    idx = v.index if isinstance(v, OpResult) and len(op.results) > 1 else 0
    a = (constant_value(op.operands[idx], memo, limit=limit, only=only, depth=depth)
         if idx < len(op.operands) else None)
    return None if a is None else _reshaped(a, shape)


def fold_module(module: ModuleOp) -> int:
    """Fold every foldable op with constant operands into a `cann.Const`; return how many were
    folded.  Then xDSL's DCE erases what nothing reads any more (the folded ops' operands).

    The values are computed in one walk; a `cann.Const` is built only for a folded op that an op
    not folded reads (the constant every other fold would build is one nothing reads once its
    readers are folded too, which the DCE would erase): the same module, without building and
    erasing the intermediate constants of a chain (BN's Rsqrt(var + eps) * gamma, ...)."""
    from compiler.ir.rewriting import erase_dead, with_loc
    from dialects import cann
    from dialects.common import dense_from_numpy, dense_type_of

    consts: dict[SSAValue, Operation] = {}  # constant results, read when an op needs them
    values: dict[SSAValue, np.ndarray] = {}

    def known(v: SSAValue) -> bool:
        if v in values:
            return True
        c = consts.pop(v, None)
        arr = None if c is None else constant_attr_value(c)
        if arr is not None:
            values[v] = arr
        return arr is not None

    folded: list[tuple[Operation, np.ndarray]] = []
    done: set[Operation] = set()
    for op in list(module.walk()):
        if is_constant_op(op):
            consts[op.results[0]] = op
            continue
        if not all(o in values or o in consts for o in op.operands) or not foldable(op) \
                or not all(known(o) for o in op.operands):
            continue
        out = evaluate(op, [values[o] for o in op.operands])
        if out is None:
            continue
        rt = tensor_of(op.results[0])
        # (the type dense_from_numpy gives: np.ascontiguousarray would make a 0-d result 1-d)
        if shape_of(dense_type_of(out)) != shape_of(rt):
            continue
        values[op.results[0]] = out
        folded.append((op, out))
        done.add(op)
    # last first: a folded op's readers, which come after it, are gone when it goes
    for op, out in reversed(folded):
        block = parent_block_of(op)
        result = op.results[0]
        if any(use.operation not in done for use in result.uses):
            rt = tensor_of(result)
            dense = dense_from_numpy(out)
            new = with_loc(cann.ConstOp(dense, rt if rt != dense.type else None), op)
            block.insert_op_before(new, op)
            result.replace_all_uses_with(new.results[0])
        block.erase_op(op, safe_erase=False)
    erase_dead(module)  # the constants nothing reads any more
    return len(folded)
