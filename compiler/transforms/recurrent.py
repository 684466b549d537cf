"""Recurrent layers recomposed (issue 13): the While loop Keras emits for an LSTM or a GRU layer
becomes CANN's fused recurrent operator, cann.DynamicRNN (LSTM) or cann.DynamicGRUV2 (GRU), one
kernel per layer instead of one kernel per op per time step.

The loop is recognized by what it computes, not by node names:

1. The loop: a cann.While whose cond is a conjunction of `counter < bound` (bound a constant or
   a loop-invariant variable that starts as one) on counters that start at a constant and step
   by 1, so its trip count N is known; one counter (the time) starts at 0 and is the index of
   the only read of the input sequence, `GatherV2D(X, time, axis 0)` of a loop-invariant X
   [T, B, I] with T = N.  The other variables are loop-invariant (the weights: constants at the
   While), output buffers (a TensorList written with TensorListSetItem, legalized as
   `InplaceUpdate(buffer, [time], [item])` (or the select form `SelectV2(Equal(iota, time),
   item, buffer)`): every row written; or a one-row buffer written at row 0 every step: the last
   output) and states [B, H].
2. The cell: the body's ops from x_t, the states and the weights to the new states and the
   written items: its two matmuls, one of x_t by the kernel (W_x [I, G*H]) and one of the first
   state h by the recurrent kernel (W_h [H, G*H]), and its biases (the other invariants).
   G = 4 with two states (h, c) is an LSTM, G = 3 with one state a GRU.
3. The gate math: the cell is evaluated with the cann numpy semantics (the body function run
   by the interpreter, on random x_t and states) and compared with the operator's definition
   (compiler/interpreters/recurrent.py) for each gate order the operator takes ("ifjo" /
   "ijfo"; "zrh" / "rzh") and each assignment of the bias rows: the candidate that computes
   the same new states and written items (rtol 1e-4) is the operator.  No candidate, no rewrite:
   the loop stays a While.

The While's results become: the sequence buffer -> DynamicRNN's y [T, B, H]; a last-output
buffer [1, B, H] and the final h -> y's row T-1 (GatherV2D); counters -> their final value;
invariants -> the While's operands; the final c (LSTM return_state) -> output_c's row T-1.
Bidirectional layers are two such loops (the backward one on the reversed sequence, as Keras
emits it): both are recomposed, the backward one as direction REDIRECTIONAL on the unreversed
sequence with the reversals folded away (absorb_reversal).  A Keras mask (Embedding(mask_zero)
/ Masking: the loop reads a [T, B, 1] bool per step and selects the old states and the previous
output where it is false) becomes the operator's seq_length.  A SimpleRNN (G = 1, one state,
h' = tanh or relu of x W_x + h W_h + b) has no CANN operator (rnn.h's RNN / BasicRNNCell are
Caffe's float16 RNN with an output projection; DynamicRNN takes only LSTM): it becomes this
project's own cann.TanhRNN, lowered to this project's own recurrent kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, TensorType, f32, i64
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.typed import block_of, elem_of, shape_of
from dialects import cann
from dialects.common import dense_from_numpy, int_array, numpy_dtype, numpy_from_dense

RTOL, ATOL = 1e-4, 1e-5


def _const(v: SSAValue) -> np.ndarray | None:
    op = v.owner
    if isinstance(op, cann.ConstOp):
        return numpy_from_dense(op.value)
    return None


def _arg_index(v: SSAValue, block) -> int | None:
    return v.index if isinstance(v, BlockArgument) and v.block is block else None


@dataclass
class Loop:
    """What the recognizer found in one While (step 1)."""

    op: cann.WhileOp
    body: FuncOp
    trips: int
    time: int                      # the time counter's loop variable
    counters: dict[int, int]       # loop variable -> initial value
    invariant: list[int]
    seq: int                       # the loop variable holding X
    x_t: SSAValue                  # GatherV2D(X, time) in the body
    mask: int | None = None        # the loop variable holding a Keras mask [T, B, 1] (i1)
    m_t: SSAValue | None = None    # GatherV2D(mask, time) in the body
    buffers: dict[int, str] = field(default_factory=dict)   # k -> "seq" | "last"
    items: dict[int, SSAValue] = field(default_factory=dict)  # k -> the row written (body)
    states: list[int] = field(default_factory=list)


def _funcs(module: ModuleOp) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}


def _is_add_one(v: SSAValue, arg: SSAValue) -> bool:
    op = v.owner
    if not isinstance(op, cann.AddOp):
        return False
    a, b = op.operands
    other = b if a is arg else a if b is arg else None
    c = _const(other) if other is not None else None
    return c is not None and c.size == 1 and int(c.reshape(())) == 1


def _conjuncts(v: SSAValue) -> list[Operation] | None:
    op = v.owner
    if isinstance(op, cann.LogicalAndOp):
        out = []
        for x in op.operands:
            part = _conjuncts(x)
            if part is None:
                return None
            out += part
        return out
    if isinstance(op, cann.LessOp):
        return [op]
    return None


def recognize(op: cann.WhileOp, funcs: dict[str, FuncOp]) -> Loop | None:
    body, cond = funcs.get(op.body.root_reference.data), funcs.get(op.cond.root_reference.data)
    if body is None or cond is None or not body.body.blocks or not cond.body.blocks:
        return None
    bblock, cblock = block_of(body.body), block_of(cond.body)
    ret = bblock.last_op
    if not isinstance(ret, ReturnOp):
        return None
    inits = list(op.inputs)
    invariant = [k for k, r in enumerate(ret.operands) if _arg_index(r, bblock) == k]
    counters = {}
    for k, r in enumerate(ret.operands):
        c = _const(inits[k])
        if k not in invariant and c is not None and c.size == 1 and \
                np.issubdtype(c.dtype, np.integer) and _is_add_one(r, bblock.args[k]):
            counters[k] = int(c.reshape(()))
    # the trip count from cond: a conjunction of counter < bound
    cret = cblock.last_op
    parts = _conjuncts(cret.operands[0]) if isinstance(cret, ReturnOp) else None
    if not parts:
        return None
    trips = None
    for less in parts:
        kc = _arg_index(less.operands[0], cblock)
        if kc is None or kc not in counters:
            continue
        bound = _const(less.operands[1])
        kb = _arg_index(less.operands[1], cblock)
        if bound is None and kb is not None and kb in invariant:
            bound = _const(inits[kb])
        if bound is None or bound.size != 1:
            continue
        n = int(bound.reshape(())) - counters[kc]
        trips = n if trips is None else min(trips, n)
    if trips is None or trips < 1:
        return None
    # the time counter: index of the one read of a loop-invariant sequence
    reads = [o for o in bblock.ops if isinstance(o, cann.GatherV2DOp)
             and _arg_index(o.x, bblock) in invariant and o.axis.value.data == 0
             and _arg_index(o.indices, bblock) in counters]
    masks = [o for o in reads if str(o.y.type.element_type) == "i1"]
    reads = [o for o in reads if o not in masks]
    if len(reads) != 1 or len(masks) > 1 or \
            any(m.indices is not reads[0].indices for m in masks):
        return None
    read = reads[0]
    time, seq = _arg_index(read.indices, bblock), _arg_index(read.x, bblock)
    if time is None or seq is None or counters[time] != 0 or shape_of(op.inputs[seq])[0] != trips:
        return None
    loop = Loop(op, body, trips, time, counters, invariant, seq, read.y)
    if masks:  # Keras's mask: a masked step keeps the states and the previous output
        loop.mask, loop.m_t = _arg_index(masks[0].x, bblock), masks[0].y
        if loop.mask is None:  # the mask is not a loop variable
            return None
        ms = list(shape_of(op.inputs[loop.mask]))
        if len(ms) != 3 or ms[0] != trips or ms[2] != 1:
            return None
    for k, r in enumerate(ret.operands):
        if k in invariant or k in counters:
            continue
        kind = _buffer_write(r, bblock.args[k], bblock.args[time], trips)
        if kind is not None:
            loop.buffers[k], loop.items[k] = kind
        else:
            loop.states.append(k)
    # the counters feed only their increments, the read, the buffer masks and cond
    for k in counters:
        for u in bblock.args[k].uses:
            o = u.operation
            index = isinstance(o, cann.ReshapeOp) and all(
                isinstance(x.operation, cann.InplaceUpdateOp) and x.index == 1 for x in o.y.uses)
            if not (o is read or o in masks or index or
                    isinstance(o, (cann.AddOp, cann.EqualOp, ReturnOp))):
                return None
    return loop


def _buffer_write(r: SSAValue, buf: SSAValue, time: SSAValue, trips: int):
    """("seq" | "last", item) when r is `buf` with row `time` (or its only row) set to item:
    cann.InplaceUpdate(buf, [time], [item]) (a TensorListSetItem), or the select form
    SelectV2(Equal(iota, time), item, buf)."""
    upd = r.owner
    if isinstance(upd, cann.InplaceUpdateOp) and upd.x is buf:
        shape = list(shape_of(buf))
        item = upd.v.owner.x if isinstance(upd.v.owner, cann.ReshapeOp) else upd.v
        if list(shape_of(item)) != shape[1:]:
            return None
        idx = upd.indices
        if isinstance(idx.owner, cann.ReshapeOp) and idx.owner.x is time and shape[0] == trips:
            return "seq", item
        c = _const(idx)
        if c is not None and shape[0] == 1 and c.size == 1 and int(c.reshape(())) == 0:
            return "last", item
        return None
    sel = r.owner
    if not isinstance(sel, cann.SelectV2Op) or sel.operands[2] is not buf:
        return None
    shape = list(shape_of(buf))
    item = sel.operands[1]
    if list(shape_of(item)) != [1, *shape[1:]]:
        return None
    if isinstance(item.owner, cann.ReshapeOp):
        item = item.owner.x
    mask = sel.operands[0]
    m = _const(mask)
    if m is not None and shape[0] == 1 and m.size == 1 and bool(m.reshape(())):
        return "last", item
    eq = mask.owner
    if isinstance(eq, cann.EqualOp) and shape[0] == trips:
        a, b = eq.operands
        iota = _const(a) if b is time else _const(b) if a is time else None
        if iota is not None and iota.size == trips and \
                np.array_equal(iota.reshape(-1), np.arange(trips)):
            return "seq", item
    return None


@dataclass
class Cell:
    kind: str                      # "LSTM" | "GRU"
    h: int                         # loop variable of h
    c: int | None                  # loop variable of c (LSTM)
    w_x: np.ndarray
    w_h: np.ndarray
    biases: list[np.ndarray]       # candidate rows: LSTM [b]; GRU [b_i, b_h] orders to try
    reset_after: bool = True       # GRU: r applied after the recurrent matmul (Keras's default)
    shadow: int | None = None      # masked: Keras's previous output (h again, kept apart)


def _weight(v: SSAValue, loop: Loop) -> tuple[np.ndarray, int] | None:
    """(value, loop variable) of a matmul weight: a constant loop invariant, or a constant
    slice of one (Keras's GRU with reset_after=False slices its recurrent kernel in the body)."""
    from compiler.interpreters.slicing import strided_slice_index

    block = loop.body.body.blocks.first
    src = v.owner.x if isinstance(v.owner, cann.StridedSliceDOp) else v
    k = _arg_index(src, block)
    if k not in loop.invariant:
        return None
    w = _const(loop.op.inputs[k])
    if w is None:
        return None
    if src is not v:
        w = w[strided_slice_index(v.owner, w.ndim)]
        if list(w.shape) != list(shape_of(v)):
            return None
    return w, k


def extract_cell(loop: Loop) -> Cell | None:
    block = block_of(loop.body.body)
    inits = list(loop.op.inputs)
    mm_x, mm_h, mm_rh, weights = [], [], [], set()
    for o in block.ops:
        if isinstance(o, cann.MatMulV2Op):
            if o.bias is not None or int(o.transpose_x1.value.data):
                return None
            found = _weight(o.x2, loop)
            if found is None:
                return None
            w, k = found
            weights.add(k)
            if int(o.transpose_x2.value.data):
                w = w.T
            if o.x1 is loop.x_t:
                mm_x.append(w)
            elif (kh := _arg_index(o.x1, block)) is not None and kh in loop.states:
                mm_h.append((kh, w))
            else:
                mm_rh.append(w)  # GRU reset_after=False: (r * h) by the candidate's columns
    if len(mm_x) != 1 or len(mm_h) != 1 or len(mm_rh) > 1:
        return None
    w_x, (h, w_h) = mm_x[0], mm_h[0]
    reset_after = not mm_rh
    if mm_rh:  # the candidate's recurrent columns come last in both GRU gate orders
        w_h = np.concatenate([w_h, mm_rh[0]], axis=1)
    hidden = w_h.shape[0]
    if w_h.shape[1] != w_x.shape[1] or w_x.shape[1] % hidden:
        return None
    gates = w_x.shape[1] // hidden
    # masked (Keras): one more state, the previous output, only ever selected (SelectV2's else)
    shadow = None
    if loop.mask is not None:
        shadows = [k for k in loop.states if k != h and block.args[k].uses and all(
            isinstance(u.operation, cann.SelectV2Op) and u.index == 2
            for u in block.args[k].uses)]
        if len(shadows) != 1:
            return None
        s0, h0 = _const(inits[shadows[0]]), _const(inits[h])
        if s0 is None or h0 is None or not np.array_equal(s0, h0):
            return None
        shadow = shadows[0]
    states = [k for k in loop.states if k != shadow]
    kind = {(4, 2): "LSTM", (3, 1): "GRU", (1, 1): "RNN"}.get((gates, len(states)))
    if kind is None or (kind != "GRU" and mm_rh):
        return None
    c = next((k for k in states if k != h), None)
    if any(list(shape_of(loop.op.inputs[k]))[-1] != hidden for k in loop.states):
        return None
    used_w = {id(w_x), id(w_h)}
    others = []
    for k in loop.invariant:
        if k in (loop.seq, loop.mask):
            continue
        v = _const(inits[k])
        if v is None:
            if block.args[k].uses:
                return None
            continue
        if k in weights:
            continue
        if block.args[k].uses and np.issubdtype(v.dtype, np.floating):
            others.append(v)
    del used_w
    size = gates * hidden
    if kind in ("LSTM", "RNN"):
        b = np.zeros(size, w_x.dtype)
        for v in others:
            if v.size != size:
                return None
            b = b + v.reshape(size)
        biases = [b]
    else:
        rows = [r for v in others for r in v.reshape(-1, size)] if all(
            v.size % size == 0 for v in others) else None
        if rows is None or len(rows) > 2:
            return None
        zero = np.zeros(size, w_x.dtype)
        biases = rows + [zero] * (2 - len(rows))  # reset_after=False: one bias (Keras's)
    return Cell(kind, h, c, w_x, w_h, biases, reset_after, shadow)


def _run_body(loop: Loop, module: ModuleOp, x_t, states: dict[int, np.ndarray], m_t=None):
    from compiler.interpreters.execute import make_interpreter

    args = []
    for k, v in enumerate(loop.op.inputs):
        t = v.type
        if k in states:
            args.append(states[k].astype(numpy_dtype(elem_of(t))))
        elif k == loop.seq or k == loop.mask:
            x = np.zeros(shape_of(t), numpy_dtype(elem_of(t)))
            x[0] = x_t if k == loop.seq else m_t
            args.append(x)
        elif k in loop.counters:
            args.append(np.asarray(loop.counters[k], numpy_dtype(elem_of(t))))
        elif (cv := _const(v)) is not None:
            args.append(cv)
        else:
            args.append(np.zeros(shape_of(t), numpy_dtype(elem_of(t))))
    interp = make_interpreter(module)
    return list(interp.call_op(loop.body.sym_name.data, tuple(args)))


def identify(loop: Loop, cell: Cell, module: ModuleOp) -> dict | None:
    """The operator's parameters whose definition computes what the body computes (step 3)."""
    from compiler.interpreters.recurrent import gru_cell, lstm_cell, rnn_cell

    rng = np.random.default_rng(13)
    b_, hidden = shape_of(loop.op.inputs[cell.h])
    i_ = cell.w_x.shape[0]
    probes = []
    for p in range(3 if loop.mask is not None else 2):
        x_t = rng.standard_normal((b_, i_)).astype(np.float32)
        st = {k: rng.standard_normal((b_, hidden)).astype(np.float32) for k in loop.states}
        m_t = None
        if loop.mask is not None:  # all kept, all masked, mixed rows
            m_t = np.full((b_, 1), p == 0) if p < 2 else rng.random((b_, 1)) < 0.5
            assert cell.shadow is not None  # extract_cell: a masked loop has one
            st[cell.shadow] = st[cell.h]  # Keras's previous output starts as h (both 0)
        try:
            out = _run_body(loop, module, x_t, st, m_t)
        except Exception:  # a body the numpy semantics cannot run: not recomposed
            return None
        probes.append((x_t, st, out, m_t))
    candidates: list[dict[str, Any]]
    if cell.kind == "LSTM":
        candidates = [dict(gate_order=g, b=cell.biases[0])
                      for g in (cann.LstmGateOrder.ifjo, cann.LstmGateOrder.ijfo)]
    elif cell.kind == "RNN":
        candidates = [dict(activation=a, b=cell.biases[0]) for a in cann.RnnActivation]
    else:
        bi, bh = cell.biases
        candidates = [dict(gate_order=g, b_i=p, b_h=q) for g in cann.GruGateOrder
                      for p, q in ((bi, bh), (bh, bi))]
    for cand in candidates:
        ok = True
        for x_t, st, out, m_t in probes:
            h0 = st[cell.h]
            if cell.kind == "RNN":
                h1 = rnn_cell(x_t, h0, cell.w_x, cell.w_h, cand["b"], str(cand["activation"]))
                want = {cell.h: h1}
            elif cell.kind == "LSTM":
                assert cell.c is not None  # extract_cell: an LSTM has c
                h1, c1 = lstm_cell(x_t, h0, st[cell.c], cell.w_x, cell.w_h, cand["b"],
                                   str(cand["gate_order"]))
                want = {cell.h: h1, cell.c: c1}
            else:
                h1 = gru_cell(x_t, h0, cell.w_x, cell.w_h, cand["b_i"], cand["b_h"],
                              str(cand["gate_order"]), cell.reset_after)
                want = {cell.h: h1}
            if m_t is not None:  # a masked row keeps its states
                want = {k: np.where(m_t, v, st[k]) for k, v in want.items()}
                h1 = want[cell.h]
                assert cell.shadow is not None  # extract_cell: a masked loop has one
                want[cell.shadow] = h1
            for k, v in want.items():
                ok &= np.allclose(out[k], v, rtol=RTOL, atol=ATOL)
            for k in loop.buffers:
                row = out[k][0]
                ok &= np.allclose(row, h1, rtol=RTOL, atol=ATOL)
        if ok:
            return cand
    return None


def _new_const(rewriter: Rewriter, at: Operation, value: np.ndarray, loc_op) -> SSAValue:
    from compiler.ir.rewriting import with_loc

    c = with_loc(cann.ConstOp(dense_from_numpy(np.array(value, order="C"))), loc_op)
    rewriter.insert_op(c, InsertPoint.before(at))
    return c.output


def _row(rewriter, at, y: SSAValue, index: np.ndarray, shape, loc_op) -> SSAValue:
    from compiler.ir.rewriting import with_loc

    idx = _new_const(rewriter, at, index, loc_op)
    g = with_loc(cann.GatherV2DOp(operands=[y, idx], result_types=[TensorType(
        elem_of(y), list(shape))], properties={"axis": IntegerAttr(0, i64)}), loc_op)
    rewriter.insert_op(g, InsertPoint.before(at))
    return g.y


def rewrite(loop: Loop, cell: Cell, params: dict) -> Operation:
    from compiler.ir.rewriting import with_loc

    op = loop.op
    rewriter = Rewriter()
    x = op.inputs[loop.seq]
    t_, b_, _ = shape_of(x)
    hidden = cell.w_h.shape[0]
    et = elem_of(x)
    seq_t = TensorType(et, [t_, b_, hidden])
    dt = numpy_dtype(et)

    def reshaped(v, shape):
        r = with_loc(cann.ReshapeOp(operands=[v], result_types=[TensorType(et, list(shape))],
                                    properties={"shape": int_array(list(shape))}), op)
        rewriter.insert_op(r, InsertPoint.before(op))
        return r.y

    h0 = op.inputs[cell.h]
    extra = []
    new: cann.DynamicRNNOp | cann.DynamicGRUV2Op | cann.TanhRNNOp
    if loop.mask is not None:  # seq_length: the mask as a float [T, B, H] (CANN's form)
        from compiler.ir.rewriting import with_loc

        m = op.inputs[loop.mask]
        cast = with_loc(cann.CastOp(operands=[m], result_types=[TensorType(et, [t_, b_, 1])],
                                    properties={"dst_type": et}), op)
        full = with_loc(cann.BroadcastToDOp(
            operands=[cast.y], result_types=[seq_t],
            properties={"shape": int_array([t_, b_, hidden])}), op)
        rewriter.insert_op([cast, full], InsertPoint.before(op))
        extra = [full.y]
    forward = cann.RnnDirectionAttr.of(cann.RnnDirection.UNIDIRECTIONAL)
    tanh = cann.RnnActivationAttr.of(cann.RnnActivation.tanh)
    if cell.kind == "RNN":  # this project's own op (no CANN operator computes it)
        consts = [_new_const(rewriter, op, v.astype(dt), op)
                  for v in (cell.w_x, cell.w_h, params["b"])]
        new = cann.TanhRNNOp(
            operands=[x, *consts, h0], result_types=[seq_t],
            properties={"direction": forward, "time_major": IntegerAttr(1, i64),
                        "activation": cann.RnnActivationAttr.of(params["activation"])})
    elif cell.kind == "LSTM":
        assert cell.c is not None  # extract_cell: an LSTM has c
        w = _new_const(rewriter, op, np.concatenate([cell.w_x, cell.w_h]).astype(dt), op)
        b = _new_const(rewriter, op, params["b"].astype(dt), op)
        new = cann.DynamicRNNOp(
            operands=[x, w, b, reshaped(h0, [1, b_, hidden]),
                      reshaped(op.inputs[cell.c], [1, b_, hidden]), extra],
            result_types=[seq_t] * 3,
            properties={"cell_type": cann.RnnCellTypeAttr.of(cann.RnnCellType.LSTM),
                        "direction": forward, "time_major": IntegerAttr(1, i64), "activation": tanh,
                        "forget_bias": FloatAttr(0.0, f32),
                        "gate_order": cann.LstmGateOrderAttr.of(params["gate_order"])})
    else:
        consts = [_new_const(rewriter, op, v.astype(dt), op)
                  for v in (cell.w_x, cell.w_h, params["b_i"], params["b_h"])]
        new = cann.DynamicGRUV2Op(
            operands=[x, *consts, h0, extra], result_types=[seq_t] * 2,
            properties={"direction": forward, "time_major": IntegerAttr(1, i64), "activation": tanh,
                        "gate_order": cann.GruGateOrderAttr.of(params["gate_order"]),
                        "reset_after": IntegerAttr(int(cell.reset_after), i64)})
    with_loc(new, op)
    rewriter.insert_op(new, InsertPoint.before(op))
    # masked: Keras's outputs are the kept ones (a masked step repeats the previous output),
    # output_h; y (0 at a masked step) is Keras's zero_output_for_mask, never recognized
    y = new.results[1] if loop.mask is not None else new.results[0]
    for k, r in enumerate(op.outputs):
        if not r.uses:
            continue
        if k in loop.invariant:
            v = op.inputs[k]
        elif k in loop.counters:
            v = _new_const(rewriter, op, np.asarray(loop.counters[k] + loop.trips,
                                                    numpy_dtype(r.type.element_type)), op)
        elif loop.buffers.get(k) == "seq":
            v = y
        elif loop.buffers.get(k) == "last":
            v = _row(rewriter, op, y, np.asarray([t_ - 1], np.int32), [1, b_, hidden], op)
        elif k in (cell.h, cell.shadow):
            v = _row(rewriter, op, y, np.asarray(t_ - 1, np.int32), [b_, hidden], op)
        elif k == cell.c:  # return_state: the final c, output_c's last row
            v = _row(rewriter, op, new.results[2], np.asarray(t_ - 1, np.int32), [b_, hidden], op)
        else:
            raise AssertionError("checked by recompose: a used result without a value")
        r.replace_all_uses_with(v)
    rewriter.erase_op(op)
    return new


def _reversal(v: SSAValue, axis: int) -> bool:
    """v is a constant index vector T-1, ..., 0 (a ReverseV2 legalized as a GatherV2D) of the
    extent of `axis`."""
    idx = _const(v)
    return idx is not None and idx.ndim == 1 and np.array_equal(idx, np.arange(idx.size)[::-1])


def _gather(rewriter, at: Operation, x: SSAValue, index: np.ndarray, axis: int, loc_op) -> SSAValue:
    from compiler.ir.rewriting import with_loc

    shape = list(shape_of(x))
    shape[axis:axis + 1] = list(index.shape)
    idx = _new_const(rewriter, at, index.astype(np.int32), loc_op)
    g = with_loc(cann.GatherV2DOp(operands=[x, idx], result_types=[TensorType(
        elem_of(x), shape)], properties={"axis": IntegerAttr(axis, i64)}), loc_op)
    rewriter.insert_op(g, InsertPoint.before(at))
    return g.y


def _erase_gather(rewriter: Rewriter, g: cann.GatherV2DOp) -> None:
    """Erase the unused gather g and its index constant when nothing else reads it."""
    idx = g.indices.owner
    rewriter.erase_op(g)
    if isinstance(idx, cann.ConstOp) and not idx.output.uses:
        rewriter.erase_op(idx)


def _push_gather(rewriter: Rewriter, g: cann.GatherV2DOp) -> None:
    """Fold the constant row gather g (along its axis) into its users: a constant gather of g on
    the same axis composes with it (an identity composition disappears), a TransposeD of g
    becomes the transpose of x gathered on the permuted axis.  g goes when nothing uses it."""
    from dialects.common import ints

    index = _const(g.indices)
    axis = g.axis.value.data
    for use in list(g.y.uses):
        u = use.operation
        if isinstance(u, cann.GatherV2DOp) and u.x is g.y and u.axis.value.data == axis \
                and _const(u.indices) is not None and index is not None and index.ndim == 1:
            comp = index[_const(u.indices)]
            if comp.ndim == 1 and np.array_equal(comp, np.arange(shape_of(g.x)[axis])):
                u.y.replace_all_uses_with(g.x)
            else:
                u.y.replace_all_uses_with(_gather(rewriter, u, g.x, comp, axis, u))
            _erase_gather(rewriter, u)
        elif isinstance(u, cann.TransposeDOp) and index is not None and index.ndim == 1:
            from compiler.ir.rewriting import with_loc

            perm = ints(u.perm)
            shape = [shape_of(g.x)[p] for p in perm]
            t = with_loc(cann.TransposeDOp(operands=[g.x], result_types=[TensorType(
                elem_of(g.x), shape)], properties={"perm": u.perm}), u)
            rewriter.insert_op(t, InsertPoint.before(u))
            moved = _gather(rewriter, u, t.y, index, perm.index(axis), u)
            u.y.replace_all_uses_with(moved)
            rewriter.erase_op(u)
            assert isinstance(moved.owner, cann.GatherV2DOp)  # _gather made it
            _push_gather(rewriter, moved.owner)
    if not g.y.uses:
        _erase_gather(rewriter, g)


def absorb_reversal(new: Operation) -> bool:
    """A recomposed layer whose sequence is the time-reversed input (Keras's go_backwards: a
    ReverseV2 on axis 0, legalized as a GatherV2D of T-1..0) runs REDIRECTIONAL on the input
    itself; its outputs, now in input time order, are reversed back for their users, and that
    reversal folds into them (Bidirectional's ReverseV2 of the backward sequence cancels it, the
    last output's row T-1 becomes row 0).  No reversal op is left around the kernel."""
    x = new.operands[0]
    g = x.owner
    if getattr(new, "seq_length", None) is not None:  # its mask is reversed too: kept as is
        return False
    if not isinstance(g, cann.GatherV2DOp) or g.axis.value.data != 0 or \
            not _reversal(g.indices, 0) or shape_of(g.indices)[0] != shape_of(x)[0]:
        return False
    rewriter = Rewriter()
    new.operands = [g.x, *new.operands[1:]]
    new.properties["direction"] = cann.RnnDirectionAttr.of(cann.RnnDirection.REDIRECTIONAL)
    if not g.y.uses:
        _erase_gather(rewriter, g)
    after = new.next_op
    rev = np.arange(shape_of(x)[0])[::-1]
    assert after is not None  # the function's return follows new
    for r in new.results:
        if not r.uses:
            continue
        users = list(r.uses)
        back = _gather(rewriter, after, r, rev, 0, new)
        for use in users:
            o = use.operation
            o.operands = [back if i == use.index else v for i, v in enumerate(o.operands)]
        assert isinstance(back.owner, cann.GatherV2DOp)  # _gather made it
        _push_gather(rewriter, back.owner)
    return True


def recompose(module: ModuleOp) -> list[Operation]:
    """Rewrite every recognized LSTM / GRU While; return the new operators."""
    done = []
    funcs = _funcs(module)
    for op in [o for o in module.walk() if isinstance(o, cann.WhileOp)]:
        loop = recognize(op, funcs)
        if loop is None:
            continue
        cell = extract_cell(loop)
        if cell is None:
            continue
        if any(op.outputs[k].uses for k in loop.states if k not in (cell.h, cell.c, cell.shadow)):
            continue
        if list(shape_of(op.inputs[loop.seq]))[1:2] != \
                list(shape_of(op.inputs[cell.h]))[:1]:
            continue
        if cell.kind == "RNN" and loop.mask is not None:
            continue  # TanhRNN has no seq_length
        params = identify(loop, cell, module)
        if params is None:
            continue
        names = (op.body.root_reference.data, op.cond.root_reference.data)
        done.append(rewrite(loop, cell, params))
        absorb_reversal(done[-1])
        _erase_unreferenced(module, names)
        funcs = _funcs(module)
    return done


def _erase_unreferenced(module: ModuleOp, names) -> None:
    from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr

    def refs(a):
        if isinstance(a, SymbolRefAttr):
            yield a.root_reference.data
        elif isinstance(a, ArrayAttr):
            for x in a.data:
                yield from refs(x)
        elif hasattr(a, "func"):  # a TF func attribute
            yield from refs(a.func)

    used = {s for o in module.walk() for a in (*o.properties.values(), *o.attributes.values())
            for s in refs(a)}
    for f in [f for f in module.ops if isinstance(f, FuncOp)]:
        if f.sym_name.data in names and f.sym_name.data not in used:
            module.body.block.erase_op(f)
