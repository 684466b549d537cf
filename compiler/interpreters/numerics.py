"""Plain-numpy reference numerics: the one place the project's conv/bias/activation semantics live.

The cann-level interpreter computes with these; the kernel-level interpreter computes the same
thing on the device layouts, tile by tile (compiler/interpreters/kernel_impl.py), and tests hold
the two against each other and against TensorFlow.

Convolutions take explicit pads `[top, bottom, left, right]` (CANN's convention, cann-facts.md
section 4), strides and dilations as (h, w) pairs, and accumulate in float32 (float64 inputs stay
float64), like the cube's L0C.  Vectorised: padded input -> as_strided windows -> one matmul.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from compiler.target.conv_geometry import out_size as conv_out_size  # noqa: F401 (re-exported)
from compiler.target.conv_geometry import same_pads


def acc_dtype(dtype: np.dtype) -> np.dtype:
    """The accumulation type: float32 for f16/f32 (L0C is fp32), float64 stays float64."""
    return np.promote_types(np.dtype(dtype), np.float32)


def im2col_nhwc(x: np.ndarray, kh: int, kw: int, strides: Sequence[int], dilations: Sequence[int],
                pads: Sequence[int]) -> np.ndarray:
    """Windows of an NHWC array: shape (N, Ho, Wo, kh, kw, C), a strided view of the padded input."""
    sh, sw = strides
    dh, dw = dilations
    t, b, l, r = pads
    xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    n, hp, wp, c = xp.shape
    ho = (hp - (dh * (kh - 1) + 1)) // sh + 1
    wo = (wp - (dw * (kw - 1) + 1)) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError(f"convolution output would be empty ({ho}x{wo})")
    s_n, s_h, s_w, s_c = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, shape=(n, ho, wo, kh, kw, c),
        strides=(s_n, s_h * sh, s_w * sw, s_h * dh, s_w * dw, s_c), writeable=False)


def conv2d_nhwc(x: np.ndarray, w_hwcn: np.ndarray, strides: Sequence[int] = (1, 1),
                dilations: Sequence[int] = (1, 1), pads: Sequence[int] = (0, 0, 0, 0),
                groups: int = 1) -> np.ndarray:
    """y[n, ho, wo, co] = sum_{i, j, c} xpad[n, ho*sh + i*dh, wo*sw + j*dw, c] * w[i, j, c, co].
    groups = G: w is (kh, kw, Cin/G, Cout) and output block g (Cout/G channels) is the conv of
    input block g (Cin/G channels) with w[..., g*Cout/G:(g+1)*Cout/G] (TensorFlow's grouped Conv2D)."""
    if groups != 1:
        cin_g, per = w_hwcn.shape[2], w_hwcn.shape[3] // groups
        if x.shape[3] != cin_g * groups or w_hwcn.shape[3] % groups:
            raise ValueError(f"input has {x.shape[3]} channels, filter expects {cin_g} x {groups} groups")
        return np.concatenate([conv2d_nhwc(x[..., g * cin_g:(g + 1) * cin_g],
                                           w_hwcn[..., g * per:(g + 1) * per], strides, dilations, pads)
                               for g in range(groups)], axis=3)
    kh, kw, cin, cout = w_hwcn.shape
    if x.shape[3] != cin:
        raise ValueError(f"input has {x.shape[3]} channels, filter expects {cin}")
    acc = acc_dtype(np.result_type(x.dtype, w_hwcn.dtype))
    win = im2col_nhwc(x.astype(acc, copy=False), kh, kw, strides, dilations, pads)
    n, ho, wo = win.shape[:3]
    a = win.reshape(n * ho * wo, kh * kw * cin)  # copies: (i, j, c) order matches HWCN rows
    y = a @ w_hwcn.astype(acc, copy=False).reshape(kh * kw * cin, cout)
    return y.reshape(n, ho, wo, cout)


def conv3d_ndhwc(x: np.ndarray, w_dhwcn: np.ndarray, depth: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], pads: Sequence[int]) -> np.ndarray:
    """y[n, do] = sum_k conv2d(xpad[n, do*sd + k*dd], w[k]) (H, W geometry as conv2d_nhwc's)
    for x (N, D, H, W, C), w (kd, kh, kw, C, O); depth = (sd, dd, pad_front, pad_back)."""
    sd, dd, pf, pb = depth
    kd = w_dhwcn.shape[0]
    xp = np.pad(x, [(0, 0), (pf, pb), (0, 0), (0, 0), (0, 0)])
    n, dp = xp.shape[:2]
    do = (dp - dd * (kd - 1) - 1) // sd + 1
    y = None
    for k in range(kd):
        xk = xp[:, k * dd: k * dd + (do - 1) * sd + 1: sd]
        yk = conv2d_nhwc(xk.reshape(n * do, *xk.shape[2:]), w_dhwcn[k], strides, dilations, pads)
        y = yk if y is None else y + yk
    assert y is not None
    return y.reshape(n, do, *y.shape[1:])


def conv2d_nchw(x: np.ndarray, w_hwcn: np.ndarray, strides: Sequence[int] = (1, 1),
                dilations: Sequence[int] = (1, 1), pads: Sequence[int] = (0, 0, 0, 0)) -> np.ndarray:
    y = conv2d_nhwc(x.transpose(0, 2, 3, 1), w_hwcn, strides, dilations, pads)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2))


def bias_add(x: np.ndarray, bias: np.ndarray, data_format: str = "NHWC") -> np.ndarray:
    """bias [C] added along the channel axis: axis 1 for NCHW, the last axis for NHWC / ND."""
    if data_format == "NCHW":
        shape = [1] * x.ndim
        shape[1] = bias.shape[0]
        return x + bias.reshape(shape)
    return x + bias


def erf(x: np.ndarray) -> np.ndarray:
    """The error function in float64, stored as x's dtype (scipy's if present, else math.erf)."""
    try:
        from scipy.special import erf as f
    except ImportError:  # scipy is optional: a (slower) vectorised math.erf
        f = np.vectorize(math.erf, otypes=[np.float64])
    return np.asarray(f(x.astype(np.float64))).astype(x.dtype)


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# The activations with a formula of their own (on an accumulator-typed array): the one home of
# each, for cann.Gelu / GeluErf / FastGelu / LeakyRelu / Elu (cann_impl.py) and the fused ops'
# epilogues.

def gelu_tanh(a):
    """CANN's Gelu: the tanh approximation."""
    return 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))


def gelu_erf(a: np.ndarray, dtype: np.dtype | type) -> np.ndarray:
    """The exact GELU 0.5 a (1 + erf(a / sqrt(2))) with every step in `dtype` (sqrt(2) rounded to
    it; erf evaluated in float64 and rounded to it): cann.GeluErf runs in its operand's type
    (float16 arithmetic on a float16 tensor), a fused op's epilogue in its accumulator type."""
    a = a.astype(dtype, copy=False)
    return 0.5 * a * (1 + erf(a / np.asarray(math.sqrt(2), dtype)))


def fast_gelu(a):
    return a / (1 + np.exp(-1.702 * np.abs(a))) * np.exp(0.851 * (a - np.abs(a)))


def leaky_relu(a, slope: float):
    return np.where(a >= 0, a, a * np.asarray(slope, a.dtype))


def elu(a, alpha: float):
    return np.where(a > 0, a, alpha * np.expm1(np.minimum(a, 0)))


def activate(a: np.ndarray, kind: str, alpha: float | None = None) -> np.ndarray:
    """The activations of cann.Activation (a fused op's epilogue; on an accumulator-typed array)."""
    if kind == "none":
        return a
    if kind == "Relu":
        return np.maximum(a, 0)
    if kind == "Relu6":
        return np.minimum(np.maximum(a, 0), 6)
    if kind == "Sigmoid":
        return sigmoid(a)
    if kind == "Tanh":
        return np.tanh(a)
    if kind == "Swish":
        return a * sigmoid(a)
    if kind == "Gelu":
        return gelu_tanh(a)
    if kind == "GeluErf":
        return gelu_erf(a, a.dtype)
    if kind == "FastGelu":
        return fast_gelu(a)
    if kind == "LeakyRelu":
        return leaky_relu(a, 0.2 if alpha is None else alpha)
    if kind == "HardSwish":
        return a * np.minimum(np.maximum(a + 3, 0), 6) / 6
    if kind == "Elu":
        return elu(a, 1.0 if alpha is None else alpha)
    raise ValueError(f"unknown activation '{kind}'")



# --- depthwise convolution and pooling (the cann library ops beyond Conv2D) ----------------------

def depthwise_conv2d_nhwc(x: np.ndarray, w: np.ndarray, strides: Sequence[int] = (1, 1),
                          dilations: Sequence[int] = (1, 1),
                          pads: Sequence[int] = (0, 0, 0, 0)) -> np.ndarray:
    """w (kh, kw, C, M): y[n, ho, wo, c*M + m] = sum_{i,j} xpad[.., c] * w[i, j, c, m]."""
    kh, kw, c, mult = w.shape
    if x.shape[3] != c:
        raise ValueError(f"input has {x.shape[3]} channels, filter expects {c}")
    acc = acc_dtype(np.result_type(x.dtype, w.dtype))
    win = im2col_nhwc(x.astype(acc, copy=False), kh, kw, strides, dilations, pads)
    y = np.einsum("nhwijc,ijcm->nhwcm", win, w.astype(acc, copy=False), optimize=True)
    n, ho, wo = y.shape[:3]
    return y.reshape(n, ho, wo, c * mult)


def pool2d_nhwc(x: np.ndarray, ksize: Sequence[int], strides: Sequence[int], padding: str,
                kind: str) -> np.ndarray:
    """MaxPool / AvgPool as TensorFlow defines them: SAME pads (TF's formula); the average
    divides by the number of elements inside the input (padding is not counted)."""
    kh, kw = ksize
    sh, sw = strides
    if padding == "SAME":
        t, b = same_pads(x.shape[1], kh, sh, 1)
        l, r = same_pads(x.shape[2], kw, sw, 1)
    else:
        t = b = l = r = 0
    if kind == "max":
        fill = -np.inf if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype).min
        xp = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=fill)
        win = im2col_nhwc(xp, kh, kw, (sh, sw), (1, 1), (0, 0, 0, 0))
        return win.max(axis=(3, 4))
    acc = acc_dtype(x.dtype)
    win = im2col_nhwc(x.astype(acc), kh, kw, (sh, sw), (1, 1), (t, b, l, r))
    ones = np.ones((1, x.shape[1], x.shape[2], 1), acc)
    cnt = im2col_nhwc(ones, kh, kw, (sh, sw), (1, 1), (t, b, l, r)).sum(axis=(3, 4))
    return (win.sum(axis=(3, 4)) / cnt).astype(x.dtype)
