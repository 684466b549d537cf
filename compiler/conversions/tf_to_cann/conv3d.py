"""3-D convolution and pooling (NDHWC).

A 5-D NDHWC value folded to [N*D, H, W, C] is NDC1HWC0's bytes stored as NC1HWC0
(compiler/target/formats.py), so the 3-D ops work on those (N*D) batch views:

* Conv3D (kd > 1) = one cann.Conv3D on the views: the cube kernel's K loop runs over
  kd*C1*kh*kw*C0 of the FRACTAL_Z_3D filter and its A tiles are loaded from the kd depth planes
  of x (compiler/conversions/cann_to_kernel/cube3d.py), D's pads are conv pads (zero planes no
  load reads).  Chosen over a depth im2col (pad + kd slices + a channel concat + Conv2D) by the
  cost model's estimates (cann-compile --report): the im2col moves x kd+2 times in kd+2 more
  kernel launches, against a K of kd*ceil(C/C0)*C0*kh*kw instead of ceil(kd*C/C0)*C0*kh*kw (the
  same when C is a multiple of C0).  Video3D's 3-channel stem (the worst case, K 3x): the Conv3D
  kernel 9.2 us against 16.8 us for PadD, 2 slices, ConcatV2D and the Conv2D.  kd = 1: a Conv2D on
  the views (after a strided depth slice when sd > 1).
* MaxPool3D / AvgPool3D: the window is a product box, so the pool is separable: over D, when
  the windows tile D (kd = sd, no pad), by a ReduceMaxD / ReduceMeanD over the window axis of
  the view [N, Do, kd, H, W, C] (a global pool after it merges with it: ReduceOfReduce; and
  with the HW pool when its windows tile H and W: ReduceOfTilingPool), else by
  strided slices combined with Maximum / Add (SAME pads D with the lowest finite value for max,
  with 0 for avg), over H and W by MaxPool / AvgPool on the (N*D) batch, in whichever order
  moves fewer elements.  An average divides by the count of valid elements, the product of the
  depth count (a constant per output depth) and the HW count (AvgPool's SAME rule).
* Conv3DBackpropInputV2 (Keras Conv3DTranspose) = a stride-1 Conv3D over out_backprop with s-1
  zeros inserted after each element of D, H and W, padded d*(k-1) - pad (the forward conv's
  pads), the filter flipped in D, H and W with its channels swapped, i.e. the Conv3D above.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, TensorType, f32, i64
from xdsl.ir import SSAValue

from compiler.conversions.tf_to_cann.legalization import (
    Builder,
    LegalizationError,
    TfNode,
    _conv,
    _static_shape,
    strided_slice,
)
from compiler.ir.typed import elem_of, shape_of
from compiler.target.conv_geometry import out_size, same_pads
from dialects import cann
from dialects.common import int_array, numpy_dtype


def _ndhwc(node: TfNode) -> None:
    fmt = node.str("data_format", "NDHWC")
    if fmt != "NDHWC":
        raise LegalizationError(f"only data_format NDHWC is supported, got {fmt}")


def _five(node: TfNode, name: str) -> list[int]:
    v = node.ints(name, [1, 1, 1, 1, 1])
    if len(v) != 5 or v[0] != 1 or v[4] != 1 or any(s < 1 for s in v):
        raise LegalizationError(f"{name} {v} must be 5 positive values with 1 on N and C")
    return v


def _spatial_pads(node: TfNode, sizes: Sequence[int], ks: Sequence[int], s: Sequence[int],
                  d: Sequence[int]) -> list[tuple[int, int]]:
    """(begin, end) pads of D, H, W for SAME / VALID, or EXPLICIT (TensorFlow's 3-D ops have none:
    a dilated Conv3D recomposed from SpaceToBatchND by dilated.py has explicit_paddings)."""
    padding = node.str("padding")
    if padding == "VALID":
        return [(0, 0)] * 3
    if padding == "EXPLICIT":
        e = node.ints("explicit_paddings")
        if len(e) != 10 or any(v < 0 for v in e) or any(e[:2] + e[8:]):
            raise LegalizationError(f"explicit_paddings {e} must be 10 values >= 0, 0 on N and C")
        return [(e[2 * a], e[2 * a + 1]) for a in (1, 2, 3)]
    if padding != "SAME":
        raise LegalizationError(f"padding '{padding}' is not supported (SAME or VALID)")
    return [same_pads(sizes[i], ks[i], s[i], d[i]) for i in range(3)]


def _pad_depth(b: Builder, x: SSAValue, pd: tuple[int, int], value: float = 0.0) -> SSAValue:
    if pd == (0, 0):
        return x
    xs = list(shape_of(x))
    paddings = int_array([0, 0, *pd] + [0, 0] * (len(xs) - 2))
    ys = TensorType(elem_of(x), [xs[0], xs[1] + pd[0] + pd[1], *xs[2:]])
    if value == 0.0:
        return b.create(cann.PadDOp, [x], ys, paddings=paddings)
    return b.create(cann.PadV2DOp, [x], ys, paddings=paddings,
                    constant_values=FloatAttr(value, f32))


def _depth_slices(b: Builder, x: SSAValue, kd: int, sd: int, dd: int, do: int) -> list[SSAValue]:
    """x[:, k*dd : k*dd + (do-1)*sd + 1 : sd] for k < kd (x itself when that is all of x)."""
    xs = list(shape_of(x))
    out = []
    for k in range(kd):
        lo, hi = k * dd, k * dd + (do - 1) * sd + 1
        if lo == 0 and hi == xs[1] and (sd == 1 or do == 1):
            out.append(x)
            continue
        out.append(strided_slice(b, x, [0, lo, 0, 0, 0], [xs[0], hi, *xs[2:]],
                                 [1, sd, 1, 1, 1], [xs[0], do, *xs[2:]]))
    return out


def conv3d(b: Builder, x: SSAValue, w: SSAValue, out_shape: Sequence[int], strides: Sequence[int],
           dilations: Sequence[int], pads: Sequence[tuple[int, int]]) -> SSAValue:
    """The Conv3D of NDHWC x and filter [kd, kh, kw, C, O]: strides and dilations (sd, sh, sw),
    pads (begin, end) of D, H, W; the result has `out_shape` [N, Do, Ho, Wo, O].  kd > 1: one
    cann.Conv3D on the (N*D) batch views (x [N*D, H, W, C] -> [N*Do, Ho, Wo, O], the bytes of
    NDC1HWC0); kd = 1: a Conv2D on those views (of every sd-th depth)."""
    xs, ws = list(shape_of(x)), list(shape_of(w))
    kd, kh, kw, c, o = ws
    n, do, ho, wo, _ = out_shape
    sd, sh, sw = strides
    dd, dh, dw = dilations
    et = elem_of(x)
    y_type = TensorType(et, [n * do, ho, wo, o])
    hw = dict(strides=int_array([1, sh, sw, 1]), pads=int_array([*pads[1], *pads[2]]),
              dilations=int_array([1, dh, dw, 1]), groups=IntegerAttr(1, i64),
              data_format=StringAttr("NHWC"))
    if kd > 1:
        y = b.create(cann.Conv3DOp, [b.reshape(x, [n * xs[1], *xs[2:]]), w, []], y_type, **hw,
                     depth=int_array([xs[1], do, kd, sd, dd, *pads[0]]))
        return b.reshape(y, [n, do, ho, wo, o])
    xp = _pad_depth(b, x, pads[0])
    (x1,) = _depth_slices(b, xp, 1, sd, dd, do)
    y = _conv(b, b.reshape(x1, [n * do, xs[2], xs[3], c]), b.reshape(w, [kh, kw, c, o]), y_type,
              [1, sh, sw, 1], [*pads[1], *pads[2]], [1, dh, dw, 1], StringAttr("NHWC"))
    return b.reshape(y, [n, do, ho, wo, o])


def _conv3d(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    _ndhwc(node)
    xs = _static_shape(node, 0, "x")
    ws = _static_shape(node, 1, "the filter")
    ys = node.static_result_shape()
    if len(xs) != 5 or len(ws) != 5:
        raise LegalizationError(f"x {xs} and the filter {ws} must be 5-D")
    if ws[3] != xs[4]:
        raise LegalizationError(f"x has {xs[4]} channels, the filter {ws[3]} "
                                "(grouped 3-D convs are not supported)")
    s, d = _five(node, "strides"), _five(node, "dilations")
    pads = _spatial_pads(node, xs[1:4], ws[:3], s[1:4], d[1:4])
    want = [xs[0], *(out_size(xs[i + 1], ws[i], s[i + 1], d[i + 1], *pads[i]) for i in range(3)),
            ws[4]]
    if want != list(ys):
        raise LegalizationError(f"the result shape {list(ys)} is not the conv's {want}")
    return [conv3d(b, node.operand(0), node.operand(1), ys, s[1:4], d[1:4], pads)]


def _conv3d_backprop_input(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Conv3DBackpropInputV2(input_sizes, filter, out_backprop): see the module docstring."""
    _ndhwc(node)
    sizes = node.const_ints(0, "input_sizes")
    ws = _static_shape(node, 1, "the filter")
    dys = _static_shape(node, 2, "out_backprop")
    if len(sizes) != 5 or len(ws) != 5 or ws[3] != sizes[4] or ws[4] != dys[4]:
        raise LegalizationError(f"filter {ws} does not fit input_sizes {sizes} and "
                                f"out_backprop {dys} (grouped transposed convs are not supported)")
    s, d = _five(node, "strides"), _five(node, "dilations")
    fwd = _spatial_pads(node, sizes[1:4], ws[:3], s[1:4], d[1:4])
    x = node.operand(2)
    et = elem_of(x)
    if any(v > 1 for v in s[1:4]):  # s-1 zeros after each element of D, H, W
        n, dz, h, w, c = dys
        x = b.reshape(x, [n, dz, 1, h, 1, w, 1, c])
        x = b.create(cann.PadDOp, [x], TensorType(et, [n, dz, s[1], h, s[2], w, s[3], c]),
                     paddings=int_array([0, 0, 0, 0, 0, s[1] - 1, 0, 0, 0, s[2] - 1,
                                         0, 0, 0, s[3] - 1, 0, 0]))
        x = b.reshape(x, [n, dz * s[1], h * s[2], w * s[3], c])
    xz = list(shape_of(x))
    pads, lo_crop, hi_crop = [], [0] * 5, list(xz)
    for i in range(3):
        ax, full = i + 1, d[i + 1] * (ws[i] - 1)
        rest = sizes[ax] - ((dys[ax] - 1) * s[ax] + full + 1 - fwd[i][0] - fwd[i][1])
        if not 0 <= rest < s[ax]:
            raise LegalizationError(f"input_sizes {sizes} do not fit out_backprop {dys} with "
                                    f"strides {s} and padding {node.str('padding')}")
        lo, hi = full - fwd[i][0], full - fwd[i][1] + rest - (s[ax] - 1)
        lo_crop[ax], hi_crop[ax] = max(0, -lo), xz[ax] - max(0, -hi)
        pads.append((max(0, lo), max(0, hi)))
    if lo_crop != [0] * 5 or hi_crop != xz:
        x = strided_slice(b, x, lo_crop, hi_crop, [1] * 5, [e - o for o, e in zip(lo_crop, hi_crop)])
    # the filter flipped in D, H, W (begin/end masks 0..2: whole axes), in/out channels swapped
    wr = strided_slice(b, node.operand(1), [0] * 5, [0] * 5, [-1, -1, -1, 1, 1], ws, 31, 31)
    wr = b.transpose(wr, [0, 1, 2, 4, 3])
    return [conv3d(b, x, wr, sizes, [1, 1, 1], d[1:4], pads)]


def _pool3d(is_max: bool):
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        _ndhwc(node)
        xs = _static_shape(node, 0, "x")
        ys = list(node.static_result_shape())
        if len(xs) != 5:
            raise LegalizationError(f"x {xs} must be 5-D")
        k, s = _five(node, "ksize"), _five(node, "strides")
        pads = _spatial_pads(node, xs[1:4], k[1:4], s[1:4], [1, 1, 1])
        want = [xs[0], *(out_size(xs[i + 1], k[i + 1], s[i + 1], 1, *pads[i]) for i in range(3)),
                xs[4]]
        if want != ys:
            raise LegalizationError(f"the result shape {ys} is not the pool's {want}")
        n, d, h, w, c = xs
        _, do, ho, wo, _ = ys
        # elements each order moves: depth first reads kd slices of D x H x W planes and pools
        # Do of them; HW first pools all D planes and reads kd slices of the Ho x Wo results
        depth_first = k[1] * do * h * w + do * h * w <= d * h * w + k[1] * do * ho * wo
        x = node.operand(0)
        if depth_first:
            x = _pool_depth(b, x, k[1], s[1], pads[0], is_max)
            return [_pool_hw(node, b, x, k, s, ys, is_max)]
        x = _pool_hw(node, b, x, k, s, [n, d, ho, wo, c], is_max)
        return [_pool_depth(b, x, k[1], s[1], pads[0], is_max)]
    return build


def _pool_hw(node: TfNode, b: Builder, x: SSAValue, k: Sequence[int], s: Sequence[int],
             out_shape: Sequence[int], is_max: bool) -> SSAValue:
    """MaxPool / AvgPool over H, W of NDHWC x on the (N*D) batch (x when the window is 1x1)."""
    if k[2] == k[3] == s[2] == s[3] == 1:
        return x
    n, d, h, w, c = shape_of(x)
    cls = cann.MaxPoolOp if is_max else cann.AvgPoolOp
    y = b.create(cls, [b.reshape(x, [n * d, h, w, c])],
                 TensorType(elem_of(x), [n * d, out_shape[2], out_shape[3], c]),
                 ksize=int_array([1, k[2], k[3], 1]), strides=int_array([1, s[2], s[3], 1]),
                 padding=StringAttr(node.str("padding")), data_format=StringAttr("NHWC"))
    return b.reshape(y, [n, d, out_shape[2], out_shape[3], c])


def _pool_depth(b: Builder, x: SSAValue, kd: int, sd: int, pd: tuple[int, int],
                is_max: bool) -> SSAValue:
    """Max / average over the depth window: slices combined by Maximum / Add; the average
    divides by the count of input depths (not pads) in each window."""
    if kd == 1 and sd == 1:
        return x
    xs = list(shape_of(x))
    et = elem_of(x)
    if kd == sd and pd == (0, 0):  # whole windows side by side: [N, Do, kd, ...] reduced on axis 2
        do = xs[1] // kd
        if do * kd != xs[1]:
            x = strided_slice(b, x, [0] * 5, [xs[0], do * kd, *xs[2:]], [1] * 5,
                              [xs[0], do * kd, *xs[2:]])
        red = cann.ReduceMaxDOp if is_max else cann.ReduceMeanDOp
        return b.create(red, [b.reshape(x, [xs[0], do, kd, *xs[2:]])],
                        TensorType(et, [xs[0], do, *xs[2:]]), axes=int_array([2]),
                        keep_dims=IntegerAttr(0, 1))
    low = float(np.finfo(numpy_dtype(et)).min) if is_max else 0.0
    xp = _pad_depth(b, x, pd, low)
    do = (xs[1] + pd[0] + pd[1] - kd) // sd + 1
    parts = _depth_slices(b, xp, kd, sd, 1, do)
    cls = cann.MaximumOp if is_max else cann.AddOp
    t = TensorType(et, [xs[0], do, *xs[2:]])
    y = parts[0]
    for p in parts[1:]:
        y = b.create(cls, [y, p], t)
    if is_max or kd == 1:
        return y
    count = np.array([min(o * sd - pd[0] + kd, xs[1]) - max(o * sd - pd[0], 0) for o in range(do)])
    scale = (1.0 / count).astype(numpy_dtype(et))
    if np.all(scale == scale[0]):
        factor = b.const(scale[:1].reshape(()))
    else:
        factor = b.const(scale.reshape(1, do, 1, 1, 1))
    return b.create(cann.MulOp, [y, factor], t)


ROWS = {"Conv3D": _conv3d, "Conv3DBackpropInputV2": _conv3d_backprop_input,
        "MaxPool3D": _pool3d(True), "AvgPool3D": _pool3d(False)}
