"""assign-layouts: choose storage formats (cann-facts.md sections 1-3) and insert TransData.

The formats each op runs on are declared on its definition (`RunsOn`, dialects/layouts.py);
one global assignment over the whole function (compiler/transforms/layout_assignment.py: alpha-expansion
by min-cut, minimizing the bytes TransData moves) picks the format of every op.  The patterns
then carry the choice out, applied to a fixed point:
  FoldConstReshape        Reshape of a constant = the constant reshaped (before the choice)
  FoldReduceReshape       ReduceD over H, W then Reshape to [N, 1, 1, C] = the keep_dims
                          reduction (squeeze-excite), so the reduction writes NC1HWC0 directly
  LayoutConv              conv x -> NC1HWC0, filter -> FRACTAL_Z, y -> NC1HWC0, each via a
                          TransData, with a TransData back to the origin format after y (a
                          small-C_in conv: x NC1HWC0_C04, filter FRACTAL_Z_C04,
                          compiler/target/c04.py)
  LayoutPool / LayoutMatMul / LayoutSqueezeExciteGate / LayoutConvScaled
                          the other ops with one device format (NC1HWC0, FRACTAL_NZ)
  LayoutChosen            every other op the assignment moved off ND: its operands read in the
                          chosen format (from the stored value when it was converted back from
                          it, else through a TransData; constants converted at compile time),
                          its results stored, a TransData back to origin after each
  FoldReshapeChain        Reshape(Reshape(x)) = Reshape(x) (= x when it is x's shape)
  TransdataTransdataFold  TransData(A->B) of TransData(B->A) = the original value (the CANN pass
                          of that name)
  MergeTransData          two TransData of one value into one format are one
then xDSL's DCE (compiler/ir/rewriting.erase_dead) erases the TransData, constants and reshapes
left unused.
What remains is a TransData wherever the assignment found no cheaper arrangement: at the
graph's inputs and outputs, and next to an op that has no kernel for its neighbours' format.
`report=-` (or a file) lists each one and why (cann-compile --layout-report).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.ir.rewriting import erase_dead, rewrite, roots, with_loc
from compiler.ir.typed import elem_of, int_of, shape_of
from compiler.target.c04 import c04_conv
from compiler.target.formats import Format, to_storage
from compiler.transforms.canonicalization import TransDataInverse as TransdataTransdataFold  # CANN's name
from compiler.transforms.fusion.auto import PROLOGUE_ATTR
from dialects import cann
from dialects.common import dense_from_numpy, i64_attr, numpy_from_dense


def trans_data(value: SSAValue, src: Format, dst: Format, result_type: TensorType,
               groups: int = 1) -> cann.TransDataOp:
    return cann.TransDataOp(
        operands=[value], result_types=[result_type],
        properties={"src_format": cann.FormatNameAttr.of(src), "dst_format": cann.FormatNameAttr.of(dst),
                    "groups": i64_attr(groups)})


def to_format(value: SSAValue, fmt: Format, origin: Format, groups: int = 1,
              grouped_conv: bool = False) -> cann.TransDataOp:
    return trans_data(value, origin, fmt, cann.storage_type(value.type, fmt, origin, groups,
                                                            grouped_conv), groups)


class LayoutConv(RewritePattern):
    """Conv2D / FusedConv2D / DepthwiseConv2D: x, y NC1HWC0; filter FRACTAL_Z (depthwise: with
    groups = C, the group enlargement rule of cann-facts.md section 3)."""

    applies_to = roots(cann.ConvLike, cann.DepthwiseConv2DOp, cann.FusedConv2DAddOp,
                       cann.FusedDepthwiseConv2DOp)

    def __init__(self, small_channel: bool = True):
        self.small_channel = small_channel  # ATC's --enable_small_channel (C04 where cheaper)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ConvLike, cann.DepthwiseConv2DOp, cann.FusedConv2DAddOp,
                               cann.FusedDepthwiseConv2DOp)):
            return
        if cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for d in shape_of(op.x)) or any(d < 0 for d in shape_of(op.filter)):
            return  # dynamic shapes stay in their origin layout (cann-to-kernel reports them)
        fmt = Format(op.data_format.data)
        groups = int_of(op.properties["groups"]) if "groups" in op.properties else 1  # grouped Conv2D
        if isinstance(op, (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)):
            groups = cann.origin_shape(op.filter.type)[2]
        c04 = self.small_channel and c04_conv(op)  # a small-C_in conv: x NC1HWC0_C04, its taps packed in K
        x5 = to_format(op.x, Format.NC1HWC0_C04 if c04 else Format.NC1HWC0, fmt)
        extra = []
        # a depthwise conv run in its 1x1 reader's A tiles keeps its HWCN filter: the taps read it
        # as channel vectors (compiler/transforms/fusion/depthwise.py)
        pro = PROLOGUE_ATTR in op.attributes and isinstance(
            op, (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp))
        if pro:
            wfz, w = None, op.filter
        elif c04:  # compiler/target/c04.py
            wfz = to_format(op.filter, Format.FRACTAL_Z_C04,
                            Format.ND if isinstance(op, cann.Conv3DOp) else Format.HWCN)
            w = wfz.dst
            extra.append(wfz)
        elif isinstance(op, cann.Conv3DOp):  # a DHWCN filter (formats.py FRACTAL_Z_3D)
            wfz = to_format(op.filter, Format.FRACTAL_Z_3D, Format.ND)
            w = wfz.dst
            extra.append(wfz)
        else:
            wfz = to_format(op.filter, Format.FRACTAL_Z, Format.HWCN, groups,
                            grouped_conv=groups != 1 and "groups" in op.properties)
            w = wfz.dst
            extra.append(wfz)
        operands: list[SSAValue | list[SSAValue]] = [x5.dst, w, [op.bias] if op.bias is not None else []]
        if isinstance(op, cann.FusedConv2DAddOp):
            r5 = to_format(op.residual, Format.NC1HWC0, fmt)
            extra.append(r5)
            operands.append(r5.dst)
        conv = type(op)(
            operands=operands,
            result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
            properties=dict(op.properties))
        if PROLOGUE_ATTR in op.attributes:  # (a depthwise prologue, a conv staged in a window)
            conv.attributes[PROLOGUE_ATTR] = op.attributes[PROLOGUE_ATTR]
        back = trans_data(conv.y, Format.NC1HWC0, fmt, op.y.type)
        for new in (x5, *extra, conv, back):
            with_loc(new, op)
        rewriter.replace(op, [x5, *extra, conv, back])


def _from_stored(v: SSAValue):
    """(stored value, its FormatAttr) when v is a TransData back to the origin of a formatted value."""
    p = v.owner
    if isinstance(p, cann.TransDataOp) and cann.format_of(v.type) is None:
        f = cann.format_of(p.src.type)
        if f is not None and f.fmt in (Format.NC1HWC0, Format.FRACTAL_NZ) and f.origin_fmt is not None:
            return p.src, f
    return None


class LayoutSqueezeExciteGate(RewritePattern):
    """FusedSqueezeExcite: x NC1HWC0, gate NC1HWC0 (N, C1, 1, 1, C0), as the scaled conv reads
    it; the 1x1 weights and biases stay ND (the gate kernel reads them as matrices)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.FusedSqueezeExciteOp, rewriter: PatternRewriter):
        if cann.format_of(op.y.type) is not None or any(d < 0 for d in shape_of(op.x)):
            return
        x5 = to_format(op.x, Format.NC1HWC0, Format.NHWC)
        new = type(op)(operands=[x5.dst, *op.operands[1:]],
                       result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, Format.NHWC)],
                       properties=dict(op.properties))
        back = trans_data(new.y, Format.NC1HWC0, Format.NHWC, op.y.type)
        rewriter.replace(op, [with_loc(x5, op), with_loc(new, op), with_loc(back, op)])


class LayoutConvScaled(RewritePattern):
    """FusedConv2DScaled: as LayoutConv, and the scale NC1HWC0 (N, C1, 1, 1, C0): the channel
    split of x's C1 x C0, so the kernel multiplies A tiles by it column for column."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.FusedConv2DScaledOp, rewriter: PatternRewriter):
        if cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for v in (op.x, op.filter, op.scale) for d in shape_of(v)):
            return
        fmt = Format(op.data_format.data)
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        wfz = to_format(op.filter, Format.FRACTAL_Z, Format.HWCN, op.groups.value.data,
                        grouped_conv=op.groups.value.data != 1)
        s5 = to_format(op.scale, Format.NC1HWC0, fmt)
        extra = [to_format(op.residual, Format.NC1HWC0, fmt)] if op.residual is not None else []
        conv = type(op)(operands=[x5.dst, wfz.dst, op.bias, s5.dst, [e.dst for e in extra]],
                        result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
                        properties=dict(op.properties))
        back = trans_data(conv.y, Format.NC1HWC0, fmt, op.y.type)
        new_ops = [x5, wfz, s5, *extra, conv, back]
        rewriter.replace(op, [with_loc(n, op) for n in new_ops])


class FoldConstReshape(RewritePattern):
    """Reshape of a constant = the constant with the new shape (weights stay compile-time)."""

    applies_to = roots(cann.ReshapeOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReshapeOp):
            return
        const = op.x.owner
        if not isinstance(const, cann.ConstOp) or cann.format_of(op.x.type) is not None \
                or cann.format_of(op.y.type) is not None or any(d < 0 for d in op.y.type.get_shape()):
            return
        arr = numpy_from_dense(const.value).reshape(op.y.type.get_shape())
        rewriter.replace(op, with_loc(cann.ConstOp(dense_from_numpy(np.ascontiguousarray(arr)),
                                                   op.y.type), const))


class LayoutPool(RewritePattern):
    """MaxPool / AvgPool run per channel over H, W: on NC1HWC0."""

    applies_to = roots(cann.PoolOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.PoolOp) or cann.format_of(op.y.type) is not None:
            return
        if any(d < 0 for d in shape_of(op.x)):
            return
        fmt = Format(op.data_format.data)
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        new = type(op).create(operands=[x5.dst],
                              result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        back = trans_data(new.results[0], Format.NC1HWC0, fmt, op.y.type)
        for n in (x5, new, back):
            with_loc(n, op)
        rewriter.replace(op, [x5, new, back])


class LayoutMatMul(RewritePattern):
    """The MatMulLike ops (MatMulV2, BatchMatMulV2, FusedMatMul): operands and result FRACTAL_NZ
    (bias stays ND)."""

    applies_to = roots(cann.MatMulLike)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.MatMulLike):
            return
        y = op.y
        if cann.format_of(y.type) is not None:
            return
        if any(d < 0 for v in (*op.operands, y) for d in v.type.get_shape()):
            return
        x1 = to_format(op.operands[0], Format.FRACTAL_NZ, Format.ND)
        x2 = to_format(op.operands[1], Format.FRACTAL_NZ, Format.ND)
        new = type(op).create(operands=[x1.dst, x2.dst, *op.operands[2:]],
                              result_types=[cann.storage_type(y.type, Format.FRACTAL_NZ, Format.ND)],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        back = trans_data(new.results[0], Format.FRACTAL_NZ, Format.ND, y.type)
        for n in (x1, x2, new, back):
            with_loc(n, op)
        rewriter.replace(op, [x1, x2, new, back])


class FoldReduceReshape(RewritePattern):
    """Squeeze-excite (EfficientNet): ReduceMeanD over H, W without keep_dims, then a Reshape
    to [N, 1, 1, C] (NHWC; [N, C, 1, 1] for NCHW) = the keep_dims reduction.  Its NC1HWC0
    result (N, C1, 1, 1, C0) is then what the SE branch's convs read, with no TransData."""

    applies_to = roots(cann.ReshapeOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReshapeOp) or cann.format_of(op.y.type) is not None:
            return
        red = op.x.owner
        if not isinstance(red, cann.ReduceDOp) or len(list(red.results[0].uses)) != 1 \
                or red.keep_dims.value.data or cann.format_of(red.x.type) is not None:
            return
        xs = list(shape_of(red.x))
        fmt = _layout_fmt(red)
        hw = (1, 2) if fmt == Format.NHWC else (2, 3)
        from dialects.common import ints
        if len(xs) != 4 or tuple(sorted(a % 4 for a in ints(red.axes))) != hw:
            return
        want = [xs[0], 1, 1, xs[3]] if fmt == Format.NHWC else [xs[0], xs[1], 1, 1]
        if list(op.y.type.get_shape()) != want:
            return
        props = dict(red.properties)
        props["keep_dims"] = IntegerAttr(1, red.keep_dims.type)
        rewriter.replace(op, with_loc(type(red).create(operands=[red.x], result_types=[op.y.type],
                                                       properties=props,
                                                       attributes=dict(red.attributes)), red, op))
        rewriter.erase(red)


def _layout_fmt(op) -> Format:
    from compiler.transforms.layout_assignment import origin_format

    return Format(origin_format(op))


def _origin_of(op, fmt: str) -> Format:
    return _layout_fmt(op) if fmt == Format.NC1HWC0.value else Format.ND


def _const_in(op, v: SSAValue, fmt: str, full: bool):
    """A constant operand converted at compile time for `op` running on `fmt`: broadcast to the
    result's shape (full), or for a broadcasting kernel over all but C (scalars stay)."""
    const = v.owner
    if not isinstance(const, cann.ConstOp):
        raise ValueError(f"{v} is not a cann.Const")
    arr = numpy_from_dense(const.value)
    y = tuple(cann.origin_shape(op.results[0].type))
    if arr.size == 1 and not full:
        return None, v
    if fmt == Format.FRACTAL_NZ.value:
        arr = np.broadcast_to(arr, y)
    else:
        arr = arr.reshape((1,) * (len(y) - arr.ndim) + arr.shape)
        if full:
            arr = np.broadcast_to(arr, y)
        else:
            c = 1 if _layout_fmt(op) == Format.NCHW else 3
            if arr.shape[c] == 1:
                arr = np.broadcast_to(arr, arr.shape[:c] + (y[c],) + arr.shape[c + 1:])
    arr = np.ascontiguousarray(arr)
    origin = _origin_of(op, fmt)
    st = to_storage(arr, Format(fmt), origin)
    t = TensorType(elem_of(const.value.type), st.shape, cann.FormatAttr(Format(fmt), origin, arr.shape))
    new = with_loc(cann.ConstOp(dense_from_numpy(st), t), const)
    return new, new.output


class LayoutChosen(RewritePattern):
    """An op the global assignment put on a device format (compiler/transforms/layout_assignment.py):
    each operand is read as io_layouts says (the stored value when the operand was just
    converted back from that format, else a TransData; a constant converted at compile time;
    parameters unchanged), each result stored, with a TransData back to origin after it.
    The TransData pairs this leaves between two ops on one format cancel
    (TransdataTransdataFold)."""

    def __init__(self, choices: dict):
        self.choices = choices
        classes = frozenset(type(o) for o in choices)  # (ops made by the rewrite are not chosen)
        self.applies_to = classes.__contains__

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        from compiler.transforms.layout_assignment import io_layouts
        from dialects.layouts import runs_on

        fmt = self.choices.get(op)
        if fmt is None or any(cann.format_of(r.type) is not None for r in op.results):
            return
        ins, outs = io_layouts(op, fmt)
        full = runs_on(op).rule(fmt) in ("same", "kernel")
        new_ops, operands = [], []
        for v, want in zip(op.operands, ins):
            if want is None or want == Format.ND.value or cann.format_of(v.type) is not None:
                operands.append(v)
                continue
            if isinstance(v.owner, cann.ConstOp):
                c, nv = _const_in(op, v, want, full)
                new_ops += [c] if c is not None else []
                operands.append(nv)
                continue
            s = _from_stored(v)
            if s is not None and s[1].fmt.value == want and s[1].origin_fmt == _origin_of(op, want):
                operands.append(s[0])
                continue
            td = with_loc(to_format(v, Format(want), _origin_of(op, want)), op)
            new_ops.append(td)
            operands.append(td.dst)
        nd = Format.ND.value  # a result written in its origin layout (a reduction over C)
        rts = [r.type if f == nd else cann.storage_type(r.type, Format(f), _origin_of(op, f))
               for r, f in zip(op.results, outs)]
        new = with_loc(type(op).create(operands=operands, result_types=rts,
                                       properties=dict(op.properties), attributes=dict(op.attributes),
                                       regions=[r.clone() for r in op.regions]), op)
        backs = [None if f == nd else with_loc(trans_data(n, Format(f), _origin_of(op, f), r.type), op)
                 for n, f, r in zip(new.results, outs, op.results)]
        rewriter.replace(op, [*new_ops, new, *(b for b in backs if b is not None)],
                         [n if b is None else b.dst for n, b in zip(new.results, backs)])


class FoldReshapeChain(RewritePattern):
    """Reshape(Reshape(x)) = Reshape(x) on row-major values (a reshape keeps the row-major
    element order), and = x when that is x's own shape (Tensordot's [M, N] -> [1, M, N] ->
    [M, N] between two matmuls): the TransData pair around the chain then cancels.  The same
    for chains of FRACTAL_NZ batch views (LayoutReshapeNZ), which compose to one."""

    applies_to = roots(cann.ReshapeOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, cann.ReshapeOp):
            return
        inner = op.x.owner
        if not isinstance(inner, cann.ReshapeOp):
            return
        fmts = [cann.format_of(t) for t in (inner.x.type, op.x.type, op.y.type)]
        if any(f is not None for f in fmts) and not (
                all(f is not None and f.fmt == Format.FRACTAL_NZ for f in fmts)
                and len({f.origin[-2:] for f in fmts if f is not None}) == 1):
            return
        if inner.x.type == op.y.type:
            rewriter.replace(op, [], [inner.x])
            return
        rewriter.replace(op, with_loc(cann.ReshapeOp.create(
            operands=[inner.x], result_types=[op.y.type], properties=dict(op.properties),
            attributes=dict(op.attributes)), op))


class FoldConstTransData(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        const = op.src.owner
        if not isinstance(const, cann.ConstOp) or cann.format_of(const.output.type) is not None:
            return
        value = to_storage(numpy_from_dense(const.value), op.dst_format.data,
                           op.src_format.data, op.groups.value.data,
                           getattr(cann.format_of(op.dst.type), "is_grouped_conv", False))
        rewriter.replace(op, with_loc(cann.ConstOp(dense_from_numpy(value), op.dst.type), const))


class MergeTransData(RewritePattern):
    """Two TransData of one value into one format are one (a graph input read by several convs
    is converted once): the later is replaced by the earlier."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        for use in op.src.uses:
            other = use.operation
            if other is not op and isinstance(other, cann.TransDataOp) \
                    and other.parent_block() is op.parent_block() and other.is_before_in_block(op) \
                    and other.dst.type == op.dst.type and other.properties == op.properties:
                rewriter.replace(op, [], [other.dst])
                return


@dataclass(frozen=True)
class AssignLayoutsPass(ModulePass):
    name = "assign-layouts"

    report: str = ""
    """Where to list every TransData left and why: "-" for stderr, else a file path."""

    small_channel: bool = True
    """ATC's --enable_small_channel: a conv of C_in <= 4 takes NC1HWC0_C04 where that is cheaper
    (compiler/target/c04.py); False: every conv keeps NC1HWC0."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.transforms.layout_assignment import choose, report_lines

        rewrite(op, [FoldConstReshape(), FoldReduceReshape(), FoldReshapeChain()])
        choices = choose(op)
        rewrite(op, [LayoutConv(self.small_channel), LayoutPool(), LayoutMatMul(), LayoutSqueezeExciteGate(),
                     LayoutConvScaled(), LayoutChosen(choices), FoldReshapeChain(),
                     FoldConstTransData(), TransdataTransdataFold(), MergeTransData()])
        # the TransData, constants and reshapes the patterns left unused (other unused ops stay
        # for cann-to-kernel to lower or diagnose)
        erase_dead(op, only=(cann.TransDataOp, cann.ConstOp, cann.ReshapeOp))
        if self.report:
            text = "\n".join(report_lines(op)) + "\n"
            if self.report == "-":
                sys.stderr.write(text)
            else:
                with open(self.report, "w", encoding="utf-8") as f:
                    f.write(text)
