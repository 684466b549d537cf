"""cann.Aipp (static AIPP, ATC's --insert_op_conf) -> one kernel.vec_kernel writing NC1HWC0.

The result is the model input stored NC1HWC0 (N, 1, H, W, C0): AIPP writes at most 3 channels,
so one C1 block, and the kernel's rows are the output pixels (n, h, w), C0 lanes each.  Per core,
tiles of rows; per tile:

- the source pixels are loaded from the raw uint8 image in GM (`aipp_pixels`: the rbuv swap,
  the crop and, for YUV420SP, the NV12 chroma are in the view, compiler/interpreters/aipp_impl.py).
  With CSC, input channel k is loaded broadcast over the lanes and the 3 x 3 matrix is applied
  as sum_k (x_k - input_bias_k) * M[:, k] (column k of M across the lanes, a row of the
  coefficient tensor), then * 1/256, + output_bias, clipped to [0, 255] and truncated (>> 8 of
  a non-negative value); without CSC channel c lands in lane c;
- (p - mean) - min, * var_reci, per lane (rows of the coefficient tensor; lanes past C are 0,
  so the padding lanes of NC1HWC0 come out 0);
- padding: a 0/1 mask of the tile's pixels inside the crop (`aipp_valid`) selects the padding
  value elsewhere.

The coefficient tensor [8, C0] float32 (matrix columns 0..2, output bias, mean, min, var_reci,
padding value) is a constant operand of the kernel: weights in the .om.  The vector ops are the
kernel's cost in the perf report (compiler/target/kernel_cost_walk.py walks them).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import Body, ChipPattern, kernel_op, stored_as
from compiler.interpreters.aipp_impl import params
from compiler.ir.rewriting import roots, with_loc
from compiler.target.formats import Format
from dialects import cann, kernel
from dialects.common import dense_from_numpy

#: rows of the coefficient tensor
MATRIX_COL, OUT_BIAS, MEAN, MIN, VAR_RECI, PAD_VALUE = 0, 3, 4, 5, 6, 7


def coefficients(p: dict, channels: int, c0: int) -> np.ndarray:
    coef = np.zeros((8, c0), np.float32)
    m = np.asarray(p["matrix"], np.float32).reshape(3, 3)
    coef[MATRIX_COL:MATRIX_COL + 3, :3] = m.T  # row k: column k of M (lane c = M[c, k])
    coef[OUT_BIAS, :3] = p["output_bias"] if p["code"] == 1 else 0
    coef[MEAN, :channels] = p["mean"]
    coef[MIN, :channels] = p["min"]
    coef[VAR_RECI, :channels] = p["var_reci"]
    coef[PAD_VALUE, :channels] = p["padding_value"]
    return coef


class AippToVectorBody(ChipPattern):
    applies_to = roots(cann.AippOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.AippOp):
            return
        xt, yt = op.x.type, op.y.type
        yf = cann.format_of(yt)
        if yf is None or yf.fmt != Format.NC1HWC0:
            self.fail(op, f"{op.name}: y stored as {stored_as(yt)}; the AIPP kernel writes "
                          "NC1HWC0 (run assign-layouts first)")
            return
        n_, c1, ho, wo, c0 = yt.get_shape()
        p = params(op)
        channels = yf.origin[3]
        rows = n_ * c1 * ho * wo
        # UB per output row, double-buffered: 3 channel tiles + the running sum + the result
        # (float32), and the mask (the coefficient rows, 8 x C0, are loaded once per core)
        t = self.vector_tiling_or_fail(op, "Aipp", rows, 1, 4 * c0 * 5 + 4, c0)
        if t is None:
            return
        coef = with_loc(cann.ConstOp(dense_from_numpy(coefficients(p, channels, c0))), op)
        f, tile = t.fields, t.fields["tileElems"]
        geo = {"format": p["code"], "src_hw": list(p["src_hw"]), "crop": list(p["crop"]),
               "pads": list(p["pads"]), "swap": int(p["swap"]), "out_hw": [ho, wo], "rows": rows}
        body = Body([xt, coef.output.type, yt])
        x, cf, y = body.args
        shape = [tile, c0]

        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            # the coefficient rows the body reads, loaded into UB once per core
            used = [MEAN, MIN, VAR_RECI] + ([MATRIX_COL, MATRIX_COL + 1, MATRIX_COL + 2]
                                            if p["csc"] else []) + \
                ([OUT_BIAS] if p["csc"] and p["code"] == 1 else []) + \
                ([PAD_VALUE] if any(p["pads"]) else [])
            rows_ub = {r: body.load(cf, [body.index(r)], "rows", [1, c0], f32, "UB")
                       for r in sorted(used)}
            row = rows_ub.__getitem__
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                if p["csc"]:
                    acc = None
                    for k in range(3):
                        xk = body.load(x, [ti], "aipp_pixels", shape, f32, "UB", channel=k, **geo)
                        if p["code"] != 1 and p["input_bias"][k]:
                            xk = body.vec("Adds", [xk], shape, f32,
                                          {"value": _f32(-p["input_bias"][k])})
                        term = body.vec("Mul", [xk, row(MATRIX_COL + k)], shape, f32)
                        acc = term if acc is None else body.vec("Add", [acc, term], shape, f32)
                    v = body.vec("Muls", [acc], shape, f32, {"value": _f32(1 / 256)})
                    if p["code"] == 1:
                        v = body.vec("Add", [v, row(OUT_BIAS)], shape, f32)
                    lo = body.vec("Duplicate", [], shape, f32, {"value": _f32(0.0)})
                    hi = body.vec("Duplicate", [], shape, f32, {"value": _f32(255.0)})
                    v = body.vec("Minimum", [body.vec("Maximum", [v, lo], shape, f32), hi],
                                 shape, f32)
                    v = body.vec("Cast", [body.vec("Cast", [v], shape, i32)], shape, f32)
                else:
                    v = body.load(x, [ti], "aipp_pixels", shape, f32, "UB", channel=-1, **geo)
                v = body.vec("Sub", [v, row(MEAN)], shape, f32)
                v = body.vec("Sub", [v, row(MIN)], shape, f32)
                v = body.vec("Mul", [v, row(VAR_RECI)], shape, f32)
                if any(p["pads"]):
                    mask = body.load(x, [ti], "aipp_valid", [tile, 1], f32, "UB", **geo)
                    v = body.vec("SelectV2", [mask, v, row(PAD_VALUE)], shape, f32)
                body.store(v, y, [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, "Aipp", [op.x, coef.output], yt, body.region(),
                        t.block_dim, f, t.buffers, op)
        rewriter.replace(op, [coef, new])


def _f32(v: float):
    from xdsl.dialects.builtin import FloatAttr

    return FloatAttr(float(v), f32)
