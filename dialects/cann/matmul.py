"""Matrix multiplications: MatMulV2 and BatchMatMulV2 (and the MatMulLike base they share with
fused.py's FusedMatMul).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.cann.base import (
    AlwaysFolded,
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
from dialects.op_kinds import Cube, Opaque, OutputFusable


def _matmul_dims(n: str, a, b, ta: bool, tb: bool):
    m, k = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    k2, nn = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    if not dims_compatible(k, k2):
        raise VerifyException(f"{n}: contraction sizes differ: x1 gives {k}, x2 gives {k2}")
    return m, nn


def verify_matmul(op, t1: bool, t2: bool, batched: bool) -> None:
    """The shape rules of a matmul y = op(x1) @ op(x2) (+ bias[N]) (op = transpose when t1 /
    t2): MatMulV2 (2-D, batched False), BatchMatMulV2 and FusedMatMul (batch axes broadcast)."""
    n = op.name
    a, b = _oshape(op.x1), _oshape(op.x2)
    if batched:
        if len(a) < 2 or len(b) < 2:
            raise VerifyException(f"{n}: operands must have rank at least 2")
    else:
        check_rank(n, "x1", a, (2,))
        check_rank(n, "x2", b, (2,))
    check_same_element_type(n, op.x1.type, op.x2.type, op.y.type)
    m, nn = _matmul_dims(n, a, b, t1, t2)
    batch = broadcast_shapes(n, a[:-2], b[:-2]) if batched else ()
    if op.bias is not None:
        bs = _oshape(op.bias)
        if len(bs) != 1 or not dims_compatible(bs[0], nn):
            raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
    _check_result_shape(n, (*batch, m, nn), _oshape(op.y))




class MatMulLike(CannOp):
    """A matmul y = op(x1) @ op(x2) (+ bias[N]) (MatMulV2, BatchMatMulV2, FusedMatMul): operands
    x1, x2 and the optional bias, result y; the cube unit reads x1, x2 and writes y as FRACTAL_NZ
    (assign-layouts LayoutMatMul, cann-to-kernel MatMulToCube)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)



@irdl_op_definition
class MatMulV2Op(MatMulLike):
    """y[M, N] = op(x1)[M, K] @ op(x2)[K, N] (+ bias[N]); op = transpose when transpose_x* is set."""

    name = "cann.MatMulV2"
    transpose_x1 = prop_def(IntegerAttr)
    transpose_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False, params=("bias",)))

    def verify_op(self) -> None:
        verify_matmul(self, _flag(self.transpose_x1), _flag(self.transpose_x2), batched=False)




@irdl_op_definition
class BatchMatMulV2Op(MatMulLike):
    """Batched matmul over the last two axes, batch axes broadcast; adj_x1/adj_x2 transpose."""

    name = "cann.BatchMatMulV2"
    adj_x1 = prop_def(IntegerAttr)
    adj_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False),
                        BatchMatMulCanonicalization())

    def verify_op(self) -> None:
        verify_matmul(self, _flag(self.adj_x1), _flag(self.adj_x2), batched=True)





@irdl_op_definition
class MatrixBandPartOp(CannOp):
    """CANN's MatrixBandPart(x, num_lower, num_upper) -> y (REG_OP(MatrixBandPart) in
    graphengine's .../ops/matrix_calculation_ops.h): x with every element of each innermost
    matrix outside its band set to zero, the band num_lower sub-diagonals and num_upper
    super-diagonals (a negative bound: the whole triangle).  TensorFlow's MatrixBandPart."""

    name = "cann.MatrixBandPart"
    x = operand_def(TensorType)
    num_lower = operand_def(TensorType)
    num_upper = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque(), AlwaysFolded())

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got {_fmt_shape(xs)}")
        for what, v in (("num_lower", self.num_lower), ("num_upper", self.num_upper)):
            if any(d != 1 for d in _oshape(v)):
                raise VerifyException(f"{n}: {what} must be a scalar, got "
                                      f"{_fmt_shape(_oshape(v))}")
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))
