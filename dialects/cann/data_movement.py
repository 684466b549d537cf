"""Data movement: TransData, transposes, reshapes, pads, concat, split, gather, slices,
broadcasts and in-place updates.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.typed import elem_of
from dialects.cann.base import (
    AlwaysFolded,
    CannOp,
    FormatNameAttr,
    ReshapeCanonicalization,
    TransDataCanonicalization,
    TransposeCanonicalization,
    _check_result_shape,
    _fmt_shape,
    _norm_axes,
    _oshape,
    _shapes_match,
    format_of,
    inferring,
    origin_shape,
)
from dialects.common import (
    I64Array,
    check_same_element_type,
    dims_compatible,
    enum_prop,
    ints,
    string_enum_attr,
)
from dialects.layouts import RunsOn
from dialects.op_kinds import Broadcast, FixedPrecision, Injective, Opaque, View


@irdl_op_definition
class TransDataOp(CannOp):
    """`TransData(src) -> dst` with src_format, dst_format, groups (transformation_ops.h)."""

    name = "cann.TransData"
    src = operand_def(TensorType)
    dst = result_def(TensorType)
    src_format = enum_prop(FormatNameAttr)
    dst_format = enum_prop(FormatNameAttr)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), TransDataCanonicalization(), FixedPrecision())

    def verify_op(self) -> None:
        n = self.name
        st, dt = self.src.type, self.dst.type
        check_same_element_type(n, st, dt)
        for what, t, f in (("source", st, self.src_format.data), ("result", dt, self.dst_format.data)):
            tf = format_of(t)
            if tf is not None and tf.fmt != f:
                raise VerifyException(f"{n}: {what} type is stored as {tf.fmt}, attribute says {f}")
        if inferring():  # the rule: the result has the source's origin shape
            _check_result_shape(n, origin_shape(st), origin_shape(dt))
        elif not _shapes_match(tuple(origin_shape(st)), tuple(origin_shape(dt))):
            raise VerifyException(
                f"{n}: source and result must have one origin shape, got "
                f"{list(origin_shape(st))} and {list(origin_shape(dt))}")




@irdl_op_definition
class TransposeDOp(CannOp):
    name = "cann.TransposeD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    perm = prop_def(I64Array)
    traits = traits_def(Pure(), Injective(), TransposeCanonicalization())

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, perm = _oshape(self.x), ints(self.perm)
        if sorted(perm) != list(range(len(xs))):
            raise VerifyException(f"{n}: perm {list(perm)} is not a permutation of rank {len(xs)}")
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, [xs[p] for p in perm], _oshape(self.y))




@irdl_op_definition
class PadDOp(CannOp):
    """Zero padding; paddings = [before0, after0, before1, after1, ...] (one pair per axis)."""

    name = "cann.PadD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="pad-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, p = _oshape(self.x), ints(self.paddings)
        if len(p) != 2 * len(xs):
            raise VerifyException(f"{n}: 'paddings' must have {2 * len(xs)} values (a pair per "
                                  f"axis), got {len(p)}")
        if any(v < 0 for v in p):
            raise VerifyException(f"{n}: paddings must be >= 0")
        check_same_element_type(n, self.x.type, self.y.type)
        want = [d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(xs)]
        _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class ConcatV2DOp(CannOp):
    name = "cann.ConcatV2D"
    x = var_operand_def(TensorType)
    y = result_def(TensorType)
    concat_dim = prop_def(IntegerAttr)
    N = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="concat", fractal_nz="concat-nz"))

    def verify_op(self) -> None:
        n = self.name
        shapes = [_oshape(v) for v in self.x]
        if not shapes:
            raise VerifyException(f"{n}: needs at least one input")
        if self.N.value.data != len(shapes):
            raise VerifyException(f"{n}: N = {self.N.value.data} but there are {len(shapes)} inputs")
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise VerifyException(f"{n}: all inputs must have rank {rank}")
        axis = _norm_axes(n, [self.concat_dim.value.data], rank)[0]
        check_same_element_type(n, *[v.type for v in self.x], self.y.type)
        want = list(shapes[0])
        for s in shapes[1:]:
            for i in range(rank):
                if i != axis and not dims_compatible(s[i], want[i]):
                    raise VerifyException(f"{n}: inputs differ on axis {i} ({want[i]} vs {s[i]})")
        want[axis] = -1 if any(s[axis] < 0 for s in shapes) else sum(s[axis] for s in shapes)
        _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class GatherV2DOp(CannOp):
    """y = take(x, indices, axis): the GatherV2 of a constant axis (GatherV2D)."""

    name = "cann.GatherV2D"
    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(fractal_nz="gather-rows", params=("x", "indices")))

    def verify_op(self) -> None:
        n = self.name
        xs, idx = _oshape(self.x), _oshape(self.indices)
        if str(elem_of(self.indices)) not in ("i32", "i64"):
            raise VerifyException(f"{n}: indices must be i32 or i64")
        axis = _norm_axes(n, [self.axis.value.data], len(xs))[0]
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, (*xs[:axis], *idx, *xs[axis + 1:]), _oshape(self.y))




@irdl_op_definition
class StridedSliceDOp(CannOp):
    """TensorFlow's StridedSlice with constant begin/end/strides and its five masks."""

    name = "cann.StridedSliceD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    begin = prop_def(I64Array)
    end = prop_def(I64Array)
    strides = prop_def(I64Array)
    begin_mask = prop_def(IntegerAttr)
    end_mask = prop_def(IntegerAttr)
    ellipsis_mask = prop_def(IntegerAttr)
    new_axis_mask = prop_def(IntegerAttr)
    shrink_axis_mask = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="slice-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        b, e, s = ints(self.begin), ints(self.end), ints(self.strides)
        if not len(b) == len(e) == len(s):
            raise VerifyException(f"{n}: begin, end and strides must have one length")
        if any(v == 0 for v in s):
            raise VerifyException(f"{n}: strides must be non-zero")
        check_same_element_type(n, self.x.type, self.y.type)
        xs = _oshape(self.x)
        if all(d >= 0 for d in xs):
            import numpy as np

            from compiler.interpreters.slicing import strided_slice_index
            probe = np.zeros(xs, dtype=np.int8)
            try:
                want = probe[strided_slice_index(self, len(xs))].shape
            except (IndexError, ValueError) as ex:
                raise VerifyException(f"{n}: {ex}") from None
            _check_result_shape(n, want, _oshape(self.y))




@irdl_op_definition
class ReshapeOp(CannOp):
    """A view: the same elements in row-major order with a new shape (also Squeeze/ExpandDims)."""

    name = "cann.Reshape"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    shape = prop_def(I64Array)
    traits = traits_def(Pure(), View(), RunsOn(nc1hwc0="reshape-c", fractal_nz="batch-view"), ReshapeCanonicalization())

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, ys, shape = _oshape(self.x), _oshape(self.y), list(ints(self.shape))
        if shape.count(-1) == 1 and all(d >= 0 for d in xs):  # numpy's inferred dimension
            import math

            rest = math.prod(d for d in shape if d != -1)
            if rest and math.prod(xs) % rest == 0:
                shape[shape.index(-1)] = math.prod(xs) // rest
        _check_result_shape(n, shape, ys)
        check_same_element_type(n, self.x.type, self.y.type)
        if all(d >= 0 for d in xs + ys):
            import math

            if math.prod(xs) != math.prod(ys):
                raise VerifyException(f"{n}: cannot reshape {_fmt_shape(xs)} "
                                      f"({math.prod(xs)} elements) to {_fmt_shape(ys)}")




# --- splitting ------------------------------------------------------------------------------------


@irdl_op_definition
class SplitDOp(CannOp):
    """x split into num_split equal parts along split_dim (TF Split, constant axis)."""

    name = "cann.SplitD"
    x = operand_def(TensorType)
    y = var_result_def(TensorType)
    split_dim = prop_def(IntegerAttr)
    num_split = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="split", fractal_nz="split-nz"))

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        k = self.num_split.value.data
        if k < 1 or len(self.y) != k:
            raise VerifyException(f"{n}: num_split = {k} but there are {len(self.y)} results")
        axis = _norm_axes(n, [self.split_dim.value.data], len(xs))[0]
        if xs[axis] >= 0 and xs[axis] % k:
            raise VerifyException(f"{n}: dimension {axis} ({xs[axis]}) is not divisible by {k}")
        want = list(xs)
        want[axis] = xs[axis] // k if xs[axis] >= 0 else -1
        for r in self.y:
            check_same_element_type(n, self.x.type, r.type)
            _check_result_shape(n, want, _oshape(r))




@irdl_op_definition
class SplitVDOp(CannOp):
    """x split along split_dim into parts of size_splits (TF SplitV, constant sizes and axis)."""

    name = "cann.SplitVD"
    x = operand_def(TensorType)
    y = var_result_def(TensorType)
    size_splits = prop_def(I64Array)
    split_dim = prop_def(IntegerAttr)
    num_split = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="split", fractal_nz="split-nz"))

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        sizes = ints(self.size_splits)
        k = self.num_split.value.data
        if len(sizes) != k or len(self.y) != k:
            raise VerifyException(f"{n}: num_split = {k}, {len(sizes)} size_splits, "
                                  f"{len(self.y)} results")
        if any(s < 0 for s in sizes):
            raise VerifyException(f"{n}: size_splits must be >= 0 (resolved), got {list(sizes)}")
        axis = _norm_axes(n, [self.split_dim.value.data], len(xs))[0]
        if xs[axis] >= 0 and sum(sizes) != xs[axis]:
            raise VerifyException(f"{n}: size_splits {list(sizes)} do not sum to dimension "
                                  f"{axis} ({xs[axis]})")
        for r, s in zip(self.y, sizes):
            check_same_element_type(n, self.x.type, r.type)
            want = list(xs)
            want[axis] = s
            _check_result_shape(n, want, _oshape(r))




# --- padding with a value / mirrored --------------------------------------------------------------


def _check_pad(op, p) -> None:
    n = op.name
    xs = _oshape(op.x)
    if len(p) != 2 * len(xs):
        raise VerifyException(f"{n}: 'paddings' must have {2 * len(xs)} values (a pair per "
                              f"axis), got {len(p)}")
    if any(v < 0 for v in p):
        raise VerifyException(f"{n}: paddings must be >= 0")
    check_same_element_type(n, op.x.type, op.y.type)
    want = [d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(xs)]
    _check_result_shape(n, want, _oshape(op.y))




@irdl_op_definition
class PadV2DOp(CannOp):
    """Padding with constant_values (TF PadV2 / Pad with a non-zero constant);
    paddings = [before0, after0, ...]."""

    name = "cann.PadV2D"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    constant_values = prop_def(FloatAttr)
    traits = traits_def(Pure(), Injective())

    def verify_op(self) -> None:
        _check_pad(self, ints(self.paddings))




class MirrorPadMode(StrEnum):
    """MirrorPad's mode: REFLECT (the edge not repeated) or SYMMETRIC (repeated)."""

    REFLECT = "REFLECT"
    SYMMETRIC = "SYMMETRIC"


#: `mode = "REFLECT"`
MirrorPadModeAttr = string_enum_attr("cann.mirror_pad_mode", MirrorPadMode)


@irdl_op_definition
class MirrorPadOp(CannOp):
    """TF MirrorPad with constant paddings: mode REFLECT (edge not repeated) or SYMMETRIC."""

    name = "cann.MirrorPad"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    mode = enum_prop(MirrorPadModeAttr)
    traits = traits_def(Pure(), Injective())

    def verify_op(self) -> None:
        n = self.name
        p = ints(self.paddings)
        _check_pad(self, p)
        mode = self.mode.data
        limit = 0 if mode == MirrorPadMode.REFLECT else 1
        for i, d in enumerate(_oshape(self.x)):
            if d >= 0 and max(p[2 * i], p[2 * i + 1]) > d - 1 + limit:
                raise VerifyException(f"{n}: paddings of axis {i} must be at most "
                                      f"{d - 1 + limit} in {mode} mode, got {p[2 * i]}, {p[2 * i + 1]}")




@irdl_op_definition
class BroadcastToDOp(CannOp):
    """CANN's BroadcastToD(x; shape): x broadcast to `shape` by numpy's (TensorFlow's) rule,
    trailing dimensions first, each equal or 1 in x (REG_OP(BroadcastToD) in graphengine's
    third_party/fwkacllib/inc/ops/pad_ops.h: input x, required ListInt attr shape).  Kind
    Broadcast: y[i] = x[bcast(i)], pointwise with a broadcast operand."""

    name = "cann.BroadcastToD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    shape = prop_def(I64Array)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="broadcast-c"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, shape = _oshape(self.x), list(ints(self.shape))
        if len(xs) > len(shape) or any(d < 0 for d in shape):
            raise VerifyException(f"{n}: shape {shape} must be static and of rank >= x's "
                                  f"({_fmt_shape(xs)})")
        for d, s in zip(reversed(xs), reversed(shape)):
            if d >= 0 and d != 1 and d != s:
                raise VerifyException(f"{n}: x {_fmt_shape(xs)} does not broadcast to {shape}")
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, shape, _oshape(self.y))




# --- shape operators with run-time shape operands (issue 16: shapes computed from `?` dims) ---
# Ascend IR has both forms: Slice / BroadcastTo take their sizes as tensors, SliceD /
# BroadcastToD as attributes (GE's ConstToAttr makes the second of the first once the tensors
# are constants).  A range-compiled model keeps the tensor forms where a size is computed from
# the shape of a `?` tensor; at dispatch, at concrete shapes, the resolve-shapes pass
# (compiler/transforms/resolve_shapes.py) folds them into the attribute forms.  They have
# semantics (cann-run, constant folding) but no kernel: none reaches cann-to-kernel.


@irdl_op_definition
class ShapeOp(CannOp):
    """Ascend IR's Shape(x) -> y: x's shape as a rank-1 int32 / int64 tensor (REG_OP(Shape) in
    graphengine's third_party/fwkacllib/inc/ops/array_ops.h: input x, output y, attr dtype)."""

    name = "cann.Shape"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        ys = _oshape(self.y)
        if len(ys) != 1 or ys[0] not in (-1, len(_oshape(self.x))):
            raise VerifyException(f"{self.name}: result must be [{len(_oshape(self.x))}], "
                                  f"got {_fmt_shape(ys)}")
        if str(self.y.type.element_type) not in ("i32", "i64"):
            raise VerifyException(f"{self.name}: result must be int32 or int64")




@irdl_op_definition
class SliceOp(CannOp):
    """Ascend IR's Slice(x, offsets, size) -> y: TensorFlow's Slice with its begin and size as
    tensors (REG_OP(Slice) in graphengine's .../ops/selection_ops.h); size -1: to the end."""

    name = "cann.Slice"
    x = operand_def(TensorType)
    offsets = operand_def(TensorType)
    size = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        r = len(_oshape(self.x))
        for what, v in (("offsets", self.offsets), ("size", self.size)):
            if _oshape(v) not in ((r,), (-1,)):
                raise VerifyException(f"{self.name}: {what} must be [{r}], got "
                                      f"{_fmt_shape(_oshape(v))}")
        check_same_element_type(self.name, self.x.type, self.y.type)
        if len(_oshape(self.y)) != r:
            raise VerifyException(f"{self.name}: result must have rank {r}")




@irdl_op_definition
class BroadcastToOp(CannOp):
    """Ascend IR's BroadcastTo(x, shape) -> y: BroadcastToD with the shape as a tensor
    (REG_OP(BroadcastTo) in graphengine's .../ops/pad_ops.h)."""

    name = "cann.BroadcastTo"
    x = operand_def(TensorType)
    shape = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        ss = _oshape(self.shape)
        if len(ss) != 1 or ss[0] not in (-1, len(_oshape(self.y))):
            raise VerifyException(f"{self.name}: shape must be [{len(_oshape(self.y))}] "
                                  f"(the result's rank), got {_fmt_shape(ss)}")
        check_same_element_type(self.name, self.x.type, self.y.type)




@irdl_op_definition
class FillDOp(CannOp):
    """CANN's FillD(value; dims) -> y: a tensor of shape `dims` (an attribute, TensorFlow's
    constant dims input) filled with the one-element `value` (REG_OP(FillD) in graphengine's
    .../ops/array_ops.h; Fill takes dims as a tensor).  TensorFlow's Fill."""

    name = "cann.FillD"
    value = operand_def(TensorType)
    y = result_def(TensorType)
    dims = prop_def(I64Array)
    traits = traits_def(Pure(), Opaque(), AlwaysFolded())

    def verify_op(self) -> None:
        n = self.name
        vs = _oshape(self.value)
        if any(d != 1 for d in vs):
            raise VerifyException(f"{n}: value must have one element, got {_fmt_shape(vs)}")
        dims = ints(self.dims)
        if any(d < 0 for d in dims):
            raise VerifyException(f"{n}: dims must be non-negative, got {list(dims)}")
        check_same_element_type(n, self.value.type, self.y.type)
        _check_result_shape(n, dims, _oshape(self.y))




def range_length(start: float, limit: float, delta: float) -> int:
    """The number of elements of Range(start, limit, delta): TensorFlow's shape rule
    (ceil((limit - start) / delta), at least 0); delta must be non-zero."""
    return max(0, math.ceil((limit - start) / delta))


@irdl_op_definition
class RangeOp(CannOp):
    """CANN's Range(start, limit, delta) -> y: the rank-1 sequence start, start + delta, ...
    stopping before limit (REG_OP(Range) in graphengine's .../ops/math_ops.h, its inputs
    scalar tensors).  TensorFlow's Range."""

    name = "cann.Range"
    start = operand_def(TensorType)
    limit = operand_def(TensorType)
    delta = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque(), AlwaysFolded())

    def verify_op(self) -> None:
        n = self.name
        for what, v in (("start", self.start), ("limit", self.limit), ("delta", self.delta)):
            if any(d != 1 for d in _oshape(v)):
                raise VerifyException(f"{n}: {what} must be a scalar, got "
                                      f"{_fmt_shape(_oshape(v))}")
        check_same_element_type(n, self.start.type, self.limit.type, self.delta.type)
        if len(_oshape(self.y)) != 1:
            raise VerifyException(f"{n}: result must have rank 1")


SHAPE_OPS = (ShapeOp, SliceOp, BroadcastToOp)




@irdl_op_definition
class InplaceUpdateOp(CannOp):
    """CANN's InplaceUpdate(x, indices, v) -> y (REG_OP(InplaceUpdate), inplace_update.h /
    selection_ops.h: y = x; y[indices[i], ...] = v[i, ...]; "y: an alias of x"): the rows of a
    preallocated buffer written in place; TensorListSetItem (a TensorArray write) legalizes to
    it.  indices is an int32 vector [k], v is [k, x's other dims].  An index outside x's first
    dimension is an error when it runs."""

    name = "cann.InplaceUpdate"
    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    v = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque(), RunsOn())

    def verify_op(self) -> None:
        n = self.name
        xs, idx, vs = _oshape(self.x), _oshape(self.indices), _oshape(self.v)
        if len(idx) != 1 or str(elem_of(self.indices)) != "i32":
            raise VerifyException(f"{n}: indices must be an int32 vector, got {self.indices.type}")
        if not xs or not _shapes_match(vs, (idx[0], *xs[1:])):
            raise VerifyException(f"{n}: v must be {_fmt_shape((idx[0], *xs[1:]))}, got "
                                  f"{_fmt_shape(vs)}")
        check_same_element_type(n, self.x.type, self.v.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))

