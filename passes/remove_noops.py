"""remove-noops: cann ops that do nothing disappear — a Reshape to the same shape, a TransposeD
with the identity permutation, a Cast to the same type; chains fold: Reshape(Reshape(x)) ->
Reshape(x), TransposeD(TransposeD(x)) -> one TransposeD (or nothing), Cast(Cast(x)) back to x's
type when the inner cast widened (f16 -> f32 -> f16)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.ir.rewriting import rewrite, with_loc
from dialects import cann
from dialects.common import int_array, ints

_WIDER = {("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("f32", "f64"), ("bf16", "f64")}


class ReshapeNoop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.ReshapeOp, rewriter: PatternRewriter):
        if op.x.type == op.y.type:
            rewriter.replace(op, [], [op.x])
            return
        inner = op.x.owner
        if isinstance(inner, cann.ReshapeOp):
            new = cann.ReshapeOp(operands=[inner.x], result_types=[op.y.type],
                                 properties={"shape": op.shape})
            rewriter.replace(op, with_loc(new, inner, op))


class TransposeNoop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransposeDOp, rewriter: PatternRewriter):
        perm = ints(op.perm)
        if list(perm) == sorted(perm) and op.x.type == op.y.type:
            rewriter.replace(op, [], [op.x])
            return
        inner = op.x.owner
        if isinstance(inner, cann.TransposeDOp):
            p1 = ints(inner.perm)
            combined = [p1[p] for p in perm]
            if combined == sorted(combined) and inner.x.type == op.y.type:
                rewriter.replace(op, [], [inner.x])
            else:
                new = cann.TransposeDOp(operands=[inner.x], result_types=[op.y.type],
                                        properties={"perm": int_array(combined)})
                rewriter.replace(op, with_loc(new, inner, op))


class CastNoop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.CastOp, rewriter: PatternRewriter):
        if op.x.type == op.y.type:
            rewriter.replace(op, [], [op.x])
            return
        inner = op.x.owner
        if isinstance(inner, cann.CastOp) and inner.x.type == op.y.type and (
                str(inner.x.type.element_type), str(inner.y.type.element_type)) in _WIDER:
            rewriter.replace(op, [], [inner.x])


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
