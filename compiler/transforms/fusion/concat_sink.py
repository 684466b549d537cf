"""A pointwise op of a concat's result moves into the concat's inputs: f(concat(a, b), k) =
concat(f(a, k_a), f(b, k_b)), each constant operand k sliced along the concat axis (kept whole
where it broadcasts along that axis: a scalar, or a channel vector of a concat over H or W).
XLA's algebraic simplifier sinks elementwise ops below a concatenate the same way.

It is done only where each piece's producer takes the moved op into its own kernel: the
single-use result of a cube op (a conv or matmul, whose epilogue or folded weights it becomes),
of a pool (its epilogue, when the op reads no channel vector: a pool's epilogue loads tensors of
its shape), or of a pointwise op (the automatic fusion groups the two); and where the op's other
operands are constants an epilogue loads (scalars, channel vectors, tensors of its shape); and
not when the op computes a function result (the concat would, and a concat of a function result
copies its inputs: one launch for the one saved, and a larger arena).  Then
the op is no kernel of its own and the concat stays what it was (NASNet's adjust block: the
BatchNorm of the concat of two 1x1 convs folds into each conv; without this it is a vector
kernel whose four readers, a pool, a concat, a ReLU and an Add, none could take it).  A chain of
such ops (BN's Mul then Add) moves op by op.  Runs before the fusion rules, under the switch
ConcatPointwiseSinkFusion (group UBFusion).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from compiler.ir.rewriting import rewrite, with_loc
from compiler.ir.typed import elem_of, is_static
from compiler.transforms.fusion.helpers import const_value
from dialects import cann
from dialects.common import dense_from_numpy, numpy_dtype
from dialects.op_kinds import OutputFusable, is_cube, is_pointwise


@dataclass(frozen=True)
class Switch:
    """`ConcatPointwiseSinkFusion:off` in a switch file (or `fuse disable=`) keeps every
    pointwise op after its concat."""

    name: str = "ConcatPointwiseSinkFusion"
    group: str = "UBFusion"


SWITCH = Switch()


def _shape(v: SSAValue) -> list[int]:
    return list(cann.origin_shape(v.type))


def _one_reader(v: SSAValue, op: Operation) -> bool:
    from compiler.transforms.fusion.auto import live_uses

    return live_uses(v) == [op]


def takes_it(piece: SSAValue, concat: Operation, vectors: bool) -> bool:
    """The op computing `piece` (read only by `concat`, once) takes a pointwise op after it
    into its kernel: a pointwise op with a per-tile form (one group), a cube op (its epilogue
    loads channel vectors too), or another OutputFusable op (a pool: its epilogue loads only
    tensors of its result's shape, so not when `vectors`, the op reads a channel vector)."""
    from compiler.transforms.fusion.auto import tile_fn

    p = piece.owner
    if not isinstance(p, Operation) or len(p.results) != 1 or not _one_reader(piece, concat):
        return False
    if tile_fn(p) is not None or is_cube(p):
        return True
    return p.has_trait(OutputFusable, value_if_unregistered=False) and not vectors


def _operand_form(k: np.ndarray, shape: list[int]) -> str | None:
    """How a piece's kernel loads the constant `k` broadcast to `shape`: "scalar", "vector" (a
    channel vector along the last axis, as epilogues load them), "full" (of the result's
    shape); None for any other broadcast (no epilogue loads it)."""
    if k.size == 1:
        return "scalar"
    s = list(k.shape)
    if s == shape:
        return "full"
    if shape and s and all(d == 1 for d in s[:-1]) and s[-1] == shape[-1] and len(s) <= len(shape):
        return "vector"
    return None


def _piece_const(k: np.ndarray, rank: int, axis: int, lo: int, hi: int, full: int) -> np.ndarray | None:
    """The part of constant `k` (broadcast to a rank-`rank` result) that meets the piece
    [lo, hi) of the concat axis; None when k's extent there is neither 1 nor the whole axis."""
    a = axis - (rank - k.ndim)  # k's axis aligned with the result's (numpy: trailing first)
    if a < 0 or k.shape[a] == 1:
        return k
    if k.shape[a] != full:
        return None
    return np.take(k, np.arange(lo, hi), axis=a)


class SinkPointwiseThroughConcat(RewritePattern):
    """f(concat(pieces), constants) -> concat(f(piece, constants' parts)) (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        from compiler.transforms.fusion.auto import tile_fn

        if not is_pointwise(op) or tile_fn(op) is None or len(op.results) != 1 \
                or not all(is_static(v) for v in (*op.operands, *op.results)):
            return
        cats = [v for v in op.operands if isinstance(v.owner, cann.ConcatV2DOp)]
        if len(cats) != 1 or sum(1 for v in op.operands if v is cats[0]) != 1:
            return
        cat_v = cats[0]
        concat = cat_v.owner
        assert isinstance(concat, cann.ConcatV2DOp)
        y = op.results[0]
        shape = _shape(y)
        if _shape(cat_v) != shape or not _one_reader(cat_v, op) or cann.format_of(y.type) is not None:
            return
        if any(u.operation.name == "func.return" for u in y.uses):
            return  # (a concat computing a function result copies its inputs: a launch)
        consts: dict[int, np.ndarray] = {}
        forms: set[str | None] = set()
        for i, v in enumerate(op.operands):
            if v is not cat_v:
                k = const_value(v)
                if k is None:
                    return
                consts[i] = np.asarray(k)
                forms.add(_operand_form(consts[i], shape))
        if None in forms:
            return
        pieces = list(concat.x)
        if len(set(pieces)) != len(pieces) or \
                not all(takes_it(p, concat, "vector" in forms) for p in pieces):
            return
        rank = len(shape)
        axis = concat.concat_dim.value.data % rank
        new_ops: list[Operation] = []
        outs: list[SSAValue] = []
        lo = 0
        for p in pieces:
            hi = lo + _shape(p)[axis]
            operands: list[SSAValue] = []
            for i, v in enumerate(op.operands):
                if v is cat_v:
                    operands.append(p)
                    continue
                part = _piece_const(consts[i], rank, axis, lo, hi, shape[axis])
                if part is None:
                    return
                if part is consts[i]:
                    operands.append(v)
                    continue
                c = with_loc(cann.ConstOp(dense_from_numpy(
                    np.ascontiguousarray(part).astype(numpy_dtype(elem_of(v))))), v.owner
                    if isinstance(v.owner, Operation) else op)
                new_ops.append(c)
                operands.append(c.results[0])
            piece_shape = list(shape)
            piece_shape[axis] = hi - lo
            f = with_loc(type(op).create(operands=operands,
                                         result_types=[TensorType(elem_of(y), piece_shape)],
                                         properties=dict(op.properties),
                                         attributes=dict(op.attributes)), op)
            try:
                f.verify()
            except VerifyException:
                return  # (an op whose properties name its shape)
            new_ops.append(f)
            outs.append(f.results[0])
            lo = hi
        new_cat = with_loc(cann.ConcatV2DOp.create(operands=outs, result_types=[y.type],
                                                   properties=dict(concat.properties),
                                                   attributes=dict(concat.attributes)), concat)
        rewriter.insert(new_ops, InsertPoint.before(op))
        rewriter.replace(op, new_cat)
        rewriter.erase(concat)


def sink_through_concats(module: ModuleOp) -> bool:
    """Apply SinkPointwiseThroughConcat everywhere (to a fixpoint: a chain moves op by op)."""
    return rewrite(module, [SinkPointwiseThroughConcat()])
