"""A cann.FusedKernel as the prologue of the reductions reading it (XLA's input fusion).

The automatic fusion (compiler/transforms/fusion/auto.py) marks `prologue` a pointwise kernel
whose only readers are InputFusable reductions (dialects/op_kinds.py: LayerNorm, AddLayerNorm,
ReduceD) reading it as a data input.  Their vector kernels (vector.py RowsToVectorBody,
ReduceToVectorBody) then load the kernel's inputs instead of its result and run its body on
each tile in UB before reducing, so the pointwise result is never written to GM:

  * a row kernel's [rows, length] tile: inputs stored like the result are loaded with the
    row kernel's own view (rows, nz_origin_rows, nc1hwc0_rows: padding columns and lanes are
    dropped on load, padding rows are stored as zeros, so f(0) never reaches the statistics
    or GM), channel vectors ([C]: a row's values) and scalars flat;
  * ReduceD's [tile, chunk, inner] chunk: inputs stored like the result with chunk_rows,
    channel vectors and scalars with chunk_channel; the body's tile is then selected by
    chunk_valid against the chunk_rows tile of an x-shaped input (stored zeros at channel
    padding lanes, the reduction's fill past the end): the tile the unfused kernel would have
    read from the materialized result, whatever f(0) is.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

from compiler.conversions.cann_to_kernel.base import Body, num_elems, row_major, stored_as
from compiler.ir.typed import elem_of, shape_of
from dialects import cann


def _same(v_type, y_type) -> bool:
    return list(shape_of(v_type)) == list(shape_of(y_type)) and \
        cann.format_of(v_type) == cann.format_of(y_type)


def loadable(fk: cann.FusedKernelOp, users: list[Operation]) -> str | None:
    """Why the reductions `users` cannot run `fk` on their tiles, else None: each input stored
    like the result, a row-major scalar or a row-major channel vector; a ReduceD must take its
    chunked path and fk needs an input stored like the result (its chunk_valid fallback)."""
    from compiler.conversions.cann_to_kernel.fused import is_channel_vector
    from compiler.conversions.cann_to_kernel.vector import chunked_reduction

    y = fk.y.type
    for v in fk.inputs:
        t = v.type
        if not _same(t, y) and not (num_elems(t) == 1 and row_major(t)) \
                and not is_channel_vector(t, y):
            return (f"input {list(cann.origin_shape(t))} stored as {stored_as(t)} is neither the "
                    "reduced tensor's layout, a scalar nor a channel vector")
    for u in users:
        if isinstance(u, cann.ReduceDOp):
            if not chunked_reduction(u):
                return f"{u.name} does not reduce tiles of chunks of x"
            if not any(_same(v.type, y) for v in fk.inputs):
                return "no input is stored like the reduced tensor"
    return None


def prologue_of(v: SSAValue) -> cann.FusedKernelOp | None:
    """The FusedKernel computing v that runs on its reductions' tiles, or None."""
    from compiler.conversions.cann_to_kernel.fused import prologue_lowerable

    fk = v.owner
    return fk if isinstance(fk, cann.FusedKernelOp) and prologue_lowerable(fk) else None


def live_tiles_of(fk: cann.FusedKernelOp | None) -> int:
    """The UB tiles fk's body keeps live (0 without a prologue)."""
    if fk is None:
        return 0
    from compiler.transforms.fusion.auto import live_tiles

    return live_tiles(fk.body_ops())


def emit_rows(body: Body, fk: cann.FusedKernelOp, arg_of: list[int],
              load_like_y: Callable[[SSAValue], SSAValue], rows: int, length: int) -> SSAValue:
    """fk's body on a row kernel's [rows, length] tile: input i is kernel argument arg_of[i];
    load_like_y(arg) loads an argument stored like the result with the row kernel's view."""
    from compiler.conversions.cann_to_kernel.fused import emit_region

    y = fk.y.type

    def load(i: int) -> SSAValue:
        v = fk.inputs[i]
        arg = body.args[arg_of[i]]
        if _same(v.type, y):
            return load_like_y(arg)
        n = 1 if num_elems(v.type) == 1 else length  # a scalar, or a row's channel values
        return body.load(arg, [body.index(0)], "flat", [n], elem_of(v), "UB", shape=[n])

    return emit_region(body, fk, [rows, length], load, lambda e: e)


def emit_chunk(body: Body, fk: cann.FusedKernelOp, arg_of: list[int], idx, shape: list[int],
               chunk_params: dict, fill: int, layout: int, channels: int, et) -> SSAValue:
    """fk's body on ReduceD's [tile, chunk, inner] chunk at idx = [ti, li] (x viewed as
    chunk_params' [rows, length, inner], stored as fk's result), selected by chunk_valid
    against the chunk_rows tile of an input stored like the result."""
    from compiler.conversions.cann_to_kernel.fused import emit_region

    y = fk.y.type
    ys = list(y.get_shape())
    first = next(i for i, v in enumerate(fk.inputs) if _same(v.type, y))

    def load(i: int) -> SSAValue:
        v = fk.inputs[i]
        arg = body.args[arg_of[i]]
        if _same(v.type, y):
            return body.load(arg, idx, "chunk_rows", shape, elem_of(v), "UB", **chunk_params,
                             fill=fill)
        return body.load(arg, idx, "chunk_channel", shape, elem_of(v), "UB", **chunk_params,
                         shape=ys, layout=layout)

    x0 = load(first)
    r = emit_region(body, fk, shape, load, lambda e: e, given={first: x0})
    valid = body.load(body.args[arg_of[first]], idx, "chunk_valid", shape, et, "UB",
                      **chunk_params, shape=ys, layout=layout, channels=channels)
    return body.vec("SelectV2", [valid, r, x0], shape, et)
