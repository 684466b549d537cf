"""Functional control flow: If, Case and While, with the callee signature checks.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, SymbolRefAttr, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from compiler.ir.typed import elem_of
from dialects.cann.base import (
    CannOp,
    _oshape,
    origin_shape,
)
from dialects.common import dims_compatible
from dialects.op_kinds import Opaque

# --- functional control flow, comparisons and logic, resizing, splitting, PadV2D/MirrorPad -----
#
# More operators of the `cann` dialect (re-exported by dialects/cann/, which lists them in the
# dialect): functional control flow, comparisons and logic, resizing, splitting, PadV2D/MirrorPad.
#
# Control flow (GE's functional ops, as TensorFlow's functional If/While/Case reach GE):
#
#     %y = cann.If %cond, %x {then_branch = @t, else_branch = @e} : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32>
#     %i, %a = cann.While %i0, %a0 {cond = @c, body = @b} : (...) -> (...)
#     %y = cann.Case %index, %x {branches = [@b0, @b1, @b2]} : (tensor<i32>, ...) -> ...
#
# The bodies are `func.func`s of the module referenced by symbol (not regions): that is how the
# importer represents TensorFlow's function library and how GE keeps subgraphs, every pass that
# walks the module legalizes/optimizes them like @main, and one body can serve several ops.  The
# verifiers check that each symbol names a func.func whose signature matches the op (element types
# equal, origin shapes compatible).  Semantics (compiler/interpreters/cann_impl.py): the
# interpreter calls the referenced functions.  A predicate is TensorFlow's: a scalar is true when
# non-zero, a non-scalar tensor when it is non-empty; a Case index out of range runs the last branch.
# tf.PartitionedCall / StatefulPartitionedCall are inlined by tf-to-cann (no call op here).


# --- control flow -------------------------------------------------------------------------------


def _callee(op, attr: SymbolRefAttr, what: str):
    from xdsl.dialects import func

    f = SymbolTable.lookup_symbol(op, attr)
    if not isinstance(f, func.FuncOp):
        raise VerifyException(f"{op.name}: {what} @{attr.string_value()} is not a func.func of "
                              "the module")
    return f




def _compatible(a, b) -> bool:
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return a == b
    if a.element_type != b.element_type:
        return False
    sa, sb = origin_shape(a), origin_shape(b)
    return len(sa) == len(sb) and all(dims_compatible(x, y) for x, y in zip(sa, sb))






def _types(ts) -> str:
    return "(" + ", ".join(str(t) for t in ts) + ")"




def _check_signature(op, f, what: str, inputs, outputs) -> None:
    ft = f.function_type
    name = f"{what} @{f.sym_name.data}"
    if len(ft.inputs) != len(inputs) or not all(_compatible(a, b) for a, b in
                                                  zip(ft.inputs, inputs)):
        raise VerifyException(f"{op.name}: {name} takes {_types(ft.inputs)}, the op passes "
                              f"{_types(inputs)}")
    if outputs is not None and (len(ft.outputs) != len(outputs) or not all(
            _compatible(a, b) for a, b in zip(ft.outputs, outputs))):
        raise VerifyException(f"{op.name}: {name} returns {_types(ft.outputs)}, the op has "
                              f"{_types(outputs)}")




@irdl_op_definition
class IfOp(CannOp):
    """results = cond ? then_branch(inputs) : else_branch(inputs)."""

    name = "cann.If"
    traits = traits_def(Opaque())
    cond = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    then_branch = prop_def(SymbolRefAttr)
    else_branch = prop_def(SymbolRefAttr)

    def verify_op(self) -> None:
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        for what, sym in (("then_branch", self.then_branch), ("else_branch", self.else_branch)):
            _check_signature(self, _callee(self, sym, what), what, ins, outs)




@irdl_op_definition
class CaseOp(CannOp):
    """results = branches[branch_index](inputs) (out of range: the last branch)."""

    name = "cann.Case"
    traits = traits_def(Opaque())
    branch_index = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    branches = prop_def(ArrayAttr[SymbolRefAttr])

    def verify_op(self) -> None:
        if str(elem_of(self.branch_index)) not in ("i32", "i64") or \
                _oshape(self.branch_index) != ():
            raise VerifyException(f"{self.name}: branch_index must be a scalar i32, got "
                                  f"{self.branch_index.type}")
        if not self.branches.data:
            raise VerifyException(f"{self.name}: needs at least one branch")
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        for i, sym in enumerate(self.branches.data):
            _check_signature(self, _callee(self, sym, f"branch #{i}"), f"branch #{i}", ins, outs)




@irdl_op_definition
class WhileOp(CannOp):
    """vals = inputs; while cond(vals): vals = body(vals); results = vals."""

    name = "cann.While"
    traits = traits_def(Opaque())
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    cond = prop_def(SymbolRefAttr)
    body = prop_def(SymbolRefAttr)
    parallel_iterations = opt_prop_def(IntegerAttr)

    def verify_op(self) -> None:
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        if len(ins) != len(outs) or not all(_compatible(a, b) for a, b in zip(ins, outs)):
            raise VerifyException(f"{self.name}: results {_types(outs)} must match the loop "
                                  f"variables {_types(ins)}")
        c = _callee(self, self.cond, "cond")
        _check_signature(self, c, "cond", ins, None)
        if len(c.function_type.outputs) != 1:
            raise VerifyException(f"{self.name}: cond @{c.sym_name.data} must return one "
                                  f"predicate, returns {len(c.function_type.outputs)} values")
        _check_signature(self, _callee(self, self.body, "body"), "body", ins, ins)




CONTROL_OPS = (IfOp, CaseOp, WhileOp)

