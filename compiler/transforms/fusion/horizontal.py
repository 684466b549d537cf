"""Horizontal fusion of sibling cube ops (issue 12): cube ops of one family that read the same
input with the same attributes become one wide op with their constant weights (and biases)
concatenated along the output channels; each former op's result is then a channel piece of the
wide op's output (one cann.SplitVD over the last axis).  The families (`FAMILIES`):
  conv    convs with the same geometry: one FusedConv2D, filters concatenated along Cout;
  matmul  matmuls of the same x with constant [K, N] weights (keras-hub's separate
          query / key / value EinsumDense outside an attention the rules recompose, a
          cross-attention's key and value, two heads on one feature): one FusedMatMul,
          weights concatenated along N.  The result is FRACTAL_NZ [.., M, N]; a piece of whole
          C0 columns with one batch is a contiguous K1 slab of it (cann-facts.md section 3:
          NZ[.., k1, m1, m0, k0] = ND[.., m1*16+m0, k1*C0+k0]), split on FRACTAL_NZ as a view
          (layout_assignment.rule_split_nz, memory_plan.slice_view_offset).
The conv specifics follow; the matmul family has no padded pieces (a piece off the C0 grid can
only go last) and with more than one batch every piece is a copy.

Siblings: cann.Conv2D / cann.FusedConv2D ops whose x is the same value, with equal kernel size,
strides, pads, dilations, groups (= 1), data_format (NHWC), element type, activation (and its
alpha), constant filters and constant (or absent) biases; an absent bias is zeros in the wide
bias.  A sibling whose result is read by a pointwise op is left alone: that op is the conv's
epilogue (compiler/transforms/fusion/auto.py) and would become a kernel of its own behind a piece.

The pieces are free when they are whole C0 blocks of the NC1HWC0 output (N = 1): the split's
kernels are then views the memory plan aliases into the wide output (compiler/backend/
memory_plan.py, `slice_view_offset`; no launch).  So the pieces are ordered with every piece but
the last on the C0 grid: a piece whose channel count is not a multiple of C0 is padded to it
with zero filter columns when all its readers are convs with constant filters, which get zero
input rows (they read the padding lanes times zero: the cube K of such a conv is C1*kh*kw*C0
either way, so it costs no MACs); one unpaddable piece may go last, others stay separate convs.

A piece that is a concat's first input (and no other concat's or return's) goes last, one that
is a concat's last input first: the memory plan then lays the wide output and the concat's buffer
so that they meet on that piece, a view of the one and a slab of the other (an inception block's
1x1 branch: no copy, `_edge_slab`).

Cost (launch count, the perf report's dominant term at LAUNCH_OVERHEAD_US per launch,
compiler/backend/perf_report.py): k separate convs are k launches; the merge is the wide conv
plus one copy for each other piece a concat reads (a concat slab inside the wide output cannot
also be a view of it) or the function returns (its buffer is the caller's).  The merge is done when it launches fewer
kernels.  Each merge, and each group of
siblings left alone with the reason, is in the fusion report.  Switch: HorizontalConvFusion
(group GraphFusion).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TypeAlias, TypeVar

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, int_of, num_of, parent_block_of, shape_of, str_of
from compiler.target.formats import c0_for
from dialects import cann
from dialects.common import dense_from_numpy, ints, numpy_dtype
from dialects.op_kinds import is_pointwise


@dataclass(frozen=True)
class Switch:
    name: str = "HorizontalConvFusion"
    group: str = "GraphFusion"


SWITCH = Switch()


@dataclass
class Merge:
    input: str
    convs: list[str]  # the cube ops merged (convs or matmuls; the report's key since convs came first)
    channels: list[int]  # each piece's channels (padded to C0 where its readers allow)
    padded_readers: list[str]  # convs whose filters got zero input rows for a padded piece


@dataclass
class Skipped:
    input: str
    convs: list[str]
    reason: str


@dataclass
class Report:
    merged: list[Merge] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"merged": [asdict(m) for m in self.merged],
                "skipped": [asdict(s) for s in self.skipped]}


def _name(op: Operation) -> str:
    from compiler.transforms.fusion.engine import describe

    return describe(op)


_Conv: TypeAlias = "cann.Conv2DOp | cann.FusedConv2DOp"
"""The convs merged."""
_Reader: TypeAlias = "cann.Conv2DOp | cann.FusedConv2DOp | cann.FusedConv2DAddOp"
"""The convs whose filters are padded."""
_OpT = TypeVar("_OpT", bound=Operation)


def _known(v: SSAValue) -> np.ndarray:
    """The value of an operand the caller checked is a constant."""
    a = _const(v)
    if a is None:
        raise ValueError(f"{v} is not a constant")
    return a


def _const(v: SSAValue) -> np.ndarray | None:
    from compiler.transforms.fusion.helpers import const_value

    return const_value(v)


def _key(op: Operation):
    """The attributes siblings must share, or None when the op cannot be merged at all."""
    if not isinstance(op, (cann.Conv2DOp, cann.FusedConv2DOp)):
        return None
    if op.groups.value.data != 1 or op.data_format.data != cann.DataFormat.NHWC:
        return None
    if cann.format_of(op.y.type) is not None or any(d < 0 for d in op.y.type.get_shape()):
        return None
    act = op.properties.get("activation")
    alpha = op.properties.get("alpha")
    ws = shape_of(op.filter)
    return (ws[0], ws[1], tuple(ints(op.strides)), tuple(ints(op.pads)), tuple(ints(op.dilations)),
            str(elem_of(op.x)), str_of(act) if act is not None else "none",
            None if alpha is None else num_of(alpha))


MATMULS = (cann.MatMulV2Op, cann.BatchMatMulV2Op, cann.FusedMatMulOp)


def _flag(op: Operation, *names: str) -> bool:
    return any(bool(int_of(op.properties[n])) for n in names if n in op.properties)


def _matmul_key(op: Operation):
    """The attributes sibling matmuls share: a 2-D weight, no transposes, the element type,
    the activation (and its alpha); None when the op cannot be merged (a residual operand,
    dynamic or assigned layouts)."""
    if not isinstance(op, MATMULS) or len(op.operands) > 3:
        return None
    if _flag(op, "transpose_x1", "transpose_x2", "adj_x1", "adj_x2") or len(shape_of(op.operands[1])) != 2:
        return None
    y = op.results[0]
    if cann.format_of(y.type) is not None or any(d < 0 for d in shape_of(y)):
        return None
    act = op.properties.get("activation")
    alpha = op.properties.get("alpha")
    return ("matmul", str(elem_of(op.operands[0])), str_of(act) if act is not None else "none",
            None if alpha is None else num_of(alpha))


def _weight(op: Operation) -> SSAValue:
    return op.filter if isinstance(op, (cann.Conv2DOp, cann.FusedConv2DOp)) else op.operands[1]


def _nonconst_bias(op: Operation) -> bool:
    bias = _bias(op)
    return bias is not None and _const(bias) is None


def _bias(op: Operation) -> SSAValue | None:
    if isinstance(op, (cann.Conv2DOp, cann.FusedConv2DOp)):
        return op.bias
    return op.operands[2] if len(op.operands) > 2 else None


def _result(op: Operation) -> SSAValue:
    return op.results[0]


def _batches(op: Operation) -> int:
    """The batches of a matmul result [.., M, N] (its NZ pieces are contiguous with one)."""
    n = 1
    for d in shape_of(op.results[0])[:-2]:
        n *= d
    return n


def _feeds_epilogue(op: _Conv) -> bool:
    return any(is_pointwise(u.operation) for u in _result(op).uses)


def _padding_readers(op: _Conv) -> list[_Reader] | None:
    """The convs reading op's result as x when every reader is one with a constant filter
    (groups = 1): zero input rows appended to their filters make them read C0-padded channels
    unchanged; else None."""
    readers = [u.operation for u in op.y.uses]
    convs = [r for r in readers if isinstance(r, (cann.Conv2DOp, cann.FusedConv2DOp, cann.FusedConv2DAddOp))]
    if not readers or len(convs) != len(readers) or any(
            r.x is not op.y or r.groups.value.data != 1 or r.data_format.data != cann.DataFormat.NHWC
            or _const(r.filter) is None for r in convs):
        return None
    return convs


def _edge_slab(op: _Conv, first: bool) -> bool:
    """op's result is read once, as the first (first) or last input of a concat (NHWC, channel
    axis), and by no other concat or return: the memory plan can lay the wide output so that
    the piece is both its slab and the concat's (compiler/backend/memory_plan.py)."""
    uses = [u for u in _result(op).uses
            if isinstance(u.operation, (cann.ConcatV2DOp, func.ReturnOp))]
    if len(uses) != 1 or not isinstance(cat := uses[0].operation, cann.ConcatV2DOp):
        return False
    return int_of(cat.concat_dim) in (3, -1) and \
        uses[0].index == (0 if first else len(cat.operands) - 1)


def _plan(ops: list[_Conv], c0: int):
    """(order, padded channels, readers to pad) of the merge, or None when it does not pay.

    The wide output is split on whole C0 blocks (a view the memory plan aliases, no copy) only
    when every piece but the last has a multiple of C0 channels.  A piece off the C0 grid is
    padded to it with zero filter columns when its readers are convs with constant filters
    (which get zero input rows: they read the padding lanes times zero); of the pieces that
    cannot be padded, only one can go last: the others stay separate convs."""
    conv = isinstance(ops[0], (cann.Conv2DOp, cann.FusedConv2DOp))
    chans = {o: int(shape_of(_weight(o))[-1]) for o in ops}
    aligned = [o for o in ops if chans[o] % c0 == 0]
    pad = {o: r for o in ops if chans[o] % c0 and conv for r in [_padding_readers(o)] if r is not None}
    fixed = [o for o in ops if chans[o] % c0 and o not in pad]
    last = max(fixed, key=lambda o: chans[o]) if fixed else None
    order = aligned + [o for o in ops if o in pad] + ([last] if last is not None else [])
    # a piece that is a concat's first input goes last (its last input: first), so the wide
    # output and the concat's buffer meet on it and it is a view of both (no copy)
    edges = []
    if conv and len(order) > 1:
        head = next((o for o in order if _edge_slab(o, True)), None) if last is None else None
        tail = next((o for o in order if o is not head and _edge_slab(o, False)), None)
        order = ([tail] if tail else []) + [o for o in order if o not in (head, tail)] + \
            ([head] if head else [])
        edges = [o for o in (head, tail) if o is not None]
    widths = [chans[o] if o not in pad else -(-chans[o] // c0) * c0 for o in order]
    # launches: each conv is one; the merge is the wide conv, plus a copy for each other piece
    # a concat reads (a concat slab inside the wide output cannot also be a view of it) or the
    # function returns (a model output lives in the caller's buffer, not in the arena)
    copies = sum(1 for o in order if o not in edges and any(
        isinstance(u.operation, (cann.ConcatV2DOp, func.ReturnOp)) for u in _result(o).uses))
    if not conv and _batches(ops[0]) > 1:  # NZ pieces of several batches are strided: copies
        copies = len(order)
    if len(order) < 2 or 1 + copies >= len(order):
        return None
    return order, widths, {o: pad[o] for o in order if o in pad}


def _pad_reader_filter(reader: _Reader, cin: int) -> None:
    """The reader's filter with zero input rows up to cin (it reads that many channels now)."""
    w = _known(reader.filter)
    wp = np.zeros((w.shape[0], w.shape[1], cin, w.shape[3]), w.dtype)
    wp[:, :, :w.shape[2]] = w
    c = with_loc(cann.ConstOp(dense_from_numpy(wp), TensorType(elem_of(reader.filter),
                                                                list(wp.shape))), reader)
    Rewriter.insert_op(c, InsertPoint.before(reader))
    reader.operands[1] = c.results[0]


def _merge_matmuls(group: list[Operation], widths: list[int]) -> Operation:
    """One FusedMatMul with the weights (and biases, zeros where absent) concatenated along N,
    and a SplitVD of its result over the last axis into the former matmuls' results."""
    first = group[0]
    x, et = first.operands[0], elem_of(first.operands[0])
    ws = [_known(_weight(o)) for o in group]
    bs = []
    for o, w in zip(group, ws):
        bias = _bias(o)
        bs.append(_known(bias).astype(w.dtype) if bias is not None else np.zeros(w.shape[1], w.dtype))
    w, b = np.concatenate(ws, axis=1), np.concatenate(bs)
    wc = with_loc(cann.ConstOp(dense_from_numpy(w), TensorType(et, list(w.shape))), first)
    bc = with_loc(cann.ConstOp(dense_from_numpy(b), TensorType(et, [b.shape[0]])), first)
    ys = list(shape_of(first.results[0]))
    ys[-1] = int(w.shape[1])
    false = IntegerAttr(0, i1)
    props: dict[str, Attribute] = {"transpose_x1": false, "transpose_x2": false}
    act = first.properties.get("activation")
    props["activation"] = act if act is not None else cann.ActivationAttr.of(cann.Activation.none)
    if "alpha" in first.properties:
        props["alpha"] = first.properties["alpha"]
    mm = cann.FusedMatMulOp.create(operands=[x, wc.results[0], bc.results[0]],
                                   result_types=[TensorType(et, ys)], properties=props)
    return _split_into(group, [wc, bc], mm, widths, len(ys) - 1, {})


def _split_into(group: Sequence[Operation], consts: list[Operation], wide: Operation, widths: list[int],
                axis: int, padded: dict) -> Operation:
    """Insert the wide op and a SplitVD of its result over `axis` into pieces of `widths`; the
    group's results become the pieces (readers of padded pieces get zero filter rows)."""
    et = elem_of(wide.results[0])
    pieces = []
    for o, width in zip(group, widths):
        t = list(shape_of(_result(o)))
        t[axis] = width
        pieces.append(TensorType(et, t))
    split = cann.SplitVDOp.create(
        operands=[wide.results[0]], result_types=pieces,
        properties={"size_splits": DenseArrayBase.from_list(i64, widths),
                    "split_dim": IntegerAttr(axis, i64), "num_split": IntegerAttr(len(group), i64)})
    with_loc(wide, *group)  # a fused location naming every op merged
    with_loc(split, *group)
    Rewriter.insert_op([*consts, wide, split], InsertPoint.before(group[0]))
    for o, r, width in zip(group, split.results, widths):
        for reader in padded.get(o, ()):
            _pad_reader_filter(reader, width)
        _result(o).replace_all_uses_with(r)
    for o in group:
        Rewriter.erase_op(o)
    return wide


def _merge(group: list[_Conv], widths: list[int], padded: dict) -> Operation:
    first = group[0]
    et = elem_of(first.x)
    ws, bs = [], []
    for o, width in zip(group, widths):
        w = _known(o.filter)
        b = _known(o.bias) if o.bias is not None else np.zeros(w.shape[3], w.dtype)
        ws.append(np.concatenate([w, np.zeros((*w.shape[:3], width - w.shape[3]), w.dtype)], 3))
        bs.append(np.concatenate([b.astype(w.dtype), np.zeros(width - w.shape[3], w.dtype)]))
    w, b = np.concatenate(ws, axis=3), np.concatenate(bs)
    wc = with_loc(cann.ConstOp(dense_from_numpy(w), TensorType(et, list(w.shape))), first)
    bc = with_loc(cann.ConstOp(dense_from_numpy(b), TensorType(et, [b.shape[0]])), first)
    ys = list(shape_of(first.y))
    ys[3] = int(w.shape[3])
    props = {k: first.properties[k] for k in ("strides", "pads", "dilations", "groups",
                                              "data_format")}
    act = first.properties.get("activation")
    props["activation"] = act if act is not None else cann.ActivationAttr.of(cann.Activation.none)
    if "alpha" in first.properties:
        props["alpha"] = first.properties["alpha"]
    conv = cann.FusedConv2DOp.create(operands=[first.x, wc.results[0], bc.results[0]],
                                     result_types=[TensorType(et, ys)], properties=props)
    return _split_into(group, [wc, bc], conv, widths, 3, padded)


def in_block_order(ops: list[_OpT], positions: dict) -> list[_OpT]:
    """`ops` (of one block) in block order.  `positions` keeps each block's op indices across
    the calls of one sweep (no enumeration of the block per group): a sweep that only inserts
    and erases ops keeps the relative order of the ops it held; an op new since the block was
    enumerated enumerates it again."""
    block = parent_block_of(ops[0])
    pos = positions.get(block)
    if pos is None or any(o not in pos for o in ops):
        pos = positions[block] = {op: i for i, op in enumerate(block.ops)}
    return sorted(ops, key=pos.__getitem__)


def all_values(root: Operation) -> list[SSAValue]:
    """Every block argument and op result under `root`, in walk order (the values whose readers
    may be sibling groups)."""
    values: list[SSAValue] = []
    for op in root.walk():
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.args)
        values.extend(op.results)
    return values


def fuse_siblings(root: Operation) -> Report:
    """Merge every group of sibling convs or matmuls in `root` (see the module docstring)."""
    report = Report()
    positions: dict = {}
    for v in all_values(root):
        readers = [u.operation for u in v.uses if u.index == 0]
        groups: dict[tuple, list[_Conv]] = {}
        for op in readers:
            k = _key(op) or _matmul_key(op)
            if k is not None:
                groups.setdefault(k, []).append(op)
        for ops in groups.values():
            if len(ops) < 2 or len({o.parent_block() for o in ops}) != 1:
                continue
            ops = in_block_order(list(dict.fromkeys(ops)), positions)
            names = [_name(o) for o in ops]
            src = _name(v.owner) if isinstance(v.owner, Operation) else "an argument"
            why = []
            epi = [o for o in ops if _feeds_epilogue(o)]
            if epi:
                why.append(f"{len(epi)} feed a pointwise epilogue")
            nonconst = [o for o in ops if o not in epi and (
                _const(_weight(o)) is None or _nonconst_bias(o))]
            if nonconst:
                why.append(f"{len(nonconst)} have a non-constant filter or bias")
            cand = [o for o in ops if o not in epi and o not in nonconst]
            c0 = c0_for(numpy_dtype(elem_of(v)))
            plan = _plan(cand, c0) if len(cand) >= 2 else None
            if plan is None:
                why.append("merging saves no launch (the wide op, plus a copy per piece a "
                           "concat reads or the function returns, or every piece of a batched "
                           "matmul, against one launch per op)")
                report.skipped.append(Skipped(src, names, "; ".join(why)))
                continue
            order, widths, padded = plan
            if isinstance(order[0], MATMULS):
                _merge_matmuls(order, widths)
            else:
                _merge(order, widths, padded)
            report.merged.append(Merge(src, [_name(o) for o in order], widths,
                                       [_name(r) for rs in padded.values() for r in rs]))
    return report
