"""The `cann` dialect: the CANN operator library (names as CANN spells them).

A tensor's storage layout rides on its type as `#cann.format<...>`:
  tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
is an NHWC tensor of origin shape 1x8x8x3 stored as NC1HWC0 (C padded to C0 = 16).  A type
without the attribute is in its origin format (the data_format attribute of the op says which).
Both descriptors are kept because the origin cannot be recovered from the storage shape
(cann-facts.md section 1).

The ops live in one module per family (base, conv, elementwise, nn, matmul, data_movement,
fused, control_flow, recurrent, aipp, host); this module re-exports them and defines the dialect.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from dialects.cann.aipp import (
    AippInputFormat,
    AippInputFormatAttr,
    AippOp,
    F64Array,
)
from dialects.cann.base import (
    _CONSISTENT,
    _INFERRING,
    Activation,
    ActivationAttr,
    AlwaysFolded,
    BatchMatMulCanonicalization,
    CannOp,
    CastCanonicalization,
    ConstOp,
    DataFormat,
    DataFormatAttr,
    FoldedInFusion,
    FormatAttr,
    FormatNameAttr,
    ReshapeCanonicalization,
    TransDataCanonicalization,
    TransposeCanonicalization,
    _check_result_shape,
    _flag,
    _fmt_shape,
    _fval,
    _norm_axes,
    _oshape,
    _shapes_match,
    broadcast_shapes,
    format_of,
    inferred_result_shapes,
    inferring,
    origin_shape,
    origin_tensor_type,
    storage_type,
    stored_as_origin,
    verify_format_shape,
)
from dialects.cann.control_flow import (
    CONTROL_OPS,
    CaseOp,
    IfOp,
    WhileOp,
    _callee,
    _check_signature,
    _compatible,
    _types,
)
from dialects.cann.conv import (
    Conv2DOp,
    Conv3DOp,
    ConvLike,
    DepthwiseConv2DOp,
    check_conv_result_shape,
    conv_geometry,
    verify_conv_attributes,
)
from dialects.cann.data_movement import (
    SHAPE_OPS,
    BroadcastToDOp,
    BroadcastToOp,
    ConcatV2DOp,
    FillDOp,
    GatherV2DOp,
    InplaceUpdateOp,
    MirrorPadMode,
    MirrorPadModeAttr,
    MirrorPadOp,
    PadDOp,
    PadV2DOp,
    RangeOp,
    ReshapeOp,
    ShapeOp,
    SliceOp,
    SplitDOp,
    SplitVDOp,
    StridedSliceDOp,
    TransDataOp,
    TransposeDOp,
    _check_pad,
)
from dialects.cann.elementwise import (
    AbsOp,
    AddOp,
    Atan2Op,
    BiasAddOp,
    BinaryCannOp,
    CastOp,
    CeilOp,
    CompareCannOp,
    CosOp,
    EluOp,
    EqualOp,
    ErfcOp,
    ErfOp,
    Expm1Op,
    ExpOp,
    FastGeluOp,
    FloorDivOp,
    FloorModOp,
    FloorOp,
    GeluErfOp,
    GeluOp,
    GreaterEqualOp,
    GreaterOp,
    LeakyReluOp,
    LessEqualOp,
    LessOp,
    Log1pOp,
    LogicalAndOp,
    LogicalBinaryOp,
    LogicalNotOp,
    LogicalOrOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    NegOp,
    NotEqualOp,
    PowOp,
    RealDivOp,
    ReciprocalOp,
    Relu6Op,
    ReluOp,
    RoundOp,
    RsqrtOp,
    SelectV2Op,
    SigmoidOp,
    SignOp,
    SinOp,
    SoftplusOp,
    SqrtOp,
    SquaredDifferenceOp,
    SquareOp,
    SubOp,
    TanhOp,
    UnaryCannOp,
)
from dialects.cann.fused import (
    _BODY_EXTRA,
    FUSED_OPS,
    SE_FUSED_OPS,
    AddLayerNormOp,
    AttentionLayout,
    AttentionLayoutAttr,
    FusedAttentionOp,
    FusedConv2DAddOp,
    FusedConv2DOp,
    FusedConv2DScaledOp,
    FusedDepthwiseConv2DOp,
    FusedGatedMatMulOp,
    FusedKernelOp,
    FusedMatMulOp,
    FusedMultiHeadAttentionOp,
    FusedSqueezeExciteOp,
    MaskKind,
    MaskKindAttr,
    YieldOp,
    _check_mask_kind,
    is_bsnd,
    mask_kind,
)
from dialects.cann.host import (
    HostCallOp,
)
from dialects.cann.matmul import (
    BatchMatMulV2Op,
    MatMulLike,
    MatMulV2Op,
    MatrixBandPartOp,
    _matmul_dims,
)
from dialects.cann.nn import (
    AvgPoolOp,
    BNInferOp,
    CumprodOp,
    CumsumOp,
    LayerNormOp,
    MaxPoolOp,
    Padding,
    PaddingAttr,
    PoolOp,
    ReduceDOp,
    ReduceMaxDOp,
    ReduceMeanDOp,
    ReduceMinDOp,
    ReduceProdDOp,
    ReduceSumDOp,
    ResizeBilinearV2Op,
    ResizeNearestNeighborV2Op,
    ResizeOp,
    ScanOp,
    SoftmaxV2Op,
    TopKV2Op,
)
from dialects.cann.recurrent import (
    RECURRENT_OPS,
    RNN_ATTRS,
    DynamicGRUV2Op,
    DynamicRNNOp,
    GruGateOrder,
    GruGateOrderAttr,
    LstmGateOrder,
    LstmGateOrderAttr,
    RnnActivation,
    RnnActivationAttr,
    RnnCellType,
    RnnCellTypeAttr,
    RnnDirection,
    RnnDirectionAttr,
    TanhRNNOp,
    _check_rnn_common,
    is_backward,
)

LIBRARY_OPS = (
    Relu6Op, SigmoidOp, TanhOp, EluOp, LeakyReluOp, NegOp, SqrtOp, RsqrtOp, SquareOp, ErfOp,
    ErfcOp, ExpOp, LogOp, AbsOp, ReciprocalOp, GeluOp, GeluErfOp, FastGeluOp, SoftplusOp,
    SinOp, CosOp, FloorOp, CeilOp, RoundOp, SignOp, Log1pOp, Expm1Op, FloorDivOp, FloorModOp,
    Atan2Op,
    AddOp, MulOp, SubOp, RealDivOp, MaximumOp, MinimumOp, PowOp, SquaredDifferenceOp, SelectV2Op,
    BNInferOp, LayerNormOp, MatMulV2Op, BatchMatMulV2Op, DepthwiseConv2DOp, SoftmaxV2Op,
    MaxPoolOp, AvgPoolOp, ReduceMeanDOp, ReduceSumDOp, ReduceMaxDOp, ReduceMinDOp, ReduceProdDOp,
    TransposeDOp, PadDOp, ConcatV2DOp, CastOp, GatherV2DOp, StridedSliceDOp, ReshapeOp, HostCallOp,
)




EXTRA_LIBRARY_OPS = (
    GreaterOp, GreaterEqualOp, LessOp, LessEqualOp, EqualOp, NotEqualOp, LogicalAndOp,
    LogicalOrOp, LogicalNotOp, ResizeBilinearV2Op, ResizeNearestNeighborV2Op, SplitDOp, SplitVDOp,
    PadV2DOp, MirrorPadOp, CumsumOp, CumprodOp, BroadcastToDOp, AippOp, FillDOp, RangeOp, MatrixBandPartOp,
    TopKV2Op,
)



__all__ = ["CONTROL_OPS", "FOLDED_OPS", "EXTRA_LIBRARY_OPS", "SHAPE_OPS", "CompareCannOp", "ResizeOp",
           *(c.__name__ for c in (*CONTROL_OPS, *EXTRA_LIBRARY_OPS, *SHAPE_OPS))]




CANN = Dialect(
    "cann",
    [ConstOp, Conv2DOp, Conv3DOp, FusedConv2DOp, BiasAddOp, ReluOp, TransDataOp, *LIBRARY_OPS, *FUSED_OPS,
     *SE_FUSED_OPS, *EXTRA_LIBRARY_OPS, *SHAPE_OPS, *CONTROL_OPS],
    [FormatAttr, DataFormatAttr, ActivationAttr, FormatNameAttr, PaddingAttr, MirrorPadModeAttr,
     MaskKindAttr, AttentionLayoutAttr, AippInputFormatAttr],
)

#: the AlwaysFolded ops (tf-to-cann emits them only over constants; no kernel lowering)
FOLDED_OPS = tuple(op for op in CANN.operations if op.has_trait(AlwaysFolded))


__all__ += [c.__name__ for c in RECURRENT_OPS]


CANN = Dialect("cann", [*CANN.operations, *RECURRENT_OPS], [*CANN.attributes, *RNN_ATTRS])

