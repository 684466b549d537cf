"""Matrix multiplications: MatMulV2 and BatchMatMulV2.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.cann.base import (
    BatchMatMulCanonicalization,
    CannOp,
    _check_result_shape,
    _flag,
    _fmt_shape,
    _oshape,
    broadcast_shapes,
)
from dialects.common import check_rank, check_same_element_type, dims_compatible
from dialects.layouts import RunsOn
from dialects.op_kinds import Cube, OutputFusable


def _matmul_dims(n: str, a, b, ta: bool, tb: bool):
    m, k = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    k2, nn = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    if not dims_compatible(k, k2):
        raise VerifyException(f"{n}: contraction sizes differ: x1 gives {k}, x2 gives {k2}")
    return m, nn




@irdl_op_definition
class MatMulV2Op(CannOp):
    """y[M, N] = op(x1)[M, K] @ op(x2)[K, N] (+ bias[N]); op = transpose when transpose_x* is set."""

    name = "cann.MatMulV2"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    transpose_x1 = prop_def(IntegerAttr)
    transpose_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False, params=("bias",)))

    def verify_op(self) -> None:
        n = self.name
        a, b = _oshape(self.x1), _oshape(self.x2)
        check_rank(n, "x1", a, (2,))
        check_rank(n, "x2", b, (2,))
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        m, nn = _matmul_dims(n, a, b, _flag(self.transpose_x1), _flag(self.transpose_x2))
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], nn):
                raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (m, nn), _oshape(self.y))




@irdl_op_definition
class BatchMatMulV2Op(CannOp):
    """Batched matmul over the last two axes, batch axes broadcast; adj_x1/adj_x2 transpose."""

    name = "cann.BatchMatMulV2"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    adj_x1 = prop_def(IntegerAttr)
    adj_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False),
                        BatchMatMulCanonicalization())

    def verify_op(self) -> None:
        n = self.name
        a, b = _oshape(self.x1), _oshape(self.x2)
        if len(a) < 2 or len(b) < 2:
            raise VerifyException(f"{n}: operands must have rank at least 2")
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        m, nn = _matmul_dims(n, a, b, _flag(self.adj_x1), _flag(self.adj_x2))
        batch = broadcast_shapes(n, a[:-2], b[:-2])
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], nn):
                raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (*batch, m, nn), _oshape(self.y))

