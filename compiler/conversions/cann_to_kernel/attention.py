"""The transformer fused ops as cube and vector kernels: FusedMultiHeadAttention and
FusedAttention (scores GEMM, masked softmax, output GEMM; workspace tensors between them) and
FusedGatedMatMul (the gate|up GEMM, then the gated vector kernel)."""


from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerType,
    TensorType,
    f32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from compiler.conversions.cann_to_kernel.base import (
    Body,
    ChipPattern,
    kernel_op,
    prod,
)
from compiler.conversions.cann_to_kernel.cube import gemm_kernel
from compiler.conversions.cann_to_kernel.fused import emit_region
from compiler.conversions.cann_to_kernel.reduction_prologue import live_tiles_of
from compiler.conversions.cann_to_kernel.vector import cast_tile, softmax_kernel, softmax_rows
from compiler.ir.rewriting import roots, with_loc
from compiler.ir.typed import elem_of, shape_of
from compiler.target.chips import ChipProfile
from compiler.target.formats import Format
from compiler.target.tiling import TilingError, vector_tiling
from dialects import cann, kernel
from dialects.common import dense_from_numpy, numpy_dtype


class MultiHeadAttentionToKernels(ChipPattern):
    """FusedMultiHeadAttention -> four kernels, as the decoupled cube / vector cores of the
    910B pass data through GM (workspace tensors between the kernels):
      qkv = x @ W + b                       cube  [B, S, 3*N*D]
      s   = scale * q_h @ k_h^T             cube  batch B*N, q_h / k_h read in place from qkv
      p   = softmax(mask(s)) (last axis)    vector (masked_softmax_ops)
      y_h = p @ v_h                         cube  written in place into y [B, S, N, D]
                                                  (or [B, S, N*D], the heads merged).
    On FRACTAL_NZ (assign-layouts' "attention" rule: y [B, S, N*D]) the first GEMM reads x as
    NZ tiles and the last writes each head's [S, D] block into its columns of y as NZ tiles;
    the workspaces between them stay row-major."""

    applies_to = roots(cann.FusedMultiHeadAttentionOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.FusedMultiHeadAttentionOp):
            return
        nz = [v for v in (op.x, op.y) if _is_nz(v)]
        vals = [op.qkv_weight, op.qkv_bias, *(v for v in (op.x, op.y) if v not in nz)]
        if op.mask is not None:
            vals.append(op.mask)
        if self.fails_on_dynamic_dims(op, *(v.type for v in nz)) or not self.static_row_major_values(op, vals):
            return
        bsz, seq, hid = cann.origin_shape(op.x.type)
        heads = op.num_heads.value.data
        d = op.head_dim()
        w3 = 3 * heads * d
        et = op.y.type.element_type
        qkv_t = TensorType(et, [bsz, seq, w3])
        s_t = TensorType(et, [bsz * heads, seq, seq])
        hp = dict(heads=heads, head_dim=d)
        try:
            k1 = gemm_kernel(
                self.chip, "BatchMatMulV2" if bsz > 1 else "MatMulV2", [op.x, op.qkv_weight, op.qkv_bias],
                qkv_t, batch=bsz, m=seq, n=w3, k=hid,
                a_load=("nz" if _is_nz(op.x) else "nd", dict(transpose=0, batch=[bsz], rows=seq, cols=hid)),
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
            sm = masked_softmax_ops(self.chip, op, k2.results[0], s_t, [bsz, heads, seq, seq],
                                    self.impl.row_compute_type("SoftmaxV2", s_t.element_type))
            k4 = gemm_kernel(
                self.chip, "BatchMatMulV2", [sm[-1].results[0], qkv], op.y.type, batch=bsz * heads,
                m=seq, n=d, k=seq,
                a_load=("nd", dict(transpose=0, batch=[bsz * heads], rows=seq, cols=seq)),
                b_load=("heads", dict(hp, col_offset=2 * heads * d, transpose=0)),
                store=("heads", dict(hp, col_offset=0, **(dict(nz=1, rows=seq) if _is_nz(op.y) else {}))),
                loc_op=op)
        except TilingError as e:
            self.fail(op, str(e))
            return
        rewriter.replace(op, [k1, k2, *sm, k4])


def _is_nz(v: SSAValue) -> bool:
    f = cann.format_of(v.type)
    return f is not None and f.fmt == Format.FRACTAL_NZ


def _scalar_const(v: float, et, loc_op) -> cann.ConstOp:
    return with_loc(cann.ConstOp(dense_from_numpy(np.asarray(v, numpy_dtype(et)))), loc_op)


def masked_softmax_ops(chip: ChipProfile, op, s: SSAValue, s_t, scores_shape: list[int],
                       compute_type=None) -> list[Operation]:
    """softmax(mask(s)) over the last axis of the scores s as one vector kernel (CANN's masked
    softmax), the ops producing it last: scalar constants (fill, threshold, the 0 of
    zero_masked) and the kernel.  Per tile of whole rows: s, and the mask and the constants
    broadcast (numpy rules) to the [B, N, Sq, Sk] scores as they are loaded (`rows` with
    `shape`); the mask applied as op.mask_kind says (cann.MaskKind), the softmax, then with
    zero_masked the dropped keys' probabilities set to 0.  Without a mask: the softmax kernel."""
    if op.mask is None:
        return [softmax_kernel(chip, s, s_t, op, compute_type=compute_type)]
    kind = cann.mask_kind(op)
    et = s_t.element_type
    ct = compute_type or et
    zero = op.zero_masked is not None and bool(op.zero_masked.value.data)
    consts = []
    if kind != cann.MaskKind.add:
        consts.append(_scalar_const(float(op.mask_value.value.data), et, op))
    if kind == cann.MaskKind.greater:
        consts.append(_scalar_const(float(op.mask_threshold.value.data),
                                    op.mask.type.element_type, op))
    if zero:
        consts.append(_scalar_const(0.0, et, op))
    pro, views = mask_prologue(op)
    mask_ins = [v.y for v in views] if pro is not None else [op.mask]
    operands = [s, *mask_ins, *(c.results[0] for c in consts)]
    length, rows = scores_shape[-1], prod(scores_shape[:-1])
    eb = max(numpy_dtype(elem_of(v)).itemsize for v in operands)
    body_tiles = live_tiles_of(pro)
    t = vector_tiling("SoftmaxV2", rows, len(operands) + 1 + body_tiles,
                      max(eb, numpy_dtype(ct).itemsize) * length, chip, length)
    f, tile = t.fields, t.fields["tileElems"]
    shape2 = [tile, length]
    body = Body([*(v.type for v in operands), s_t])
    n_mask = len(mask_ins)
    with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
        with body.loop(o, f["elemsPerCore"], tile, rows) as ti:
            ins = [body.load(body.args[i], [ti], "rows", shape2, elem_of(v), "UB",
                             **(dict(shape=scores_shape) if i else {}))
                   for i, v in enumerate(operands) if not (pro is not None and 1 <= i <= n_mask)]
            if pro is not None:  # the mask's kernel on the broadcast rows of its inputs
                def load(i: int) -> SSAValue:
                    return body.load(body.args[1 + i], [ti], "rows", shape2, elem_of(mask_ins[i]),
                                     "UB", shape=scores_shape)

                ins.insert(1, emit_region(body, pro, shape2, load, lambda e: e))
            if kind == cann.MaskKind.add:
                x = body.vec("Add", ins[:2], shape2, et)
                keep = None
            else:
                keep = ins[1]
                if kind == cann.MaskKind.greater:
                    keep = body.vec("Greater", [ins[1], ins[3]], shape2, IntegerType(1))
                x = body.vec("SelectV2", [keep, ins[0], ins[2]], shape2, et)
            p = cast_tile(body, softmax_rows(body, cast_tile(body, x, shape2, et, ct), tile, length, ct),
                          shape2, ct, et)
            if zero:
                p = body.vec("SelectV2", [keep, p, ins[-1]], shape2, et)
            body.store(p, body.args[-1], [ti], "rows")
    k = kernel_op(kernel.VectorKernelOp, "SoftmaxV2", operands, s_t, body.region(),
                  t.block_dim, f, t.buffers, op)
    return [*(views if pro is not None else []), *consts, k]


def mask_prologue(op) -> tuple[cann.FusedKernelOp | None, list[kernel.ViewOp]]:
    """The FusedKernel computing op's mask (directly or through a view) that runs on the
    masked softmax's rows (compiler/transforms/fusion/auto.py mask_prologue_problem), and a view
    of each of its inputs as the mask's rank (auto.mask_input_shape), or (None, [])."""
    from compiler.conversions.cann_to_kernel.fused import prologue_lowerable
    from compiler.transforms.fusion.auto import mask_input_shape

    m = op.mask
    fk = m.owner
    if isinstance(fk, (cann.ReshapeOp, kernel.ViewOp)):
        fk = fk.operands[0].owner
    if not isinstance(fk, cann.FusedKernelOp) or not prologue_lowerable(fk):
        return None, []
    ys, ms = list(shape_of(fk.y)), list(shape_of(m))
    views = []
    for v in fk.inputs:
        vs = mask_input_shape(list(shape_of(v)), ys, ms)
        assert vs is not None  # (mask_prologue_problem checked it)
        views.append(_view(v, vs, op))
    return fk, views


def _view(v: SSAValue, shape: list[int], loc_op) -> kernel.ViewOp:
    return with_loc(kernel.ViewOp(operands=[v], result_types=[
        TensorType(elem_of(v), shape)]), loc_op)


class AttentionToKernels(ChipPattern):
    """FusedAttention -> cube and vector kernels through GM workspaces:
      s   = scale * q @ k^T     cube   [.., Sq, Sk] (BSND: heads read in place, batch B*N)
      p   = softmax(mask(s)) (last axis)  vector (the mask inside: masked_softmax_ops)
      y   = p @ v               cube   (BSND: written in place into y [B, S, N, D])."""

    applies_to = roots(cann.FusedAttentionOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.FusedAttentionOp):
            return
        vals = [op.q, op.k, op.v, op.y, *([op.mask] if op.mask is not None else [])]
        if not self.static_row_major_values(op, vals):
            return
        bsnd = cann.is_bsnd(op)
        adj_k = bool(op.adj_k.value.data)
        q, k, v, y = (list(shape_of(t)) for t in (op.q, op.k, op.v, op.y))
        et = op.y.type.element_type
        scale = [("muls", {"value": FloatAttr(float(op.scale.value.data), f32)})]
        pre: list[Operation] = []
        try:
            if bsnd:
                (b, sq, heads, d), sk, dv = q, k[1], v[3]
                if k[0] != b or v[0] != b or k[2] != heads or v[2] != heads:
                    self.fail(op, f"{op.name}: BSND q, k, v must agree on B and N")
                    return
                qv, kv, vv = (_view(t, [s_[0], s_[1], s_[2] * s_[3]], op)
                              for t, s_ in ((op.q, q), (op.k, k), (op.v, v)))
                pre = [qv, kv, vv]
                batch, out_b = b * heads, [b, heads]
                s_t = TensorType(et, [batch, sq, sk])
                hp = dict(heads=heads, head_dim=d)
                k1 = gemm_kernel(
                    self.chip, "BatchMatMulV2", [qv.y, kv.y], s_t, batch=batch, m=sq, n=sk, k=d,
                    a_load=("heads", dict(hp, col_offset=0, transpose=0)),
                    b_load=("heads", dict(hp, col_offset=0, transpose=1)),
                    epilogue=scale, store=("nd", dict(batch=[batch], rows=sq, cols=sk)), loc_op=op)
                p_v: SSAValue = vv.y
                b_load: tuple[str, dict] = ("heads", dict(heads=heads, head_dim=dv, col_offset=0, transpose=0))
                store: tuple[str, dict] = ("heads", dict(heads=heads, head_dim=dv, col_offset=0))
            else:
                sq, d = q[-2], q[-1]
                sk = k[-1] if adj_k else k[-2]
                out_b = list(y[:-2])
                batch = prod(out_b)
                s_t = TensorType(et, [*out_b, sq, sk])
                k1 = gemm_kernel(
                    self.chip, "BatchMatMulV2", [op.q, op.k], s_t, batch=batch, m=sq, n=sk, k=d,
                    a_load=("nd", dict(transpose=0, batch=out_b, rows=sq, cols=d)),
                    b_load=("nd", dict(transpose=int(not adj_k), batch=out_b, rows=k[-2], cols=k[-1])),
                    epilogue=scale, store=("nd", dict(batch=out_b, rows=sq, cols=sk)), loc_op=op)
                dv = v[-1]
                p_v, b_load = op.v, ("nd", dict(transpose=0, batch=out_b, rows=sk, cols=dv))
                store = ("nd", dict(batch=out_b, rows=sq, cols=dv))
            sm = masked_softmax_ops(self.chip, op, k1.results[0], s_t, [*out_b, sq, sk],
                                    self.impl.row_compute_type("SoftmaxV2", s_t.element_type))
            k3 = gemm_kernel(
                self.chip, "BatchMatMulV2", [sm[-1].results[0], p_v], op.y.type, batch=batch,
                m=sq, n=dv, k=sk,
                a_load=("nd", dict(transpose=0, batch=list(s_t.get_shape()[:-2]), rows=sq, cols=sk)),
                b_load=b_load, store=store, loc_op=op)
        except TilingError as e:
            self.fail(op, str(e))
            return
        rewriter.replace(op, [*pre, k1, *sm, k3])


class GatedMatMulToKernels(ChipPattern):
    """FusedGatedMatMul -> two kernels through a GM workspace h [M, 2F] (M = rows of x):
      h = x @ weight + bias                       cube
      y = activation(h[:, :F]) * h[:, F:]         vector (the halves read in place)."""

    applies_to = roots(cann.FusedGatedMatMulOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if not isinstance(op, cann.FusedGatedMatMulOp):
            return
        vals = [op.x, op.weight, op.bias, op.y]
        if not self.static_row_major_values(op, vals):
            return
        xs = list(shape_of(op.x))
        kk, n2 = shape_of(op.weight)
        m, f_ = prod(xs[:-1]), n2 // 2
        et = op.y.type.element_type
        xv = _view(op.x, [m, kk], op)
        h_t = TensorType(et, [m, n2])
        y2_t = TensorType(et, [m, f_])
        try:
            k1 = gemm_kernel(
                self.chip, "MatMulV2", [xv.y, op.weight, op.bias], h_t, batch=1, m=m, n=n2, k=kk,
                a_load=("nd", dict(transpose=0, batch=[], rows=m, cols=kk)),
                b_load=("nd", dict(transpose=0, batch=[], rows=kk, cols=n2)),
                bias_load=("channel", dict(offset=0, N=n2)),
                store=("nd", dict(batch=[], rows=m, cols=n2)), loc_op=op)
            elems = m * f_
            t = vector_tiling("GatedActivation", elems, 3, numpy_dtype(et).itemsize, self.chip)
        except TilingError as e:
            self.fail(op, str(e))
            return
        f, tile = t.fields, t.fields["tileElems"]
        body = Body([h_t, y2_t])
        with body.cores([t.block_dim], [f["elemsPerCore"]]) as (o,):
            with body.loop(o, f["elemsPerCore"], tile, elems) as ti:
                g, u = (body.load(body.args[0], [ti], "slice_flat", [tile], et, "UB",
                                  start=[0, off], step=[1, 1], count=[m, f_]) for off in (0, f_))
                a = body.vec(f"act:{op.activation.data}", [g], [tile], et)
                body.store(body.vec("Mul", [a, u], [tile], et), body.args[-1], [ti], "flat")
        k2 = kernel_op(kernel.VectorKernelOp, "GatedActivation", [k1.results[0]], y2_t,
                       body.region(), t.block_dim, f, t.buffers, op)
        yv = _view(k2.results[0], list(op.y.type.get_shape()), op)
        rewriter.replace(op, [xv, k1, k2, yv])
