"""TopKV2 -> kernel.vec_kernel: a row-wise top-k along the last axis on the vector unit.

x (row-major) is viewed as rows of its last axis (length n); per core, UB tiles of whole rows
(`rows` view, as SoftmaxV2's row kernel, compiler/conversions/cann_to_kernel/vector.py):

    t   = load x[rows, n]                              GM -> UB
    idx = TopKIndices(t; k, largest)  [rows, k] int32  each row sorted (stable), first k positions
    v   = GatherLanes(t, idx)         [rows, k]        v[r, j] = t[r, idx[r, j]]
    store v -> values, idx -> indices                  UB -> GM

One kernel with two results: values is its result, indices its extra result (the body's
arguments: x, values, indices).  On the device the sort is Ascend C's Sort / MrgSort over the
row (value, index) pairs and the gather its per-lane Gather; the interpreter computes the
cann-level semantics (compiler/interpreters/cann_impl.py `top_k_indices`) exactly, ties by the
lower index.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i32, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, kernel_op, prod
from compiler.ir.typed import elem_of, shape_of
from dialects import cann, kernel
from dialects.common import numpy_dtype

#: UB tiles of whole rows live at once: the loaded rows (double-buffered) and the sort's
#: (value, index) working copy, counted as a third row tile; the k-wide results fit in those.
TOPK_BUFFERS = 3


class TopKToVectorBody(ChipPattern):
    """cann.TopKV2 on a row-major tensor with static shapes -> a row kernel (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.TopKV2Op):
            return
        xt, vt, it = op.x.type, op.values.type, op.indices.type
        if not (self.static_row_major(op, xt, vt, "TopKV2")
                and self.static_row_major(op, xt, it, "TopKV2")):
            return
        xs = list(shape_of(xt))
        rows, n, k = prod(xs[:-1]), xs[-1], op.k.value.data
        if rows * k == 0:
            self.fail(op, f"{op.name}: an empty result (k = {k}, {rows} rows) has no kernel")
            return
        et = elem_of(op.x)
        eb = max(numpy_dtype(et).itemsize, 4)  # the sort's pairs carry an int32 index
        t = self.vector_tiling_or_fail(op, "TopKV2", rows, TOPK_BUFFERS, eb * n, n,
                                       note=f" (a top-k sorts whole rows of {n} elements)")
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        f = {**f, "rowLen": n, "k": k}
        largest = int(bool(op.largest.value.data))
        body = Body([xt, vt, it])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                x = body.load(body.args[0], [ti], "rows", [tile, n], et, "UB")
                idx = body.vec("TopKIndices", [x], [tile, k], i32,
                               {"k": IntegerAttr(k, i64), "largest": IntegerAttr(largest, i64)})
                v = body.vec("GatherLanes", [x, idx], [tile, k], et)
                body.store(v, body.args[1], [ti], "rows")
                body.store(idx, body.args[2], [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, "TopKV2", [op.x], vt, body.region(), t.block_dim,
                        f, t.buffers, op, extra_types=[it])
        rewriter.replace(op, new, [new.y, *new.extra])
