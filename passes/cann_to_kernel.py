"""cann-to-kernel: one tiled kernel per cann op, tiled for a chip profile.

    cann-opt --cann-to-kernel='soc-version=Ascend910A' in.mlir

The chip is the pass option, else the module's `cann.soc_version`, else Ascend910B3; the module
records the chip it was tiled for.  Convolutions become `kernel.cube_conv2d` (implicit GEMM on
NC1HWC0 x FRACTAL_Z: M = N*Ho*Wo, N = Cout, K = C1*kh*kw*C0), elementwise ops `kernel.vector`,
TransData `kernel.transdata`.  Layouts must have been assigned (`assign-layouts`) first.

Vector kernels with explicit bodies also serve SoftmaxV2, LayerNorm and AddLayerNorm (tiles of
whole rows), ReduceMeanD/SumD/MaxD/MinD (NC1HWC0 over H, W -> NC1HWC0 or FRACTAL_NZ; trailing
axes of row-major tensors; the reduced axis in UB chunks with a kernel.accumulate), PadD (rows of
the padded result), TransposeD, ConcatV2D and StridedSliceD (tiles of flattened row-major
data).  Reshape of a row-major tensor is a `kernel.view` (no kernel).
FusedMultiHeadAttention becomes QKV GEMM, scores GEMM, softmax and P@V GEMM kernels exchanging
workspace tensors through GM.  Any op left is a diagnostic naming the op and its TF node.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from compiler.diagnostics import CompileError, OpError
from compiler.formats import Format, c0_for
from compiler.tiling import TilingError, cube_tiling, vector_tiling
from compiler.rewriting import rewrite, with_loc
from dialects import cann, kernel
from dialects.common import int_array, numpy_dtype


def _kernel_props(block_dim: int, fields: dict[str, int], buffers) -> dict:
    return {
        "block_dim": IntegerAttr(block_dim, i64),
        "tiling": kernel.TilingAttr(fields),
        "buffers": ArrayAttr([kernel.BufferAttr(b.space, b.size, b.role) for b in buffers]),
    }


class _ChipPattern(RewritePattern):
    def __init__(self, chip: str, failures: list[tuple[Operation, str]]):
        self.chip, self.failures = chip, failures

    def fail(self, op: Operation, msg: str) -> None:
        if all(f is not op for f, _ in self.failures):
            self.failures.append((op, msg))

    def static_row_major(self, op: Operation, xt, yt, kind: str) -> bool:
        """Static shapes and row-major (unformatted) x and y, else a diagnostic at the op."""
        msg = _static(op, xt, yt)
        if msg:
            self.fail(op, msg)
            return False
        if not (_plain(xt) and _plain(yt)):
            self.fail(op, f"{op.name}: x stored as {_stored_as(xt)} has no {kind} kernel "
                          "(needs row-major data)")
            return False
        return True


class ConvToCube(_ChipPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.ConvLike, rewriter: PatternRewriter):
        xf, wf = cann.format_of(op.x.type), cann.format_of(op.filter.type)
        if xf is None or xf.fmt != Format.NC1HWC0 or wf is None or wf.fmt != Format.FRACTAL_Z:
            self.fail(op, f"{op.name}: x must be NC1HWC0 and the filter FRACTAL_Z; "
                          "run assign-layouts before cann-to-kernel")
            return
        dtype = numpy_dtype(op.x.type.element_type)
        c0 = c0_for(dtype)
        (sh, sw), (dh, dw), pads = op.geometry()
        kh, kw, _, cout = cann.origin_shape(op.filter.type)
        n, c1, _, _, _ = op.x.type.get_shape()
        _, _, ho, wo, _ = op.y.type.get_shape()
        m, k = n * ho * wo, c1 * kh * kw * c0
        try:
            t = cube_tiling("Conv2D", m, cout, k, dtype.itemsize, c0, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        activation = op.activation.data if isinstance(op, cann.FusedConv2DOp) else "none"
        props = {
            "strides": int_array([sh, sw]), "dilations": int_array([dh, dw]),
            "pads": int_array(pads), "kernel_hw": int_array([kh, kw]),
            "activation": StringAttr(activation),
            **_kernel_props(t.block_dim, t.fields, t.buffers),
        }
        new = kernel.CubeConv2DOp(
            operands=[op.x, op.filter, [op.bias] if op.bias is not None else []],
            result_types=[op.y.type], properties=props)
        rewriter.replace(op, with_loc(new, op))


class ElementwiseToVector(_ChipPattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ReluOp, cann.BiasAddOp)):
            return
        fn = op.name.removeprefix("cann.")
        y = op.results[0].type
        elems = 1
        for d in y.get_shape():
            elems *= d
        try:
            t = vector_tiling(fn, elems, len(op.operands) + 1,
                              numpy_dtype(y.element_type).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        new = kernel.VectorOp(operands=[list(op.operands)], result_types=[y],
                              properties={"fn": StringAttr(fn),
                                          **_kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))


class TransDataToKernel(_ChipPattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        st = op.src.type
        elems = 1
        for d in st.get_shape():
            elems *= d
        try:
            t = vector_tiling("TransData", elems, 2, numpy_dtype(st.element_type).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        new = kernel.TransDataOp(operands=[op.src], result_types=[op.dst.type],
                                 properties={"src_format": op.src_format, "dst_format": op.dst_format,
                                             **_kernel_props(t.block_dim, t.fields, t.buffers)})
        rewriter.replace(op, with_loc(new, op))


# === kernels with explicit bodies ============================================================

from contextlib import contextmanager  # noqa: E402

from xdsl.dialects.builtin import DictionaryAttr, IndexType, TensorType, f32  # noqa: E402
from xdsl.ir import Block, Region, SSAValue  # noqa: E402

from compiler.formats import ceil_div, group_enlargement  # noqa: E402


def _attr(v):
    if isinstance(v, bool):
        return IntegerAttr(int(v), i64)
    if isinstance(v, int):
        return IntegerAttr(v, i64)
    return int_array(list(v))


class Body:
    """Builds a kernel body: GM block arguments, then nested cores / for regions."""

    def __init__(self, types):
        self.block = Block(arg_types=[kernel.memref(t.get_shape(), t.element_type, "GM")
                                      for t in types])
        self.args = list(self.block.args)
        self.cur = self.block

    def add(self, op):
        self.cur.add_op(op)
        return op.results[0] if op.results else op

    def index(self, v: int) -> SSAValue:
        return self.add(kernel.IndexOp(properties={"value": IntegerAttr(v, i64)},
                                       result_types=[IndexType()]))

    @contextmanager
    def cores(self, grid, tile):
        blk = Block(arg_types=[IndexType()] * len(grid))
        self.add(kernel.CoresOp(properties={"grid": int_array(grid), "tile": int_array(tile)},
                                regions=[Region(blk)]))
        outer, self.cur = self.cur, blk
        yield list(blk.args)
        blk.add_op(kernel.YieldOp())
        self.cur = outer

    @contextmanager
    def loop(self, base: SSAValue, extent: int, step: int, limit: int):
        blk = Block(arg_types=[IndexType()])
        self.add(kernel.ForOp(operands=[base],
                              properties={"extent": _attr(extent), "step": _attr(step),
                                          "limit": _attr(limit)},
                              regions=[Region(blk)]))
        outer, self.cur = self.cur, blk
        yield blk.args[0]
        blk.add_op(kernel.YieldOp())
        self.cur = outer

    def alloc(self, shape, et, space):
        return self.add(kernel.AllocOp(result_types=[kernel.memref(shape, et, space)]))

    def load(self, src, idx, view, tile_shape, et, space, **params):
        return self.add(kernel.LoadOp(
            operands=[src, list(idx)], result_types=[kernel.memref(tile_shape, et, space)],
            properties={"view": StringAttr(view),
                        "params": DictionaryAttr({k: _attr(v) for k, v in params.items()})}))

    def mmad(self, c, a, b):
        self.add(kernel.MmadOp(operands=[c, a, b]))

    def fixpipe(self, c, shape):
        return self.add(kernel.FixpipeOp(operands=[c], result_types=[kernel.memref(shape, f32, "UB")]))

    def vec(self, fn, inputs, shape, et, attrs=None):
        return self.add(kernel.VecOp(
            operands=[list(inputs)], result_types=[kernel.memref(shape, et, "UB")],
            properties={"fn": StringAttr(fn), "attrs": DictionaryAttr(dict(attrs or {}))}))

    def store(self, v, dst, idx, view, **params):
        self.add(kernel.StoreOp(operands=[v, dst, list(idx)],
                                properties={"view": StringAttr(view),
                                            "params": DictionaryAttr({k: _attr(x) for k, x in params.items()})}))

    def region(self) -> Region:
        self.block.add_op(kernel.YieldOp())
        return Region(self.block)


def gemm_body(types, t, *, batch: int, m: int, n: int, k: int, et, a_load, b_load, store,
              bias_load=None, epilogue=(), residual=None) -> Region:
    """The cube body shared by conv, depthwise and (batch) matmul: cores x base-block loops over
    mmad on fractal tiles, fixpipe to UB, the epilogue there, store to GM.

    a_load / b_load / bias_load / store: (view, params) of the GM operands (args 0, 1, 2 / last)."""
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
            with body.loop(m0, f["singleCoreM"], bm, m) as mi:
                with body.loop(n0, f["singleCoreN"], bn, n) as ni:
                    c = body.alloc([bn // 16, bm // 16, 16, 16], f32, "L0C")
                    zero = body.index(0)
                    with body.loop(zero, k, bk, k) as ki:
                        a1 = body.load(x_a, [g, mi, ki], a_load[0], [bm, bk], et, "L1", **a_load[1])
                        a0 = body.load(a1, [], "Zz", [bm // 16, bk // k0, 16, k0], et, "L0A")
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
                        elif fn != "none":
                            u = body.vec(f"act:{fn}", [u], [bm, bn], f32, attrs)
                    body.store(u, y, [g, mi, ni], store[0], **store[1])
    return body.region()


def _kernel(cls, kind: str, operands, result_type, region, block_dim, fields, buffers, loc_op):
    op = cls(operands=[list(operands)], result_types=[result_type],
             properties={"kind": StringAttr(kind), **_kernel_props(block_dim, fields, buffers)},
             regions=[region])
    return with_loc(op, loc_op)


def _static(op: Operation, *types) -> str | None:
    for t in types:
        if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
            return (f"{op.name}: dynamic dimension in {t} is not supported at the kernel level "
                    "(the tiling needs static shapes)")
    return None


CONV_OPS = (cann.ConvLike, cann.DepthwiseConv2DOp, cann.FusedConv2DAddOp, cann.FusedDepthwiseConv2DOp)
DEPTHWISE_OPS = (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)
MATMUL_OPS = ("cann.MatMulV2", "cann.BatchMatMulV2", "cann.FusedMatMul")


def _epilogue(op) -> list:
    """[(fn, attrs)]: activation, then (FusedConv2DAdd) + residual and its post_activation."""
    out = []
    act = op.properties.get("activation")
    attrs = {"alpha": op.properties["alpha"]} if "alpha" in op.properties else {}
    if act is not None and act.data != "none":
        out.append((act.data, attrs))
    if isinstance(op, cann.FusedConv2DAddOp):
        out.append(("residual", {}))
        post = op.properties.get("post_activation")
        if post is not None and post.data != "none":
            out.append((post.data, attrs))
    return out


class ConvToCubeBody(_ChipPattern):
    """Conv2D / FusedConv2D / DepthwiseConv2D -> kernel.cube: img2col implicit GEMM per
    (enlarged) group: M = N*Ho*Wo, K = c1*kh*kw*C0, N = n1*16 columns of FRACTAL_Z."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, CONV_OPS):
            return
        xf, wf = cann.format_of(op.x.type), cann.format_of(op.filter.type)
        if xf is None or xf.fmt != Format.NC1HWC0 or wf is None or wf.fmt != Format.FRACTAL_Z \
                or cann.format_of(op.y.type) is None:
            self.fail(op, f"{op.name}: x must be NC1HWC0 and the filter FRACTAL_Z; "
                          "run assign-layouts before cann-to-kernel")
            return
        msg = _static(op, op.x.type, op.y.type)
        if msg:
            self.fail(op, msg)
            return
        et = op.x.type.element_type
        dtype = numpy_dtype(et)
        c0 = c0_for(dtype)
        (sh, sw), (dh, dw), pads = op.geometry()
        kh, kw, wc, wn = wf.origin
        n_, c1x, _, _, _ = op.x.type.get_shape()
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
        m = n_ * ho * wo
        kind = "DepthwiseConv2D" if isinstance(op, DEPTHWISE_OPS) else "Conv2D"
        try:
            t = cube_tiling(kind, m, ncols, kk, dtype.itemsize, c0, self.chip, batch)
        except TilingError as e:
            self.fail(op, str(e))
            return
        geo = dict(kernel_hw=[kh, kw], strides=[sh, sw], dilations=[dh, dw], pads=list(pads),
                   out_hw=[ho, wo])
        has_bias = op.bias is not None
        store_p = dict(out_hw=[ho, wo], M=m, N=ncols, offset=col_off, cout=cout)
        epilogue, residual = _epilogue(op), None
        if getattr(op, "residual", None) is not None:
            residual = (list(op.operands).index(op.residual), "nc1hwc0", store_p)
        region = gemm_body(
            [*(v.type for v in op.operands), op.y.type], t, batch=batch, m=m, n=ncols, k=kk, et=et,
            a_load=("img2col", dict(geo, cin_group=cin_group, cin=cin, M=m, K=kk)),
            b_load=("fz", dict(K=kk, N=ncols)),
            bias_load=("channel", dict(offset=col_off, N=ncols)) if has_bias else None,
            epilogue=epilogue, residual=residual, store=("nc1hwc0", store_p))
        new = _kernel(kernel.CubeKernelOp, kind, op.operands, op.y.type, region, t.block_dim,
                      t.fields, t.buffers, op)
        rewriter.replace(op, new)


def _flag(attr) -> bool:
    return bool(attr.value.data) if attr is not None else False


class MatMulToCube(_ChipPattern):
    """MatMulV2 / BatchMatMulV2 -> kernel.cube on FRACTAL_NZ (or ND) operands, bias in UB."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name not in MATMUL_OPS:
            return
        x1, x2, y = op.operands[0], op.operands[1], op.results[0]
        msg = _static(op, x1.type, x2.type, y.type)
        if msg:
            self.fail(op, msg)
            return
        batched = op.name == "cann.BatchMatMulV2"
        ta = _flag(op.properties.get("adj_x1" if batched else "transpose_x1"))
        tb = _flag(op.properties.get("adj_x2" if batched else "transpose_x2"))
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
        et = y.type.element_type
        dtype = numpy_dtype(et)
        c0 = c0_for(dtype)
        try:
            t = cube_tiling(op.name.removeprefix("cann."), m, n, align(k, c0), dtype.itemsize, c0,
                            self.chip, batch)
        except TilingError as e:
            self.fail(op, str(e))
            return

        def operand_view(v, transpose):
            f = cann.format_of(v.type)
            o = cann.origin_shape(v.type)
            view = "nz" if f is not None and f.fmt == Format.FRACTAL_NZ else "nd"
            return view, dict(transpose=transpose, batch=list(out_batch), rows=o[-2], cols=o[-1])

        yf = cann.format_of(y.type)
        sview = "nz" if yf is not None and yf.fmt == Format.FRACTAL_NZ else "nd"
        has_bias = len(op.operands) > 2
        region = gemm_body(
            [*(v.type for v in op.operands), y.type], t, batch=batch, m=m, n=n, k=align(k, c0),
            et=et, a_load=operand_view(x1, ta), b_load=operand_view(x2, tb),
            bias_load=("channel", dict(offset=0, N=n)) if has_bias else None,
            epilogue=_epilogue(op), store=(sview, dict(batch=list(out_batch), rows=m, cols=n)))
        kind = "BatchMatMulV2" if batched or out_batch else "MatMulV2"
        new = _kernel(kernel.CubeKernelOp, kind, op.operands, y.type,
                      region, t.block_dim, t.fields, t.buffers, op)
        rewriter.replace(op, new)


def align(v: int, a: int) -> int:
    return ceil_div(v, a) * a


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _bias_layout(t) -> int:
    f = cann.format_of(t)
    if f is not None and f.fmt == Format.NC1HWC0:
        return 1
    if f is not None and f.fmt == Format.FRACTAL_NZ:
        return 3
    return 0


class ElementwiseToVectorBody(_ChipPattern):
    """Any elementwise cann op (Relu, BiasAdd, unary and binary library ops) -> kernel.vec_kernel:
    per core, UB tiles of the flattened storage data; operands broadcast to the result."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        unary = isinstance(op, (cann.ReluOp, cann.UnaryCannOp))
        binary = isinstance(op, (cann.BiasAddOp, cann.BinaryCannOp))
        if not (unary or binary):
            return
        y = op.results[0].type
        msg = _static(op, y, *(v.type for v in op.operands))
        if msg:
            self.fail(op, msg)
            return
        fn = op.name.removeprefix("cann.")
        et = y.element_type
        elems = _elems(y)
        try:
            t = vector_tiling(fn, elems, len(op.operands) + 1, numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        tile = f["tileElems"]
        yshape = list(y.get_shape())
        body = Body([*(v.type for v in op.operands), y])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                ins = []
                for i, v in enumerate(op.operands):
                    if isinstance(op, cann.BiasAddOp) and i == 1:
                        layout = _bias_layout(op.x.type)
                        if layout == 0 and op.data_format.data == "NCHW":
                            layout = 2
                        ins.append(body.load(body.args[i], [ti], "channel_flat", [tile], et, "UB",
                                             shape=yshape, layout=layout))
                    else:
                        ins.append(body.load(body.args[i], [ti], "flat", [tile], et, "UB", shape=yshape))
                attrs = {k: v for k, v in op.properties.items()
                         if k not in ("data_format",)}
                r = body.vec("Add" if fn == "BiasAdd" else fn, ins, [tile], et, attrs)
                body.store(r, body.args[-1], [ti], "flat")
        new = _kernel(kernel.VectorKernelOp, "Elementwise", op.operands, y, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


#: cann op -> the vector function its per-tile body applies (`vec_fn`), operands loaded flat.
GENERAL_ELEMENTWISE = {"cann.Cast": "Cast", "cann.SelectV2": "SelectV2",
                       "cann.FusedElementwise": "Expr"}


class GeneralElementwiseToVectorBody(_ChipPattern):
    """Cast, SelectV2 and FusedElementwise -> kernel.vec_kernel: per core, UB tiles of the
    flattened storage data, each operand loaded in its own element type (Cast converts in UB;
    SelectV2's i1 condition is a byte mask; FusedElementwise evaluates its postfix chain on the
    tile, `fn = "Expr"`).  An operand must have the result's storage shape and format, or both
    must be row-major (numpy broadcasting of the flat data is then exact)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        vfn = GENERAL_ELEMENTWISE.get(op.name)
        if vfn is None:
            return
        y = op.results[0].type
        msg = _static(op, y, *(v.type for v in op.operands))
        if msg:
            self.fail(op, msg)
            return
        yshape = list(y.get_shape())
        for v in op.operands:
            t = v.type
            same = list(t.get_shape()) == yshape and cann.format_of(t) == cann.format_of(y)
            if not same and not (_plain(t) and _plain(y)):
                self.fail(op, f"{op.name}: an operand stored as {_stored_as(t)} does not match the "
                              f"result stored as {_stored_as(y)} (no broadcasting kernel across "
                              "layouts)")
                return
        et = y.element_type
        elems = _elems(y)
        eb = max(numpy_dtype(v.type.element_type).itemsize for v in (*op.operands, op.results[0]))
        kind = op.name.removeprefix("cann.")
        try:
            t = vector_tiling(kind, elems, len(op.operands) + 1, eb, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        tile = f["tileElems"]
        attrs = {"expr": op.expr} if vfn == "Expr" else {}
        body = Body([*(v.type for v in op.operands), y])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                ins = [body.load(body.args[i], [ti], "flat", [tile], v.type.element_type, "UB",
                                 shape=yshape) for i, v in enumerate(op.operands)]
                r = body.vec(vfn, ins, [tile], et, attrs)
                body.store(r, body.args[-1], [ti], "flat")
        new = _kernel(kernel.VectorKernelOp, "Elementwise", op.operands, y, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class BNInferToVectorBody(_ChipPattern):
    """BNInfer -> kernel.vec_kernel: per core, UB tiles of the flattened x; the four per-channel
    parameters are loaded for the tile's channels (`channel_flat`: C1*C0 lanes of NC1HWC0, axis
    1 of NCHW, else the last axis) and y = (x - mean) * rsqrt(variance + eps) * scale + offset."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.BNInfer":
            return
        xt, yt = op.x.type, op.y.type
        params = [op.mean, op.variance, op.scale, op.offset]
        msg = _static(op, xt, yt, *(v.type for v in params))
        if msg:
            self.fail(op, msg)
            return
        bad = [v for v in params if not _plain(v.type) or len(v.type.get_shape()) != 1]
        if bad or list(xt.get_shape()) != list(yt.get_shape()):
            self.fail(op, f"{op.name}: the parameters must be 1-D row-major and y stored like x")
            return
        layout = _bias_layout(xt)
        if layout == 0 and op.data_format.data == "NCHW":
            layout = 2
        et = yt.element_type
        elems = _elems(yt)
        try:
            t = vector_tiling("BNInfer", elems, 6, numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
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
        new = _kernel(kernel.VectorKernelOp, "Elementwise", op.operands, yt, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class PoolToVectorBody(_ChipPattern):
    """MaxPool / AvgPool on NC1HWC0 -> kernel.vec_kernel: per core, tiles of output rows
    (n, c1, ho, wo) x C0 lanes; the windows are loaded into UB and reduced there."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name not in ("cann.MaxPool", "cann.AvgPool"):
            return
        xt, yt = op.x.type, op.y.type
        xf = cann.format_of(xt)
        if xf is None or xf.fmt != Format.NC1HWC0:
            self.fail(op, f"{op.name}: x must be NC1HWC0; run assign-layouts before cann-to-kernel")
            return
        msg = _static(op, xt, yt)
        if msg:
            self.fail(op, msg)
            return
        from compiler.conv_geometry import same_pads

        (kh, kw), (sh, sw) = op.window()
        n_, c1, h, w, c0 = xt.get_shape()
        _, _, ho, wo, _ = yt.get_shape()
        if op.padding.data == "SAME":
            pt, pb = same_pads(h, kh, sh, 1)
            pl, pr = same_pads(w, kw, sw, 1)
        else:
            pt = pb = pl = pr = 0
        rows = n_ * c1 * ho * wo
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        try:
            # each output row needs kh*kw*C0 window elements + C0 out (+ count), double-buffered
            t = vector_tiling(op.name.removeprefix("cann."), rows, kh * kw + 2, eb * c0, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f = t.fields
        tile = f["tileElems"]
        geo = dict(kernel_hw=[kh, kw], strides=[sh, sw], pads=[pt, pb, pl, pr], out_hw=[ho, wo])
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                is_max = op.name == "cann.MaxPool"
                win = body.load(body.args[0], [ti], "windows", [tile, kh * kw, c0], et, "UB",
                                fill=int(is_max), **geo)
                if is_max:
                    r = body.vec("PoolMax", [win], [tile, c0], et)
                else:
                    cnt = body.load(body.args[0], [ti], "window_count", [tile, 1], et, "UB", **geo)
                    r = body.vec("PoolAvg", [win, cnt], [tile, c0], et)
                body.store(r, body.args[-1], [ti], "rows")
        new = _kernel(kernel.VectorKernelOp, op.name.removeprefix("cann."), [op.x], yt,
                      body.region(), t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


# === row kernels, reductions, padding, views, attention =======================================

from xdsl.dialects.builtin import FloatAttr  # noqa: E402

from dialects.common import ints  # noqa: E402


def _plain(t) -> bool:
    """A row-major tensor: no storage format, or one equal to its origin."""
    f = cann.format_of(t)
    return f is None or f.origin_fmt is None or f.fmt == f.origin_fmt


def _stored_as(t) -> str:
    f = cann.format_of(t)
    return f.fmt.value if f is not None else "ND"


def _prod(xs) -> int:
    n = 1
    for d in xs:
        n *= d
    return n


def softmax_rows(body: Body, x, tile: int, length: int, et):
    """softmax along the rows of a [tile, length] UB tile: max, x - max, exp, sum, divide."""
    mx = body.vec("RowMax", [x], [tile, 1], et)
    d = body.vec("Sub", [x, mx], [tile, length], et)
    e = body.vec("Exp", [d], [tile, length], et)
    sm = body.vec("RowSum", [e], [tile, 1], et)
    return body.vec("RealDiv", [e, sm], [tile, length], et)


def softmax_kernel(chip: str, x: SSAValue, y_type, loc_op, kind: str = "SoftmaxV2"):
    """A vector kernel: softmax over the last axis of a row-major tensor, tiles of whole rows."""
    shape = list(y_type.get_shape())
    length, rows = shape[-1], _prod(shape[:-1])
    et = y_type.element_type
    t = vector_tiling(kind, rows, 2, numpy_dtype(et).itemsize * length, chip, length)
    f, tile = t.fields, t.fields["tileElems"]
    body = Body([x.type, y_type])
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
            v = body.load(body.args[0], [ti], "rows", [tile, length], et, "UB")
            body.store(softmax_rows(body, v, tile, length, et), body.args[-1], [ti], "rows")
    return _kernel(kernel.VectorKernelOp, kind, [x], y_type, body.region(), t.block_dim, f,
                   t.buffers, loc_op)


class RowsToVectorBody(_ChipPattern):
    """SoftmaxV2 / LayerNorm / AddLayerNorm over the last axis of a row-major tensor ->
    kernel.vec_kernel: per core, UB tiles of whole rows; the row statistics (max and sum;
    mean and variance) by vector reductions along the row, gamma and beta loaded once per core."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name not in ("cann.SoftmaxV2", "cann.LayerNorm", "cann.AddLayerNorm"):
            return
        y = op.results[0]
        msg = _static(op, y.type, *(v.type for v in op.operands))
        if msg:
            self.fail(op, msg)
            return
        bad = [v for v in (*op.operands, y) if not _plain(v.type)]
        if bad:
            self.fail(op, f"{op.name}: runs on row-major tensors, but a value is stored as "
                          f"{_stored_as(bad[0].type)}")
            return
        shape = list(y.type.get_shape())
        rank = len(shape)
        if op.name == "cann.SoftmaxV2":
            axes = sorted(a % rank for a in ints(op.axes))
            if axes != [rank - 1]:
                self.fail(op, f"{op.name}: softmax over axes {axes} of a rank-{rank} tensor has no "
                              "kernel lowering (only the last axis)")
                return
            try:
                new = softmax_kernel(self.chip, op.operands[0], y.type, op)
            except TilingError as e:
                self.fail(op, str(e))
                return
            rewriter.replace(op, new)
            return
        bna = op.begin_norm_axis.value.data % rank
        bpa = op.begin_params_axis.value.data % rank
        if bna != rank - 1 or bpa != rank - 1:
            self.fail(op, f"{op.name}: normalization from axis {bna} (params from {bpa}) of a "
                          f"rank-{rank} tensor has no kernel lowering (only the last axis)")
            return
        n_x = 2 if op.name == "cann.AddLayerNorm" else 1
        if any(tuple(v.type.get_shape()) != tuple(shape) for v in op.operands[:n_x]):
            self.fail(op, f"{op.name}: broadcasting inputs have no kernel lowering")
            return
        length, rows = shape[-1], _prod(shape[:-1])
        et = y.type.element_type
        try:
            t = vector_tiling(op.name.removeprefix("cann."), rows, n_x + 2,
                              numpy_dtype(et).itemsize * length, self.chip, length)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        eps = op.epsilon
        body = Body([*(v.type for v in op.operands), y.type])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            zero = body.index(0)
            g = body.load(body.args[n_x], [zero], "flat", [length], et, "UB", shape=[length])
            b = body.load(body.args[n_x + 1], [zero], "flat", [length], et, "UB", shape=[length])
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                x = body.load(body.args[0], [ti], "rows", [tile, length], et, "UB")
                if n_x == 2:
                    x2 = body.load(body.args[1], [ti], "rows", [tile, length], et, "UB")
                    x = body.vec("Add", [x, x2], [tile, length], et)
                mean = body.vec("RowMean", [x], [tile, 1], et)
                d = body.vec("Sub", [x, mean], [tile, length], et)
                sq = body.vec("Mul", [d, d], [tile, length], et)
                var = body.vec("RowMean", [sq], [tile, 1], et)
                ve = body.vec("Adds", [var], [tile, 1], et,
                              {"value": FloatAttr(float(eps.value.data), f32)})
                rs = body.vec("Rsqrt", [ve], [tile, 1], et)
                nrm = body.vec("Mul", [d, rs], [tile, length], et)
                sc = body.vec("Mul", [nrm, g], [tile, length], et)
                r = body.vec("Add", [sc, b], [tile, length], et)
                body.store(r, body.args[-1], [ti], "rows")
        new = _kernel(kernel.VectorKernelOp, op.name.removeprefix("cann."), op.operands, y.type,
                      body.region(), t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


REDUCE_FNS = {"cann.ReduceMeanD": "Add", "cann.ReduceSumD": "Add", "cann.ReduceMaxD": "Max",
              "cann.ReduceMinD": "Min"}


class ReduceToVectorBody(_ChipPattern):
    """ReduceMeanD / SumD / MaxD / MinD -> kernel.vec_kernel over rows x L x inner:
      x NC1HWC0, axes H, W: rows (n, c1), L = H*W, inner C0; result NC1HWC0 (keep_dims,
          (N, C1, 1, 1, C0)) or FRACTAL_NZ of [N, C] (row (n, c1) -> NZ[c1, n // 16, n % 16, :]);
      x row-major, axes the trailing axes: rows = the leading extent, L = the reduced extent.
    Per core, tiles of rows; the reduced axis in UB chunks, each reduced and accumulated."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name not in REDUCE_FNS:
            return
        xt, yt = op.x.type, op.y.type
        msg = _static(op, xt, yt)
        if msg:
            self.fail(op, msg)
            return
        xf, yf = cann.format_of(xt), cann.format_of(yt)
        xs = list(xt.get_shape())
        axes = sorted(a % len(cann.origin_shape(xt)) for a in ints(op.axes))
        store_view, store_p = "rows", {}
        if xf is not None and xf.fmt == Format.NC1HWC0:
            hw = [1, 2] if xf.origin_fmt == Format.NHWC else [2, 3]
            n_, c1, h, w, c0 = xs
            ok_y = yf is not None and (yf.fmt == Format.NC1HWC0 and _flag(op.keep_dims)
                                       or yf.fmt == Format.FRACTAL_NZ and not _flag(op.keep_dims))
            if axes != hw or not ok_y:
                self.fail(op, f"{op.name}: on NC1HWC0 only the reduction over H and W (to NC1HWC0 "
                              f"with keep_dims, or FRACTAL_NZ without) has a kernel lowering; got "
                              f"axes {axes} to {_stored_as(yt)}")
                return
            rows, length, inner = n_ * c1, h * w, c0
            if yf.fmt == Format.FRACTAL_NZ:
                store_view, store_p = "nz_rows", {"c1": c1}
        elif _plain(xt) and _plain(yt):
            rank = len(xs)
            if not axes or axes != list(range(axes[0], rank)):
                self.fail(op, f"{op.name}: a reduction over axes {axes} of a rank-{rank} tensor has "
                              "no kernel lowering (only trailing axes)")
                return
            rows, length, inner = _prod(xs[:axes[0]]), _prod(xs[axes[0]:]), 1
        else:
            self.fail(op, f"{op.name}: x stored as {_stored_as(xt)} has no reduction kernel")
            return
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        chip = get_chip(self.chip)
        chunk = max(1, min(length, chip.ub // (4 * eb * inner)))  # in + partial, double-buffered
        kind = op.name.removeprefix("cann.")
        try:
            t = vector_tiling(kind, rows, 2, eb * inner * chunk, self.chip, inner * length)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        f = {**f, "reduceLen": length, "chunkLen": chunk}
        acc_fn = REDUCE_FNS[op.name]
        fill = {"Add": 0, "Max": 1, "Min": 2}[acc_fn]
        red = {"Add": "RowSum", "Max": "RowMax", "Min": "RowMin"}[acc_fn]
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
                acc = body.vec("Fill", [], [tile, inner], et, {"fill": IntegerAttr(fill, i64)})
                zero = body.index(0)
                with body.loop(zero, length, chunk, length) as li:
                    part = body.load(body.args[0], [ti, li], "chunk_rows", [tile, chunk, inner], et,
                                     "UB", rows=rows, length=length, inner=inner, fill=fill)
                    s = body.vec(red, [part], [tile, inner], et)
                    body.add(kernel.AccumulateOp(operands=[acc, s],
                                                 properties={"fn": StringAttr(acc_fn)}))
                if op.name == "cann.ReduceMeanD":
                    acc = body.vec("Muls", [acc], [tile, inner], et,
                                   {"value": FloatAttr(1.0 / length, f32)})
                body.store(acc, body.args[-1], [ti], store_view, **store_p)
        new = _kernel(kernel.VectorKernelOp, kind, [op.x], yt, body.region(), t.block_dim, f,
                      t.buffers, op)
        rewriter.replace(op, new)


class PadToVectorBody(_ChipPattern):
    """PadD -> kernel.vec_kernel moving rows of the padded result (last storage axis) from the
    input, zero outside it.  On NC1HWC0 (assign-layouts' rule) only H and W are padded."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.PadD":
            return
        xt, yt = op.x.type, op.y.type
        msg = _static(op, xt, yt)
        if msg:
            self.fail(op, msg)
            return
        p = ints(op.paddings)
        xf = cann.format_of(xt)
        if xf is not None and xf.fmt == Format.NC1HWC0:
            o = xf.origin_fmt
            (n0, n1), (a0, a1), (b0, b1), (c0_, c1_) = [(p[2 * i], p[2 * i + 1]) for i in range(4)]
            if o == Format.NHWC:
                h, w, c = (a0, a1), (b0, b1), (c0_, c1_)
            else:
                c, h, w = (a0, a1), (b0, b1), (c0_, c1_)
            if c != (0, 0) or cann.format_of(yt) is None or cann.format_of(yt).fmt != Format.NC1HWC0:
                self.fail(op, f"{op.name}: padding C of an NC1HWC0 tensor has no kernel lowering")
                return
            pads = [n0, n1, 0, 0, *h, *w, 0, 0]
        elif _plain(xt) and _plain(yt):
            pads = list(p)
        else:
            self.fail(op, f"{op.name}: x stored as {_stored_as(xt)} has no padding kernel")
            return
        ys = list(yt.get_shape())
        length, rows = ys[-1], _prod(ys[:-1])
        et = yt.element_type
        try:
            t = vector_tiling("PadD", rows, 2, numpy_dtype(et).itemsize * length, self.chip, length)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o_,):
            with body.loop(o_, f["elemsPerCore"], tile, rows) as ti:
                v = body.load(body.args[0], [ti], "pad_rows", [tile, length], et, "UB",
                              pads=pads, shape=ys)
                body.store(v, body.args[-1], [ti], "rows")
        new = _kernel(kernel.VectorKernelOp, "PadD", [op.x], yt, body.region(), t.block_dim, f,
                      t.buffers, op)
        rewriter.replace(op, new)


class TransposeToVectorBody(_ChipPattern):
    """TransposeD of a row-major tensor -> kernel.vec_kernel: per core, UB tiles of the flattened
    result, each gathered from x by the inverse permutation (`transpose_flat`: a strided DMA
    from GM, as the vector unit's data-move instructions do), stored flat.  An operand in
    NC1HWC0 / FRACTAL_NZ is brought back to its origin by assign-layouts' TransData; anything
    else stored formatted is a diagnostic."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.TransposeD":
            return
        xt, yt = op.x.type, op.y.type
        if not self.static_row_major(op, xt, yt, "transpose"):
            return
        et = yt.element_type
        elems = _elems(yt)
        try:
            t = vector_tiling("TransposeD", elems, 2, numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                v = body.load(body.args[0], [ti], "transpose_flat", [tile], et, "UB",
                              perm=ints(op.perm), shape=list(yt.get_shape()))
                body.store(v, body.args[-1], [ti], "flat")
        new = _kernel(kernel.VectorKernelOp, "TransposeD", [op.x], yt, body.region(), t.block_dim,
                      f, t.buffers, op)
        rewriter.replace(op, new)


class ConcatToVectorBody(_ChipPattern):
    """ConcatV2D of row-major tensors -> kernel.vec_kernel: for each input, per core, UB tiles of
    its flattened data stored into its columns of the result viewed as [outer, row] (`concat_flat`:
    element p of input i goes to (p // inner_i) * row + offset_i + p % inner_i).  The kernel
    carries `concat_dim` so plan-memory can let the producers write their slabs in place."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.ConcatV2D":
            return
        ins, yt = list(op.x), op.y.type
        msg = _static(op, yt, *(v.type for v in ins))
        if msg:
            self.fail(op, msg)
            return
        bad = [v for v in ins if not _plain(v.type)]
        if bad or not _plain(yt):
            self.fail(op, f"{op.name}: an input stored as "
                          f"{_stored_as(bad[0].type if bad else yt)} has no concat kernel "
                          "(needs row-major data)")
            return
        ys = list(yt.get_shape())
        axis = op.concat_dim.value.data % len(ys)
        row = _prod(ys[axis:])
        et = yt.element_type
        eb = numpy_dtype(et).itemsize
        tilings = []
        try:
            for v in ins:
                tilings.append(vector_tiling("ConcatV2D", max(1, _elems(v.type)), 2, eb, self.chip))
        except TilingError as e:
            self.fail(op, str(e))
            return
        body = Body([*(v.type for v in ins), yt])
        off = 0
        for i, (v, t) in enumerate(zip(ins, tilings)):
            vs = list(v.type.get_shape())
            inner, elems = _prod(vs[axis:]), _elems(v.type)
            f, tile = t.fields, t.fields["tileElems"]
            if elems:
                with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
                    with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                        x = body.load(body.args[i], [ti], "flat", [tile], et, "UB", shape=vs)
                        body.store(x, body.args[-1], [ti], "concat_flat", inner=inner, row=row,
                                   offset=off)
            off += inner
        big = max(tilings, key=lambda t: t.fields["totalElems"])
        f = {**big.fields, "numInputs": len(ins), "rowElems": row}
        new = _kernel(kernel.VectorKernelOp, "ConcatV2D", ins, yt, body.region(),
                      max(t.block_dim for t in tilings), f, big.buffers, op)
        new.attributes["concat_dim"] = IntegerAttr(axis, i64)
        rewriter.replace(op, new)


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


class StridedSliceToVectorBody(_ChipPattern):
    """StridedSliceD of a row-major tensor -> kernel.vec_kernel: per core, UB tiles of the
    flattened result, each gathered from x at start + i * step per axis (`slice_flat`), stored
    flat (new / shrunk axes only reshape the row-major result)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.StridedSliceD":
            return
        xt, yt = op.x.type, op.y.type
        if not self.static_row_major(op, xt, yt, "strided-slice"):
            return
        xs = list(xt.get_shape())
        ax = _slice_axes(op, xs)
        if ax is None or _prod(ax[2]) != _elems(yt):
            self.fail(op, f"{op.name}: the slice does not map onto x {xs} -> {list(yt.get_shape())}")
            return
        start, step, count = ax
        et = yt.element_type
        elems = _elems(yt)
        if elems == 0:
            self.fail(op, f"{op.name}: an empty result has no kernel")
            return
        try:
            t = vector_tiling("StridedSliceD", elems, 2, numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        body = Body([xt, yt])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                v = body.load(body.args[0], [ti], "slice_flat", [tile], et, "UB",
                              start=start, step=step, count=count)
                body.store(v, body.args[-1], [ti], "flat")
        new = _kernel(kernel.VectorKernelOp, "StridedSliceD", [op.x], yt, body.region(),
                      t.block_dim, f, t.buffers, op)
        rewriter.replace(op, new)


class ReshapeToView(_ChipPattern):
    """Reshape (Squeeze, ExpandDims) of a row-major tensor -> kernel.view: no kernel."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.Reshape":
            return
        msg = _static(op, op.x.type, op.y.type)
        if msg:
            self.fail(op, msg)
            return
        if not (_plain(op.x.type) and _plain(op.y.type)):
            self.fail(op, f"{op.name}: a reshape of a tensor stored as {_stored_as(op.x.type)} is "
                          "not a view (padding breaks row-major order) and has no kernel lowering")
            return
        rewriter.replace(op, with_loc(kernel.ViewOp(operands=[op.x], result_types=[op.y.type]), op))


def gemm_kernel(chip: str, kind: str, operands, y_type, *, batch, m, n, k, a_load, b_load,
                store, bias_load=None, epilogue=(), loc_op=None):
    et = y_type.element_type
    dtype = numpy_dtype(et)
    c0 = c0_for(dtype)
    t = cube_tiling(kind, m, n, align(k, c0), dtype.itemsize, c0, chip, batch)
    region = gemm_body([*(v.type for v in operands), y_type], t, batch=batch, m=m, n=n,
                       k=align(k, c0), et=et, a_load=a_load, b_load=b_load, bias_load=bias_load,
                       epilogue=epilogue, store=store)
    return _kernel(kernel.CubeKernelOp, kind, operands, y_type, region, t.block_dim, t.fields,
                   t.buffers, loc_op)


class MultiHeadAttentionToKernels(_ChipPattern):
    """FusedMultiHeadAttention -> four kernels, as the decoupled cube / vector cores of the
    910B pass data through GM (workspace tensors between the kernels):
      qkv = x @ W + b                       cube  [B, S, 3*N*D]
      s   = scale * q_h @ k_h^T             cube  batch B*N, q_h / k_h read in place from qkv
      p   = softmax(s) (last axis)          vector
      y_h = p @ v_h                         cube  written in place into y [B, S, N, D]."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if op.name != "cann.FusedMultiHeadAttention":
            return
        vals = [op.x, op.qkv_weight, op.qkv_bias, op.y]
        msg = _static(op, *(v.type for v in vals))
        if msg:
            self.fail(op, msg)
            return
        if op.mask is not None:
            self.fail(op, f"{op.name}: an attention mask has no kernel lowering yet")
            return
        bad = [v for v in vals if not _plain(v.type)]
        if bad:
            self.fail(op, f"{op.name}: runs on row-major tensors, but a value is stored as "
                          f"{_stored_as(bad[0].type)}")
            return
        bsz, seq, hid = op.x.type.get_shape()
        heads = op.num_heads.value.data
        d = op.y.type.get_shape()[3]
        w3 = 3 * heads * d
        et = op.y.type.element_type
        qkv_t = TensorType(et, [bsz, seq, w3])
        s_t = TensorType(et, [bsz * heads, seq, seq])
        hp = dict(heads=heads, head_dim=d)
        try:
            k1 = gemm_kernel(
                self.chip, "BatchMatMulV2" if bsz > 1 else "MatMulV2", [op.x, op.qkv_weight, op.qkv_bias],
                qkv_t, batch=bsz, m=seq, n=w3, k=hid,
                a_load=("nd", dict(transpose=0, batch=[bsz], rows=seq, cols=hid)),
                b_load=("nd", dict(transpose=0, batch=[bsz], rows=hid, cols=w3)),
                bias_load=("channel", dict(offset=0, N=w3)),
                store=("nd", dict(batch=[bsz], rows=seq, cols=w3)), loc_op=op)
            qkv = k1.results[0]
            k2 = gemm_kernel(
                self.chip, "BatchMatMulV2", [qkv, qkv], s_t, batch=bsz * heads, m=seq, n=seq, k=d,
                a_load=("heads", dict(hp, col_offset=0, transpose=0)),
                b_load=("heads", dict(hp, col_offset=heads * d, transpose=1)),
                epilogue=[("muls", {"value": FloatAttr(float(op.scale.value.data), f32)})],
                store=("nd", dict(batch=[bsz * heads], rows=seq, cols=seq)), loc_op=op)
            k3 = softmax_kernel(self.chip, k2.results[0], s_t, op)
            k4 = gemm_kernel(
                self.chip, "BatchMatMulV2", [k3.results[0], qkv], op.y.type, batch=bsz * heads,
                m=seq, n=d, k=seq,
                a_load=("nd", dict(transpose=0, batch=[bsz * heads], rows=seq, cols=seq)),
                b_load=("heads", dict(hp, col_offset=2 * heads * d, transpose=0)),
                store=("heads", dict(hp, col_offset=0)), loc_op=op)
        except TilingError as e:
            self.fail(op, str(e))
            return
        rewriter.replace(op, [k1, k2, k3, k4])


@dataclass(frozen=True)
class CannToKernelPass(ModulePass):
    name = "cann-to-kernel"

    soc_version: str = ""
    """The chip (ATC's --soc_version name); default: the module's, else Ascend910B3."""

    legacy: bool = False
    """Emit the body-less kernel.cube_conv2d / kernel.vector forms (semantics built in)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        chip = self.soc_version
        if not chip:
            attr = op.attributes.get(kernel.SOC_ATTR)
            chip = attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP
        try:
            get_chip(chip)
        except UnknownChipError as e:
            raise CompileError(f"cann-to-kernel: error: {e}") from None
        op.attributes[kernel.SOC_ATTR] = StringAttr(chip)
        failures: list[tuple[Operation, str]] = []
        if self.legacy:
            patterns = [ConvToCube(chip, failures), ElementwiseToVector(chip, failures)]
        else:
            patterns = [ConvToCubeBody(chip, failures), MatMulToCube(chip, failures),
                        PoolToVectorBody(chip, failures), ElementwiseToVectorBody(chip, failures),
                        RowsToVectorBody(chip, failures), ReduceToVectorBody(chip, failures),
                        PadToVectorBody(chip, failures), ReshapeToView(chip, failures),
                        GeneralElementwiseToVectorBody(chip, failures),
                        BNInferToVectorBody(chip, failures),
                        TransposeToVectorBody(chip, failures), ConcatToVectorBody(chip, failures),
                        StridedSliceToVectorBody(chip, failures),
                        MultiHeadAttentionToKernels(chip, failures)]
        rewrite(op, [*patterns, TransDataToKernel(chip, failures)], recursive=False)
        for left in op.walk():
            if left.dialect_name() in ("tf", "cann") and not isinstance(left, cann.ConstOp) \
                    and all(f is not left for f, _ in failures):
                failures.append((left, f"{left.name} has no kernel lowering"))
        if failures:
            raise OpError(failures)
