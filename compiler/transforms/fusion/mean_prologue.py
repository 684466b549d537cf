"""A global average pool as its matmul's A-tile prologue (switch AutomaticPrologueFusion).

A ReduceMeanD over H and W of an NHWC tensor (keep_dims false: [N, C], a classifier's global
average pool) whose only reader is a matmul taking it as its A operand untransposed (a Dense
layer) is marked `prologue` (PROLOGUE_ATTR): cann-to-kernel (compiler/conversions/cann_to_kernel/
cube.py, mean_a_tile) computes each [baseM, baseK] A tile in UB from the pool's NC1HWC0 input,
chunk by chunk of pixels (view nc1hwc0_pixels, a row sum, accumulated, times 1/(H*W)), and moves
it UB -> L1 as the conv prologues do: the pooled [N, C] tensor is never written to GM and the
pool is no kernel of its own.  A pool whose input a pointwise prologue computes (BN-ReLU before
the pool, compiler/transforms/fusion/auto.py REDUCTION PROLOGUES) stays a kernel.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue

from compiler.transforms.fusion.auto import PROLOGUE_ATTR, is_prologue, live_uses
from dialects import cann
from dialects.common import ints


def _static(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _reader(v: SSAValue) -> Operation | None:
    """The one op reading v, through layout conversions (TransData); None for none or several."""
    while True:
        uses = list(dict.fromkeys(live_uses(v)))
        if len(uses) != 1:
            return None
        if not isinstance(uses[0], cann.TransDataOp):
            return uses[0]
        v = uses[0].results[0]


def _untransposed_a(mm: Operation) -> bool:
    a = mm.properties.get("transpose_x1") or mm.properties.get("adj_x1")
    return not (a is not None and bool(a.value.data))  # type: ignore[attr-defined]


def mean_prologue_problem(op: Operation) -> str | None:
    """Why the ReduceMeanD `op` cannot run on its matmul's A tiles, or None."""
    if not isinstance(op, cann.ReduceMeanDOp):
        return "not a mean"
    if not _static(op.x) or not _static(op.y):
        return "a dynamic shape"
    if len(cann.origin_shape(op.x.type)) != 4 or sorted(a % 4 for a in ints(op.axes)) != [1, 2] \
            or len(cann.origin_shape(op.y.type)) != 2:
        return "not a global average pool over H and W to [N, C]"
    if is_prologue(op.x.owner) if isinstance(op.x.owner, Operation) else False:
        return "its input is computed by a prologue"
    mm = _reader(op.y)
    if not isinstance(mm, cann.MatMulLike) or isinstance(mm, cann.BatchMatMulV2Op) \
            or len(mm.operands) > 3 or not _untransposed_a(mm) \
            or mm.parent_block() is not op.parent_block():
        return "its one reader is not a matmul"
    a = mm.operands[0]
    while isinstance(a.owner, cann.TransDataOp):
        a = a.owner.operands[0]
    if a is not op.y:
        return "the matmul reads it as B"
    return None


def mean_reader(op: Operation) -> Operation | None:
    """The matmul reading the mean `op` (through layout conversions)."""
    return _reader(op.results[0])


def is_mean_prologue(op: Operation) -> bool:
    return isinstance(op, cann.ReduceMeanDOp) and PROLOGUE_ATTR in op.attributes \
        and mean_prologue_problem(op) is None


def mean_prologue_of(mm: Operation) -> cann.ReduceMeanDOp | None:
    """The marked mean computing the matmul `mm`'s A operand, or None."""
    a = mm.operands[0]
    while isinstance(a.owner, cann.TransDataOp):
        a = a.owner.operands[0]
    p = a.owner
    return p if isinstance(p, cann.ReduceMeanDOp) and is_mean_prologue(p) else None


def mark_mean_prologues(root: Operation) -> int:
    n = 0
    for op in list(root.walk()):
        if isinstance(op, cann.ReduceMeanDOp) and mean_prologue_problem(op) is None:
            op.attributes[PROLOGUE_ATTR] = UnitAttr()
            n += 1
    return n
