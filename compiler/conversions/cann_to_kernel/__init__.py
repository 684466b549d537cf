"""cann -> kernel lowerings, one module per kind of kernel (used by passes/cann_to_kernel.py):

- cube: conv / depthwise / (batch) matmul as implicit GEMM on fractal tiles;
- vector: elementwise, BNInfer, pooling, row kernels (softmax, LayerNorm), reductions;
- fused: cann.FusedKernel (the automatic fusion's region) as one vector kernel, and the region
  as a cube kernel's epilogue;
- data_movement: TransData, pad, transpose, concat, strided slice, reshape views;
- gather: GatherV2D (an indexed row move per index);
- resize: ResizeBilinearV2 / ResizeNearestNeighborV2 (NC1HWC0 or NHWC);
- attention: FusedMultiHeadAttention / FusedAttention (masks) / FusedGatedMatMul as cube and
  vector kernels;
- scan: Cumsum as a chunked scan along its axis;
- topk: TopKV2 as a row kernel (sort each row, gather the first k) with two results;
- recurrent: DynamicRNN / DynamicGRUV2 as one cube kernel per layer looping over the time steps;
- inplace_update: InplaceUpdate (TensorListSetItem) as an indexed row store, in place in a while body;
- aipp: static AIPP (cann.Aipp) as the first kernel, writing the model input NC1HWC0;
- squeeze_excite: the squeeze-excite gate (mean, two small GEMMs) on the vector unit;
- control_flow: cann.If / Case / While as host-side kernel.if / case / while;

Every pattern records what it cannot lower in the shared `failures` list (op, message), so one
run reports every op at once.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

from compiler.target.chips import ChipProfile
from dialects import kernel


def lowering_patterns(chip: ChipProfile, failures: list[tuple[Operation, str]], *,
                      impl=None) -> list[RewritePattern]:
    """impl: the ImplMode (compiler/conversions/cann_to_kernel/implmode.py) every pattern lowers with."""
    from compiler.conversions.cann_to_kernel import (
        attention,
        channels,
        control_flow,
        cube,
        data_movement,
        fused,
        gather,
        resize,
        squeeze_excite,
        vector,
    )
    from compiler.conversions.cann_to_kernel.base import ChipPattern
    # Order matters where two patterns see one op (the first to fail records the diagnostic).
    kinds: list[type[ChipPattern]] = [cube.ConvToCubeBody, cube.MatMulToCube, vector.PoolToVectorBody,
             vector.ElementwiseToVectorBody, vector.RowsToVectorBody,
             vector.ReduceToVectorBody, data_movement.PadToVectorBody,
             channels.ReshapeChannelsToKernel, data_movement.ReshapeToView,
             vector.GeneralElementwiseToVectorBody,
             vector.BNInferToVectorBody, data_movement.TransposeToVectorBody,
             data_movement.ConcatToVectorBody, data_movement.StridedSliceToVectorBody,
             data_movement.BroadcastToVectorBody,
             attention.MultiHeadAttentionToKernels, attention.AttentionToKernels,
             attention.GatedMatMulToKernels, gather.GatherToVectorBody,
             resize.ResizeToVectorBody, data_movement.SplitToVectorBody,
             fused.FusedKernelToVectorBody,
             data_movement.ValuePadToVectorBody, squeeze_excite.SqueezeExciteToVectorBody]
    kinds.append(__import__("compiler.conversions.cann_to_kernel.scan", fromlist=["scan"]).CumsumToVectorBody)
    from compiler.conversions.cann_to_kernel.topk import TopKToVectorBody

    kinds.append(TopKToVectorBody)  # TopKV2: values and indices of one row kernel
    from compiler.conversions.cann_to_kernel.recurrent import RecurrentToCube

    kinds.append(RecurrentToCube)  # DynamicRNN / DynamicGRUV2: one kernel per layer
    from compiler.conversions.cann_to_kernel.inplace_update import InplaceUpdateToVectorBody

    kinds.append(InplaceUpdateToVectorBody)  # TensorListSetItem: rows written in place
    kinds.append(__import__("compiler.conversions.cann_to_kernel.aipp", fromlist=["aipp"]).AippToVectorBody)
    patterns: list[RewritePattern] = [k(chip, failures, impl) for k in kinds]
    return patterns + [
        data_movement.TransDataToKernel(chip, failures, impl),
        control_flow.ControlFlowToKernel(chip, failures, impl)]


def host_ops(root: Operation) -> Iterator[Operation]:
    """root's nested ops in walk order, without the ops of kernel bodies (a body holds only the
    kernel.* tile ops the lowerings built: no TransData, no tf or cann op)."""
    for region in root.regions:
        for block in region.blocks:
            for o in block.ops:
                yield o
                if not isinstance(o, kernel.BodyKernelOp):
                    yield from host_ops(o)
