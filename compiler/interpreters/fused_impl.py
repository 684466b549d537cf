"""Semantics of the fused cann ops the fuse pass makes (FusedConv2D's epilogues, FusedConv2DAdd,
FusedDepthwiseConv2D, FusedMatMul, FusedAttention, FusedKernel).

Each computes what the unfused ops compute, in float32 accumulation (float64 stays float64),
on origin-layout operands; results are stored as the result type says.  These are the only
semantics of the fused ops: cann-run (compiler/interpreters/execute.py) and the constant evaluator
(compiler/interpreters/constant_eval.py) register them beside the library's CannFunctions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, ReturnedValues, impl, impl_terminator, register_impls

from compiler.interpreters import numerics
from compiler.interpreters.common import SemanticsError, from_origin, to_origin
from dialects import cann
from dialects.common import ints


def _alpha(op) -> float | None:
    a = op.properties.get("alpha")
    return float(a.value.data) if a is not None else None


def _acc(x: np.ndarray) -> np.ndarray:
    return x.astype(numerics.acc_dtype(x.dtype), copy=False)


def _flag(attr) -> bool:
    return bool(attr.value.data) if attr is not None else False


def _conv(op, args, with_residual: bool) -> np.ndarray:
    fmt = op.data_format.data
    x = to_origin(args[0], op.x.type, fmt, want="NHWC")
    w = to_origin(args[1], op.filter.type, "HWCN", want="HWCN")
    strides, dilations, pads = op.geometry()
    y = numerics.conv2d_nhwc(x, w, strides, dilations, pads, op.groups.value.data)
    i = 2
    if op.bias is not None:
        y = y + _acc(to_origin(args[2], op.bias.type, "ND"))
        i = 3
    y = numerics.activate(y, op.activation.data, _alpha(op))
    if with_residual:
        r = to_origin(args[i], op.residual.type, fmt, want="NHWC")
        y = numerics.activate(y + _acc(r), op.post_activation.data, _alpha(op))
    try:
        return from_origin(y, op.y.type, fmt, have="NHWC")
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


def _depthwise(op, args) -> np.ndarray:
    fmt = op.data_format.data
    x = to_origin(args[0], op.x.type, fmt, want="NHWC")
    w = to_origin(args[1], op.filter.type, "ND")
    strides, dilations, pads = op.geometry()
    y = numerics.depthwise_conv2d_nhwc(x, w, strides, dilations, pads)
    if op.bias is not None:
        y = y + _acc(to_origin(args[2], op.bias.type, "ND"))
    y = numerics.activate(y, op.activation.data, _alpha(op))
    return from_origin(y, op.y.type, fmt, have="NHWC")


def _matmul(op, args) -> np.ndarray:
    a = _acc(to_origin(args[0], op.x1.type, "ND"))
    b = _acc(to_origin(args[1], op.x2.type, "ND"))
    if _flag(op.transpose_x1):
        a = np.swapaxes(a, -1, -2)
    if _flag(op.transpose_x2):
        b = np.swapaxes(b, -1, -2)
    y = np.matmul(a, b)
    if op.bias is not None:
        y = y + _acc(to_origin(args[2], op.bias.type, "ND"))
    y = numerics.activate(y, op.activation.data, _alpha(op))
    return from_origin(y, op.y.type, "ND")


def apply_mask(s, mask, kind: str = cann.MaskKind.add, value: float | None = None,
               threshold: float | None = None):
    """The scores with the attention mask applied as `kind` says (cann.MaskKind)."""
    if kind == cann.MaskKind.add:
        return s + mask
    keep = mask > threshold if kind == cann.MaskKind.greater else mask != 0
    return np.where(keep, s, np.asarray(value, s.dtype))


def mask_of(op, arg):
    """(mask array, kind, value, threshold) of an attention op, the mask None when absent."""
    if op.mask is None:
        return None, cann.MaskKind.add, None, None
    m = to_origin(arg, op.mask.type, "ND")
    kind = cann.mask_kind(op)
    value = float(op.mask_value.value.data) if op.mask_value is not None else None
    thr = float(op.mask_threshold.value.data) if op.mask_threshold is not None else None
    return (_acc(m) if m.dtype != np.bool_ else m), kind, value, thr


def attention_core(q, k, v, scale: float, mask=None, adj_k: bool = False, bsnd: bool = False,
                   mask_kind: str = "add", mask_value: float | None = None,
                   mask_threshold: float | None = None, zero_masked: bool = False):
    """softmax(mask(scale * q @ k^T)) @ v on accumulator-typed arrays (BSND: [B, S, N, D]);
    the mask applied by `apply_mask` (default: added); zero_masked: the probabilities of the
    dropped keys then set to 0 (apply_mask with value 0)."""
    if bsnd:
        q, k, v = (np.swapaxes(t, 1, 2) for t in (q, k, v))
    if not adj_k:
        k = np.swapaxes(k, -1, -2)
    s = np.matmul(q, k) * scale
    if mask is not None:
        s = apply_mask(s, mask, mask_kind, mask_value, mask_threshold)
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    p = e / e.sum(axis=-1, keepdims=True)
    if zero_masked:
        p = apply_mask(p, mask, mask_kind, 0.0, mask_threshold)
    y = np.matmul(p, v)
    return np.swapaxes(y, 1, 2) if bsnd else y


def _attention(op, args) -> np.ndarray:
    q = _acc(to_origin(args[0], op.q.type, "ND"))
    k = _acc(to_origin(args[1], op.k.type, "ND"))
    v = _acc(to_origin(args[2], op.v.type, "ND"))
    mask, kind, value, thr = mask_of(op, args[3] if len(args) > 3 else None)
    bsnd = cann.is_bsnd(op)
    y = attention_core(q, k, v, float(op.scale.value.data), mask, _flag(op.adj_k), bsnd,
                       kind, value, thr, _flag(op.zero_masked))
    return from_origin(y, op.y.type, "ND")


def _multi_head_attention(op, args) -> np.ndarray:
    x = _acc(to_origin(args[0], op.x.type, "ND"))
    w = _acc(to_origin(args[1], op.qkv_weight.type, "ND"))
    b = _acc(to_origin(args[2], op.qkv_bias.type, "ND"))
    mask, kind, value, thr = mask_of(op, args[3] if len(args) > 3 else None)
    bsz, seq = x.shape[0], x.shape[1]
    heads = op.num_heads.value.data
    qkv = np.matmul(x, w) + b
    q, k, v = (t.reshape(bsz, seq, heads, -1) for t in np.split(qkv, 3, axis=-1))
    y = attention_core(q, k, v, float(op.scale.value.data), mask, False, True, kind, value, thr,
                       _flag(op.zero_masked))
    return from_origin(y.reshape(tuple(cann.origin_shape(op.y.type))), op.y.type, "ND")  # heads merged or not


def _gated_matmul(op, args) -> np.ndarray:
    x = _acc(to_origin(args[0], op.x.type, "ND"))
    w = _acc(to_origin(args[1], op.weight.type, "ND"))
    b = _acc(to_origin(args[2], op.bias.type, "ND"))
    gate, up = np.split(np.matmul(x, w) + b, 2, axis=-1)
    return from_origin(numerics.activate(gate, op.activation.data) * up, op.y.type, "ND")


def _add_layer_norm(op, args) -> np.ndarray:
    x = _acc(to_origin(args[0], op.x1.type, "ND")) + _acc(to_origin(args[1], op.x2.type, "ND"))
    gamma = _acc(to_origin(args[2], op.gamma.type, "ND"))
    beta = _acc(to_origin(args[3], op.beta.type, "ND"))
    axes = tuple(range(op.begin_norm_axis.value.data % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + float(op.epsilon.value.data)) * gamma + beta
    return from_origin(y, op.y.type, "ND")


def _squeeze_excite(op, args) -> np.ndarray:
    """gate = act2(act1(mean_HW(x) @ w1 + b1) @ w2 + b2) as [N, 1, 1, C]."""
    x = _acc(to_origin(args[0], op.x.type, "NHWC", want="NHWC"))
    w1, b1, w2, b2 = (_acc(to_origin(a, v.type, "ND")) for a, v in zip(args[1:], op.operands[1:]))
    pooled = x.mean(axis=(1, 2))
    h = numerics.activate(pooled @ w1[0, 0] + b1, op.act1.data)
    g = numerics.activate(h @ w2[0, 0] + b2, op.act2.data)
    return from_origin(g[:, None, None, :], op.y.type, "NHWC", have="NHWC")


def _scaled_conv(op, args) -> np.ndarray:
    """conv(x * scale) with FusedConv2DAdd's epilogue (the residual optional)."""
    fmt = op.data_format.data
    x = _acc(to_origin(args[0], op.x.type, fmt, want="NHWC"))
    s = _acc(to_origin(args[3], op.scale.type, fmt, want="NHWC"))
    w = to_origin(args[1], op.filter.type, "HWCN", want="HWCN")
    strides, dilations, pads = op.geometry()
    y = numerics.conv2d_nhwc(x * s, w, strides, dilations, pads, op.groups.value.data)
    y = numerics.activate(y + _acc(to_origin(args[2], op.bias.type, "ND")), op.activation.data, _alpha(op))
    if op.residual is not None:
        r = to_origin(args[4], op.residual.type, fmt, want="NHWC")
        y = numerics.activate(y + _acc(r), op.post_activation.data, _alpha(op))
    return from_origin(y, op.y.type, fmt, have="NHWC")


def run_fused_kernel(interp: Interpreter, op: cann.FusedKernelOp, args) -> tuple[np.ndarray, ...]:
    """A cann.FusedKernel: its body run by the interpreter (the cann semantics of each op, as
    cann-run and constant folding run them) on the inputs in their origin layout; the yielded
    values (the result, then the extra results) stored as the result types say."""
    xs = [np.ascontiguousarray(to_origin(np.asarray(a), v.type, "ND"))
          for a, v in zip(args, op.inputs, strict=True)]
    ys = interp.run_ssacfg_region(op.body, tuple(xs), "FusedKernel")
    return tuple(from_origin(np.asarray(y), r.type, "ND") for y, r in zip(ys, op.results, strict=True))


def _run(op, fn, *a):
    try:
        with np.errstate(all="ignore"):
            return (fn(op, *a),)
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


@register_impls
class FusedFunctions(InterpreterFunctions):
    @impl(cann.FusedConv2DOp)
    def run_fused_conv2d(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _conv, args, False)

    @impl(cann.FusedConv2DAddOp)
    def run_fused_conv2d_add(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _conv, args, True)

    @impl(cann.FusedDepthwiseConv2DOp)
    def run_fused_depthwise(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _depthwise, args)

    @impl(cann.FusedMatMulOp)
    def run_fused_matmul(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _matmul, args)

    @impl(cann.FusedAttentionOp)
    def run_fused_attention(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _attention, args)

    @impl(cann.FusedKernelOp)
    def run_fused_kernel(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return run_fused_kernel(interp, op, args)

    @impl_terminator(cann.YieldOp)
    def run_yield(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl(cann.FusedMultiHeadAttentionOp)
    def run_fused_multi_head_attention(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _multi_head_attention, args)

    @impl(cann.FusedGatedMatMulOp)
    def run_fused_gated_matmul(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _gated_matmul, args)

    @impl(cann.FusedSqueezeExciteOp)
    def run_squeeze_excite(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _squeeze_excite, args)

    @impl(cann.FusedConv2DScaledOp)
    def run_fused_conv2d_scaled(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _scaled_conv, args)

    @impl(cann.AddLayerNormOp)
    def run_add_layer_norm(self, interp: Interpreter, op, args: tuple[Any, ...]):
        return _run(op, _add_layer_norm, args)


_ = ints
