"""GatherV2D -> kernel.vec_kernel with an indexed data move (`kernel.gather`).

x (row-major) is viewed as [outer, R, inner] around the gathered axis and y as
[outer * M, inner] (M = the number of indices).  Per core, tiles of result rows: the tile's
indices are loaded into UB (indices broadcast over `outer`: a `flat` load of shape
[outer, *indices]), then one row of `inner` elements is moved from GM per index (Ascend C reads
the index as a scalar and issues a DataCopy at that address), and the tile is stored as rows.
An index outside [0, R) reads zeros (TensorFlow's CPU kernel rejects it; its GPU kernel writes
zeros).  A result on FRACTAL_NZ (one batch of rows [.., M, K], assign-layouts' gather-rows)
is stored row by row across its K1 column blocks (`nz_origin_rows`), padding rows zero.
An index computation read only by gathers (a FusedKernel marked `prologue`, fusion/auto.py:
Keras' Embedding wraps negative ids) runs on the index tile in UB after its inputs' loads."""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    attr_of,
    kernel_op,
    num_elems,
    prod,
)
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from dialects import cann, kernel
from dialects.common import numpy_dtype


def nz_rows_result(yt) -> bool:
    """y FRACTAL_NZ of one batch of rows [.., M, K] (compiler/transforms/layout_assignment.py
    rule_gather_rows)."""
    from compiler.target.formats import Format
    from dialects import cann

    f = cann.format_of(yt)
    return f is not None and f.fmt == Format.FRACTAL_NZ and prod(list(f.origin)[:-2]) == 1


class GatherToVectorBody(ChipPattern):
    applies_to = roots(cann.GatherV2DOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.GatherV2DOp):
            return
        xt, it, yt = op.x.type, op.indices.type, op.y.type
        on_nz = nz_rows_result(yt)  # assign-layouts' gather-rows: one batch of NZ rows
        if not (self.static_row_major(op, xt, xt if on_nz else yt, "gather")
                and self.static_row_major(op, it, it, "gather")):
            return
        from compiler.conversions.cann_to_kernel.fused import emit_region, prologue_lowerable

        # an index computation read only by gathers runs on the index tile (its prologue)
        pro = op.indices.owner if isinstance(op.indices.owner, cann.FusedKernelOp) and \
            prologue_lowerable(op.indices.owner) else None
        ins = list(pro.inputs) if pro is not None else [op.indices]
        xs, ishape = list(shape_of(xt)), list(shape_of(it))
        axis = op.axis.value.data % len(xs)
        outer, axis_len, inner = prod(xs[:axis]), xs[axis], prod(xs[axis + 1:])
        m = num_elems(it)
        rows = outer * m
        store_view, store_p = "rows", {}
        if on_nz:
            # every padded row of the one batch: the rows past M are written as zeros
            k1, m1, m0, _ = yt.get_shape()[-4:]
            rows = m1 * m0
            store_view, store_p = "nz_origin_rows", {"rows": m, "cols": inner}
        et, ie = elem_of(yt), elem_of(it)
        row_bytes = numpy_dtype(et).itemsize * inner + numpy_dtype(ie).itemsize
        if pro is not None:
            from compiler.transforms.fusion.auto import live_tiles

            row_bytes += live_tiles(pro.body_ops()) * max(numpy_dtype(elem_of(v)).itemsize
                                                          for v in (*ins, op.indices))
        # one UB buffer per row: its index and its `inner` elements, double-buffered
        t = self.vector_tiling_or_fail(op, "GatherV2D", rows, 1, row_bytes, max(inner, 1),
                                       note=f" (one gathered row is {inner} elements)")
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        params = {"axis_len": axis_len, "num_ids": m, "inner": inner}
        body = Body([xt, *(v.type for v in ins), yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                def load(i: int, ti=ti) -> SSAValue:
                    return body.load(body.args[1 + i], [ti], "flat", [tile], elem_of(ins[i]),
                                     "UB", shape=[outer, *ishape])

                ids = load(0) if pro is None else emit_region(body, pro, [tile], load, lambda e: e)
                v = body.add(kernel.GatherOp(
                    operands=[body.args[0], [ti], ids],
                    result_types=[kernel.memref([tile, inner], et, "UB")],
                    properties={"params": DictionaryAttr({k: attr_of(v)
                                                          for k, v in params.items()})}))
                body.store(v, body.args[-1], [ti], store_view, **store_p)
        new = kernel_op(kernel.VectorKernelOp, "GatherV2D", [op.x, *ins], yt, body.region(),
                        t.block_dim, {**f, "axisLen": axis_len, "innerElems": inner}, t.buffers,
                        op)
        rewriter.replace(op, new)
        if pro is not None:
            from compiler.conversions.cann_to_kernel.cube import erase_unread

            erase_unread(rewriter, pro)
