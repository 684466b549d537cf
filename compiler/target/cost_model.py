"""Cost model built from the chip's parameters (cann-facts.md sections 2 and 6).

Per core, a cube kernel is a pipeline of data movement (GM->L1 at 32 B/cycle, L1->L0A 512,
L1->L0B 256, results UB->GM 64) and cube work (one 16 x 16 x (32 bytes of K) fractal
multiply-accumulate per cycle: 16x16x16 fp16, 16x16x8 fp32).  The pipes overlap (double
buffering), so a kernel costs its slowest pipe.
"""

from __future__ import annotations

from compiler.target.chips import BYTES_PER_CYCLE, ChipProfile
from compiler.target.formats import ceil_div


class CubeCoreCost:
    """`cube_core_cycles` of one core's GEMM (single_m x single_n x k) for any base block: the
    terms the block does not change (the cube work, the result's UB -> GM store, the bytes of
    one read of A and of B) are computed once, for a tiling search that costs many blocks."""

    __slots__ = ("single_m", "single_n", "cube", "out", "a_once", "b_once")

    def __init__(self, single_m: int, single_n: int, k: int, in_bytes: int) -> None:
        k_per_cycle = 32 // in_bytes
        self.single_m, self.single_n = single_m, single_n
        self.cube = ceil_div(single_m, 16) * ceil_div(single_n, 16) * ceil_div(k, k_per_cycle)
        self.out = single_m * single_n * 4 / _UB_GM
        self.a_once, self.b_once = single_m * k * in_bytes, single_n * k * in_bytes

    def floor(self, max_base_m: int, max_base_n: int, a_tiles: bool = True) -> float:
        """A lower bound of `cycles` over the base blocks of at most max_base_m x max_base_n
        (B read at least once per block of max_base_m rows, A once per max_base_n columns;
        a_tiles=False: A may reach L1 otherwise, a_gm_bytes, counted as none there)."""
        a_bytes = self.a_once * -(-self.single_n // max_base_n)
        b_bytes = self.b_once * -(-self.single_m // max_base_m)
        mte2 = ((a_bytes if a_tiles else 0) + b_bytes) / _GM_L1
        mte1 = a_bytes / _L1_L0A + b_bytes / _L1_L0B
        return float(max(self.cube, mte2, mte1, self.out))

    def cycles(self, base_m: int, base_n: int, b_reads: int | None = None,
               a_gm_bytes: int | None = None) -> float:
        # A is re-read for every N block, B for every M block (no L1 reuse across blocks).
        a_bytes = self.a_once * -(-self.single_n // base_n)
        b_bytes = self.b_once * (-(-self.single_m // base_m) if b_reads is None else b_reads)
        mte2 = ((a_bytes if a_gm_bytes is None else a_gm_bytes) + b_bytes) / _GM_L1
        mte1 = a_bytes / _L1_L0A + b_bytes / _L1_L0B
        return float(max(self.cube, mte2, mte1, self.out))


_GM_L1, _L1_L0A, _L1_L0B, _UB_GM = (BYTES_PER_CYCLE[p] for p in ("GM->L1", "L1->L0A", "L1->L0B",
                                                                   "UB->GM"))


def cube_core_cycles(chip: ChipProfile, single_m: int, single_n: int, k: int,
                     base_m: int, base_n: int, in_bytes: int, b_reads: int | None = None,
                     a_gm_bytes: int | None = None) -> float:
    """b_reads: how many times B goes GM -> L1 (default: once per M block); a recurrent
    kernel keeping its weights in L1 across the time steps reads them once per block of rows.
    a_gm_bytes: the bytes of A that go GM -> L1 when they are not the A tiles (default: A
    re-read for every N block): a conv whose feature-map window goes to L1 once per M block and
    is expanded by Load3D on the L1 -> L0A path (compiler/target/conv_geometry.py).
    The slowest of the pipes (`CubeCoreCost`)."""
    return CubeCoreCost(single_m, single_n, k, in_bytes).cycles(base_m, base_n, b_reads,
                                                                 a_gm_bytes)



def staged_window_cycles(chip: ChipProfile, t: dict, in_bytes: int) -> float:
    """Cube cycles a conv's core spends computing its windows from a producer conv's inputs
    (tiling fields stageM / stageN / stageK / stageBaseM / stageBaseN: the producer's one-core
    GEMM over one window; compiler/conversions/cann_to_kernel/conv_stage.py): that GEMM once per
    M block of the core, its pipes after the reader's (added, not overlapped: an assumption)."""
    blocks = ceil_div(t["singleCoreM"], t["baseM"])
    return blocks * cube_core_cycles(chip, t["stageM"], t["stageN"], t["stageK"], t["stageBaseM"],
                                     t["stageBaseN"], in_bytes)

# --- vector unit: measured cycle fits (cann-facts.md section 6; graph-autofusion
# `autofuse/att/.../perf_param_v1.cpp`): cycles ~ k * elements + b per core, fp16; fp32 ~2x k.
VECTOR_FITS: dict[str, tuple[float, float]] = {
    "Add": (0.0103, 22.2), "Mul": (0.011, 23.1), "Exp": (0.0311, 28.0), "Relu": (0.0077, 20.0),
    "Sigmoid": (0.1011, 116.0), "Tanh": (0.1976, 181.7), "Erf": (0.70, 478.0),
    "Div": (0.046, 29.1), "Cast": (0.0147, 20.1), "ReduceSum": (0.0547, 35.0),
}
#: Ops without a measured fit, costed like the measured op that does the same kind of work.
#: These are assumptions (not in the reference); `vector_fit` reports them as such.
VECTOR_FIT_ALIASES: dict[str, str] = {
    "BiasAdd": "Add", "AddV2": "Add", "Sub": "Add", "Maximum": "Add", "Minimum": "Add",
    "Relu6": "Relu", "LeakyRelu": "Relu", "Elu": "Exp", "RealDiv": "Div", "Rsqrt": "Div",
    "Sqrt": "Div", "Square": "Mul", "SquaredDifference": "Mul", "Pow": "Exp",
    "TransData": "Cast", "ReduceMean": "ReduceSum", "ReduceMeanD": "ReduceSum",
    "Softmax": "Exp", "SoftmaxV2": "Exp", "Gelu": "Erf", "FastGelu": "Tanh",
    # comparisons and logic: one vector compare / logic instruction per element, like Add
    **{fn: "Add" for fn in ("Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual",
                            "LogicalAnd", "LogicalOr", "LogicalNot")},
    "RowProd": "ReduceSum", "ReduceProdD": "ReduceSum", "ReduceSumD": "ReduceSum",
    # a scan (compiler/conversions/cann_to_kernel/scan.py): a running sum per element, like a sum reduction
    "Cumsum": "ReduceSum", "Cumprod": "ReduceSum",
    # data movement (gather, split, value / mirror padding, nearest resize): like TransData
    **{k: "Cast" for k in ("GatherV2D", "SplitD", "SplitVD", "PadV2D", "MirrorPad",
                           "ResizeNearestNeighborV2")},
    "ResizeBilinearV2": "Mul",  # per element 3 x (Sub, Mul, Add): each costed by its own fit
    # kernel-body vector instructions (dialects/kernel.py kernel.vec; compiler/target/kernel_cost_walk.py)
    **{k: "ReduceSum" for k in ("RowSum", "RowMax", "RowMin", "RowMean", "PoolMax", "PoolAvg")},
    "Muls": "Mul", "Adds": "Add", "Fill": "Add", "SelectV2": "Add", "GeluErf": "Erf",
    "Neg": "Mul", "Abs": "Relu", "Log": "Exp", "Reciprocal": "Div", "Erfc": "Erf",
    "Sin": "Tanh", "Cos": "Tanh", "Atan2": "Tanh",  # a polynomial after range reduction, like Tanh
    # rounding and sign: one vector instruction per element (vector round / compare), like Relu
    **{k: "Relu" for k in ("Floor", "Ceil", "Round", "Sign")},
    "Log1p": "Exp", "Expm1": "Exp", "FloorDiv": "Div", "FloorMod": "Div",
    # top-k (compiler/conversions/cann_to_kernel/topk.py): the sort is costed per merge pass
    # (compiler/target/kernel_cost_walk.py sort_steps); the per-lane gather moves data, like TransData
    "GatherLanes": "Cast",
}
DEFAULT_VECTOR_FIT = "Add"


def vector_fit(fn: str) -> tuple[float, float, str]:
    """(k, b, where from) for a vector op: measured, an alias of a measured op, or the default."""
    if fn in VECTOR_FITS:
        return (*VECTOR_FITS[fn], "measured")
    if fn in VECTOR_FIT_ALIASES:
        return (*VECTOR_FITS[VECTOR_FIT_ALIASES[fn]], f"assumed like {VECTOR_FIT_ALIASES[fn]}")
    return (*VECTOR_FITS[DEFAULT_VECTOR_FIT], f"assumed like {DEFAULT_VECTOR_FIT}")


def vector_core_cycles(fn: str, elems_per_core: int, elem_bytes: int) -> float:
    """Cycles of one vector core on `elems_per_core` elements (fp32 and wider: 2x k)."""
    k, b, _ = vector_fit(fn)
    if elem_bytes >= 4:
        k *= 2
    return k * elems_per_core + b


#: Ops whose kernel runs several vector instructions over its elements (the bodies
#: compiler/conversions/cann_to_kernel emits), for an op-level estimate without a kernel body
#: (benchmarks/compile_vs_grappler.py); any other op runs one instruction, its own fit.
#: Activations computed from several vector instructions (compiler/interpreters/fused_impl.py's
#: `activate`); any other activation X costs the fit of X (measured or aliased).
ACTIVATION_STEPS: dict[str, tuple[str, ...]] = {
    "none": (),
    "Swish": ("Sigmoid", "Mul"),
    "HardSwish": ("Add", "Relu6", "Mul", "Mul"),
}
OP_VECTOR_STEPS: dict[str, tuple[str, ...]] = {
    **{k: ("RowMax", "Sub", "Exp", "RowSum", "RealDiv") for k in ("Softmax", "SoftmaxV2")},
    **{k: v for k, v in ACTIVATION_STEPS.items() if v},
}


def op_vector_cycles(op: str, elems_per_core: int, elem_bytes: int) -> float:
    """One core's vector cycles of op `op` (its OP_VECTOR_STEPS, else its own fit)."""
    return sum(vector_core_cycles(fn, elems_per_core, elem_bytes)
               for fn in OP_VECTOR_STEPS.get(op, (op,)))
