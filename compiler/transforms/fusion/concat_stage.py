"""A channel concat whose only readers are convs is part of their fmap load (a multi-source load).

U-Net's decoder convs read concat(upsampled, skip) along C.  When every live reader of a
ConcatV2D over the channel axis of NHWC tensors is a convolution reading it as its data input x
(ungrouped, not depthwise: their A tiles come from one window of x's rows, Load3D), and every
source but the last holds whole C0 blocks of channels (so in NC1HWC0 each source is a run of the
concat's C1 planes: the slabs align-concat-slabs would otherwise pad), the concat is marked
`prologue` (auto.PROLOGUE_ATTR).  The convs stage x's rows from each source into that source's
C1 planes of the L1 window (compiler/conversions/cann_to_kernel/base.py gemm_body fmap_parts:
one GM -> L1 fmap load per source, kernel.join), so the concat is no kernel
(engine.count_kernels) and its result no GM buffer.  A source that is itself a staged resample
(compiler/transforms/fusion/resample.py: a nearest upsample or a zero insertion) is read from the
resample's input with that resample's load params, and a bilinear resize's planes are computed
in UB from its input (resample.py bilinear_problem): they compose, and the resample is no kernel
either.

Cost: each source's rows move GM -> L1 once per M block, the bytes of the planes it fills: the
window the conv would have loaded from the concat's buffer (cube_core_cycles' GM -> L1 term of
compiler/target/tiling.py).  The sources are read where their producers wrote them, so the
bytes the concat's producers store are the same and the conv's HBM bytes are its operands'.
GM -> L1 moves 32 bytes per cycle per core (cann-facts.md section 6).  Assumption: each source's
DMA writes its planes at their offset of the one L1 buffer (a destination address: Ascend C
DataCopy into a LocalTensor at an offset, DataCopyParams blockCount / blockLen / srcStride /
dstStride in 32-byte blocks, asc-devkit include/basic_api/kernel_struct_data_copy.h), so the join
itself moves nothing; cann-facts.md gives no separate figure for it.  A nearest source's
replicated placement (each C0 pixel, one 32-byte multiple, written a x b times by strided
bursts: dstStride skips the other copies) is charged as the L1 bytes of its planes (the
window's), its HBM bytes as the unreplicated source's (the kernel's operand).  A bilinear source costs, in the
cost walk (compiler/target/kernel_cost_walk.py), its 9 vector ops on its planes of the window
per M block and the UB -> L1 move of those planes (an assumed path and rate, dialects/kernel.py
LOAD_PATHS); its four corner windows GM -> UB are HBM bytes only (the reference gives no
per-core GM -> UB rate).

When a reader's tiling takes no window (compiler/conversions/cann_to_kernel/cube.py falls back
to A tiles), the mark is dropped there and the concat is lowered as a kernel as before.
Switch name AutomaticPrologueFusion (the prologue marking's).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format, c0_for
from dialects import cann
from dialects.common import numpy_dtype


def _channel_concat(op: Operation) -> bool:
    if not isinstance(op, cann.ConcatV2DOp) or len(op.x) < 2:
        return False
    shapes = [v.type for v in (*op.x, op.y)]
    if not all(isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()) for t in shapes):
        return False
    if len(cann.origin_shape(op.y.type)) != 4:
        return False
    return op.concat_dim.value.data in (3, -1)


def concat_problem(op: Operation) -> str | None:
    """Why the concat op cannot be staged into its readers' fmap loads, or None."""
    from compiler.transforms.fusion.auto import _consumer_problem, live_uses

    if not _channel_concat(op):
        return "not a concat over the channels of static NHWC tensors"
    assert isinstance(op, cann.ConcatV2DOp)
    c0 = c0_for(numpy_dtype(elem_of(op.y)))
    chans = [cann.origin_shape(v.type)[3] for v in op.x]
    if any(c % c0 for c in chans[:-1]):
        return f"a source's channels {chans} are no whole C0 = {c0} blocks (its slab is not aligned)"
    why = _consumer_problem(op.y)
    if why is not None:
        return why
    for u in live_uses(op.y):
        if isinstance(u, (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)):
            return "a depthwise conv reads it (its taps load x by their own views)"
        filt = cann.origin_shape(u.operands[1].type)
        if len(filt) != 4 or filt[2] != sum(chans):
            return f"consumer {u.name} is a grouped conv (its A tiles are per group)"
    return None


def staged_concat(conv_x: SSAValue) -> cann.ConcatV2DOp | None:
    """The concat marked `prologue` whose result is the conv input conv_x, with its sources
    stored NC1HWC0 as runs of conv_x's C1 planes (after assign-layouts)."""
    from compiler.transforms.fusion.auto import is_prologue

    op = conv_x.owner
    if not isinstance(op, cann.ConcatV2DOp) or not is_prologue(op):
        return None
    fx = cann.format_of(conv_x.type)
    if fx is None or fx.fmt != Format.NC1HWC0:
        return None
    n_, c1, h, w, c0 = shape_of(conv_x)
    total = 0
    for v in op.x:
        f = cann.format_of(v.type)
        s = shape_of(v)
        if f is None or f.fmt != Format.NC1HWC0 or len(s) != 5 or \
                (s[0], s[2], s[3], s[4]) != (n_, h, w, c0):
            return None
        total += s[1]
    return op if total == c1 else None


def unstage(op: cann.ConcatV2DOp) -> None:
    """Drop the concat's `prologue` mark (a reader cannot stage it): it is lowered as a kernel,
    and so is any resample it reads (whose mark rests on the concat's)."""
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR
    from compiler.transforms.fusion.resample import _through_view

    op.attributes.pop(PROLOGUE_ATTR, None)
    for v in op.x:
        if isinstance(v.owner, cann.ResizeBilinearV2Op):
            v.owner.attributes.pop(PROLOGUE_ATTR, None)
        m = _through_view(v)
        if m is not None and isinstance(m.owner, (cann.PadDOp, cann.BroadcastToDOp)):
            m.owner.attributes.pop(PROLOGUE_ATTR, None)


def staged_into_concat(v: SSAValue) -> bool:
    """Every live reader of v is one concat that can be staged into its convs' fmap loads."""
    from compiler.transforms.fusion.auto import live_uses

    users = list(dict.fromkeys(live_uses(v)))
    return (len(users) == 1 and isinstance(users[0], cann.ConcatV2DOp)
            and concat_problem(users[0]) is None)
