"""Normalizations, softmax, pooling, reductions, cumulative sums, top-k and resizing.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.typed import elem_of
from dialects.cann.base import (
    CannOp,
    DataFormat,
    DataFormatAttr,
    _check_result_shape,
    _flag,
    _fmt_shape,
    _fval,
    _norm_axes,
    _oshape,
    _shapes_match,
    inferring,
)
from dialects.common import (
    I64Array,
    check_len,
    check_one_of,
    check_rank,
    check_same_element_type,
    dims_compatible,
    enum_prop,
    string_enum_attr,
)
from dialects.layouts import RunsOn
from dialects.op_kinds import Broadcast, InputFusable, Opaque, OutputFusable, PrecisionReduce, Reduction, RowEpilogue


class Padding(StrEnum):
    """A pooling window's padding: SAME (TensorFlow's SAME pads, compiler/target/conv_geometry.py
    same_pads) or VALID (none)."""

    SAME = "SAME"
    VALID = "VALID"


#: `padding = "SAME"`
PaddingAttr = string_enum_attr("cann.padding", Padding)


@irdl_op_definition
class BNInferOp(CannOp):
    """Inference batch norm: y = (x - mean) / sqrt(variance + epsilon) * scale + offset,
    per channel (axis 1 for NCHW, the last axis for NHWC / ND)."""

    name = "cann.BNInfer"
    x = operand_def(TensorType)
    scale = operand_def(TensorType)
    offset = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    y = result_def(TensorType)
    epsilon = prop_def(FloatAttr)
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", params=("scale", "offset", "mean", "variance")),
                        PrecisionReduce(False))

    def verify_op(self) -> None:
        n = self.name
        fmt = self.data_format.data
        xs = _oshape(self.x)
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got rank {len(xs)}")
        c = xs[1] if fmt == DataFormat.NCHW else xs[-1]
        for what in ("scale", "offset", "mean", "variance"):
            s = _oshape(getattr(self, what))
            if len(s) != 1 or not dims_compatible(s[0], c):
                raise VerifyException(f"{n}: {what} must be 1-D of length {c}, got {_fmt_shape(s)}")
        if _fval(self.epsilon) < 0:
            raise VerifyException(f"{n}: epsilon must be >= 0")
        _check_result_shape(n, xs, _oshape(self.y))




def verify_layer_norm(op, xs: tuple[int, ...], *input_types) -> None:
    """The shape rules of a LayerNorm over the (broadcast) input shape `xs`: begin_norm_axis and
    begin_params_axis in range, gamma and beta of shape xs[begin_params_axis:], the result of
    shape xs (cann.LayerNorm, cann.AddLayerNorm)."""
    n = op.name
    _norm_axes(n, [op.begin_norm_axis.value.data], len(xs))
    p = _norm_axes(n, [op.begin_params_axis.value.data], len(xs))[0]
    for what in ("gamma", "beta"):
        s = _oshape(getattr(op, what))
        if not _shapes_match(s, xs[p:]):
            raise VerifyException(f"{n}: {what} must have shape {_fmt_shape(xs[p:])}, "
                                  f"got {_fmt_shape(s)}")
    check_same_element_type(n, *input_types, op.y.type)
    _check_result_shape(n, xs, _oshape(op.y))


@irdl_op_definition
class LayerNormOp(CannOp):
    """y = (x - mean) / sqrt(var + epsilon) * gamma + beta over axes >= begin_norm_axis
    (CANN's LayerNorm; its mean/variance side outputs are not materialised here)."""

    name = "cann.LayerNorm"
    x = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    begin_norm_axis = prop_def(IntegerAttr)
    begin_params_axis = prop_def(IntegerAttr)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), Reduction(), RowEpilogue(), InputFusable(),
                        RunsOn(nc1hwc0="rows", fractal_nz="rows", params=("gamma", "beta")),
                        PrecisionReduce(False))

    def verify_op(self) -> None:
        verify_layer_norm(self, _oshape(self.x), self.x.type)




@irdl_op_definition
class SoftmaxV2Op(CannOp):
    name = "cann.SoftmaxV2"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = prop_def(I64Array)
    traits = traits_def(Pure(), Reduction(), RowEpilogue(), RunsOn(nc1hwc0="rows", fractal_nz="rows"),
                        PrecisionReduce(False))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        _norm_axes(n, ints(self.axes), len(_oshape(self.x)))
        if inferring():  # the rule: y has x's shape
            _check_result_shape(n, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
            raise VerifyException(f"{n}: result type must equal the operand type")




class PoolOp(CannOp):
    """MaxPool / AvgPool: ksize and strides are 4-tuples in data_format order, padding a string
    (SAME: TensorFlow's pads, the average counting only the elements inside the input)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    ksize = prop_def(I64Array)
    strides = prop_def(I64Array)
    padding = enum_prop(PaddingAttr)
    data_format = enum_prop(DataFormatAttr)
    # OutputFusable: the pool kernel runs a pointwise epilogue on its output rows in UB
    # (compiler/conversions/cann_to_kernel/vector.py PoolToVectorBody)
    traits = traits_def(Pure(), Opaque(), OutputFusable(), RunsOn(nc1hwc0="spatial", nd=False))

    def window(self):
        """((kh, kw), (sh, sw)) whatever the data_format."""
        from dialects.common import ints

        k, s = ints(self.ksize), ints(self.strides)
        if self.data_format.data == DataFormat.NCHW:
            return (k[2], k[3]), (s[2], s[3])
        return (k[1], k[2]), (s[1], s[2])

    def pads(self) -> tuple[int, int, int, int]:
        """(top, bottom, left, right): TensorFlow's SAME pads of x's static H and W, 0 for VALID."""
        from compiler.target.conv_geometry import same_pads

        (kh, kw), (sh, sw) = self.window()
        if self.padding.data != Padding.SAME:
            return 0, 0, 0, 0
        xs = _oshape(self.x)
        h, w = (xs[2], xs[3]) if self.data_format.data == DataFormat.NCHW else (xs[1], xs[2])
        return (*same_pads(h, kh, sh, 1), *same_pads(w, kw, sw, 1))

    def verify_op(self) -> None:
        from compiler.target.conv_geometry import out_size, same_pads

        n = self.name
        fmt = check_one_of(n, "data_format", self.data_format, (DataFormat.NHWC, DataFormat.NCHW))
        padding = self.padding.data
        k = check_len(n, "ksize", self.ksize, 4)
        s = check_len(n, "strides", self.strides, 4)
        nc = (0, 3) if fmt == DataFormat.NHWC else (0, 1)
        if any(k[i] != 1 or s[i] != 1 for i in nc):
            raise VerifyException(f"{n}: ksize and strides on N and C must be 1")
        if any(v < 1 for v in k + s):
            raise VerifyException(f"{n}: ksize and strides must be >= 1")
        xs, ys = _oshape(self.x), _oshape(self.y)
        check_rank(n, "x", xs, (4,))
        check_same_element_type(n, self.x.type, self.y.type)
        hw = (1, 2) if fmt == DataFormat.NHWC else (2, 3)
        want = list(xs)
        for ax in hw:
            if xs[ax] < 0:
                want[ax] = -1
                continue
            pb, pe = same_pads(xs[ax], k[ax], s[ax], 1) if padding == Padding.SAME else (0, 0)
            if padding == Padding.VALID and k[ax] > xs[ax]:
                raise VerifyException(f"{n}: window {k[ax]} is larger than the input ({xs[ax]})")
            want[ax] = out_size(xs[ax], k[ax], s[ax], 1, pb, pe)
        _check_result_shape(n, want, ys)




@irdl_op_definition
class MaxPoolOp(PoolOp):
    name = "cann.MaxPool"




@irdl_op_definition
class AvgPoolOp(PoolOp):
    name = "cann.AvgPool"




class ReduceDOp(CannOp):
    """Reduction over constant `axes` (the "D" form: GE's ConstToAttrPass), keep_dims."""

    #: acc = fn(acc, x) of the reduction's kernel (kernel.accumulate's AccumulateFn: Add, Max,
    #: Min, Mul; ReduceMeanD then scales the sum by 1 / the reduced extent)
    REDUCE_FN: ClassVar[str]

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = prop_def(I64Array)
    keep_dims = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Reduction(), InputFusable(), RunsOn(nc1hwc0="reduce-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs = _oshape(self.x)
        axes = _norm_axes(n, ints(self.axes), len(xs))
        check_same_element_type(n, self.x.type, self.y.type)
        if _flag(self.keep_dims):
            want = [1 if i in axes else d for i, d in enumerate(xs)]
        else:
            want = [d for i, d in enumerate(xs) if i not in axes]
        _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class ReduceMeanDOp(ReduceDOp):
    name = "cann.ReduceMeanD"
    REDUCE_FN: ClassVar[str] = "Add"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class ReduceSumDOp(ReduceDOp):
    name = "cann.ReduceSumD"
    REDUCE_FN: ClassVar[str] = "Add"
    traits = traits_def(PrecisionReduce(False))




@irdl_op_definition
class ReduceMaxDOp(ReduceDOp):
    name = "cann.ReduceMaxD"
    REDUCE_FN: ClassVar[str] = "Max"




@irdl_op_definition
class ReduceMinDOp(ReduceDOp):
    name = "cann.ReduceMinD"
    REDUCE_FN: ClassVar[str] = "Min"




@irdl_op_definition
class ReduceProdDOp(ReduceDOp):
    name = "cann.ReduceProdD"
    REDUCE_FN: ClassVar[str] = "Mul"
    traits = traits_def(PrecisionReduce(False))




# --- resizing -------------------------------------------------------------------------------------


class ResizeOp(CannOp):
    """NHWC resize to `size` = [new_height, new_width] (an i32 input, as CANN takes it);
    align_corners / half_pixel_centers as TensorFlow defines them."""

    x = operand_def(TensorType)
    size = operand_def(TensorType)
    y = result_def(TensorType)
    align_corners = prop_def(IntegerAttr)
    half_pixel_centers = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn(nc1hwc0="spatial", params=("size",)))

    def verify_op(self) -> None:
        n = self.name
        xs, ys = _oshape(self.x), _oshape(self.y)
        if len(xs) != 4 or len(ys) != 4:
            raise VerifyException(f"{n}: x and y must be 4-D (NHWC), got {_fmt_shape(xs)} and "
                                  f"{_fmt_shape(ys)}")
        if _oshape(self.size) not in ((2,), (-1,)) or str(elem_of(self.size)) != "i32":
            raise VerifyException(f"{n}: size must be a tensor<2xi32>, got {self.size.type}")
        if self.align_corners.value.data and self.half_pixel_centers.value.data:
            raise VerifyException(f"{n}: align_corners and half_pixel_centers cannot both be set")
        _check_result_shape(n, (xs[0], -1, -1, xs[3]), ys)




@irdl_op_definition
class ResizeBilinearV2Op(ResizeOp):
    name = "cann.ResizeBilinearV2"




@irdl_op_definition
class ResizeNearestNeighborV2Op(ResizeOp):
    name = "cann.ResizeNearestNeighborV2"

    def verify_op(self) -> None:
        super().verify_op()
        check_same_element_type(self.name, self.x.type, self.y.type)




class ScanOp(CannOp):
    """A running reduction of x along a constant `axis` (an attribute); `exclusive` leaves the
    element itself out (the first is the identity), `reverse` runs from the end."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    exclusive = prop_def(IntegerAttr)
    reverse = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        if not xs:
            raise VerifyException(f"{n}: x must have rank >= 1")
        _norm_axes(n, [self.axis.value.data], len(xs))
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))


@irdl_op_definition
class CumsumOp(ScanOp):
    """CANN's Cumsum(x, axis; exclusive, reverse): the running sum (the first exclusive one is
    0).  TensorFlow's Cumsum."""

    name = "cann.Cumsum"


@irdl_op_definition
class CumprodOp(ScanOp):
    """Cumprod(x, axis; exclusive, reverse): the running product (the first exclusive one is 1).
    TensorFlow's Cumprod.  The name and signature are assumed by analogy with Cumsum (not in
    cann-facts.md; its CANN registration is not verified)."""

    name = "cann.Cumprod"



@irdl_op_definition
class TopKV2Op(CannOp):
    """CANN's TopKV2(x, k; sorted, dim, largest) (ops-math `math/top_k_v2`: values and indices
    of the k largest, or smallest, elements of x along `dim`) with the constant k as an
    attribute (GE's ConstToAttr, as TransposeD's perm).  Here `dim` is the last axis (TensorFlow's
    TopKV2; the kernel sorts rows) and the indices are int32 (indices_dtype DT_INT32, the
    default).  Sorted from the extreme value, ties by the lower index, as TensorFlow; `sorted` =
    false allows any order, and the kernel sorts anyway."""

    name = "cann.TopKV2"
    x = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    k = prop_def(IntegerAttr)
    sorted = prop_def(IntegerAttr)
    dim = prop_def(IntegerAttr)
    largest = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn())  # ND only: a row-wise kernel

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        if not xs:
            raise VerifyException(f"{n}: x must have rank >= 1")
        dim = _norm_axes(n, [self.dim.value.data], len(xs))[0]
        if dim != len(xs) - 1:
            raise VerifyException(f"{n}: dim must be the last axis ({len(xs) - 1} or -1), got "
                                  f"{self.dim.value.data}")
        k = self.k.value.data
        if k < 0 or 0 <= xs[dim] < k:
            raise VerifyException(f"{n}: k = {k} is out of range [0, {xs[dim]}]")
        check_same_element_type(n, self.x.type, self.values.type)
        if str(elem_of(self.indices)) != "i32":
            raise VerifyException(f"{n}: indices must be int32, got {self.indices.type}")
        want = (*xs[:dim], k)
        _check_result_shape(n, want, _oshape(self.values))
        _check_result_shape(n, want, _oshape(self.indices))
