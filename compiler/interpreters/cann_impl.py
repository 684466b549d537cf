"""cann-level semantics: the project's own numpy definitions of the CANN operators.

Operands arrive in their types' storage layouts (NC1HWC0 x, FRACTAL_Z filter, ...).  Each op
converts them to their origin layout with `compiler.target.formats.from_storage`, computes with the
reference numerics of `compiler.interpreters.numerics`, and stores the result as its result type says
(`to_storage`), so padded channels come out as the format rule says: zeros.

Plain (unencoded) types are in the layout the op implies: x/y in `data_format`, the filter HWCN
(TF's filter layout, kept by tf-to-cann), the bias ND.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from compiler.interpreters import numerics
from compiler.interpreters.common import (
    SemanticsError,
    from_origin,
    origin_layout_of,
    result_dtype,
    to_origin,
)
from dialects import cann
from dialects.common import numpy_dtype, numpy_from_dense


def run_conv(op: cann.ConvLike, args: tuple[Any, ...]) -> np.ndarray:
    """Conv (+ bias) of cann.Conv2D, result in the op's result storage layout (the fused convs
    are compiler/interpreters/fused_impl.py's)."""
    fmt = op.data_format.data
    x = to_origin(args[0], op.x.type, fmt, want="NHWC")
    w = to_origin(args[1], op.filter.type, "HWCN", want="HWCN")
    strides, dilations, pads = op.geometry()
    y = numerics.conv2d_nhwc(x, w, strides, dilations, pads, op.groups.value.data)
    if op.bias is not None:
        y = numerics.bias_add(y, to_origin(args[2], op.bias.type, "ND").astype(y.dtype), "NHWC")
    try:
        return from_origin(y, op.y.type, fmt, have="NHWC")
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


@register_impls
class CannFunctions(InterpreterFunctions):
    @impl(cann.ConstOp)
    def run_const(self, interp: Interpreter, op: cann.ConstOp, args: tuple[Any, ...]):
        # The value holds the storage data already (its device layout).
        return (numpy_from_dense(op.value).astype(result_dtype(op.output.type), copy=False),)

    @impl(cann.Conv2DOp)
    def run_conv2d(self, interp: Interpreter, op: cann.Conv2DOp, args: tuple[Any, ...]):
        return (run_conv(op, args),)

    @impl(cann.Conv3DOp)
    def run_conv3d(self, interp: Interpreter, op: cann.Conv3DOp, args: tuple[Any, ...]):
        """On the (N*D) batch views: x [N*D_in, H, W, C] -> y [N*D_out, Ho, Wo, O]."""
        d_in, d_out, _, sd, dd, pf, pb = op.depth_geometry()
        x = to_origin(args[0], op.x.type, "NHWC", want="NHWC")
        w = to_origin(args[1], op.filter.type, "ND")
        strides, dilations, pads = op.geometry()
        y = numerics.conv3d_ndhwc(x.reshape(-1, d_in, *x.shape[1:]), w, (sd, dd, pf, pb),
                                  strides, dilations, pads)
        y = y.reshape(-1, *y.shape[2:])
        if op.bias is not None:
            y = numerics.bias_add(y, to_origin(args[2], op.bias.type, "ND").astype(y.dtype), "NHWC")
        return (from_origin(y, op.y.type, "NHWC", have="NHWC"),)

    @impl(cann.BiasAddOp)
    def run_bias_add(self, interp: Interpreter, op: cann.BiasAddOp, args: tuple[Any, ...]):
        fmt = op.data_format.data
        x = to_origin(args[0], op.x.type, fmt)
        b = to_origin(args[1], op.bias.type, "ND")
        ofmt = origin_layout_of(op.x.type, fmt).value
        y = numerics.bias_add(x, b.astype(x.dtype), "NCHW" if ofmt == "NCHW" else "NHWC")
        return (from_origin(y, op.y.type, fmt),)

    @impl(cann.ReluOp)
    def run_relu(self, interp: Interpreter, op: cann.ReluOp, args: tuple[Any, ...]):
        # Elementwise on the storage data: relu(0) = 0 keeps padded channels zero.
        return (numerics.activate(args[0], "Relu").astype(result_dtype(op.y.type), copy=False),)

    @impl(cann.TransDataOp)
    def run_transdata(self, interp: Interpreter, op: cann.TransDataOp, args: tuple[Any, ...]):
        return (transdata(op, args[0], op.src.type, op.dst.type,
                          op.src_format.data, op.dst_format.data),)


def transdata(op, x: np.ndarray, src_t, dst_t, src_format: str, dst_format: str) -> np.ndarray:
    """src storage -> origin -> dst storage, following the two types' format descriptors.

    A plain type is in the layout its format attribute names (that is also its origin layout);
    a plain NHWC source feeding an NC1HWC0-from-NCHW result is permuted on the way."""
    try:
        src_origin = origin_layout_of(src_t, src_format)
        dst_origin = origin_layout_of(dst_t, dst_format)
        origin = to_origin(x, src_t, src_origin)
        return from_origin(origin, dst_t, dst_origin, have=src_origin)
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


# --- The CANN operator library (dialects/cann/__init__.py LIBRARY_OPS) ------------------------------------
# Each op is a numpy function of its operands in their ORIGIN layout (converted from a storage
# format when the type carries one), returning its result in origin layout; `_run_library` stores
# it as the result type says.  Float16 inputs compute in float16 except where the device
# accumulates in float32 (matmuls, convs, reductions, normalisations), as the cube/vector units do.

import math  # noqa: E402

from xdsl.dialects.builtin import DictionaryAttr  # noqa: E402

from dialects.common import ints  # noqa: E402


def _acc(x: np.ndarray) -> np.ndarray:
    return x.astype(numerics.acc_dtype(x.dtype), copy=False)


def _b(attr) -> bool:
    return bool(attr.value.data) if attr is not None else False


def _f(attr, default: float) -> float:
    return float(attr.value.data) if attr is not None else default


def _channel_shape(x: np.ndarray, fmt: str) -> list[int]:
    shape = [1] * x.ndim
    shape[1 if fmt == "NCHW" else -1] = -1
    return shape


def _bn_infer(op, x, scale, offset, mean, var):
    shp = _channel_shape(x, op.data_format.data)
    a = _acc(x)
    inv = 1.0 / np.sqrt(_acc(var) + _f(op.epsilon, 1e-5))
    y = (a - _acc(mean).reshape(shp)) * (inv * _acc(scale)).reshape(shp) + _acc(offset).reshape(shp)
    return y


def _layer_norm(op, x, gamma, beta):
    axis = op.begin_norm_axis.value.data % x.ndim
    a = _acc(x)
    axes = tuple(range(axis, x.ndim))
    mean = a.mean(axis=axes, keepdims=True)
    var = ((a - mean) ** 2).mean(axis=axes, keepdims=True)
    return (a - mean) / np.sqrt(var + _f(op.epsilon, 1e-5)) * _acc(gamma) + _acc(beta)


def _matmul(op, a, b, bias=None):
    ta, tb = _b(op.transpose_x1), _b(op.transpose_x2)
    y = (_acc(a).T if ta else _acc(a)) @ (_acc(b).T if tb else _acc(b))
    return y + _acc(bias) if bias is not None else y


def _batch_matmul(op, a, b, bias=None):
    a, b = _acc(a), _acc(b)
    if _b(op.adj_x1):
        a = np.swapaxes(a, -1, -2)
    if _b(op.adj_x2):
        b = np.swapaxes(b, -1, -2)
    y = np.matmul(a, b)
    return y + _acc(bias) if bias is not None else y


def _depthwise(op, x, w, bias=None):
    fmt = op.data_format.data
    strides, dilations, pads = op.geometry()
    xn = x if fmt == "NHWC" else x.transpose(0, 2, 3, 1)
    y = numerics.depthwise_conv2d_nhwc(xn, w, strides, dilations, pads)
    if bias is not None:
        y = y + _acc(bias)
    return y if fmt == "NHWC" else y.transpose(0, 3, 1, 2)


def _softmax(op, x):
    a = _acc(x)
    axes = tuple(int(v) for v in ints(op.axes))
    e = np.exp(a - a.max(axis=axes, keepdims=True))
    return e / e.sum(axis=axes, keepdims=True)


def _pool(kind):
    def run(op, x):
        fmt = op.data_format.data
        xn = x if fmt == "NHWC" else x.transpose(0, 2, 3, 1)
        k, s = op.window()
        y = numerics.pool2d_nhwc(xn, k, s, op.padding.data, kind)
        return y if fmt == "NHWC" else y.transpose(0, 3, 1, 2)
    return run


def _reduce(fn, accumulate: bool = True):
    def run(op, x):
        axes = tuple(int(a) % max(x.ndim, 1) for a in ints(op.axes))
        a = _acc(x) if accumulate else x
        return fn(a, axis=axes, keepdims=_b(op.keep_dims))
    return run


def _pad(op, x):
    p = ints(op.paddings)
    return np.pad(x, [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)])


def _cast(op, x):
    from dialects.common import numpy_dtype

    return x.astype(numpy_dtype(op.dst_type))


def _strided_slice(op, x):
    from compiler.interpreters.slicing import strided_slice_index

    return np.asarray(x[strided_slice_index(op, x.ndim)])


def _floor_div(a, b):
    """TF's FloorDiv: floor(a / b) on floats, rounded toward -inf on integers."""
    if np.issubdtype(np.asarray(a).dtype, np.floating):
        return np.floor(a / b)
    return np.floor_divide(a, b)


#: op class -> numpy function(op, *operands in origin layout) -> result in origin layout.
LIBRARY_SEMANTICS = {
    cann.Relu6Op: lambda op, x: np.clip(x, 0, 6),
    cann.SigmoidOp: lambda op, x: numerics.sigmoid(_acc(x)),
    cann.TanhOp: lambda op, x: np.tanh(x),
    cann.SinOp: lambda op, x: np.sin(x),
    cann.CosOp: lambda op, x: np.cos(x),
    cann.FloorOp: lambda op, x: np.floor(x),
    cann.CeilOp: lambda op, x: np.ceil(x),
    cann.RoundOp: lambda op, x: np.round(x),  # halves to even, as TF's Round and Rint
    cann.SignOp: lambda op, x: np.sign(x),
    cann.Log1pOp: lambda op, x: np.log1p(x),
    cann.Expm1Op: lambda op, x: np.expm1(x),
    cann.EluOp: lambda op, x: numerics.elu(x, _f(op.alpha, 1.0)),
    cann.LeakyReluOp: lambda op, x: numerics.leaky_relu(x, _f(op.negative_slope, 0.2)),
    cann.NegOp: lambda op, x: -x,
    cann.SqrtOp: lambda op, x: np.sqrt(x),
    cann.RsqrtOp: lambda op, x: 1 / np.sqrt(_acc(x)),
    cann.SquareOp: lambda op, x: x * x,
    cann.ErfOp: lambda op, x: numerics.erf(x),
    cann.ErfcOp: lambda op, x: _erfc64(x.astype(np.float64)).astype(x.dtype),
    cann.ExpOp: lambda op, x: np.exp(x),
    cann.LogOp: lambda op, x: np.log(x),
    cann.AbsOp: lambda op, x: np.abs(x),
    cann.ReciprocalOp: lambda op, x: 1 / _acc(x),
    cann.GeluOp: lambda op, x: numerics.gelu_tanh(_acc(x)),
    cann.GeluErfOp: lambda op, x: numerics.gelu_erf(x, x.dtype),  # (in x's type, not _acc)
    cann.FastGeluOp: lambda op, x: numerics.fast_gelu(_acc(x)),
    cann.SoftplusOp: lambda op, x: np.logaddexp(0, _acc(x)),
    cann.AddOp: lambda op, a, b: a + b,
    cann.MulOp: lambda op, a, b: a * b,
    cann.SubOp: lambda op, a, b: a - b,
    cann.RealDivOp: lambda op, a, b: a / b,
    cann.MaximumOp: lambda op, a, b: np.maximum(a, b),
    cann.MinimumOp: lambda op, a, b: np.minimum(a, b),
    cann.PowOp: lambda op, a, b: np.power(a, b),
    cann.FloorDivOp: lambda op, a, b: _floor_div(a, b),
    cann.FloorModOp: lambda op, a, b: np.mod(a, b),  # the sign of b, as TF's FloorMod
    cann.Atan2Op: lambda op, a, b: np.arctan2(_acc(a), _acc(b)),
    cann.SquaredDifferenceOp: lambda op, a, b: (a - b) * (a - b),
    cann.SelectV2Op: lambda op, c, a, b: np.where(c.astype(bool), a, b),
    cann.BNInferOp: _bn_infer,
    cann.LayerNormOp: _layer_norm,
    cann.MatMulV2Op: _matmul,
    cann.BatchMatMulV2Op: _batch_matmul,
    cann.DepthwiseConv2DOp: _depthwise,
    cann.SoftmaxV2Op: _softmax,
    cann.MaxPoolOp: _pool("max"),
    cann.AvgPoolOp: _pool("avg"),
    cann.ReduceMeanDOp: _reduce(np.mean),
    cann.ReduceSumDOp: _reduce(np.sum),
    cann.ReduceMaxDOp: _reduce(np.max, accumulate=False),
    cann.ReduceMinDOp: _reduce(np.min, accumulate=False),
    cann.ReduceProdDOp: _reduce(np.prod),
    cann.TransposeDOp: lambda op, x: np.transpose(x, ints(op.perm)),
    cann.PadDOp: _pad,
    cann.ConcatV2DOp: lambda op, *xs: np.concatenate(xs, axis=op.concat_dim.value.data),
    cann.CastOp: _cast,
    cann.GatherV2DOp: lambda op, x, i: np.take(x, i, axis=op.axis.value.data),
    cann.StridedSliceDOp: _strided_slice,
    cann.ReshapeOp: lambda op, x: x.reshape(ints(op.shape)),
    cann.BroadcastToDOp: lambda op, x: np.broadcast_to(x, ints(op.shape)).copy(),
}


# --- comparisons, resize, pads (single result) ---------------------------

def _resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TensorFlow's CalculateResizeScale, in float32 as its kernels compute it."""
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _resize_size(op, size) -> tuple[int, int]:
    oh, ow = (int(v) for v in np.asarray(size).reshape(-1))
    return oh, ow


def _resize_bilinear(op, x, size):
    """TensorFlow's ResizeBilinear (compute_interpolation_weights; legacy or half-pixel)."""
    oh, ow = _resize_size(op, size)
    ac, hp = _b(op.align_corners), _b(op.half_pixel_centers)
    xf = x.astype(np.float32)

    def weights(out_size, in_size):
        scale = _resize_scale(in_size, out_size, ac)
        i = np.arange(out_size, dtype=np.float32)
        src = (i + np.float32(0.5)) * scale - np.float32(0.5) if hp else i * scale
        floor = np.floor(src)
        lower = np.maximum(floor, 0).astype(np.int64)
        upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
        return lower, upper, (src - floor).astype(np.float32)

    yl, yu, yw = weights(oh, x.shape[1])
    xl, xu, xw = weights(ow, x.shape[2])
    top_left, top_right = xf[:, yl][:, :, xl], xf[:, yl][:, :, xu]
    bot_left, bot_right = xf[:, yu][:, :, xl], xf[:, yu][:, :, xu]
    xw_ = xw.reshape(1, 1, -1, 1)
    top = top_left + (top_right - top_left) * xw_
    bottom = bot_left + (bot_right - bot_left) * xw_
    return top + (bottom - top) * yw.reshape(1, -1, 1, 1)


def _resize_nearest(op, x, size):
    """TensorFlow's ResizeNearestNeighbor (round with align_corners, else floor; half-pixel)."""
    oh, ow = _resize_size(op, size)
    ac, hp = _b(op.align_corners), _b(op.half_pixel_centers)

    def index(out_size, in_size):
        scale = _resize_scale(in_size, out_size, ac)
        i = np.arange(out_size, dtype=np.float32)
        src = (i + np.float32(0.5)) * scale if hp else i * scale
        # roundf rounds half away from zero (numpy's round is half-to-even)
        idx = np.floor(src + np.float32(0.5)) if ac else np.floor(src)
        idx = np.minimum(idx.astype(np.int64), in_size - 1)
        return np.maximum(idx, 0) if hp else idx

    return x[:, index(oh, x.shape[1])][:, :, index(ow, x.shape[2])]


def _pad_v2(op, x):
    p = ints(op.paddings)
    value = np.asarray(float(op.constant_values.value.data)).astype(x.dtype)
    return np.pad(x, [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)], constant_values=value)


def _mirror_pad(op, x):
    p = ints(op.paddings)
    mode = "reflect" if op.mode.data == "REFLECT" else "symmetric"
    return np.pad(x, [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)], mode=mode)


LIBRARY_SEMANTICS.update({
    cann.GreaterOp: lambda op, a, b: a > b,
    cann.GreaterEqualOp: lambda op, a, b: a >= b,
    cann.LessOp: lambda op, a, b: a < b,
    cann.LessEqualOp: lambda op, a, b: a <= b,
    cann.EqualOp: lambda op, a, b: a == b,
    cann.NotEqualOp: lambda op, a, b: a != b,
    cann.LogicalAndOp: lambda op, a, b: np.logical_and(a, b),
    cann.LogicalOrOp: lambda op, a, b: np.logical_or(a, b),
    cann.LogicalNotOp: lambda op, x: np.logical_not(x),
    cann.ResizeBilinearV2Op: _resize_bilinear,
    cann.ResizeNearestNeighborV2Op: _resize_nearest,
    cann.PadV2DOp: _pad_v2,
    cann.MirrorPadOp: _mirror_pad,
})


def _slice(op, x, offsets, size):
    """TensorFlow's Slice: size -1 runs to the end of the axis."""
    idx = tuple(slice(int(o), None if int(n) == -1 else int(o) + int(n))
                for o, n in zip(np.ravel(offsets), np.ravel(size)))
    return x[idx].copy()


LIBRARY_SEMANTICS.update({  # the shape operators with tensor sizes (dialects/cann/data_movement.py SHAPE_OPS)
    cann.ShapeOp: lambda op, x: np.asarray(x.shape, numpy_dtype(op.y.type.element_type)),
    cann.SliceOp: _slice,
    cann.BroadcastToOp: lambda op, x, shape: np.broadcast_to(
        x, [int(d) for d in np.ravel(shape)]).copy(),
})


def _range(op, start, limit, delta) -> np.ndarray:
    """TensorFlow's Range: start, start + delta, ... before limit (in the scalars' type)."""
    start, limit, delta = (np.asarray(v).reshape(()).item() for v in (start, limit, delta))
    if delta == 0:
        raise ValueError("delta must be non-zero")
    return np.arange(start, limit, delta)


def _band_part(op, x, num_lower, num_upper) -> np.ndarray:
    """TensorFlow's MatrixBandPart: each innermost matrix's band kept, the rest zero; a negative
    bound keeps the whole triangle."""
    lo, up = (int(np.asarray(v).reshape(())) for v in (num_lower, num_upper))
    r, c = np.indices(x.shape[-2:])
    keep = ((lo < 0) | (r - c <= lo)) & ((up < 0) | (c - r <= up))
    return np.where(keep, x, np.zeros_like(x))


LIBRARY_SEMANTICS.update({  # tensors made from scalars (folded to constants by fold-constants)
    cann.FillDOp: lambda op, value: np.full(ints(op.dims), np.asarray(value).reshape(())),
    cann.RangeOp: _range,
    cann.MatrixBandPartOp: _band_part,
})


def cumsum(x: np.ndarray, axis: int, exclusive: bool, reverse: bool,
           product: bool = False) -> np.ndarray:
    """TensorFlow's Cumsum (`product`: Cumprod): the running sum (product) along `axis`, in order
    (float16 in float32; integers in their own type, wrapping as TensorFlow's do); `exclusive`:
    the sum (product) before each element (the first is 0, or 1); `reverse`: from the last
    element."""
    axis %= x.ndim
    a = _acc(x) if np.issubdtype(x.dtype, np.floating) else x
    if reverse:
        a = np.flip(a, axis)
    if exclusive:
        first = np.full_like(np.take(a, [0], axis=axis), 1 if product else 0)
        a = np.concatenate([first, np.delete(a, -1, axis=axis)], axis=axis)
    y = (np.cumprod if product else np.cumsum)(a, axis=axis, dtype=a.dtype)
    return np.flip(y, axis) if reverse else y


for _scan_cls in (cann.CumsumOp, cann.CumprodOp):
    LIBRARY_SEMANTICS[_scan_cls] = lambda op, x: cumsum(
        x, op.axis.value.data, _b(op.exclusive), _b(op.reverse), isinstance(op, cann.CumprodOp))


def top_k_indices(x: np.ndarray, k: int, largest: bool = True) -> np.ndarray:
    """The positions (int32) of the k largest (or smallest) elements of each row (the last axis)
    of x, from the extreme one, equal values by the lower position (TensorFlow's TopKV2).  A NaN
    sorts after every number here (TensorFlow's placement of NaNs is not checked)."""
    a = x.astype(np.float64)  # exact for every type the kernel takes (f16, bf16, f32, int32)
    order = np.argsort(-a if largest else a, axis=-1, kind="stable")
    return np.ascontiguousarray(order[..., :k].astype(np.int32))


def _top_k(op, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TopKV2 on an origin-layout (ND) tensor: (values, indices)."""
    idx = top_k_indices(x, op.k.value.data, _b(op.largest))
    return np.ascontiguousarray(np.take_along_axis(x, idx, axis=-1)), idx


def _split(op, x: np.ndarray) -> tuple[np.ndarray, ...]:
    """SplitD / SplitVD on origin-layout (plain) tensors."""
    axis = op.split_dim.value.data % x.ndim
    if isinstance(op, cann.SplitDOp):
        parts = np.split(x, op.num_split.value.data, axis=axis)
    else:
        bounds = np.cumsum(ints(op.size_splits))[:-1]
        parts = np.split(x, bounds, axis=axis)
    return tuple(np.ascontiguousarray(p) for p in parts)


def predicate(value) -> bool:
    """TensorFlow's If/While predicate: a scalar is its truth value, a tensor its non-emptiness."""
    a = np.asarray(value)
    return bool(a.reshape(())) if a.ndim == 0 else a.size > 0


def run_if(interp: Interpreter, op, args):
    branch = op.then_branch if predicate(args[0]) else op.else_branch
    return tuple(interp.call_op(branch, tuple(args[1:])))


def run_case(interp: Interpreter, op, args):
    branches = op.branches.data
    i = int(np.asarray(args[0]).reshape(()))
    branch = branches[i] if 0 <= i < len(branches) else branches[-1]
    return tuple(interp.call_op(branch, tuple(args[1:])))


#: A While that runs longer than this is reported (a loop whose condition never fails, or a
#: trip count the numpy semantics cannot run in reasonable time: an iteration of a small
#: kernel-level loop costs 5-20 ms).
#: CANN_MAX_WHILE_ITERATIONS overrides it.
MAX_WHILE_ITERATIONS = int(__import__("os").environ.get("CANN_MAX_WHILE_ITERATIONS", 1000))


def run_while(interp: Interpreter, op, args):
    values = tuple(args)
    for _ in range(MAX_WHILE_ITERATIONS):
        (c,) = interp.call_op(op.cond, values)
        if not predicate(c):
            return values
        values = tuple(interp.call_op(op.body, values))
    raise SemanticsError(op, f"{op.name}: more than {MAX_WHILE_ITERATIONS} iterations")


def _erfc64(x: np.ndarray) -> np.ndarray:
    try:
        from scipy.special import erfc
    except ImportError:
        erfc = np.vectorize(math.erfc, otypes=[np.float64])
    return np.asarray(erfc(x))


def run_library_op(op, args: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """Run a LIBRARY_SEMANTICS op on storage-layout operands; results in storage layout."""
    fn = LIBRARY_SEMANTICS[type(op)]
    xs = []
    for a, v in zip(args, op.operands, strict=True):
        fmt = getattr(op, "data_format", None)
        default = fmt.data if fmt is not None and fmt.data != cann.DataFormat.ND else "ND"
        xs.append(to_origin(np.asarray(a), v.type, default))
    try:
        with np.errstate(all="ignore"):  # inf/nan follow IEEE as on the device
            y = np.asarray(fn(op, *xs))
        rt = op.results[0].type
        fmt = getattr(op, "data_format", None)
        default = fmt.data if fmt is not None and fmt.data != cann.DataFormat.ND else "ND"
        return (from_origin(y, rt, default),)
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


def _library_impl(op_type):
    def run(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return run_library_op(op, args)

    return impl(op_type)(run)


def tf_attr_value(attr):
    """A TensorFlow attribute's Python value from its MLIR form (for host calls)."""
    from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, TensorType

    from dialects.common import numpy_dtype

    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        v = attr.value.data
        return bool(v) if str(attr.type) == "i1" else int(v)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, DenseArrayBase):
        return [v for v in attr.get_values()]
    if isinstance(attr, ArrayAttr):
        return [tf_attr_value(a) for a in attr.data]
    if isinstance(attr, TensorType):
        return numpy_dtype(attr.element_type)
    try:
        return numpy_dtype(attr)  # an element type: a TF dtype attribute
    except ValueError:
        return attr


def run_host_call(op, args: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """Run the wrapped TensorFlow op with TensorFlow's kernel on the CPU (`tf.raw_ops`)."""
    import inspect

    from compiler.frontend.tf_loader import tensorflow as import_tensorflow

    tf = import_tensorflow()
    op_type = op.op_type.data
    raw = getattr(tf.raw_ops, op_type, None)
    if raw is None:
        raise SemanticsError(op, f"cann.HostCall: TensorFlow has no op '{op_type}'")
    from tensorflow.python.framework import op_def_registry

    op_def = op_def_registry.get(op_type)
    params = inspect.signature(raw).parameters
    kwargs: dict[str, Any] = {}
    values = []
    for a, v in zip(args, op.operands, strict=True):
        shape = tuple(v.type.get_shape())
        a = np.asarray(a)
        values.append(a.reshape(shape) if all(d >= 0 for d in shape) else a)
    for arg in op_def.input_arg:
        if arg.number_attr or arg.type_list_attr:
            n = len(values) - (len(op_def.input_arg) - 1 - list(op_def.input_arg).index(arg))
            kwargs[arg.name], values = values[:n], values[n:]
        else:
            kwargs[arg.name], values = values[0], values[1:]
    attrs = op.tf_attrs.data if isinstance(op.tf_attrs, DictionaryAttr) else {}
    for key, attr in attrs.items():
        if key in params and key not in kwargs:
            v = tf_attr_value(attr)
            if isinstance(v, np.dtype):
                v = tf.as_dtype(v)
            kwargs[key] = v
    out = raw(**kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return tuple(np.asarray(o.numpy()).astype(result_dtype(r.type), copy=False)
                 for o, r in zip(outs, op.results, strict=True))


def _aipp(op, x):  # static AIPP: compiler/interpreters/aipp_impl.py
    from compiler.interpreters.aipp_impl import aipp

    return aipp(op, x)


LIBRARY_SEMANTICS[cann.AippOp] = _aipp

def _install_library_impls() -> None:
    for op_type in LIBRARY_SEMANTICS:
        setattr(CannFunctions, f"run_{op_type.name.removeprefix('cann.')}", _library_impl(op_type))

    def run_hostcall(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return run_host_call(op, args)

    setattr(CannFunctions, "run_HostCall", impl(cann.HostCallOp)(run_hostcall))  # noqa: B010 (mypy: not a declared attribute)
    for cls in (cann.SplitDOp, cann.SplitVDOp):
        setattr(CannFunctions, f"run_{cls.name.removeprefix('cann.')}",
                impl(cls)(lambda self, interp, op, args: _split(op, np.asarray(args[0]))))
    setattr(CannFunctions, "run_TopKV2",  # noqa: B010 (two results: not a LIBRARY_SEMANTICS op)
            impl(cann.TopKV2Op)(lambda self, interp, op, args: _top_k(op, np.asarray(args[0]))))
    from compiler.interpreters.recurrent import semantics as recurrent_semantics

    for rnn_cls, rnn_fn in recurrent_semantics().items():  # DynamicRNN, DynamicGRUV2: several results
        def run_rnn(self, interp, op, args, fn=rnn_fn):
            return tuple(fn(op, *(np.asarray(a) for a in args)))

        setattr(CannFunctions, f"run_{rnn_cls.name.removeprefix('cann.')}", impl(rnn_cls)(run_rnn))
    for ctl_cls, ctl_fn in ((cann.IfOp, run_if), (cann.CaseOp, run_case), (cann.WhileOp, run_while)):
        def run_control(self, interp, op, args, fn=ctl_fn):
            return fn(interp, op, args)

        setattr(CannFunctions, f"run_{ctl_cls.name.removeprefix('cann.')}", impl(ctl_cls)(run_control))
    register_impls(CannFunctions)


_install_library_impls()
