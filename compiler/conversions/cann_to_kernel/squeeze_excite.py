"""The squeeze-excite gate as one vector kernel: FusedSqueezeExcite -> kernel.vec_kernel
(kind "SqueezeExcite").

gate[n] = act2(act1(mean_HW(x[n]) @ w1 + b1) @ w2 + b2), x NC1HWC0, gate NC1HWC0 (N, C1, 1, 1,
C0), the 1x1 weights and biases ND.  One batch per vector core:
  1. per block of c1Tile channel blocks: add x's H*W chunks elementwise into one chunk-sized
     accumulator (a vector Add per element, not a reduction), reduce it once (RowSum), multiply by the w1
     block [hidden, c1Tile, C0] and reduce to [hidden], accumulated: the
     spatial sum and the first GEMM run in one pass over x; then / H*W, + b1, act1;
  2. per block of cTile output channels: w2 block [cTile, hidden] times the hidden vector,
     reduced to a row [1, cTile], + b2, act2, stored into the gate (clipped at C, padding 0).

When the batches fill at most half the vector cores (batch 1: one core of 40 did all the work),
each batch is split over `splits` cores (compiler/target/tiling.py squeeze_excite_tiling), in two
phases of one launch with an all-core barrier between them (kernel.sync_all: Ascend C SyncAll):
  1. core (n, s) runs step 1 on its blocksPerSplit channel blocks and stores its partial
     hidden sums as row s of a GM workspace [N, splits, hidden] (the kernel's extra result);
  2. core (n, s) loads the splits rows, adds them (ReduceSum over the rows), and runs step 2 on
     its own output channels.

Choice: the two GEMMs run on the vector unit in UB, not on the cube.  They are matrix-vector
products (M = 1 per batch: hidden x C multiply-adds, at most 48 x 1152 in EfficientNetB0), so
a cube fractal would be 1/16 used, and the cube path would need the pooled vector moved UB ->
L1 and the hidden vector back, for work the vector unit does in a few instructions.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType, f32, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, kernel_op, stored_as
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format
from compiler.target.tiling import TilingError, squeeze_excite_tiling
from dialects import cann, kernel
from dialects.common import int_array, numpy_dtype


class SqueezeExciteToVectorBody(ChipPattern):
    applies_to = roots(cann.FusedSqueezeExciteOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.FusedSqueezeExciteOp):
            return
        xt, yt = op.x.type, op.y.type
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        xf, yf = cann.format_of(xt), cann.format_of(yt)
        if xf is None or xf.fmt != Format.NC1HWC0 or yf is None or yf.fmt != Format.NC1HWC0 \
                or any(cann.format_of(v.type) is not None for v in op.operands[1:]):
            self.fail(op, f"{op.name}: x and the gate must be NC1HWC0 and the weights ND, got x "
                          f"{stored_as(xt)} and gate {stored_as(yt)}; run assign-layouts first")
            return
        n_, c1, h, w, c0 = shape_of(xt)
        channels = cann.origin_shape(xt)[3]
        hidden = cann.origin_shape(op.w1.type)[3]
        et = elem_of(xt)
        try:
            t = squeeze_excite_tiling(n_, c1, h * w, c0, hidden, channels,
                                      numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        splits = f["splits"]
        ws_t = TensorType(et, [n_, splits, hidden])  # the partial hidden sums (GM workspace)
        body = Body([*(v.type for v in (*op.operands, op.y)), *([ws_t] if splits > 1 else [])])
        x, w1, b1, w2, b2, y = body.args[:6]
        c1t, chunk, ct, hw = f["c1Tile"], f["chunkLen"], f["cTile"], h * w
        share = f["blocksPerSplit"] * c0  # channels per split

        def act(v, name, shape):
            return v if name == "none" else body.vec(f"act:{name}", [v], shape, et)

        def hidden_sum(n, c_base, extent, hshape):
            """x's channels [c_base, +extent) of batch n summed over H*W and multiplied by w1,
            shaped hshape ([hidden] or [1, hidden])."""
            zero = body.index(0)
            hid = body.vec("Fill", [], hshape, et, {"fill": IntegerAttr(0, i64)})
            with body.loop(c_base, extent, c1t * c0, c1 * c0) as c:
                acc = body.vec("Fill", [], [c1t, chunk, c0], et, {"fill": IntegerAttr(0, i64)})
                with body.loop(zero, hw, chunk, hw) as li:
                    part = body.load(x, [n, c, li], "hw_chunks", [c1t, chunk, c0], et, "UB")
                    body.add(kernel.AccumulateOp(operands=[acc, part],
                                                 properties={"fn": kernel.AccumulateFnAttr.of(
                                                     kernel.AccumulateFn.Add)}))
                acc = body.vec("RowSum", [acc], [c1t, c0], et)
                wt = body.load(w1, [zero, c], "filter_t", [hidden, c1t, c0], et, "UB")
                p = body.vec("Mul", [wt, acc], [hidden, c1t, c0], et)
                r = body.vec("ReduceSum", [p], hshape, et, {"axes": int_array([1, 2])})
                body.add(kernel.AccumulateOp(operands=[hid, r],
                                             properties={"fn": kernel.AccumulateFnAttr.of(
                                                 kernel.AccumulateFn.Add)}))
            return hid

        def gate(n, hid, co_base, extent):
            """(hid / H*W + b1, act1) @ w2 + b2, act2 for output channels [co_base, +extent)."""
            zero = body.index(0)
            hid = body.vec("Muls", [hid], [hidden], et, {"value": FloatAttr(1.0 / hw, f32)})
            bb1 = body.load(b1, [zero, zero], "channel", [hidden], et, "UB", offset=0, N=hidden)
            hid = act(body.vec("Add", [hid, bb1], [hidden], et), op.act1.data, [hidden])
            with body.loop(co_base, extent, ct, channels) as co:
                wt2 = body.load(w2, [co, zero], "filter_t", [ct, hidden], et, "UB")
                p2 = body.vec("Mul", [wt2, hid], [ct, hidden], et)
                g = body.vec("ReduceSum", [p2], [1, ct], et, {"axes": int_array([1])})
                bb2 = body.load(b2, [zero, co], "channel", [1, ct], et, "UB", offset=0,
                                N=channels)
                g = act(body.vec("Add", [g, bb2], [1, ct], et), op.act2.data, [1, ct])
                body.store(g, y, [zero, n, co], "nc1hwc0", out_hw=[1, 1], M=n_, N=channels,
                           offset=0, cout=channels)

        if splits == 1:
            with body.cores([t.block_dim], [f["batchPerCore"]]) as (o,):
                with body.loop(o, f["batchPerCore"], 1, n_) as n:
                    gate(n, hidden_sum(n, body.index(0), c1 * c0, [hidden]), body.index(0), channels)
        else:
            ws = body.args[6]
            nd = dict(rows=splits, cols=hidden, batch=[n_])
            with body.cores([n_, splits], [1, 1]) as (n, s):  # phase 1: partial sums
                hid = hidden_sum(n, body.mul_index(s, share), share, [1, hidden])
                body.store(hid, ws, [n, s, body.index(0)], "nd", **nd)
            body.add(kernel.SyncAllOp.create())
            with body.cores([n_, splits], [1, 1]) as (n, s):  # phase 2: output channels
                zero = body.index(0)
                parts = body.load(ws, [n, zero, zero], "nd", [splits, hidden], et, "UB", **nd)
                hid = body.vec("ReduceSum", [parts], [hidden], et, {"axes": int_array([0])})
                gate(n, hid, body.mul_index(s, share), share)
        new = kernel_op(kernel.VectorKernelOp, "SqueezeExcite", op.operands, yt, body.region(),
                        t.block_dim, f, t.buffers, op, extra_types=[ws_t] if splits > 1 else ())
        rewriter.replace(op, new, [new.y])
