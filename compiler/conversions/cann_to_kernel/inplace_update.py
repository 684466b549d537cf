"""cann.InplaceUpdate (a TensorListSetItem: row i of a preallocated buffer) -> kernel.vec_kernel
of kind "InplaceUpdate": the index tile GM -> UB, the rows of v GM -> UB, and one indexed
store per row (`kernel.scatter`, MTE3 UB -> GM at the row the index names).

In place (`mem.inplace_of = 0` on the kernel): when x is a loop variable of a while body (the
body's argument k, read by nothing else) and the result is what the body returns at k, the
result IS x's buffer: the kernel writes only the updated rows (O(row) bytes per iteration, not
the whole buffer), compiler/backend/memory_plan.py gives that loop variable one buffer in both
of the while's sets, and the kernel interpreter starts the result from x's data (the buffer's
content).  Otherwise the kernel first copies x to y tile by tile, then writes the rows.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i32, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, attr_of, kernel_op, num_elems, prod
from compiler.conversions.cann_to_kernel.recurrent import Buf
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from dialects import cann, kernel
from dialects.common import numpy_dtype

INPLACE_ATTR = "mem.inplace_of"


def loop_carried_in_place(op: cann.InplaceUpdateOp) -> bool:
    """x is argument k of a while body, used only here, and the body returns the result at k."""
    x = op.x
    if not isinstance(x, BlockArgument) or len(list(x.uses)) != 1:
        return False
    fn = x.block.parent_op()
    if not isinstance(fn, FuncOp) or x.block is not fn.body.blocks.first:
        return False
    uses = list(op.y.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, ReturnOp) or uses[0].index != x.index:
        return False
    name = fn.sym_name.data
    module = fn.parent_op()
    if module is None:
        return False
    for o in module.walk():
        if isinstance(o, (cann.WhileOp, kernel.WhileKernelOp)) and \
                o.body.root_reference.data == name:
            return True
    return False


class InplaceUpdateToVectorBody(ChipPattern):
    applies_to = roots(cann.InplaceUpdateOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.InplaceUpdateOp):
            return
        if not self.static_row_major_values(op, [op.x, op.indices, op.v, op.y]):
            return
        xt = op.x.type
        et = elem_of(xt)
        eb = numpy_dtype(et).itemsize
        rows = shape_of(xt)[0]
        k = shape_of(op.indices)[0]
        row_len = prod(shape_of(xt)[1:])
        ub = self.chip.ub
        # the update rows and their index tile in half of UB (the other half: the copy tiles)
        rt = max(1, min(k, (ub // 2) // max(1, row_len * eb + 4)))
        if row_len * eb + 4 > ub // 2:
            self.fail(op, f"{op.name}: a row of {row_len * eb} bytes does not fit half of UB "
                          f"({ub // 2} bytes)")
            return
        inplace = loop_carried_in_place(op)
        total = num_elems(xt)
        te = max(1, min(total, (ub // 2) // eb))
        body = Body([op.x.type, op.indices.type, op.v.type, op.y.type])
        x, idx, v, y = body.args
        with body.cores([1], [1]):
            if not inplace:  # y = x, tile by tile
                with body.loop(body.index(0), total, te, total) as t:
                    tile = body.load(x, [t], "flat", [te], et, "UB", shape=list(shape_of(xt)))
                    body.store(tile, y, [t], "flat")
            with body.loop(body.index(0), k, rt, k) as r:
                ids = body.load(idx, [r], "flat", [rt], i32, "UB", shape=[k])
                vals = body.load(v, [r], "rows", [rt, row_len], et, "UB")
                body.add(kernel.ScatterOp(
                    operands=[vals, y, [r], ids],
                    properties={"params": DictionaryAttr({"rows": attr_of(rows),
                                                          "num_ids": attr_of(k)})}))
        fields = {"rowTile": rt, "rowLen": row_len, "numIds": k, "rows": rows,
                  "copyTile": 0 if inplace else te}
        bufs = [Buf("UB", rt * (row_len * eb + 4) + (0 if inplace else te * eb),
                                  "rows, indices" + ("" if inplace else ", copy tile"))]
        new = kernel_op(kernel.VectorKernelOp, "InplaceUpdate", list(op.operands), op.y.type,
                        body.region(), 1, fields, bufs, op)
        if inplace:
            new.attributes[INPLACE_ATTR] = IntegerAttr(0, i64)
        rewriter.replace(op, new)


__all__ = ["INPLACE_ATTR", "InplaceUpdateToVectorBody", "loop_carried_in_place"]
