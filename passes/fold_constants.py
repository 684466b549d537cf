"""fold-constants: evaluate cann ops whose operands are all constants, at compile time, with the
cann numpy semantics (compiler/interpreters/cann_impl.py), and replace them by `cann.Const`.

Folding goes through the same implementations `cann-run` executes, so a folded program computes
bit for bit what the unfolded one computes.  Typical wins on Keras graphs: the BatchNormalization
parameter arithmetic (Rsqrt(var + eps) * gamma, beta - mean * scale) and Reshapes of weights.
`constant_value(v)` is also what tf-to-cann uses to turn constant inputs into attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import OpResult, Operation, SSAValue
from xdsl.passes import ModulePass

from compiler.ir.rewriting import with_loc

#: Results larger than this many elements are not folded (a folded constant is stored).
MAX_ELEMENTS = 1 << 24

_INTERP = None


def _interpreter():
    global _INTERP
    if _INTERP is None:
        from xdsl.interpreter import Interpreter

        from compiler.interpreters.cann_impl import CannFunctions

        _INTERP = Interpreter(ModuleOp([]))
        _INTERP.register_implementations(CannFunctions())
    return _INTERP


def _is_const(op: Operation | None) -> bool:
    from compiler.conversions.tf_to_cann.legalization import tf_op_type

    return op is not None and (op.name == "cann.Const" or tf_op_type(op) == "Const")


def _const_array(op: Operation) -> np.ndarray | None:
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


def foldable(op: Operation) -> bool:
    """A pure cann op with results, that has execution semantics and is not a constant."""
    from xdsl.traits import Pure

    return (op.dialect_name() == "cann" and op.name not in ("cann.Const", "cann.HostCall")
            and op.has_trait(Pure) and len(op.results) == 1
            and isinstance(op.results[0].type, TensorType))


def evaluate(op: Operation, args: list[np.ndarray]) -> np.ndarray | None:
    """op's result on constant operands (storage layout), or None if it cannot be evaluated."""
    t = op.results[0].type
    if any(d < 0 for d in t.get_shape()) or int(np.prod(t.get_shape())) > MAX_ELEMENTS:
        return None
    try:
        (out,) = _interpreter().run_op(op, tuple(args))
    except Exception:  # noqa: BLE001 - not foldable (no semantics, bad shapes): leave it
        return None
    return np.asarray(out)


def constant_value(v: SSAValue, _memo: dict | None = None) -> np.ndarray | None:
    """The value of `v` if it is a constant or computed from constants by cann ops."""
    memo = {} if _memo is None else _memo
    if v in memo:
        return memo[v]
    op = v.owner if isinstance(v, OpResult) else None
    result = None
    if _is_const(op):
        result = _const_array(op)
    elif op is not None and foldable(op):
        args = [constant_value(o, memo) for o in op.operands]
        if all(a is not None for a in args):
            result = evaluate(op, args)
    memo[v] = result
    return result


def fold_module(module: ModuleOp) -> int:
    """Fold every foldable op with constant operands; return how many were folded."""
    from dialects import cann
    from dialects.common import dense_from_numpy

    values: dict[SSAValue, np.ndarray] = {}
    folded = 0
    for op in list(module.walk()):
        if _is_const(op):
            arr = _const_array(op)
            if arr is not None:
                values[op.results[0]] = arr
            continue
        if not foldable(op) or not all(o in values for o in op.operands):
            continue
        out = evaluate(op, [values[o] for o in op.operands])
        if out is None:
            continue
        rt = op.results[0].type
        dense = dense_from_numpy(np.ascontiguousarray(out))
        if tuple(dense.type.get_shape()) != tuple(rt.get_shape()):
            continue
        new = with_loc(cann.ConstOp(dense, rt if rt != dense.type else None), op)
        block = op.parent_block()
        block.insert_op_before(new, op)
        op.results[0].replace_all_uses_with(new.results[0])
        values[new.results[0]] = out
        block.erase_op(op)
        folded += 1
    # Constants nothing reads any more.
    for op in list(module.walk()):
        if op.name == "cann.Const" and not op.results[0].uses:
            op.parent_block().erase_op(op)
    return folded


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fold_module(op)
