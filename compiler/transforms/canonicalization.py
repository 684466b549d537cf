"""The canonicalization patterns of cann ops (xDSL's HasCanonicalizationPatternsTrait on the ops
in dialects/cann.py, so `cann-opt --canonicalize` applies them; remove-noops runs the first
three):

- Reshape: to the operand's own type -> the operand; Reshape(Reshape(x)) -> Reshape(x);
- TransposeD: the identity perm -> the operand; TransposeD(TransposeD(x)) -> one TransposeD
  (or x when the perms compose to the identity);
- Cast: to the operand's own type -> the operand; Cast(Cast(x)) -> x when the inner cast widened
  and the outer casts back (f16 -> f32 -> f16 is exact);
- TransData: TransData(TransData(x)) -> x when the outer one converts back to x's format and type.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.ir.rewriting import with_loc
from dialects import cann
from dialects.common import int_array, ints

#: (narrow, wide) element types: a cast narrow -> wide -> narrow gives back every value
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


class TransDataInverse(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        inner = op.src.owner
        if isinstance(inner, cann.TransDataOp) and inner.src.type == op.dst.type \
                and inner.src_format == op.dst_format:
            rewriter.replace(op, [], [inner.src])
