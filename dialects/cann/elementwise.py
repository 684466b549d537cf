"""Elementwise and broadcast ops: unary and binary arithmetic, activations, BiasAdd, comparisons,
logic, SelectV2 and Cast.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, TensorType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from compiler.ir.typed import elem_of
from dialects.cann.base import (
    CannOp,
    CastCanonicalization,
    DataFormat,
    DataFormatAttr,
    FoldedInFusion,
    _check_result_shape,
    _oshape,
    broadcast_shapes,
    format_of,
    inferring,
    origin_shape,
)
from dialects.common import check_rank, check_same_element_type, dims_compatible, enum_prop
from dialects.layouts import RunsOn
from dialects.op_kinds import Broadcast, Elementwise, FiniteOnFinite, FixedPrecision, PrecisionReduce


@irdl_op_definition
class BiasAddOp(CannOp):
    name = "cann.BiasAdd"
    x = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(FiniteOnFinite(), Pure(), Broadcast(), RunsOn(nc1hwc0="same", params=("bias",)))

    def verify_op(self) -> None:
        n = self.name
        fmt = self.data_format.data
        xs, bs = origin_shape(self.x.type), origin_shape(self.bias.type)
        check_rank(n, "bias", bs, (1,))
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got rank {len(xs)}")
        check_same_element_type(n, self.x.type, self.bias.type, self.y.type)
        if self.x.type != self.y.type:
            raise VerifyException(f"{n}: result type must equal the type of x")
        c = xs[1] if fmt == DataFormat.NCHW else xs[-1]
        if not dims_compatible(c, bs[0]):
            raise VerifyException(f"{n}: bias has {bs[0]} elements, channels are {c}")




@irdl_op_definition
class ReluOp(CannOp):
    name = "cann.Relu"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(FiniteOnFinite(), Pure(), Elementwise())

    def verify_op(self) -> None:
        if inferring():  # the rule: y has x's shape
            _check_result_shape(self.name, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: result type must equal the operand type")




class UnaryCannOp(CannOp):
    """y = f(x) elementwise; y has x's type (its storage format too)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_op(self) -> None:
        if inferring():  # the rule: y has x's shape
            _check_result_shape(self.name, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: result type must equal the operand type")




@irdl_op_definition
class Relu6Op(UnaryCannOp):
    name = "cann.Relu6"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class SigmoidOp(UnaryCannOp):
    name = "cann.Sigmoid"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class TanhOp(UnaryCannOp):
    name = "cann.Tanh"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class EluOp(UnaryCannOp):
    name = "cann.Elu"
    traits = traits_def(FiniteOnFinite())
    alpha = opt_prop_def(FloatAttr)




@irdl_op_definition
class LeakyReluOp(UnaryCannOp):
    name = "cann.LeakyRelu"
    traits = traits_def(FiniteOnFinite())
    negative_slope = prop_def(FloatAttr)




@irdl_op_definition
class NegOp(UnaryCannOp):
    name = "cann.Neg"
    traits = traits_def(FiniteOnFinite(), FoldedInFusion())




@irdl_op_definition
class SqrtOp(UnaryCannOp):
    name = "cann.Sqrt"
    traits = traits_def(PrecisionReduce(False), FoldedInFusion())




@irdl_op_definition
class RsqrtOp(UnaryCannOp):
    name = "cann.Rsqrt"
    traits = traits_def(PrecisionReduce(False), FoldedInFusion())




@irdl_op_definition
class SquareOp(UnaryCannOp):
    name = "cann.Square"
    traits = traits_def(FiniteOnFinite(), FoldedInFusion())




@irdl_op_definition
class ErfOp(UnaryCannOp):
    name = "cann.Erf"
    traits = traits_def(FiniteOnFinite(), PrecisionReduce(False))




@irdl_op_definition
class ErfcOp(UnaryCannOp):
    name = "cann.Erfc"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class ExpOp(UnaryCannOp):
    name = "cann.Exp"
    traits = traits_def(PrecisionReduce(False), FoldedInFusion())




@irdl_op_definition
class LogOp(UnaryCannOp):
    name = "cann.Log"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class AbsOp(UnaryCannOp):
    name = "cann.Abs"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class SinOp(UnaryCannOp):
    """sin(x) (CANN's Sin; rotary position embeddings compute it of positions x frequencies)."""

    name = "cann.Sin"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class CosOp(UnaryCannOp):
    name = "cann.Cos"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class FloorOp(UnaryCannOp):
    name = "cann.Floor"




@irdl_op_definition
class CeilOp(UnaryCannOp):
    name = "cann.Ceil"




@irdl_op_definition
class RoundOp(UnaryCannOp):
    """x rounded to the nearest integer, halves to even (TF's Round and Rint)."""

    name = "cann.Round"




@irdl_op_definition
class SignOp(UnaryCannOp):
    """-1, 0 or 1 by the sign of x (sign(0) = 0)."""

    name = "cann.Sign"




@irdl_op_definition
class Log1pOp(UnaryCannOp):
    """log(1 + x), accurate for small x."""

    name = "cann.Log1p"




@irdl_op_definition
class Expm1Op(UnaryCannOp):
    """exp(x) - 1, accurate for small x."""

    name = "cann.Expm1"




@irdl_op_definition
class ReciprocalOp(UnaryCannOp):
    name = "cann.Reciprocal"
    traits = traits_def(PrecisionReduce(False), FoldedInFusion())




@irdl_op_definition
class GeluOp(UnaryCannOp):
    """GELU, tanh approximation (CANN's Gelu)."""

    name = "cann.Gelu"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class GeluErfOp(UnaryCannOp):
    """GELU, exact: 0.5 x (1 + erf(x / sqrt 2)) (what the GELU recomposition rules build from
    tf.nn.gelu(approximate=False); the activation GeluErf of the fused ops)."""

    name = "cann.GeluErf"




@irdl_op_definition
class SoftplusOp(UnaryCannOp):
    """log(1 + exp(x)) (docs/extending.md's worked example)."""

    name = "cann.Softplus"
    traits = traits_def(FiniteOnFinite())




@irdl_op_definition
class FastGeluOp(UnaryCannOp):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))  (CANN's FastGelu)."""

    name = "cann.FastGelu"
    traits = traits_def(FiniteOnFinite())




class BinaryCannOp(CannOp):
    """y = f(x1, x2) elementwise with numpy broadcasting on the origin shapes."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast())

    def verify_op(self) -> None:
        n = self.name
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        want = broadcast_shapes(n, _oshape(self.x1), _oshape(self.x2))
        _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class AddOp(BinaryCannOp):
    name = "cann.Add"
    traits = traits_def(FiniteOnFinite(), Commutative(), FoldedInFusion())




@irdl_op_definition
class MulOp(BinaryCannOp):
    name = "cann.Mul"
    traits = traits_def(FiniteOnFinite(), Commutative(), FoldedInFusion())




@irdl_op_definition
class SubOp(BinaryCannOp):
    name = "cann.Sub"
    traits = traits_def(FiniteOnFinite(), FoldedInFusion())




@irdl_op_definition
class RealDivOp(BinaryCannOp):
    name = "cann.RealDiv"
    traits = traits_def(PrecisionReduce(False), FoldedInFusion())




@irdl_op_definition
class MaximumOp(BinaryCannOp):
    name = "cann.Maximum"
    traits = traits_def(FiniteOnFinite(), Commutative(), FoldedInFusion())




@irdl_op_definition
class MinimumOp(BinaryCannOp):
    name = "cann.Minimum"
    traits = traits_def(FiniteOnFinite(), Commutative(), FoldedInFusion())




@irdl_op_definition
class PowOp(BinaryCannOp):
    name = "cann.Pow"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class SquaredDifferenceOp(BinaryCannOp):
    name = "cann.SquaredDifference"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class FloorDivOp(BinaryCannOp):
    """floor(x1 / x2) (integers: rounded toward negative infinity)."""

    name = "cann.FloorDiv"




@irdl_op_definition
class FloorModOp(BinaryCannOp):
    """x1 - floor(x1 / x2) * x2: the remainder takes the sign of x2."""

    name = "cann.FloorMod"




@irdl_op_definition
class Atan2Op(BinaryCannOp):
    """atan2(x1, x2): the angle of the point (x2, x1), in [-pi, pi] (TensorFlow's Atan2(y, x);
    CANN ops-math `math/atan2`)."""

    name = "cann.Atan2"




@irdl_op_definition
class SelectV2Op(CannOp):
    """y = condition ? then : else, broadcasting all three."""

    name = "cann.SelectV2"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "SelectV2"
    condition = operand_def(TensorType)
    then_value = operand_def(TensorType)
    else_value = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", fractal_nz="same"))

    def verify_op(self) -> None:
        n = self.name
        if str(elem_of(self.condition)) != "i1":
            raise VerifyException(f"{n}: condition must be a tensor of i1")
        check_same_element_type(n, self.then_value.type, self.else_value.type, self.y.type)
        want = broadcast_shapes(n, _oshape(self.condition), _oshape(self.then_value),
                                _oshape(self.else_value))
        _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class CastOp(CannOp):
    """Element type conversion; dst_type is the result's element type."""

    name = "cann.Cast"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "Cast"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    dst_type = prop_def(Attribute)
    traits = traits_def(Pure(), Elementwise(), CastCanonicalization(), FixedPrecision())

    def verify_op(self) -> None:
        n = self.name
        if self.dst_type != self.y.type.element_type:
            raise VerifyException(f"{n}: dst_type {self.dst_type} differs from the result's "
                                  f"element type {self.y.type.element_type}")
        _check_result_shape(n, _oshape(self.x), _oshape(self.y))
        if format_of(self.x.type) != format_of(self.y.type):
            raise VerifyException(f"{n}: operand and result must have one storage format")




# --- comparisons and logic (bool results, broadcasting) -------------------------------------------


class CompareCannOp(CannOp):
    """y = x1 <op> x2 elementwise (numpy broadcasting); y is bool (i1)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", fractal_nz="same"))

    def verify_op(self) -> None:
        n = self.name
        check_same_element_type(n, self.x1.type, self.x2.type)
        if str(elem_of(self.y)) != "i1":
            raise VerifyException(f"{n}: result must be a tensor of i1")
        _check_result_shape(n, broadcast_shapes(n, _oshape(self.x1), _oshape(self.x2)),
                            _oshape(self.y))




@irdl_op_definition
class GreaterOp(CompareCannOp):
    name = "cann.Greater"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "Greater"




@irdl_op_definition
class GreaterEqualOp(CompareCannOp):
    name = "cann.GreaterEqual"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "GreaterEqual"




@irdl_op_definition
class LessOp(CompareCannOp):
    name = "cann.Less"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "Less"




@irdl_op_definition
class LessEqualOp(CompareCannOp):
    name = "cann.LessEqual"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "LessEqual"




@irdl_op_definition
class EqualOp(CompareCannOp):
    name = "cann.Equal"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "Equal"
    traits = traits_def(Commutative())




@irdl_op_definition
class NotEqualOp(CompareCannOp):
    name = "cann.NotEqual"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "NotEqual"
    traits = traits_def(Commutative())




class LogicalBinaryOp(CompareCannOp):
    def verify_op(self) -> None:
        if str(elem_of(self.x1)) != "i1":
            raise VerifyException(f"{self.name}: operands must be tensors of i1")
        super().verify_op()




@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    name = "cann.LogicalAnd"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "LogicalAnd"
    traits = traits_def(Commutative())




@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    name = "cann.LogicalOr"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "LogicalOr"
    traits = traits_def(Commutative())




@irdl_op_definition
class LogicalNotOp(CannOp):
    name = "cann.LogicalNot"
    GENERAL_ELEMENTWISE_FN: ClassVar[str] = "LogicalNot"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_op(self) -> None:
        if str(elem_of(self.x)) != "i1" or self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: operand and result must be one tensor type of i1")

