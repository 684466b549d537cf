"""Fused operators made by the fuse pass (compiler/transforms/fusion; semantics in the interpreters),
and cann.FusedKernel, whose body is a region of cann ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.typed import shape_of
from dialects.cann.base import (
    Activation,
    ActivationAttr,
    CannOp,
    DataFormat,
    DataFormatAttr,
    _check_result_shape,
    _flag,
    _fmt_shape,
    _oshape,
    _shapes_match,
    broadcast_shapes,
    format_of,
    inferring,
    origin_shape,
    origin_tensor_type,
)
from dialects.cann.conv import (
    ConvLike,
    DepthwiseConv2DOp,
)
from dialects.cann.matmul import (
    MatMulLike,
    verify_matmul,
)
from dialects.cann.nn import verify_layer_norm
from dialects.common import (
    I64Array,
    check_rank,
    check_same_element_type,
    dims_compatible,
    enum_prop,
    opt_enum_prop,
    string_enum_attr,
)
from dialects.layouts import RunsOn
from dialects.op_kinds import Broadcast, Cube, InputFusable, Opaque, OutputFusable, Reduction, RowEpilogue


@irdl_op_definition
class FusedConv2DOp(ConvLike):
    """Conv2D with bias and an activation epilogue, run as one kernel (UB fusion)."""

    name = "cann.FusedConv2D"
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)  # LeakyRelu's negative slope

    def verify_op(self) -> None:
        super().verify_op()




# --- fused operators made by the fuse pass (compiler/transforms/fusion; semantics in fused_impl.py) ---------

def _check_residual(op) -> None:
    """A conv epilogue's residual (when present) has the result's shape."""
    if op.residual is not None and _oshape(op.residual) != _oshape(op.y):
        raise VerifyException(f"{op.name}: residual must have the result's shape")


@irdl_op_definition
class FusedConv2DAddOp(CannOp):
    """y = post_activation(activation(conv(x, filter) + bias) + residual): a conv with a
    residual-add epilogue (TbeConv2DEltwisePass's UB fusion)."""

    name = "cann.FusedConv2DAdd"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    residual = operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    groups = prop_def(IntegerAttr)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    post_activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = ConvLike.geometry

    def verify_op(self) -> None:
        ConvLike.verify_op(cast(ConvLike, self))  # the same fields: verified alike
        _check_residual(self)




@irdl_op_definition
class FusedDepthwiseConv2DOp(CannOp):
    """DepthwiseConv2D (+ bias) with an activation epilogue."""

    name = "cann.FusedDepthwiseConv2D"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = DepthwiseConv2DOp.geometry

    def verify_op(self) -> None:
        DepthwiseConv2DOp.verify_op(cast(DepthwiseConv2DOp, self))  # the same fields: verified alike




@irdl_op_definition
class FusedMatMulOp(MatMulLike):
    """y = activation(op(x1) @ op(x2) + bias) (+ residual when present), batch axes broadcast;
    op = transpose of the last two axes when transpose_x1 / transpose_x2 is set
    (MatMulBiasAddFusionPass, BatchMatMulFusionPass, ATbeMatmulElemwiseFusionPass)."""

    name = "cann.FusedMatMul"
    transpose_x1 = prop_def(IntegerAttr)
    transpose_x2 = prop_def(IntegerAttr)
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False, params=("bias",)))

    def verify_op(self) -> None:
        verify_matmul(self, _flag(self.transpose_x1), _flag(self.transpose_x2), batched=True)




class MaskKind(StrEnum):
    """How FusedAttention / FusedMultiHeadAttention apply their mask to the scores s:
      add      s + mask                                     (Keras' additive Softmax mask)
      select   where(mask != 0, s, mask_value)              (tf.where(mask, s, -large): SelectV2)
      greater  where(mask > mask_threshold, s, mask_value)  (tf.where(mask > t, s, -large))
    zero_masked (select / greater): the probabilities of the dropped keys set to 0 after the
    softmax (Keras 3's Softmax(mask): where(mask, softmax(..), 0), a row with every key dropped
    is 0)."""

    add = "add"
    select = "select"
    greater = "greater"


#: `mask_kind = "select"`
MaskKindAttr = string_enum_attr("cann.mask_kind", MaskKind)


class AttentionLayout(StrEnum):
    """FusedAttention's `layout` (CANN FlashAttentionScore's input_layout): BNSD ([.., N, S, D])
    or BSND ([B, S, N, D])."""

    BNSD = "BNSD"
    BSND = "BSND"


#: `layout = "BSND"`
AttentionLayoutAttr = string_enum_attr("cann.attention_layout", AttentionLayout)


def mask_kind(op) -> MaskKind:
    """An attention op's mask kind (absent: add)."""
    return MaskKind.add if op.mask_kind is None else op.mask_kind.data


def is_bsnd(op) -> bool:
    """Whether a FusedAttention's q, k, v and result are [B, S, N, D] (absent layout: BNSD)."""
    return op.layout is not None and op.layout.data == AttentionLayout.BSND


def _check_mask_kind(op) -> None:
    """mask_kind / mask_value / mask_threshold of an attention op: consistent with each other
    and with the mask operand."""
    n, k = op.name, mask_kind(op)
    masked = (MaskKind.select, MaskKind.greater)
    if op.mask_kind is not None and op.mask is None:
        raise VerifyException(f"{n}: mask_kind needs a mask operand")
    if (op.mask_value is not None) != (k in masked):
        raise VerifyException(f"{n}: mask_value is required by mask_kind select and greater "
                              "and allowed only there")
    if (op.mask_threshold is not None) != (k == MaskKind.greater):
        raise VerifyException(f"{n}: mask_threshold is required by mask_kind greater and "
                              "allowed only there")
    if op.mask is not None and k != MaskKind.select and str(op.mask.type.element_type) == "i1":
        raise VerifyException(f"{n}: a boolean mask needs mask_kind = \"select\"")
    if _flag(op.zero_masked) and k not in masked:
        raise VerifyException(f"{n}: zero_masked needs mask_kind select or greater")




@irdl_op_definition
class FusedAttentionOp(CannOp):
    """y = softmax(scale * q @ k^T (adj_k: k is given transposed) + mask) @ v, mask optional
    (added, broadcast).  Batch axes broadcast; one kernel (flash-attention style).
    `layout` (CANN FlashAttentionScore's input_layout): "BNSD" (default; q, k, v, y are
    [.., N, S, D]) or "BSND" (4-D q, k, v, y as [B, S, N, D], Keras' head split; the heads
    transpose happens inside the kernel).  The mask always applies to the [B, N, Sq, Sk] scores,
    as `mask_kind` says (MaskKind; absent: "add")."""

    name = "cann.FusedAttention"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    y = result_def(TensorType)
    scale = prop_def(FloatAttr)
    adj_k = prop_def(IntegerAttr)
    layout = opt_enum_prop(AttentionLayoutAttr)
    mask_kind = opt_enum_prop(MaskKindAttr)
    mask_value = opt_prop_def(FloatAttr)
    mask_threshold = opt_prop_def(FloatAttr)
    zero_masked = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube())

    def verify_op(self) -> None:
        n = self.name
        _check_mask_kind(self)
        q, k, v = _oshape(self.q), _oshape(self.k), _oshape(self.v)
        if min(len(q), len(k), len(v)) < 2:
            raise VerifyException(f"{n}: q, k, v must have rank at least 2")
        check_same_element_type(n, self.q.type, self.k.type, self.v.type, self.y.type)
        if is_bsnd(self) and any(len(s) != 4 for s in (q, k, v, _oshape(self.y))):
            raise VerifyException(f"{n}: layout BSND needs 4-D q, k, v and result")
        _check_result_shape(n, (*q[:-1], v[-1]), _oshape(self.y))  # softmax(q k^T) v




@irdl_op_definition
class FusedMultiHeadAttentionOp(CannOp):
    """Self-attention with its Q/K/V projections merged into one GEMM (CANN's
    MultiHeadAttention without the output projection; ONNX Runtime's Attention):
    qkv = x @ qkv_weight + qkv_bias, split on the last axis into q, k, v ([B, S, N*D] each,
    in that order), viewed as [B, S, N, D] with N = num_heads; then FusedAttention (layout
    BSND) with `scale` and the optional mask (`mask_kind` as FusedAttention's).  y is [B, S, N, D],
    or [B, S, N*D] with the heads merged (the Reshape in front of the output projection taken
    in: the same bytes row-major, and a [S, N*D] matrix a FRACTAL_NZ kernel writes head by head)."""

    name = "cann.FusedMultiHeadAttention"
    x = operand_def(TensorType)
    qkv_weight = operand_def(TensorType)
    qkv_bias = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    y = result_def(TensorType)
    num_heads = prop_def(IntegerAttr)
    scale = prop_def(FloatAttr)
    mask_kind = opt_enum_prop(MaskKindAttr)
    mask_value = opt_prop_def(FloatAttr)
    mask_threshold = opt_prop_def(FloatAttr)
    zero_masked = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), RunsOn(fractal_nz="attention", params=("qkv_weight", "qkv_bias", "mask")))

    def head_dim(self) -> int:
        """D: y's last axis, or with the heads merged its N*D over num_heads."""
        ys = _oshape(self.y)
        return ys[3] if len(ys) == 4 else ys[-1] // self.num_heads.value.data

    def verify_op(self) -> None:
        n = self.name
        _check_mask_kind(self)
        xs, ws, bs, ys = (_oshape(v) for v in (self.x, self.qkv_weight, self.qkv_bias, self.y))
        heads = self.num_heads.value.data
        check_rank(n, "x", xs, (3,))
        check_rank(n, "qkv_weight", ws, (2,))
        check_rank(n, "y", ys, (3, 4))
        check_same_element_type(n, self.x.type, self.qkv_weight.type, self.qkv_bias.type, self.y.type)
        if heads < 1 or (len(ys) == 4 and ys[2] != heads) or (len(ys) == 3 and ys[2] % heads):
            raise VerifyException(f"{n}: y must be [B, S, num_heads, D] or [B, S, num_heads*D] "
                                  f"with num_heads = {heads}")
        d = self.head_dim()
        if not dims_compatible(ws[0], xs[-1]) or not dims_compatible(ws[1], 3 * heads * d):
            raise VerifyException(f"{n}: qkv_weight must be [{xs[-1]}, {3 * heads * d}], "
                                  f"got {_fmt_shape(ws)}")
        if len(bs) != 1 or not dims_compatible(bs[0], ws[1]):
            raise VerifyException(f"{n}: qkv_bias must be 1-D of length {ws[1]}, got {_fmt_shape(bs)}")
        want = (xs[0], xs[1], heads, d) if len(ys) == 4 else (xs[0], xs[1], heads * d)
        _check_result_shape(n, want, ys)




@irdl_op_definition
class FusedGatedMatMulOp(CannOp):
    """The gated MLP of Llama-style models (SwiGLU): gate and up projections as one GEMM with
    concatenated weights and a gated epilogue: h = x @ weight + bias, split on the last axis
    into gate | up (F each), y = activation(gate) * up.  weight [K, 2F], bias [2F]."""

    name = "cann.FusedGatedMatMul"
    x = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    activation = enum_prop(ActivationAttr)
    traits = traits_def(Pure(), Cube())

    def verify_op(self) -> None:
        n = self.name
        xs, ws, bs, ys = (_oshape(v) for v in (self.x, self.weight, self.bias, self.y))
        check_rank(n, "weight", ws, (2,))
        if len(xs) < 2 or not dims_compatible(ws[0], xs[-1]):
            raise VerifyException(f"{n}: weight must be [{xs[-1] if xs else '?'}, 2F], got {_fmt_shape(ws)}")
        if len(bs) != 1 or not dims_compatible(bs[0], ws[1]):
            raise VerifyException(f"{n}: bias must be 1-D of length {ws[1]}, got {_fmt_shape(bs)}")
        check_same_element_type(n, self.x.type, self.weight.type, self.bias.type, self.y.type)
        _check_result_shape(n, (*xs[:-1], ws[1] // 2 if ws[1] >= 0 else -1), ys)




@irdl_op_definition
class AddLayerNormOp(CannOp):
    """y = LayerNorm(x1 + x2) (CANN's AddLayerNorm: the residual add fused into the norm);
    attributes as cann.LayerNorm's."""

    name = "cann.AddLayerNorm"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    begin_norm_axis = prop_def(IntegerAttr)
    begin_params_axis = prop_def(IntegerAttr)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), Reduction(), RowEpilogue(), InputFusable(),
                        RunsOn(nc1hwc0="rows", fractal_nz="rows", params=("gamma", "beta")))

    def verify_op(self) -> None:
        xs = broadcast_shapes(self.name, _oshape(self.x1), _oshape(self.x2))
        verify_layer_norm(self, xs, self.x1.type, self.x2.type)




#: Fused-kernel bodies compute on origin shapes (a pointwise op is the same on any layout)
#: and may hold these besides pointwise ops: scalar constants and the terminator.
_BODY_EXTRA = ("cann.Const", "cann.Yield")




@irdl_op_definition
class FusedKernelOp(CannOp):
    """Several cann ops run as one kernel: the region is the kernel's body, its block arguments
    the kernel's inputs, `cann.Yield` its result.  The body holds pointwise ops (op kinds
    Elementwise / Broadcast) and scalar cann.Const, on ORIGIN-shaped tensors: the operands and
    the result may be stored in any format (assign-layouts moves the kernel onto stored data;
    the body does not change).  Built by the automatic fusion pass (compiler/transforms/fusion/auto.py);
    lowered to one vector kernel whose tile body is the region's ops, or, when input #0 is a
    cube op's single-use result, to that cube kernel's epilogue (compiler/conversions/cann_to_kernel).
    `extra` results (multi-output fusion, XLA's multi-output fusion): intermediate values of the
    body that other ops read too, yielded after the result and stored from UB to GM as further
    outputs of the kernel; each has the result's shape and element type.

        %y = cann.FusedKernel %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
        ^bb0(%x : tensor<8xf32>, %z : tensor<8xf32>):
          %s = cann.Add %x, %z : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
          %r = cann.Relu %s : (tensor<8xf32>) -> tensor<8xf32>
          cann.Yield %r : tensor<8xf32>
        }
    """

    name = "cann.FusedKernel"
    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    extra = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(Pure(), Broadcast(), IsolatedFromAbove(), RunsOn(nc1hwc0="kernel", fractal_nz="kernel"))
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, results) $body"

    def __init__(self, inputs: Sequence, result_type: TensorType, body: Region,
                 extra_types: Sequence[TensorType] = ()):
        super().__init__(operands=[list(inputs)], result_types=[result_type, list(extra_types)],
                         regions=[body])

    def verify_op(self) -> None:
        from dialects.op_kinds import is_pointwise

        n = self.name
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(f"{n}: the body has {len(block.args)} arguments, the op "
                                  f"{len(self.inputs)} inputs")
        for i, (a, v) in enumerate(zip(block.args, self.inputs)):
            want = origin_tensor_type(v.type)
            if a.type != want:
                raise VerifyException(f"{n}: body argument #{i} must be {want} (input #{i} "
                                      f"in its origin shape), got {a.type}")
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"{n}: the body must end in cann.Yield")
        if len(last.values) != len(self.results):
            raise VerifyException(f"{n}: the body yields {len(last.values)} values, the op has "
                                  f"{len(self.results)} results")
        for v, r in zip(last.values, self.results):
            if inferring():  # the rule: the result is what the body yields
                _check_result_shape(n, shape_of(v), origin_shape(r.type))
            elif v.type != origin_tensor_type(r.type):
                raise VerifyException(f"{n}: the body yields {v.type}, the result is "
                                      f"{r.type} (origin {origin_tensor_type(r.type)})")
        for r in self.extra:
            if origin_shape(r.type) != origin_shape(self.y.type) or \
                    r.type.element_type != self.y.type.element_type:
                raise VerifyException(f"{n}: an extra result must have the result's shape and "
                                      "element type")
        for op in block.ops:
            if op.name in _BODY_EXTRA:
                continue
            if not is_pointwise(op):
                raise VerifyException(f"{n}: {op.name} in the body is not an elementwise or "
                                      "broadcast op")
            for r in op.results:
                if format_of(r.type) is not None:
                    raise VerifyException(f"{n}: {op.name} in the body has a stored (formatted) "
                                          "result; the body computes on origin shapes")

    def body_ops(self) -> list[Operation]:
        """The computing ops of the body in order (no constants, no terminator)."""
        return [o for o in self.body.block.ops if o.name not in _BODY_EXTRA]




@irdl_op_definition
class YieldOp(IRDLOperation):
    """The results of a cann.FusedKernel body: its result, then its extra results."""

    name = "cann.Yield"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(FusedKernelOp), Opaque())
    assembly_format = "$values attr-dict `:` type($values)"

    @property
    def value(self):
        """The yielded result (the kernel's `y`)."""
        return self.values[0]




@irdl_op_definition
class FusedSqueezeExciteOp(CannOp):
    """The gate of a squeeze-excite block as one kernel (EfficientNet, MobileNetV3):
    gate = act2(act1(mean_HW(x) @ w1 + b1) @ w2 + b2), x [N, H, W, C] (NHWC), w1 / w2 the 1x1
    filters (HWCN) [1, 1, C, Cr] / [1, 1, Cr, C], b1 [Cr], b2 [C]; gate [N, 1, 1, C]."""

    name = "cann.FusedSqueezeExcite"
    x = operand_def(TensorType)
    w1 = operand_def(TensorType)
    b1 = operand_def(TensorType)
    w2 = operand_def(TensorType)
    b2 = operand_def(TensorType)
    y = result_def(TensorType)
    act1 = enum_prop(ActivationAttr)
    act2 = enum_prop(ActivationAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn(nc1hwc0="conv", nd=False, params=("w1", "b1", "w2", "b2")))

    def verify_op(self) -> None:
        n = self.name
        xs, w1, b1, w2, b2, ys = (_oshape(v) for v in (self.x, self.w1, self.b1, self.w2, self.b2, self.y))
        check_rank(n, "x", xs, (4,))
        check_rank(n, "w1", w1, (4,))
        check_rank(n, "w2", w2, (4,))
        check_same_element_type(n, self.x.type, self.w1.type, self.b1.type, self.w2.type,
                                self.b2.type, self.y.type)
        c, cr = xs[3], w1[3]
        if tuple(w1[:2]) != (1, 1) or tuple(w2[:2]) != (1, 1):
            raise VerifyException(f"{n}: w1 and w2 must be 1x1 filters (HWCN)")
        if not dims_compatible(w1[2], c) or not _shapes_match(w2[2:], (cr, c)):
            raise VerifyException(f"{n}: w1 must be [1, 1, {c}, Cr] and w2 [1, 1, Cr, {c}], got "
                                  f"{list(w1)} and {list(w2)}")
        if not _shapes_match(b1, (cr,)) or not _shapes_match(b2, (c,)):
            raise VerifyException(f"{n}: b1 must be [{cr}] and b2 [{c}], got {list(b1)} and "
                                  f"{list(b2)}")
        _check_result_shape(n, (xs[0], 1, 1, c), ys)




@irdl_op_definition
class FusedConv2DScaledOp(CannOp):
    """y = post_activation(activation(conv(x * scale, filter) + bias) + residual), the residual
    optional: a conv whose input is scaled per (batch, input channel) as it is loaded (the
    squeeze-excite gate multiplied into the projection conv).  scale is [N, 1, 1, C] (NHWC;
    [N, C, 1, 1] for NCHW); attributes as cann.FusedConv2DAdd's."""

    name = "cann.FusedConv2DScaled"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = operand_def(TensorType)
    scale = operand_def(TensorType)
    residual = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    groups = prop_def(IntegerAttr)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    post_activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = ConvLike.geometry

    def verify_op(self) -> None:
        ConvLike.verify_op(cast(ConvLike, self))  # the same fields: verified alike
        n = self.name
        xs = _oshape(self.x)
        want = (xs[0], 1, 1, xs[3]) if self.data_format.data == DataFormat.NHWC else (xs[0], xs[1], 1, 1)
        if not _shapes_match(_oshape(self.scale), want):
            raise VerifyException(f"{n}: scale must be {list(want)} (per batch and input "
                                  f"channel), got {list(_oshape(self.scale))}")
        _check_residual(self)
        if self.residual is None and self.post_activation.data != Activation.none:
            raise VerifyException(f"{n}: post_activation needs a residual")




#: squeeze-excite: the gate kernel and the conv that takes the gate as an input scale
SE_FUSED_OPS = (FusedSqueezeExciteOp, FusedConv2DScaledOp)




FUSED_OPS = (FusedConv2DAddOp, FusedDepthwiseConv2DOp, FusedMatMulOp, FusedAttentionOp,
             FusedKernelOp, YieldOp, FusedMultiHeadAttentionOp, AddLayerNormOp, FusedGatedMatMulOp)

