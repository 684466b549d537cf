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
