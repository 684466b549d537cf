"""Cumsum / Cumprod -> kernel.vec_kernel: a scan along one axis on the vector unit.

x (row-major) is viewed as [rows, length, inner] around the scanned axis (rows = the extent
before it, inner = the extent after it).  Per core, tiles of rows; for each tile a running sum
[tile, inner] (the carry) starts at 0 (Cumprod: 1) and the axis is walked in UB chunks of `chunkLen`
positions (`scan_rows` view; `reverse` walks it from the last position):

    part = load x[rows, chunk, inner]                      GM -> UB
    s    = Cumsum(part, carry)  (exclusive or inclusive)   every prefix of the chunk + carry
    store s -> y[rows, chunk, inner]                       UB -> GM
    carry += RowSum(part)                                  kernel.accumulate
(Cumprod: Cumprod(part, carry) from the carry, carry *= RowProd(part).)

Like the reductions of compiler/conversions/cann_to_kernel/vector.py (the chunked walk, the accumulator), but every
prefix is written.  Within a chunk the prefixes are summed in order from the carry, so an axis
that fits one chunk gives exactly the cann-level semantics (compiler/interpreters/cann_impl.py
`cumsum`); across chunks the carry is the chunk's RowSum (a different summation order).
Integers are summed exactly (the vector unit's accumulator type is float64 for int32 here;
TensorFlow wraps on int32 overflow, this kernel does not model that).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    kernel_op,
    prod,
)
from compiler.ir.rewriting import roots
from compiler.ir.typed import shape_of
from compiler.target.tiling import TilingError, vector_tiling
from dialects import cann, kernel
from dialects.common import numpy_dtype

#: UB tiles of [tile, chunk, inner] elements live at once: the loaded chunk and its prefixes
#: (double-buffered), plus the carry and the chunk's sum (a row each, counted as a third tile).
SCAN_BUFFERS = 3


#: scan op -> (its kernel.vec function, the carry's fill (dialects/kernel.py Fill: 0 or 3 = 1),
#: the chunk's reduction, the carry's kernel.accumulate)
SCANS = {cann.CumsumOp: ("Cumsum", 0, "RowSum", kernel.AccumulateFn.Add),
         cann.CumprodOp: ("Cumprod", 3, "RowProd", kernel.AccumulateFn.Mul)}


class CumsumToVectorBody(ChipPattern):
    """cann.Cumsum / Cumprod on a row-major tensor with static shapes -> a scan kernel (module
    docstring)."""

    applies_to = roots(cann.ScanOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.ScanOp):
            return
        kind, fill, row_fn, acc_fn = SCANS[type(op)]
        xt, yt = op.x.type, op.y.type
        if not self.static_row_major(op, xt, yt, kind):
            return
        xs = list(shape_of(xt))
        axis = op.axis.value.data % len(xs)
        rows, length, inner = prod(xs[:axis]), xs[axis], prod(xs[axis + 1:])
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        if rows * length * inner == 0:
            self.fail(op, f"{op.name}: an empty tensor has no scan kernel")
            return
        chip = self.chip
        chunk = max(1, min(length, chip.ub // (2 * SCAN_BUFFERS * eb * inner)))
        try:
            t = vector_tiling(kind, rows, SCAN_BUFFERS, eb * inner * chunk, self.chip,
                              inner * length)
        except TilingError as e:
            self.fail(op, f"{e} (a scan of inner extent {inner} needs whole [1, 1, {inner}] "
                          "tiles)")
            return
        f, tile = t.fields, t.fields["tileElems"]
        f = {**f, "scanLen": length, "chunkLen": chunk, "inner": inner}
        exclusive = bool(op.exclusive.value.data)
        reverse = int(bool(op.reverse.value.data))
        geo = dict(rows=rows, length=length, inner=inner, reverse=reverse)
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                carry = body.vec("Fill", [], [tile, inner], et, {"fill": IntegerAttr(fill, i64)})
                zero = body.index(0)
                with body.loop(zero, length, chunk, length) as li:
                    part = body.load(body.args[0], [ti, li], "scan_rows", [tile, chunk, inner],
                                     et, "UB", **geo)
                    s = body.vec(kind, [part, carry], [tile, chunk, inner], et,
                                 {"exclusive": IntegerAttr(int(exclusive), i64)})
                    body.store(s, body.args[-1], [ti, li], "scan_rows", **geo)
                    total = body.vec(row_fn, [part], [tile, inner], et)
                    body.add(kernel.AccumulateOp(operands=[carry, total],
                                                 properties={"fn": kernel.AccumulateFnAttr.of(
                                                     acc_fn)}))
        new = kernel_op(kernel.VectorKernelOp, kind, [op.x], yt, body.region(), t.block_dim,
                        f, t.buffers, op)
        rewriter.replace(op, new)
