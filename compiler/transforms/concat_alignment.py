"""Concat slabs on the C0 grid: channels padded so that every concat over C is zero-copy.

On NC1HWC0 a concat over C writes each input into its slab of the concat's buffer for free
only when the slab starts at a channel offset that is a multiple of C0 (compiler/backend/
memory_plan.py, `concat_slab_offsets`); a densely connected block (growth 12, 24-channel stem)
puts most slabs off that grid, and each such concat is a copy kernel.  This pass pads channels
instead: a value gets a *channel layout* (the padded index of each of its channels and the padded
count), the extra channels are junk that no result depends on, and every concat input becomes a
multiple of C0 channels.  The layouts propagate over the graph by op kind:

  producers   a conv (groups 1, NHWC, constant filter and bias) makes any layout: zero filter
              columns (and bias entries) at the padded channels, so they hold act(0);
              a concat's layout is its inputs' layouts one after the other (each input padded
              to a multiple of C0: the next slab starts on the grid);
              a per-channel pointwise op or FusedKernel (its other inputs scalars, per-channel
              constant vectors, padded with zeros, or tensors of its shape, given the same
              layout) and a pool pass the layout from input to result;
  consumers   a conv reading it as x (groups 1, constant filter) gets zero filter rows at the
              padded channels (they count for nothing); a MatMulV2 reading it as x1 (a
              constant x2) zero rows of x2; a pointwise op or FusedKernel, a pool or a
              reduction over other axes than C give their result the same layout (and its
              consumers are checked in turn); a concat over C makes every input a multiple of C0.
Anything else reading a padded value (a function result, a reshape, a reduction over C, a
depthwise conv, ...) and the whole connected set of values is left as it is.  Pointwise bodies
are limited to ops that are finite at 0 (trait FiniteOnFinite), so the junk channels stay
finite and times the zero rows count for nothing.  The extra channels cost no cube MACs on a C0-padded output
(an output of 12 channels is one C0 block either way); a reader's K grows by the padding.

Cost: a concat copy is a launch (LAUNCH_OVERHEAD_US in compiler/backend/perf_report.py) and the
concat's bytes read and written once more; the pass pads only where a concat input is off the
grid, and `--disable`: the pass is `align-concat-slabs` (cann-compile runs it before
assign-layouts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, is_static, shape_of
from compiler.target.formats import c0_for
from dialects import cann
from dialects.common import dense_from_numpy, ints, numpy_dtype
from dialects.op_kinds import FiniteOnFinite, is_pointwise

_CONVS = (cann.Conv2DOp, cann.FusedConv2DOp)


@dataclass(frozen=True)
class Layout:
    pos: tuple[int, ...]  # padded channel index of each channel
    total: int

    @property
    def identity(self) -> bool:
        return self.total == len(self.pos)


def _tail(c: int, c0: int) -> Layout:
    return Layout(tuple(range(c)), -(-c // c0) * c0)


@dataclass
class Report:
    concats: list[str] = field(default_factory=list)  # aligned concats
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (concat, why)


def _const(v: SSAValue) -> np.ndarray | None:
    o = v.owner
    if isinstance(o, cann.ConstOp) and cann.format_of(v.type) is None:
        from dialects.common import numpy_from_dense

        return numpy_from_dense(o.value)
    return None


def _static(v: SSAValue) -> bool:
    """A static tensor with no device format yet."""
    return is_static(v) and cann.format_of(v.type) is None


def _channels_axis_concat(op: Operation) -> TypeGuard[cann.ConcatV2DOp]:
    if not isinstance(op, cann.ConcatV2DOp) or not _static(op.results[0]):
        return False
    rank = len(shape_of(op.results[0]))
    return rank == 4 and op.concat_dim.value.data % rank == rank - 1


def _conv_ok(op: Operation) -> TypeGuard[cann.Conv2DOp | cann.FusedConv2DOp]:
    return (isinstance(op, _CONVS) and op.groups.value.data == 1
            and op.data_format.data == cann.DataFormat.NHWC and _const(op.filter) is not None
            and (op.bias is None or _const(op.bias) is not None) and _static(op.y))


def _matmul_ok(op: Operation) -> TypeGuard[cann.MatMulV2Op | cann.FusedMatMulOp]:
    """A 2-D matmul x1 @ x2 (x1 not transposed) with a constant x2."""
    return (isinstance(op, (cann.MatMulV2Op, cann.FusedMatMulOp)) and not op.transpose_x1.value.data
            and len(shape_of(op.x1)) == 2 and _const(op.x2) is not None and _static(op.y))


def _reduce_keeps_c(op: Operation) -> bool:
    """A reduction over other axes than the last (C), C the last axis of its result."""
    if not isinstance(op, cann.ReduceDOp) or not _static(op.results[0]) or not _static(op.x):
        return False
    rank = len(shape_of(op.x))
    return (rank - 1 not in {a % rank for a in ints(op.axes)}
            and shape_of(op.results[0])[-1] == shape_of(op.x)[-1])


def _pointwise_ok(op: Operation) -> bool:
    """A pointwise op (or FusedKernel of such ops) finite at 0, one result."""
    if len(op.results) != 1 or not _static(op.results[0]):
        return False
    if isinstance(op, cann.FusedKernelOp):
        body = [o for o in op.body.block.ops if not isinstance(o, (cann.YieldOp, cann.ConstOp))]
        return all(o.has_trait(FiniteOnFinite) and len(o.results) == 1 for o in body)
    return is_pointwise(op) and op.has_trait(FiniteOnFinite)


def _is_vector(v: SSAValue, c: int) -> bool:
    s = list(shape_of(v))
    return len(s) >= 1 and s[-1] == c and all(d == 1 for d in s[:-1]) and (len(s) > 1 or c > 1)


def _scalar(v: SSAValue) -> bool:
    return int(np.prod(shape_of(v))) == 1


class _Solve:
    def __init__(self, c0: int, pad_last: bool = True):
        self.c0, self.pad_last = c0, pad_last
        self.lay: dict[SSAValue, Layout] = {}
        self.queue: list[SSAValue] = []
        self.why = ""

    def fail(self, why: str) -> bool:
        self.why = self.why or why
        return False

    def assign(self, v: SSAValue, lay: Layout) -> bool:
        if v in self.lay:
            return self.lay[v] == lay or self.fail(f"{_name(v)} needs two channel layouts")
        self.lay[v] = lay  # an identity layout is kept too: a later request must agree with it
        if not lay.identity:
            self.queue.append(v)
        return True

    def run(self) -> bool:
        while self.queue:
            v = self.queue.pop()
            if not (self.produce(v) and self.consume(v)):
                return False
        return True

    def concat(self, op: cann.ConcatV2DOp) -> bool:
        pos: list[int] = []
        total = 0
        ins = list(op.operands)
        for i, x in enumerate(ins):
            c = shape_of(x)[-1]
            last = i + 1 == len(ins)
            lay = self.lay.get(x) or (_tail(c, self.c0) if self.pad_last or not last
                                      else Layout(tuple(range(c)), c))
            if not last and lay.total % self.c0:
                return self.fail(f"{_name(x)} does not end on the C0 grid (another layout)")
            if not self.assign(x, lay):
                return False
            pos += [total + p for p in lay.pos]
            total += lay.total
        return self.assign(op.results[0], Layout(tuple(pos), total))

    def produce(self, v: SSAValue) -> bool:
        p = v.owner
        lay = self.lay[v]
        if not isinstance(p, Operation):
            return self.fail(f"{_name(v)} is a function argument")
        if _conv_ok(p):
            return True
        if _channels_axis_concat(p):
            pos, total = [], 0
            for x in p.operands:
                lx = self.lay.get(x) or Layout(tuple(range(shape_of(x)[-1])), shape_of(x)[-1])
                pos += [total + q for q in lx.pos]
                total += lx.total
            return Layout(tuple(pos), total) == lay or self.fail(f"{_name(v)}: concat layout")
        if isinstance(p, cann.PoolOp) and p.data_format.data == cann.DataFormat.NHWC \
                or _reduce_keeps_c(p):
            return self.assign(p.operands[0], lay)
        if _pointwise_ok(p):
            return self._pointwise_operands(p, lay)
        return self.fail(f"producer {_name(v)} ({p.name}) cannot pad its channels")

    def _pointwise_operands(self, op: Operation, lay: Layout) -> bool:
        shape = shape_of(op.results[0])
        c = shape[-1]
        for x in op.operands:
            if shape_of(x) == shape:
                if not self.assign(x, lay):
                    return False
            elif _scalar(x):
                continue
            elif _is_vector(x, c) and _const(x) is not None:
                continue
            else:
                return self.fail(f"{op.name} reads {_name(x)}, neither of its shape, a scalar nor a "
                                 "constant per-channel vector")
        return True

    def consume(self, v: SSAValue) -> bool:
        lay = self.lay[v]
        for use in list(v.uses):
            u, i = use.operation, use.index
            if _conv_ok(u) and i == 0:
                continue
            if _matmul_ok(u) and i == 0:
                continue
            if _channels_axis_concat(u):
                if not self.concat(u):
                    return False
                continue
            if isinstance(u, cann.PoolOp) and i == 0 and u.data_format.data == cann.DataFormat.NHWC:
                if not self.assign(u.results[0], lay):
                    return False
                continue
            if _reduce_keeps_c(u):
                if not self.assign(u.results[0], lay):
                    return False
                continue
            if _pointwise_ok(u) and shape_of(u.results[0]) == shape_of(v):
                if not (self.assign(u.results[0], lay) and self._pointwise_operands(u, lay)):
                    return False
                continue
            return self.fail(f"{_name(v)} is read by {u.name}, which cannot take padded channels")
        return True


def _name(v: SSAValue) -> str:
    o = v.owner
    if isinstance(o, Operation):
        from compiler.transforms.fusion.engine import describe

        return describe(o)
    return "a block argument"


def _padded_type(v: SSAValue, total: int) -> TensorType:
    s = list(shape_of(v))
    s[-1] = total
    return TensorType(elem_of(v), s)


def _new_const(a: np.ndarray, et, before: Operation) -> SSAValue:
    c = with_loc(cann.ConstOp(dense_from_numpy(a.astype(numpy_dtype(et)))), before)
    Rewriter.insert_op(c, InsertPoint.before(before))
    return c.results[0]


def _pad_vector(x: SSAValue, lay: Layout, before: Operation) -> SSAValue:
    a = _const(x)
    assert a is not None
    out = np.zeros((*a.shape[:-1], lay.total), a.dtype)
    out[..., list(lay.pos)] = a
    return _new_const(out, elem_of(x), before)


def _apply(lay: dict[SSAValue, Layout]) -> None:
    ops: list[Operation] = []
    for v in lay:
        if isinstance(v.owner, Operation) and v.owner not in ops:
            ops.append(v.owner)
        for u in v.uses:
            if u.operation not in ops:
                ops.append(u.operation)
    for op in ops:
        if _conv_ok(op) and (op.x in lay or op.y in lay):
            w = _const(op.filter)
            assert w is not None  # _conv_ok: a constant filter
            li, lo = lay.get(op.x), lay.get(op.y)
            ci = li.total if li else w.shape[2]
            co = lo.total if lo else w.shape[3]
            rows = list(li.pos) if li else list(range(w.shape[2]))
            cols = list(lo.pos) if lo else list(range(w.shape[3]))
            nw = np.zeros((w.shape[0], w.shape[1], ci, co), w.dtype)
            nw[np.ix_(range(w.shape[0]), range(w.shape[1]), rows, cols)] = w
            op.operands[1] = _new_const(nw, elem_of(op.filter), op)
            if lo is not None and op.bias is not None:
                op.operands[2] = _pad_vector(op.bias, lo, op)
        elif _matmul_ok(op) and op.x1 in lay:
            b, li = _const(op.x2), lay[op.x1]
            assert b is not None  # _matmul_ok: a constant x2
            if op.transpose_x2.value.data:
                nb = np.zeros((b.shape[0], li.total), b.dtype)
                nb[:, list(li.pos)] = b
            else:
                nb = np.zeros((li.total, b.shape[1]), b.dtype)
                nb[list(li.pos), :] = b
            op.operands[1] = _new_const(nb, elem_of(op.x2), op)
        elif op.results and op.results[0] in lay and _pointwise_ok(op):
            r = lay[op.results[0]]
            c = len(r.pos)
            shape = shape_of(op.results[0])
            for i, x in enumerate(list(op.operands)):
                if shape_of(x) != shape and not _scalar(x) and _is_vector(x, c):
                    op.operands[i] = _pad_vector(x, r, op)
            if isinstance(op, cann.FusedKernelOp):
                for arg, x in zip(op.body.block.args, op.operands):
                    arg._type = cann.origin_tensor_type(x.type) if x not in lay else \
                        _padded_type(arg, lay[x].total)
                for o in op.body.block.ops:
                    for res in o.results:
                        if list(shape_of(res)) == list(shape) or _is_vector(res, c):
                            res._type = _padded_type(res, r.total)
    for v, layout in lay.items():
        if layout.identity:
            continue
        v._type = _padded_type(v, layout.total)  # (the value keeps its uses: a type change only)


def align_concat_slabs(root: Operation) -> Report:
    """Pad channels so that every concat over C of `root` has its slabs on the C0 grid, where the
    graph around it allows (module docstring)."""
    report = Report()
    for op in list(root.walk()):
        if not _channels_axis_concat(op) or op.parent is None:
            continue
        try:
            c0 = c0_for(numpy_dtype(elem_of(op.results[0])))
        except ValueError:
            continue
        offs, off = [], 0
        for x in op.operands:
            offs.append(off)
            off += shape_of(x)[-1]
        if all(o % c0 == 0 for o in offs):
            continue
        # every input padded (a concat read by the next one as a slab ends on the grid too), else
        # all but the last
        for pad_last in (True, False):
            s = _Solve(c0, pad_last)
            if s.concat(op) and s.run():
                _apply(s.lay)
                report.concats.append(_name(op.results[0]))
                break
        else:
            report.skipped.append((_name(op.results[0]), s.why))
    return report
