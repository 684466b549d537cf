"""Data-movement kernels: TransData, PadD, PadV2D, MirrorPad, TransposeD, ConcatV2D,
BroadcastToD, StridedSliceD, SplitD, SplitVD, and reshape as a view (no kernel)."""


from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    f32,
    f64,
    i64,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    attr_of,
    kernel_op,
    kernel_props,
    num_elems,
    prod,
    row_major,
    stored_as,
)
from compiler.ir.rewriting import roots, with_loc
from compiler.ir.typed import elem_of, is_static, shape_of, tensor_of
from compiler.target.chips import ChipProfile
from compiler.target.formats import Format
from compiler.target.tiling import TilingError, vector_tiling, vector_tiling_on
from dialects import cann, kernel
from dialects.common import dense_from_numpy, ints, numpy_dtype


class TransDataToKernel(ChipPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        st = op.src.type
        if kernel.ViewOp.same_bytes(st, op.dst.type):  # C == C0 and the like: no byte moves
            rewriter.replace(op, with_loc(kernel.ViewOp(operands=[op.src], result_types=[op.dst.type]), op))
            return
        elems = 1
        for d in shape_of(st):
            elems *= d
        t = self.vector_tiling_or_fail(op, "TransData", elems, 2, numpy_dtype(elem_of(st)).itemsize)
        if t is None:
            return
        new = kernel.TransDataOp(operands=[op.src], result_types=[op.dst.type],
                                 properties={"src_format": op.src_format, "dst_format": op.dst_format,
                                             **kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))


class FoldOriginTransData(RewritePattern):
    """A kernel.transdata from FRACTAL_NZ / NC1HWC0 to the row-major origin layout whose source
    is the single-use result of a vector or cube kernel is no kernel of its own: the producer's
    stores take the `to_origin` view (each tile placed as before, its non-padding elements
    written straight to their origin positions; padding lanes are not stored), and its result
    is the TransData's.  Same stored tiles, one launch and one GM round trip fewer.  A cube
    kernel's output tiles leave through UB as a vector kernel's do (fixpipe to UB, the epilogue
    there, then the store: compiler/conversions/cann_to_kernel/cube.py), so its stores fold the
    same way.  A FRACTAL_NZ view between them (a Reshape regrouping the batch dims: an SE gate's
    Dense [1, C] read as [1, 1, 1, C]) is looked through: the producer stores its own origin
    and an ND view of it gives the TransData's shape (the same row-major bytes)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: kernel.TransDataOp, rewriter: PatternRewriter):
        src, dt = op.src, op.dst.type
        view = src.owner if isinstance(src.owner, kernel.ViewOp) and src.has_one_use() else None
        fv = cann.format_of(src.type)
        if view is not None:
            src = view.x
        k, st = src.owner, src.type
        f = cann.format_of(st)
        if not isinstance(k, (kernel.VectorKernelOp, kernel.CubeKernelOp)) or k.extra \
                or not src.has_one_use() or f is None or fv is None \
                or cann.format_of(dt) is not None or elem_of(st) != elem_of(dt) \
                or f.origin_fmt is None or fv.origin_fmt != f.origin_fmt \
                or tuple(shape_of(dt)) != tuple(fv.origin) \
                or int(np.prod(f.origin)) != int(np.prod(fv.origin)) \
                or op.dst_format.data != f.origin_fmt:
            return
        origin = dt if view is None else TensorType(elem_of(dt), list(f.origin))
        layout = (f.fmt.value, f.origin_fmt.value)
        if layout not in kernel.TO_ORIGIN_LAYOUTS:
            return
        out = k.body.block.args[-1]
        stores = [u.operation for u in out.uses]
        if not all(isinstance(s, kernel.StoreOp) and s.dst is out and s.value is not out
                   and s.view.data != kernel.StoreView.to_origin for s in stores):
            return  # the result is read back, or is no plain store's destination
        for s in stores:
            assert isinstance(s, kernel.StoreOp)
            s.params = DictionaryAttr({**s.params.data, "src_shape": attr_of(list(shape_of(st)))})
            s.src_view = s.view
            s.src_format, s.dst_format = (cann.FormatNameAttr.of(x) for x in layout)
            s.view = kernel.StoreViewAttr.of("to_origin")
        rewriter.replace_value_with_new_type(out, kernel.memref(list(f.origin), elem_of(dt), "GM"))
        new = type(k)(operands=[list(k.inputs)], result_types=[origin, []],
                                    properties=dict(k.properties), attributes=dict(k.attributes),
                                    regions=[k.detach_region(k.body)])
        if view is None:
            rewriter.replace(op, with_loc(new, k))
        else:
            nv = with_loc(kernel.ViewOp(operands=[new.results[0]], result_types=[dt]), view)
            rewriter.replace(op, [with_loc(new, k), nv], [nv.y])
            rewriter.erase(view)
        rewriter.erase(k)


class FoldInputTransData(RewritePattern):
    """A kernel.transdata from a row-major layout (ND, NHWC) to FRACTAL_NZ / NC1HWC0 (the model
    input's, or any GM value's) whose every reader is a cube or vector kernel that loads that
    operand only GM -> L1 is no kernel of its own: each such load takes the `from_origin` view
    (the tile it read from the device storage, read by the converting DMA straight from the
    row-major tensor, channel / column padding zero in L1) and the readers take the
    TransData's source.  The GM -> L1 DMA does this conversion on the way:
    copy_gm_to_cbuf_multi_nd2nz (CANN cce intrinsic API cceapi_0096: "supports ND->NZ,
    NHWC->NC1HWC0 and NHWC->C1HWNC0 format conversion ... if the lowest dimension is not aligned
    to 32 bytes it is padded with zeros in L1"; Ascend C DataCopy with Nd2NzParams,
    atlasascendc_api_07_00127, GM -> L1 on Atlas A2).  The pairs it does are
    kernel.FROM_ORIGIN_LAYOUTS (not NCHW -> NC1HWC0: a transpose).  Same L1 tiles, one launch
    and one GM round trip of the converted tensor fewer; the cube's GM -> L1 cycles stay those
    of the L1 bytes written (compiler/target/cost_model.py), its HBM bytes are now the
    row-major source's.  A GM -> UB load (a vector kernel's) keeps its TransData: the
    documentation found names the converting path GM -> L1 only."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: kernel.TransDataOp, rewriter: PatternRewriter):
        st, dt = op.src.type, op.dst.type
        f = cann.format_of(dt)
        if f is None or cann.format_of(st) is not None or f.origin_fmt is None \
                or not is_static(st) or not is_static(dt) or elem_of(st) != elem_of(dt) \
                or tuple(shape_of(st)) != tuple(f.origin) or op.src_format.data != f.origin_fmt \
                or op.dst_format.data != f.fmt:
            return
        layout = (f.origin_fmt.value, f.fmt.value)
        if layout not in kernel.FROM_ORIGIN_LAYOUTS or not op.dst.uses:
            return
        reads: list[tuple[kernel.BodyKernelOp, int, list[kernel.LoadOp]]] = []
        for use in op.dst.uses:
            k = use.operation
            if not isinstance(k, (kernel.VectorKernelOp, kernel.CubeKernelOp)) \
                    or use.index >= len(k.inputs):
                return
            arg = k.body.block.args[use.index]
            loads = [u.operation for u in arg.uses]
            if not loads or not all(
                    isinstance(ld, kernel.LoadOp) and ld.src is arg
                    and ld.view.data != kernel.LoadView.from_origin
                    and kernel.space_of(ld.result.type) == "L1" for ld in loads):
                return  # read otherwise than by GM -> L1 loads
            reads.append((k, use.index, loads))
        for k, i, loads in reads:
            for ld in loads:
                ld.params = DictionaryAttr({**ld.params.data, "dst_shape": attr_of(list(shape_of(dt)))})
                ld.dst_view = ld.view
                ld.src_format, ld.dst_format = (cann.FormatNameAttr.of(x) for x in layout)
                ld.view = kernel.LoadViewAttr.of("from_origin")
            rewriter.replace_value_with_new_type(k.body.block.args[i],
                                                 kernel.memref(list(shape_of(st)), elem_of(st), "GM"))
            k.operands[i] = op.src
        rewriter.erase(op)







class PadToVectorBody(ChipPattern):
    """PadD -> kernel.vec_kernel moving rows of the padded result (last storage axis) from the
    input, zero outside it.  On NC1HWC0 (assign-layouts' rule) only H and W are padded."""

    applies_to = roots(cann.PadDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.PadDOp):
            return
        from compiler.conversions.cann_to_kernel.cube import lower_resample_readers

        if lower_resample_readers(self, op, rewriter):  # zero insertion staged into its convs
            return
        xt, yt = op.x.type, op.y.type
        if self.fails_on_dynamic_dims(op, xt, yt):
            return
        p = ints(op.paddings)
        xf = cann.format_of(xt)
        if xf is not None and xf.fmt == Format.NC1HWC0 and len(xf.origin) != 4:
            # a channels-last value of another rank (d0, C1, d1.., C0): the middle axes padded
            r = len(xf.origin)
            if p[2 * r - 2] or p[2 * r - 1] or (yf := cann.format_of(yt)) is None \
                    or yf.fmt != Format.NC1HWC0:
                self.fail(op, f"{op.name}: padding C of an NC1HWC0 tensor has no kernel lowering")
                return
            pads = [p[0], p[1], 0, 0, *p[2:2 * r - 2], 0, 0]
        elif xf is not None and xf.fmt == Format.NC1HWC0:
            o = xf.origin_fmt
            (n0, n1), (a0, a1), (b0, b1), (c0_, c1_) = [(p[2 * i], p[2 * i + 1]) for i in range(4)]
            if o == Format.NHWC:
                h, w, c = (a0, a1), (b0, b1), (c0_, c1_)
            else:
                c, h, w = (a0, a1), (b0, b1), (c0_, c1_)
            if c != (0, 0) or (yf := cann.format_of(yt)) is None or yf.fmt != Format.NC1HWC0:
                self.fail(op, f"{op.name}: padding C of an NC1HWC0 tensor has no kernel lowering")
                return
            pads = [n0, n1, 0, 0, *h, *w, 0, 0]
        elif row_major(xt) and row_major(yt):
            pads = list(p)
        else:
            self.fail(op, f"{op.name}: x stored as {stored_as(xt)} has no padding kernel")
            return
        ys = list(yt.get_shape())
        length, rows = ys[-1], prod(ys[:-1])
        et = yt.element_type
        t = self.vector_tiling_or_fail(op, "PadD", rows, 2, numpy_dtype(et).itemsize * length, length)
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o_,):
            with body.loop(o_, f["elemsPerCore"], tile, rows) as ti:
                v = body.load(body.args[0], [ti], "pad_rows", [tile, length], et, "UB",
                              pads=pads, shape=ys)
                body.store(v, body.args[-1], [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, "PadD", [op.x], yt, body.region(), t.block_dim, f,
                      t.buffers, op)
        rewriter.replace(op, new)


class TransposeToVectorBody(ChipPattern):
    """TransposeD of a row-major tensor -> kernel.vec_kernel: per core, UB tiles of the flattened
    result, each gathered from x by the inverse permutation (`transpose_flat`: a strided DMA
    from GM, as the vector unit's data-move instructions do), stored flat.  An operand in
    NC1HWC0 / FRACTAL_NZ is brought back to its origin by assign-layouts' TransData; anything
    else stored formatted is a diagnostic."""

    applies_to = roots(cann.TransposeDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.TransposeDOp):
            return
        xt, yt = op.x.type, op.y.type
        if not self.static_row_major(op, xt, yt, "transpose"):
            return
        et = yt.element_type
        elems = num_elems(yt)
        if self.vector_tiling_or_fail(op, "TransposeD", elems, 2, numpy_dtype(et).itemsize) is None:
            return
        rewriter.replace(op, gather_flat_kernel(self.chip, op.x, yt, "TransposeD", op, "transpose_flat",
                                                perm=ints(op.perm), shape=list(yt.get_shape())))


def nc1hwc0_block_axis(axis: int, whole, pieces) -> int | None:
    """The stored axis of an origin concat / split axis when `whole` and every piece are
    NC1HWC0 of one origin layout and the pieces are whole blocks of `whole`: N, H, W map to
    their own stored axes; C to C1 (axis 1) when every piece but the last has a multiple of C0
    channels.  Then the op is a
    concat / split of the stored arrays along that axis.  None otherwise."""
    found = [cann.format_of(t) for t in (whole, *pieces)]
    fmts = [f for f in found if f is not None]
    if len(fmts) != len(found) or any(f.fmt != Format.NC1HWC0 for f in fmts) or \
            len({f.origin_fmt for f in fmts}) != 1 or any(d < 0 for d in whole.get_shape()):
        return None
    o = fmts[0].origin_fmt
    a = axis % 4
    stored = ({0: 0, 1: 2, 2: 3, 3: 1} if o == Format.NHWC else {0: 0, 1: 1, 2: 2, 3: 3})[a]
    if stored == 1:
        c0 = whole.get_shape()[4]
        if any(f.origin[a] % c0 for f in fmts[1:-1]):
            return None
    return stored


_C = {"NHWC": 3, "NCHW": 1}


def nz_block_axis(axis: int, whole, pieces) -> int | None:
    """The stored axis of an origin concat axis when `whole` and every piece are FRACTAL_NZ and
    the pieces are whole blocks of `whole` (layout_assignment.nz_concat_blocks): the last axis
    is K1, the rows M1, a batch axis itself.  Then the op is a concat of the stored arrays."""
    from compiler.transforms.layout_assignment import nz_concat_blocks

    found = [cann.format_of(t) for t in (whole, *pieces)]
    fmts = [f for f in found if f is not None]
    if len(fmts) != len(found) or any(f.fmt != Format.FRACTAL_NZ for f in fmts) or \
            any(d < 0 for d in whole.get_shape()):
        return None
    rank = len(fmts[0].origin)
    if not nz_concat_blocks(axis, [tuple(f.origin) for f in fmts[1:]],
                            numpy_dtype(whole.element_type)):
        return None
    a = axis % rank
    return a if a < rank - 2 else (rank - 2 if a == rank - 1 else rank - 1)


def nc1hwc0_channel_offsets(axis: int, whole, pieces) -> list | None:
    """A concat over C of NC1HWC0 values whose channel offsets are not all multiples of C0:
    [channel offset of each piece..., origin layout name], else None.  The concat kernel then
    stores each input lane by lane (`concat_c0`: channel c of input i goes to lane
    (offset_i + c) % C0 of block (offset_i + c) // C0), and the last input's padding lanes
    write the result's padding (zeros)."""
    found = [cann.format_of(t) for t in (whole, *pieces)]
    fmts = [f for f in found if f is not None]
    if len(fmts) != len(found) or any(f.fmt != Format.NC1HWC0 for f in fmts) or \
            len({f.origin_fmt for f in fmts}) != 1 or any(d < 0 for d in whole.get_shape()):
        return None
    if fmts[0].origin_fmt is None:
        return None
    o = fmts[0].origin_fmt.value
    if axis % 4 != _C[o]:
        return None
    offs, off = [], 0
    for f in fmts[1:]:
        offs.append(off)
        off += f.origin[_C[o]]
    return [*offs, o]


class ConcatToVectorBody(ChipPattern):
    """ConcatV2D of row-major tensors -> kernel.vec_kernel: for each input, per core, UB tiles of
    its flattened data stored into its columns of the result viewed as [outer, row] (`concat_flat`:
    element p of input i goes to (p // inner_i) * row + offset_i + p % inner_i).  The kernel
    carries `concat_dim` so plan-memory can let the producers write their slabs in place."""

    applies_to = roots(cann.ConcatV2DOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.ConcatV2DOp):
            return
        from compiler.conversions.cann_to_kernel.cube import lower_concat_readers

        if lower_concat_readers(self, op, rewriter):  # staged into its convs' fmap loads
            return
        ins, yt = list(op.x), op.y.type
        if self.fails_on_dynamic_dims(op, yt, *(v.type for v in ins)):
            return
        stored_axis = nc1hwc0_block_axis(op.concat_dim.value.data, yt, [v.type for v in ins])
        if stored_axis is None:
            stored_axis = nz_block_axis(op.concat_dim.value.data, yt, [v.type for v in ins])
        lanes = None if stored_axis is not None else \
            nc1hwc0_channel_offsets(op.concat_dim.value.data, yt, [v.type for v in ins])
        if lanes is not None:
            stored_axis = 1
        bad = [v for v in ins if not row_major(v.type)]
        if stored_axis is None and (bad or not row_major(yt)):
            self.fail(op, f"{op.name}: an input stored as "
                          f"{stored_as(bad[0].type if bad else yt)} has no concat kernel "
                          "(needs row-major data, or NC1HWC0 joined at whole C0 blocks)")
            return
        ys = list(yt.get_shape())
        axis = op.concat_dim.value.data % len(ys) if stored_axis is None else stored_axis
        row = prod(ys[axis:])
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        try:
            # one launch for all inputs: its block_dim is what the largest input would use, and
            # every input's copy is split over exactly those blocks (each kernel.cores grid of
            # the body is the block_dim; a small input leaves the last blocks without work)
            blocks = max(vector_tiling("ConcatV2D", max(1, num_elems(v.type)), 2, eb,
                                       self.chip).block_dim for v in ins)
            tilings = [vector_tiling_on("ConcatV2D", max(1, num_elems(v.type)), 2, eb, self.chip,
                                        blocks) for v in ins]
        except TilingError as e:
            self.fail(op, str(e))
            return
        body = Body([*(v.type for v in ins), yt])
        off = 0
        for i, (v, t) in enumerate(zip(ins, tilings)):
            vs = list(shape_of(v))
            inner, elems = prod(vs[axis:]), num_elems(v.type)
            f, tile = t.fields, t.fields["tileElems"]
            if elems:
                with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
                    with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                        x = body.load(body.args[i], [ti], "flat", [tile], et, "UB", shape=vs)
                        if lanes is not None:  # channels off the C0 grid: lane by lane
                            body.store(x, body.args[-1], [ti], "concat_c0", offset=lanes[i],
                                       channels=cann.origin_shape(v.type)[_C[lanes[-1]]],
                                       c1=vs[1], hw=vs[2] * vs[3], last=int(i == len(ins) - 1))
                        else:
                            body.store(x, body.args[-1], [ti], "concat_flat", inner=inner,
                                       row=row, offset=off)
            off += inner
        big = max(tilings, key=lambda t: t.fields["totalElems"])
        f = {**big.fields, "numInputs": len(ins), "rowElems": row}
        new = kernel_op(kernel.VectorKernelOp, "ConcatV2D", ins, yt, body.region(),
                      blocks, f, big.buffers, op)
        new.attributes["concat_dim"] = IntegerAttr(axis, i64)
        rewriter.replace(op, new)


class BroadcastToVectorBody(ChipPattern):
    """BroadcastToD of a row-major tensor -> kernel.vec_kernel: per core, UB tiles of the
    flattened result, each read from x broadcast to the result's shape (the `flat` view's
    numpy broadcasting: a repeated, strided DMA from GM), stored flat."""

    applies_to = roots(cann.BroadcastToDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.BroadcastToDOp):
            return
        from compiler.conversions.cann_to_kernel.cube import lower_resample_readers

        if lower_resample_readers(self, op, rewriter):  # a nearest upsample staged into its convs
            return
        xt, yt = op.x.type, op.y.type
        fx, fy = cann.format_of(xt), cann.format_of(yt)
        on_5hd = (fx is not None and fy is not None and fx.fmt == fy.fmt == Format.NC1HWC0
                  and len(shape_of(xt)) == len(shape_of(yt)))
        # NC1HWC0 (assign-layouts' broadcast-c: not over C): the stored arrays broadcast alike
        if not on_5hd and not self.static_row_major(op, xt, yt, "broadcast"):
            return
        et = yt.element_type
        elems = num_elems(yt)
        if elems == 0:
            self.fail(op, f"{op.name}: an empty result has no kernel")
            return
        if self.vector_tiling_or_fail(op, "BroadcastToD", elems, 2, numpy_dtype(et).itemsize) is None:
            return
        rewriter.replace(op, gather_flat_kernel(self.chip, op.x, yt, "BroadcastToD", op, "flat",
                                                shape=list(yt.get_shape())))


def _slice_axes(op, xs) -> tuple[list[int], list[int], list[int]] | None:
    """StridedSlice as (start, step, count) per axis of x (new axes and shrunk axes only reshape
    the row-major result); None when the spec does not apply to x."""
    from compiler.interpreters.slicing import strided_slice_index

    try:
        index = list(strided_slice_index(op, len(xs)))
    except ValueError:
        return None
    index = [i for i in index if i is not None]
    if Ellipsis in index:
        k = index.index(Ellipsis)
        index[k:k + 1] = [slice(None)] * (len(xs) - len(index) + 1)
    index += [slice(None)] * (len(xs) - len(index))
    if len(index) != len(xs):
        return None
    start, step, count = [], [], []
    for i, d in zip(index, xs):
        if isinstance(i, int):
            i = i + d if i < 0 else i
            if not 0 <= i < d:
                return None
            i = slice(i, i + 1, 1)
        r = range(*i.indices(d))
        start.append(r.start)
        step.append(r.step)
        count.append(len(r))
    return start, step, count


def nc1hwc0_slice(op) -> tuple[list[int], list[int], list[int]] | None:
    """A StridedSliceD of an NC1HWC0 x into an NC1HWC0 y (one origin layout) that keeps C whole
    (N, H, W sliced, no new or shrunk axes): (start, step, count) per stored axis, C1 and C0
    taken whole.  None otherwise."""
    fx, fy = cann.format_of(op.x.type), cann.format_of(op.y.type)
    if fx is None or fy is None or fx.fmt != Format.NC1HWC0 or fy.fmt != Format.NC1HWC0 \
            or fx.origin_fmt != fy.origin_fmt or len(fx.origin) != 4 or len(fy.origin) != 4:
        return None
    ax = _slice_axes(op, list(fx.origin))
    c = 3 if fx.origin_fmt == Format.NHWC else 1
    if ax is None or (ax[0][c], ax[1][c], ax[2][c]) != (0, 1, fx.origin[c]):
        return None
    order = [0, 1, 2] if c == 3 else [0, 2, 3]  # origin N, H, W
    xs = op.x.type.get_shape()
    start, step, count = [0] * 5, [1] * 5, list(xs)
    for stored, a in zip((0, 2, 3), order):
        start[stored], step[stored], count[stored] = ax[0][a], ax[1][a], ax[2][a]
    return start, step, count


def slice_kernel(chip: ChipProfile, x, yt, start, step, count, kind: str, loc_op):
    """A kernel.vec_kernel: per core, UB tiles of the flattened result, each gathered from the
    row-major x at start + i * step per axis (`slice_flat`), stored flat."""
    return gather_flat_kernel(chip, x, yt, kind, loc_op, "slice_flat", start=start, step=step,
                              count=count)


def gather_flat_kernel(chip: ChipProfile, x, yt, kind: str, loc_op, view: str, **params):
    """A kernel.vec_kernel: per core, UB tiles of the flattened result, each loaded from x by
    the load view `view` (slice_flat, split_c0, transpose_flat, flat broadcasting), stored flat."""
    et = yt.element_type
    elems = num_elems(yt)
    t = vector_tiling(kind, elems, 2, numpy_dtype(et).itemsize, chip)
    f, tile = t.fields, t.fields["tileElems"]
    body = Body([x.type, yt])
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
            v = body.load(body.args[0], [ti], view, [tile], et, "UB", **params)
            body.store(v, body.args[-1], [ti], "flat")
    return kernel_op(kernel.VectorKernelOp, kind, [x], yt, body.region(), t.block_dim, f,
                     t.buffers, loc_op)


class StridedSliceToVectorBody(ChipPattern):
    """StridedSliceD of a row-major tensor -> kernel.vec_kernel (`slice_kernel`; new / shrunk
    axes only reshape the row-major result)."""

    applies_to = roots(cann.StridedSliceDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.StridedSliceDOp):
            return
        xt, yt = op.x.type, op.y.type
        ax = nc1hwc0_slice(op)
        if ax is None and not self.static_row_major(op, xt, yt, "strided-slice"):
            return
        xs = list(shape_of(xt))
        ax = ax or _slice_axes(op, xs)
        if ax is None or prod(ax[2]) != num_elems(yt):
            self.fail(op, f"{op.name}: the slice does not map onto x {xs} -> {list(yt.get_shape())}")
            return
        if num_elems(yt) == 0:
            self.fail(op, f"{op.name}: an empty result has no kernel")
            return
        from compiler.conversions.cann_to_kernel.fused import prologue_lowerable

        owner = op.x.owner
        pro = owner if isinstance(owner, cann.FusedKernelOp) and prologue_lowerable(owner) else None
        try:
            new = slice_kernel(self.chip, op.x, yt, *ax, "StridedSliceD", op) if pro is None \
                else slice_prologue_kernel(self.chip, pro, yt, *ax, op)
        except TilingError as e:
            self.fail(op, str(e))
            return
        rewriter.replace(op, new)
        if pro is not None:
            from compiler.conversions.cann_to_kernel.cube import erase_unread

            erase_unread(rewriter, pro)


def slice_prologue_kernel(chip: ChipProfile, fk, yt, start, step, count, loc_op):
    """slice_kernel of fk's result, which fk (its readers' prologue, compiler/transforms/fusion/auto.py
    slice_reader) computes on the gathered tile: its inputs stored like the result are gathered
    by the same `slice_flat` view, scalars loaded as one element; the body runs in UB.  When C
    leaves padding lanes in C0 the tile is selected against `flat_valid` (the slice moves those
    lanes, where the body computes f(0), and a stored result holds 0 there)."""
    from compiler.conversions.cann_to_kernel.fused import channel_count, channel_layout, emit_region
    from compiler.transforms.fusion.auto import live_tiles

    et = yt.element_type
    elems = num_elems(yt)
    layout = channel_layout(yt)
    masked = layout is not None and channel_count(yt) % yt.get_shape()[-1] != 0
    t = vector_tiling("StridedSliceD", elems, 1 + live_tiles(fk.body_ops()) + 2 * masked,
                      numpy_dtype(et).itemsize, chip)  # (the mask and the zeros: 2 tiles more)
    f, tile = t.fields, t.fields["tileElems"]
    body = Body([*(v.type for v in fk.inputs), yt])
    like_y = [list(shape_of(v)) == list(shape_of(fk.y)) and cann.format_of(v.type) == cann.format_of(fk.y.type)
              for v in fk.inputs]
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
            def load(i: int):
                v = fk.inputs[i]
                if like_y[i]:
                    return body.load(body.args[i], [ti], "slice_flat", [tile], elem_of(v), "UB",
                                     start=start, step=step, count=count)
                return body.load(body.args[i], [body.index(0)], "flat", [1], elem_of(v), "UB",
                                 shape=[1])

            r = emit_region(body, fk, [tile], load, lambda e: e)
            if masked:
                ref = body.args[like_y.index(True) if True in like_y else -1]  # (read as no data)
                mask = body.load(ref, [ti], "flat_valid", [tile], et, "UB",
                                 shape=list(shape_of(yt)), layout=layout, channels=channel_count(yt))
                zero = body.vec("Duplicate", [], [tile], et, {"value": FloatAttr(0.0, f32)})
                r = body.vec("SelectV2", [mask, r, zero], [tile], et)
            body.store(r, body.args[-1], [ti], "flat")
    return kernel_op(kernel.VectorKernelOp, "StridedSliceD", list(fk.inputs), yt, body.region(),
                     t.block_dim, f, t.buffers, loc_op)


class SplitToVectorBody(ChipPattern):
    """SplitD / SplitVD of a row-major tensor, or of an NC1HWC0 / FRACTAL_NZ one into whole
    blocks (a split of the stored array), -> one kernel.vec_kernel per part (`slice_kernel`:
    the part's slab [offset, +size) of the split axis); an empty part is an empty constant."""

    applies_to = roots(cann.SplitDOp, cann.SplitVDOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.SplitDOp, cann.SplitVDOp)):
            return
        xt = op.x.type
        stored_axis = nc1hwc0_block_axis(op.split_dim.value.data, xt, [r.type for r in op.results])
        if stored_axis is None:  # FRACTAL_NZ parts of whole blocks (layout_assignment.rule_split_nz)
            stored_axis = nz_block_axis(op.split_dim.value.data, xt, [r.type for r in op.results])
        lanes = None if stored_axis is not None else \
            nc1hwc0_channel_offsets(op.split_dim.value.data, xt, [r.type for r in op.results])
        if lanes is not None:  # channels off the C0 grid: each part gathered lane by lane
            try:
                news = [gather_flat_kernel(self.chip, op.x, r.type, op.name.removeprefix("cann."), op,
                                           "split_c0", offset=lanes[k],
                                           channels=cann.origin_shape(r.type)[_C[lanes[-1]]],
                                           c1=shape_of(r)[1],
                                           hw=shape_of(r)[2] * shape_of(r)[3])
                        for k, r in enumerate(op.results)]
            except TilingError as e:
                self.fail(op, str(e))
                return
            rewriter.replace(op, news, [n.results[0] for n in news])
            return
        if stored_axis is None and not all(self.static_row_major(op, xt, r.type, "split")
                                           for r in op.results):
            return
        xs = list(shape_of(xt))
        axis = op.split_dim.value.data % len(xs) if stored_axis is None else stored_axis
        news, off = [], 0
        try:
            for r in op.results:
                rs = list(shape_of(r))
                if num_elems(r.type) == 0:
                    news.append(with_loc(cann.ConstOp(dense_from_numpy(
                        np.zeros(rs, numpy_dtype(elem_of(r)))), tensor_of(r)), op))
                else:
                    start = [off if a == axis else 0 for a in range(len(xs))]
                    news.append(slice_kernel(self.chip, op.x, r.type, start, [1] * len(xs), rs,
                                             op.name.removeprefix("cann."), op))
                off += rs[axis]
        except TilingError as e:
            self.fail(op, str(e))
            return
        rewriter.replace(op, news, [n.results[0] for n in news])


class ValuePadToVectorBody(ChipPattern):
    """PadV2D (a constant value) and MirrorPad (REFLECT / SYMMETRIC) of a row-major tensor ->
    kernel.vec_kernel: per core, UB tiles of rows of the padded result (`padded_rows`: each
    element read from x at its reflected coordinate, or the value outside x), stored as rows."""

    applies_to = roots(cann.PadV2DOp, cann.MirrorPadOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.PadV2DOp, cann.MirrorPadOp)):
            return
        xt, yt = op.x.type, op.y.type
        if not self.static_row_major(op, xt, yt, "padding"):
            return
        ys = list(yt.get_shape())
        if not ys or num_elems(yt) == 0 or num_elems(xt) == 0:
            self.fail(op, f"{op.name}: a scalar or empty tensor has no padding kernel")
            return
        length, rows = ys[-1], prod(ys[:-1])
        et = yt.element_type
        kind = op.name.removeprefix("cann.")
        t = self.vector_tiling_or_fail(op, kind, rows, 2, numpy_dtype(et).itemsize * length, length)
        if t is None:
            return
        f, tile = t.fields, t.fields["tileElems"]
        if isinstance(op, cann.PadV2DOp):
            params = {"mode": attr_of(0), "value": FloatAttr(float(op.constant_values.value.data), f64)}
        else:
            params = {"mode": attr_of(1 if op.mode.data == "REFLECT" else 2)}
        params.update(pads=attr_of(ints(op.paddings)), shape=attr_of(ys))
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o_,):
            with body.loop(o_, f["elemsPerCore"], tile, rows) as ti:
                v = body.add(kernel.LoadOp(
                    operands=[body.args[0], [ti]], result_types=[kernel.memref([tile, length], et, "UB")],
                    properties={"view": kernel.LoadViewAttr.of(kernel.LoadView.padded_rows),
                                "params": DictionaryAttr(params)}))
                body.store(v, body.args[-1], [ti], "rows")
        new = kernel_op(kernel.VectorKernelOp, kind, [op.x], yt, body.region(), t.block_dim, f,
                        t.buffers, op)
        rewriter.replace(op, new)


def nz_batch_view(xt, yt) -> bool:
    """Both FRACTAL_NZ with the same (K1, M1, 16, C0) and origin (M, K): only the batch dims
    are regrouped (e.g. [1, M, K] <-> [M, K]), the same bytes (passes/assign_layouts.py
    LayoutReshapeNZ makes these)."""
    fx, fy = cann.format_of(xt), cann.format_of(yt)
    return (fx is not None and fy is not None and fx.fmt == fy.fmt == Format.FRACTAL_NZ
            and tuple(xt.get_shape())[-4:] == tuple(yt.get_shape())[-4:]
            and fx.origin[-2:] == fy.origin[-2:])


class ReshapeToView(ChipPattern):
    """Reshape (Squeeze, ExpandDims) of a row-major tensor -> kernel.view: no kernel.  Also a
    reshape of FRACTAL_NZ that only regroups the batch dims (nz_batch_view)."""

    applies_to = roots(cann.ReshapeOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReshapeOp):
            return
        if self.fails_on_dynamic_dims(op, op.x.type, op.y.type):
            return
        if not (row_major(op.x.type) and row_major(op.y.type)) \
                and not nz_batch_view(op.x.type, op.y.type):
            self.fail(op, f"{op.name}: a reshape of a tensor stored as {stored_as(op.x.type)} is "
                          "not a view (padding breaks row-major order) and has no kernel lowering")
            return
        rewriter.replace(op, with_loc(kernel.ViewOp(operands=[op.x], result_types=[op.y.type]), op))
