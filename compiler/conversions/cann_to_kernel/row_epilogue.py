"""A row op (SoftmaxV2, LayerNorm, AddLayerNorm over the last axis) as a matmul kernel's
epilogue (compiler/transforms/fusion/row_epilogue.py marks it).

The matmul is tiled with its whole N extent in one base block of one core
(compiler/target/tiling.py cube_tiling whole_n), so each [baseM, baseN] output tile holds whole
rows: after the fixpipe and the bias / activation, the row statistics are taken over the tile's
first N columns (the row reductions' `cols`: the vector mask of Ascend C's instructions; the
padding columns are never stored), AddLayerNorm's other input is loaded at the tile's index
like the result, gamma and beta as channel vectors, and the tile is stored as the row op's
result.  The epilogue computes in fp32 (the fixpipe's output) like every cube epilogue.  Its
vector work is that of the row kernel it replaces, on the busiest core (one core when M is one
block): the cost walk charges it there (compiler/target/kernel_cost_walk.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import f32
from xdsl.ir import Operation, SSAValue

from compiler.conversions.cann_to_kernel.vector import layer_norm_rows, softmax_rows
from compiler.ir.typed import elem_of
from dialects import cann

#: fp32 [baseM, baseN] tiles a row epilogue keeps live in UB at once, by op (x and exp, the
#: result; x, the residual, x - mean and its square, the result).
LIVE_TILES = {cann.SoftmaxV2Op: 3, cann.LayerNormOp: 4, cann.AddLayerNormOp: 5}


class RowStep:
    """The row op `op` on the cube's output tile; its operands past the matmul's result are
    kernel arguments from `first_arg` on (other data input, then gamma, beta)."""

    def __init__(self, op: Operation, host_result: SSAValue, first_arg: int, n: int,
                 tile_view: tuple[str, dict]):
        self.op, self.n, self.first_arg, self.tile_view = op, n, first_arg, tile_view
        self.others = [v for v in op.operands if v is not host_result]

    def operands(self) -> list[SSAValue]:
        return self.others

    def emit(self, body, u: SSAValue, g, mi, ni, bm: int, bn: int) -> SSAValue:
        op, n = self.op, self.n
        if isinstance(op, cann.SoftmaxV2Op):
            return softmax_rows(body, u, bm, bn, f32, cols=n)
        args = [body.args[self.first_arg + i] for i in range(len(self.others))]
        if isinstance(op, cann.AddLayerNormOp):
            view, params = self.tile_view
            r = body.load(args[0], [g, mi, ni], view, [bm, bn], elem_of(self.others[0]), "UB",
                          **params)
            u = body.vec("Add", [u, r], [bm, bn], f32)
            args = args[1:]
        gb = [body.load(a, [g, ni], "channel", [1, bn], f32, "UB", offset=0, N=n) for a in args]
        eps = float(op.epsilon.value.data)  # type: ignore[attr-defined]
        return layer_norm_rows(body, u, gb[0], gb[1], eps, bm, bn, f32, cols=n)


def live_tiles(op: Operation) -> int:
    return LIVE_TILES[type(op)]  # type: ignore[index]


_LN_FNS = ("RowMean", "Sub", "Mul", "RowMean", "Adds", "Rsqrt", "Mul", "Mul", "Add")
#: The vector functions of each row op's body (softmax_rows / layer_norm_rows).
ROW_FNS = {cann.SoftmaxV2Op: ("RowMax", "Sub", "Exp", "RowSum", "RealDiv"),
           cann.LayerNormOp: _LN_FNS, cann.AddLayerNormOp: ("Add", *_LN_FNS)}


def row_cycles(op: Operation, elems_per_core: int) -> float:
    """One core's vector cycles of the row op on `elems_per_core` fp32 elements (the cost
    model's fits, compiler/target/cost_model.py)."""
    from compiler.target.cost_model import vector_core_cycles

    fns: tuple[str, ...] = ROW_FNS[type(op)]  # type: ignore[index]
    return sum((vector_core_cycles(fn, elems_per_core, 4) for fn in fns), 0.0)


def gains(op: Operation, chip, whole, free, m: int, n: int) -> bool:
    """The row epilogue is estimated faster than the row kernel of its own: the whole-row
    tiling `whole` (its slowest core's cube cycles, or the epilogue's vector cycles on its rows
    when more) against the free tiling `free`, plus the row kernel's launch and vector cycles
    (its rows over the vector cores; compiler/backend/perf_report.py LAUNCH_OVERHEAD_US)."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.formats import ceil_div
    from compiler.target.tiling import MIN_ELEMS_PER_CORE

    f = whole.fields
    epi = row_cycles(op, f["singleCoreM"] * f["singleCoreN"])
    cores = max(1, min(chip.vector_cores, m, ceil_div(m * n, MIN_ELEMS_PER_CORE)))
    own = row_cycles(op, ceil_div(m, cores) * n)
    whole_us = max(whole.est_cycles, epi) / chip.clock_mhz
    free_us = (free.est_cycles + own) / chip.clock_mhz + LAUNCH_OVERHEAD_US
    return whole_us < free_us
