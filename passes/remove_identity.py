"""remove-identity: Identity, IdentityN, StopGradient, PreventGradient and Snapshot run no kernel
(GE built-ins): every use reads the operand instead.  Works on tf ops before legalization (so a
graph can be cleaned before tf-to-cann) — tf-to-cann forwards them too."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.ir.typed import parent_block_of

IDENTITY_OPS = ("Identity", "IdentityN", "StopGradient", "PreventGradient", "Snapshot")


def remove_identities(module: ModuleOp) -> int:
    from compiler.conversions.tf_to_cann.legalization import tf_op_type

    n = 0
    for op in list(module.walk()):
        if tf_op_type(op) in IDENTITY_OPS and len(op.operands) == len(op.results):
            for r, o in zip(op.results, op.operands, strict=True):
                r.replace_all_uses_with(o)
            parent_block_of(op).erase_op(op)
            n += 1
    return n


@dataclass(frozen=True)
class RemoveIdentityPass(ModulePass):
    name = "remove-identity"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        remove_identities(op)
