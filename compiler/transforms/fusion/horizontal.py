"""Horizontal fusion of sibling cube ops (issue 12): convs that read the same input with the same
geometry become one conv with their filters (and biases) concatenated along Cout; each former
conv's result is then a channel piece of the wide conv's output (one cann.SplitVD over C).

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

Cost (launch count, the perf report's dominant term at LAUNCH_OVERHEAD_US per launch,
compiler/backend/perf_report.py): k separate convs are k launches; the merge is the wide conv
plus one copy for each piece a concat reads (a concat slab cannot also be a view of the wide
output) or the function returns (its buffer is the caller's).  The merge is done when it launches fewer
kernels.  Each merge, and each group of
siblings left alone with the reason, is in the fusion report.  Switch: HorizontalConvFusion
(group GraphFusion).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TypeAlias, TypeVar

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, num_of, parent_block_of, shape_of, str_of
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
    convs: list[str]
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


def _feeds_epilogue(op: _Conv) -> bool:
    return any(is_pointwise(u.operation) for u in op.y.uses)


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


def _plan(ops: list[_Conv], c0: int):
    """(order, padded channels, readers to pad) of the merge, or None when it does not pay.

    The wide output is split on whole C0 blocks (a view the memory plan aliases, no copy) only
    when every piece but the last has a multiple of C0 channels.  A piece off the C0 grid is
    padded to it with zero filter columns when its readers are convs with constant filters
    (which get zero input rows: they read the padding lanes times zero); of the pieces that
    cannot be padded, only one can go last: the others stay separate convs."""
    chans = {o: int(shape_of(o.filter)[3]) for o in ops}
    aligned = [o for o in ops if chans[o] % c0 == 0]
    pad = {o: r for o in ops if chans[o] % c0 for r in [_padding_readers(o)] if r is not None}
    fixed = [o for o in ops if chans[o] % c0 and o not in pad]
    last = max(fixed, key=lambda o: chans[o]) if fixed else None
    order = aligned + [o for o in ops if o in pad] + ([last] if last is not None else [])
    widths = [chans[o] if o not in pad else -(-chans[o] // c0) * c0 for o in order]
    # launches: each conv is one; the merge is the wide conv, plus a copy for each piece a
    # concat reads (a concat slab cannot also be a view of the wide output) or the function
    # returns (a model output lives in the caller's buffer, not in the arena)
    copies = sum(1 for o in order if any(isinstance(u.operation, (cann.ConcatV2DOp, func.ReturnOp))
                                         for u in o.y.uses))
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
    pieces = []
    for o, width in zip(group, widths):
        t = list(shape_of(o.y))
        t[3] = width
        pieces.append(TensorType(et, t))
    split = cann.SplitVDOp.create(
        operands=[conv.results[0]], result_types=pieces,
        properties={"size_splits": DenseArrayBase.from_list(i64, widths),
                    "split_dim": IntegerAttr(3, i64), "num_split": IntegerAttr(len(group), i64)})
    with_loc(conv, *group)  # a fused location naming every conv merged
    with_loc(split, *group)
    Rewriter.insert_op([wc, bc, conv, split], InsertPoint.before(first))
    for o, r, width in zip(group, split.results, widths):
        for reader in padded.get(o, ()):
            _pad_reader_filter(reader, width)
        o.y.replace_all_uses_with(r)
    for o in group:
        Rewriter.erase_op(o)
    return conv


def _in_block_order(ops: list[_OpT]) -> list[_OpT]:
    block = parent_block_of(ops[0])
    pos = {op: i for i, op in enumerate(block.ops)}
    return sorted(ops, key=lambda o: pos[o])


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
    """Merge every group of sibling convs in `root` (see the module docstring)."""
    report = Report()
    for v in all_values(root):
        readers = [u.operation for u in v.uses if u.index == 0]
        groups: dict[tuple, list[_Conv]] = {}
        for op in readers:
            k = _key(op)
            if k is not None and isinstance(op, (cann.Conv2DOp, cann.FusedConv2DOp)):
                groups.setdefault(k, []).append(op)
        for ops in groups.values():
            if len(ops) < 2 or len({o.parent_block() for o in ops}) != 1:
                continue
            ops = _in_block_order(list(dict.fromkeys(ops)))
            names = [_name(o) for o in ops]
            src = _name(v.owner) if isinstance(v.owner, Operation) else "an argument"
            why = []
            epi = [o for o in ops if _feeds_epilogue(o)]
            if epi:
                why.append(f"{len(epi)} feed a pointwise epilogue")
            nonconst = [o for o in ops if o not in epi and (
                _const(o.filter) is None or (o.bias is not None and _const(o.bias) is None))]
            if nonconst:
                why.append(f"{len(nonconst)} have a non-constant filter or bias")
            cand = [o for o in ops if o not in epi and o not in nonconst]
            c0 = c0_for(numpy_dtype(elem_of(ops[0].x)))
            plan = _plan(cand, c0) if len(cand) >= 2 else None
            if plan is None:
                why.append("merging saves no launch (the wide conv, plus a copy per piece a "
                           "concat reads, against one launch per conv)")
                report.skipped.append(Skipped(src, names, "; ".join(why)))
                continue
            order, widths, padded = plan
            _merge(order, widths, padded)
            report.merged.append(Merge(src, [_name(o) for o in order], widths,
                                       [_name(r) for rs in padded.values() for r in rs]))
    return report
