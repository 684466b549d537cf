"""remove-noops: cann ops that do nothing disappear — a Reshape to the same shape, a TransposeD
with the identity permutation, a Cast to the same type; chains fold: Reshape(Reshape(x)) ->
Reshape(x), TransposeD(TransposeD(x)) -> one TransposeD (or nothing), Cast(Cast(x)) back to x's
type when the inner cast widened (f16 -> f32 -> f16).  The patterns are the ops' canonicalization
patterns (compiler/transforms/canonicalization.py)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.ir.rewriting import rewrite
from compiler.transforms.canonicalization import CastNoop, ReshapeNoop, TransposeNoop


@dataclass(frozen=True)
class RemoveNoopsPass(ModulePass):
    name = "remove-noops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite(op, [ReshapeNoop(), TransposeNoop(), CastNoop()])
        _erase_dead(op)


def _erase_dead(module: ModuleOp) -> None:
    """Erase pure cann ops whose results nothing reads (bottom-up)."""
    from xdsl.traits import Pure

    changed = True
    while changed:
        changed = False
        for op in reversed(list(module.walk())):
            if (op.dialect_name() == "cann" and op.has_trait(Pure) and op.results
                    and all(not r.uses for r in op.results)):
                op.parent_block().erase_op(op)
                changed = True
