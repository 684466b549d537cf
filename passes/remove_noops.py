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

from compiler.ir.rewriting import erase_dead, rewrite
from compiler.transforms.canonicalization import CastNoop, ReshapeNoop, TransposeNoop


@dataclass(frozen=True)
class RemoveNoopsPass(ModulePass):
    name = "remove-noops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite(op, [ReshapeNoop(), TransposeNoop(), CastNoop()])
        erase_dead(op)

