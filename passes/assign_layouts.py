"""assign-layouts: choose storage formats (cann-facts.md sections 1-3) and insert TransData.

Patterns, applied to a fixed point:
  LayoutConv              conv x -> NC1HWC0, filter -> FRACTAL_Z, y -> NC1HWC0, each via a
                          TransData, with a TransData back to the origin format after y
  LayoutElementwise       a format-agnostic op (Relu, BiasAdd) on a value just converted back
                          from NC1HWC0 runs on the NC1HWC0 data instead (TransData sinks past it)
  FoldConstTransData      TransData of a constant = the constant converted at compile time
  LayoutRowsNZ            SoftmaxV2 / LayerNorm / AddLayerNorm over the last axis of a value
                          converted back from FRACTAL_NZ run on the NZ data (a block of 16 rows
                          across all K1 blocks is 16 whole rows); AddLayerNorm's residual joins NZ
  LayoutReshapeNZ         a Reshape that only regroups the batch dims of an NZ value is an NZ view
  FoldReshapeChain        Reshape(Reshape(x)) = Reshape(x) (= x when it is x's shape)
  TransdataTransdataFold  TransData(A->B) of TransData(B->A) = the original value (the CANN pass
                          of that name)
  EraseDead               unused TransData, constants and reshapes left behind
What remains is a TransData at the function's inputs and outputs only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.formats import Format, to_storage
from compiler.rewriting import rewrite, with_loc
from dialects import cann
from dialects.common import dense_from_numpy, numpy_from_dense


def trans_data(value: SSAValue, src: Format, dst: Format, result_type: TensorType,
               groups: int = 1) -> cann.TransDataOp:
    return cann.TransDataOp(
        operands=[value], result_types=[result_type],
        properties={"src_format": StringAttr(src.value), "dst_format": StringAttr(dst.value),
                    "groups": IntegerAttr(groups, i64)})


def to_format(value: SSAValue, fmt: Format, origin: Format, groups: int = 1) -> cann.TransDataOp:
    return trans_data(value, origin, fmt, cann.storage_type(value.type, fmt, origin, groups), groups)


class LayoutConv(RewritePattern):
    """Conv2D / FusedConv2D / DepthwiseConv2D: x, y NC1HWC0; filter FRACTAL_Z (depthwise: with
    groups = C, the group enlargement rule of cann-facts.md section 3)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ConvLike, cann.DepthwiseConv2DOp, cann.FusedConv2DAddOp,
                               cann.FusedDepthwiseConv2DOp)):
            return
        if cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for d in op.x.type.get_shape()) or any(d < 0 for d in op.filter.type.get_shape()):
            return  # dynamic shapes stay in their origin layout (cann-to-kernel reports them)
        fmt = Format(op.data_format.data)
        groups = 1
        if isinstance(op, (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)):
            groups = cann.origin_shape(op.filter.type)[2]
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        wfz = to_format(op.filter, Format.FRACTAL_Z, Format.HWCN, groups)
        extra = []
        operands = [x5.dst, wfz.dst, [op.bias] if op.bias is not None else []]
        if isinstance(op, cann.FusedConv2DAddOp):
            r5 = to_format(op.residual, Format.NC1HWC0, fmt)
            extra.append(r5)
            operands.append(r5.dst)
        conv = type(op)(
            operands=operands,
            result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
            properties=dict(op.properties))
        back = trans_data(conv.y, Format.NC1HWC0, fmt, op.y.type)
        for new in (x5, wfz, *extra, conv, back):
            with_loc(new, op)
        rewriter.replace(op, [x5, wfz, *extra, conv, back])


class LayoutElementwise(RewritePattern):
    """Relu, BiasAdd and BNInfer compute per element (BiasAdd and BNInfer per channel, their
    1-D parameters indexed by channel): any format serves."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ReluOp, cann.BiasAddOp, cann.BNInferOp)):
            return
        producer = op.x.owner
        if not isinstance(producer, cann.TransDataOp) or cann.format_of(op.y.type) is not None:
            return
        stored = producer.src.type
        src = cann.format_of(stored)
        if src is None or src.fmt != Format.NC1HWC0:
            return
        operands = [producer.src, *op.operands[1:]]
        new = type(op)(operands=operands, result_types=[stored], properties=dict(op.properties))
        back = trans_data(new.y, Format.NC1HWC0, Format(producer.dst_format.data), op.y.type)
        rewriter.replace(op, [with_loc(new, op), with_loc(back, op)])


def _from_stored(v: SSAValue):
    """(stored value, its FormatAttr) when v is a TransData back to the origin of a formatted value."""
    p = v.owner
    if isinstance(p, cann.TransDataOp) and cann.format_of(v.type) is None:
        f = cann.format_of(p.src.type)
        if f is not None and f.fmt in (Format.NC1HWC0, Format.FRACTAL_NZ) and f.origin_fmt is not None:
            return p.src, f
    return None


class LayoutAnyElementwise(RewritePattern):
    """A format-agnostic op (any unary / binary elementwise cann op) whose non-constant operands
    all come back from one stored format runs on the stored data: same-format operands broadcast
    on the storage shapes (valid when they agree on C, i.e. broadcast only over N, H, W or M);
    a constant operand is converted at compile time (NC1HWC0: broadcast to 4-D origin first)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, (cann.UnaryCannOp, cann.BinaryCannOp)):
            return
        y = op.results[0].type
        if cann.format_of(y) is not None:
            return
        stored, fmt = [], None
        for v in op.operands:
            s = _from_stored(v)
            if s is not None:
                if fmt is not None and (s[1].fmt, s[1].origin_fmt) != (fmt.fmt, fmt.origin_fmt):
                    return
                fmt = fmt or s[1]
            stored.append(s)
        if fmt is None:
            return
        yo = tuple(y.get_shape())
        if len(yo) != len(fmt.origin) or any(d < 0 for d in yo):
            return
        cdim = {Format.NHWC: -1, Format.NCHW: 1}.get(fmt.origin_fmt, -1)
        new_ops, operands = [], []
        for v, s in zip(op.operands, stored):
            if s is not None:
                if cann.origin_shape(s[0].type)[cdim] != yo[cdim] and fmt.fmt == Format.NC1HWC0:
                    return  # broadcasting over C does not hold on C1/C0
                if fmt.fmt == Format.FRACTAL_NZ and cann.origin_shape(s[0].type)[-2:] != yo[-2:]:
                    return
                operands.append(s[0])
                continue
            const = v.owner
            if not isinstance(const, cann.ConstOp) or cann.format_of(v.type) is not None:
                return
            arr = numpy_from_dense(const.value)
            if arr.size == 1:
                operands.append(v)  # a scalar broadcasts over any layout
                continue
            if fmt.fmt != Format.NC1HWC0 or arr.ndim > len(yo):
                return
            arr = arr.reshape((1,) * (len(yo) - arr.ndim) + arr.shape)
            if arr.shape[cdim] not in (1, yo[cdim]):
                return
            full_c = np.broadcast_to(arr, arr.shape[:cdim % 4] + (yo[cdim],) + arr.shape[cdim % 4 + 1:]) \
                if arr.shape[cdim] == 1 else arr
            st = to_storage(np.ascontiguousarray(full_c), fmt.fmt, fmt.origin_fmt)
            t = TensorType(const.value.type.element_type, st.shape,
                           cann.FormatAttr(fmt.fmt, fmt.origin_fmt, full_c.shape))
            c = with_loc(cann.ConstOp(dense_from_numpy(st), t), const)
            new_ops.append(c)
            operands.append(c.output)
        rt = cann.storage_type(y, fmt.fmt, fmt.origin_fmt)
        new = with_loc(type(op).create(operands=operands, result_types=[rt],
                                       properties=dict(op.properties), attributes=dict(op.attributes)), op)
        back = with_loc(trans_data(new.results[0], fmt.fmt, fmt.origin_fmt, y), op)
        rewriter.replace(op, [*new_ops, new, back])


class LayoutSpatial(RewritePattern):
    """Rules for ops that keep C whole on an NC1HWC0 value (NHWC / NCHW origin):
      PadD with zero pads on N and C            -> PadD on NC1HWC0 (pads H, W), result NC1HWC0
      ReduceMeanD/SumD/MaxD over H, W, keep_dims -> result NC1HWC0 (N, C1, 1, 1, C0)
      ReduceMeanD/SumD/MaxD over H, W, no keep   -> result FRACTAL_NZ of [N, C]: C1 x C0 of the
          input are K1 x C0 of NZ, so the kernel writes the matmul operand layout directly
    Where a rule cannot hold (padding C, reducing over C) the TransData stays."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name not in ("cann.PadD", "cann.ReduceMeanD", "cann.ReduceSumD", "cann.ReduceMaxD"):
            return
        y = op.results[0].type
        if cann.format_of(y) is not None:
            return
        s = _from_stored(op.operands[0])
        if s is None or s[1].fmt != Format.NC1HWC0 or any(d < 0 for d in y.get_shape()):
            return
        src, f = s
        ofmt = f.origin_fmt
        hw = (1, 2) if ofmt == Format.NHWC else (2, 3)
        from dialects.common import ints
        if op.name == "cann.PadD":
            p = ints(op.paddings)
            if len(p) != 8 or any(p[2 * a] or p[2 * a + 1] for a in range(4) if a not in hw):
                return
            rt, back_fmt = cann.storage_type(y, Format.NC1HWC0, ofmt), (Format.NC1HWC0, ofmt)
        else:
            axes = sorted(a % 4 for a in ints(op.axes))
            if tuple(axes) != hw:
                return
            if op.keep_dims.value.data:
                rt, back_fmt = cann.storage_type(y, Format.NC1HWC0, ofmt), (Format.NC1HWC0, ofmt)
            else:
                rt, back_fmt = cann.storage_type(y, Format.FRACTAL_NZ, Format.ND), (Format.FRACTAL_NZ, Format.ND)
        new = with_loc(type(op).create(operands=[src], result_types=[rt],
                                       properties=dict(op.properties), attributes=dict(op.attributes)), op)
        back = with_loc(trans_data(new.results[0], back_fmt[0], back_fmt[1], y), op)
        rewriter.replace(op, [new, back])


class LayoutSqueezeExcite(RewritePattern):
    """Squeeze-excite (EfficientNet): ReduceMeanD over H, W without keep_dims, then Reshape to
    [N, 1, 1, C] (NHWC; [N, C, 1, 1] for NCHW) = the keep_dims reduction, whose NC1HWC0 result
    (N, C1, 1, 1, C0) is already that shape: the reduction writes NC1HWC0 and the Reshape goes
    away, so no TransData is needed around the SE branch.  Matches what LayoutSpatial made:
    Reshape(TransData(NZ -> ND, ReduceD(x NC1HWC0)))."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name != "cann.Reshape" or cann.format_of(op.y.type) is not None:
            return
        td = op.x.owner
        if not isinstance(td, cann.TransDataOp) or len(list(td.dst.uses)) != 1:
            return
        red = td.src.owner
        if red is None or red.name not in ("cann.ReduceMeanD", "cann.ReduceSumD", "cann.ReduceMaxD",
                                           "cann.ReduceMinD") or len(list(red.results[0].uses)) != 1:
            return
        rf, xf = cann.format_of(red.y.type), cann.format_of(red.x.type)
        if rf is None or rf.fmt != Format.FRACTAL_NZ or xf is None or xf.fmt != Format.NC1HWC0:
            return
        n_, c = cann.origin_shape(td.dst.type)
        want = [n_, 1, 1, c] if xf.origin_fmt == Format.NHWC else [n_, c, 1, 1]
        if list(op.y.type.get_shape()) != want:
            return
        props = dict(red.properties)
        props["keep_dims"] = IntegerAttr(1, red.keep_dims.type)
        rt = cann.storage_type(op.y.type, Format.NC1HWC0, xf.origin_fmt)
        new = with_loc(type(red).create(operands=[red.x], result_types=[rt], properties=props,
                                        attributes=dict(red.attributes)), red, op)
        back = with_loc(trans_data(new.results[0], Format.NC1HWC0, xf.origin_fmt, op.y.type), op)
        rewriter.replace(op, [new, back])
        rewriter.erase(td)
        rewriter.erase(red)


class LayoutSqueezeExciteGate(RewritePattern):
    """FusedSqueezeExcite: x NC1HWC0, gate NC1HWC0 (N, C1, 1, 1, C0), as the scaled conv reads
    it; the 1x1 weights and biases stay ND (the gate kernel reads them as matrices)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.FusedSqueezeExciteOp, rewriter: PatternRewriter):
        if cann.format_of(op.y.type) is not None or any(d < 0 for d in op.x.type.get_shape()):
            return
        x5 = to_format(op.x, Format.NC1HWC0, Format.NHWC)
        new = type(op)(operands=[x5.dst, *op.operands[1:]],
                       result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, Format.NHWC)],
                       properties=dict(op.properties))
        back = trans_data(new.y, Format.NC1HWC0, Format.NHWC, op.y.type)
        rewriter.replace(op, [with_loc(x5, op), with_loc(new, op), with_loc(back, op)])


class LayoutConvScaled(RewritePattern):
    """FusedConv2DScaled: as LayoutConv, and the scale NC1HWC0 (N, C1, 1, 1, C0): the channel
    split of x's C1 x C0, so the kernel multiplies A tiles by it column for column."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.FusedConv2DScaledOp, rewriter: PatternRewriter):
        if cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for v in (op.x, op.filter, op.scale) for d in v.type.get_shape()):
            return
        fmt = Format(op.data_format.data)
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        wfz = to_format(op.filter, Format.FRACTAL_Z, Format.HWCN)
        s5 = to_format(op.scale, Format.NC1HWC0, fmt)
        extra = [to_format(op.residual, Format.NC1HWC0, fmt)] if op.residual is not None else []
        conv = type(op)(operands=[x5.dst, wfz.dst, op.bias, s5.dst, [e.dst for e in extra]],
                        result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
                        properties=dict(op.properties))
        back = trans_data(conv.y, Format.NC1HWC0, fmt, op.y.type)
        new_ops = [x5, wfz, s5, *extra, conv, back]
        rewriter.replace(op, [with_loc(n, op) for n in new_ops])


class FoldConstReshape(RewritePattern):
    """Reshape of a constant = the constant with the new shape (weights stay compile-time)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name != "cann.Reshape":
            return
        const = op.x.owner
        if not isinstance(const, cann.ConstOp) or cann.format_of(op.x.type) is not None \
                or cann.format_of(op.y.type) is not None or any(d < 0 for d in op.y.type.get_shape()):
            return
        arr = numpy_from_dense(const.value).reshape(op.y.type.get_shape())
        rewriter.replace(op, with_loc(cann.ConstOp(dense_from_numpy(np.ascontiguousarray(arr)),
                                                   op.y.type), const))


class LayoutResize(RewritePattern):
    """ResizeBilinearV2 / ResizeNearestNeighborV2 interpolate each channel over H, W: on a value
    just converted back from NC1HWC0 (NHWC origin) they run on the NC1HWC0 data (per (n, c1)
    plane, C0 lanes) and write NC1HWC0 (the padding channels interpolate zeros)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name not in ("cann.ResizeBilinearV2", "cann.ResizeNearestNeighborV2"):
            return
        y = op.y.type
        s = _from_stored(op.x)
        if cann.format_of(y) is not None or s is None or s[1].fmt != Format.NC1HWC0 \
                or s[1].origin_fmt != Format.NHWC or any(d < 0 for d in y.get_shape()):
            return
        rt = cann.storage_type(y, Format.NC1HWC0, Format.NHWC)
        new = with_loc(type(op).create(operands=[s[0], op.size], result_types=[rt],
                                       properties=dict(op.properties),
                                       attributes=dict(op.attributes)), op)
        back = with_loc(trans_data(new.results[0], Format.NC1HWC0, Format.NHWC, y), op)
        rewriter.replace(op, [new, back])


class LayoutPool(RewritePattern):
    """MaxPool / AvgPool run per channel over H, W: on NC1HWC0."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name not in ("cann.MaxPool", "cann.AvgPool") or cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for d in op.x.type.get_shape()):
            return
        fmt = Format(op.data_format.data)
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        new = type(op).create(operands=[x5.dst],
                              result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        back = trans_data(new.results[0], Format.NC1HWC0, fmt, op.y.type)
        for n in (x5, new, back):
            with_loc(n, op)
        rewriter.replace(op, [x5, new, back])


class LayoutMatMul(RewritePattern):
    """MatMulV2 / BatchMatMulV2: operands and result FRACTAL_NZ (bias stays ND)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name not in ("cann.MatMulV2", "cann.BatchMatMulV2", "cann.FusedMatMul"):
            return
        y = op.results[0]
        if cann.format_of(y.type) is not None:
            return
        if any(d < 0 for v in (*op.operands, y) for d in v.type.get_shape()):
            return
        x1 = to_format(op.operands[0], Format.FRACTAL_NZ, Format.ND)
        x2 = to_format(op.operands[1], Format.FRACTAL_NZ, Format.ND)
        new = type(op).create(operands=[x1.dst, x2.dst, *op.operands[2:]],
                              result_types=[cann.storage_type(y.type, Format.FRACTAL_NZ, Format.ND)],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        back = trans_data(new.results[0], Format.FRACTAL_NZ, Format.ND, y.type)
        for n in (x1, x2, new, back):
            with_loc(n, op)
        rewriter.replace(op, [x1, x2, new, back])


#: Row kernels (compiler/lowering/vector.py RowsToVectorBody): statistics along the last axis.
ROW_KERNELS = ("cann.SoftmaxV2", "cann.LayerNorm", "cann.AddLayerNorm")


def _nz_stored(v: SSAValue):
    """The FRACTAL_NZ value (of an ND origin) that v was converted back from, else None."""
    s = _from_stored(v)
    if s is not None and s[1].fmt == Format.FRACTAL_NZ and s[1].origin_fmt == Format.ND:
        return s[0]
    return None


def _rows_over_last_axis(op) -> bool:
    """SoftmaxV2 over exactly the last axis, LayerNorm / AddLayerNorm normalizing (and scaling)
    from the last axis only; rank >= 2 (NZ needs M and K)."""
    from dialects.common import ints

    rank = len(op.results[0].type.get_shape())
    if rank < 2:
        return False
    if op.name == "cann.SoftmaxV2":
        return sorted(a % rank for a in ints(op.axes)) == [rank - 1]
    return (op.begin_norm_axis.value.data % rank == rank - 1
            and op.begin_params_axis.value.data % rank == rank - 1)


class LayoutRowsNZ(RewritePattern):
    """SoftmaxV2 / LayerNorm / AddLayerNorm over the last axis on a value converted back from
    FRACTAL_NZ run on the NZ data: one m1 block of NZ across all K1 column blocks holds 16 whole
    rows of the origin [.., M, K] (cann-facts.md section 3), so the row kernel loads and stores
    whole blocks (compiler/lowering/vector.py RowsToVectorBody) and the statistics never mix
    rows; the padding columns are dropped on load and written as zeros on store.
    AddLayerNorm's other input (the residual) is used in NZ when it was converted back from NZ
    too, else it gets a TransData ND -> NZ: the count of TransData does not grow, and the result
    stays NZ for the next matmul (in BERT the residual is the previous AddLayerNorm, NZ itself,
    or the model input: one TransData at the edge).  gamma / beta stay ND (one [K] row).
    Not when the statistics run over another axis (a row of NZ is not contiguous there), nor
    with broadcasting inputs."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name not in ROW_KERNELS:
            return
        y = op.results[0].type
        if cann.format_of(y) is not None or any(d < 0 for d in y.get_shape()) \
                or not _rows_over_last_axis(op):
            return
        n_x = 2 if op.name == "cann.AddLayerNorm" else 1
        xs = op.operands[:n_x]
        stored = [_nz_stored(v) for v in xs]
        if all(s is None for s in stored):
            return
        if any(tuple(v.type.get_shape()) != tuple(y.get_shape()) or cann.format_of(v.type)
               for v in xs) or any(cann.format_of(v.type) for v in op.operands[n_x:]):
            return
        new_ops, operands = [], []
        for v, s in zip(xs, stored):
            if s is None:
                td = with_loc(to_format(v, Format.FRACTAL_NZ, Format.ND), op)
                new_ops.append(td)
                s = td.dst
            operands.append(s)
        rt = cann.storage_type(y, Format.FRACTAL_NZ, Format.ND)
        new = with_loc(type(op).create(operands=[*operands, *op.operands[n_x:]], result_types=[rt],
                                       properties=dict(op.properties),
                                       attributes=dict(op.attributes)), op)
        back = with_loc(trans_data(new.results[0], Format.FRACTAL_NZ, Format.ND, y), op)
        rewriter.replace(op, [*new_ops, new, back])


class LayoutReshapeNZ(RewritePattern):
    """A Reshape that keeps the last two dims [M, K] and only regroups the batch dims (adds or
    removes leading 1-dims, [1, M, K] <-> [M, K]; merges or splits batches) of a value converted
    back from FRACTAL_NZ is a view of the NZ data: the batch dims are NZ's outermost axes, so
    (.., K1, M1, 16, C0) keeps its bytes (kernel.view, compiler/lowering/data_movement.py).
    A reshape that changes M or K is not (the padding moves) and keeps its TransData.  Reshapes
    of a reduction's NZ result are left to LayoutSqueezeExcite."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name != "cann.Reshape" or cann.format_of(op.y.type) is not None:
            return
        src = _nz_stored(op.x)
        if src is None or src.owner is None or src.owner.name.startswith("cann.Reduce"):
            return
        ys = tuple(op.y.type.get_shape())
        if len(ys) < 2 or any(d < 0 for d in ys) or ys[-2:] != cann.origin_shape(src.type)[-2:]:
            return
        rt = cann.storage_type(op.y.type, Format.FRACTAL_NZ, Format.ND)
        new = with_loc(cann.ReshapeOp.create(operands=[src], result_types=[rt],
                                             properties=dict(op.properties),
                                             attributes=dict(op.attributes)), op)
        back = with_loc(trans_data(new.y, Format.FRACTAL_NZ, Format.ND, op.y.type), op)
        rewriter.replace(op, [new, back])


class FoldReshapeChain(RewritePattern):
    """Reshape(Reshape(x)) = Reshape(x) on row-major values (a reshape keeps the row-major
    element order), and = x when that is x's own shape (Tensordot's [M, N] -> [1, M, N] ->
    [M, N] between two matmuls): the TransData pair around the chain then cancels.  The same
    for chains of FRACTAL_NZ batch views (LayoutReshapeNZ), which compose to one."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if op.name != "cann.Reshape":
            return
        inner = op.x.owner
        if not isinstance(inner, cann.ReshapeOp):
            return
        fmts = [cann.format_of(t) for t in (inner.x.type, op.x.type, op.y.type)]
        if any(f is not None for f in fmts) and not (
                all(f is not None and f.fmt == Format.FRACTAL_NZ for f in fmts)
                and len({f.origin[-2:] for f in fmts}) == 1):
            return
        if inner.x.type == op.y.type:
            rewriter.replace(op, [], [inner.x])
            return
        rewriter.replace(op, with_loc(cann.ReshapeOp.create(
            operands=[inner.x], result_types=[op.y.type], properties=dict(op.properties),
            attributes=dict(op.attributes)), op))


class FoldConstTransData(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        const = op.src.owner
        if not isinstance(const, cann.ConstOp) or cann.format_of(const.output.type) is not None:
            return
        value = to_storage(numpy_from_dense(const.value), Format(op.dst_format.data),
                           Format(op.src_format.data), op.groups.value.data)
        rewriter.replace(op, with_loc(cann.ConstOp(dense_from_numpy(value), op.dst.type), const))


class TransdataTransdataFold(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        inner = op.src.owner
        if not isinstance(inner, cann.TransDataOp):
            return
        if inner.src.type == op.dst.type and inner.src_format == op.dst_format:
            rewriter.replace(op, [], [inner.src])


class EraseDead(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if isinstance(op, (cann.TransDataOp, cann.ConstOp, cann.ReshapeOp)) and not op.results[0].uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class AssignLayoutsPass(ModulePass):
    name = "assign-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite(op, [FoldConstReshape(), LayoutConv(), LayoutPool(), LayoutMatMul(), LayoutSpatial(),
                     LayoutSqueezeExcite(), LayoutSqueezeExciteGate(), LayoutConvScaled(),
                     LayoutElementwise(),
                     LayoutAnyElementwise(), LayoutResize(), LayoutRowsNZ(), LayoutReshapeNZ(),
                     FoldReshapeChain(), FoldConstTransData(),
                     TransdataTransdataFold(), EraseDead()])
