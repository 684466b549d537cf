"""cann.FusedKernel -> one kernel whose tile body is the fused region's ops as kernel.vec ops.

`emit_region` is shared by the two places a fused body runs:
  * FusedKernelToVectorBody: a vector kernel of its own, UB tiles of the result's flat storage
    data; each input loaded at the tile's index (flat when stored like the result or a scalar
    or both row-major; per channel when a [C] / [1, .., 1, C] vector against a stored result);
  * a cube kernel's epilogue (compiler/conversions/cann_to_kernel/cube.py): the fused kernel whose input #0 is a
    cube op's single-use result runs on the [baseM, baseN] tile after fixpipe, before the store;
    its other inputs are loaded at the output tile's index (same shape: the store's view; a
    channel vector: the bias view).
  * a conv kernel's prologue (compiler/conversions/cann_to_kernel/cube.py): a FusedKernel marked `prologue` by
    the automatic fusion runs on the window of x's rows that an M block reads, in UB before L1
    where the conv's A comes by Load3D (emit_rows_prologue: each element once per M block, the
    conv pads inserted by Load3D after it); else on each img2col A tile in UB before L1 (its
    x-shaped inputs loaded with view img2col, channel vectors with img2col_channel), then
    selected by the img2col_valid mask so that conv pads and channel padding lanes stay zero;
  * a pool marked `prologue` runs on the A tiles the same way (emit_pool_prologue): the max
    (mean) of one img2col tile of the pool's input per window offset.
Each body op becomes kernel.vec `tile_fn(op)` (compiler/transforms/fusion/auto.py) with the op's
properties as attributes; a scalar constant a `Duplicate` of its value over the tile.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    kernel_op,
    num_elems,
    row_major,
    stored_as,
)
from compiler.ir.rewriting import roots
from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format
from compiler.target.tiling import TilingError, vector_tiling
from dialects import cann, kernel
from dialects.common import numpy_dtype, numpy_from_dense

_ZERO = FloatAttr(0.0, f32)  # the Duplicate of a select's zero tile (immutable: one)


def emit_region(body: Body, fk: cann.FusedKernelOp, shape: list[int],
                load_input: Callable[[int], SSAValue], et_of: Callable[[object], object],
                given: dict[int, SSAValue] | None = None) -> SSAValue:
    """The fused body on one tile of `shape`: returns the tile of the yielded result.  Inputs
    are loaded by `load_input(i)` when first used (given[i]: already in UB); et_of(element
    type) is the type a tile of that element type computes in."""
    return emit_region_all(body, fk, shape, load_input, et_of, given)[0]


def emit_region_all(body: Body, fk: cann.FusedKernelOp, shape: list[int],
                    load_input: Callable[[int], SSAValue], et_of: Callable[[object], object],
                    given: dict[int, SSAValue] | None = None) -> list[SSAValue]:
    """emit_region, returning the tiles of every yielded value: the result, then the extra
    results (multi-output fusion)."""
    from compiler.transforms.fusion.auto import tile_fn

    block = fk.body.block
    vals: dict[SSAValue, SSAValue] = {}
    arg_index: dict[SSAValue, int] = {a: i for i, a in enumerate(block.args)}
    for i, v in (given or {}).items():
        vals[block.args[i]] = v

    def tile_of(v: SSAValue) -> SSAValue:
        if v not in vals:
            vals[v] = load_input(arg_index[v])
        return vals[v]

    for op in block.ops:
        if isinstance(op, cann.YieldOp):
            return [tile_of(v) for v in op.values]
        et = et_of(op.results[0].type.element_type)
        if isinstance(op, cann.ConstOp):
            c = numpy_from_dense(op.value).reshape(-1)[0]
            attr = (FloatAttr(float(c), f32) if numpy_dtype(op.output.type.element_type).kind == "f"
                    else IntegerAttr(int(c), op.output.type.element_type))
            vals[op.output] = body.vec("Duplicate", [], shape, et, {"value": attr})
            continue
        fn = tile_fn(op)
        attrs = {k: v for k, v in op.properties.items() if k != "data_format"}
        vals[op.results[0]] = body.vec(fn, [tile_of(v) for v in op.operands], shape, et, attrs)
    raise AssertionError("a verified cann.FusedKernel ends in cann.Yield")


def channel_layout(t) -> int | None:
    """The `channel_flat` layout of a stored result (1 NC1HWC0, 3 FRACTAL_NZ), None otherwise."""
    f = cann.format_of(t)
    if f is None or f.origin_fmt is None or f.fmt == f.origin_fmt:
        return None
    return {Format.NC1HWC0: 1, Format.FRACTAL_NZ: 3}.get(f.fmt)


def channel_count(t) -> int:
    """The channel count of a stored result: C of NHWC / NCHW origins, the last axis otherwise."""
    f = cann.format_of(t)
    o = cann.origin_shape(t)
    if f is not None and f.origin_fmt == Format.NCHW:
        return o[1]
    return o[-1]


def is_channel_vector(v_type, y_type) -> bool:
    """A row-major [C] or [1, .., 1, C] value of y's channel count."""
    s = [d for d in cann.origin_shape(v_type)]
    return (row_major(v_type) and len(s) >= 1 and all(d == 1 for d in s[:-1])
            and s[-1] == channel_count(y_type))


def input_view(v_type, y_type) -> tuple[str, dict] | None:
    """How a vector fused kernel loads input tiles of type v_type for a result of y_type."""
    yshape = list(y_type.get_shape())
    same = list(v_type.get_shape()) == yshape and cann.format_of(v_type) == cann.format_of(y_type)
    if same or num_elems(v_type) == 1 or (row_major(v_type) and row_major(y_type)):
        return "flat", dict(shape=yshape)
    layout = channel_layout(y_type)
    if layout is not None and is_channel_vector(v_type, y_type):
        return "channel_flat", dict(shape=yshape, layout=layout)
    return None


class FusedKernelToVectorBody(ChipPattern):
    """cann.FusedKernel -> kernel.vec_kernel (kind "Elementwise": each tile is read and written
    at one index, so the memory plan may run it in place and the interpreter zeroes a stored
    result's padding, where f(0) need not be 0): per core, UB tiles of the flat
    result; the inputs loaded at the tile's index, the body's ops as kernel.vec on the tile.
    The tiling counts the body's live tiles (compiler/transforms/fusion/auto.py live_tiles)."""

    applies_to = roots(cann.FusedKernelOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.FusedKernelOp):
            return
        if prologue_lowerable(op):
            # a prologue runs on its convs' A tiles (compiler/conversions/cann_to_kernel/cube.py): lower them now,
            # before the walker reaches (and lowers) the ops of this body; the last erases it
            from compiler.conversions.cann_to_kernel.cube import ConvToCubeBody
            from compiler.conversions.cann_to_kernel.gather import GatherToVectorBody
            from compiler.conversions.cann_to_kernel.vector import (
                ReduceToVectorBody,
                RowsToVectorBody,
            )
            from compiler.transforms.fusion.auto import escape_host, live_uses, mask_readers

            if mask_readers(op.y):  # attention masks (compiler/conversions/cann_to_kernel/attention.py)
                lower_mask_readers(self, op, rewriter)
                return
            conv = ConvToCubeBody(self.chip, self.failures, self.impl)
            gather = GatherToVectorBody(self.chip, self.failures, self.impl)
            rows = RowsToVectorBody(self.chip, self.failures, self.impl)
            reduce = ReduceToVectorBody(self.chip, self.failures, self.impl)
            host = escape_host(op.y)  # multi-output: only it runs the body, and stores y
            from compiler.conversions.cann_to_kernel.data_movement import StridedSliceToVectorBody

            slicer = StridedSliceToVectorBody(self.chip, self.failures, self.impl)
            for u in [host] if host is not None else list(live_uses(op.y)):
                pattern = gather if isinstance(u, cann.GatherV2DOp) else \
                    slicer if isinstance(u, cann.StridedSliceDOp) else \
                    reduce if isinstance(u, cann.ReduceDOp) else \
                    rows if isinstance(u, (cann.LayerNormOp, cann.AddLayerNormOp)) else conv
                pattern.match_and_rewrite(u, rewriter)
            return
        from compiler.transforms.fusion.auto import live_tiles

        y = op.y.type
        if self.fails_on_dynamic_dims(op, y, *(v.type for v in op.inputs)):
            return
        found = [input_view(v.type, y) for v in op.inputs]
        views = [view for view in found if view is not None]
        for v, view in zip(op.inputs, found):
            if view is None:
                self.fail(op, f"{op.name}: an input stored as {stored_as(v.type)} "
                              f"{list(cann.origin_shape(v.type))} does not broadcast to the result "
                              f"stored as {stored_as(y)} {list(cann.origin_shape(y))} tile by tile")
                return
        eb = max(numpy_dtype(elem_of(v)).itemsize for v in (*op.inputs, op.y))
        elems = num_elems(y)
        try:
            t = vector_tiling("Fused", elems, live_tiles(op.body_ops()) + len(op.extra), eb,
                              self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        tile = f["tileElems"]
        # extra results (multi-output fusion): stored like the result, each from its own tile
        extra = [r.type for r in op.extra]
        body = Body([*(v.type for v in op.inputs), y, *extra])
        outs = body.args[len(op.inputs):]
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                def load(i: int) -> SSAValue:
                    view, params = views[i]
                    return body.load(body.args[i], [ti], view, [tile],
                                     elem_of(op.inputs[i]), "UB", **params)

                for r, out in zip(emit_region_all(body, op, [tile], load, lambda et: et), outs):
                    body.store(r, out, [ti], "flat")
        new = kernel_op(kernel.VectorKernelOp, "Elementwise", op.inputs, y, body.region(),
                        t.block_dim, f, t.buffers, op, extra_types=extra)
        rewriter.replace(op, new)


# --- a fused kernel as a cube kernel's epilogue ------------------------------------------------

class Epilogue:
    """A cann.FusedKernel run on a cube kernel's [baseM, baseN] output tile: input #0 is the
    accumulator; input i >= 1 is kernel argument `first_arg + i - 1`, loaded at the output
    tile's index with the store's view (same shape) or the bias's (a channel vector)."""

    def __init__(self, fk: cann.FusedKernelOp, first_arg: int, tile_view: tuple[str, dict],
                 channel_view: tuple[str, dict]):
        self.fk, self.first_arg = fk, first_arg
        self.tile_view, self.channel_view = tile_view, channel_view

    @staticmethod
    def loadable(fk: cann.FusedKernelOp) -> str | None:
        """Why the inputs past #0 cannot be loaded on the output tile, else None."""
        y = fk.y.type
        for v in list(fk.inputs)[1:]:
            t = v.type
            same = list(shape_of(t)) == list(shape_of(y)) and \
                cann.format_of(t) == cann.format_of(y)
            if not same and not is_channel_vector(t, y):
                return (f"input {list(cann.origin_shape(t))} stored as {stored_as(t)} is neither "
                        f"the output's shape nor a channel vector")
        return None


def _compute_type(et):
    """The epilogue computes floats in fp32 (the fixpipe's output), other types in their own."""
    return f32 if numpy_dtype(et).kind == "f" else et


def emit_epilogue(body: Body, epi: Epilogue, acc: SSAValue, g, mi, ni, bm: int, bn: int):
    y = epi.fk.y.type

    def load(i: int) -> SSAValue:
        v = epi.fk.inputs[i]
        arg = body.args[epi.first_arg + i - 1]
        et = elem_of(v)
        if is_channel_vector(v.type, y) and not (
                list(shape_of(v)) == list(y.get_shape())):
            view, params = epi.channel_view
            return body.load(arg, [g, ni], view, [1, bn], et, "UB", **params)
        view, params = epi.tile_view
        return body.load(arg, [g, mi, ni], view, [bm, bn], et, "UB", **params)

    return emit_region(body, epi.fk, [bm, bn], load, _compute_type, given={0: acc})


def epilogue_consumer(op: Operation) -> cann.FusedKernelOp | None:
    """The FusedKernel that is `op`'s epilogue (compiler/transforms/fusion/auto.py epilogue_host) when the
    cube kernel can load its other inputs, else None (it then runs as a kernel of its own)."""
    from compiler.transforms.fusion.auto import epilogue_host, live_uses

    uses = list(dict.fromkeys(live_uses(op.results[0])))  # one consumer, maybe reading it twice
    if len(uses) != 1 or epilogue_host(uses[0]) is not op:
        return None
    fk = uses[0]
    if not isinstance(fk, cann.FusedKernelOp):  # (epilogue_host found one)
        return None
    return fk if Epilogue.loadable(fk) is None else None


# --- a fused kernel as a conv kernel's prologue ------------------------------------------------

def prologue_loadable(fk: cann.FusedKernelOp) -> str | None:
    """Why the conv kernels reading `fk` cannot load its inputs on their A tiles, else None:
    the result must be NC1HWC0, each input stored like it, a scalar or a row-major channel
    vector.  (Gathers' index tiles and reductions' tiles: their own conditions.)"""
    from compiler.conversions.cann_to_kernel.reduction_prologue import loadable
    from compiler.transforms.fusion.auto import (
        _index_reader,
        _reduction_reader,
        escape_host,
        live_uses,
        mask_readers,
    )

    y = fk.y.type
    if mask_readers(fk.y):  # attention masks: the masked softmax loads row-major rows
        return mask_loadable(fk)
    users = live_uses(fk.y)
    host = escape_host(fk.y)  # one reduction runs it and stores y for the other consumers
    reductions = [host] if host is not None else [u for u in users if _reduction_reader(u, fk.y)]
    if reductions and (why := loadable(fk, reductions)) is not None:  # reductions' tiles
        return why
    if host is not None:
        block = host.parent_block()
        assert block is not None  # (escape_host: the consumers share fk's block)
        for o in block.ops:  # the kernel storing y must run before y's other consumers
            if o is host:
                return None
            if o in users:
                return f"consumer {o.name} runs before {host.name}, which would store the result"
    if users and len(reductions) == len(users):
        return None
    if users and all(_index_reader(u, fk.y) for u in users):  # gathers' index tiles
        for v in (fk.y, *fk.inputs):
            if not row_major(v.type):
                return f"{list(cann.origin_shape(v.type))} is stored as {stored_as(v.type)}, not row-major"
        return None
    yf = cann.format_of(y)
    if yf is None or yf.fmt != Format.NC1HWC0:
        return f"the result is stored as {stored_as(y)}, not NC1HWC0"
    if (why := slice_loadable(fk)) is not None:
        return why
    for v in fk.inputs:
        t = v.type
        same = list(shape_of(t)) == list(shape_of(y)) and cann.format_of(t) == yf
        if not same and not (num_elems(t) == 1 and row_major(t)) and not is_channel_vector(t, y):
            return (f"input {list(cann.origin_shape(t))} stored as {stored_as(t)} is neither the "
                    "conv input's layout, a scalar nor a channel vector")
    return None


def slice_loadable(fk: cann.FusedKernelOp) -> str | None:
    """Why the StridedSlices reading `fk` (NC1HWC0) cannot apply its body to the elements they
    move, else None: each slice keeps C whole (data_movement.nc1hwc0_slice; C0's padding lanes,
    where the body computes f(0), are selected back to 0 by slice_prologue_kernel)."""
    from compiler.conversions.cann_to_kernel.data_movement import nc1hwc0_slice
    from compiler.transforms.fusion.auto import live_uses, slice_reader

    slices = [u for u in live_uses(fk.y) if slice_reader(u, fk.y)]
    for u in slices:
        if nc1hwc0_slice(u) is None:
            return f"{u.name} does not keep C whole on NC1HWC0"
    return None


def mask_loadable(fk: cann.FusedKernelOp) -> str | None:
    """Why the masked softmax kernels of the attention ops reading `fk` as their mask cannot
    load its inputs as rows of the scores, else None: the result, the views to the mask and
    the inputs are row-major."""
    from compiler.transforms.fusion.auto import mask_views

    for v in (fk.y, *fk.inputs, *(r.results[0] for r in mask_views(fk.y) or [])):
        if not row_major(v.type):
            return f"{list(cann.origin_shape(v.type))} is stored as {stored_as(v.type)}, not row-major"
    return None


def lower_mask_readers(pattern: ChipPattern, fk: cann.FusedKernelOp, rewriter: PatternRewriter) -> None:
    """Lower the attention ops reading the mask prologue `fk` (through its views) now, before
    the walker lowers fk's body; then erase the views and fk, which no kernel reads."""
    from compiler.conversions.cann_to_kernel.attention import (
        AttentionToKernels,
        MultiHeadAttentionToKernels,
    )
    from compiler.conversions.cann_to_kernel.cube import erase_unread
    from compiler.transforms.fusion.auto import live_uses, mask_readers, mask_views

    mha = MultiHeadAttentionToKernels(pattern.chip, pattern.failures, pattern.impl)
    att = AttentionToKernels(pattern.chip, pattern.failures, pattern.impl)
    views = mask_views(fk.y) or []
    for u in mask_readers(fk.y):
        (mha if isinstance(u, cann.FusedMultiHeadAttentionOp) else att).match_and_rewrite(u, rewriter)
    for r in views:
        if r.parent is not None and not live_uses(r.results[0]):
            rewriter.erase(r)
    erase_unread(rewriter, fk)


def prologue_lowerable(fk: Operation) -> bool:
    """fk runs as the prologue of every conv reading it (none reads it from GM)."""
    from compiler.transforms.fusion.auto import is_prologue

    return is_prologue(fk) and isinstance(fk, cann.FusedKernelOp) and prologue_loadable(fk) is None


#: body ops whose result is 0 where the operands at these places are 0 (and the others 0 or
#: finite constants: 0 * inf is NaN)
ZERO_PRESERVING = {"Relu": (0,), "Relu6": (0,), "Neg": (0,), "Abs": (0,), "Square": (0,),
                   "Mul": (0, 1)}
#: body ops whose result is 0 where all their operands are 0
ZERO_WHEN_ALL_ZERO = {"Add", "AddV2", "Sub", "Maximum", "Minimum"}


def _finite_const(v: SSAValue) -> bool:
    o = v.owner
    if not isinstance(o, cann.ConstOp):
        return False
    import numpy as np

    return bool(np.isfinite(numpy_from_dense(o.value).astype(np.float64)).all())


def keeps_zero(fk: cann.FusedKernelOp, lanes: bool = False) -> bool:
    """fk's result is 0 where its x-shaped inputs are 0 (a conv pad: its channel vectors and
    scalars as they are there, so they must be finite constants), or with `lanes` where its
    x-shaped inputs and its channel vectors are 0 (a channel padding lane or past K: the
    img2col_channel / fmap_channel views give 0 past C; scalars are finite constants): each op
    on the way is one of ZERO_PRESERVING with a zero operand and the others zero or finite, or
    of ZERO_WHEN_ALL_ZERO with zero operands.  relu(x), x * s keep the pads 0; bn(0) = shift does
    not, but it keeps the lanes 0 (0 * 0 + 0).  Where it holds, no mask is needed there."""
    from compiler.transforms.fusion.auto import tile_fn

    block = fk.body.block
    y = fk.y.type
    zero: set[SSAValue] = set()
    finite: set[SSAValue] = set()
    for arg, v in zip(block.args, fk.inputs):
        x_shaped = list(shape_of(v)) == list(y.get_shape()) and \
            cann.format_of(v.type) == cann.format_of(y)
        if x_shaped or (lanes and num_elems(v.type) > 1):
            zero.add(arg)
        elif _finite_const(v):
            finite.add(arg)
    for op in block.ops:
        if isinstance(op, cann.YieldOp):
            return all(v in zero for v in op.values)
        if isinstance(op, cann.ConstOp):
            if _finite_const(op.output):
                finite.add(op.output)
            continue
        fn = tile_fn(op) or ""
        ops = list(op.operands)
        places = ZERO_PRESERVING.get(fn)
        if places is not None and any(ops[i] in zero for i in places if i < len(ops)) and \
                all(v in zero or v in finite for v in ops):
            zero.add(op.results[0])
        elif fn in ZERO_WHEN_ALL_ZERO and all(v in zero for v in ops):
            zero.add(op.results[0])
    return False


def a_tile_needs_mask(fk: cann.FusedKernelOp, a_params: dict, c0: int, bk: int) -> bool:
    """Whether fk's body on an img2col A tile must be selected back to 0 outside x: a conv pad
    or a lane past a group's channels (where the channel vectors read the next group's values)
    unless keeps_zero, a channel padding lane (cin % C0) or an element past K unless keeps_zero
    on lanes: A reads 0 of x there and would hold f(0)."""
    pads = any(p != 0 for p in a_params["pads"]) or a_params["cin_group"] != a_params["cin"]
    lanes = a_params["cin"] % c0 != 0 or a_params["K"] % bk != 0
    return (pads and not keeps_zero(fk)) or (lanes and not keeps_zero(fk, lanes=True))


def emit_prologue(body: Body, fk: cann.FusedKernelOp, arg_of: list[int], a_params: dict,
                  c0: int, et, g, mi, ki, bm: int, bk: int) -> SSAValue:
    """fk's body on the [bm, bk] img2col A tile (input i is kernel argument arg_of[i]), masked
    by img2col_valid where a_tile_needs_mask: a conv pad or a channel padding lane is 0 in A,
    whatever f(0) is.  (Rows past M need none: their output rows are never stored.)"""
    y = fk.y.type
    first = None

    def load(i: int) -> SSAValue:
        nonlocal first
        v = fk.inputs[i]
        arg = body.args[arg_of[i]]
        if list(shape_of(v)) == list(y.get_shape()) and \
                cann.format_of(v.type) == cann.format_of(y):
            first = arg if first is None else first
            return body.load(arg, [g, mi, ki], "img2col", [bm, bk], elem_of(v), "UB",
                             **a_params)
        return body.load(arg, [g, mi, ki], "img2col_channel", [bm, bk], elem_of(v),
                         "UB", **a_params, c0=c0)

    r = emit_region(body, fk, [bm, bk], load, lambda t: t)
    if not a_tile_needs_mask(fk, a_params, c0, bk):
        return r
    if first is None:  # the x-shaped input the body did not read first: any one gives the mask
        i = next(i for i, v in enumerate(fk.inputs) if list(shape_of(v)) ==
                 list(y.get_shape()))
        first = body.args[arg_of[i]]
    mask = body.load(first, [g, mi, ki], "img2col_valid", [bm, bk], et, "UB", **a_params)
    # a select, not a multiply: f(0) may be inf or NaN on a padding lane (rsqrt of a zero
    # variance), and NaN * 0 is NaN
    zero = body.vec("Duplicate", [], [bm, bk], et, {"value": _ZERO})
    return body.vec("SelectV2", [mask, r, zero], [bm, bk], et)


def emit_rows_prologue(body: Body, fk: cann.FusedKernelOp, arg_of: list[int], win: dict,
                       cin: int, et, g, mi, shape: list[int]) -> SSAValue:
    """fk's body on the window of x's rows (C1, rows, W, C0) that M block mi reads (view fmap,
    GM -> UB; channel vectors by fmap_channel): each element of x once per M block, for the
    conv's Load3D (compiler/conversions/cann_to_kernel/base.py gemm_body rows_prologue).  No pad
    mask: Load3D inserts the conv's zero pads as it expands the rows, after the body.  Only the
    channel padding lanes (cin not a multiple of C0), where the body computes f(0), are selected
    back to 0 by fmap_valid unless it keeps them 0 (keeps_zero on lanes): Load3D moves whole C0
    blocks, and f(0) may be inf or NaN."""
    y = fk.y.type

    def load(i: int) -> SSAValue:
        v = fk.inputs[i]
        arg = body.args[arg_of[i]]
        if list(shape_of(v)) == list(y.get_shape()) and \
                cann.format_of(v.type) == cann.format_of(y):
            return body.load(arg, [g, mi], "fmap", shape, elem_of(v), "UB", **win)
        return body.load(arg, [g, mi], "fmap_channel", shape, elem_of(v), "UB")

    r = emit_region(body, fk, shape, load, lambda t: t)
    if cin % shape[-1] == 0 or keeps_zero(fk, lanes=True):
        return r
    mask = body.load(body.args[0], [g, mi], "fmap_valid", shape, et, "UB", cin=cin)
    zero = body.vec("Duplicate", [], shape, et, {"value": _ZERO})
    return body.vec("SelectV2", [mask, r, zero], shape, et)


def rows_prologue_tiles(fk: cann.FusedKernelOp, cin: int, c0: int) -> int:
    """Window-sized UB tiles emit_rows_prologue keeps live: the body's, and the channel mask and
    its zeros when there are padding lanes."""
    from compiler.transforms.fusion.auto import live_tiles

    return live_tiles(fk.body_ops()) + (2 if cin % c0 and not keeps_zero(fk, lanes=True) else 0)


def pool_prologue_lowerable(p: Operation) -> bool:
    """The pool `p` runs on the A tiles of every conv reading it (compiler/transforms/fusion/auto.py
    pool_prologue_problem), its input and result NC1HWC0 (the same C1 blocks)."""
    from compiler.transforms.fusion.auto import is_prologue

    if not isinstance(p, (cann.MaxPoolOp, cann.AvgPoolOp)) or not is_prologue(p):
        return False
    xf, yf = cann.format_of(p.x.type), cann.format_of(p.y.type)
    return (xf is not None and yf is not None and xf.fmt == yf.fmt == Format.NC1HWC0
            and shape_of(p.x)[1] == shape_of(p.y)[1])


def emit_pool_prologue(body: Body, p: cann.MaxPoolOp | cann.AvgPoolOp, a_params: dict, et,
                       g, mi, ki, bm: int, bk: int) -> SSAValue:
    """The conv's [bm, bk] A tile of pool(x), computed from x (kernel argument 0): the conv reads
    pooled row i = ho*sh - pt + ki*dh, which is the max (mean) over the window offsets a of x row
    i*sph - qt + a = ho*(sh*sph) - (pt*sph + qt - a) + ki*(dh*sph) (qt the pool's own top pad):
    one img2col tile of x per offset, the conv's strides and dilations times the pool's, its pads
    times the pool's stride plus the pool's less the offset.  A padded pool (SAME) ignores the
    offsets outside x, as TensorFlow does: each offset's img2col_valid mask of x keeps the
    running max where the offset is outside (the window's offset (qt, ql) never is: pooled row
    i reads x row i*sph < H, so the max starts from it), and a mean divides by the count of
    offsets inside.  The pooled tensor's extent (in_hw) gives the mask that keeps the conv's
    pads 0."""
    (kh, kw), (sph, spw) = p.window()
    qt, _, ql, _ = p.pads()
    padded = p.pads() != (0, 0, 0, 0)
    sh, sw = a_params["strides"]
    dh, dw = a_params["dilations"]
    pt, pb, pl, pr = a_params["pads"]
    is_max = isinstance(p, cann.MaxPoolOp)

    def geo(a: int, b: int) -> dict:
        return dict(a_params, strides=[sh * sph, sw * spw], dilations=[dh * sph, dw * spw],
                    pads=[pt * sph + qt - a, pb * sph - qt + a, pl * spw + ql - b,
                          pr * spw - ql + b])

    offsets = [(qt, ql)] + [(a, b) for a in range(kh) for b in range(kw) if (a, b) != (qt, ql)]
    acc = count = None
    for a, b in offsets:
        t = body.load(body.args[0], [g, mi, ki], "img2col", [bm, bk], et, "UB", **geo(a, b))
        if acc is None:
            acc = t
        elif is_max and padded and (a, b) != (qt, ql):
            inside = body.load(body.args[0], [g, mi, ki], "img2col_valid", [bm, bk], et, "UB",
                               **geo(a, b))
            acc = body.vec("SelectV2", [inside, body.vec("Maximum", [acc, t], [bm, bk], et), acc],
                           [bm, bk], et)
        else:
            acc = body.vec("Maximum" if is_max else "Add", [acc, t], [bm, bk], et)
        if not is_max and padded:  # img2col reads 0 outside x: the sum is right, count the rest
            inside = body.load(body.args[0], [g, mi, ki], "img2col_valid", [bm, bk], et, "UB",
                               **geo(a, b))
            count = inside if count is None else body.vec("Add", [count, inside], [bm, bk], et)
    assert acc is not None
    if count is not None:  # 0 only where the conv's mask below selects 0
        acc = body.vec("RealDiv", [acc, count], [bm, bk], et)
    elif not is_max:
        acc = body.vec("Muls", [acc], [bm, bk], et, {"value": FloatAttr(1.0 / (kh * kw), f32)})
    _, _, hp, wp, _ = p.y.type.get_shape()
    mask = body.load(body.args[0], [g, mi, ki], "img2col_valid", [bm, bk], et, "UB", **a_params,
                     in_hw=[hp, wp])
    zero = body.vec("Duplicate", [], [bm, bk], et, {"value": _ZERO})
    return body.vec("SelectV2", [mask, acc, zero], [bm, bk], et)
