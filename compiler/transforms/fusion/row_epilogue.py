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
output projection + residual + LayerNorm; directly or through Reshapes that only add or drop
leading 1s, and layout conversions).  Where no such tiling fits the chip, the two stay two kernels.  At the cann level
nothing else changes: the mark is a unit attribute.
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


def _without_leading_ones(shape) -> list[int]:
    s = list(shape)
    while len(s) > 2 and s[0] == 1:
        s = s[1:]
    return s


def host_views(v: SSAValue, op: Operation) -> tuple[SSAValue, list[Operation]] | None:
    """(the matmul's result, the views between it and `op`) when `op`'s data input v is a
    matmul's single-use result in op's block, directly or through single-use Reshapes that only
    add or drop leading 1s (the same rows: Tensordot's [M, N] -> [1, M, N]) and TransDatas (the
    epilogue's tile is stored in the row op's own format); None otherwise."""
    views: list[Operation] = []
    reader = op
    shape = _without_leading_ones(cann.origin_shape(op.results[0].type))
    while True:
        if set(live_uses(v)) != {reader} or _without_leading_ones(cann.origin_shape(v.type)) != shape:
            return None
        h = v.owner
        if isinstance(h, (cann.ReshapeOp, cann.TransDataOp)) and h.parent_block() is op.parent_block():
            views.append(h)
            v, reader = h.operands[0], h
            continue
        if isinstance(h, cann.MatMulLike) and h.parent_block() is op.parent_block() \
                and len(h.operands) <= 3:
            return v, views
        return None


def host_input(op: Operation) -> SSAValue | None:
    """The data input of `op` computed by a matmul (host_views), None when there is none."""
    for v in row_inputs(op):
        if host_views(v, op) is not None:
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
    v = host.results[0]
    while True:  # through the views host_views sees through
        uses = list(dict.fromkeys(live_uses(v)))
        if len(uses) != 1:
            return None
        if not isinstance(uses[0], (cann.ReshapeOp, cann.TransDataOp)):
            break
        v = uses[0].results[0]
    op = uses[0]
    if not is_row_epilogue(op) or host_input(op) is not v:
        return None
    return op


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
