"""The canonicalization patterns of cann ops (xDSL's HasCanonicalizationPatternsTrait on the ops
in dialects/cann/, so `cann-opt --canonicalize` applies them; remove-noops runs the first
three):

- Reshape: to the operand's own type -> the operand; Reshape(Reshape(x)) -> Reshape(x);
- TransposeD: the identity perm -> the operand; TransposeD(TransposeD(x)) -> one TransposeD
  (or x when the perms compose to the identity);
- Cast: to the operand's own type -> the operand; Cast(Cast(x)) -> x when the inner cast widened
  and the outer casts back (f16 -> f32 -> f16 is exact);
- TransData: TransData(TransData(x)) -> x when the outer one converts back to x's format and type.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from compiler.ir.rewriting import roots, with_loc
from compiler.ir.typed import elem_of, shape_of
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


def _unit_column(r: cann.ReshapeOp) -> bool:
    """A Reshape to [.., K, 1] (K > 1): the same row-major data as [.., 1, K], its transpose."""
    ys = list(r.y.type.get_shape())
    return len(ys) >= 2 and ys[-1] == 1 and ys[-2] > 1


class BatchMatMulTransposes(RewritePattern):
    """CANN's BatchMatMulFusionPass, generalized (cann-facts.md section 5):
    - an operand TransposeD(z, perm) whose perm, its last two entries swapped (perm'), is the
      identity -> z with the operand's adj flag toggled; when perm' keeps the last axis last
      and perm does not (e.g. Keras' key transpose 0231 -> the head split 0213) and the
      transpose has no other reader -> TransposeD(z, perm') with the flag toggled (a transpose
      that moves whole rows, and the head split of the other operands);
    - an operand Reshape to [.., K, 1] (Keras' Dot: ExpandDims at the end) is the transpose of
      the same data as [.., 1, K]: that row (a batch view on FRACTAL_NZ) with the flag toggled;
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
        bypassed: list[Operation]
        changed, bypassed = False, []
        for i in range(2):
            t = xs[i].owner
            if isinstance(t, cann.ReshapeOp) and _unit_column(t):
                ys = list(t.y.type.get_shape())
                row = [*ys[:-2], 1, ys[-2]]
                if list(shape_of(t.x)) == row:
                    xs[i] = t.x
                else:
                    from xdsl.dialects.builtin import TensorType

                    nr = with_loc(cann.ReshapeOp(operands=[t.x], result_types=[TensorType(
                        t.y.type.element_type, row)], properties={"shape": int_array(row)}), t)
                    rewriter.insert_op(nr, InsertPoint.before(op))
                    xs[i] = nr.y
                flags[i], changed = not flags[i], True
                bypassed.append(t)
                continue
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
        assert isinstance(old, cann.MulOp)  # _scalar_factor matched it
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
            assert isinstance(old, cann.MulOp)  # _scalar_factor matched it
            m = with_loc(cann.MulOp(operands=[new.y, c], result_types=[op.y.type]), old)
            rewriter.replace_op(op, [new, m])
            _erase_if_dead(rewriter, old)
            return


# --- views sink through pointwise ops --------------------------------------------------------

def _unit_axes_only(xs, ys) -> bool:
    """A reshape that only inserts or removes axes of size 1 (ExpandDims / Squeeze)."""
    return [d for d in xs if d != 1] == [d for d in ys if d != 1]


def _unfolds_depth(xs, ys) -> bool:
    """[N*D, H, W, C] -> [N, D, H, W, C]: the (N*D) batch view of a 3-D conv's result
    (compiler/conversions/tf_to_cann/conv3d.py) back to NDHWC, H, W, C untouched."""
    return len(xs) == 4 and len(ys) == 5 and list(ys[2:]) == list(xs[1:]) \
        and ys[0] * ys[1] == xs[0]


def _regroups_rows(xs, ys) -> bool:
    """A reshape that regroups only the leading axes, the last one untouched: a matmul's rows
    [B*H*W, N] viewed as [B, H, W, N] (Keras' Dense on a 4-D input)."""
    return bool(xs) and bool(ys) and xs[-1] == ys[-1]


#: How many pointwise ops _folds_back follows from a rows view before it gives up.
_FOLD_SEARCH_OPS = 32


def _folds_back(op, in_shape) -> bool:
    """Every path from `op` (a pointwise op reading a rows view of `in_shape`) through pointwise
    readers of its shape ends in a Reshape back to `in_shape`, each of those readers' other
    operands a rows view of `in_shape`, a value on the paths, or a constant riding along: sunk,
    the views meet and fold away (a matmul's bias and activation between two Dense layers), where
    a path ending elsewhere (a residual Add, a reduction) would only move the view."""
    from dialects.op_kinds import is_pointwise

    ys = list(op.results[0].type.get_shape())
    chain, todo = [op], [op]
    while todo:  # the pointwise readers of the op's shape, transitively
        for use in todo.pop().results[0].uses:
            u = use.operation
            if isinstance(u, cann.ReshapeOp):
                if list(shape_of(u.y)) != in_shape:
                    return False
                continue
            if u in chain:
                continue
            if len(chain) >= _FOLD_SEARCH_OPS or not is_pointwise(u) or len(u.results) != 1 \
                    or list(u.results[0].type.get_shape()) != ys:
                return False
            chain.append(u)
            todo.append(u)
    on_paths = {o.results[0] for o in chain}
    for u in chain[1:]:
        for v in u.operands:
            r = v.owner
            if not (v in on_paths or (isinstance(r, cann.ReshapeOp) and list(shape_of(r.x)) == in_shape)
                    or _rides_along(v, in_shape, ys)):
                return False
    return True


def _rides_along(v, in_shape, out_shape) -> bool:
    """A constant operand that broadcasts the same against the reshape's input as against its
    output: one element, or a vector over the last axis ([C], [1, .., 1, C]) when the reshape
    keeps the last axis, of a rank the input has."""
    from compiler.interpreters.constant_eval import constant_value

    if not isinstance(v.owner, cann.ConstOp) or cann.format_of(v.type) is not None:
        return False
    a = constant_value(v)
    if a is None:
        return False
    if a.size == 1:
        return a.ndim <= len(in_shape)
    s = list(a.shape)
    return (len(s) <= len(in_shape) and all(d == 1 for d in s[:-1]) and in_shape
            and out_shape and s[-1] == in_shape[-1] == out_shape[-1])


class ReshapeSinksThroughPointwise(RewritePattern):
    """op(Reshape(x1), .., c) -> Reshape(op(x1, .., c)) for an elementwise / broadcast op whose
    tensor operands are all Reshapes of one input shape that only insert or remove axes of size
    1 (ExpandDims / Squeeze: Keras' Conv1D and pooling on 1-D sequences) or that unfold the
    (N*D) batch of a 3-D conv's result to [N, D, H, W, C] (_unfolds_depth), or constants that
    broadcast the same way (a scalar, a channel vector over the kept last axis).  The view moves
    down to the next op that is not pointwise; two views that meet fold (ReshapeNoop), so a
    conv's epilogue (bias, BN, activation) stays 4-D next to the conv.  A view that regroups a
    matmul's rows (_regroups_rows: Keras' Dense on a 4-D input) sinks where it then meets its
    inverse (_folds_back): the bias and activation between two Dense layers (a swish, which no
    matmul rule takes through the view) run on the matmul's result, its epilogue."""

    @staticmethod
    def applies_to(cls: type[Operation]) -> bool:
        from xdsl.dialects.builtin import UnregisteredOp

        from dialects.op_kinds import Broadcast, Elementwise, kind_of_class

        return issubclass(cls, UnregisteredOp) or kind_of_class(cls) in (Elementwise, Broadcast)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        from xdsl.dialects.builtin import TensorType

        from dialects.op_kinds import is_pointwise

        if not is_pointwise(op) or len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
            return
        fmt = op.properties.get("data_format", op.attributes.get("data_format"))
        if fmt is not None and getattr(fmt, "data", "NHWC") != "NHWC":
            return  # the channel axis is not the last one
        yt = op.results[0].type
        ys = list(yt.get_shape())
        in_shape, rows = None, False
        for v in op.operands:
            r = v.owner
            if isinstance(r, cann.ReshapeOp):
                s = list(shape_of(r.x))
                if in_shape is not None and s != in_shape:
                    return
                if list(v.type.get_shape()) != ys or cann.format_of(r.x.type) is not None \
                        or any(d < 0 for d in s):
                    return
                if not (_unit_axes_only(s, ys) or _unfolds_depth(s, ys)):
                    rows = True
                    if not _regroups_rows(s, ys):
                        return
                in_shape = s
        if in_shape is None or (rows and not _folds_back(op, in_shape)):
            return
        operands = []
        for v in op.operands:
            if isinstance(v.owner, cann.ReshapeOp):
                operands.append(v.owner.x)
            elif _rides_along(v, in_shape, ys):
                operands.append(v)
            else:
                return
        new = type(op).create(operands=operands, result_types=[TensorType(yt.element_type, in_shape)],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        with_loc(new, op)
        back = with_loc(cann.ReshapeOp(operands=[new.results[0]], result_types=[yt],
                                       properties={"shape": int_array(ys)}), op)
        rewriter.replace_op(op, [new, back])


def _unit_axes_removed(xs: list[int], ys: list[int], reduced: list[int]) -> list[int] | None:
    """Axes of x a reduction of Reshape(x) over `reduced` (axes of y) becomes, for a reshape
    that only inserts or removes size-1 axes, keep_dims false: the non-unit axes of y matched in
    order to those of x, plus the size-1 axes of x the result must lose.  Of the ways to choose
    those, the one that keeps the reduced axes contiguous and nearest the reduced ones (the H of
    an [N, 1, W, C] view of [N, W, C]); None when nothing fits."""
    from itertools import combinations

    nonunit_x = [i for i, d in enumerate(xs) if d != 1]
    nonunit_y = [i for i, d in enumerate(ys) if d != 1]
    to_x = dict(zip(nonunit_y, nonunit_x))
    base = sorted(to_x[a] for a in reduced if a in to_x)
    want = [d for i, d in enumerate(ys) if i not in reduced]
    units = [i for i, d in enumerate(xs) if d == 1 and i not in base]
    best = None
    for k in range(len(units) + 1):
        for extra in combinations(units, k):
            axes = sorted([*base, *extra])
            if [d for i, d in enumerate(xs) if i not in axes] != want or not axes:
                continue
            key = (axes != list(range(axes[0], axes[-1] + 1)), -axes[0], len(axes))
            if best is None or key < best[0]:
                best = (key, axes)
        if best is not None:
            break
    return best[1] if best is not None else None


class ReduceThroughUnitReshape(RewritePattern):
    """Reduce(Reshape(x), axes) -> Reduce(x, axes') for a Reshape that only inserts or removes
    axes of size 1 (Keras' pooling on 1-D sequences: the [N, 1, W, C] result of a pool
    squeezed to [N, W, C], then a global pool over W): the reduction then reads x itself, over
    its H and W, and runs on x's layout with no conversion between (keep_dims: the reduction
    over the matched axes, then the view to the old result)."""

    applies_to = roots(cann.ReduceDOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        from xdsl.dialects.builtin import IntegerAttr, TensorType

        if not isinstance(op, cann.ReduceDOp):
            return
        r = op.x.owner
        if not isinstance(r, cann.ReshapeOp) or cann.format_of(r.x.type) is not None:
            return
        xs, ys = list(shape_of(r.x)), list(shape_of(r.y))
        if any(d < 0 for d in xs) or len(xs) == len(ys) or not _unit_axes_only(xs, ys):
            return
        reduced = sorted(a % len(ys) for a in ints(op.axes))
        keep = bool(op.keep_dims.value.data)
        if keep:
            to_x = dict(zip([i for i, d in enumerate(ys) if d != 1], [i for i, d in enumerate(xs) if d != 1]))
            axes = sorted(to_x[a] for a in reduced if a in to_x)
            if not axes:
                return
            shape = [1 if i in axes else d for i, d in enumerate(xs)]
        else:
            removed = _unit_axes_removed(xs, ys, reduced)
            if removed is None:
                return
            axes = removed
            shape = [d for i, d in enumerate(xs) if i not in axes]
        new = type(op).create(operands=[r.x], result_types=[TensorType(op.y.type.element_type, shape)],
                              properties={**op.properties, "axes": int_array(axes),
                                          "keep_dims": IntegerAttr(int(keep), op.keep_dims.type)},
                              attributes=dict(op.attributes))
        with_loc(new, op)
        if shape == list(shape_of(op.y)):
            rewriter.replace(op, [new])
            return
        back = with_loc(cann.ReshapeOp(operands=[new.y], result_types=[op.y.type],
                                       properties={"shape": int_array(list(shape_of(op.y)))}), op)
        rewriter.replace(op, [new, back])


class ReduceOfReduce(RewritePattern):
    """R(R(x, a), b) -> R(x, a + b') for one reduction R (mean, max, min, sum, prod), neither
    keeping dims, the inner one read only by the outer: b' are b's axes as axes of x.  Exact for
    a mean too: every outer element averages groups of the same size (3-D pooling's depth mean
    before a global average pool, compiler/conversions/tf_to_cann/conv3d.py)."""

    applies_to = roots(cann.ReduceDOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReduceDOp):
            return
        inner = op.x.owner
        if type(inner) is not type(op) or len(list(op.x.uses)) != 1 \
                or op.keep_dims.value.data or inner.keep_dims.value.data:
            return
        rank = len(shape_of(inner.x))
        a = sorted({v % rank for v in ints(inner.axes)})
        left = [i for i in range(rank) if i not in a]
        b = [left[v % len(left)] for v in ints(op.axes)] if left else []
        new = type(op).create(operands=[inner.x], result_types=[op.y.type],
                              properties={**op.properties, "axes": int_array(sorted(a + b))},
                              attributes=dict(op.attributes))
        with_loc(new, op)
        rewriter.replace(op, [new])
        rewriter.erase(inner)


def _tiling_windows(pool) -> bool:
    """An NHWC pool whose windows tile H and W exactly: ksize = strides, both dividing H and W
    (no pads: VALID, or SAME, which pads nothing then), so every input element is in one window."""
    xs = list(shape_of(pool.x))
    k, st = ints(pool.ksize), ints(pool.strides)
    return (pool.data_format.data == cann.DataFormat.NHWC and len(xs) == 4 and k == st
            and k[0] == k[3] == 1 and all(d > 0 for d in xs)
            and xs[1] % k[1] == 0 and xs[2] % k[2] == 0)


class ReduceOfTilingPool(RewritePattern):
    """Mean(AvgPool(x)) -> Mean(x) and Max(MaxPool(x)) -> Max(x) for a pool whose windows tile H
    and W exactly (_tiling_windows) and a reduction over the pool's H and W (and maybe N and C),
    possibly through Reshapes that together only split or merge N (the (N*D) batch of a 3-D pool, back
    to [N, D, H, W, C]): exact, every window has the same size (a global average pool after an
    AveragePooling2D / 3D, as ReduceOfReduce for the depth mean).  The reduction then reads x,
    viewed the same way, and the pool's kernel is gone."""

    applies_to = roots(cann.ReduceMeanDOp, cann.ReduceMaxDOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        from xdsl.dialects.builtin import TensorType

        pool_cls = {cann.ReduceMeanDOp: cann.AvgPoolOp, cann.ReduceMaxDOp: cann.MaxPoolOp}.get(type(op))
        views, v = [], op.x  # the Reshapes between (single use), last first
        while isinstance(v.owner, cann.ReshapeOp) and _single_use(v):
            views.append(v.owner)
            v = v.owner.x
        view = views[0] if views else None
        pool = v.owner
        if pool_cls is None or not isinstance(pool, pool_cls) or not _single_use(v) \
                or cann.format_of(v.type) is not None or not _tiling_windows(pool):
            return
        qs, ps = list(shape_of(pool.y)), list(shape_of(pool.x))
        rs = list(shape_of(op.x))
        if rs[len(rs) - 3:] != qs[1:] or _prod(rs[:len(rs) - 3]) != qs[0]:
            return  # the view is not [*split of N, H, W, C]
        axes = {a % len(rs) for a in ints(op.axes)}
        if not {len(rs) - 3, len(rs) - 2} <= axes:
            return
        ops: list[Operation] = []
        x = pool.x
        if view is not None:
            shape = [*rs[:len(rs) - 3], *ps[1:]]
            ops.append(with_loc(cann.ReshapeOp(operands=[x], result_types=[TensorType(
                elem_of(x), shape)], properties={"shape": int_array(shape)}), view))
            x = ops[-1].results[0]
        ops.append(with_loc(type(op).create(operands=[x], result_types=[op.y.type],
                                            properties=dict(op.properties),
                                            attributes=dict(op.attributes)), op))
        rewriter.replace(op, ops)
        for r in views:
            rewriter.erase(r)
        rewriter.erase(pool)


def _prod(xs) -> int:
    out = 1
    for d in xs:
        out *= d
    return out


# --- chains of views and broadcasts become one broadcast --------------------------------------

#: The largest result (elements) whose index map BroadcastChain computes to decompose it.
_CHAIN_MAX_ELEMS = 1 << 24


def _strided_digits(f):
    """The flat index map f (y = x.flat[f]) as mixed-radix digits [(size, stride)], outermost
    first, f[k] = sum(digit * stride), each run of digits that merge (stride_outer = size_inner *
    stride_inner, or both 0) taken as one; None when f is no such map."""
    import numpy as np

    n, unit, digits = f.size, 1, []
    if n == 0 or f[0] != 0:
        return None
    while unit < n:
        s = int(f[unit] - f[0])
        j = np.arange(n // unit)
        bad = np.flatnonzero(f[j * unit] != j * s)
        d = int(bad[0]) if bad.size else j.size
        if d < 2 or n % (unit * d):
            return None
        digits.append((d, s))
        unit *= d
    digits.reverse()
    rebuilt = np.zeros(1, np.int64)
    for d, s in digits:
        rebuilt = (rebuilt[:, None] + np.arange(d, dtype=np.int64)[None, :] * s).reshape(-1)
    return digits if np.array_equal(rebuilt, f) else None


def _at_dims_of(digits, xs):
    """The digits with each one of non-zero stride split at x's dims, and x's unit dims put back
    (each before the next digit that reads x), so that the broadcast's operand is x with unit
    axes inserted (x's N, H, W, C stay axes of their own: layouts see an ExpandDims); None when
    a digit straddles two of x's dims unevenly."""
    import numpy as np

    strides = [int(np.prod(xs[i + 1:])) for i in range(len(xs))]
    out, dim = [], 0  # dim: the next of x's dims to place
    for d, s in digits:
        if not s:
            out.append((d, 0))
            continue
        while dim < len(xs) and xs[dim] == 1:
            out.append((1, strides[dim]))
            dim += 1
        rest = d
        while rest > 1:
            if dim >= len(xs) or rest % xs[dim] or strides[dim] * xs[dim] != s * rest:
                return None
            out.append((xs[dim], strides[dim]))
            rest //= xs[dim]
            dim += 1
    out += [(1, strides[i]) for i in range(dim, len(xs))]
    return out


class BroadcastChain(RewritePattern):
    """A chain of Reshapes and BroadcastToDs (each single-use, ND) holding two broadcasts or more
    -> Reshape(x) -> one BroadcastToD -> Reshape.  Keras' UpSampling2D(interpolation="nearest")
    is tf.repeat along H, then along W (ExpandDims, Tile, Reshape each): two data-moving kernels
    for what is one broadcast of x [N, H, 1, W, 1, C] to [N, H, s, W, s, C].  The chain's
    index map (which element of x each result element reads) is computed and decomposed into
    mixed-radix digits; it is one broadcast when the digits of non-zero stride are x's own
    row-major order."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.BroadcastToDOp, rewriter: PatternRewriter):
        import numpy as np
        from xdsl.dialects.builtin import TensorType

        chain: list[cann.ReshapeOp | cann.BroadcastToDOp] = [op]
        v, broadcasts = op.x, 1
        while isinstance(v.owner, (cann.ReshapeOp, cann.BroadcastToDOp)) and _single_use(v):
            chain.append(v.owner)
            broadcasts += isinstance(v.owner, cann.BroadcastToDOp)
            v = v.owner.x
        if broadcasts < 2 or any(cann.format_of(o.results[0].type) is not None for o in chain) \
                or cann.format_of(v.type) is not None:
            return
        xs, ys = list(shape_of(v)), list(shape_of(op.y))
        if any(d < 0 for d in xs + ys) or int(np.prod(ys)) > _CHAIN_MAX_ELEMS:
            return
        idx = np.arange(int(np.prod(xs)), dtype=np.int64).reshape(xs)
        for o in reversed(chain):
            out = list(shape_of(o.results[0]))
            idx = np.broadcast_to(idx, out) if isinstance(o, cann.BroadcastToDOp) else idx.reshape(out)
        digits = _strided_digits(np.ascontiguousarray(idx).reshape(-1))
        if digits is None:
            return
        expect = 1  # the digits of non-zero stride, innermost first, walk x row-major
        for d, s in reversed(digits):
            if s:
                if s != expect:
                    return
                expect *= d
        if expect != int(np.prod(xs)):
            return
        digits = _at_dims_of(digits, xs)
        if digits is None:
            return
        et = op.y.type.element_type
        full = [d for d, _ in digits]
        src = [d if s else 1 for d, s in digits]
        names = list(reversed(chain))
        r = with_loc(cann.ReshapeOp(operands=[v], result_types=[TensorType(et, src)],
                                    properties={"shape": int_array(src)}), *names)
        b = with_loc(cann.BroadcastToDOp(operands=[r.results[0]], result_types=[TensorType(et, full)],
                                         properties={"shape": int_array(full)}), *names)
        back = with_loc(cann.ReshapeOp(operands=[b.results[0]], result_types=[op.y.type],
                                       properties={"shape": int_array(ys)}), op)
        rewriter.replace(op, [r, b, back])
