"""Small-C_in convolutions: when a conv's x is stored NC1HWC0_C04 and its filter FRACTAL_Z_C04.

CANN's format enum has NC1HWC0_C04 (12, "NC1HWC0, C0 = 4") and FRACTAL_Z_C04 (13, "FRACZ, C0 =
4") (cann-facts.md section 1; CANN aclFormat, hiascend.com .../appdevgapi/aclcppdevg_03_1348:
"NC1HWC0_C04: a 5D format. C0 has a fixed value of 4 while C1 = C/C0").  A conv with C_in <= 4
(every image stem: 3 channels) on NC1HWC0 pads each kernel tap's channels to C0 = 16: its GEMM K
is taps*16 where 3 of every 16 are real, and its Load3D window of x in L1 holds 16 lanes a pixel.
With C0 = 4 the taps' 4-channel groups pack into K (compiler/target/formats.py
FRACTAL_Z_C04: K = ceil(taps*4 / 16)*16) and the window holds 4 lanes a pixel.

`prefers_c04` is the cost: the packed K has fewer 16-deep fractals than the padded one (the cube
work, the A tiles' L1 -> L0A bytes and B's bytes all scale with K; the window's bytes with the
lanes), i.e. any conv of C_in <= 4 with more than one tap.  `c04_conv` adds what makes the
conversion free: x is a row-major value (a graph input, or a reshape of one), whose TransData the
conv's GM -> L1 DMA does on the way (compiler/conversions/cann_to_kernel/data_movement.py
FoldInputTransData; dialects/kernel.py FROM_ORIGIN_LAYOUTS); any other x would need a TransData
kernel of its own, a launch more; the filter is a constant (packed at compile time).  Groups,
depthwise and prologue convs keep NC1HWC0.
"""

from __future__ import annotations

from xdsl.ir import BlockArgument, SSAValue

from compiler.target.formats import C04, N0, c0_for, c04_k


def _c04_kind(op) -> bool:
    """The conv kinds the C04 lowering serves (compiler/conversions/cann_to_kernel/cube.py,
    cube3d.py)."""
    from dialects import cann

    return isinstance(op, (cann.Conv2DOp, cann.FusedConv2DOp, cann.Conv3DOp))


def prefers_c04(cin: int, taps: int, dtype) -> bool:
    """Whether the packed K of C04 (`c04_k(taps)`) is cheaper than NC1HWC0's taps * 16."""
    return cin <= C04 and c0_for(dtype) == N0 and c04_k(taps) < taps * N0


def _row_major_source(v: SSAValue) -> bool:
    from dialects import cann

    while isinstance(v.owner, cann.ReshapeOp):
        v = v.owner.x
    return isinstance(v, BlockArgument)


def c04_conv(op) -> bool:
    """Whether assign-layouts stores conv `op`'s x NC1HWC0_C04 and its filter FRACTAL_Z_C04."""
    from compiler.ir.typed import elem_of, shape_of
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR
    from compiler.transforms.fusion.conv_stage import is_staged_conv
    from dialects import cann
    from dialects.common import numpy_dtype

    if not _c04_kind(op) or op.data_format.data != "NHWC" or \
            (PROLOGUE_ATTR in op.attributes and not is_staged_conv(op)):
        return False  # (a conv computed in its reader's windows keeps its own x load)
    if "groups" in op.properties and op.groups.value.data != 1:
        return False
    xs, ws = shape_of(op.x), shape_of(op.filter)
    if any(d < 0 for d in (*xs, *ws)) or cann.format_of(op.x.type) is not None \
            or not isinstance(op.filter.owner, cann.ConstOp):  # packed at compile time
        return False
    taps = 1
    for d in ws[:-2]:
        taps *= d
    return prefers_c04(ws[-2], taps, numpy_dtype(elem_of(op.x))) and _row_major_source(op.x)
