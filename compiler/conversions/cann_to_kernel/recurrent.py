"""Recurrent layers: cann.DynamicRNN (LSTM) / cann.DynamicGRUV2 (GRU) -> ONE kernel.cube per
layer whose body loops over the time steps (dialects/cann/recurrent.py).

Per core (a block of batch rows; the rows of a layer are independent, its time steps are not):

    for m in the core's rows, 16 at a time:
      h[j] (and c[j]) = init_h / init_c, column chunk j of H, in UB (fp32): the state
      kernel.for t in 0 .. T-1:
        hL1[j] = h[j] UB -> L1                       # h_{t-1}, the A operand of the step
        xL1[k] = x[t, m.., k..] GM -> L1             # x_t, in K chunks of I
        for each column chunk j, for each gate g:    # the gate matmuls on the cube
          L0C  = sum_k x_t[k] (L0A, Zz) x W_x[k, g*H + j..] (L0B, Zn)
               + sum_j' h_{t-1}[j'] x W_h[j', g*H + j..]
          z_g  = fixpipe(L0C) + b[g*H + j..]         # UB, fp32
        the cell on the chunk's gate tiles (vector unit, UB): LSTM
          c = f*c + i*j, h' = o*tanh(c); GRU (reset_after) n = tanh(xn + r*(hn + bhn)),
          h' = n + z*(h - n); y[t, m.., j..] = h' (UB -> GM); h[j] <- h' (UB -> UB copy)
        GRU with reset_after false: z and r of every chunk first, r*h_{t-1} UB -> L1; then per
          chunk n = tanh(xn + bin + (r*h) x W_hn + bhn) (the A operand of the candidate's
          recurrent matmul is r*h, not h)
    REDIRECTIONAL (a backward layer): step t reads x[T-1-t] and writes y[T-1-t].

So the state never leaves UB/L1 between steps and the layer is one launch.  This is the
structure of CANN's own kernels (cann-ops src/rnn/dynamic_rnn/op_kernel/LstmFP32.cpp: an input
matmul, a hidden matmul per step, the gates on the vector unit; its ProcessInputMM is the input
projection of all steps as one GEMM into a GM workspace before the time loop).  The weights'
L1 tiles are loaded once per block of rows before the time loop when they fit L1 (tiling field
weightReads, the cube cost's B traffic); else every step.  Unlike CANN's kernel, x_t's
projection is still done per step here (the kernel dialect has no GM workspace inside a body
nor index arithmetic on the time variable to address one; the cube cost counts it per step).  The final c
(output_c read only at the step run last: an
LSTM's return_state) is row T of the kernel's result [T+1, B, H] (stored after the time loop);
y is the result's leading T rows and the final c its last row, two StridedSliceD the memory plan
makes views (no copy) when the row's byte offset is 32-byte aligned.  What is not lowered:
output_c read at other steps, hidden sizes whose states and gate tiles overflow UB
(a diagnostic names the bytes).

Tiling fields: the TCubeTiling ones describe the step GEMMs stacked over time (M = T * rows,
N = gates * H padded, Ka = I (padded to baseK) + H (padded to 16)); timeStep, batch, inputSize,
hiddenSize and gates are the layer's (DynamicRNN's tiling data names them so).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType, f32, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, align, kernel_op
from compiler.ir.rewriting import roots, with_loc
from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import ceil_div
from dialects import cann, kernel
from dialects.common import int_array, numpy_dtype


@dataclass(frozen=True)
class Buf:
    space: str
    size: int
    role: str


def _plan(chip, t_, b_, i_, h_, gates: int, in_bytes: int, states: int, l0c_tiles: int,
          a_tiles: int = 1):
    """(block_dim, rows per core, bk, bn, buffers) or an error message."""
    bm = 16
    k0 = 32 // in_bytes
    m_blocks = ceil_div(b_, bm)
    block_dim = min(m_blocks, chip.cube_cores)
    single_m = ceil_div(m_blocks, block_dim) * bm
    hp = align(h_, 16)
    bn = min(hp, 128)
    bk = min(align(i_, k0), 128)
    while max(bk, bn) * bn * in_bytes > chip.capacity("L0B") and bn > 16:
        bn //= 2
    nch, nk = ceil_div(hp, bn), ceil_div(align(i_, k0), bk)
    # the weights' L1 tiles (x and h parts of every gate and column chunk), loaded once per
    # block of rows before the time loop when they fit L1 beside the step's tiles
    resident = gates * nch * (nk * bk + nch * bn) * bn * in_bytes
    step_l1 = (nk * bm * bk + a_tiles * nch * bm * bn + max(bk, bn) * bn) * in_bytes
    cap_l1 = chip.capacity("L1")
    keep = cap_l1 is None or step_l1 + resident <= cap_l1
    bufs = [Buf("L0A", bm * max(bk, bn) * in_bytes, "x_t / h tile"),
            Buf("L0B", max(bk, bn) * bn * in_bytes, "weight tile"),
            Buf("L0C", l0c_tiles * bm * bn * 4, "gate pre-activations"),
            Buf("L1", step_l1 + (resident if keep else 0),
                "x_t, h_{t-1}, weights resident across steps" if keep else
                "x_t, h_{t-1}, weight tile"),
            Buf("UB", (states * nch + gates + 3) * bm * bn * 4, "states, gates, bias")]
    for b in bufs:
        cap = chip.capacity(b.space)
        if cap is not None and b.size > cap:
            return (f"hidden size {h_}: the {b.role} need {b.size} bytes of {b.space}, "
                    f"{chip.name} has {cap}")
    return block_dim, single_m, bk, bn, bufs, keep


class RecurrentToCube(ChipPattern):
    applies_to = roots(cann.DynamicRNNOp, cann.DynamicGRUV2Op, cann.TanhRNNOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.DynamicRNNOp, cann.DynamicGRUV2Op, cann.TanhRNNOp)):
            return
        if not self.static_row_major_values(op, [*op.operands, *op.results]):
            return
        lstm = isinstance(op, cann.DynamicRNNOp)
        t_, b_, i_ = shape_of(op.x)
        last = 0 if cann.is_backward(op) else t_ - 1  # the step run last
        final_c = isinstance(op, cann.DynamicRNNOp) and bool(op.output_c.uses)
        masked = getattr(op, "seq_length", None) is not None
        if masked and not isinstance(op, cann.TanhRNNOp) and op.y.uses and op.output_h.uses:
            self.fail(op, f"{op.name}: with seq_length, y (0 at a masked step) and output_h (the "
                          "kept h) are different tensors; only one of them is lowered")
            return
        if isinstance(op, cann.DynamicRNNOp) and final_c and \
                not all(_row_read(u.operation, last) for u in op.output_c.uses):
            self.fail(op, f"{op.name}: output_c (the c of every step) has no kernel lowering; "
                          "only y / output_h and the final c (output_c's last step) are lowered")
            return
        h_ = op.hidden_size()
        simple = isinstance(op, cann.TanhRNNOp)
        gates = 4 if lstm else 1 if simple else 3
        et = elem_of(op.x)
        in_bytes = numpy_dtype(et).itemsize
        chip = self.chip
        # states kept across the chunks of a step: h (and c), and for a GRU with reset_after
        # false z and r * h of every chunk (computed before the candidate's matmul)
        states = (2 if isinstance(op, cann.DynamicRNNOp) else
                  1 if isinstance(op, cann.TanhRNNOp) or op.reset_after.value.data else 3) + 2 * masked
        plan = _plan(chip, t_, b_, i_, h_, gates, in_bytes, states, 2, 1 if states < 3 else 2)
        if isinstance(plan, str):
            self.fail(op, f"{op.name}: {plan}")
            return
        block_dim, single_m, bk, bn, bufs, resident = plan
        # with the final c used (return_state), the kernel's result has one more row: y's T rows,
        # then the final c; y is its leading slab (offset 0: a view in the memory plan)
        y_type = TensorType(et, [t_ + 1, b_, h_]) if final_c else op.y.type
        body = Body([*(v.type for v in op.operands), y_type])
        _emit(body, op, lstm, t_, b_, i_, h_, et, single_m, block_dim, bk, bn, final_c,
              masked and not isinstance(op, cann.TanhRNNOp) and bool(op.output_h.uses), resident)
        k0 = 32 // in_bytes
        hp = align(h_, 16)
        ka = align(align(i_, k0), bk) + hp
        fields = dict(usedCoreNum=block_dim, M=t_ * b_, N=gates * h_, Ka=ka, Kb=ka,
                      singleCoreM=t_ * single_m, singleCoreN=gates * hp, singleCoreK=ka,
                      baseM=16, baseN=bn, baseK=bk, depthA1=1, depthB1=1, stepM=1, stepN=1,
                      stepKa=1, stepKb=1, iterateOrder=0, dbL0A=1, dbL0B=1, dbL0C=1,
                      timeStep=t_, batch=b_, inputSize=i_, hiddenSize=h_, gates=gates,
                      # GM -> L1 reads of the weights per core: once per block of 16 rows when
                      # resident in L1, else every time step (the cube cost's B traffic)
                      weightReads=ceil_div(single_m, 16) * (1 if resident else t_))
        kind = "DynamicRNN" if lstm else "SimpleRNN" if simple else "DynamicGRUV2"
        new = kernel_op(kernel.CubeKernelOp, kind, list(op.operands), y_type, body.region(),
                        block_dim, fields, bufs, op)
        rewriter.insert(new, InsertPoint.before(op))
        y = new.results[0]
        built = []
        if final_c:
            assert isinstance(op, cann.DynamicRNNOp)  # final_c: an LSTM
            y = _slab(rewriter, op, y, 0, t_)
            c_row = _slab(rewriter, op, new.results[0], t_, 1)
            for u in list(op.output_c.uses):
                g = u.operation
                assert isinstance(g, cann.GatherV2DOp)  # _row_read checked every reader
                v = c_row
                if list(g.y.type.get_shape()) != [1, b_, h_]:
                    r = with_loc(cann.ReshapeOp(operands=[c_row], result_types=[g.y.type],
                                                properties={"shape": int_array([b_, h_])}), op)
                    rewriter.insert(r, InsertPoint.before(op))
                    built.append(r)
                    v = r.y
                g.y.replace_all_uses_with(v)
                rewriter.erase(g)
        op.y.replace_all_uses_with(y)
        if not isinstance(op, cann.TanhRNNOp):  # not simple
            op.output_h.replace_all_uses_with(y)  # num_proj = 0: output_h is y
        rewriter.erase(op)
        if built:
            from compiler.conversions.cann_to_kernel.vector import lower_new_ops

            lower_new_ops(self.chip, self.failures, [y.owner, c_row.owner, *built], rewriter,
                          self.impl)


def _row_read(g: Operation, row: int) -> bool:
    """g reads one constant row `row` of its operand on axis 0 (GatherV2D)."""
    from dialects.common import numpy_from_dense

    if not isinstance(g, cann.GatherV2DOp) or g.axis.value.data != 0 or \
            not isinstance(g.indices.owner, cann.ConstOp):
        return False
    idx = numpy_from_dense(g.indices.owner.value)
    return idx.size == 1 and int(idx.reshape(())) == row


def _slab(rewriter, op, v, start: int, count: int):
    """Rows [start, start + count) of v [R, B, H] (a StridedSliceD, a view when aligned)."""
    _, b_, h_ = v.type.get_shape()
    s = with_loc(cann.StridedSliceDOp(
        operands=[v], result_types=[TensorType(v.type.element_type, [count, b_, h_])],
        properties={"begin": int_array([start, 0, 0]), "end": int_array([start + count, b_, h_]),
                    "strides": int_array([1, 1, 1]),
                    **{k: IntegerAttr(0, i64) for k in (
                        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                        "shrink_axis_mask")}}), op)
    rewriter.insert(s, InsertPoint.before(op))
    return s.y


def _emit(body: Body, op, lstm: bool, t_, b_, i_, h_, et, single_m, block_dim, bk, bn,
          final_c: bool = False, kept_h: bool = False, resident: bool = False) -> None:
    """kept_h (with seq_length): the result is output_h (h kept at a masked step), else y."""
    in_bytes = numpy_dtype(et).itemsize
    k0 = 32 // in_bytes
    bm = 16
    hp = align(h_, 16)
    nch, nk = ceil_div(hp, bn), ceil_div(align(i_, k0), bk)
    args = body.args
    # REDIRECTIONAL: step t reads x[T-1-t] and writes y[T-1-t] (the view's reverse param)
    rev = {"reverse": 1} if cann.is_backward(op) else {}
    seq = args[-2] if getattr(op, "seq_length", None) is not None else None
    simple = isinstance(op, cann.TanhRNNOp)
    gates = 4 if lstm else 1 if simple else 3
    if simple:
        x, w_x, w_h, b, h0 = args[:5]
        y = args[-1]
        h_row = 0
    elif lstm:
        x, w, b, h0, c0 = args[:5]
        y = args[-1]
        w_x = w_h = w
        h_row = i_  # the hidden rows of w follow the input rows
        order = op.gate_order.data
        gate_names = {"i": order.index("i"), "j": order.index("j"), "f": order.index("f"),
                      "o": order.index("o")}
        forget_bias = float(op.forget_bias.value.data)
    if not lstm and not simple:
        x, w_x, w_h, b_i, b_h, h0 = args[:6]
        y = args[-1]
        h_row = 0
        order = op.gate_order.data
        gate_names = {"z": order.index("z"), "r": order.index("r"), "n": order.index("h")}
        reset_after = bool(op.reset_after.value.data)

    def idx(v):
        return body.index(v)

    def vec(fn, *xs, **attrs):
        return body.vec(fn, list(xs), [bm, bn], f32,
                        {k: IntegerAttr(v, i64) if isinstance(v, int) else v
                         for k, v in attrs.items()})

    def state_from(src, j, batch, step=None, **params):
        tile = body.load(src, [step if step is not None else idx(0), m, idx(j * bn)], "nd",
                         [bm, bn], et, "UB", transpose=0, batch=batch, rows=b_, cols=h_, **params)
        return tile if et == f32 else body.vec("Cast", [tile], [bm, bn], f32)

    l1: dict = {}  # (operand, row0, g, j) -> the weight tile kept in L1 across the steps

    def weight_l1(src, row0, rows, g, j, k_rows):
        return body.load(src, [idx(0), idx(row0), idx(g * h_ + j * bn)], "nd", [k_rows, bn], et,
                         "L1", transpose=0, batch=[], rows=rows, cols=(g + 1) * h_)

    def weight(src, row0, rows, g, j, k_rows):
        w1 = l1.get((src, row0, g, j)) or weight_l1(src, row0, rows, g, j, k_rows)
        return body.load(w1, [], "Zn", [k_rows // k0, bn // 16, 16, k0], et, "L0B")

    def keep_weights():
        """GM -> L1 once, before the time loop: every step's B tiles come from L1."""
        for g in range(gates):
            for j in range(nch):
                for k in range(nk):
                    l1[(w_x, k * bk, g, j)] = weight_l1(w_x, k * bk, i_, g, j, bk)
                for jj in range(nch):
                    r0 = h_row + jj * bn
                    l1[(w_h, r0, g, j)] = weight_l1(w_h, r0, h_row + h_, g, j, bn)

    def zz(a1, k_cols):
        return body.load(a1, [], "Zz", [bm // 16, k_cols // k0, 16, k0], et, "L0A")

    with body.cores([block_dim], [single_m]) as (m0,):
        with body.loop(m0, single_m, bm, b_) as m:
            init_batch = [1] if lstm else []
            hs = [state_from(h0, j, init_batch) for j in range(nch)]
            cs = [state_from(c0, j, init_batch) for j in range(nch)] if lstm else []
            if resident:
                keep_weights()
            with body.loop(idx(0), t_, 1, t_) as t:
                h_l1 = [body.load(hs[j], [], "copy", [bm, bn], et, "L1") for j in range(nch)]
                x_l1 = [body.load(x, [t, m, idx(k * bk)], "nd", [bm, bk], et, "L1", transpose=0,
                                  batch=[t_], rows=b_, cols=i_, **rev) for k in range(nk)]
                def gemm(g, j, with_x=True, with_h=True, a_h=None):
                    c = body.alloc([bn // 16, bm // 16, 16, 16], f32, "L0C")
                    if with_x:
                        for k in range(nk):
                            body.mmad(c, zz(x_l1[k], bk), weight(w_x, k * bk, i_, g, j, bk))
                    if with_h:
                        for jj in range(nch):
                            body.mmad(c, zz((a_h or h_l1)[jj], bn),
                                      weight(w_h, h_row + jj * bn, h_row + h_, g, j, bn))
                    return body.fixpipe(c, [bm, bn])

                def bias(src, g, j):
                    return body.load(src, [idx(g), idx(j * bn)], "channel", [1, bn], f32,
                                     "UB", offset=h_, N=h_)

                masks = [None] * nch
                if seq is not None:  # the step's 0/1 mask tile per column chunk
                    masks = [state_from(seq, j, [t_], t, **rev) for j in range(nch)]

                def blend(old, new, j):
                    """old + (new - old) * m: a masked row keeps old (CANN's seq_length)."""
                    if masks[j] is None:
                        return new
                    return vec("Add", old, vec("Mul", vec("Sub", new, old), masks[j]))

                def finish(j, h_new):
                    h_keep = blend(hs[j], h_new, j)
                    res = h_keep if kept_h or masks[j] is None else vec("Mul", h_new, masks[j])
                    out = res if et == f32 else body.vec("Cast", [res], [bm, bn], et)
                    body.store(out, y, [t, m, idx(j * bn)], "nd", batch=[t_], rows=b_, cols=h_,
                               **rev)
                    body.add(kernel.AccumulateOp(operands=[hs[j], h_keep], properties=_fn("Copy")))

                if simple:  # h' = act(x_t W_x + h W_h + b): one gate
                    act = "Tanh" if op.activation.data == "tanh" else "Relu"
                    for j in range(nch):
                        finish(j, vec(act, vec("Add", gemm(0, j), bias(b, 0, j))))
                elif lstm:
                    for j in range(nch):
                        z = {n: vec("Add", gemm(g, j), bias(b, g, j)) for n, g in gate_names.items()}
                        ig, jg = vec("Sigmoid", z["i"]), vec("Tanh", z["j"])
                        fz = z["f"] if forget_bias == 0.0 else body.vec(
                            "Adds", [z["f"]], [bm, bn], f32,
                            {"value": FloatAttr(forget_bias, f32)})
                        fg, og = vec("Sigmoid", fz), vec("Sigmoid", z["o"])
                        if masks[j] is None:  # c updated in place
                            body.add(kernel.AccumulateOp(operands=[cs[j], fg],
                                                         properties=_fn("Mul")))
                            body.add(kernel.AccumulateOp(operands=[cs[j], vec("Mul", ig, jg)],
                                                         properties=_fn("Add")))
                            finish(j, vec("Mul", og, vec("Tanh", cs[j])))
                        else:
                            c_new = vec("Add", vec("Mul", fg, cs[j]), vec("Mul", ig, jg))
                            h_new = vec("Mul", og, vec("Tanh", c_new))
                            body.add(kernel.AccumulateOp(operands=[cs[j], blend(cs[j], c_new, j)],
                                                         properties=_fn("Copy")))
                            finish(j, h_new)
                else:
                    gz, gr, gn = gate_names["z"], gate_names["r"], gate_names["n"]

                    def gate(g, j):
                        return vec("Sigmoid", vec("Add", vec("Add", gemm(g, j), bias(b_i, g, j)),
                                                  bias(b_h, g, j)))

                    if reset_after:
                        for j in range(nch):
                            zg, rg = gate(gz, j), gate(gr, j)
                            xn = vec("Add", gemm(gn, j, with_h=False), bias(b_i, gn, j))
                            hn = vec("Add", gemm(gn, j, with_x=False), bias(b_h, gn, j))
                            n_ = vec("Tanh", vec("Add", xn, vec("Mul", rg, hn)))
                            finish(j, vec("Add", n_, vec("Mul", zg, vec("Sub", hs[j], n_))))
                    else:
                        # r * h_{t-1} of every column chunk first: it is the A operand of the
                        # candidate's recurrent matmul (n = tanh(W_in x + b_in + W_hn (r*h) + b_hn))
                        zs, rh_l1 = [], []
                        for j in range(nch):
                            zs.append(gate(gz, j))
                            rh = vec("Mul", gate(gr, j), hs[j])
                            rh_l1.append(body.load(rh if et == f32 else body.vec(
                                "Cast", [rh], [bm, bn], et), [], "copy", [bm, bn], et, "L1"))
                        for j in range(nch):
                            n_ = vec("Tanh", vec("Add", vec("Add", gemm(gn, j, a_h=rh_l1),
                                                            bias(b_i, gn, j)), bias(b_h, gn, j)))
                            finish(j, vec("Add", n_, vec("Mul", zs[j], vec("Sub", hs[j], n_))))
            if final_c:  # the c of the last step run, row T of the result
                for j in range(nch):
                    cj = cs[j] if et == f32 else body.vec("Cast", [cs[j]], [bm, bn], et)
                    body.store(cj, y, [idx(t_), m, idx(j * bn)], "nd", batch=[t_ + 1], rows=b_,
                               cols=h_)


def _fn(name: str) -> dict:
    from xdsl.dialects.builtin import StringAttr

    return {"fn": StringAttr(name)}
