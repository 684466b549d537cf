"""A PadD read only by convolutions folds into each of them (CANN's PadConv2dFusionPass for a
pad with several consumers; the rules in rules/00_conv.rules take a pad with one).

A zero PadD of H and W only (NHWC, helpers.spatial_pad_only) whose every live consumer is a
Conv2D / FusedConv2D / DepthwiseConv2D / FusedDepthwiseConv2D reading it as its data input x
(NHWC): each consumer reads the unpadded x and adds the paddings to its own `pads` (a conv's
pads are zeros, exactly what the PadD wrote), so the pad is no kernel.  NASNet pads once before
the two separable convs of a reduction cell that read the same input.  Switch name
PadConv2dFusionPass (the rule's): turning it off keeps every pad.
"""

from __future__ import annotations

from xdsl.ir import Operation

from compiler.ir.typed import elem_of, shape_of
from dialects import cann
from dialects.common import int_array

CONV_READERS = (cann.Conv2DOp, cann.FusedConv2DOp, cann.DepthwiseConv2DOp,
                cann.FusedDepthwiseConv2DOp)


def _reads_as_x(u: Operation, v) -> bool:
    return (isinstance(u, CONV_READERS) and u.data_format.data == "NHWC"
            and u.operands[0] is v and all(o is not v for o in u.operands[1:]))


def fold_shared_pads(root: Operation) -> int:
    """Fold every PadD whose consumers are all convolutions (reading it as x); returns how many."""
    from compiler.transforms.fusion.auto import live_uses
    from compiler.transforms.fusion.helpers import conv_pads, spatial_pad_only

    folded = 0
    for p in list(root.walk()):
        if not isinstance(p, cann.PadDOp) or not spatial_pad_only(p):
            continue
        users = live_uses(p.results[0])
        if len(users) < 2 or not all(_reads_as_x(u, p.results[0]) for u in users):
            continue
        x = p.operands[0]
        for u in users:
            u.properties["pads"] = int_array([int(v) for v in conv_pads(u, p)])
            u.operands[0] = x
        folded += 1
    return folded


def slice_before_pad(root: Operation) -> int:
    """A unit-stride StridedSliceD of a zero PadD (its only reader) slices x first, then pads
    what the slice kept of the padding: slice(pad(x)) == pad'(slice'(x)) axis by axis.  Keras'
    ZeroPadding2D + Cropping2D (NASNet's shifted factorized reduction) become a crop whose pad
    a conv then folds (rules/00_conv.rules PadConv2dFusionPass); a slice that keeps all of x is
    no op.  Returns how many slices moved."""
    from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
    from xdsl.rewriter import InsertPoint, Rewriter

    from compiler.conversions.cann_to_kernel.data_movement import _slice_axes
    from compiler.ir.rewriting import with_loc
    from dialects.common import ints

    moved = 0
    for s in list(root.walk()):
        if not isinstance(s, cann.StridedSliceDOp) or not isinstance(s.x.owner, cann.PadDOp):
            continue
        p = s.x.owner
        if {u.operation for u in p.y.uses} != {s}:
            continue
        pt, xt, yt = p.y.type, p.x.type, s.y.type
        if not all(isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())
                   for t in (pt, xt, yt)):
            continue
        axes = _slice_axes(s, list(pt.get_shape()))
        if axes is None or list(axes[2]) != list(yt.get_shape()) or any(v != 1 for v in axes[1]):
            continue  # a strided slice, or one that changes the rank
        pads = ints(p.paddings)
        begin, end, new_pads = [], [], []
        ok = True
        for a, (start, count, n) in enumerate(zip(axes[0], axes[2], shape_of(xt))):
            lo = pads[2 * a]
            b = max(start - lo, 0)
            e = min(start + count - lo, n)
            if e <= b:
                ok = False  # the slice keeps only padding on this axis
                break
            before = max(lo - start, 0)
            begin.append(b)
            end.append(e)
            new_pads += [before, count - before - (e - b)]
        if not ok:
            continue
        x = p.x
        if begin != [0] * len(begin) or end != list(shape_of(xt)):
            zero = IntegerAttr(0, i64)
            sl = cann.StridedSliceDOp.create(
                operands=[x], result_types=[TensorType(elem_of(xt), [e - b for b, e in
                                                                          zip(begin, end)])],
                properties={"begin": int_array(begin), "end": int_array(end),
                            "strides": int_array([1] * len(begin)), "begin_mask": zero,
                            "end_mask": zero, "ellipsis_mask": zero, "new_axis_mask": zero,
                            "shrink_axis_mask": zero})
            Rewriter.insert_op(with_loc(sl, s), InsertPoint.before(s))
            x = sl.y
        if any(new_pads):
            pd = cann.PadDOp.create(operands=[x], result_types=[yt],
                                    properties={"paddings": int_array(new_pads)})
            Rewriter.insert_op(with_loc(pd, p), InsertPoint.before(s))
            x = pd.y
        s.y.replace_all_uses_with(x)
        s.detach()
        s.erase()
        p.detach()
        p.erase()
        moved += 1
    return moved
