"""FusedMultiHeadAttention as cube and vector kernels."""


from __future__ import annotations

from xdsl.dialects.builtin import (
    FloatAttr,
    TensorType,
    f32,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from compiler.lowering.base import ChipPattern, dynamic_dims_error, row_major, stored_as
from compiler.lowering.cube import gemm_kernel
from compiler.lowering.vector import softmax_kernel
from compiler.tiling import TilingError


class MultiHeadAttentionToKernels(ChipPattern):
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
        msg = dynamic_dims_error(op, *(v.type for v in vals))
        if msg:
            self.fail(op, msg)
            return
        if op.mask is not None:
            self.fail(op, f"{op.name}: an attention mask has no kernel lowering yet")
            return
        bad = [v for v in vals if not row_major(v.type)]
        if bad:
            self.fail(op, f"{op.name}: runs on row-major tensors, but a value is stored as "
                          f"{stored_as(bad[0].type)}")
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
