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
from xdsl.rewriter import InsertPoint

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


# --- batched matmuls: transposes into the adj flags, scalar factors out (BatchMatMulFusionPass) -

def _swap_last_two(perm: list[int]) -> list[int]:
    p = list(perm)
    p[-2], p[-1] = p[-1], p[-2]
    return p


def _single_use(v) -> bool:
    return len(list(v.uses)) == 1


def _flag(op, name: str) -> bool:
    return bool(op.properties[name].value.data)


def _bmm(x1, x2, y_type, adj_x1: bool, adj_x2: bool, *loc_ops, bias=None) -> cann.BatchMatMulV2Op:
    from xdsl.dialects.builtin import IntegerAttr, i1

    new = cann.BatchMatMulV2Op(operands=[x1, x2, [bias] if bias is not None else []],
                               result_types=[y_type], properties={
        "adj_x1": IntegerAttr(int(adj_x1), i1), "adj_x2": IntegerAttr(int(adj_x2), i1)})
    return with_loc(new, *loc_ops)


def _transposed_type(z, perm: list[int]):
    from xdsl.dialects.builtin import TensorType

    s = z.type.get_shape()
    return TensorType(z.type.element_type, [s[p] for p in perm])


class BatchMatMulTransposes(RewritePattern):
    """CANN's BatchMatMulFusionPass, generalized (cann-facts.md section 5):
    - an operand TransposeD(z, perm) whose perm, its last two entries swapped (perm'), is the
      identity -> z with the operand's adj flag toggled; when perm' keeps the last axis last
      and perm does not (e.g. Keras' key transpose 0231 -> the head split 0213) and the
      transpose has no other reader -> TransposeD(z, perm') with the flag toggled (a transpose
      that moves whole rows, and the head split of the other operands);
    - the result read only by a TransposeD that swaps the last two axes: (a @ b)^T = b^T @ a^T,
      one matmul with the operands exchanged and both flags toggled, no transpose (no bias)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.BatchMatMulV2Op, rewriter: PatternRewriter):
        rank = len(op.y.type.get_shape())
        if op.bias is None and _single_use(op.y):
            user = next(iter(op.y.uses)).operation
            if isinstance(user, cann.TransposeDOp) and \
                    list(ints(user.perm)) == _swap_last_two(list(range(rank))):
                new = _bmm(op.x2, op.x1, user.y.type, not _flag(op, "adj_x2"),
                           not _flag(op, "adj_x1"), op, user)
                rewriter.insert_op(new, InsertPoint.before(op))
                rewriter.replace_op(user, [], [new.y])
                rewriter.erase_op(op)
                return
        xs, flags = [op.x1, op.x2], [_flag(op, "adj_x1"), _flag(op, "adj_x2")]
        changed, bypassed = False, []
        for i in range(2):
            t = xs[i].owner
            if not isinstance(t, cann.TransposeDOp) or len(ints(t.perm)) < 2:
                continue
            perm = list(ints(t.perm))
            p2, last = _swap_last_two(perm), len(perm) - 1
            if p2 == list(range(len(perm))):
                xs[i] = t.x
            elif p2[-1] == last and perm[-1] != last and _single_use(t.y):
                nt = with_loc(cann.TransposeDOp(operands=[t.x], result_types=[
                    _transposed_type(t.x, p2)], properties={"perm": int_array(p2)}), t)
                rewriter.insert_op(nt, InsertPoint.before(op))
                xs[i] = nt.y
            else:
                continue
            flags[i], changed = not flags[i], True
            bypassed.append(t)
        if changed:
            rewriter.replace_op(op, _bmm(xs[0], xs[1], op.y.type, flags[0], flags[1], op,
                                         bias=op.bias))
            _erase_if_dead(rewriter, *bypassed)


def _erase_if_dead(rewriter: PatternRewriter, *ops) -> None:
    """Erase the producers a rewrite bypassed once nothing reads them (the rewrite walker runs
    without DCE, and a dead reader would count as a use)."""
    for o in dict.fromkeys(ops):
        if o.parent is not None and not any(list(r.uses) for r in o.results):
            rewriter.erase_op(o)


def _scalar_factor(v):
    """(a, c) when v = Mul(a, c) (either order) with c a one-element constant, v read once and
    of a's type; else None."""
    from compiler.transforms.fusion.auto import scalar_const

    m = v.owner
    if not isinstance(m, cann.MulOp) or not _single_use(v):
        return None
    for a, c in ((m.x1, m.x2), (m.x2, m.x1)):
        if scalar_const(c) and a.type == m.y.type:
            return a, c
    return None


class ScalarMulThroughTranspose(RewritePattern):
    """TransposeD(x * c) -> TransposeD(x) * c for a one-element constant c: a scalar factor
    commutes with data movement (so it can meet a matmul, ScalarMulOutOfMatMul)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransposeDOp, rewriter: PatternRewriter):
        f = _scalar_factor(op.x)
        if f is None:
            return
        a, c = f
        t = with_loc(cann.TransposeDOp(operands=[a], result_types=[op.y.type],
                                       properties={"perm": op.perm}), op)
        old = op.x.owner
        m = with_loc(cann.MulOp(operands=[t.y, c], result_types=[op.y.type]), old)
        rewriter.replace_op(op, [t, m])
        _erase_if_dead(rewriter, old)


class ScalarMulOutOfMatMul(RewritePattern):
    """BatchMatMulV2(x * c, b) -> BatchMatMulV2(x, b) * c (either operand; no bias): the scale
    lands on the matmul's result, where the epilogue takes it (or attention recomposition sees
    the scaled scores)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.BatchMatMulV2Op, rewriter: PatternRewriter):
        if op.bias is not None:
            return
        for i, v in enumerate((op.x1, op.x2)):
            f = _scalar_factor(v)
            if f is None:
                continue
            a, c = f
            xs = [op.x1, op.x2]
            xs[i] = a
            new = _bmm(xs[0], xs[1], op.y.type, _flag(op, "adj_x1"), _flag(op, "adj_x2"), op)
            old = v.owner
            m = with_loc(cann.MulOp(operands=[new.y, c], result_types=[op.y.type]), old)
            rewriter.replace_op(op, [new, m])
            _erase_if_dead(rewriter, old)
            return
