"""Cube kernels: conv / depthwise (img2col implicit GEMM on NC1HWC0 x FRACTAL_Z) and (batch)
matmul on FRACTAL_NZ, sharing one body: per-core base-block loops over mmad on fractal tiles,
fixpipe to UB, the epilogue (bias, activation, residual) there, store to GM."""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from compiler.conversions.cann_to_kernel.base import (
    ChipPattern,
    align,
    gemm_body,
    kernel_op,
    row_major,
)
from compiler.conversions.cann_to_kernel.fused import (
    Epilogue,
    emit_pool_prologue,
    emit_prologue,
    emit_rows_prologue,
    epilogue_consumer,
    pool_prologue_lowerable,
    prologue_lowerable,
    rows_prologue_tiles,
)
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from compiler.target.chips import ChipProfile
from compiler.target.formats import Format, c0_for, c04_k, ceil_div, group_enlargement
from compiler.target.tiling import TilingError, cube_tiling
from dialects import cann, kernel
from dialects.common import numpy_dtype

CONV_OPS = (cann.ConvLike, cann.DepthwiseConv2DOp, cann.FusedConv2DAddOp, cann.FusedDepthwiseConv2DOp,
            cann.FusedConv2DScaledOp)
DEPTHWISE_OPS = (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)


def _epilogue(op) -> list:
    """[(fn, attrs)]: activation, then (FusedConv2DAdd) + residual and its post_activation."""
    out = []
    act = op.properties.get("activation")
    attrs = {"alpha": op.properties["alpha"]} if "alpha" in op.properties else {}
    if act is not None and act.data != cann.Activation.none:
        out.append((act.data, attrs))
    if isinstance(op, cann.FusedConv2DAddOp) or getattr(op, "residual", None) is not None:
        out.append(("residual", {}))
        post = op.properties.get("post_activation")
        if post is not None and post.data != cann.Activation.none:
            out.append((post.data, attrs))
    return out


class ConvToCubeBody(ChipPattern):
    """Conv2D / FusedConv2D / DepthwiseConv2D -> kernel.cube: img2col implicit GEMM per
    (enlarged) group: M = N*Ho*Wo, K = c1*kh*kw*C0, N = n1*16 columns of FRACTAL_Z.
    FusedConv2DScaled (kind "Conv2DScaled"): each A tile is loaded GM -> UB, multiplied there by
    the per-(n, c) scale broadcast to the tile (view img2col_scale of the NC1HWC0 scale) and
    moved UB -> L1 (an assumed path, see dialects/kernel.py LOAD_PATHS); the rest is Conv2D's.
    A conv whose x is a FusedKernel marked `prologue` (compiler/transforms/fusion/auto.py) computes,
    where its tiling takes the Load3D window (ungrouped, the window and the body's tiles fit
    L1 / UB, compiler/target/tiling.py), the window of x's rows from that kernel's inputs in UB
    once per M block (fused.emit_rows_prologue) and moves it UB -> L1 for Load3D; else each A
    tile in UB (fused.emit_prologue: img2col loads, the body, the pad mask) and moves it UB -> L1;
    the FusedKernel is erased once no conv reads it.  A conv whose x
    is a pool marked `prologue` reads the pool's input instead (fused.emit_pool_prologue)."""

    applies_to = roots(*CONV_OPS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, CONV_OPS):
            return
        if isinstance(op, cann.Conv3DOp):
            from compiler.conversions.cann_to_kernel.cube3d import lower_conv3d

            lower_conv3d(self, op, rewriter)
            return
        from compiler.transforms.fusion.auto import live_uses
        from compiler.transforms.fusion.depthwise import is_depthwise_prologue

        if is_depthwise_prologue(op):  # its 1x1 reader computes it on its A tiles: lower that now
            for u in list(dict.fromkeys(live_uses(op.y))):
                self.match_and_rewrite(u, rewriter)
            return
        from compiler.transforms.fusion.conv_stage import is_staged_conv, staged_producer
        from compiler.transforms.fusion.conv_stage import unstage as unstage_conv

        if is_staged_conv(op):  # its reader computes it in its windows: lower that now
            for u in list(dict.fromkeys(live_uses(op.y))):
                self.match_and_rewrite(u, rewriter)
            if op.parent is None:
                return
        sp = staged_producer(op.x)
        if sp is not None:
            from compiler.conversions.cann_to_kernel.conv_stage import lower_staged

            if lower_staged(self, op, sp, rewriter):
                return
            unstage_conv(sp)  # it does not fit or gain: the producer is a kernel of its own
        dwp = op.x.owner if is_depthwise_prologue(op.x.owner) else None
        formats = self.cube_formats_or_fail(op, Format.FRACTAL_Z)
        if formats is None:
            return
        _, wf = formats
        d = conv_gemm(op, wf)
        et, dtype, c0, groups, batch = d.et, d.dtype, d.c0, d.groups, d.batch
        sh, dh, kh, n_, c1x, cin, cout = d.sh, d.dh, d.kh, d.n, d.c1x, d.cin, d.cout
        ho, wo, col_off, kk, ncols, m = d.ho, d.wo, d.col_off, d.kk, d.ncols, d.m
        kind = "DepthwiseConv2D" if isinstance(op, DEPTHWISE_OPS) else "Conv2D"
        scaled = isinstance(op, cann.FusedConv2DScaledOp)
        if scaled:
            kind = "Conv2DScaled"
        fk = epilogue_consumer(op)
        pro = op.x.owner if isinstance(op.x.owner, cann.FusedKernelOp) and \
            prologue_lowerable(op.x.owner) else None
        pool = op.x.owner if isinstance(op.x.owner, (cann.MaxPoolOp, cann.AvgPoolOp)) and \
            pool_prologue_lowerable(op.x.owner) else None
        from compiler.transforms.fusion.concat_stage import staged_concat, unstage
        from compiler.transforms.fusion.resample import staged_bilinear, staged_resample

        rs = staged_resample(op.x) if pro is None and pool is None and dwp is None else None
        cc = staged_concat(op.x) if pro is None and pool is None and dwp is None else None
        ub_a = 2 if scaled else 0
        if dwp is not None:  # the depthwise taps: x, weight, product, sum (+ x's own prologue)
            pro = dwp.x.owner if isinstance(dwp.x.owner, cann.FusedKernelOp) and \
                prologue_lowerable(dwp.x.owner) else None
            ub_a = 4
        if pro is not None:  # the body's live tiles and the pad mask, next to the A tile
            from compiler.transforms.fusion.auto import live_tiles

            ub_a += live_tiles(pro.body_ops()) + 1
        if pool is not None:  # the running max / sum, a window tile, the mask and the zeros
            from compiler.transforms.fusion.conv_stage import pool_a_tiles

            ub_a = pool_a_tiles(pool)
        fmap, ub_win = None, 0
        if groups == 1 and not scaled and pool is None and dwp is None:
            # A straight from x (or from x's prologue, run on the rows in UB first): its rows
            # may go to L1, img2col by Load3D
            _, _, hx, wx, _ = shape_of(op.x)
            fmap = (n_, hx, wx, c1x, ho, wo, kh, sh, dh)
            ub_win = rows_prologue_tiles(pro, cin, c0) if pro is not None else 0
            if cc is not None and any(staged_bilinear(v) is not None for v in cc.x):
                from compiler.conversions.cann_to_kernel.resize import BILINEAR_PLANE_TILES

                # a bilinear source's plane at a time: its live tiles, in window-sized buffers
                ub_win = max(ub_win, ceil_div(BILINEAR_PLANE_TILES, c1x))
        try:
            t = cube_tiling(kind, m, ncols, kk, dtype.itemsize, c0, self.chip, batch,
                            ub_a_tiles=ub_a, ub_epilogue_tiles=epilogue_tiles(fk), fmap=fmap,
                            ub_window_tiles=ub_win, fmap_c0=shape_of(op.x)[-1])
        except TilingError as e:
            self.fail(op, str(e))
            return
        if cc is not None and (groups != 1 or "fmapRows" not in t.fields):
            unstage(cc)  # no window of x's rows to stage the sources into: the concat is a kernel
            cc = None
        has_bias = op.bias is not None
        store_p = dict(out_hw=[ho, wo], M=m, N=ncols, offset=col_off, cout=cout)
        epilogue, residual = _epilogue(op), None
        res = getattr(op, "residual", None)
        if isinstance(res, SSAValue):
            residual = (list(op.operands).index(res), "nc1hwc0", store_p)
        a_params = d.a_params()
        if rs is not None:  # x's pixels placed as the resample has them while staged (fmap / img2col)
            _, _, hu, wu, _ = shape_of(op.x)
            a_params.update(rs[1].params(), in_hw=[hu, wu])
        operands, y_type = list(op.operands), op.y.type
        a_prologue: Callable[..., SSAValue] | None = None
        rows_prologue: Callable[..., SSAValue] | None = None
        if dwp is not None:
            operands[0] = dwp.x
        if rs is not None:
            operands[0] = rs[1].source
        fmap_parts = None
        if cc is not None:  # each source's rows into its C1 planes of the window
            _, _, hu, wu, _ = shape_of(op.x)
            a_params.update(in_hw=[hu, wu])
            fmap_parts, operands[0] = [], cc.x[0]
            for i, v in enumerate(cc.x):
                src, pp, emit = _window_source(v)
                if i == 0:
                    operands[0] = src
                else:
                    operands.append(src)
                fmap_parts.append((0 if i == 0 else len(operands) - 1, shape_of(v)[1], pp, emit))
        if pro is not None:  # x is computed on the A tile from the prologue's inputs
            full = [i for i, v in enumerate(pro.inputs) if list(shape_of(v)) ==
                    list(pro.y.type.get_shape())]
            operands[0] = pro.inputs[full[0]]
            arg_of = []
            for i, v in enumerate(pro.inputs):
                if i == full[0]:
                    arg_of.append(0)
                else:
                    arg_of.append(len(operands))
                    operands.append(v)

            def fused_a_tile(body, g, mi, ki, bm, bk, params=a_params):
                return emit_prologue(body, pro, arg_of, params, c0, et, g, mi, ki, bm, bk)

            def fused_rows(body, g, mi, shape, win):
                return emit_rows_prologue(body, pro, arg_of, win, cin, et, g, mi, shape)
            if "fmapRows" in t.fields:  # on x's rows, once per M block, before Load3D
                rows_prologue = fused_rows
            else:
                a_prologue = fused_a_tile
        if dwp is not None:  # the A tile is the depthwise conv's result, computed in UB
            dw_args = (len(operands), len(operands) + 1 if dwp.bias is not None else None)
            operands += [dwp.filter] + ([dwp.bias] if dwp.bias is not None else [])
            x_prologue = a_prologue

            def depthwise_a_tile(body, g, mi, ki, bm, bk):
                return _depthwise_a_tile(body, dwp, dw_args, x_prologue, a_params, c0, et, g, mi,
                                         ki, bm, bk)
            a_prologue = depthwise_a_tile
        if pool is not None:  # x's A tiles are computed from the pool's input
            operands[0] = pool.x

            def pool_a_tile(body, g, mi, ki, bm, bk):
                return emit_pool_prologue(body, pool, a_params, et, g, mi, ki, bm, bk)
            a_prologue = pool_a_tile
        if fk is not None:  # the fused kernel reading the result runs on the output tile
            epilogue = [*epilogue, ("region", Epilogue(
                fk, len(operands), ("nc1hwc0", store_p),
                ("channel", dict(offset=col_off, N=ncols))))]
            operands, y_type = operands + list(fk.inputs)[1:], fk.y.type
        region = gemm_body(
            [*(v.type for v in operands), y_type], t, batch=batch, m=m, n=ncols, k=kk, et=et,
            a_load=("img2col", a_params),
            a_scale=(3, "img2col_scale", a_params) if scaled else None, a_prologue=a_prologue,
            rows_prologue=rows_prologue, fmap_parts=fmap_parts,
            b_load=("fz", dict(K=kk, N=ncols)),
            bias_load=("channel", dict(offset=col_off, N=ncols)) if has_bias else None,
            epilogue=epilogue, residual=residual, store=("nc1hwc0", store_p))
        new = kernel_op(kernel.CubeKernelOp, kind, operands, y_type, region, t.block_dim,
                      t.fields, t.buffers, fk or op)
        replace_with_epilogue(rewriter, op, fk, new)
        if dwp is not None:
            erase_unread(rewriter, dwp)
        prologue_op = pro or pool
        if prologue_op is not None:
            erase_unread(rewriter, prologue_op)
        if rs is not None:
            erase_resample(rewriter, *rs)
        if cc is not None:
            erase_concat(rewriter, cc)


@dataclass(frozen=True)
class ConvGemm:
    """A conv's implicit GEMM per (enlarged) group: M = N*Ho*Wo, K = c1*kh*kw*C0 (a C04 filter's
    packed K), N = ncols columns of FRACTAL_Z from column g*col_off, in x's and y's storage."""

    et: Any
    dtype: Any
    c0: int
    sh: int
    sw: int
    dh: int
    dw: int
    pads: tuple
    kh: int
    kw: int
    n: int
    c1x: int
    cin: int
    cout: int
    ho: int
    wo: int
    groups: int
    batch: int
    cin_group: int
    col_off: int
    kk: int
    ncols: int

    @property
    def m(self) -> int:
        return self.n * self.ho * self.wo

    def geo(self) -> dict:
        return dict(kernel_hw=[self.kh, self.kw], strides=[self.sh, self.sw],
                    dilations=[self.dh, self.dw], pads=list(self.pads), out_hw=[self.ho, self.wo])

    def a_params(self) -> dict:
        """The img2col params of the A operand (view img2col / fmap / load3d)."""
        return dict(self.geo(), cin_group=self.cin_group, cin=self.cin, M=self.m, K=self.kk)


def conv_gemm(op, wf) -> ConvGemm:
    """The GEMM of conv `op` whose filter is stored as `wf` (its cann.format_of)."""
    et = elem_of(op.x)
    dtype = numpy_dtype(et)
    c0 = c0_for(dtype)
    (sh, sw), (dh, dw), pads = op.geometry()
    kh, kw, _, _ = wf.origin
    n_, c1x, _, _, _ = shape_of(op.x)
    yo = cann.origin_shape(op.y.type)
    fmt = op.data_format.data
    cin = cann.origin_shape(op.x.type)[3 if fmt == "NHWC" else 1]
    cout = yo[3 if fmt == "NHWC" else 1]
    _, _, ho, wo, _ = op.y.type.get_shape()
    groups = wf.groups_value
    if isinstance(op, DEPTHWISE_OPS):
        groups = cin
    if groups == 1:
        batch, cin_group, col_off, kk = 1, cin, 0, c1x * kh * kw * c0
        ncols = cout
    else:
        e = group_enlargement(groups, cin // groups, cout // groups, c0)
        batch = e["g_dim"]
        cin_group = e["e_mult"] * e["cin_ori"]
        col_off = e["e_mult"] * e["cout_ori"]
        kk = e["c1"] * kh * kw * c0
        ncols = col_off
    if wf.fmt == Format.FRACTAL_Z_C04:  # x C0 = 4: the taps' channel groups packed in K
        kk = c04_k(kh * kw)
    return ConvGemm(et, dtype, c0, sh, sw, dh, dw, tuple(pads), kh, kw, n_, c1x, cin, cout, ho, wo,
                    groups, batch, cin_group, col_off, kk, ncols)


def _depthwise_a_tile(body, dw, dw_args, x_prologue, a_params: dict, c0: int, et, g, mi, ki,
                      bm: int, bk: int):
    """The [bm, bk] A tile of a 1x1 conv reading the depthwise conv `dw` (its prologue,
    compiler/transforms/fusion/depthwise.py), computed in UB: per filter tap (i, j), dw's x read
    as the img2col tile of a 1x1 conv whose pads are shifted by the tap (outside x: zero), times
    the tap's weights (the HWCN filter's row (i, j) as a channel vector), summed; then the bias
    and dw's activation.  x_prologue (x's own fused prologue, or None) computes each shifted
    tile from its inputs instead of loading x.  No pad mask: on a channel padding lane the weights
    and the bias are 0, so the lane holds act(0), finite, which the 1x1 filter's zero rows for
    those lanes multiply away; rows past M are never stored."""
    (sh, sw), (dh, dw_), (pt, pb, pl, pr) = dw.geometry()
    kh, kw, c, _ = cann.origin_shape(dw.filter.type)
    w_arg, b_arg = dw_args
    acc = None
    for i in range(kh):
        for j in range(kw):
            tap = dict(a_params, strides=[sh, sw], pads=[pt - i * dh, pb, pl - j * dw_, pr])
            if x_prologue is not None:
                xt = x_prologue(body, g, mi, ki, bm, bk, params=tap)
            else:
                xt = body.load(body.args[0], [g, mi, ki], "img2col", [bm, bk], et, "UB", **tap)
            wt = body.load(body.args[w_arg], [g, mi, ki], "img2col_channel", [bm, bk], et, "UB",
                           **a_params, c0=c0, channel_offset=(i * kw + j) * c)
            p = body.vec("Mul", [xt, wt], [bm, bk], et)
            acc = p if acc is None else body.vec("Add", [acc, p], [bm, bk], et)
    if b_arg is not None:
        bt = body.load(body.args[b_arg], [g, mi, ki], "img2col_channel", [bm, bk], et, "UB",
                       **a_params, c0=c0)
        acc = body.vec("Add", [acc, bt], [bm, bk], et)
    act = dw.properties.get("activation")
    if act is not None and act.data != cann.Activation.none:
        attrs = {"alpha": dw.properties["alpha"]} if "alpha" in dw.properties else {}
        acc = body.vec(f"act:{act.data}", [acc], [bm, bk], et, attrs)
    return acc


def erase_unread(rewriter: PatternRewriter, fk: Operation) -> None:
    """Erase a prologue FusedKernel no live op reads any more (and the dead TransData reading
    it a layout rewrite left)."""
    from compiler.transforms.fusion.auto import live_uses

    if live_uses(fk.results[0]):
        return
    for u in [u.operation for u in fk.results[0].uses]:
        rewriter.erase(u)
    rewriter.erase(fk)


def lower_resample_readers(pattern: ChipPattern, r: Operation, rewriter: PatternRewriter) -> bool:
    """When r (a PadD / BroadcastToD) is a resample staged into its convs' input rows
    (compiler/transforms/fusion/resample.py), lower those convs now (the last erases r and its
    reshapes) and return True; else False."""
    from compiler.transforms.fusion.auto import is_prologue, live_uses
    from compiler.transforms.fusion.resample import resample_of, staged_resample

    g = resample_of(r) if is_prologue(r) else None
    if g is None:
        return False
    users = list(dict.fromkeys(live_uses(g.out)))
    if len(users) == 1 and isinstance(users[0], cann.ConcatV2DOp):  # staged with a concat
        return lower_concat_readers(pattern, users[0], rewriter) and r.parent is None
    if not users or staged_resample(g.out) is None or \
            not all(isinstance(u, CONV_OPS) for u in users):
        return False
    conv = ConvToCubeBody(pattern.chip, pattern.failures, pattern.impl)
    for u in users:
        conv.match_and_rewrite(u, rewriter)
    return True


def _window_source(v: SSAValue):
    """(the operand, the fmap params, the UB emitter or None) by which a staged concat's
    source v fills its planes of a conv's window: a staged resample's input with its params, a
    staged bilinear resize's input computed in UB (resize.py emit_bilinear_window), or v."""
    from compiler.conversions.cann_to_kernel.resize import bilinear_params, emit_bilinear_window
    from compiler.transforms.fusion.resample import staged_bilinear, staged_resample

    rv = staged_resample(v)
    if rv is not None:
        return rv[1].source, rv[1].params(), None
    bl = staged_bilinear(v)
    if bl is not None:
        return bl.x, bilinear_params(bl), emit_bilinear_window
    return v, {}, None


def lower_concat_readers(pattern: ChipPattern, cc: Operation, rewriter: PatternRewriter) -> bool:
    """When cc (a ConcatV2D) is staged into its convs' windows (compiler/transforms/fusion/
    concat_stage.py), lower those convs now and return True when that erased cc (every reader
    staged it); False when it is no staged concat or a reader could not stage it."""
    from compiler.transforms.fusion.auto import is_prologue, live_uses

    if not isinstance(cc, cann.ConcatV2DOp) or not is_prologue(cc):
        return False
    users = list(dict.fromkeys(live_uses(cc.y)))
    if not users or not all(isinstance(u, CONV_OPS) for u in users):
        return False
    conv = ConvToCubeBody(pattern.chip, pattern.failures, pattern.impl)
    for u in users:
        conv.match_and_rewrite(u, rewriter)
    return cc.parent is None


def erase_concat(rewriter: PatternRewriter, cc) -> None:
    """Erase the staged concat cc once no live op reads it, then the resamples among its
    sources (their tensors were read only by it)."""
    from compiler.transforms.fusion.auto import live_uses
    from compiler.transforms.fusion.resample import _through_view, resample_of

    if live_uses(cc.y):
        return
    sources = list(cc.x)
    for u in [u.operation for u in cc.y.uses]:
        rewriter.erase(u)
    rewriter.erase(cc)
    for v in sources:
        if isinstance(v.owner, cann.ResizeBilinearV2Op) and not live_uses(v):
            size = v.owner.size.owner
            rewriter.erase(v.owner)
            if isinstance(size, cann.ConstOp) and not size.results[0].uses:
                rewriter.erase(size)
            continue
        m = _through_view(v)
        r = m.owner if m is not None else None
        g = resample_of(r) if isinstance(r, Operation) else None
        if isinstance(r, Operation) and g is not None and g.out is v:
            erase_resample(rewriter, r, g)


def erase_resample(rewriter: PatternRewriter, r: Operation, g) -> None:
    """Erase the resample r and its two reshapes (or their views) once no live op reads them."""
    from compiler.transforms.fusion.auto import live_uses

    if live_uses(g.out):
        return
    mid = r.operands[0].owner
    for o in (g.out.owner, r, mid):
        if isinstance(o, Operation) and o.parent is not None and not live_uses(o.results[0]):
            for u in [u.operation for u in o.results[0].uses]:
                rewriter.erase(u)
            rewriter.erase(o)


def epilogue_tiles(fk) -> int:
    """fp32 output tiles the epilogue keeps live in UB (1 without a fused epilogue)."""
    if fk is None:
        return 1
    from compiler.transforms.fusion.auto import live_tiles

    return max(1, live_tiles(fk.body_ops()))


def replace_with_epilogue(rewriter: PatternRewriter, op: Operation, fk, new: Operation) -> None:
    """The cube kernel replaces the op, or, with a fused epilogue, the FusedKernel (the op's
    result then has no other use: it is erased)."""
    if fk is None:
        rewriter.replace(op, new)
        return
    from compiler.transforms.fusion.auto import live_uses

    rewriter.replace(fk, new)
    live = live_uses(op.results[0])
    for u in [u.operation for u in op.results[0].uses if u.operation not in live]:
        rewriter.erase(u)  # a dead TransData a layout rewrite left
    rewriter.erase(op)


def flag(attr) -> bool:
    return bool(attr.value.data) if attr is not None else False


class MatMulToCube(ChipPattern):
    """The MatMulLike ops (MatMulV2, BatchMatMulV2, FusedMatMul) -> kernel.cube on FRACTAL_NZ (or
    ND) operands, bias in UB."""

    applies_to = roots(cann.MatMulLike)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.MatMulLike):
            return
        x1, x2, y = op.operands[0], op.operands[1], op.results[0]
        if self.fails_on_dynamic_dims(op, x1.type, x2.type, y.type):
            return
        batched = isinstance(op, cann.BatchMatMulV2Op)
        ta = flag(op.properties.get("adj_x1" if batched else "transpose_x1"))
        tb = flag(op.properties.get("adj_x2" if batched else "transpose_x2"))
        if len(op.operands) > 3:
            self.fail(op, f"{op.name}: a residual operand has no kernel lowering yet")
            return
        a_o, b_o, y_o = (cann.origin_shape(v.type) for v in (x1, x2, y))
        m, n = y_o[-2], y_o[-1]
        k = a_o[-2] if ta else a_o[-1]
        out_batch = tuple(y_o[:-2])
        batch = 1
        for d in out_batch:
            batch *= d
        et = elem_of(y)
        dtype = numpy_dtype(et)
        c0 = c0_for(dtype)
        fk = epilogue_consumer(op)
        from compiler.transforms.fusion.mean_prologue import mean_prologue_of, pool_input

        gap = mean_prologue_of(op) if not batched and not out_batch else None
        gf = cann.format_of(pool_input(gap).type) if gap is not None else None
        if gf is None or gf.fmt != Format.NC1HWC0:  # (nc1hwc0_pixels reads NC1HWC0 only)
            gap = None
        ub_a = MEAN_CHUNK + 2 if gap is not None else 0  # a pixel chunk, its sum, the mean
        row, t = self._row_epilogue(op, m, n, align(k, c0), dtype.itemsize, c0, batch, ub_a)

        def plain_tiling(ub_a_tiles: int = 0):  # no row epilogue
            return cube_tiling(op.name.removeprefix("cann."), m, n, align(k, c0), dtype.itemsize,
                               c0, self.chip, batch, ub_a_tiles=ub_a_tiles,
                               ub_epilogue_tiles=epilogue_tiles(fk))
        if t is None:
            try:
                t = plain_tiling(ub_a)
            except TilingError as e:
                if gap is None:
                    self.fail(op, str(e))
                    return
                gap = None  # the pool stays a kernel of its own
                try:
                    t = plain_tiling()
                except TilingError as e2:
                    self.fail(op, str(e2))
                    return

        def operand_view(v, transpose):
            f = cann.format_of(v.type)
            o = cann.origin_shape(v.type)
            view = "nz" if f is not None and f.fmt == Format.FRACTAL_NZ else "nd"
            return view, dict(transpose=transpose, batch=list(out_batch), rows=o[-2], cols=o[-1])

        yf = cann.format_of(y.type)
        sview = "nz" if yf is not None and yf.fmt == Format.FRACTAL_NZ else "nd"
        has_bias = len(op.operands) > 2
        epilogue, operands, y_type = _epilogue(op), list(op.operands), y.type
        store_batch = list(out_batch)
        if fk is not None:  # the fused kernel reading the result runs on the output tile
            tile = (sview, dict(transpose=False, batch=list(out_batch), rows=m, cols=n))
            epilogue = [*epilogue, ("region", Epilogue(fk, len(operands), tile,
                                                       ("channel", dict(offset=0, N=n))))]
            operands, y_type = operands + list(fk.inputs)[1:], fk.y.type
        if row is not None:  # the row op reading the result runs on the output tile's rows
            from compiler.conversions.cann_to_kernel.row_epilogue import RowStep
            from compiler.transforms.fusion.row_epilogue import host_input

            ry = row.results[0].type
            rf = cann.format_of(ry)
            sview = "nz" if rf is not None and rf.fmt == Format.FRACTAL_NZ else "nd"
            # the row op's batch: the matmul's, or leading 1s added or dropped (row_epilogue.py)
            rbatch = list(cann.origin_shape(ry)[:-2])
            tile = (sview, dict(transpose=False, batch=rbatch, rows=m, cols=n))
            x = host_input(row)
            assert x is not None
            step = RowStep(row, x, len(operands), n, tile)
            epilogue = [*epilogue, ("rows", step)]
            operands, y_type = operands + step.operands(), ry
            store_batch = rbatch
        if gap is not None and not _mean_gains(gap, t, m, align(k, c0), dtype.itemsize, self.chip):
            gap = None  # the pool is cheaper as a kernel of its own
            try:
                if row is not None:
                    row, t = self._row_epilogue(op, m, n, align(k, c0), dtype.itemsize, c0, batch)
                if t is None or row is None:
                    row = None
                    t = plain_tiling()
            except TilingError as e:
                self.fail(op, str(e))
                return
        a_prologue = None
        if gap is not None:  # the A tiles are the global average pool of its input
            operands[0] = pool_input(gap)
            a_prologue = _mean_a_tile(gap, m, et)
        region = gemm_body(
            [*(v.type for v in operands), y_type], t, batch=batch, m=m, n=n, k=align(k, c0),
            et=et, a_load=operand_view(x1, ta), b_load=operand_view(x2, tb),
            bias_load=("channel", dict(offset=0, N=n)) if has_bias else None,
            epilogue=epilogue, store=(sview, dict(batch=store_batch, rows=m, cols=n)),
            a_prologue=a_prologue)
        kind = "BatchMatMulV2" if batched or out_batch else "MatMulV2"
        new = kernel_op(kernel.CubeKernelOp, kind, operands, y_type,
                      region, t.block_dim, t.fields, t.buffers, row or fk or op)
        if row is not None:  # the views between the matmul and the row op
            x = host_input(row)
            rewriter.replace(row, new)
            while x is not None and x.owner is not op:
                view = x.owner
                assert isinstance(view, (cann.ReshapeOp, cann.TransDataOp))  # (host_views)
                x = view.operands[0]
                for u in [u.operation for u in view.results[0].uses]:
                    rewriter.erase(u)  # a dead TransData a layout rewrite left
                rewriter.erase(view)
            for u in [u.operation for u in op.results[0].uses]:
                rewriter.erase(u)
            rewriter.erase(op)
        else:
            replace_with_epilogue(rewriter, op, fk, new)
        if gap is not None:
            from compiler.transforms.fusion.mean_prologue import pool_views

            views = pool_views(gap)
            erase_unread(rewriter, gap)
            for v in views:  # the views of x the mean read, dead with it
                if not v.results[0].uses:
                    rewriter.erase(v)

    def _row_epilogue(self, op, m: int, n: int, k: int, in_bytes: int, c0: int, batch: int,
                      ub_a: int = 0):
        """(the marked row op reading op's result, the whole-row tiling) when the row op's
        operands load on the output tile and a tiling with every row in one base block fits;
        (None, None) otherwise (the row op is then a kernel of its own)."""
        from compiler.conversions.cann_to_kernel.row_epilogue import live_tiles
        from compiler.transforms.fusion.row_epilogue import host_input, row_epilogue_of

        row = row_epilogue_of(op)
        if row is None:
            return None, None
        ry = row.results[0].type
        rf = cann.format_of(ry)
        x = host_input(row)
        others = [v for v in row.operands[:2] if v is not x] \
            if isinstance(row, cann.AddLayerNormOp) else []
        stored = row_major(ry) or (rf is not None and rf.fmt == Format.FRACTAL_NZ)
        if not stored or any(cann.format_of(v.type) != rf and not (row_major(v.type) and row_major(ry))
                             for v in others) or \
                any(not row_major(v.type) for v in row.operands[len(others) + 1:]):
            return None, None  # the result, the residual, gamma / beta: not loadable on the tile
        from compiler.conversions.cann_to_kernel.row_epilogue import gains

        kind = op.name.removeprefix("cann.")
        try:
            t = cube_tiling(kind, m, n, k, in_bytes, c0, self.chip, batch, ub_a_tiles=ub_a,
                            ub_epilogue_tiles=live_tiles(row), whole_n=True)
            free = cube_tiling(kind, m, n, k, in_bytes, c0, self.chip, batch, ub_a_tiles=ub_a)
        except TilingError:
            return None, None
        if not gains(row, self.chip, t, free, m * batch, n):  # whole rows: maybe fewer cores
            return None, None
        return row, t


#: A global average pool computed on a matmul's A tiles stages its pixel chunks in this many
#: [baseM, baseK] UB tiles (and two more: the sum, the mean).
MEAN_CHUNK = 16


def _mean_chunk(pixels: int, bm: int, rows: int) -> int:
    """Pixels per chunk: as many as the MEAN_CHUNK staged [baseM, baseK] tiles hold for the
    `rows` rows of A that exist (a [rows, chunk, baseK] tile), at most the row's pixels."""
    return min(pixels, MEAN_CHUNK * bm // max(1, rows))


def _mean_a_tile(gap: cann.ReduceMeanDOp, m: int, et):
    """The matmul's [bm, bk] A tile of the global average pool `gap` (compiler/transforms/fusion/
    mean_prologue.py) from its x's NC1HWC0 storage (kernel argument 0), g images per row of A:
    per chunk (_mean_chunk) of the row's g*H*W pixels, the [rows, chunk, bk] tile (view
    nc1hwc0_pixels, `images` = g) summed over its pixels and accumulated, then times
    1/(g*H*W).  The tile has the rows of A that exist (min(bm, M)); the UB -> L1 copy puts them
    first in the [bm, bk] tile, zero rows after."""
    from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32, i64

    from compiler.transforms.fusion.mean_prologue import images_per_row, pool_input

    _, h, w, _ = cann.origin_shape(pool_input(gap).type)
    images = images_per_row(gap)
    hw = images * h * w

    def mean_a_tile(body, g, mi, ki, bm, bk):
        rv = min(bm, m)
        chunk = _mean_chunk(hw, bm, rv)
        acc = body.vec("Fill", [], [rv, bk], et, {"fill": IntegerAttr(0, i64)})
        with body.loop(body.index(0), hw, chunk, hw) as pi:
            t = body.load(body.args[0], [mi, pi, ki], "nc1hwc0_pixels", [rv, chunk, bk], et, "UB",
                          **({"images": images} if images > 1 else {}))
            s = body.vec("RowSum", [t], [rv, bk], et)
            body.add(kernel.AccumulateOp(operands=[acc, s],
                                         properties={"fn": kernel.AccumulateFnAttr.of("Add")}))
        return body.vec("Muls", [acc], [rv, bk], et, {"value": FloatAttr(1.0 / hw, f32)})
    return mean_a_tile


def _mean_gains(gap: cann.ReduceMeanDOp, t, m: int, k: int, eb: int, chip: ChipProfile) -> bool:
    """The pool on the matmul's A tiles is estimated cheaper than its own kernel: the busiest
    cube core recomputes it for each of its (M, N, K) base blocks (_mean_a_tile's chunks: a row
    sum and an accumulate each, then the scale), against the pool kernel's launch and its row
    sums over its vector cores ((row of A, c1) rows; compiler/target/cost_model.py fits)."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.cost_model import vector_core_cycles
    from compiler.transforms.fusion.mean_prologue import images_per_row, pool_input

    f = t.fields
    n_, c1, h, w, c0 = shape_of(pool_input(gap))
    g = images_per_row(gap)
    hw = g * h * w  # a row of A averages this many pixels
    bm, bn, bk = f["baseM"], f["baseN"], f["baseK"]
    rv = min(bm, m)
    chunk = _mean_chunk(hw, bm, rv)
    blocks = ceil_div(f["singleCoreM"], bm) * ceil_div(f["singleCoreN"], bn) * ceil_div(k, bk)
    per_block = ceil_div(hw, chunk) * (vector_core_cycles("RowSum", rv * chunk * bk, eb)
                                       + vector_core_cycles("Add", rv * bk, eb)) \
        + vector_core_cycles("Muls", rv * bk, eb)
    rows = n_ // g * c1
    cores = max(1, min(chip.vector_cores, rows))
    own = vector_core_cycles("ReduceSum", ceil_div(rows, cores) * hw * c0, eb)
    return blocks * per_block / chip.clock_mhz < LAUNCH_OVERHEAD_US + own / chip.clock_mhz


def gemm_kernel(chip: ChipProfile, kind: str, operands, y_type, *, batch, m, n, k, a_load, b_load,
                store, bias_load=None, epilogue=(), loc_op=None):
    et = y_type.element_type
    dtype = numpy_dtype(et)
    c0 = c0_for(dtype)
    t = cube_tiling(kind, m, n, align(k, c0), dtype.itemsize, c0, chip, batch)
    region = gemm_body([*(v.type for v in operands), y_type], t, batch=batch, m=m, n=n,
                       k=align(k, c0), et=et, a_load=a_load, b_load=b_load, bias_load=bias_load,
                       epilogue=epilogue, store=store)
    return kernel_op(kernel.CubeKernelOp, kind, operands, y_type, region, t.block_dim, t.fields,
                   t.buffers, loc_op)
