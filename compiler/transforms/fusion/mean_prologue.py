"""A global average pool as its matmul's A-tile prologue (switch AutomaticPrologueFusion).

A ReduceMeanD to [N, C] (keep_dims false, a classifier's global average pool) over every axis
but the first and the last of its input, whose only reader is a matmul taking it as its A
operand untransposed (a Dense layer), is marked `prologue` (PROLOGUE_ATTR) when that input is
an NHWC tensor x [N', H, W, C] with N' = N*g, or a chain of views of one (Reshape, and the
layout TransData to the origin layout before it: `pool_input`).  Row n of the mean then
averages the g*H*W pixels of images [n*g, (n+1)*g) of x: a 2-D GAP is g = 1 (axes H, W); a
3-D one (GlobalAveragePooling3D, the depth folded into N by Conv3D, an AveragePooling3D before
it folded into the mean by the canonicalizer) reads x through a Reshape to [N, T, ..., C], g =
T.  cann-to-kernel (compiler/conversions/cann_to_kernel/cube.py, mean_a_tile) computes each
[baseM, baseK] A tile in UB from x's NC1HWC0 storage, chunk by chunk of pixels (view
nc1hwc0_pixels with `images` = g, a row sum, accumulated, times 1/(g*H*W)), and moves it
UB -> L1 as the conv prologues do: the pooled [N, C] tensor (and the views before it) is never
written to GM and the pool is no kernel of its own.  A pool whose input a pointwise prologue
computes (BN-ReLU before the pool, compiler/transforms/fusion/auto.py REDUCTION PROLOGUES)
stays a kernel.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue

from compiler.target.formats import Format
from compiler.transforms.fusion.auto import PROLOGUE_ATTR, is_prologue, live_uses
from dialects import cann, kernel
from dialects.common import ints

#: ops that only re-view their operand's elements (row-major order kept): a chain of them may
#: stand between a pool's x and the mean (cann level before cann-to-kernel, kernel level after
#: the producers of the chain were lowered first)
_VIEWS = (cann.ReshapeOp, cann.TransDataOp, kernel.ViewOp, kernel.TransDataOp)


def _static(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _reader(v: SSAValue) -> Operation | None:
    """The one op reading v, through layout conversions (TransData); None for none or several."""
    while True:
        uses = list(dict.fromkeys(live_uses(v)))
        if len(uses) != 1:
            return None
        if not isinstance(uses[0], cann.TransDataOp):
            return uses[0]
        v = uses[0].results[0]


def _untransposed_a(mm: Operation) -> bool:
    a = mm.properties.get("transpose_x1") or mm.properties.get("adj_x1")
    return not (a is not None and bool(a.value.data))  # type: ignore[attr-defined]


def _origin_view(op: Operation) -> bool:
    """A view keeping the row-major order of the elements: a Reshape, or a TransData between a
    layout and its own row-major origin (either way)."""
    if not isinstance(op, (cann.TransDataOp, kernel.TransDataOp)):
        return True
    fs, fd = cann.format_of(op.operands[0].type), cann.format_of(op.results[0].type)
    if (fs is None) == (fd is None):
        return False
    f, plain = (fs, op.results[0]) if fs is not None else (fd, op.operands[0])
    return f is not None and f.origin is not None and tuple(f.origin) == tuple(cann.origin_shape(plain.type))


def _view_chain(op: cann.ReduceMeanDOp) -> list[Operation]:
    """The views between the mean's input and the pool's x (`pool_input`), nearest first."""
    chain: list[Operation] = []
    v = op.x
    while not _nc1hwc0(v) and isinstance(v.owner, _VIEWS) and _origin_view(v.owner) \
            and len(set(live_uses(v))) == 1 and _static(v.owner.operands[0]):
        chain.append(v.owner)
        v = v.owner.operands[0]
    while chain and len(cann.origin_shape(v.type)) != 4:  # (x is the last 4-D one)
        v = chain.pop().results[0]
    return chain


def _nc1hwc0(v: SSAValue) -> bool:
    f = cann.format_of(v.type)
    return f is not None and f.fmt == Format.NC1HWC0


def pool_input(op: cann.ReduceMeanDOp) -> SSAValue:
    """The pool's x: the mean's input, or the NHWC tensor (its NC1HWC0 storage once layouts are
    assigned) a chain of views of which the mean reads."""
    chain = _view_chain(op)
    return chain[-1].operands[0] if chain else op.x


def pool_views(op: cann.ReduceMeanDOp) -> list[Operation]:
    """The view ops between x and the mean (erased with it), nearest to the mean first."""
    return _view_chain(op)


def images_per_row(op: cann.ReduceMeanDOp) -> int:
    """g: the images of x each row of the mean averages (N' / N)."""
    return cann.origin_shape(pool_input(op).type)[0] // cann.origin_shape(op.y.type)[0]


def mean_prologue_problem(op: Operation) -> str | None:
    """Why the ReduceMeanD `op` cannot run on its matmul's A tiles, or None."""
    if not isinstance(op, cann.ReduceMeanDOp):
        return "not a mean"
    if not _static(op.x) or not _static(op.y):
        return "a dynamic shape"
    xs, ys = cann.origin_shape(op.x.type), cann.origin_shape(op.y.type)
    r = len(xs)
    if len(ys) != 2 or r < 3 or sorted(a % r for a in ints(op.axes)) != list(range(1, r - 1)) \
            or xs[0] != ys[0] or xs[-1] != ys[1]:
        return "not a global average pool over every axis but the first and last to [N, C]"
    x = pool_input(op)
    xo = cann.origin_shape(x.type)
    f = cann.format_of(x.type)
    if len(xo) != 4 or xo[-1] != ys[1] or xo[0] % ys[0] or \
            f is not None and f.origin_fmt not in (None, Format.NHWC):
        return "its input is not an NHWC tensor (or a view of one) of N*g images"
    if is_prologue(x.owner) if isinstance(x.owner, Operation) else False:
        return "its input is computed by a prologue"
    mm = _reader(op.y)
    if not isinstance(mm, cann.MatMulLike) or isinstance(mm, cann.BatchMatMulV2Op) \
            or len(mm.operands) > 3 or not _untransposed_a(mm) \
            or mm.parent_block() is not op.parent_block():
        return "its one reader is not a matmul"
    a = mm.operands[0]
    while isinstance(a.owner, cann.TransDataOp):
        a = a.owner.operands[0]
    if a is not op.y:
        return "the matmul reads it as B"
    return None


def mean_reader(op: Operation) -> Operation | None:
    """The matmul reading the mean `op` (through layout conversions)."""
    return _reader(op.results[0])


def is_mean_prologue(op: Operation) -> bool:
    return isinstance(op, cann.ReduceMeanDOp) and PROLOGUE_ATTR in op.attributes \
        and mean_prologue_problem(op) is None


def mean_prologue_of(mm: Operation) -> cann.ReduceMeanDOp | None:
    """The marked mean computing the matmul `mm`'s A operand, or None."""
    a = mm.operands[0]
    while isinstance(a.owner, cann.TransDataOp):
        a = a.owner.operands[0]
    p = a.owner
    return p if isinstance(p, cann.ReduceMeanDOp) and is_mean_prologue(p) else None


def mark_mean_prologues(root: Operation) -> int:
    n = 0
    for op in list(root.walk()):
        if isinstance(op, cann.ReduceMeanDOp) and mean_prologue_problem(op) is None:
            op.attributes[PROLOGUE_ATTR] = UnitAttr()
            n += 1
    return n
