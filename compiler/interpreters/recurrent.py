"""numpy semantics of CANN's fused recurrent operators (dialects/cann/recurrent.py):
DynamicRNN (LSTM) and DynamicGRUV2 (GRU), and InplaceUpdate (a TensorList write); the recurrent
ops are time-major; REDIRECTIONAL runs the steps from the last to the first (y[t] stays the output
at input step t); computed in float32 step by step as the operators define them (the formulas of
MindSpore's ops.DynamicRNN / ops.DynamicGRUV2 documentation; gate offsets of cann-ops'
src/rnn/dynamic_rnn/op_kernel/LstmFP32.cpp)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-z))


#: gate name -> position in the 4H / 3H axis of w and b, per gate order
def gate_slices(order: str, hidden: int) -> dict[str, slice]:
    return {g: slice(k * hidden, (k + 1) * hidden) for k, g in enumerate(order)}


def lstm_cell(x_t, h, c, w_x, w_h, b, order: str, forget_bias: float = 0.0):
    """One DynamicRNN step: (h', c') from x_t [B, I], h, c [B, H]; order "ijfo" / "ifjo"."""
    hidden = h.shape[-1]
    z = x_t @ w_x + h @ w_h + b
    s = gate_slices(order, hidden)
    i = _sigmoid(z[:, s["i"]])
    j = np.tanh(z[:, s["j"]])
    f = _sigmoid(z[:, s["f"]] + forget_bias)
    o = _sigmoid(z[:, s["o"]])
    c_new = f * c + i * j
    return o * np.tanh(c_new), c_new


def gru_cell(x_t, h, w_i, w_h, b_i, b_h, order: str, reset_after: bool = True):
    """One DynamicGRUV2 step: h' from x_t [B, I], h [B, H].  reset_after: n = tanh(W_in x +
    b_in + r * (W_hn h + b_hn)); else n = tanh(W_in x + b_in + W_hn (r * h) + b_hn)."""
    hidden = h.shape[-1]
    gx = x_t @ w_i + b_i
    gh = h @ w_h + b_h
    s = gate_slices(order, hidden)
    z = _sigmoid(gx[:, s["z"]] + gh[:, s["z"]])
    r = _sigmoid(gx[:, s["r"]] + gh[:, s["r"]])
    if reset_after:
        n = np.tanh(gx[:, s["h"]] + r * gh[:, s["h"]])
    else:
        n = np.tanh(gx[:, s["h"]] + (r * h) @ w_h[:, s["h"]] + b_h[s["h"]])
    return (1.0 - z) * n + z * h


def _backward(op) -> bool:
    from dialects.cann import is_backward

    return is_backward(op)


def _steps(op, x, seq_length):
    """(x, mask) in the order the steps run; mask None without seq_length."""
    if _backward(op):
        x = x[::-1]
        seq_length = None if seq_length is None else seq_length[::-1]
    return x, seq_length


def _in_input_order(op, *seqs):
    return tuple(np.ascontiguousarray(s[::-1]) if _backward(op) else s for s in seqs)


def dynamic_rnn(op, x, w, b, init_h, init_c, seq_length=None):
    """-> (y, output_h, output_c), each [T, B, H].  With seq_length (a 0/1 mask [T, B, H]): a
    masked step keeps h and c (output_h, output_c) and writes 0 to y."""
    x, mask = _steps(op, x, seq_length)
    acc = np.float32 if x.dtype != np.float64 else np.float64
    hidden = w.shape[1] // 4
    w = w.astype(acc)
    w_x, w_h = w[:-hidden], w[-hidden:]
    h = init_h.reshape(init_h.shape[-2:]).astype(acc)
    c = init_c.reshape(init_c.shape[-2:]).astype(acc)
    ys, hs, cs = [], [], []
    for t in range(x.shape[0]):
        h1, c1 = lstm_cell(x[t].astype(acc), h, c, w_x, w_h, b.astype(acc), op.gate_order.data,
                           float(op.forget_bias.value.data))
        if mask is None:
            h, c, y_t = h1, c1, h1
        else:
            m = mask[t].astype(acc)
            c, h, y_t = c + (c1 - c) * m, h + (h1 - h) * m, h1 * m
        ys.append(y_t)
        hs.append(h)
        cs.append(c)
    y, oh, oc = (np.stack(v).astype(x.dtype) for v in (ys, hs, cs))
    return _in_input_order(op, y, oh, oc)


def dynamic_gru_v2(op, x, w_i, w_h, b_i, b_h, init_h, seq_length=None):
    """-> (y, output_h), each [T, B, H]; seq_length as DynamicRNN's."""
    x, mask = _steps(op, x, seq_length)
    acc = np.float32 if x.dtype != np.float64 else np.float64
    h = init_h.astype(acc)
    ys, hs = [], []
    for t in range(x.shape[0]):
        h1 = gru_cell(x[t].astype(acc), h, w_i.astype(acc), w_h.astype(acc), b_i.astype(acc),
                      b_h.astype(acc), op.gate_order.data, bool(op.reset_after.value.data))
        if mask is None:
            h, y_t = h1, h1
        else:
            m = mask[t].astype(acc)
            h, y_t = h + (h1 - h) * m, h1 * m
        ys.append(y_t)
        hs.append(h)
    y, oh = (np.stack(v).astype(x.dtype) for v in (ys, hs))
    return _in_input_order(op, y, oh)


def rnn_cell(x_t, h, w_x, w_h, b, activation: str = "tanh"):
    """One TanhRNN (Keras SimpleRNN) step: h' = act(x_t W_x + h W_h + b)."""
    z = x_t @ w_x + h @ w_h + b
    return np.tanh(z) if activation == "tanh" else np.maximum(z, 0)


def tanh_rnn(op, x, w_x, w_h, b, init_h):
    """-> (y,) [T, B, H]: this project's TanhRNN (not a CANN operator)."""
    x, _ = _steps(op, x, None)
    acc = np.float32 if x.dtype != np.float64 else np.float64
    h = init_h.astype(acc)
    hs = []
    for t in range(x.shape[0]):
        h = rnn_cell(x[t].astype(acc), h, w_x.astype(acc), w_h.astype(acc), b.astype(acc),
                     op.activation.data)
        hs.append(h)
    return _in_input_order(op, np.stack(hs).astype(x.dtype))


def inplace_update(op, x, indices, v):
    """-> (y,): x with rows indices[i] replaced by v[i] (CANN's InplaceUpdate)."""
    idx = np.asarray(indices).reshape(-1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= x.shape[0]):
        from compiler.interpreters.common import SemanticsError

        raise SemanticsError(op, f"{op.name}: index {int(idx.max() if idx.max() >= x.shape[0] else idx.min())} "
                                 f"is outside the {x.shape[0]} rows of x")
    y = np.array(x, copy=True)
    y[idx] = np.asarray(v).astype(y.dtype).reshape((idx.size, *x.shape[1:]))
    return (y,)


def semantics():
    from dialects import cann

    return {cann.DynamicRNNOp: dynamic_rnn, cann.DynamicGRUV2Op: dynamic_gru_v2,
            cann.TanhRNNOp: tanh_rnn, cann.InplaceUpdateOp: inplace_update}
