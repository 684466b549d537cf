"""A conv reads its input x through a pixel resample: zero insertion (a Conv2DTranspose's input
dilation, XLA's lhs_dilation) or a nearest upsample by integer factors.

TensorFlow builds both from data movement around two unit axes:
  Reshape [N, H, W, C] -> [N, H, 1, W, 1, C]
  PadD of the unit axes by (lo, hi)      (each pixel at (lo_h, lo_w) of an a x b block of zeros)
  or BroadcastToD to [N, H, a, W, b, C]  (each pixel repeated a x b times: UpSampling2D nearest)
  Reshape -> [N, H*a, W*b, C]
When every live reader of the last reshape is a convolution reading it as its data input x
(NHWC, auto._consumer_problem), the PadD / BroadcastToD is marked `prologue`
(auto.PROLOGUE_ATTR): the convs read x itself and place its pixels where the resampled tensor
has them as their input rows are staged (compiler/conversions/cann_to_kernel/cube.py: the load
views img2col / fmap with params `upsample` = [a, b] and `upsample_phase` = [lo_h, lo_w], or
[-1, -1] for a repeat); the resampled tensor is never written to GM and the op is no kernel
(engine.count_kernels).  Switch name AutomaticPrologueFusion (the prologue marking's).

A bilinear resize (ResizeBilinearV2) that is a source of a concat staged into its convs'
windows (concat_stage.py) is marked `prologue` too: its planes of the window are computed in UB
from x's four corner windows and the lerp weights (compiler/conversions/cann_to_kernel/resize.py
emit_bilinear_window) and moved UB -> L1; the resize is no kernel and its tensor no GM buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from compiler.ir.typed import elem_of, shape_of
from compiler.target.formats import Format
from dialects import cann, kernel
from dialects.common import ints


@dataclass(frozen=True)
class Resample:
    """x [N, H, W, C] read as [N, H*a, W*b, C]: each pixel at `phase` of its a x b block, zeros
    elsewhere (zero insertion), or at all of it (phase None: a nearest repeat)."""

    source: SSAValue
    out: SSAValue
    factors: tuple[int, int]
    phase: tuple[int, int] | None

    def params(self) -> dict:
        """The load views' params (dialects/kernel.py LOAD_VIEWS img2col / fmap)."""
        return {"upsample": list(self.factors),
                "upsample_phase": list(self.phase) if self.phase is not None else [-1, -1]}


def _through_view(v: SSAValue) -> SSAValue | None:
    """The input of the reshape (or the kernel.view it was lowered to) producing v."""
    o = v.owner
    return o.operands[0] if isinstance(o, (cann.ReshapeOp, kernel.ViewOp)) else None


def _static(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType) and all(d >= 0 for d in v.type.get_shape())


def resample_of(r: Operation) -> Resample | None:
    """r's pixel resample when r is a PadD / BroadcastToD of the two unit axes between the
    reshapes above (at any layout: the origin shapes), whose result only a reshape reads."""
    from compiler.transforms.fusion.auto import live_uses

    if not isinstance(r, (cann.PadDOp, cann.BroadcastToDOp)):
        return None
    src = _through_view(r.operands[0])
    users = live_uses(r.results[0])
    if src is None or len(users) != 1 or not isinstance(users[0], (cann.ReshapeOp, kernel.ViewOp)):
        return None
    out = users[0].results[0]
    if not all(_static(v) for v in (src, r.operands[0], r.results[0], out)):
        return None
    s, m, y, o = (list(cann.origin_shape(v.type)) for v in (src, r.operands[0], r.results[0], out))
    if len(s) != 4 or len(o) != 4 or m != [s[0], s[1], 1, s[2], 1, s[3]]:
        return None
    a, b = y[2], y[4]
    if y != [s[0], s[1], a, s[2], b, s[3]] or o != [s[0], s[1] * a, s[2] * b, s[3]] or a * b == 1:
        return None
    if isinstance(r, cann.BroadcastToDOp):
        return Resample(src, out, (a, b), None)
    p = ints(r.paddings)
    if any(p[i] for i in (0, 1, 2, 3, 6, 7, 10, 11)):
        return None
    return Resample(src, out, (a, b), (p[4], p[8]))


def resample_problem(r: Operation) -> str | None:
    """Why r cannot be staged into the convs reading its resampled tensor, or None."""
    from compiler.transforms.fusion.auto import _consumer_problem, live_uses
    from compiler.transforms.fusion.concat_stage import staged_into_concat

    g = resample_of(r)
    if g is None:
        return "not a zero insertion / nearest upsample between reshapes"
    if staged_into_concat(g.out):  # a source of a concat staged into its convs' windows
        return None
    if any(isinstance(u, (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp))
           for u in live_uses(g.out)):
        return "a depthwise conv reads it (its taps load x by their own views)"
    return _consumer_problem(g.out)


def staged_resample(conv_x: SSAValue) -> tuple[Operation, Resample] | None:
    """The resample op marked `prologue` whose resampled tensor is the conv input conv_x (or a
    source of the concat staged into the conv's window: concat_stage.py)."""
    from compiler.transforms.fusion.auto import is_prologue

    m = _through_view(conv_x)
    r = m.owner if m is not None else None
    if not isinstance(r, (cann.PadDOp, cann.BroadcastToDOp)) or not is_prologue(r):
        return None
    g = resample_of(r)
    if g is None or g.out is not conv_x:
        return None
    fs, fo = cann.format_of(g.source.type), cann.format_of(conv_x.type)
    if (fs is None) != (fo is None) or (fs is not None and fo is not None and not (
            fs.fmt == fo.fmt == Format.NC1HWC0 and
            shape_of(g.source)[1] == shape_of(conv_x)[1])):
        return None  # (after assign-layouts: both NC1HWC0, the same C1 blocks)
    return r, g


def bilinear_problem(r: Operation) -> str | None:
    """Why the bilinear resize r cannot be computed on its readers' staged windows, or None."""
    from compiler.transforms.fusion.concat_stage import staged_into_concat

    if not isinstance(r, cann.ResizeBilinearV2Op):
        return "not a bilinear resize"
    if not (_static(r.x) and _static(r.y)) or len(cann.origin_shape(r.y.type)) != 4:
        return "not a static 4-D resize"
    if elem_of(r.x) != elem_of(r.y):
        return "it converts the element type"
    if not staged_into_concat(r.y):
        return "its reader is no concat staged into convs' windows"
    return None


def staged_bilinear(v: SSAValue) -> cann.ResizeBilinearV2Op | None:
    """The bilinear resize marked `prologue` whose result is v (a staged concat's source), both
    NC1HWC0 with the same C1 blocks (after assign-layouts)."""
    from compiler.transforms.fusion.auto import is_prologue

    r = v.owner
    if not isinstance(r, cann.ResizeBilinearV2Op) or not is_prologue(r):
        return None
    fs, fo = cann.format_of(r.x.type), cann.format_of(v.type)
    if fs is None or fo is None or not (fs.fmt == fo.fmt == Format.NC1HWC0
                                        and shape_of(r.x)[1] == shape_of(v)[1]):
        return None
    return r
