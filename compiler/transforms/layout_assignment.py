"""One global choice of storage format per op, minimizing the bytes TransData moves.

What an op can run on is declared on its definition (`RunsOn`, dialects/layouts.py); the rule
named there is checked here (`RULES`: given the op and a format, None if the op has a kernel
for it, else the reason).  `io_layouts(op, fmt)` says in which format the op then reads each
operand and writes each result (a conv reads x in NC1HWC0; a reduction over H, W of an
NC1HWC0 value writes FRACTAL_NZ; a parameter or a constant costs nothing).

The assignment (`assign`): every op gets a label, the format it runs on.  A value produced in
format P and read in format R needs a TransData, costing the bytes it moves (read + write:
twice the tensor, and twice again between two device formats, which go through ND).  Graph
inputs are produced in ND and graph outputs read in ND.  The energy is the sum over values of
the conversions their readers need (one per distinct format).  It is minimized by
alpha-expansion (Boykov, Veksler, Zabih 2001): for each format alpha in turn, one min-cut
decides which ops switch to alpha, over pairwise terms producer -> reader; a move is kept only
if the exact energy goes down; rounds repeat until no move helps.  Ops with one legal format
(a conv, a matmul, an op that runs only on ND) are fixed; everything else follows the cheapest
arrangement, so a concat between convs runs on NC1HWC0 and a chain of elementwise ops between
matmuls on FRACTAL_NZ, and a TransData stays only where some op has no kernel for the format
its neighbours use (`explain` says which op and why).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, OpResult, SSAValue

from compiler.ir.typed import elem_of
from dialects import cann
from dialects.cann import DataFormat
from dialects.layouts import FRACTAL_NZ, NC1HWC0, ND, runs_on

DEVICE = (NC1HWC0, FRACTAL_NZ)


# --- facts about an op ------------------------------------------------------------------------

def _shape(v: SSAValue) -> tuple[int, ...]:
    return tuple(cann.origin_shape(v.type)) if isinstance(v.type, TensorType) else ()


def _static(op: Operation) -> bool:
    return all(d >= 0 for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)
               for d in v.type.get_shape())


def _is_const(v: SSAValue) -> bool:
    owner = v.owner
    return isinstance(owner, cann.ConstOp)


def _prop(op: Operation, name: str):
    return op.properties.get(name, op.attributes.get(name))


def _int(op: Operation, name: str, default: int = 0) -> int:
    v = _prop(op, name)
    return v.value.data if v is not None and hasattr(v, "value") else default


def _ints(op: Operation, name: str) -> list[int]:
    from dialects.common import ints

    v = _prop(op, name)
    return list(ints(v)) if v is not None else []


def origin_format(op: Operation) -> str:
    """The framework layout of the op's 4-D values: its data_format, else TF's NHWC."""
    v = _prop(op, "data_format")
    return v.data if v is not None and v.data in (DataFormat.NHWC, DataFormat.NCHW) else "NHWC"


def _c_axis(op: Operation) -> int:
    return 1 if origin_format(op) == "NCHW" else 3


def _hw_axes(op: Operation) -> tuple[int, int]:
    return (2, 3) if origin_format(op) == "NCHW" else (1, 2)


def param_values(op: Operation) -> set[SSAValue]:
    """Operands that keep their own layout (RunsOn.params)."""
    out: set[SSAValue] = set()
    for name in runs_on(op).params:
        v = getattr(op, name, None)
        if isinstance(v, SSAValue):
            out.add(v)
    return out


def activations(op: Operation) -> list[int]:
    """Indices of the tensor operands whose layout follows the op's format."""
    params = param_values(op)
    return [i for i, v in enumerate(op.operands)
            if isinstance(v.type, TensorType) and v not in params]


def _dtype(v: SSAValue):
    from dialects.common import numpy_dtype

    return numpy_dtype(elem_of(v))


# --- the rules --------------------------------------------------------------------------------

def _needs_4d(op: Operation) -> str | None:
    for r in op.results:
        if len(_shape(r)) != 4:
            return f"a result of rank {len(_shape(r))} (NC1HWC0 needs 4-D)"
    return None


def _needs_2d(op: Operation) -> str | None:
    for r in op.results:
        if len(_shape(r)) < 2:
            return f"a result of rank {len(_shape(r))} (FRACTAL_NZ needs rank >= 2)"
    return None


def _device_shape(op: Operation, fmt: str) -> str | None:
    if not _static(op):
        return "dynamic shapes"
    return _needs_4d(op) if fmt == NC1HWC0 else _needs_2d(op)


def _const_ok(op: Operation, v: SSAValue, fmt: str, full: bool) -> str | None:
    """A constant operand is converted at compile time: to the result's shape (full) or, for
    broadcasting kernels, kept as a scalar or broadcast over all but C."""
    n = 1
    for d in _shape(v):
        n *= d
    y = _shape(op.results[0])
    if n == 1 and not full:
        return None
    if fmt == FRACTAL_NZ:
        return None if _shape(v) == y else f"a constant of shape {list(_shape(v))} on FRACTAL_NZ"
    s = (1,) * (4 - len(_shape(v))) + _shape(v) if len(_shape(v)) <= 4 else None
    if s is None:
        return f"a constant of rank {len(_shape(v))}"
    c = _c_axis(op)
    if s[c] not in (1, y[c]):
        return f"a constant broadcast over C ({s[c]} -> {y[c]})"
    return None


def rule_same(op: Operation, fmt: str) -> str | None:
    """Operands stored exactly like the result (constants converted at compile time)."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    y = _shape(op.results[0])
    for i in activations(op):
        v = op.operands[i]
        if _is_const(v):
            msg = _const_ok(op, v, fmt, full=True)
        elif _shape(v) != y:
            msg = f"operand #{i} {list(_shape(v))} broadcasts against the result {list(y)}"
        if msg:
            return msg
    return None


def rule_broadcast(op: Operation, fmt: str) -> str | None:
    """Broadcasting on the stored shapes is exact when no operand broadcasts over an axis the
    format splits into blocks: C for NC1HWC0 (C1 x C0), the last two for FRACTAL_NZ."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    y = _shape(op.results[0])
    for i in activations(op):
        v = op.operands[i]
        s = _shape(v)
        if _is_const(v):
            msg = _const_ok(op, v, fmt, full=False)
        elif len(s) != len(y):
            msg = f"operand #{i} of rank {len(s)} against a rank-{len(y)} result"
        elif fmt == NC1HWC0 and s[_c_axis(op)] != y[_c_axis(op)]:
            msg = f"operand #{i} {list(s)} broadcasts over C"
        elif fmt == FRACTAL_NZ and s[-2:] != y[-2:]:
            msg = f"operand #{i} {list(s)} broadcasts over the last two axes"
        if msg:
            return msg
    return None


def rule_kernel(op: Operation, fmt: str) -> str | None:
    """A fused pointwise kernel loads each input flat when stored like the result, and scalars
    and [C] channel vectors per lane (compiler/conversions/cann_to_kernel/fused.py); those stay ND."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    y = _shape(op.results[0])
    for i, v in enumerate(op.operands):
        s = _shape(v)
        if s == y or _kernel_param(op, v):
            continue
        if _is_const(v) and not _const_ok(op, v, fmt, full=True):
            continue
        return f"input #{i} {list(s)} broadcasts against the result {list(y)}"
    return None


def _kernel_param(op: Operation, v: SSAValue) -> bool:
    """A FusedKernel input read per lane: a scalar or a channel vector ([C], [1, .., 1, C])."""
    s, y = _shape(v), _shape(op.results[0])
    n = 1
    for d in s:
        n *= d
    return n == 1 or (len(s) >= 1 and all(d == 1 for d in s[:-1]) and bool(y) and s[-1] == y[-1]
                      and len(y) == 4 and origin_format(op) == "NHWC")


def rule_device_input(op: Operation, fmt: str) -> str | None:
    """Cube ops and the ops built around them (conv: x NC1HWC0; matmul: FRACTAL_NZ)."""
    return "dynamic shapes" if not _static(op) else None


def rule_spatial(op: Operation, fmt: str) -> str | None:
    """Per-channel windows over H, W (pooling, resize): NC1HWC0 of an NHWC origin."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    if isinstance(op, cann.ResizeOp) and origin_format(op) != "NHWC":
        return "an NCHW resize"
    return None


def _channels_last(op: Operation) -> str | None:
    """NC1HWC0 of a channels-last value of rank >= 3 (compiler/target/formats.py
    channels_last_shape: 4-D NHWC, or the middle axes of another rank in place of H, W)."""
    if not _static(op):
        return "dynamic shapes"
    for v in (*op.operands[:1], *op.results):
        if len(_shape(v)) < 3:
            return f"a value of rank {len(_shape(v))} (NC1HWC0 needs rank >= 3, channels last)"
    if len(_shape(op.results[0])) == 4 and origin_format(op) != "NHWC":
        return "an NCHW value"
    return None


def rule_pad_hw(op: Operation, fmt: str) -> str | None:
    """PadD of everything but N and C (4-D, or the middle axes of a channels-last value of
    another rank, e.g. the zero insertion of a transposed conv's upsampling)."""
    if len(_shape(op.results[0])) == 4:
        msg = _device_shape(op, fmt)
        keep = {0, _c_axis(op)}
    else:
        msg = _channels_last(op)
        keep = {0, len(_shape(op.results[0])) - 1}
    if msg:
        return msg
    p = _ints(op, "paddings")
    if len(p) != 2 * len(_shape(op.results[0])) or any(p[2 * a] or p[2 * a + 1] for a in keep):
        return "it pads N or C (NC1HWC0 keeps C in C1 x C0 blocks)"
    return None


def rule_broadcast_c(op: Operation, fmt: str) -> str | None:
    """BroadcastToD of a channels-last value over any axis but C, x of the result's rank: a
    broadcast of the stored array over the same axes (C1 and C0 kept)."""
    msg = _channels_last(op)
    if msg:
        return msg
    xs, ys = _shape(op.operands[0]), _shape(op.results[0])
    if len(xs) != len(ys) or xs[-1] != ys[-1]:
        return f"it broadcasts {list(xs)} -> {list(ys)}: over C or to another rank"
    return None


def rule_reduce_hw(op: Operation, fmt: str) -> str | None:
    """A reduction of a 4-D NC1HWC0 value over H and W (rows (n, c1) of C0 lanes), or over C
    alone (rows (n, h, w) of C1 blocks of C0 lanes, the padding lanes of the last block
    masked: any channel count)."""
    if not _static(op):
        return "dynamic shapes"
    if len(_shape(op.operands[0])) != 4:
        return "an input of rank other than 4"
    axes = sorted(a % 4 for a in _ints(op, "axes"))
    if tuple(axes) != _hw_axes(op) and axes != [_c_axis(op)]:
        return f"it reduces axes {axes}, neither H and W nor C"
    return None


def reduces_c(op: Operation) -> bool:
    """A 4-D reduction over C alone (rule_reduce_hw's second case)."""
    xs = _shape(op.operands[0])
    return len(xs) == 4 and sorted(a % 4 for a in _ints(op, "axes")) == [_c_axis(op)]


def reshape_kind(op: Operation) -> str | None:
    """How a Reshape of an NHWC value stored NC1HWC0 (N, C1, H, W, C0) keeps its channels:
    "hw"      rank >= 3 -> rank >= 3, the first axis and C unchanged: the middle axes
              regrouped inside each (n, c1) block, the same bytes;
    "flatten" [N, H, W, C] -> [N*H*W, C]: the rows (n, h, w) of C channels, which FRACTAL_NZ of
              [M, C] stores as (K1 = C1, M1, 16, C0): the same bytes when N = 1 and H*W is a
              multiple of 16, else a copy that inserts the padding rows;
    "unflatten" the inverse, from FRACTAL_NZ [M, C] to NC1HWC0 [N, H, W, C];
    None otherwise."""
    xs, ys = _shape(op.operands[0]), _shape(op.results[0])
    if len(xs) >= 3 and len(ys) >= 3 and xs[0] == ys[0] and xs[-1] == ys[-1]:
        return "hw"  # also to and from channels-last values of other ranks (formats.py)
    if len(xs) == 4 and len(ys) == 2 and ys == (xs[0] * xs[1] * xs[2], xs[3]):
        return "flatten"
    if len(xs) == 2 and len(ys) == 4 and xs == (ys[0] * ys[1] * ys[2], ys[3]):
        return "unflatten"
    return None


def reshape_is_view(op: Operation) -> bool:
    """A Reshape on NC1HWC0 (reshape_kind) that moves no byte."""
    kind = reshape_kind(op)
    nhwc = _shape(op.operands[0]) if kind in ("hw", "flatten") else _shape(op.results[0])
    return kind == "hw" or (kind is not None and nhwc[0] == 1 and (nhwc[1] * nhwc[2]) % 16 == 0)


def rule_reshape_c(op: Operation, fmt: str) -> str | None:
    if not _static(op):
        return "dynamic shapes"
    if reshape_kind(op) is None:
        return (f"it changes N or C ({list(_shape(op.operands[0]))} -> "
                f"{list(_shape(op.results[0]))}): not H, W alone, nor a flatten to [N*H*W, C]")
    return None


def rule_rows(op: Operation, fmt: str) -> str | None:
    """Softmax / LayerNorm statistics along the last axis: one m1 block of NZ across all K1
    blocks holds 16 whole rows (cann-facts.md section 3).  On NC1HWC0 the last axis of an NHWC
    value is C: a row (n, h, w) is C1 blocks of C0 lanes, the padding lanes of the last block
    masked (compiler/conversions/cann_to_kernel/vector.py RowsToVectorBody, `nc1hwc0_rows`)."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    y = _shape(op.results[0])
    rank = len(y)
    if fmt == NC1HWC0 and origin_format(op) != "NHWC":
        return "the last axis of an NCHW value is W, not C"
    if isinstance(op, cann.SoftmaxV2Op):
        if sorted(a % rank for a in _ints(op, "axes")) != [rank - 1]:
            return "a softmax over another axis than the last"
    elif _int(op, "begin_norm_axis") % rank != rank - 1 or _int(op, "begin_params_axis") % rank != rank - 1:
        return "a normalization over more than the last axis"
    for i in activations(op):
        if _shape(op.operands[i]) != y:
            return f"operand #{i} broadcasts"
    return None


def rule_batch_view(op: Operation, fmt: str) -> str | None:
    """A Reshape that only regroups the batch dims of an NZ value keeps its bytes."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    xs, ys = _shape(op.operands[0]), _shape(op.results[0])
    if len(xs) < 2 or xs[-2:] != ys[-2:]:
        return f"it changes the last two axes ({list(xs)} -> {list(ys)})"
    return None


def rule_concat(op: Operation, fmt: str) -> str | None:
    """Concat over any axis of NC1HWC0 values: over N, H, W and over C at whole C0 blocks it
    is a concat of the stored arrays; over C at other channel offsets the kernel moves those
    inputs lane by lane (compiler/conversions/cann_to_kernel/data_movement.py `concat_c0`)."""
    return _device_shape(op, fmt)


def nz_concat_blocks(axis: int, pieces: list[tuple[int, ...]], dtype) -> bool:
    """Pieces of a concat along origin `axis` that are whole FRACTAL_NZ blocks of the result
    (cann-facts.md section 3: NZ[.., k1, m1, m0, k0] = ND[.., m1*16+m0, k1*C0+k0]): along the
    last axis every piece but the last has a multiple of C0 columns (the last one's padding
    columns are the result's), along the rows a multiple of 16 rows; a batch axis always."""
    from compiler.target.formats import N0, c0_for

    rank = len(pieces[0])
    a = axis % rank
    if a < rank - 2:
        return True
    unit = c0_for(dtype) if a == rank - 1 else N0
    return all(p[a] % unit == 0 for p in pieces[:-1])


def _nz_whole_blocks(op: Operation, fmt: str, dim: str, pieces, what: str) -> str | None:
    """Why the concat / split `op` over attribute `dim` is no whole-block operation on its
    FRACTAL_NZ `pieces` (its inputs or its parts), or None (nz_concat_blocks)."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    if not nz_concat_blocks(_int(op, dim), [_shape(v) for v in pieces], _dtype(op.results[0])):
        return f"{what} ends inside a FRACTAL_NZ block (columns not a multiple of C0, or rows of 16)"
    return None


def rule_concat_nz(op: Operation, fmt: str) -> str | None:
    """Concat of FRACTAL_NZ values at whole blocks (nz_concat_blocks): a concat of the stored
    arrays along K1, M1 or a batch axis (data_movement.py `stored_block_axis`)."""
    return _nz_whole_blocks(op, fmt, "concat_dim", op.operands, "an input")


def rule_split(op: Operation, fmt: str) -> str | None:
    """Split over any axis of an NC1HWC0 value: over N, H, W and over C at whole C0 blocks a
    split of the stored array; over C at other offsets each part is gathered lane by lane
    (compiler/conversions/cann_to_kernel/data_movement.py `split_c0`)."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    if len(_shape(op.operands[0])) != 4:
        return "an input of rank other than 4"
    return None


def rule_split_nz(op: Operation, fmt: str) -> str | None:
    """Split of a FRACTAL_NZ value into whole blocks (nz_concat_blocks, the parts in place of a
    concat's inputs): a split of the stored array along K1, M1 or a batch axis
    (data_movement.py `nz_block_axis`); with one batch, a part on K1 is a contiguous slab the
    memory plan aliases (no copy)."""
    return _nz_whole_blocks(op, fmt, "split_dim", op.results, "a part")


def rule_slice_hw(op: Operation, fmt: str) -> str | None:
    """A StridedSlice over N, H, W of a 4-D value, C whole and no axis added or removed: a
    slice of the stored NC1HWC0 array (compiler/conversions/cann_to_kernel/data_movement.py `nc1hwc0_slice`)."""
    from compiler.conversions.cann_to_kernel.data_movement import _slice_axes

    msg = _device_shape(op, fmt)
    if msg:
        return msg
    xs = _shape(op.operands[0])
    if len(xs) != 4 or _int(op, "new_axis_mask") or _int(op, "shrink_axis_mask"):
        return "it adds or removes axes"
    ax = _slice_axes(op, list(xs))
    c = _c_axis(op)
    if ax is None or (ax[0][c], ax[1][c], ax[2][c]) != (0, 1, xs[c]):
        return "it slices C"
    return None


def rule_gather_rows(op: Operation, fmt: str) -> str | None:
    """GatherV2D of whole rows (axis 0 of a 2-D table) into one batch of rows [.., M, K]: each
    gathered row is origin row m of FRACTAL_NZ, written across the K1 column blocks
    (`nz_origin_rows`); the table and the indices stay ND (parameters)."""
    msg = _device_shape(op, fmt)
    if msg:
        return msg
    xs, ys = _shape(op.operands[0]), _shape(op.results[0])
    if len(xs) != 2 or _int(op, "axis") % 2 != 0:
        return "it gathers from a table of rank other than 2 or along another axis than 0"
    batch = 1
    for d in ys[:-2]:
        batch *= d
    if batch != 1:
        return f"a result of {batch} batches [.., M, K] (one batch of rows only)"
    return None


def rule_attention(op: Operation, fmt: str) -> str | None:
    """FusedMultiHeadAttention on FRACTAL_NZ: the QKV GEMM reads x [B, S, H] as NZ tiles and the
    P @ V GEMM writes each head's [S, D] block into its columns of y [B, S, N*D] as NZ tiles
    (compiler/conversions/cann_to_kernel/attention.py); y must have its heads merged (a
    [B, S, N, D] result would put N on the fractal rows)."""
    if not _static(op):
        return "dynamic shapes"
    if len(_shape(op.results[0])) != 3:
        return "a [B, S, N, D] result (its heads not merged into [B, S, N*D])"
    return None


RULES = {
    "origin": lambda op, fmt: None,
    "same": rule_same,
    "broadcast": rule_broadcast,
    "kernel": rule_kernel,
    "conv": rule_device_input,
    "matmul": rule_device_input,
    "attention": rule_attention,
    "spatial": rule_spatial,
    "pad-hw": rule_pad_hw,
    "reduce-hw": rule_reduce_hw,
    "rows": rule_rows,
    "batch-view": rule_batch_view,
    "reshape-c": rule_reshape_c,
    "broadcast-c": rule_broadcast_c,
    "gather-rows": rule_gather_rows,
    "concat": rule_concat,
    "concat-nz": rule_concat_nz,
    "split": rule_split,
    "split-nz": rule_split_nz,
    "slice-hw": rule_slice_hw,
    # static AIPP (cann.Aipp) writes the 4-D model input NC1HWC0 directly (ATC: "the images
    # processed by AIPP are stored in the 5D format NC1HWC0")
    "aipp": lambda op, fmt: _device_shape(op, fmt),
}


def why_not(op: Operation, fmt: str) -> str | None:
    """None if the op has a kernel on `fmt` here, else the reason."""
    decl = runs_on(op)
    rule = decl.rule(fmt)
    if not rule:
        return f"{op.name} has no {fmt} kernel"
    return RULES[rule](op, fmt)


def formats(op: Operation) -> list[str]:
    """The formats the op can run on here (ND first when it may)."""
    return [f for f in (ND, NC1HWC0, FRACTAL_NZ) if why_not(op, f) is None]


def io_layouts(op: Operation, fmt: str) -> tuple[list[str | None], list[str]]:
    """(per operand: the format it is read in, None for a parameter or a non-tensor; per
    result: the format it is written in) when the op runs on `fmt`."""
    params = param_values(op)
    ins: list[str | None] = []
    for v in op.operands:
        if not isinstance(v.type, TensorType) or v in params:
            ins.append(None)
        elif fmt != ND and runs_on(op).rule(fmt) == "kernel" and _shape(v) != _shape(op.results[0]) \
                and _kernel_param(op, v):
            ins.append(ND)
        else:
            ins.append(fmt)
    outs = [fmt] * len(op.results)
    if fmt == NC1HWC0 and runs_on(op).rule(fmt) == "reduce-hw" and not _int(op, "keep_dims"):
        # over H, W: [N, C], C1 x C0 of the input are K1 x C0 of NZ; over C: [N, H, W] row-major
        outs = [ND] if reduces_c(op) else [FRACTAL_NZ]
    if fmt == NC1HWC0 and runs_on(op).rule(fmt) == "reshape-c":
        kind = reshape_kind(op)
        if kind == "flatten":
            outs = [FRACTAL_NZ]
        elif kind == "unflatten":
            ins = [FRACTAL_NZ]
    return ins, outs


def op_cost(op: Operation, fmt: str) -> int:
    """The bytes the op itself moves on `fmt` where that differs between formats (energy
    units): a Reshape between NC1HWC0 and FRACTAL_NZ that is no view copies its value once
    (read + write), as a TransData does, so the assignment weighs it against the TransData
    chain through ND (twice that)."""
    if fmt == NC1HWC0 and runs_on(op).rule(fmt) == "reshape-c" and not reshape_is_view(op):
        return 2 * _bytes(op.results[0]) * SCALE
    return 0


# --- the assignment ---------------------------------------------------------------------------

def _bytes(v: SSAValue) -> int:
    n = 1
    for d in _shape(v):
        n *= max(d, 1)
    try:
        return n * _dtype(v).itemsize
    except Exception:  # noqa: BLE001 (a type without a numpy dtype: count elements)
        return n


#: Energy units per byte moved; one unit breaks ties (`_bias`).
SCALE = 1 << 20


def conversion_cost(src: str, dst: str, nbytes: int) -> int:
    """Bytes a TransData chain moves (read + write per hop; two device formats go through ND),
    in energy units."""
    if src == dst:
        return 0
    return (2 if ND in (src, dst) else 4) * nbytes * SCALE


def converts_on_load(op: Operation, i: int, src: str, dst: str) -> bool:
    """Whether operand i of `op`, produced in `src` and read in `dst`, needs no TransData
    kernel: a cube op's A operand (x / x1, loaded GM -> L1) read on a device format from ND of
    a channels-last / row-major origin, which the load converts on the way
    (compiler/conversions/cann_to_kernel/data_movement.py FoldInputTransData; the DMA's pairs
    are dialects/kernel.py FROM_ORIGIN_LAYOUTS: not from NCHW).  The fold checks the kernel's
    loads after lowering; a conv whose A tiles go through UB keeps its TransData, and so does
    one whose x is a fused prologue (compiler/transforms/fusion/auto.py PROLOGUE_ATTR: the cube
    kernel runs it on the A tiles it loads GM -> UB from the prologue's own input)."""
    from compiler.transforms.fusion.auto import PROLOGUE_ATTR
    from dialects.op_kinds import is_cube

    owner = op.operands[i].owner if i < len(op.operands) else None
    return src == ND and dst in DEVICE and i == 0 and is_cube(op) and _static(op) \
        and (dst == FRACTAL_NZ or origin_format(op) == "NHWC") \
        and not (isinstance(owner, Operation) and PROLOGUE_ATTR in owner.attributes)


def _bias(fmt: str) -> int:
    """Between arrangements that move the same bytes, an op runs on the device format (so a
    TransData sinks toward the graph's outputs, as the TransData of a conv's result did before
    the global assignment); far below one byte moved."""
    return 1 if fmt == ND else 0


@dataclass
class Problem:
    ops: list[Operation]
    allowed: list[list[str]]
    #: value -> (producer index or -1 for a graph input, result index)
    producer: dict[SSAValue, tuple[int, int]] = field(default_factory=dict)
    #: value -> [(reader index or -1 for the graph's return, operand index)]
    readers: dict[SSAValue, list[tuple[int, int]]] = field(default_factory=dict)
    io: dict[tuple[int, str], tuple[list, list]] = field(default_factory=dict)
    #: value -> its bytes (`_bytes`), (op index, format) -> `unary`: asked once each
    nbytes: dict[SSAValue, int] = field(default_factory=dict)
    unaries: dict[tuple[int, str], int] = field(default_factory=dict)

    def bytes_of(self, v: SSAValue) -> int:
        b = self.nbytes.get(v)
        if b is None:
            b = self.nbytes[v] = _bytes(v)
        return b

    def layouts(self, k: int, fmt: str):
        key = (k, fmt)
        if key not in self.io:
            self.io[key] = io_layouts(self.ops[k], fmt)
        return self.io[key]

    def produced(self, v: SSAValue, labels: list[str]) -> str:
        k, r = self.producer[v]
        return ND if k < 0 else self.layouts(k, labels[k])[1][r]

    def read(self, k: int, i: int, labels: list[str]) -> str | None:
        return ND if k < 0 else self.layouts(k, labels[k])[0][i]

    def unary(self, k: int, fmt: str) -> int:
        key = (k, fmt)
        u = self.unaries.get(key)
        if u is None:
            u = self.unaries[key] = _bias(fmt) + op_cost(self.ops[k], fmt)
        return u

    def energy(self, labels: list[str]) -> int:
        total = sum(self.unary(k, f) for k, f in enumerate(labels))
        for v, rs in self.readers.items():
            p = self.produced(v, labels)
            want: dict[str, bool] = {}  # format -> every reader in it converts on its load
            for k, i in rs:
                w = self.read(k, i, labels)
                if w is not None and w != p:
                    want[w] = want.get(w, True) and k >= 0 and converts_on_load(self.ops[k], i, p, w)
            b = self.bytes_of(v)
            total += sum(conversion_cost(p, w, b) for w, free in want.items() if not free)
        return total


def build_problem(block) -> Problem:
    ops = [op for op in block.ops if op.name.startswith("cann.") and not isinstance(op, cann.ConstOp)]
    index = {op: k for k, op in enumerate(ops)}
    prob = Problem(ops, [formats(op) or [ND] for op in ops])
    for a in block.args:
        if isinstance(a.type, TensorType):
            prob.producer[a] = (-1, 0)
    for k, op in enumerate(ops):
        for r, res in enumerate(op.results):
            if isinstance(res.type, TensorType):
                prob.producer[res] = (k, r)
    for op in block.ops:
        k = index.get(op, -1)
        if isinstance(op, cann.ConstOp):
            continue
        for i, v in enumerate(op.operands):
            if v in prob.producer:
                prob.readers.setdefault(v, []).append((k, i))
    return prob


def _maxflow_mincut(n: int, edges: dict[tuple[int, int], int], s: int, t: int) -> set[int]:
    """Nodes on the source side of a minimum s-t cut (Dinic's algorithm)."""
    graph: list[list[int]] = [[] for _ in range(n)]
    to: list[int] = []
    cap: list[int] = []
    for (u, v), c in edges.items():
        if c <= 0:
            continue
        graph[u].append(len(to)); to.append(v); cap.append(c)  # noqa: E702
        graph[v].append(len(to)); to.append(u); cap.append(0)  # noqa: E702
    while True:
        level = [-1] * n
        level[s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for e in graph[u]:
                if cap[e] > 0 and level[to[e]] < 0:
                    level[to[e]] = level[u] + 1
                    q.append(to[e])
        if level[t] < 0:
            break
        it = [0] * n
        while True:  # blocking flow: iterative depth-first augmenting paths
            path: list[int] = []  # edges from s
            u = s
            while u != t:
                while it[u] < len(graph[u]):
                    e = graph[u][it[u]]
                    if cap[e] > 0 and level[to[e]] == level[u] + 1:
                        break
                    it[u] += 1
                if it[u] == len(graph[u]):  # dead end: retreat
                    if not path:
                        break
                    level[u] = -1
                    e = path.pop()
                    u = to[e ^ 1]
                    it[u] += 1
                    continue
                e = graph[u][it[u]]
                path.append(e)
                u = to[e]
            if u != t:
                break
            f = min(cap[e] for e in path)
            for e in path:
                cap[e] -= f
                cap[e ^ 1] += f
    seen = {s}
    q = deque([s])
    while q:
        u = q.popleft()
        for e in graph[u]:
            if cap[e] > 0 and to[e] not in seen:
                seen.add(to[e])
                q.append(to[e])
    return seen


def _expand(prob: Problem, labels: list[str], alpha: str) -> list[str]:
    """The best alpha-expansion of `labels` under the pairwise (producer, reader) terms."""
    var = {k: n for n, k in enumerate(k for k in range(len(prob.ops))
                                       if labels[k] != alpha and alpha in prob.allowed[k])}
    if not var:
        return labels
    nv = len(var)
    s, t = nv, nv + 1
    u0 = [0] * nv  # cost of keeping
    u1 = [0] * nv  # cost of switching
    edges: dict[tuple[int, int], int] = {}

    def lab(k: int, x: int) -> str:
        return alpha if x else labels[k]

    for v, rs in prob.readers.items():
        kp, r = prob.producer[v]
        b = prob.bytes_of(v)
        for kq, i in rs:
            def theta(xp: int, xq: int, kp: int = kp, r: int = r, kq: int = kq, i: int = i,
                      b: int = b) -> int:
                p = ND if kp < 0 else prob.layouts(kp, lab(kp, xp))[1][r]
                w = ND if kq < 0 else prob.layouts(kq, lab(kq, xq))[0][i]
                if w is None or (kq >= 0 and converts_on_load(prob.ops[kq], i, p, w)):
                    return 0
                return conversion_cost(p, w, b)

            vp, vq = var.get(kp) if kp >= 0 else None, var.get(kq) if kq >= 0 else None
            if vp is None and vq is None:
                continue
            if vq is None:
                if vp is not None:  # (both None: skipped above)
                    u0[vp] += theta(0, 0)
                    u1[vp] += theta(1, 0)
                continue
            if vp is None:
                u0[vq] += theta(0, 0)
                u1[vq] += theta(0, 1)
                continue
            if vp == vq:
                u0[vp] += theta(0, 0)
                u1[vp] += theta(1, 1)
                continue
            a, bb, c, d = theta(0, 0), theta(0, 1), theta(1, 0), theta(1, 1)
            # theta = a + (c - a) xp + (d - c) xq + (bb + c - a - d)(1 - xp) xq
            u0[vp] += a
            u1[vp] += c
            u1[vq] += d - c
            w = bb + c - a - d
            if w > 0:  # submodular part; a non-submodular remainder is dropped (truncation)
                edges[(vp, vq)] = edges.get((vp, vq), 0) + w
    for k, n in var.items():
        u0[n] += prob.unary(k, labels[k])
        u1[n] += prob.unary(k, alpha)
    for n in range(nv):
        m = min(u0[n], u1[n])
        if u1[n] - m:
            edges[(s, n)] = edges.get((s, n), 0) + u1[n] - m  # cut when n switches
        if u0[n] - m:
            edges[(n, t)] = edges.get((n, t), 0) + u0[n] - m  # cut when n keeps
    keep = _maxflow_mincut(nv + 2, edges, s, t)
    return [alpha if k in var and var[k] not in keep else labels[k] for k in range(len(labels))]


def assign(block) -> tuple[Problem, list[str]]:
    """The format of every cann op of `block` (a function body), by alpha-expansion."""
    prob = build_problem(block)
    labels = [a[0] for a in prob.allowed]
    best = prob.energy(labels)
    for _ in range(8):
        improved = False
        for alpha in (NC1HWC0, FRACTAL_NZ, ND):
            cand = _expand(prob, labels, alpha)
            e = prob.energy(cand)
            if e < best:
                labels, best, improved = cand, e, True
        if not improved:
            break
    return prob, labels


def choose(module) -> dict[Operation, str]:
    """op -> the device format it runs on, for every op of every function that leaves ND."""
    out: dict[Operation, str] = {}
    for fn in module.walk():
        if isinstance(fn, func.FuncOp) and fn.body.blocks.first is not None:
            prob, labels = assign(fn.body.blocks.first)
            out.update({op: f for op, f in zip(prob.ops, labels) if f != ND})
    return out


# --- the report -------------------------------------------------------------------------------

def explain(td: cann.TransDataOp) -> str:
    """Why a TransData left by assign-layouts is there: the op on its origin side that has no
    kernel for the other format (or the graph's edge), else the cost trade-off."""
    from compiler.ir.diagnostics import node_name

    to_origin = cann.format_of(td.src.type) is not None
    fmt = td.src_format.data if to_origin else td.dst_format.data
    if fmt not in DEVICE:
        return f"{fmt} operand of a cube op (not a constant, so converted at run time)"

    def name(op: Operation) -> str:
        n = node_name(op)
        return f"{op.name} '{n}'" if n else op.name

    def why(op: Operation, fmt: str, reads: int | None = None, writes: int | None = None) -> str:
        """Why `op` does not read operand `reads` (or write result `writes`) in `fmt`."""
        for f in formats(op):
            ins, outs = io_layouts(op, f)
            if (reads is not None and ins[reads] == fmt) or (writes is not None and outs[writes] == fmt):
                return f"{name(op)} runs on ND: cheaper than converting its other operands" \
                    + _blockers(op, fmt, name)
        return f"{name(op)}: {why_not(op, fmt) or f'it does not read or write {fmt}'}"

    reasons = []
    if to_origin:  # device -> origin: who reads the origin value?
        for use in td.dst.uses:
            user = use.operation
            if isinstance(user, func.ReturnOp):
                reasons.append("graph output")
            elif isinstance(user, cann.TransDataOp):
                reasons.append(f"converted on to {user.dst_format.data}")
            else:
                reasons.append(why(user, fmt, reads=use.index))
    else:
        owner = td.src.owner
        if not isinstance(owner, Operation):
            reasons.append("graph input")
        elif isinstance(owner, cann.TransDataOp):
            reasons.append(f"converted on from {owner.src_format.data}")
        elif isinstance(td.src, OpResult):
            reasons.append(why(owner, fmt, writes=td.src.index))
    return "; ".join(dict.fromkeys(reasons))


def _blockers(op: Operation, fmt: str, name) -> str:
    """The neighbours that keep `op` on ND although it has a `fmt` kernel: the producers of its
    other operands (graph inputs, ops with no `fmt` kernel) and the readers of its results with
    no `fmt` kernel, each with its reason ("" when none is found)."""
    out = []
    for i in activations(op):
        v = op.operands[i]
        owner = v.owner
        if not isinstance(owner, Operation):
            out.append("a graph input")
        elif owner.name.startswith("cann.") and not isinstance(owner, (cann.ConstOp, cann.TransDataOp)) \
                and fmt not in formats(owner):
            out.append(f"{name(owner)} ({why_not(owner, fmt)})")
    for r in op.results:
        for use in r.uses:
            user = use.operation
            if user.name.startswith("cann.") and not isinstance(user, cann.TransDataOp) and fmt not in formats(user):
                out.append(f"{name(user)} ({why_not(user, fmt)})")
    out = list(dict.fromkeys(out))
    return f" (its neighbours on ND: {'; '.join(out)})" if out else ""


def report_lines(module) -> list[str]:
    from compiler.ir.diagnostics import node_name

    lines = []
    tds = [op for op in module.walk() if isinstance(op, cann.TransDataOp)]
    total = 0
    for td in tds:
        shape = list(_shape(td.src))
        b = _bytes(td.src)
        total += 2 * b
        node = node_name(td)
        lines.append(f"TransData {td.src_format.data} -> {td.dst_format.data} {shape}"
                     + (f" at '{node}'" if node else "") + f": {explain(td)}")
    lines.insert(0, f"layout report: {len(tds)} TransData, {total} bytes moved")
    return lines
