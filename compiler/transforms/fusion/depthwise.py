"""Horizontal fusion of sibling depthwise convs (issue 12): depthwise convs (multiplier 1) that
read the same input with the same strides become ONE depthwise conv with channel multiplier M
(the number of siblings), TensorFlow's and CANN's own DepthwiseConv2D semantics: output channel
c*M + j is sibling j's channel c.  NASNet's cells run 3x3 / 5x5 / 7x7 separable convs side by
side on one input.

  * kernels of different sizes share the largest window: a smaller filter sits at offset
    (T - t, L - l) of it (T, L: the largest kernel's top / left pads; t, l: its own), zeros
    around, which is legal when every sibling's window is inside the large one with the same
    output size (the pads line up);
  * biases (absent: zeros) interleave like the channels; all siblings share one activation;
  * the merged output interleaves the siblings' channels, so each sibling's readers must be
    convolutions (Conv2D / FusedConv2D, groups 1, NHWC, constant filter) reading it as x: each
    reader's filter gets the input rows c*M + j (its own sibling j) and zero rows for the other
    siblings' channels, so it reads the merged tensor directly (no split, no copy).  The cube K
    of such a reader grows M-fold in channels (C1 blocks) while M - 1 launches go.

Runs under the switch HorizontalConvFusion (horizontal.py's), before the sibling 1x1 convs merge.
"""

from __future__ import annotations

from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, int_of, shape_of
from compiler.transforms.fusion.horizontal import all_values, in_block_order
from dialects import cann
from dialects.common import dense_from_numpy, ints

DW = (cann.DepthwiseConv2DOp, cann.FusedDepthwiseConv2DOp)
DWOp = cann.DepthwiseConv2DOp | cann.FusedDepthwiseConv2DOp
READERS = (cann.Conv2DOp, cann.FusedConv2DOp)


def _const(v):
    from compiler.transforms.fusion.helpers import const_value

    return None if v is None else const_value(v)


def _act(op) -> tuple:
    a = op.properties.get("activation")
    al = op.properties.get("alpha")
    return (a.data if a is not None else "none", None if al is None else al.value.data)


def _reader_ok(u: Operation, v: SSAValue) -> bool:
    return (isinstance(u, READERS) and u.operands[0] is v and u.data_format.data == "NHWC"
            and all(o is not v for o in u.operands[1:]) and _const(u.filter) is not None
            and int(int_of(u.properties["groups"])) == 1)


def _candidate(op: Operation) -> bool:
    if not isinstance(op, DW) or op.data_format.data != "NHWC":
        return False
    ws = list(cann.origin_shape(op.filter.type))
    if len(ws) != 4 or ws[3] != 1 or any(d != 1 for d in ints(op.dilations)):
        return False
    if _const(op.filter) is None or (op.bias is not None and _const(op.bias) is None):
        return False
    readers = [u.operation for u in op.y.uses]
    return bool(readers) and all(_reader_ok(u, op.y) for u in readers)


def _window(op):
    kh, kw = list(cann.origin_shape(op.filter.type))[:2]
    t, b, l, r = ints(op.pads)
    return kh, kw, t, b, l, r


def _offsets(group) -> list[tuple[int, int]] | None:
    """Each sibling's (row, col) offset in the largest window, or None when one does not fit."""
    big = max(group, key=lambda o: _window(o)[0] * _window(o)[1])
    KH, KW, T, B, L, R = _window(big)
    offs = []
    for o in group:
        kh, kw, t, b, l, r = _window(o)
        dh, dw = T - t, L - l
        if dh < 0 or dw < 0 or dh + kh > KH or dw + kw > KW or KH - kh - dh != B - b or \
                KW - kw - dw != R - r:
            return None
        offs.append((dh, dw))
    return offs


def _merge(group: list[cann.DepthwiseConv2DOp | cann.FusedDepthwiseConv2DOp], offs) -> None:
    first = group[0]
    m = len(group)
    big = max(group, key=lambda o: _window(o)[0] * _window(o)[1])
    KH, KW = _window(big)[:2]
    c = list(cann.origin_shape(first.x.type))[3]
    w0 = _const(first.filter)
    w = np.zeros((KH, KW, c, m), w0.dtype)
    has_bias = any(o.bias is not None for o in group)
    b = np.zeros((c, m), w0.dtype)
    for j, (o, (dh, dw)) in enumerate(zip(group, offs)):
        f = _const(o.filter)
        w[dh:dh + f.shape[0], dw:dw + f.shape[1], :, j] = f[:, :, :, 0]
        if o.bias is not None:
            b[:, j] = _const(o.bias).reshape(c)
    et = elem_of(first.x)
    wc = with_loc(cann.ConstOp(dense_from_numpy(w), TensorType(et, list(w.shape))), first)
    new_ops: list[Operation] = [wc]
    operands = [first.x, wc.results[0]]
    if has_bias:
        bc = with_loc(cann.ConstOp(dense_from_numpy(b.reshape(-1)), TensorType(et, [c * m])), first)
        new_ops.append(bc)
        operands.append(bc.results[0])
    ys = list(first.y.type.get_shape())
    ys[3] = c * m
    act, alpha = _act(first)
    props = {"strides": first.properties["strides"], "pads": big.properties["pads"],
             "dilations": first.properties["dilations"], "data_format": StringAttr("NHWC"),
             "activation": StringAttr(act)}
    if alpha is not None:
        props["alpha"] = first.properties["alpha"]
    dw = cann.FusedDepthwiseConv2DOp.create(operands=operands, result_types=[TensorType(et, ys)],
                                            properties=props)
    with_loc(dw, *group)
    new_ops.append(dw)
    Rewriter.insert_op(new_ops, InsertPoint.before(first))
    for j, o in enumerate(group):
        for u in [u.operation for u in o.y.uses]:
            assert isinstance(u, READERS)  # _candidate: every reader is one
            f = _const(u.filter)
            g = np.zeros((f.shape[0], f.shape[1], c * m, f.shape[3]), f.dtype)
            g[:, :, j::m, :] = f
            gc = with_loc(cann.ConstOp(dense_from_numpy(g), TensorType(et, list(g.shape))), u)
            Rewriter.insert_op(gc, InsertPoint.before(u))
            u.operands[1] = gc.results[0]
            u.operands[0] = dw.y
    for o in group:
        Rewriter.erase_op(o)


def fuse_depthwise_siblings(root: Operation) -> int:
    """Merge every group of sibling depthwise convs in `root`; returns the convs removed."""
    removed = 0
    positions: dict = {}
    for v in all_values(root):
        groups: dict = {}
        for u in dict.fromkeys(u.operation for u in v.uses if u.index == 0):
            if _candidate(u):
                key = (tuple(ints(u.strides)), _act(u), tuple(u.y.type.get_shape()),
                       u.parent_block())
                groups.setdefault(key, []).append(u)
        for group in groups.values():
            if len(group) < 2:
                continue
            group = in_block_order(group, positions)
            offs = _offsets(group)
            if offs is None:
                continue
            _merge(group, offs)
            removed += len(group) - 1
    return removed


# --- a depthwise conv as the A-tile prologue of the pointwise conv reading it -------------------
#
# A separable conv (Xception, MobileNet's inverted residuals) is a depthwise conv whose only
# reader is a 1x1 conv (stride 1, no pads, groups 1).  The 1x1 conv's img2col A tile [M rows =
# output positions, K = channels] IS a tile of the depthwise result, so cann-to-kernel
# (compiler/conversions/cann_to_kernel/cube.py) computes it on the vector unit in UB from the
# depthwise input (one shifted img2col load per filter tap, times that tap's per-channel
# weights, summed; + bias, the activation) and moves it UB -> L1: the depthwise result is never
# written to GM and its launch goes.  The depthwise op stays at the cann level (its semantics,
# the interpreters); it only carries PROLOGUE_ATTR, and its filter keeps its HWCN layout (the
# taps read it as channel vectors).  Runs under the switch AutomaticPrologueFusion.

POINTWISE_READERS = (cann.Conv2DOp, cann.FusedConv2DOp, cann.FusedConv2DAddOp)


def _pointwise_reader(u: Operation, v: SSAValue) -> bool:
    """u is a 1x1 conv (stride 1, no pads, dilation 1, groups 1, NHWC) reading v as x only."""
    if not isinstance(u, POINTWISE_READERS) or u.data_format.data != "NHWC" or u.operands[0] is not v \
            or any(o is v for o in u.operands[1:]):
        return False
    if "groups" in u.properties and int(int_of(u.properties["groups"])) != 1:
        return False
    ws = list(cann.origin_shape(u.filter.type))
    (sh, sw), (dh, dw), pads = u.geometry()
    return ws[:2] == [1, 1] and (sh, sw, dh, dw) == (1, 1, 1, 1) and not any(pads)


def depthwise_prologue_problem(op: Operation) -> str | None:
    """Why the depthwise conv `op` cannot be the A-tile prologue of its reader, or None."""
    from compiler.transforms.fusion.auto import live_uses

    if not isinstance(op, DW) or op.data_format.data != "NHWC":
        return "not an NHWC depthwise conv"
    if any(d < 0 for v in (op.x, op.filter, op.y) for d in shape_of(v)):
        return "a dynamic shape"
    ws = list(cann.origin_shape(op.filter.type))
    if len(ws) != 4 or ws[3] != 1:
        return "a channel multiplier other than 1"
    users = list(dict.fromkeys(live_uses(op.y)))
    if len(users) != 1:
        return f"{len(users)} readers, not one"
    if not _pointwise_reader(users[0], op.y):
        return "its reader is no 1x1 conv (stride 1, no pads, groups 1) reading it as x"
    return None


def is_depthwise_prologue(op: Operation | Block | None) -> TypeGuard[DWOp]:
    """op is a depthwise conv marked as its pointwise reader's prologue and still is one."""
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR

    return isinstance(op, DW) and PROLOGUE_ATTR in op.attributes and \
        depthwise_prologue_problem(op) is None


def prologue_gain_us(op: DWOp, chip) -> float | None:
    """Estimated µs the prologue saves on `chip` (None: the 1x1 conv has no tiling with the tap
    tiles in UB): the depthwise kernel's launch and its result's HBM write + read, minus the
    taps' vector work on the busiest core of the 1x1 conv's tiling (per A tile: a Mul and an Add
    per tap, x's own fused prologue once per tap; the cost model's vector fits).  The depthwise
    kernel's own compute is not counted as saved (so the estimate errs towards keeping it)."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.cost_model import vector_core_cycles
    from compiler.target.formats import c0_for, ceil_div
    from compiler.target.tiling import TilingError, cube_tiling
    from compiler.transforms.fusion.auto import live_uses, tile_fn
    from dialects.common import numpy_dtype

    reader = live_uses(op.y)[0]
    dtype = numpy_dtype(elem_of(op.x))
    c0 = c0_for(dtype)
    n, ho, wo, c = cann.origin_shape(op.y.type)
    kh, kw = list(cann.origin_shape(op.filter.type))[:2]
    kk = ceil_div(c, c0) * c0
    try:
        t = cube_tiling("Conv2D", n * ho * wo, cann.origin_shape(reader.results[0].type)[3], kk,
                        dtype.itemsize, c0, chip, ub_a_tiles=4)
    except TilingError:
        return None
    f = t.fields
    turns = ceil_div(f["singleCoreM"], f["baseM"]) * ceil_div(f["singleCoreN"], f["baseN"]) * \
        ceil_div(kk, f["baseK"])
    elems = f["baseM"] * f["baseK"]
    fns = ["Mul", "Add"]
    x_pro = op.x.owner
    if isinstance(x_pro, cann.FusedKernelOp):  # recomputed on every tap's tile, then masked
        fns += [tile_fn(o) or "Add" for o in x_pro.body_ops()] + ["Duplicate", "SelectV2"]
    per_turn = kh * kw * sum(vector_core_cycles(fn, elems, dtype.itemsize) for fn in fns)
    taps_us = turns * per_turn / chip.clock_mhz
    nbytes = n * ho * wo * c * dtype.itemsize
    saved_us = LAUNCH_OVERHEAD_US + 2 * nbytes / (chip.hbm_tb_per_s * 1e6)
    return saved_us - taps_us


def _module_chip(root: Operation, name: str | None = None):
    """The profile of chip `name`, else of the module's cann.soc_version, else Ascend910B3."""
    from xdsl.dialects.builtin import StringAttr

    from compiler.target.chips import DEFAULT_CHIP, get_chip
    from dialects.kernel import SOC_ATTR

    if name is not None:
        return get_chip(name)
    top = root
    while (parent := top.parent_op()) is not None:
        top = parent
    attr = top.attributes.get(SOC_ATTR)
    try:
        return get_chip(attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP)
    except Exception:  # noqa: BLE001 (an unknown name: cann-to-kernel reports it)
        return get_chip(DEFAULT_CHIP)


def mark_gaining(root: Operation, chip_name: str | None, kinds, problem, gain) -> list[Operation]:
    """Mark (auto.PROLOGUE_ATTR) every op of `kinds` in `root`, in program order, for which
    `problem(op)` is None and `gain(op, chip)` is positive (chip `chip_name`, else the module's,
    default Ascend910B3); the ops marked.  Each mark is set before the next op is checked, so a
    `problem` may look at the marks already made."""
    from xdsl.dialects.builtin import UnitAttr

    from compiler.transforms.fusion.auto import PROLOGUE_ATTR

    chip = _module_chip(root, chip_name)
    marked = []
    for op in list(root.walk()):
        if isinstance(op, kinds) and problem(op) is None:
            g = gain(op, chip)
            if g is not None and g > 0:
                op.attributes[PROLOGUE_ATTR] = UnitAttr()
                marked.append(op)
    return marked


def mark_depthwise_prologues(root: Operation, chip_name: str | None = None) -> int:
    """Mark every depthwise conv in `root` that can be its pointwise reader's prologue and that
    the estimate says gains (prologue_gain_us > 0); returns how many were marked."""
    return len(mark_gaining(root, chip_name, DW, depthwise_prologue_problem, prologue_gain_us))
