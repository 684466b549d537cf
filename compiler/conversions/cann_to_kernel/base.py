"""What every cann -> kernel lowering shares: the pattern base that collects diagnostics,
the kernel-body builder (`Body`: GM arguments, cores / for regions, load / mmad / fixpipe / vec /
store) and small shape and layout helpers."""


from __future__ import annotations

from contextlib import contextmanager

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    RewritePattern,
)

from compiler.ir.build import create_op
from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, shape_of
from compiler.target.chips import ChipProfile
from compiler.target.formats import Format, ceil_div
from dialects import cann, kernel
from dialects.common import dict_attr, i64_attr, int_array, numpy_dtype, string_attr

_INDEX = IndexType()

_BUFFERS: dict[tuple[str, int, str], kernel.BufferAttr] = {}


def _buffer_attr(space: str, size: int, role: str) -> kernel.BufferAttr:
    # immutable: one per distinct buffer (the printer's memo then prints each once)
    key = (str(space), int(size), str(role))
    got = _BUFFERS.get(key)
    if got is None:
        got = _BUFFERS[key] = kernel.BufferAttr(*key)
    return got


#: (tiling fields, buffers) -> their TilingAttr and ArrayAttr of BufferAttr (immutable; the
#: kernels of one op kind and shape share a memoized tiling)
_PLAN_ATTRS: dict[tuple, tuple[kernel.TilingAttr, ArrayAttr]] = {}


def kernel_props(block_dim: int, fields: dict[str, int], buffers) -> dict:
    key = (tuple((k, int(v)) for k, v in fields.items()),
           tuple((str(b.space), int(b.size), str(b.role)) for b in buffers))
    got = _PLAN_ATTRS.get(key)
    if got is None:
        got = (kernel.TilingAttr(dict(key[0])),
               ArrayAttr([_buffer_attr(*b) for b in key[1]]))
        if len(_PLAN_ATTRS) < 65536:
            _PLAN_ATTRS[key] = got
    return {"block_dim": i64_attr(block_dim), "tiling": got[0], "buffers": got[1]}


class ChipPattern(RewritePattern):
    """A lowering on a chip.  A pattern whose match starts with a test of the op's class says it
    in `applies_to` too (compiler/ir/rewriting.py `roots`): the walker then tries it only on those
    classes, and puts no op on its worklist that no pattern applies to."""

    def __init__(self, chip: ChipProfile, failures: list[tuple[Operation, str]], impl=None):
        from compiler.conversions.cann_to_kernel.implmode import ImplMode

        self.chip, self.failures = chip, failures
        self.impl = impl or ImplMode()
        """Which implementation an op with two takes (--op_select_implmode)."""

    def fail(self, op: Operation, msg: str) -> None:
        if all(f is not op for f, _ in self.failures):
            self.failures.append((op, msg))

    def fails_on_dynamic_dims(self, op: Operation, *types) -> bool:
        """True, after a diagnostic at the op, when one of `types` has a dynamic dimension (the
        tiling needs static shapes)."""
        msg = dynamic_dims_error(op, *types)
        if msg:
            self.fail(op, msg)
        return msg is not None

    def cube_formats_or_fail(self, op, filter_format: Format, x_what: str = "NC1HWC0"):
        """(x's, filter's) storage formats of a conv-like op whose x is NC1HWC0 and filter
        `filter_format`, with a format on y and static shapes; else None after a diagnostic at
        the op (the layouts come from assign-layouts).  A small-C_in conv's x NC1HWC0_C04 and
        filter FRACTAL_Z_C04 (compiler/target/c04.py) are accepted as well."""
        xf, wf = cann.format_of(op.x.type), cann.format_of(op.filter.type)
        if xf is not None and wf is not None and (xf.fmt, wf.fmt) == \
                (Format.NC1HWC0_C04, Format.FRACTAL_Z_C04):
            filter_format, xfmt = Format.FRACTAL_Z_C04, Format.NC1HWC0_C04
        else:
            xfmt = Format.NC1HWC0
        if xf is None or xf.fmt != xfmt or wf is None or wf.fmt != filter_format \
                or cann.format_of(op.y.type) is None:
            self.fail(op, f"{op.name}: x must be {x_what} and the filter {filter_format}; "
                          "run assign-layouts before cann-to-kernel")
            return None
        if self.fails_on_dynamic_dims(op, op.x.type, op.y.type):
            return None
        return xf, wf

    def vector_tiling_or_fail(self, op: Operation, kind: str, units: int, n_buffers: int,
                              unit_bytes: int, unit_elems: int = 1, note: str = ""):
        """compiler.target.tiling.vector_tiling on this pattern's chip, or None after a diagnostic at
        the op (the tiling error, then `note`)."""
        from compiler.target.tiling import TilingError, vector_tiling

        try:
            return vector_tiling(kind, units, n_buffers, unit_bytes, self.chip, unit_elems)
        except TilingError as e:
            self.fail(op, f"{e}{note}")
            return None

    def static_row_major(self, op: Operation, xt, yt, kind: str) -> bool:
        """Static shapes and row-major (unformatted) x and y, else a diagnostic at the op."""
        if self.fails_on_dynamic_dims(op, xt, yt):
            return False
        if not (row_major(xt) and row_major(yt)):
            self.fail(op, f"{op.name}: x stored as {stored_as(xt)} has no {kind} kernel "
                          "(needs row-major data)")
            return False
        return True

    def static_row_major_values(self, op: Operation, values) -> bool:
        """Static shapes and row-major storage for every value (a multi-operand kernel such as
        attention), else a diagnostic at the op."""
        if self.fails_on_dynamic_dims(op, *(v.type for v in values)):
            return False
        bad = [v for v in values if not row_major(v.type)]
        if bad:
            self.fail(op, f"{op.name}: runs on row-major tensors, but a value is stored as "
                          f"{stored_as(bad[0].type)}")
            return False
        return True


def attr_of(v):
    if isinstance(v, bool):
        return i64_attr(int(v))
    if isinstance(v, int):
        return i64_attr(v)
    return int_array(list(v))


#: a load's / store's params (name -> int or ints, in order) -> their DictionaryAttr: the
#: attributes are immutable and the params of a body's ~10^4 loads and stores repeat
_PARAMS: dict[tuple, DictionaryAttr] = {}


def params_attr(params: dict) -> DictionaryAttr:
    """dict_attr of each param's attr_of, one per distinct params (ints, or sequences of ints)."""
    try:
        key = tuple((k, v if type(v) is int or type(v) is bool else tuple(v))
                    for k, v in params.items())
    except TypeError:  # a value attr_of does not take either: let it raise its own error
        return dict_attr({k: attr_of(v) for k, v in params.items()})
    got = _PARAMS.get(key)
    if got is None:
        got = dict_attr({k: attr_of(v) for k, v in params.items()})
        if len(_PARAMS) < 65536 and all(type(v) is not tuple or all(type(x) is int for x in v)
                                        for _, v in key):
            _PARAMS[key] = got
    return got


class Body:
    """Builds a kernel body: GM block arguments, then nested cores / for regions.

    Each op is made by compiler/ir/build.py's `create_op` (Operation.create's op, as `build`
    makes it): every Body op has at most one variadic operand group and no segment sizes, so its
    operands are the flat list.  A cores / for op joins its parent block when its own block is
    complete (the ops added to the inner block then check a short parent chain; the order is the
    same)."""

    def __init__(self, types):
        self.block = Block(arg_types=[kernel.memref(t.get_shape(), t.element_type, "GM")
                                      for t in types])
        self.args = list(self.block.args)
        self.cur = self.block

    def add(self, op):
        self.cur.add_op(op)
        return op.results[0] if op.results else op

    def _new(self, cls, operands, result_types, properties):
        op = create_op(cls, operands, result_types, properties)
        self.cur.add_op(op)
        return op

    def index(self, v: int) -> SSAValue:
        return self._new(kernel.IndexOp, (), (_INDEX,), {"value": i64_attr(v)}).results[0]

    def fmap_base(self, m: SSAValue, params: dict) -> SSAValue:
        """The first pixel of the window of x's rows output pixel m reads (kernel.fmap_base)."""
        p = {k: params[k] for k in ("in_hw", "out_hw", "strides", "pads")}
        return self._new(kernel.FmapBaseOp, (m,), (_INDEX,), {"params": params_attr(p)}).results[0]

    def mul_index(self, v: SSAValue, by: int) -> SSAValue:
        """v * by (kernel.mul_index): an offset from a core's grid index."""
        return self._new(kernel.MulIndexOp, (v,), (_INDEX,), {"by": i64_attr(by)}).results[0]

    @contextmanager
    def cores(self, grid, tile):
        blk = Block(arg_types=[_INDEX] * len(grid))
        outer, self.cur = self.cur, blk
        yield list(blk.args)
        blk.add_op(create_op(kernel.YieldOp))
        self.cur = outer
        self._new(kernel.CoresOp, (), (), {"grid": int_array(grid), "tile": int_array(tile)}) \
            .add_region(Region(blk))

    @contextmanager
    def loop(self, base: SSAValue, extent: int, step: int, limit: int):
        blk = Block(arg_types=[_INDEX])
        outer, self.cur = self.cur, blk
        yield blk.args[0]
        blk.add_op(create_op(kernel.YieldOp))
        self.cur = outer
        self._new(kernel.ForOp, (base,), (), {"extent": attr_of(extent), "step": attr_of(step),
                                              "limit": attr_of(limit)}).add_region(Region(blk))

    def alloc(self, shape, et, space):
        return self._new(kernel.AllocOp, (), (kernel.memref(shape, et, space),), {}).results[0]

    def load(self, src, idx, view, tile_shape, et, space, **params):
        return self._new(kernel.LoadOp, (src, *idx), (kernel.memref(tile_shape, et, space),),
                         {"view": kernel.LoadViewAttr.of(view),
                          "params": params_attr(params)}).results[0]

    def mmad(self, c, a, b):
        self._new(kernel.MmadOp, (c, a, b), (), {})

    def fixpipe(self, c, shape):
        return self._new(kernel.FixpipeOp, (c,), (kernel.memref(shape, f32, "UB"),), {}).results[0]

    def join(self, parts):
        """One local buffer of the tiles `parts` one after another along their outermost axis
        (kernel.join: each part's load wrote it at its offset; no data move)."""
        t = parts[0].type
        shape = [sum(shape_of(p)[0] for p in parts), *shape_of(parts[0])[1:]]
        rt = kernel.memref(shape, elem_of(parts[0]), kernel.space_of(t))
        return self._new(kernel.JoinOp, tuple(parts), (rt,), {}).results[0]

    def vec(self, fn, inputs, shape, et, attrs=None):
        return self._new(kernel.VecOp, tuple(inputs), (kernel.memref(shape, et, "UB"),),
                         {"fn": string_attr(fn), "attrs": dict_attr(attrs or {})}).results[0]

    def store(self, v, dst, idx, view, **params):
        self._new(kernel.StoreOp, (v, dst, *idx), (),
                  {"view": kernel.StoreViewAttr.of(view), "params": params_attr(params)})

    def region(self) -> Region:
        self.block.add_op(create_op(kernel.YieldOp))
        return Region(self.block)


def gemm_body(types, t, *, batch: int, m: int, n: int, k: int, et, a_load, b_load, store,
              bias_load=None, epilogue=(), residual=None, a_scale=None,
              a_prologue=None, rows_prologue=None, fmap_parts=None, x_shape=None) -> Region:
    """The cube body shared by conv, depthwise and (batch) matmul: cores x base-block loops over
    mmad on fractal tiles, fixpipe to UB, the epilogue there, store to GM.

    a_load / b_load / bias_load / store: (view, params) of the GM operands (args 0, 1, 2 / last).
    a_scale: (arg index, view, params): each A tile goes GM -> UB, is multiplied there by that
    operand's tile (the squeeze-excite gate) and moves UB -> L1.
    a_prologue: fn(body, g, mi, ki, bm, bk) -> the A tile computed in UB (a fused pointwise
    prologue, compiler/conversions/cann_to_kernel/cube.py), moved UB -> L1.
    A tiling with fmapRows (an img2col a_load, compiler/target/tiling.py): per M block, the
    rows of x it reads go GM -> L1 once (view fmap) and each A tile is expanded from them on the
    way to L0A (view load3d: Ascend C's Load3D, compiler/target/conv_geometry.py).
    rows_prologue: with fmapRows, fn(body, g, mi, window shape, window params) -> the window
    computed in UB (a fused prologue on x's rows, once per M block, before any N block),
    moved UB -> L1 for Load3D, whose conv pads are zeros inserted after the prologue.
    fmap_parts: with fmapRows, [(arg index, C1 planes, params, emit)] per source of a channel
    concat staged into the window (compiler/transforms/fusion/concat_stage.py): each source's
    rows go GM -> L1 into its planes of the window (view fmap with its own params), or, with
    emit (fn(body, x, g, mi, shape, et, params) -> its L1 tiles: a bilinear resize), are
    computed in UB and moved UB -> L1; the planes one after another (kernel.join).
    x_shape: x's NC1HWC0 storage shape when x is no operand (a window computed from another
    conv's inputs: compiler/conversions/cann_to_kernel/conv_stage.py), else types[0]'s.
    epilogue: (fn, attrs) steps on the fp32 output tile; ("region", Epilogue) runs a fused
    kernel's body there (compiler/conversions/cann_to_kernel/fused.py), ("rows", RowStep) a
    row op on whole rows (compiler/conversions/cann_to_kernel/row_epilogue.py)."""
    f = t.fields
    body = Body(types)
    x_a, x_b, y = body.args[0], body.args[1], body.args[-1]
    bm, bn, bk = f["baseM"], f["baseN"], f["baseK"]
    in_bytes = numpy_dtype(et).itemsize
    k0 = 32 // in_bytes  # one fractal is 32 bytes along K (L0 C0: 16 fp16, 8 fp32, 32 int8)
    m_dim, n_dim = ceil_div(m, f["singleCoreM"]), ceil_div(n, f["singleCoreN"])
    sb = f.get("singleCoreBatch", 1)
    b_dim = ceil_div(batch, sb)
    with body.cores([b_dim, m_dim, n_dim], [sb, f["singleCoreM"], f["singleCoreN"]]) as (g0, m0, n0):
        with body.loop(g0, sb, 1, batch) as g:
            bp = None
            if f.get("weightReads") == 1:  # the core's one [K, baseN] B panel, L1-resident
                bp = body.load(x_b, [g, body.index(0), n0], b_load[0],
                               [ceil_div(k, bk) * bk, bn], et, "L1", **b_load[1])
            with body.loop(m0, f["singleCoreM"], bm, m) as mi:
                fm, win = None, {}
                if "fmapRows" in f:  # x's rows this M block reads, GM -> L1 once (Load3D)
                    _, c1x, hx, wx, c0x = x_shape or types[0].get_shape()
                    hx, wx = a_load[1].get("in_hw", [hx, wx])  # x staged resampled: its H, W
                    if fmap_parts is not None:
                        c1x = sum(p[1] for p in fmap_parts)
                    win = dict(a_load[1], in_hw=[hx, wx])
                    rows = f.get("fmapPlaneRows", f["fmapRows"])  # per depth tap: kd slots
                    wshape = [c1x * (f["fmapRows"] // rows), rows, wx, c0x]
                    if rows_prologue is not None:
                        fu = rows_prologue(body, g, mi, wshape, win)
                        fm = body.load(fu, [], "copy", wshape, et, "L1")
                    elif fmap_parts is not None:  # C1 planes from each source of a concat
                        parts = []
                        for i, c1p, pp, emit in fmap_parts:
                            pshape = [c1p, *wshape[1:]]
                            if emit is None:  # GM -> L1
                                parts.append(body.load(body.args[i], [g, mi], "fmap", pshape, et,
                                                       "L1", **dict(win, **pp)))
                            else:  # computed in UB, moved UB -> L1 (its L1 tiles)
                                parts += emit(body, body.args[i], g, mi, pshape, et,
                                              dict(win, **pp))
                        fm = body.join(parts)
                    else:
                        fm = body.load(x_a, [g, mi], "fmap", wshape, et, "L1", **win)
                with body.loop(n0, f["singleCoreN"], bn, n) as ni:
                    c = body.alloc([bn // 16, bm // 16, 16, 16], f32, "L0C")
                    zero = body.index(0)
                    with body.loop(zero, k, bk, k) as ki:
                        if fm is not None:  # img2col on the L1 -> L0A path
                            a0 = body.load(fm, [g, mi, ki], "load3d",
                                           [bm // 16, bk // k0, 16, k0], et, "L0A", **win)
                        elif a_prologue is not None:
                            au = a_prologue(body, g, mi, ki, bm, bk)
                            a1 = body.load(au, [], "copy", [bm, bk], et, "L1")
                        elif a_scale is None:
                            a1 = body.load(x_a, [g, mi, ki], a_load[0], [bm, bk], et, "L1", **a_load[1])
                        else:
                            au = body.load(x_a, [g, mi, ki], a_load[0], [bm, bk], et, "UB", **a_load[1])
                            su = body.load(body.args[a_scale[0]], [g, mi, ki], a_scale[1], [bm, bk],
                                           et, "UB", **a_scale[2])
                            au = body.vec("Mul", [au, su], [bm, bk], et)
                            a1 = body.load(au, [], "copy", [bm, bk], et, "L1")
                        if fm is None:
                            a0 = body.load(a1, [], "Zz", [bm // 16, bk // k0, 16, k0], et, "L0A")
                        if bp is not None:  # K block ki of the resident panel
                            b0 = body.load(bp, [ki], "Zn", [bk // k0, bn // 16, 16, k0], et, "L0B")
                        else:
                            b1 = body.load(x_b, [g, ki, ni],
                                           b_load[0], [bk, bn], et, "L1", **b_load[1])
                            b0 = body.load(b1, [], "Zn", [bk // k0, bn // 16, 16, k0], et, "L0B")
                        body.mmad(c, a0, b0)
                    u = body.fixpipe(c, [bm, bn])
                    if bias_load is not None:
                        bb = body.load(body.args[2], [g, ni], bias_load[0], [1, bn], f32, "UB",
                                       **bias_load[1])
                        u = body.vec("Add", [u, bb], [bm, bn], f32)
                    for fn, attrs in epilogue:
                        if fn == "residual":  # + residual tile (GM -> UB), TbeConv2DEltwise style
                            idx_r, view_r, params_r = residual
                            r = body.load(body.args[idx_r], [g, mi, ni], view_r, [bm, bn], et, "UB",
                                          **params_r)
                            u = body.vec("Add", [u, r], [bm, bn], f32)
                        elif fn == "muls":  # a scalar factor (attention's scale)
                            u = body.vec("Muls", [u], [bm, bn], f32, attrs)
                        elif fn == "region":  # a cann.FusedKernel: compiler/conversions/cann_to_kernel/fused.py
                            from compiler.conversions.cann_to_kernel.fused import emit_epilogue

                            u = emit_epilogue(body, attrs, u, g, mi, ni, bm, bn)
                        elif fn == "rows":  # a row op on whole rows (row_epilogue.py RowStep)
                            u = attrs.emit(body, u, g, mi, ni, bm, bn)
                        elif fn != "none":
                            u = body.vec(f"act:{fn}", [u], [bm, bn], f32, attrs)
                    body.store(u, y, [g, mi, ni], store[0], **store[1])
    return body.region()


def kernel_op(cls, kind: str, operands, result_type, region, block_dim, fields, buffers, loc_op,
              extra_types=()):
    """A body kernel (kernel.cube / vec_kernel); `extra_types`: its extra results (stored
    intermediates, multi-output fusion), the region's last arguments."""
    op = cls(operands=[list(operands)], result_types=[result_type, list(extra_types)],
             properties={"kind": StringAttr(kind), **kernel_props(block_dim, fields, buffers)},
             regions=[region])
    return with_loc(op, loc_op)


def dynamic_dims_error(op: Operation, *types) -> str | None:
    for t in types:
        if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
            return (f"{op.name}: dynamic dimension in {t} is not supported at the kernel level "
                    "(the tiling needs static shapes)")
    return None


def align(v: int, a: int) -> int:
    return ceil_div(v, a) * a


def num_elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def bias_layout(t) -> int:
    f = cann.format_of(t)
    if f is not None and f.fmt == Format.NC1HWC0:
        return 1
    if f is not None and f.fmt == Format.FRACTAL_NZ:
        return 3
    return 0


def row_major(t) -> bool:
    """A row-major tensor: no storage format, or one equal to its origin."""
    f = cann.format_of(t)
    return f is None or f.origin_fmt is None or f.fmt == f.origin_fmt


def stored_as(t) -> str:
    f = cann.format_of(t)
    return f.fmt.value if f is not None else "ND"


def prod(xs) -> int:
    n = 1
    for d in xs:
        n *= d
    return n
