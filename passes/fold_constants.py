"""fold-constants: evaluate cann ops whose operands are all constants, at compile time, with the
cann numpy semantics (compiler/interpreters/cann_impl.py), and replace them by `cann.Const`.

Folding goes through the same implementations `cann-run` executes, so a folded program computes
bit for bit what the unfolded one computes.  Typical wins on Keras graphs: the BatchNormalization
parameter arithmetic (Rsqrt(var + eps) * gamma, beta - mean * scale) and Reshapes of weights.
The evaluator is `compiler/interpreters/constant_eval.py`, which tf-to-cann and fusion share.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    name = "fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.interpreters.constant_eval import fold_module

        fold_module(op)
