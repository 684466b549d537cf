"""A Mul by a scalar constant read only by convolutions folds into their filters: a cube op is
linear in its data input (and in a scaled conv's per-channel scale, cann.FusedConv2DScaled:
conv(x * scale, w)), so conv(x * k, w) = conv(x, w * k) with the bias, activation and residual
applied after it unchanged.  The hard-sigmoid gate of MobileNetV3's squeeze-excite (relu6(x + 3)
* 1/6, the 1/6 left behind the SE kernel) is such a Mul: without this it is a vector kernel of
one [1, 1, 1, C] tensor of its own.  Part of the automatic fusion (switch AutomaticUBFusion):
a pointwise op no neighbour kernel can take (compiler/transforms/fusion/auto.py) disappears
into the neighbour's constant weights instead.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of
from compiler.transforms.fusion.helpers import const_value
from dialects import cann
from dialects.common import dense_from_numpy, numpy_dtype

#: cube ops linear in operand #i (i in the set), each with its constant filter as operand #1
_LINEAR: dict[type[Operation], set[int]] = {cann.Conv2DOp: {0}, cann.FusedConv2DOp: {0}, cann.FusedConv2DAddOp: {0},
           cann.FusedConv2DScaledOp: {0, 3}, cann.DepthwiseConv2DOp: {0},
           cann.FusedDepthwiseConv2DOp: {0}}


def _scalar(v: SSAValue) -> float | None:
    a = const_value(v)
    return None if a is None or a.size != 1 else float(np.asarray(a).reshape(()))


def _folds_into(u: Operation, index: int, v: SSAValue) -> bool:
    reads = _LINEAR.get(type(u))
    return (reads is not None and index in reads and u.operands[1] is not v
            and isinstance(u.operands[1].type, TensorType) and const_value(u.operands[1]) is not None
            and sum(1 for o in u.operands if o is v) == 1)


def fold_scalar_scales(root: Operation) -> int:
    """Fold every such Mul; the number folded."""
    n = 0
    for op in list(root.walk()):
        if not isinstance(op, cann.MulOp) or op.parent is None:
            continue
        a, b = op.operands
        k, x = (_scalar(b), a) if _scalar(b) is not None else (_scalar(a), b)
        y = op.results[0]
        if k is None or x.type != y.type or not y.uses \
                or not all(_folds_into(u.operation, u.index, y) for u in y.uses):
            continue
        for use in list(y.uses):
            u = use.operation
            w = const_value(u.operands[1])
            assert w is not None  # _folds_into: the filter is a constant
            c = with_loc(cann.ConstOp(dense_from_numpy((w * k).astype(numpy_dtype(elem_of(u.operands[1]))))), u)
            Rewriter.insert_op(c, InsertPoint.before(u))
            u.operands[1] = c.results[0]
            u.operands[use.index] = x
            with_loc(u, u, op)
        Rewriter.erase_op(op)
        n += 1
    return n
