"""Row ops as a matmul kernel's epilogue (the switch RowEpilogueFusion, group UBFusion).

A row op (op kind trait RowEpilogue, dialects/op_kinds.py: SoftmaxV2, LayerNorm, AddLayerNorm
over the last axis) whose data input is the single-use result of a matmul (MatMulLike) is marked
`epilogue` (ROW_EPILOGUE_ATTR) when one output tile can hold whole rows: the last axis N is at
most ROW_TILE_MAX columns, the largest base block N of the cube tiling (Ascend C TCubeTiling's
recommended baseN = 256, shared/reference/cann-facts.md section 7).  cann-to-kernel
(compiler/conversions/cann_to_kernel/row_epilogue.py) then tiles the matmul with the whole N
extent in one base block of one core and runs the row op on each [baseM, baseN] tile after the
fixpipe (and bias / activation), before the store: the matmul's result is never written to
GM and the row op is no kernel of its own (a classifier's Dense + softmax; a transformer's
output projection + residual + LayerNorm).  Where no such tiling fits the chip, the two stay
two kernels.  At the cann level nothing else changes: the mark is a unit attribute.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue

from compiler.transforms.fusion.auto import Switch, live_uses
from dialects import cann
from dialects.common import ints
from dialects.op_kinds import RowEpilogue

SWITCH = Switch("RowEpilogueFusion")
#: The unit attribute of a row op run as its matmul kernel's epilogue.
ROW_EPILOGUE_ATTR = "epilogue"
#: The widest row one output tile holds (TCubeTiling's recommended baseN, cann-facts.md s. 7).
ROW_TILE_MAX = 256


def _static(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def row_inputs(op: Operation) -> list[SSAValue]:
    """The row op's data inputs (x; AddLayerNorm's x1 and x2), not gamma / beta."""
    return list(op.operands[:2] if isinstance(op, cann.AddLayerNormOp) else op.operands[:1])


def last_axis_only(op: Operation) -> bool:
    """The op reduces (normalizes) over the last axis only."""
    rank = len(cann.origin_shape(op.results[0].type))
    if isinstance(op, cann.SoftmaxV2Op):
        return sorted(a % rank for a in ints(op.axes)) == [rank - 1]
    return (op.begin_norm_axis.value.data % rank == rank - 1  # type: ignore[attr-defined]
            and op.begin_params_axis.value.data % rank == rank - 1)  # type: ignore[attr-defined]


def host_input(op: Operation) -> SSAValue | None:
    """The data input of `op` that is the single-use result of a matmul in its block, of its
    shape; None when there is none."""
    shape = cann.origin_shape(op.results[0].type)
    for v in row_inputs(op):
        h = v.owner
        if (isinstance(h, cann.MatMulLike) and h.parent_block() is op.parent_block()
                and len(h.operands) <= 3 and set(live_uses(v)) == {op}
                and cann.origin_shape(v.type) == shape):
            return v
    return None


def row_epilogue_problem(op: Operation) -> str | None:
    """Why `op` cannot be its matmul's epilogue, or None."""
    if not op.has_trait(RowEpilogue, value_if_unregistered=False):
        return "not a row op"
    if not all(_static(v) for v in (*op.operands, *op.results)):
        return "a dynamic shape"
    if not last_axis_only(op):
        return "it does not reduce over the last axis only"
    shape = cann.origin_shape(op.results[0].type)
    if shape[-1] > ROW_TILE_MAX:
        return f"a row of {shape[-1]} columns is wider than one output tile ({ROW_TILE_MAX})"
    v = host_input(op)
    if v is None:
        return "no data input is the single-use result of a matmul"
    for o in row_inputs(op):
        if o is not v and cann.origin_shape(o.type) != shape:
            return "the other data input broadcasts"
    return None


def is_row_epilogue(op: Operation) -> bool:
    """`op` is marked as its matmul's epilogue and still is one."""
    return ROW_EPILOGUE_ATTR in op.attributes and row_epilogue_problem(op) is None


def row_epilogue_of(host: Operation) -> Operation | None:
    """The marked row op that is the matmul `host`'s epilogue, or None."""
    if not isinstance(host, cann.MatMulLike):
        return None
    uses = list(dict.fromkeys(live_uses(host.results[0])))
    if len(uses) != 1 or not is_row_epilogue(uses[0]) or host_input(uses[0]) is not host.results[0]:
        return None
    return uses[0]


def mark_row_epilogues(root: Operation) -> int:
    """Mark every row op that can be its matmul's epilogue; returns how many."""
    n = 0
    for op in list(root.walk()):
        if isinstance(op.parent_op(), cann.FusedKernelOp):
            continue
        if op.has_trait(RowEpilogue, value_if_unregistered=False) and row_epilogue_problem(op) is None:
            op.attributes[ROW_EPILOGUE_ATTR] = UnitAttr()
            n += 1
    return n
