"""cann-cleanup: the generic optimizations in their usual order, as one pass —
remove-identity, fold-constants, algebraic-simplify, remove-noops, then xDSL's cse and dce.
(Each is also a pass of its own.)"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class CannCleanupPass(ModulePass):
    name = "cann-cleanup"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.transforms.common_subexpression_elimination import (
            CommonSubexpressionElimination,
        )
        from xdsl.transforms.dead_code_elimination import DeadCodeElimination

        from passes.algebraic_simplify import AlgebraicSimplifyPass
        from passes.fold_constants import FoldConstantsPass
        from passes.remove_identity import RemoveIdentityPass
        from passes.remove_noops import RemoveNoopsPass

        for p in (RemoveIdentityPass(), FoldConstantsPass(), AlgebraicSimplifyPass(),
                  RemoveNoopsPass(), CommonSubexpressionElimination(), DeadCodeElimination()):
            p.apply(ctx, op)
