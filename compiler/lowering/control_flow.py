"""cann.If / cann.Case / cann.While -> kernel.if / kernel.case / kernel.while.

The branch, cond and body functions are lowered to kernels like @main (cann-to-kernel and
assign-layouts walk every func.func of the module); the control op itself becomes the host-side
op that names the same functions by symbol and reads its predicate / branch index from GM.  ATC
emits StreamSwitch / StreamActive / LabelSwitch stream tasks for this; cann-facts.md says nothing
about them, so the form is our design.  The operand and result types are the functions' (origin
layout): assign-layouts keeps every function boundary in its origin format.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from compiler.lowering.base import ChipPattern, dynamic_dims_error
from compiler.rewriting import with_loc
from dialects import cann, kernel

_KINDS = {
    cann.IfOp: (kernel.IfKernelOp, ("then_branch", "else_branch")),
    cann.CaseOp: (kernel.CaseKernelOp, ("branches",)),
    cann.WhileOp: (kernel.WhileKernelOp, ("cond", "body")),
}


class ControlFlowToKernel(ChipPattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        kind = _KINDS.get(type(op))
        if kind is None:
            return
        cls, props = kind
        msg = dynamic_dims_error(op, *(v.type for v in op.operands), *(r.type for r in op.results))
        if msg:
            self.fail(op, msg + " (the memory plan needs static loop-variable and branch shapes)")
            return
        new = cls(operands=[list(op.operands)] if cls is kernel.WhileKernelOp
                  else [op.operands[0], list(op.operands[1:])],
                  result_types=[[r.type for r in op.results]],
                  properties={p: op.properties[p] for p in props})
        rewriter.replace(op, with_loc(new, op))
