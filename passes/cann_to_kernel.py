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

The lowerings live in compiler/lowering/ (cube, vector, data_movement, attention, legacy); this
pass picks the chip and runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from compiler.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from compiler.diagnostics import CompileError, OpError
from compiler.lowering import lowering_patterns
from compiler.rewriting import rewrite
from dialects import cann, kernel


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
        rewrite(op, lowering_patterns(chip, failures, legacy=self.legacy), recursive=False)
        for left in op.walk():
            if left.dialect_name() in ("tf", "cann") and not isinstance(left, cann.ConstOp) \
                    and all(f is not left for f, _ in failures):
                failures.append((left, f"{left.name} has no kernel lowering"))
        if failures:
            raise OpError(failures)
