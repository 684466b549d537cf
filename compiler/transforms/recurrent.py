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
invariants -> the While's operands.  A used final c state (return_state) keeps the loop.
Bidirectional layers are two such loops (the backward one on the reversed sequence, as Keras
emits it): both are recomposed.  SimpleRNN has no CANN operator of this family (rnn.h's
DynamicRNN supports only cell_type LSTM): its loop stays a While.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr, TensorType, f32, i64
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
    if len(reads) != 1:
        return None
    read = reads[0]
    time, seq = _arg_index(read.indices, bblock), _arg_index(read.x, bblock)
    if time is None or seq is None or counters[time] != 0 or shape_of(op.inputs[seq])[0] != trips:
        return None
    loop = Loop(op, body, trips, time, counters, invariant, seq, read.y)
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
            if not (o is read or index or isinstance(o, (cann.AddOp, cann.EqualOp, ReturnOp))):
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


def extract_cell(loop: Loop) -> Cell | None:
    block = block_of(loop.body.body)
    inits = list(loop.op.inputs)
    mm_x: list[np.ndarray] = []
    mm_h: list[tuple[int, np.ndarray]] = []
    for o in block.ops:
        if isinstance(o, cann.MatMulV2Op):
            if o.bias is not None or int(o.transpose_x1.value.data):
                return None
            kw = _arg_index(o.x2, block)
            w = _const(inits[kw]) if kw is not None and kw in loop.invariant else None
            if w is None:
                return None
            if int(o.transpose_x2.value.data):
                w = w.T
            if o.x1 is loop.x_t:
                mm_x.append(w)
            elif (kh := _arg_index(o.x1, block)) is not None and kh in loop.states:
                mm_h.append((kh, w))
            else:
                return None
    if len(mm_x) != 1 or len(mm_h) != 1:
        return None
    w_x, (h, w_h) = mm_x[0], mm_h[0]
    hidden = w_h.shape[0]
    if w_h.shape[1] != w_x.shape[1] or w_x.shape[1] % hidden:
        return None
    gates = w_x.shape[1] // hidden
    kind = {(4, 2): "LSTM", (3, 1): "GRU"}.get((gates, len(loop.states)))
    if kind is None:
        return None
    c = next((k for k in loop.states if k != h), None)
    if any(list(shape_of(loop.op.inputs[k]))[-1] != hidden for k in loop.states):
        return None
    used_w = {id(w_x), id(w_h)}
    others = []
    for k in loop.invariant:
        if k == loop.seq:
            continue
        v = _const(inits[k])
        if v is None:
            if block.args[k].uses:
                return None
            continue
        if any(o.operands[1] is block.args[k] for o in block.ops if isinstance(o, cann.MatMulV2Op)):
            continue
        if block.args[k].uses and np.issubdtype(v.dtype, np.floating):
            others.append(v)
    del used_w
    size = gates * hidden
    if kind == "LSTM":
        b = np.zeros(size, w_x.dtype)
        for v in others:
            if v.size != size:
                return None
            b = b + v.reshape(size)
        biases = [b]
    else:
        rows = [r for v in others for r in v.reshape(-1, size)] if all(
            v.size % size == 0 for v in others) else None
        if rows is None or len(rows) not in (0, 2):
            return None
        biases = rows or [np.zeros(size, w_x.dtype)] * 2
    return Cell(kind, h, c, w_x, w_h, biases)


def _run_body(loop: Loop, module: ModuleOp, x_t, states: dict[int, np.ndarray]):
    from compiler.driver.runner import make_interpreter

    args = []
    for k, v in enumerate(loop.op.inputs):
        t = v.type
        if k in states:
            args.append(states[k].astype(numpy_dtype(elem_of(t))))
        elif k == loop.seq:
            x = np.zeros(shape_of(t), numpy_dtype(elem_of(t)))
            x[0] = x_t
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
    from compiler.interpreters.recurrent import gru_cell, lstm_cell

    rng = np.random.default_rng(13)
    b_, hidden = shape_of(loop.op.inputs[cell.h])
    i_ = cell.w_x.shape[0]
    probes = []
    for _ in range(2):
        x_t = rng.standard_normal((b_, i_)).astype(np.float32)
        st = {k: rng.standard_normal((b_, hidden)).astype(np.float32) for k in loop.states}
        try:
            out = _run_body(loop, module, x_t, st)
        except Exception:  # a body the numpy semantics cannot run: not recomposed
            return None
        probes.append((x_t, st, out))
    if cell.kind == "LSTM":
        candidates = [dict(gate_order=g, b=cell.biases[0]) for g in ("ifjo", "ijfo")]
    else:
        bi, bh = cell.biases
        candidates = [dict(gate_order=g, b_i=p, b_h=q) for g in ("zrh", "rzh")
                      for p, q in ((bi, bh), (bh, bi))]
    for cand in candidates:
        ok = True
        for x_t, st, out in probes:
            h0 = st[cell.h]
            if cell.kind == "LSTM" and cell.c is not None:
                h1, c1 = lstm_cell(x_t, h0, st[cell.c], cell.w_x, cell.w_h, cand["b"],
                                   str(cand["gate_order"]))
                want = {cell.h: h1, cell.c: c1}
            else:
                h1 = gru_cell(x_t, h0, cell.w_x, cell.w_h, cand["b_i"], cand["b_h"],
                              str(cand["gate_order"]))
                want = {cell.h: h1}
            for k, v in want.items():
                ok &= np.allclose(out[k], v, rtol=RTOL, atol=ATOL)
            for k, kind in loop.buffers.items():
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
    new: cann.DynamicRNNOp | cann.DynamicGRUV2Op
    if cell.kind == "LSTM" and cell.c is not None:
        w = _new_const(rewriter, op, np.concatenate([cell.w_x, cell.w_h]).astype(dt), op)
        b = _new_const(rewriter, op, params["b"].astype(dt), op)
        new = cann.DynamicRNNOp(
            operands=[x, w, b, reshaped(h0, [1, b_, hidden]),
                      reshaped(op.inputs[cell.c], [1, b_, hidden])],
            result_types=[seq_t] * 3,
            properties={"cell_type": StringAttr("LSTM"), "direction": StringAttr("UNIDIRECTIONAL"),
                        "time_major": IntegerAttr(1, i64), "activation": StringAttr("tanh"),
                        "forget_bias": FloatAttr(0.0, f32),
                        "gate_order": StringAttr(params["gate_order"])})
    else:
        consts = [_new_const(rewriter, op, v.astype(dt), op)
                  for v in (cell.w_x, cell.w_h, params["b_i"], params["b_h"])]
        new = cann.DynamicGRUV2Op(
            operands=[x, *consts, h0], result_types=[seq_t] * 2,
            properties={"direction": StringAttr("UNIDIRECTIONAL"),
                        "time_major": IntegerAttr(1, i64), "activation": StringAttr("tanh"),
                        "gate_order": StringAttr(params["gate_order"]),
                        "reset_after": IntegerAttr(1, i64)})
    with_loc(new, op)
    rewriter.insert_op(new, InsertPoint.before(op))
    y = new.results[0]
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
        elif k == cell.h:
            v = _row(rewriter, op, y, np.asarray(t_ - 1, np.int32), [b_, hidden], op)
        else:
            raise AssertionError("checked by recompose: a used result without a value")
        r.replace_all_uses_with(v)
    rewriter.erase_op(op)
    return new


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
        if cell.c is not None and op.outputs[cell.c].uses:
            continue  # the final c (return_state) is not an output of the recomposed form
        if any(op.outputs[k].uses for k in loop.states if k not in (cell.h, cell.c)):
            continue
        if list(shape_of(op.inputs[loop.seq]))[1:2] != \
                list(shape_of(op.inputs[cell.h]))[:1]:
            continue
        params = identify(loop, cell, module)
        if params is None:
            continue
        names = (op.body.root_reference.data, op.cond.root_reference.data)
        done.append(rewrite(loop, cell, params))
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
