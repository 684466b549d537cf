"""Recurrent layers: cann.DynamicRNN (LSTM) / cann.DynamicGRUV2 (GRU) -> ONE kernel.cube per
layer whose body loops over the time steps (dialects/cann.py, section "Recurrent layers").

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

So the state never leaves UB/L1 between steps and the layer is one launch.  This is the
structure of CANN's own kernels (cann-ops src/rnn/dynamic_rnn/op_kernel/LstmFP32.cpp: an input
matmul, a hidden matmul per step, the gates on the vector unit); unlike it, x_t's projection is
done per step here (not one [T*B, I] GEMM up front) and the weights are re-read from GM every
step (the cube cost counts those bytes).  What is not lowered: a used output_c (the c of every
step; recomposition never makes one), hidden sizes whose states and gate tiles overflow UB
(a diagnostic names the bytes).

Tiling fields: the TCubeTiling ones describe the step GEMMs stacked over time (M = T * rows,
N = gates * H padded, Ka = I (padded to baseK) + H (padded to 16)); timeStep, batch, inputSize,
hiddenSize and gates are the layer's (DynamicRNN's tiling data names them so).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from compiler.ir.typed import elem_of, shape_of
from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, align, kernel_op
from compiler.target.formats import ceil_div
from dialects import cann, kernel
from dialects.common import numpy_dtype


@dataclass(frozen=True)
class Buf:
    space: str
    size: int
    role: str


def _plan(chip, t_, b_, i_, h_, gates: int, in_bytes: int, states: int, l0c_tiles: int):
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
    bufs = [Buf("L0A", bm * max(bk, bn) * in_bytes, "x_t / h tile"),
            Buf("L0B", max(bk, bn) * bn * in_bytes, "weight tile"),
            Buf("L0C", l0c_tiles * bm * bn * 4, "gate pre-activations"),
            Buf("L1", (nk * bm * bk + nch * bm * bn + max(bk, bn) * bn) * in_bytes,
                "x_t, h_{t-1}, weight tile"),
            Buf("UB", (states * nch + gates + 3) * bm * bn * 4, "states, gates, bias")]
    for b in bufs:
        cap = chip.capacity(b.space)
        if cap is not None and b.size > cap:
            return (f"hidden size {h_}: the {b.role} need {b.size} bytes of {b.space}, "
                    f"{chip.name} has {cap}")
    return block_dim, single_m, bk, bn, bufs


class RecurrentToCube(ChipPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.DynamicRNNOp, cann.DynamicGRUV2Op)):
            return
        if not self.static_row_major_values(op, [*op.operands, *op.results]):
            return
        lstm = isinstance(op, cann.DynamicRNNOp)
        if isinstance(op, cann.DynamicRNNOp) and op.output_c.uses:
            self.fail(op, f"{op.name}: output_c (the c of every step) has no kernel lowering; "
                          "only y / output_h are lowered")
            return
        t_, b_, i_ = shape_of(op.x)
        h_ = op.hidden_size()
        gates = 4 if lstm else 3
        et = elem_of(op.x)
        in_bytes = numpy_dtype(et).itemsize
        chip = self.chip
        plan = _plan(chip, t_, b_, i_, h_, gates, in_bytes, 2 if lstm else 1, 2)
        if isinstance(plan, str):
            self.fail(op, f"{op.name}: {plan}")
            return
        block_dim, single_m, bk, bn, bufs = plan
        y_type = op.y.type
        body = Body([*(v.type for v in op.operands), y_type])
        _emit(body, op, lstm, t_, b_, i_, h_, et, single_m, block_dim, bk, bn)
        k0 = 32 // in_bytes
        hp = align(h_, 16)
        ka = align(align(i_, k0), bk) + hp
        fields = dict(usedCoreNum=block_dim, M=t_ * b_, N=gates * h_, Ka=ka, Kb=ka,
                      singleCoreM=t_ * single_m, singleCoreN=gates * hp, singleCoreK=ka,
                      baseM=16, baseN=bn, baseK=bk, depthA1=1, depthB1=1, stepM=1, stepN=1,
                      stepKa=1, stepKb=1, iterateOrder=0, dbL0A=1, dbL0B=1, dbL0C=1,
                      timeStep=t_, batch=b_, inputSize=i_, hiddenSize=h_, gates=gates)
        kind = "DynamicRNN" if lstm else "DynamicGRUV2"
        new = kernel_op(kernel.CubeKernelOp, kind, list(op.operands), y_type, body.region(),
                        block_dim, fields, bufs, op)
        rewriter.insert(new, InsertPoint.before(op))
        op.y.replace_all_uses_with(new.results[0])
        op.output_h.replace_all_uses_with(new.results[0])  # num_proj = 0: output_h is y
        rewriter.erase(op)


def _emit(body: Body, op, lstm: bool, t_, b_, i_, h_, et, single_m, block_dim, bk, bn) -> None:
    in_bytes = numpy_dtype(et).itemsize
    k0 = 32 // in_bytes
    bm = 16
    hp = align(h_, 16)
    nch, nk = ceil_div(hp, bn), ceil_div(align(i_, k0), bk)
    args = body.args
    if lstm:
        x, w, b, h0, c0, y = args
        w_x = w_h = w
        h_row = i_  # the hidden rows of w follow the input rows
        order = op.gate_order.data
        gate_names = {"i": order.index("i"), "j": order.index("j"), "f": order.index("f"),
                      "o": order.index("o")}
        forget_bias = float(op.forget_bias.value.data)
    else:
        x, w_x, w_h, b_i, b_h, h0, y = args
        h_row = 0
        order = op.gate_order.data
        gate_names = {"z": order.index("z"), "r": order.index("r"), "n": order.index("h")}

    def idx(v):
        return body.index(v)

    def vec(fn, *xs, **attrs):
        return body.vec(fn, list(xs), [bm, bn], f32,
                        {k: IntegerAttr(v, i64) if isinstance(v, int) else v
                         for k, v in attrs.items()})

    def state_from(src, j, batch):
        tile = body.load(src, [idx(0), m, idx(j * bn)], "nd", [bm, bn], et, "UB",
                         transpose=0, batch=batch, rows=b_, cols=h_)
        return tile if et == f32 else body.vec("Cast", [tile], [bm, bn], f32)

    def weight(src, row0, rows, g, j, k_rows):
        w1 = body.load(src, [idx(0), row0, idx(g * h_ + j * bn)], "nd", [k_rows, bn], et, "L1",
                       transpose=0, batch=[], rows=rows, cols=(g + 1) * h_)
        return body.load(w1, [], "Zn", [k_rows // k0, bn // 16, 16, k0], et, "L0B")

    def zz(a1, k_cols):
        return body.load(a1, [], "Zz", [bm // 16, k_cols // k0, 16, k0], et, "L0A")

    with body.cores([block_dim], [single_m]) as (m0,):
        with body.loop(m0, single_m, bm, b_) as m:
            init_batch = [1] if lstm else []
            hs = [state_from(h0, j, init_batch) for j in range(nch)]
            cs = [state_from(c0, j, init_batch) for j in range(nch)] if lstm else []
            with body.loop(idx(0), t_, 1, t_) as t:
                h_l1 = [body.load(hs[j], [], "copy", [bm, bn], et, "L1") for j in range(nch)]
                x_l1 = [body.load(x, [t, m, idx(k * bk)], "nd", [bm, bk], et, "L1", transpose=0,
                                  batch=[t_], rows=b_, cols=i_) for k in range(nk)]
                for j in range(nch):
                    def gemm(g, with_x=True, with_h=True):
                        c = body.alloc([bn // 16, bm // 16, 16, 16], f32, "L0C")
                        if with_x:
                            for k in range(nk):
                                body.mmad(c, zz(x_l1[k], bk),
                                          weight(w_x, idx(k * bk), i_, g, j, bk))
                        if with_h:
                            for jj in range(nch):
                                body.mmad(c, zz(h_l1[jj], bn),
                                          weight(w_h, idx(h_row + jj * bn), h_row + h_, g, j, bn))
                        return body.fixpipe(c, [bm, bn])

                    def bias(src, g):
                        return body.load(src, [idx(g), idx(j * bn)], "channel", [1, bn], f32,
                                         "UB", offset=h_, N=h_)

                    if lstm:
                        z = {n: vec("Add", gemm(g), bias(b, g)) for n, g in gate_names.items()}
                        ig, jg = vec("Sigmoid", z["i"]), vec("Tanh", z["j"])
                        fz = z["f"] if forget_bias == 0.0 else body.vec(
                            "Adds", [z["f"]], [bm, bn], f32,
                            {"value": FloatAttr(forget_bias, f32)})
                        fg, og = vec("Sigmoid", fz), vec("Sigmoid", z["o"])
                        body.add(kernel.AccumulateOp(operands=[cs[j], fg],
                                                     properties=_fn("Mul")))
                        body.add(kernel.AccumulateOp(operands=[cs[j], vec("Mul", ig, jg)],
                                                     properties=_fn("Add")))
                        h_new = vec("Mul", og, vec("Tanh", cs[j]))
                    else:
                        gz, gr, gn = gate_names["z"], gate_names["r"], gate_names["n"]
                        zg = vec("Sigmoid", vec("Add", vec("Add", gemm(gz), bias(b_i, gz)),
                                                bias(b_h, gz)))
                        rg = vec("Sigmoid", vec("Add", vec("Add", gemm(gr), bias(b_i, gr)),
                                                bias(b_h, gr)))
                        xn = vec("Add", gemm(gn, with_h=False), bias(b_i, gn))
                        hn = vec("Add", gemm(gn, with_x=False), bias(b_h, gn))
                        n_ = vec("Tanh", vec("Add", xn, vec("Mul", rg, hn)))
                        h_new = vec("Add", n_, vec("Mul", zg, vec("Sub", hs[j], n_)))
                    out = h_new if et == f32 else body.vec("Cast", [h_new], [bm, bn], et)
                    body.store(out, y, [t, m, idx(j * bn)], "nd", batch=[t_], rows=b_, cols=h_)
                    body.add(kernel.AccumulateOp(operands=[hs[j], h_new], properties=_fn("Copy")))


def _fn(name: str) -> dict:
    from xdsl.dialects.builtin import StringAttr

    return {"fn": StringAttr(name)}
