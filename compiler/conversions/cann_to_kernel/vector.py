"""Vector kernels (UB tiles): elementwise and general elementwise ops, BNInfer, pooling, row
kernels (softmax, LayerNorm, AddLayerNorm) and reductions."""


from __future__ import annotations

from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    bias_layout,
    kernel_op,
    num_elems,
    prod,
    row_major,
    stored_as,
)
from compiler.conversions.cann_to_kernel.cube import flag, replace_with_epilogue
from compiler.conversions.cann_to_kernel.fused import emit_region
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from compiler.target.chips import ChipProfile
from compiler.target.formats import Format
from compiler.target.tiling import TilingError, vector_tiling
from dialects import cann, kernel
from dialects.common import int_array, ints, numpy_dtype


class ElementwiseToVectorBody(ChipPattern):
    """Any elementwise cann op (Relu, BiasAdd, unary and binary library ops) -> kernel.vec_kernel:
    per core, UB tiles of the flattened storage data; operands broadcast to the result."""

    applies_to = roots(cann.ReluOp, cann.UnaryCannOp, cann.BiasAddOp, cann.BinaryCannOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        unary = isinstance(op, (cann.ReluOp, cann.UnaryCannOp))
        binary = isinstance(op, (cann.BiasAddOp, cann.BinaryCannOp))
        if not (unary or binary):
            return
        y = op.results[0].type
        if self.fails_on_dynamic_dims(op, y, *(v.type for v in op.operands)):
            return
        fn = op.name.removeprefix("cann.")
        et = elem_of(y)
        elems = num_elems(y)
        t = self.vector_tiling_or_fail(op, fn, elems, len(op.operands) + 1, numpy_dtype(et).itemsize)
        if t is None:
            return
        f = t.fields
        tile = f["tileElems"]
        yshape = list(shape_of(y))
        body = Body([*(v.type for v in op.operands), y])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                ins = []
                for i in range(len(op.operands)):
                    if isinstance(op, cann.BiasAddOp) and i == 1:
                        layout = bias_layout(op.x.type)
                        if layout == 0 and op.data_format.data == cann.DataFormat.NCHW:
                            layout = 2
                        ins.append(body.load(body.args[i], [ti], "channel_flat", [tile], et, "UB",
                                             shape=yshape, layout=layout))
                    else:
                        ins.append(body.load(body.args[i], [ti], "flat", [tile], et, "UB", shape=yshape))
                attrs = {k: v for k, v in op.properties.items()
                         if k not in ("data_format",)}
                r = body.vec("Add" if fn == "BiasAdd" else fn, ins, [tile], et, attrs)
                body.store(r, body.args[-1], [ti], "flat")
        new = kernel_op(kernel.VectorKernelOp, "Elementwise", op.operands, y, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class GeneralElementwiseToVectorBody(ChipPattern):
    """The ops whose class names a GENERAL_ELEMENTWISE_FN (Cast, SelectV2, comparisons and logic)
    -> kernel.vec_kernel applying that function: per core,
    UB tiles of the flattened storage data, each operand loaded in its own element type (Cast
    converts in UB; SelectV2's i1 condition is a byte mask; comparisons and logic write i1
    bytes).  An operand must have the result's storage shape and format, or both
    must be row-major (numpy broadcasting of the flat data is then exact)."""

    @staticmethod
    def applies_to(cls: type[Operation]) -> bool:
        return getattr(cls, "GENERAL_ELEMENTWISE_FN", None) is not None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        vfn = getattr(op, "GENERAL_ELEMENTWISE_FN", None)  # the op's class says (dialects/cann)
        if vfn is None:
            return
        y = op.results[0].type
        if self.fails_on_dynamic_dims(op, y, *(v.type for v in op.operands)):
            return
        yshape = list(shape_of(y))
        for v in op.operands:
            t = v.type
            same = list(shape_of(t)) == yshape and cann.format_of(t) == cann.format_of(y)
            if not same and not (row_major(t) and row_major(y)):
                self.fail(op, f"{op.name}: an operand stored as {stored_as(t)} does not match the "
                              f"result stored as {stored_as(y)} (no broadcasting kernel across "
                              "layouts)")
                return
        et = elem_of(y)
        elems = num_elems(y)
        eb = max(numpy_dtype(v.type.element_type).itemsize for v in (*op.operands, op.results[0]))
        kind = op.name.removeprefix("cann.")
        t = self.vector_tiling_or_fail(op, kind, elems, len(op.operands) + 1, eb)
        if t is None:
            return
        f = t.fields
        tile = f["tileElems"]
        attrs: dict[str, Attribute] = {}
        body = Body([*(v.type for v in op.operands), y])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                ins = [body.load(body.args[i], [ti], "flat", [tile], elem_of(v), "UB",
                                 shape=yshape) for i, v in enumerate(op.operands)]
                r = body.vec(vfn, ins, [tile], et, attrs)
                body.store(r, body.args[-1], [ti], "flat")
        new = kernel_op(kernel.VectorKernelOp, "Elementwise", op.operands, y, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class BNInferToVectorBody(ChipPattern):
    """BNInfer -> kernel.vec_kernel: per core, UB tiles of the flattened x; the four per-channel
    parameters are loaded for the tile's channels (`channel_flat`: C1*C0 lanes of NC1HWC0, axis
    1 of NCHW, else the last axis) and y = (x - mean) * rsqrt(variance + eps) * scale + offset."""

    applies_to = roots(cann.BNInferOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.BNInferOp):
            return
        xt, yt = op.x.type, op.y.type
        params = [op.mean, op.variance, op.scale, op.offset]
        if self.fails_on_dynamic_dims(op, xt, yt, *(v.type for v in params)):
            return
        bad = [v for v in params if not row_major(v.type) or len(shape_of(v)) != 1]
        if bad or list(shape_of(xt)) != list(shape_of(yt)):
            self.fail(op, f"{op.name}: the parameters must be 1-D row-major and y stored like x")
            return
        layout = bias_layout(xt)
        if layout == 0 and op.data_format.data == cann.DataFormat.NCHW:
            layout = 2
        et = yt.element_type
        elems = num_elems(yt)
        t = self.vector_tiling_or_fail(op, "BNInfer", elems, 6, numpy_dtype(et).itemsize)
        if t is None:
            return
        f = t.fields
        tile = f["tileElems"]
        yshape = list(yt.get_shape())
        eps = FloatAttr(float(op.epsilon.value.data), f32)
        body = Body([v.type for v in op.operands] + [yt])
        arg = {v: body.args[i] for i, v in enumerate(op.operands)}
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                x = body.load(arg[op.x], [ti], "flat", [tile], et, "UB", shape=yshape)
                mean, var, sc, off = (
                    body.load(arg[v], [ti], "channel_flat", [tile], et, "UB", shape=yshape,
                              layout=layout) for v in params)
                d = body.vec("Sub", [x, mean], [tile], et)
                ve = body.vec("Adds", [var], [tile], et, {"value": eps})
                rs = body.vec("Rsqrt", [ve], [tile], et)
                nrm = body.vec("Mul", [d, rs], [tile], et)
                s_ = body.vec("Mul", [nrm, sc], [tile], et)
                r = body.vec("Add", [s_, off], [tile], et)
                body.store(r, body.args[-1], [ti], "flat")
        new = kernel_op(kernel.VectorKernelOp, "Elementwise", op.operands, yt, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class PoolToVectorBody(ChipPattern):
    """MaxPool / AvgPool on NC1HWC0 -> kernel.vec_kernel: per core, tiles of output rows
    (n, c1, ho, wo) x C0 lanes; the windows are loaded into UB and reduced there.  A
    cann.FusedKernel whose input #0 is the pool's single-use result (the automatic fusion's
    epilogue: a residual Add after a pool) runs on the reduced [tile, C0] rows before the store,
    its other inputs (stored like the result) loaded as the same rows; the kernel replaces it."""

    applies_to = roots(cann.MaxPoolOp, cann.AvgPoolOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.MaxPoolOp, cann.AvgPoolOp)):
            return
        from compiler.conversions.cann_to_kernel.fused import pool_prologue_lowerable

        if pool_prologue_lowerable(op):
            # it runs on its convs' A tiles (compiler/conversions/cann_to_kernel/cube.py): lower
            # them now; the last erases the pool
            from compiler.conversions.cann_to_kernel.cube import ConvToCubeBody
            from compiler.transforms.fusion.auto import live_uses

            conv = ConvToCubeBody(self.chip, self.failures, self.impl)
            for u in live_uses(op.y):
                conv.match_and_rewrite(u, rewriter)
            return
        xt, yt = op.x.type, op.y.type
        xf = cann.format_of(xt)
        if xf is None or xf.fmt != Format.NC1HWC0:
            self.fail(op, f"{op.name}: x must be NC1HWC0; run assign-layouts before cann-to-kernel")
            return
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        (kh, kw), (sh, sw) = op.window()
        n_, c1, h, w, c0 = shape_of(xt)
        _, _, ho, wo, _ = yt.get_shape()
        pt, pb, pl, pr = op.pads()
        rows = n_ * c1 * ho * wo
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        fk = pool_epilogue(op)
        extra = 0
        if fk is not None:
            from compiler.transforms.fusion.auto import live_tiles

            extra = live_tiles(fk.body_ops())
        try:
            # each output row needs kh*kw*C0 window elements + C0 out (+ count), double-buffered;
            # an epilogue its live [C0] row tiles.  A row is a unit of kh*kw*C0 elements read
            # (the cores are counted by elements, not rows: MIN_ELEMS_PER_CORE)
            t = vector_tiling(op.name.removeprefix("cann."), rows, kh * kw + 2 + extra, eb * c0,
                              self.chip, kh * kw * c0)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        tile = f["tileElems"]
        geo = dict(kernel_hw=[kh, kw], strides=[sh, sw], pads=[pt, pb, pl, pr], out_hw=[ho, wo])
        operands = [op.x, *(list(fk.inputs)[1:] if fk is not None else [])]
        y_type = fk.y.type if fk is not None else yt
        body = Body([*(v.type for v in operands), y_type])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                is_max = isinstance(op, cann.MaxPoolOp)
                win = body.load(body.args[0], [ti], "windows", [tile, kh * kw, c0], et, "UB",
                                fill=int(is_max), **geo)
                if is_max:
                    r = body.vec("PoolMax", [win], [tile, c0], et)
                else:
                    cnt = body.load(body.args[0], [ti], "window_count", [tile, 1], et, "UB", **geo)
                    r = body.vec("PoolAvg", [win, cnt], [tile, c0], et)
                if fk is not None:
                    def load(i: int) -> SSAValue:
                        return body.load(body.args[i], [ti], "rows", [tile, c0],
                                         elem_of(fk.inputs[i]), "UB")

                    r = emit_region(body, fk, [tile, c0], load, lambda e: e, given={0: r})
                body.store(r, body.args[-1], [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, op.name.removeprefix("cann."), operands, y_type,
                      body.region(), t.block_dim, f, t.buffers, fk or op)
        replace_with_epilogue(rewriter, op, fk, new)


def pool_epilogue(op: cann.MaxPoolOp | cann.AvgPoolOp) -> cann.FusedKernelOp | None:
    """The FusedKernel that is the pool `op`'s epilogue (compiler/transforms/fusion/auto.py
    epilogue_host) when every other input is stored like the result (loaded as the same rows),
    else None (it then runs as a kernel of its own)."""
    from compiler.transforms.fusion.auto import epilogue_host, live_uses

    uses = list(dict.fromkeys(live_uses(op.results[0])))  # one consumer, maybe reading it twice
    if len(uses) != 1 or epilogue_host(uses[0]) is not op:
        return None
    fk = uses[0]
    assert isinstance(fk, cann.FusedKernelOp)  # epilogue_host: only a FusedKernel has a host
    y = fk.y.type
    for v in list(fk.inputs)[1:]:
        if list(shape_of(v)) != list(shape_of(y)) or \
                cann.format_of(v.type) != cann.format_of(y) or elem_of(v) != elem_of(y):
            return None
    if cann.format_of(op.y.type) != cann.format_of(y):
        return None
    return fk






def _row_attrs(length: int, cols: int | None) -> dict:
    """A row reduction's attributes: `cols`, the leading columns of the tile it reduces, when
    the row is shorter than the tile (a cube output tile's padding columns: the vector
    instructions' mask, Ascend C's `mask` of the element count per repeat)."""
    return {"cols": IntegerAttr(cols, 64)} if cols is not None and cols < length else {}


def softmax_rows(body: Body, x, tile: int, length: int, et, cols: int | None = None):
    """softmax along the rows of a [tile, length] UB tile: max, x - max, exp, sum, divide (the
    statistics over the first `cols` columns when given)."""
    ra = _row_attrs(length, cols)
    mx = body.vec("RowMax", [x], [tile, 1], et, ra)
    d = body.vec("Sub", [x, mx], [tile, length], et)
    e = body.vec("Exp", [d], [tile, length], et)
    sm = body.vec("RowSum", [e], [tile, 1], et, ra)
    return body.vec("RealDiv", [e, sm], [tile, length], et)


def layer_norm_rows(body: Body, x, g, b, eps: float, tile: int, length: int, et,
                    cols: int | None = None):
    """LayerNorm along the rows of a [tile, length] UB tile: mean, variance, rsqrt, gamma, beta
    (the statistics over the first `cols` columns when given)."""
    ra = _row_attrs(length, cols)
    mean = body.vec("RowMean", [x], [tile, 1], et, ra)
    d = body.vec("Sub", [x, mean], [tile, length], et)
    sq = body.vec("Mul", [d, d], [tile, length], et)
    var = body.vec("RowMean", [sq], [tile, 1], et, ra)
    ve = body.vec("Adds", [var], [tile, 1], et, {"value": FloatAttr(eps, f32)})
    rs = body.vec("Rsqrt", [ve], [tile, 1], et)
    nrm = body.vec("Mul", [d, rs], [tile, length], et)
    sc = body.vec("Mul", [nrm, g], [tile, length], et)
    return body.vec("Add", [sc, b], [tile, length], et)


def softmax_kernel(chip: ChipProfile, x: SSAValue, y_type, loc_op, kind: str = "SoftmaxV2",
                   compute_type=None):
    """A vector kernel: softmax over the last axis of a row-major tensor, tiles of whole rows.
    compute_type (default: the tensor's): the element type of the UB arithmetic; another type
    casts each tile in and the result back (--op_select_implmode=high_precision on fp16)."""
    shape = list(y_type.get_shape())
    length, rows = shape[-1], prod(shape[:-1])
    et = y_type.element_type
    ct = compute_type or et
    t = vector_tiling(kind, rows, 2, numpy_dtype(ct).itemsize * length, chip, length)
    f, tile = t.fields, t.fields["tileElems"]
    body = Body([x.type, y_type])
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
            v = cast_tile(body, body.load(body.args[0], [ti], "rows", [tile, length], et, "UB"),
                          [tile, length], et, ct)
            r = cast_tile(body, softmax_rows(body, v, tile, length, ct), [tile, length], ct, et)
            body.store(r, body.args[-1], [ti], "rows")
    return kernel_op(kernel.VectorKernelOp, kind, [x], y_type, body.region(), t.block_dim, f,
                   t.buffers, loc_op)


def cast_tile(body: Body, v, shape, et, ct):
    """v (a UB tile of et) as a tile of ct: a vector Cast, or v itself when the types agree."""
    return v if ct == et else body.vec("Cast", [v], shape, ct)


def nz_rows(t) -> bool:
    """A FRACTAL_NZ tensor of an ND origin [.., M, K] (a row kernel's NZ operand), or an
    NC1HWC0 tensor of an NHWC origin (rows (n, h, w) over C: `nc1hwc0_rows`)."""
    f = cann.format_of(t)
    return f is not None and (f.fmt == Format.FRACTAL_NZ and f.origin_fmt == Format.ND
                              or f.fmt == Format.NC1HWC0 and f.origin_fmt == Format.NHWC)


class RowsToVectorBody(ChipPattern):
    """SoftmaxV2 / LayerNorm / AddLayerNorm over the last axis -> kernel.vec_kernel: per core,
    UB tiles of whole rows; the row statistics (max and sum; mean and variance) by vector
    reductions along the row, gamma and beta loaded once per core.

    Row-major tensors: tiles of rows (`rows` view).  FRACTAL_NZ tensors (x, x2 and y all NZ of
    one shape, as passes/assign_layouts.py LayoutRowsNZ makes them): one m1 block across all
    K1 column blocks holds exactly 16 whole rows of the origin [.., M, K]
    (NZ[.., k1, m1, m0, k0] = ND[.., m1*16+m0, k1*C0+k0]), so the rows are those of the padded
    row space (B * M1 * 16, batch-major) and a tile is loaded as [tile, K] rows
    (`nz_origin_rows`: the columns past K are dropped, so the statistics see exactly K values
    per row; the rows past M are zero and are stored as zeros, like the padding columns).  The
    body is the row-major one.  On the device a tile of 16*j rows from a multiple of 16 is j
    whole m1 blocks: per batch K1 bursts of j*16*C0 contiguous elements.  Rows rather than whole
    blocks are the unit so that a small M still spreads over all vector cores (BERT's M = 128
    is 8 blocks but 128 rows: 32 cores of 4 rows, K1 bursts of 4*C0 elements each)."""

    applies_to = roots(cann.SoftmaxV2Op, cann.LayerNormOp, cann.AddLayerNormOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.SoftmaxV2Op, cann.LayerNormOp, cann.AddLayerNormOp)):
            return
        y = op.results[0]
        if self.fails_on_dynamic_dims(op, y.type, *(v.type for v in op.operands)):
            return
        n_x = 2 if isinstance(op, cann.AddLayerNormOp) else 1
        xs = op.operands[:n_x]
        on_nz = nz_rows(y.type)
        if on_nz:
            bad = [v for v in xs if v.type != y.type] + \
                  [v for v in op.operands[n_x:] if not row_major(v.type)]
            if bad:
                self.fail(op, f"{op.name}: on {stored_as(y.type)}, x must be stored like y and gamma/beta "
                              f"row-major, but a value is stored as {stored_as(bad[0].type)} "
                              f"{list(shape_of(bad[0]))}")
                return
        else:
            bad = [v for v in (*op.operands, y) if not row_major(v.type)]
            if bad:
                self.fail(op, f"{op.name}: runs on row-major or FRACTAL_NZ tensors, but a value is "
                              f"stored as {stored_as(bad[0].type)}")
                return
        shape = list(cann.origin_shape(y.type))
        rank = len(shape)
        if isinstance(op, cann.SoftmaxV2Op):
            axes = sorted(a % rank for a in ints(op.axes))
            if axes != [rank - 1]:
                self.fail(op, f"{op.name}: softmax over axes {axes} of a rank-{rank} tensor has no "
                              "kernel lowering (only the last axis)")
                return
            if not on_nz:
                try:
                    new = softmax_kernel(self.chip, op.operands[0], y.type, op,
                                         compute_type=self.impl.row_compute_type(
                                             "SoftmaxV2", elem_of(y)))
                except TilingError as e:
                    self.fail(op, str(e))
                    return
                rewriter.replace(op, new)
                return
        else:
            bna = op.begin_norm_axis.value.data % rank
            bpa = op.begin_params_axis.value.data % rank
            if bna != rank - 1 or bpa != rank - 1:
                self.fail(op, f"{op.name}: normalization from axis {bna} (params from {bpa}) of a "
                              f"rank-{rank} tensor has no kernel lowering (only the last axis)")
                return
            if any(tuple(cann.origin_shape(v.type)) != tuple(shape) for v in xs):
                self.fail(op, f"{op.name}: broadcasting inputs have no kernel lowering")
                return
        length = shape[-1]
        et = elem_of(y)
        ct = self.impl.row_compute_type(op.name.removeprefix("cann."), et)  # UB arithmetic
        eb = numpy_dtype(ct).itemsize
        n_buf = 2 if isinstance(op, cann.SoftmaxV2Op) else n_x + 2
        # x computed on the tile by a fused pointwise prologue (reduction_prologue.py)
        from compiler.conversions.cann_to_kernel.reduction_prologue import (
            emit_rows,
            live_tiles_of,
            prologue_of,
        )
        from compiler.transforms.fusion.auto import escape_host

        pros = [prologue_of(v) if not isinstance(op, cann.SoftmaxV2Op) else None for v in xs]
        n_buf += sum(live_tiles_of(p) for p in pros)
        # multi-output: a prologue others read too is stored as an extra output (its tile)
        stored = list(dict.fromkeys(p for p in pros if p is not None and escape_host(p.y) is op))
        n_buf += len(stored)
        operands: list[SSAValue] = []
        arg_of: list[list[int]] = []
        for v, p in zip(xs, pros):
            ins = list(p.inputs) if p is not None else [v]
            arg_of.append(list(range(len(operands), len(operands) + len(ins))))
            operands += ins
        params_at = len(operands)
        operands += list(op.operands[n_x:])
        if on_nz and (fy := cann.format_of(y.type)) is not None and fy.fmt == Format.NC1HWC0:
            # rows (n, h, w) of C channels: C1 blocks of C0 lanes, the padding lanes of the last
            # block dropped on load and written as zeros on store (any C, not only multiples of C0)
            units = prod(shape[:-1])
            view, vp = "nc1hwc0_rows", {"channels": length}
        elif on_nz:  # the padded row space: B * M1 * 16 rows
            *batch, _, m1, m0, _ = shape_of(y)
            units = prod(batch) * m1 * m0
            view, vp = "nz_origin_rows", {"rows": shape[-2], "cols": length}
        else:
            units = prod(shape[:-1])
            view, vp = "rows", {}
        try:
            t = vector_tiling(op.name.removeprefix("cann."), units, n_buf, eb * length, self.chip,
                              length)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, rows = t.fields, t.fields["tileElems"]  # rows of one UB tile
        tile = rows
        body = Body([*(v.type for v in operands), y.type, *(p.y.type for p in stored)])
        y_arg = body.args[len(operands)]
        extra_arg = {p: body.args[len(operands) + 1 + j] for j, p in enumerate(stored)}
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            if not isinstance(op, cann.SoftmaxV2Op):
                zero = body.index(0)
                g = body.load(body.args[params_at], [zero], "flat", [length], et, "UB",
                              shape=[length])
                b = body.load(body.args[params_at + 1], [zero], "flat", [length], et, "UB",
                              shape=[length])
                g, b = (cast_tile(body, v, [length], et, ct) for v in (g, b))
            with body.loop(o, f["elemsPerCore"], tile, units) as ti:
                def x_tile(i: int, ti=ti) -> SSAValue:
                    def like_y(arg: SSAValue) -> SSAValue:
                        return body.load(arg, [ti], view, [rows, length], et, "UB", **vp)

                    p = pros[i]
                    v = like_y(body.args[arg_of[i][0]]) if p is None else \
                        emit_rows(body, p, arg_of[i], like_y, rows, length)
                    if p in extra_arg and pros.index(p) == i:  # the extra output, stored once
                        body.store(v, extra_arg[p], [ti], view, **vp)
                    return cast_tile(body, v, [rows, length], et, ct)

                x = x_tile(0)
                if isinstance(op, cann.SoftmaxV2Op):
                    r = softmax_rows(body, x, rows, length, ct)
                else:
                    if n_x == 2:
                        x = body.vec("Add", [x, x_tile(1)], [rows, length], ct)
                    r = layer_norm_rows(body, x, g, b, float(op.epsilon.value.data), rows,
                                        length, ct)
                r = cast_tile(body, r, [rows, length], ct, et)
                body.store(r, y_arg, [ti], view, **vp)
        new = kernel_op(kernel.VectorKernelOp, op.name.removeprefix("cann."), operands, y.type,
                        body.region(), t.block_dim, f, t.buffers, op,
                        extra_types=[p.y.type for p in stored])
        rewriter.replace(op, new, [new.y])
        for p, r in zip(stored, new.extra):  # the other consumers read the stored copy
            rewriter.replace_all_uses_with(p.y, r)
        _erase_prologues(rewriter, pros)


def _erase_prologues(rewriter: PatternRewriter, pros) -> None:
    """Erase the prologue FusedKernels no kernel reads any more."""
    from compiler.conversions.cann_to_kernel.cube import erase_unread

    for p in dict.fromkeys(p for p in pros if p is not None):
        if p.parent is not None:
            erase_unread(rewriter, p)


def lower_new_ops(chip: ChipProfile, failures, ops, rewriter: PatternRewriter, impl=None) -> None:
    """Lower cann ops a pattern has just built in place of its op (cann-to-kernel's walk does
    not revisit them): each by the first lowering pattern that takes it."""
    from compiler.conversions.cann_to_kernel import lowering_patterns

    patterns = lowering_patterns(chip, failures, impl=impl)
    for o in ops:
        for p in patterns:
            if o.parent is None:  # replaced by a kernel
                break
            p.match_and_rewrite(o, rewriter)


def chunked_reduction(op: Operation) -> bool:
    """ReduceToVectorBody lowers `op` (a static ReduceD) to its chunked body, tiles of
    [rows, chunk, inner] loaded from x (chunk_rows), the path a fused prologue runs on: x
    NC1HWC0 reduced over H and W, or row-major x and y reduced over one contiguous block."""
    if not isinstance(op, cann.ReduceDOp):  # (each ReduceD declares its REDUCE_FN)
        return False
    xt, yt = op.x.type, op.y.type
    if not all(d >= 0 for d in (*shape_of(xt), *shape_of(yt))) or 0 in shape_of(xt):
        return False
    xf, yf = cann.format_of(xt), cann.format_of(yt)
    xs = list(shape_of(xt))
    axes = sorted(a % len(cann.origin_shape(xt)) for a in ints(op.axes))
    if xf is not None and xf.fmt == Format.NC1HWC0:
        hw = [1, 2] if xf.origin_fmt == Format.NHWC else [2, 3]
        return axes == hw and yf is not None and (
            yf.fmt == Format.NC1HWC0 and flag(op.keep_dims)
            or yf.fmt == Format.FRACTAL_NZ and not flag(op.keep_dims))
    return (row_major(xt) and row_major(yt) and bool(axes)
            and not any(xs[a] != 1 for a in range(axes[0], axes[-1] + 1) if a not in axes))


class ReduceToVectorBody(ChipPattern):
    """ReduceMeanD / SumD / MaxD / MinD / ProdD -> kernel.vec_kernel over rows x L x inner:
      x NC1HWC0, axes H, W: rows (n, c1), L = H*W, inner C0; result NC1HWC0 (keep_dims,
          (N, C1, 1, 1, C0)) or FRACTAL_NZ of [N, C] (row (n, c1) -> NZ[c1, n // 16, n % 16, :]);
      x row-major, axes one contiguous block (size-1 axes between them do not count): rows =
          the extent before it, L = the reduced extent, inner = the extent after it; axes in
          several blocks are first moved to the end by a TransposeD (its own kernel).
    Per core, tiles of rows; the reduced axis in UB chunks, each reduced and accumulated."""

    applies_to = roots(cann.ReduceDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReduceDOp):
            return
        from compiler.transforms.fusion.mean_prologue import is_mean_prologue, mean_reader

        if is_mean_prologue(op):  # its matmul computes it on its A tiles: lower that now
            from compiler.conversions.cann_to_kernel.cube import MatMulToCube

            mm = mean_reader(op)
            assert mm is not None  # (is_mean_prologue)
            MatMulToCube(self.chip, self.failures, self.impl).match_and_rewrite(mm, rewriter)
            if op.parent is None:  # (erased: the matmul's kernel computes it)
                return
        xt, yt = op.x.type, op.y.type
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        xf, yf = cann.format_of(xt), cann.format_of(yt)
        xs = list(shape_of(xt))
        axes = sorted(a % len(cann.origin_shape(xt)) for a in ints(op.axes))
        store_view, store_p = "rows", {}
        if xf is not None and xf.fmt == Format.NC1HWC0:
            hw = [1, 2] if xf.origin_fmt == Format.NHWC else [2, 3]
            n_, c1, h, w, c0 = xs
            if axes == [3 if xf.origin_fmt == Format.NHWC else 1] and (
                    yf is None and not flag(op.keep_dims)
                    or yf is not None and yf.fmt == Format.NC1HWC0 and flag(op.keep_dims)):
                from compiler.conversions.cann_to_kernel.channels import lower_reduce_over_c

                lower_reduce_over_c(self, op, rewriter, op.REDUCE_FN)
                return
            ok_y = yf is not None and (yf.fmt == Format.NC1HWC0 and flag(op.keep_dims)
                                       or yf.fmt == Format.FRACTAL_NZ and not flag(op.keep_dims))
            if axes != hw or not ok_y or yf is None:
                self.fail(op, f"{op.name}: on NC1HWC0 only the reduction over H and W (to NC1HWC0 "
                              f"with keep_dims, or FRACTAL_NZ without) or over C has a kernel lowering; got "
                              f"axes {axes} to {stored_as(yt)}")
                return
            rows, length, inner = n_ * c1, h * w, c0
            if yf.fmt == Format.FRACTAL_NZ:
                store_view, store_p = "nz_rows", {"c1": c1}
        elif row_major(xt) and row_major(yt):
            rank = len(xs)
            if not axes:
                self.fail(op, f"{op.name}: a reduction over no axes has no kernel lowering")
                return
            if any(xs[a] != 1 for a in range(axes[0], axes[-1] + 1) if a not in axes):
                # axes in several blocks: TransposeD the reduced axes to the end, reduce that one
                # block, Reshape (a view) to the result; the new ops are lowered in turn
                from compiler.ir.rewriting import with_loc

                keep = [a for a in range(rank) if a not in axes]
                tr = cann.TransposeDOp(operands=[op.x], result_types=[TensorType(
                    elem_of(xt), [xs[a] for a in keep + axes])],
                    properties={"perm": int_array(keep + axes)})
                red = type(op)(operands=[tr.y], result_types=[TensorType(
                    yt.element_type, [xs[a] for a in keep])],
                    properties={"axes": int_array(list(range(len(keep), rank))),
                                "keep_dims": IntegerAttr(0, 1)})
                view = cann.ReshapeOp(operands=[red.y], result_types=[yt],
                                      properties={"shape": int_array(list(yt.get_shape()))})
                new = [with_loc(o, op) for o in (tr, red, view)]
                if red.y.type == yt:  # the result needs no reshape
                    new.pop()
                rewriter.replace(op, new, [new[-1].results[0]])
                lower_new_ops(self.chip, self.failures, new, rewriter, self.impl)
                return
            rows, length = prod(xs[:axes[0]]), prod(xs[axes[0]:axes[-1] + 1])
            inner = prod(xs[axes[-1] + 1:])
        else:
            self.fail(op, f"{op.name}: x stored as {stored_as(xt)} has no reduction kernel")
            return
        if 0 in (rows, length, inner):
            self.fail(op, f"{op.name}: x of shape {'x'.join(map(str, xs))} has no elements; a "
                          "zero-size reduction has no kernel lowering")
            return
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        chip = self.chip
        # x computed on each chunk by a fused pointwise prologue (reduction_prologue.py): its
        # live tiles, the chunk_valid mask and the fallback tile stay in UB with the chunk
        from compiler.conversions.cann_to_kernel.fused import channel_count, channel_layout
        from compiler.conversions.cann_to_kernel.reduction_prologue import (
            emit_chunk,
            live_tiles_of,
            prologue_of,
        )

        pro = prologue_of(op.x)
        n_buf = 2 + (live_tiles_of(pro) + 2 if pro is not None else 0)
        operands = list(pro.inputs) if pro is not None else [op.x]
        chunk = max(1, min(length, chip.ub // (2 * n_buf * eb * inner)))  # double-buffered
        kind = op.name.removeprefix("cann.")
        t = self.vector_tiling_or_fail(op, kind, rows, n_buf, eb * inner * chunk, inner * length)
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        f = {**f, "reduceLen": length, "chunkLen": chunk}
        acc_fn = op.REDUCE_FN
        fill = {"Add": 0, "Max": 1, "Min": 2, "Mul": 3}[acc_fn]
        row_fn = {"Add": "RowSum", "Max": "RowMax", "Min": "RowMin", "Mul": "RowProd"}[acc_fn]
        body = Body([*(v.type for v in operands), yt])
        cp = dict(rows=rows, length=length, inner=inner)
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                acc = body.vec("Fill", [], [tile, inner], et, {"fill": IntegerAttr(fill, i64)})
                zero = body.index(0)
                with body.loop(zero, length, chunk, length) as li:
                    if pro is None:
                        part = body.load(body.args[0], [ti, li], "chunk_rows", [tile, chunk, inner],
                                         et, "UB", **cp, fill=fill)
                    else:
                        part = emit_chunk(body, pro, list(range(len(operands))), [ti, li],
                                          [tile, chunk, inner], cp, fill,
                                          channel_layout(xt) or 0, channel_count(xt), et)
                    s = body.vec(row_fn, [part], [tile, inner], et)
                    body.add(kernel.AccumulateOp(operands=[acc, s],
                                                 properties={"fn": kernel.AccumulateFnAttr.of(acc_fn)}))
                if isinstance(op, cann.ReduceMeanDOp):
                    acc = body.vec("Muls", [acc], [tile, inner], et,
                                   {"value": FloatAttr(1.0 / length, f32)})
                body.store(acc, body.args[-1], [ti], store_view, **store_p)
        new = kernel_op(kernel.VectorKernelOp, kind, operands, yt, body.region(), t.block_dim, f,
                      t.buffers, op)
        rewriter.replace(op, new)
        _erase_prologues(rewriter, [pro])
