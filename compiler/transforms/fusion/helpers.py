"""Helper functions rule files call: predicates (constraints) and computations (folded weights).

Arguments are what the matcher binds: a node name gives its Operation, a leaf its SSAValue (or
None for an absent optional operand).  Helpers accept either for values (an op means its first
result).  A computation returns a numpy array (the replacement turns it into a cann.Const) or a
Python value (an attribute).  Register more with `@helper`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Operation, OpResult, SSAValue

from dialects.common import StringLiteralEnum, string_value

HELPERS: dict[str, Callable[..., Any]] = {}


def helper(fn: Callable | None = None, *, name: str | None = None):
    def reg(f):
        HELPERS[name or f.__name__] = f
        return f

    return reg(fn) if fn is not None else reg


# --- plumbing --------------------------------------------------------------------------------

#: op classes whose instances are named by their class (not builtin.unregistered's op_name)
_CLASS_NAMED: dict[type[Operation], bool] = {}


def full_name(op: Operation) -> str:
    cls = type(op)
    named = _CLASS_NAMED.get(cls)
    if named is None:
        from xdsl.dialects.builtin import UnregisteredOp

        named = _CLASS_NAMED[cls] = not issubclass(cls, UnregisteredOp) and not hasattr(cls, "op_name")
    if named:
        return op.name
    n = getattr(op, "op_name", None)  # unregistered ops
    if n is not None and hasattr(n, "data"):
        return n.data
    return op.name


def short_name(op: Operation) -> str:
    n = full_name(op)
    return n.split(".", 1)[1] if n.startswith("cann.") else n


def to_py(v: Any) -> Any:
    """An xDSL attribute as a plain Python value (other values unchanged)."""
    if isinstance(v, (StringAttr, StringLiteralEnum)):
        return string_value(v)
    if isinstance(v, IntegerAttr):
        if getattr(getattr(v.type, "width", None), "data", None) == 1:
            return bool(v.value.data)  # an i1 flag (xDSL keeps true as -1)
        return int(v.value.data)
    if isinstance(v, FloatAttr):
        return float(v.value.data)
    if isinstance(v, IntAttr):
        return v.data
    if isinstance(v, DenseArrayBase):
        return tuple(v.get_values())
    if isinstance(v, ArrayAttr):
        return [to_py(x) for x in v.data]
    return v


def attr_of(obj: Any, name: str) -> Any:
    if isinstance(obj, SSAValue):
        obj = obj.owner if isinstance(obj, OpResult) else None
    if not isinstance(obj, Operation):
        return None
    a = obj.properties.get(name)
    if a is None:
        a = obj.attributes.get(name)
    return to_py(a) if a is not None else None


def value(x: Any) -> SSAValue | None:
    if isinstance(x, Operation):
        return x.results[0] if x.results else None
    return x if isinstance(x, SSAValue) else None


def _tensor_type(x) -> TensorType | None:
    v = value(x)
    t = v.type if v is not None else x
    return t if isinstance(t, TensorType) else None


def const_value(x: Any) -> np.ndarray | None:
    """The value of a compile-time constant (cann.Const, possibly behind views and elementwise
    arithmetic on constants, as Keras 3's BatchNorm emits), in its origin shape; else None.  The
    one constant evaluator's walk restricted to the ops fusion folds (the FoldedInFusion trait),
    at most 16 ops deep; constants already in a device layout (a #cann.format type) are not
    folded."""
    from compiler.interpreters.constant_eval import constant_value
    from dialects.cann import FoldedInFusion

    v = value(x)
    return None if v is None else constant_value(v, only=FoldedInFusion, depth=16)


# --- predicates --------------------------------------------------------------------------------

@helper
def is_const(x) -> bool:
    return const_value(x) is not None


@helper
def const(x):
    return const_value(x)


@helper
def present(x) -> bool:
    return x is not None


@helper
def shape(x) -> tuple[int, ...]:
    t = _tensor_type(x)
    if t is None:
        return ()
    from dialects.cann import origin_shape

    return tuple(origin_shape(t))


@helper
def rank(x) -> int:
    return len(shape(x))


@helper
def channels(x) -> int:
    s = shape(x)
    return s[-1] if s else 1


@helper
def dtype(x) -> str:
    t = _tensor_type(x)
    return str(t.element_type) if t is not None else ""


@helper
def same_shape(a, b) -> bool:
    return shape(a) == shape(b) and all(d >= 0 for d in shape(a))


@helper
def same_type(a, b) -> bool:
    va, vb = value(a), value(b)
    return va is not None and vb is not None and va.type == vb.type


@helper
def broadcasts_to(a, b) -> bool:
    """a broadcasts (numpy rules) to b's shape without changing it."""
    try:
        return tuple(np.broadcast_shapes(shape(a), shape(b))) == shape(b)
    except ValueError:
        return False


@helper
def per_channel(x, n) -> bool:
    """A constant holding one value per channel of the last axis: shape [n], [1,..,1,n] or scalar."""
    a = const_value(x)
    if a is None:
        return False
    s = a.shape
    if a.size == 1:
        return True
    return len(s) >= 1 and s[-1] == n and all(d == 1 for d in s[:-1])


@helper
def const_is(x, target, tol=1e-6) -> bool:
    """A constant whose every element equals `target` (within a relative tolerance)."""
    a = const_value(x)
    if a is None or a.size == 0:
        return False
    return bool(np.allclose(a.astype(np.float64), float(target), rtol=tol, atol=tol * 1e-3))


@helper
def act(x) -> str:
    a = attr_of(x, "activation")
    return a if isinstance(a, str) else "none"


@helper
def opname(x) -> str:
    v = value(x)
    if isinstance(x, Operation):
        return short_name(x)
    if v is not None and isinstance(v, OpResult):
        return short_name(v.owner)
    return ""


@helper
def keeps_last_dim(x) -> bool:
    """A reshape-like op whose input and output have the same last dimension (a bias along it
    commutes with the reshape)."""
    op = x if isinstance(x, Operation) else (vx.owner if (vx := value(x)) is not None else None)
    if not isinstance(op, Operation) or not op.operands:
        return False
    si, so = shape(op.operands[0]), shape(op.results[0])
    return bool(si) and bool(so) and si[-1] == so[-1]


@helper
def swaps_last_two(x) -> bool:
    """A TransposeD whose perm swaps only the last two axes."""
    perm = attr_of(x, "perm")
    if perm is None:
        return False
    perm = list(perm)
    n = len(perm)
    return n >= 2 and perm == list(range(n - 2)) + [n - 1, n - 2]


@helper
def isqrt2(x) -> bool:
    """A constant equal to 1/sqrt(2) (GELU's erf form scales x by it) ..."""
    return const_is(x, 1 / math.sqrt(2), 1e-5)


# --- computations -------------------------------------------------------------------------------

def _vec(x, n: int) -> np.ndarray:
    a = const_value(x)
    if a is None:
        raise ValueError("not a constant")
    a = a.reshape(-1)
    if a.size == 1:
        a = np.full((n,), a[0], a.dtype)
    if a.size != n:
        raise ValueError(f"expected {n} values, got {a.size}")
    return a


@helper
def scale_filter(w, s):
    """W' = W * s along the output channels (last axis of HWCN)."""
    a = const_value(w)
    n = a.shape[-1]
    return (a * _vec(s, n).astype(a.dtype)).astype(a.dtype)


@helper
def scale_dw_filter(w, s):
    """Depthwise filter (kh, kw, Cin, mult): output channel c*mult + m scales by s[c*mult + m]."""
    a = const_value(w)
    kh, kw, cin, mult = a.shape
    return (a * _vec(s, cin * mult).reshape(cin, mult).astype(a.dtype)).astype(a.dtype)


@helper
def scale_bias(b, s, n):
    """b' = b * s (b absent: zeros)."""
    sv = _vec(s, n)
    bv = _vec(b, n) if b is not None else np.zeros((n,), sv.dtype)
    return (bv * sv).astype(sv.dtype)


@helper
def add_bias(b, t, n):
    """b' = b + t (b absent: t)."""
    tv = _vec(t, n)
    if b is None:
        return tv
    return (_vec(b, n) + tv).astype(tv.dtype)


@helper
def sub_bias(b, t, n):
    """b' = b - t (b absent: -t), for x - const."""
    tv = _vec(t, n)
    bv = _vec(b, n) if b is not None else np.zeros((n,), tv.dtype)
    return (bv - tv).astype(tv.dtype)


@helper
def bn_scale(gamma, var, eps, n):
    """gamma / sqrt(var + eps), computed in float64 and cast back."""
    g, v = _vec(gamma, n), _vec(var, n)
    return (g.astype(np.float64) / np.sqrt(v.astype(np.float64) + float(eps))).astype(g.dtype)


@helper
def bn_bias(b, gamma, beta, mean, var, eps, n):
    """b' = gamma * (b - mean) / sqrt(var + eps) + beta (b absent: 0)."""
    g, be, m, v = (_vec(a, n).astype(np.float64) for a in (gamma, beta, mean, var))
    bv = _vec(b, n).astype(np.float64) if b is not None else 0.0
    out = g * (bv - m) / np.sqrt(v + float(eps)) + be
    return out.astype(_vec(gamma, n).dtype)


@helper
def bn_filter(w, gamma, var, eps):
    """W' = gamma / sqrt(var + eps) * W along the output channels (HWCN)."""
    a = const_value(w)
    s = bn_scale(gamma, var, eps, a.shape[-1])
    return (a.astype(np.float64) * s.astype(np.float64)).astype(a.dtype)


@helper
def bn_dw_filter(w, gamma, var, eps):
    a = const_value(w)
    kh, kw, cin, mult = a.shape
    s = bn_scale(gamma, var, eps, cin * mult).reshape(cin, mult)
    return (a.astype(np.float64) * s.astype(np.float64)).astype(a.dtype)


@helper
def scalar(x):
    """A constant with a single distinct value, as a Python float."""
    a = const_value(x)
    if a is None or a.size == 0:
        raise ValueError("not a constant")
    return float(a.reshape(-1)[0])


@helper
def scale_bias_opt(b, s, n):
    """b * s, or none when there is no bias."""
    return None if b is None else scale_bias(b, s, n)


@helper
def merge_bias(b0, b, n):
    """The bias of conv(b0) + b: b itself (a value) when there is no b0 and b is 1-D, else the
    folded constant."""
    if b0 is None and len(shape(b)) == 1:
        return value(b)
    return add_bias(b0, b, n)


@helper
def composes_cheaper(w1, w2) -> bool:
    """conv(x, W1 . W2) does no more multiply-adds per pixel than conv(x, W1) then the 1x1
    conv W2: kh*kw*Ci*C2 <= kh*kw*Ci*C1 + C1*C2 (filters HWCN)."""
    kh, kw, ci, c1 = shape(w1)
    c2 = shape(w2)[-1]
    return kh * kw * ci * c2 <= kh * kw * ci * c1 + c1 * c2


@helper
def compose_filters(w1, w2):
    """The filter of conv(x, W1) then the 1x1 conv W2 [1, 1, C1, C2]: W1 . W2 (HWCN)."""
    a, b = const_value(w1), const_value(w2)
    return np.einsum("hwio,oc->hwic", a.astype(np.float64), b[0, 0].astype(np.float64)).astype(a.dtype)


@helper
def compose_bias(b1, w2, b2):
    """The bias of conv(x, W1) + b1 then the 1x1 conv W2 + b2: b1 . W2 + b2 (absent: zeros)."""
    m = const_value(w2)[0, 0]
    n = m.shape[1]
    out = np.zeros(n, np.float64)
    if b1 is not None:
        out += _vec(b1, m.shape[0]).astype(np.float64) @ m.astype(np.float64)
    if b2 is not None:
        out += _vec(b2, n).astype(np.float64)
    return out.astype(m.dtype)


@helper
def slope(x):
    """LeakyRelu's negative_slope / Elu's alpha (none when absent)."""
    a = attr_of(x, "negative_slope")
    if a is None:
        a = attr_of(x, "alpha")
    return a


@helper
def tx1(x) -> bool:
    a = attr_of(x, "transpose_x1")
    if a is None:
        a = attr_of(x, "adj_x1")
    return bool(a)


@helper
def tx2(x) -> bool:
    a = attr_of(x, "transpose_x2")
    if a is None:
        a = attr_of(x, "adj_x2")
    return bool(a)


@helper
def spatial_pad_only(p) -> bool:
    """A 4-D NHWC PadD that pads only H and W."""
    pads = attr_of(p, "paddings")
    return pads is not None and len(pads) == 8 and all(v == 0 for v in (pads[0], pads[1], pads[6], pads[7]))


@helper
def conv_pads(c, p):
    """The conv's pads [t, b, l, r] plus the PadD's H/W paddings."""
    t, b, l, r = attr_of(c, "pads")
    pp = attr_of(p, "paddings")
    return [t + pp[2], b + pp[3], l + pp[4], r + pp[5]]


@helper
def subsample_only(p) -> bool:
    """An NHWC pool with a 1x1 window (any strides, no padding: SAME pads a 1x1 window by 0):
    y[n, i, j, c] = x[n, i*sh, j*sw, c]."""
    k = attr_of(p, "ksize")
    return k is not None and len(k) == 4 and all(v == 1 for v in k)


@helper
def pointwise_conv(c, w) -> bool:
    """A 1x1 conv (constant HWCN filter [1, 1, Ci, Co]) with unit strides and no padding."""
    s, pads, ws = attr_of(c, "strides"), attr_of(c, "pads"), shape(w)
    return (s is not None and all(v == 1 for v in s) and pads is not None
            and all(v == 0 for v in pads) and len(ws) == 4 and ws[0] == 1 and ws[1] == 1)


# --- transformer helpers (rules/20_transformer.rules) -------------------------------------------

@helper
def perm_is(t, perm) -> bool:
    """A TransposeD whose perm is exactly `perm`."""
    p = attr_of(t, "perm")
    return p is not None and list(p) == [int(v) for v in perm]


@helper
def merges_last_two(r) -> bool:
    """A reshape [..., N, D] -> [..., N*D] that only merges the last two axes (the inverse of
    the head split: the heads of an attention output joined for the output projection)."""
    op = r if isinstance(r, Operation) else (vr.owner if (vr := value(r)) is not None else None)
    if not isinstance(op, Operation) or not op.operands:
        return False
    si, so = shape(op.operands[0]), shape(op.results[0])
    return (len(si) >= 2 and all(d >= 0 for d in si + so) and tuple(so) == (*si[:-2], si[-2] * si[-1]))


@helper
def splits_last_dim(r, bias=None) -> bool:
    """A reshape [..., C] -> [..., d1, .., dk] that only splits the last axis (Keras'
    EinsumDense head split); with `bias`: a constant whose shape is [d1, .., dk] (or one that
    broadcasts as such, leading 1s allowed)."""
    op = r if isinstance(r, Operation) else (vr.owner if (vr := value(r)) is not None else None)
    if not isinstance(op, Operation) or not op.operands:
        return False
    si, so = shape(op.operands[0]), shape(op.results[0])
    if not si or not so or any(d < 0 for d in si + so):
        return False
    for k in range(1, len(so) + 1):
        if so[:-k] == si[:-1] and int(np.prod(so[-k:])) == si[-1]:
            if bias is None:
                return k >= 1
            b = const_value(bias)
            if b is None:
                return False
            bs = tuple(b.shape)
            while len(bs) > k and bs[0] == 1:
                bs = bs[1:]
            return bs == tuple(so[-k:])
    return False


@helper
def last_dim_to_last_axes(r, bias) -> bool:
    """A reshape whose output's last axes [d1, .., dk] hold exactly its input's last axis C
    (d1*..*dk == C), whatever it does to the leading axes (row-major, element c of a row of
    C lands at the same place of those k axes: the head split of a matmul over a flattened
    batch, [B*S, C] -> [B, S, N, D]), and a constant `bias` of shape [d1, .., dk] (leading 1s
    allowed): a bias along the input's last axis."""
    op = r if isinstance(r, Operation) else (vr.owner if (vr := value(r)) is not None else None)
    if not isinstance(op, Operation) or not op.operands:
        return False
    si, so = shape(op.operands[0]), shape(op.results[0])
    b = const_value(bias)
    if not si or not so or any(d < 0 for d in si + so) or b is None:
        return False
    bs = tuple(b.shape)
    while len(bs) > 1 and bs[0] == 1:
        bs = bs[1:]
    k = len(bs)
    return 0 < k <= len(so) and bs == tuple(so[-k:]) and int(np.prod(bs)) == si[-1]


@helper
def is_scalar_const(x) -> bool:
    a = const_value(x)
    return a is not None and a.size == 1


@helper
def softmax_last(p) -> bool:
    """A SoftmaxV2 over the last axis only."""
    axes = attr_of(p, "axes")
    n = rank(p)
    return axes is not None and len(axes) == 1 and axes[0] % max(n, 1) == n - 1


@helper
def reduces_trailing(m, x) -> bool:
    """A ReduceMeanD of x over trailing axes, keep_dims (LayerNorm's moments)."""
    axes = attr_of(m, "axes")
    n = rank(x)
    if axes is None or not attr_of(m, "keep_dims") or n == 0:
        return False
    ax = sorted(a % n for a in axes)
    return bool(ax) and ax == list(range(ax[0], n))


@helper
def norm_axis(m, x) -> int:
    """The first normalised axis of a trailing ReduceMeanD over x."""
    n = rank(x)
    return min(a % n for a in attr_of(m, "axes"))


@helper
def same_axes(a, b) -> bool:
    return attr_of(a, "axes") == attr_of(b, "axes") and attr_of(a, "keep_dims") == attr_of(b, "keep_dims")


def _strip_ones(s) -> tuple[int, ...]:
    s = tuple(s)
    while s and s[0] == 1:
        s = s[1:]
    return s


@helper
def is_param(g, x, axis) -> bool:
    """A constant that is x.shape[axis:] up to leading 1s (or a scalar): LayerNorm's gamma/beta."""
    a = const_value(g)
    if a is None:
        return False
    return a.size == 1 or _strip_ones(a.shape) == _strip_ones(shape(x)[axis:])


@helper
def param(g, x, axis):
    """gamma/beta as an array of shape x.shape[axis:]."""
    a = const_value(g)
    want = tuple(shape(x)[axis:])
    if a.size == 1:
        return np.full(want, a.reshape(-1)[0], a.dtype)
    return np.ascontiguousarray(a.reshape(want))


@helper
def concat_last(*xs):
    """Constants concatenated along their last axis (Q/K/V weights -> one GEMM's weight)."""
    arrs = [const_value(x) for x in xs]
    if any(a is None for a in arrs):
        raise ValueError("not a constant")
    return np.ascontiguousarray(np.concatenate(arrs, axis=-1))


@helper
def concat_bias(n, *bs):
    """Biases (none: zeros of length n) concatenated: the merged GEMM's bias."""
    parts = [(_vec(b, n) if b is not None else np.zeros((n,), np.float32)) for b in bs]
    dt = next((p.dtype for p, b in zip(parts, bs) if b is not None), np.float32)
    return np.concatenate([p.astype(dt) for p in parts])


@helper
def broadcasts_to_scores(mask, s) -> bool:
    """An additive attention mask that broadcasts to the [.., Sq, Sk] scores."""
    return broadcasts_to(mask, s)


# --- gated MLP in its single-GEMM form (rules/20_transformer.rules) -----------------------------

def _op(x) -> Operation | None:
    if isinstance(x, Operation):
        return x
    v = value(x)
    return v.owner if isinstance(v, OpResult) else None


@helper
def splits_halves(sp) -> bool:
    """A SplitD / SplitVD into two equal halves of the last axis (gate | up)."""
    op = _op(sp)
    if op is None or len(op.results) != 2 or not op.operands:
        return False
    n = rank(op.operands[0])
    axis = attr_of(op, "split_dim")
    if n == 0 or axis is None or axis % n != n - 1:
        return False
    c = channels(op.operands[0])
    if short_name(op) == "SplitVD":
        sizes = attr_of(op, "size_splits")
        return sizes is not None and list(sizes) == [c // 2, c // 2] and c % 2 == 0
    return short_name(op) == "SplitD" and attr_of(op, "num_split") == 2


@helper
def is_result(v, node, i) -> bool:
    """v is result i of the matched op `node`."""
    v, op = value(v) if not isinstance(v, Operation) else None, _op(node)
    return isinstance(v, OpResult) and v.owner is op and v.index == i


@helper
def slices_half(t, i) -> bool:
    """A StridedSliceD that takes half i (0: first, 1: second) of its input's last axis and
    everything of the other axes (Keras' h[..., :F] / h[..., F:]), in whatever mask encoding."""
    op = _op(t)
    if op is None or short_name(op) != "StridedSliceD" or not op.operands:
        return False
    xs = shape(op.operands[0])
    if not xs or any(d < 0 for d in xs) or xs[-1] % 2:
        return False
    from compiler.interpreters.slicing import strided_slice_index

    f = xs[-1] // 2
    probe = np.broadcast_to(np.arange(xs[-1]), xs)  # a view: each element is its last index
    try:
        got = probe[strided_slice_index(op, len(xs))]
    except (IndexError, ValueError):
        return False
    want = np.broadcast_to(np.arange(i * f, (i + 1) * f), (*xs[:-1], f))
    return got.shape == want.shape and bool(np.array_equal(got, want))


@helper
def half_type(m):
    """m's tensor type with its last axis halved (the gated GEMM's output before a Reshape)."""
    t = _tensor_type(m)
    s = list(t.get_shape())
    return TensorType(t.element_type, [*s[:-1], s[-1] // 2])


@helper
def gemm_bias(b, m):
    """The bias operand b, or zeros of m's last axis and element type when there is none."""
    if b is not None:
        return value(b)
    from dialects.common import numpy_dtype

    return np.zeros((channels(m),), numpy_dtype(_tensor_type(m).element_type))


@helper
def retyped(r, x):
    """r's shape with x's element type (a Reshape of x in place of a Reshape of cast(x))."""
    return TensorType(_tensor_type(x).element_type, _tensor_type(r).get_shape())


# --- attention masks built with SelectV2 (rules/20_transformer.rules) -------------------------------

def _folded(x) -> np.ndarray | None:
    """x's value when cann ops compute it from constants (any op with numpy semantics: the
    LogicalAnd / band_part / StridedSlice of Keras' causal mask), else None."""
    v = value(x)
    if v is None:
        return None
    from compiler.interpreters.constant_eval import constant_value

    a = constant_value(v)
    return None if a is None else np.asarray(a)


def _minimal_broadcast(a: np.ndarray) -> np.ndarray:
    """a with every axis along which it does not change reduced to 1 (same broadcast result)."""
    for ax in range(a.ndim):
        if a.shape[ax] > 1 and (a == a.take([0], axis=ax)).all():
            a = a.take([0], axis=ax)
    return np.ascontiguousarray(a)


def _all_true(x) -> bool:
    a = _folded(x)
    return a is not None and a.dtype == np.bool_ and bool(a.all())


@helper
def is_uniform_const(x) -> bool:
    """A constant whose elements are all one value (a scalar, or tf.fill(shape, value))."""
    a = const_value(x)
    return a is not None and a.size > 0 and bool((a == a.reshape(-1)[0]).all())


@helper
def folds(x) -> bool:
    """x is computed from constants only (no run-time input)."""
    return _folded(x) is not None


@helper
def keep_mask(cond):
    """The mask operand for where(cond, scores, fill): a constant condition folded (to its
    smallest broadcasting shape), a LogicalAnd with an all-true constant (Keras'
    ones_like & mask) seen through; else the condition itself."""
    a = _folded(cond)
    if a is not None:
        return _minimal_broadcast(a.astype(bool))
    op = _op(cond)
    while op is not None and short_name(op) == "LogicalAnd":
        x1, x2 = op.operands
        # (x broadcasts to the LogicalAnd's shape, which broadcasts to the scores)
        if _all_true(x1):
            cond = x2
        elif _all_true(x2):
            cond = x1
        else:
            break
        op = _op(cond)
    return value(cond)


@helper
def inverted_mask(cond):
    """The keep mask of where(cond, fill, scores) for a constant condition: not cond."""
    a = _folded(cond)
    if a is None:
        raise ValueError("the condition is not a constant")
    return _minimal_broadcast(~a.astype(bool))


# --- squeeze-excite (rules/30_squeeze_excite.rules) ---------------------------------------------

@helper
def reduces_hw(m) -> bool:
    """A reduction over exactly the spatial axes H, W of an NHWC rank-4 tensor."""
    axes = attr_of(m, "axes")
    vm = value(m)
    src = vm.owner.operands[0] if vm is not None and isinstance(vm.owner, Operation) else None
    if axes is None or src is None or rank(src) != 4:
        return False
    return sorted(int(a) % 4 for a in axes) == [1, 2]


@helper
def pointwise(c) -> bool:
    """A 1x1 conv: stride 1, no dilation, no padding."""
    vc = value(c)
    op = vc.owner if vc is not None else None
    if not isinstance(op, Operation):
        return False
    f = shape(op.operands[1])
    return (len(f) == 4 and f[:2] == (1, 1) and attr_of(op, "pads") == (0, 0, 0, 0)
            and attr_of(op, "strides") == (1, 1, 1, 1) and attr_of(op, "dilations") == (1, 1, 1, 1))


@helper
def hw_gate(s, x) -> bool:
    """s is one value per (batch, channel) of the NHWC tensor x: [N, 1, 1, C], broadcast over
    H and W only."""
    xs, ss = shape(x), shape(s)
    return len(xs) == 4 and all(d >= 0 for d in xs) and ss == (xs[0], 1, 1, xs[3])


@helper
def bias_or_zeros(b, n, like):
    """The bias value, or n zeros of like's element type when there is none."""
    if b is not None:
        return value(b)
    from dialects.common import numpy_dtype

    return np.zeros((n,), numpy_dtype(_tensor_type(like).element_type))
