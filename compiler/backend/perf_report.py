"""Performance estimate of a kernel-level module on its chip, before owning one.

Per kernel launch (every top-level op of the `kernel` dialect in @main, in order):
  cube cycles    `compiler.target.cost_model.cube_core_cycles` for one core's block (singleCoreM x
                 singleCoreN x K from the tiling): the slowest of cube MACs, GM->L1, L1->L0, UB->GM;
                 a conv with fmapBytes in its tiling moves one feature-map window per M block
                 GM -> L1 instead of its img2col A tiles (Load3D, compiler/target/conv_geometry.py)
  vector cycles  a kernel with a body (kernel.cube / kernel.vec_kernel): the walk of that body
                 (`compiler.target.kernel_cost_walk`): on the busiest core, every kernel.vec /
                 kernel.accumulate costs the measured fit of its fn (cann-facts.md section 6,
                 cycles = k * elements + b, fp32 2x k; `compiler.target.cost_model.vector_core_cycles`)
                 on its tile, times the turns of the kernel.for loops around it.  A cube kernel's
                 vector work (bias, activation, residual epilogue; a scaled conv's A tiles) runs
                 beside the cube: compute = max(cube, vector).  A vector kernel's stores run
                 beside its vector work: compute = max(vector, UB->GM bytes / 64) per core (GM ->
                 UB has no per-core rate in the reference: HBM bytes only).  Bodyless kernels (kernel.vector,
                 kernel.transdata, kernel.cube_conv2d) are costed from their tiling.  Fns without
                 a measured fit are costed like a named measured op, and the report says so
  HBM bytes      every operand read once, every result written once (weights included)
  time           launch + max(compute, HBM bytes / bandwidth): the kernel's pipes overlap
A concat whose inputs were written in place by their producers (`mem.elided`) costs nothing, and
so does a `kernel.view` (the same bytes with another shape: no kernel).

Per model: kernel count, HBM bytes, FLOPs, the estimated latency (launches run back to back on
one stream), what bounds it (host = launch overhead, memory, compute: the largest share of the
estimate) and the roofline bound max(FLOPs / peak, minimum bytes / HBM bandwidth), where the
minimum bytes are the model's inputs, outputs and weights each moved once.

Assumptions (stated in every report):
* LAUNCH_OVERHEAD_US: the reference says only that a launch costs "microseconds"; we charge
  3 us per launch (host submit + device dispatch), an assumption.
* HBM bandwidth: the chip profile's figure and its source (`compiler/target/chips.py`).
* Cube peak: cores x 8192 flop/cycle x clock for fp16/bf16, half that for fp32 (16x16x8 fractal).
* Packed launches (`kernel.pack`, compiler/backend/launch_packs.py): consecutive kernels with
  one pack id are one launch on disjoint core ranges: one row, one launch overhead, compute =
  the slowest member, HBM bytes = all members' (an Ascend C kernel branches on its block index;
  that one launch may run different bodies on its core ranges is an assumption, stated in the
  report when the model has a packed launch).
* Control flow (kernel.if / case / while): which branch runs and how often a loop turns are known
  only at run time.  A branch op counts its costliest branch; a while counts its trip count x
  (cond + body) when the trip count is a compile-time constant (`kernel.trip_count`, found by
  compiler/conversions/cann_to_kernel/control_flow.py), else one iteration (the cond's kernels twice, the
  body's once), and says which.  Each predicate read is one host switch task (ATC's
  StreamSwitch / LabelSwitch) charged one launch; a while also copies its loop variables in and
  out.  The report lists these assumptions when the model has control flow.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, TensorType

from compiler.backend import memory_plan as mp
from compiler.ir.typed import int_of
from compiler.target.chips import BYTES_PER_CYCLE, DEFAULT_CHIP, ChipProfile, get_chip
from compiler.target.cost_model import (
    cube_core_cycles,
    staged_window_cycles,
    vector_core_cycles,
    vector_fit,
)
from compiler.target.formats import ceil_div
from compiler.target.kernel_cost_walk import walk_body
from dialects.cann import Activation
from dialects.common import string_value
from dialects.kernel import BodyKernelOp, LoadOp, LoadView, TransDataOp, ViewOp

#: The note of a cube kernel whose loads convert a row-major input on the way (kernel.load view
#: from_origin), and the assumption its cost rests on.
FROM_ORIGIN_NOTE = "by the GM -> L1 DMA"
FROM_ORIGIN_ASSUMPTION = ("a load converting ND -> NZ / NHWC -> NC1HWC0 on the way (copy_gm_to_cbuf_"
                          "multi_nd2nz) moves GM -> L1 at the GM->L1 rate on the L1 bytes it "
                          "writes, padding included (the reference gives no rate for it); HBM "
                          "bytes are the row-major source's; NHWC -> NC1HWC0_C04 (a small-C_in "
                          "conv's x, compiler/target/c04.py) writes 4 lanes a pixel")
#: Assumption (not a number in the reference, which says "microseconds"): per kernel launch.
LAUNCH_OVERHEAD_US = 3.0


@dataclass
class KernelCost:
    step: int
    op: str
    node: str
    unit: str  # "cube" | "vector" | "elided"
    cores: int
    cube_cycles: float
    vector_cycles: float
    hbm_in: int
    hbm_out: int
    flops: int
    launch_us: float
    compute_us: float
    memory_us: float
    note: str = ""
    #: vector fns costed with an alias fit -> "assumed like X"
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def total_us(self) -> float:
        return self.launch_us + max(self.compute_us, self.memory_us)

    @property
    def bound(self) -> str:
        if self.unit == "elided":
            return "-"
        if self.launch_us >= max(self.compute_us, self.memory_us):
            return "host"
        return "compute" if self.compute_us >= self.memory_us else "memory"


@dataclass
class PerfReport:
    chip: str
    clock_mhz: int
    hbm_tb_per_s: float
    hbm_source: str
    peak_tflops: float
    launch_us: float
    kernels: list[KernelCost] = field(default_factory=list)
    min_bytes: int = 0
    arena_bytes: int | None = None
    #: what was assumed about control flow (empty without control flow)
    control_notes: list[str] = field(default_factory=list)

    @property
    def launches(self) -> int:
        return sum(1 for k in self.kernels if k.unit != "elided")

    @property
    def hbm_bytes(self) -> int:
        return sum(k.hbm_in + k.hbm_out for k in self.kernels)

    @property
    def flops(self) -> int:
        return sum(k.flops for k in self.kernels)

    @property
    def latency_us(self) -> float:
        return sum(k.total_us for k in self.kernels)

    def shares(self) -> dict[str, float]:
        """The estimate split by what each kernel's time is spent on."""
        host = sum(k.launch_us for k in self.kernels)
        compute = sum(k.compute_us for k in self.kernels if k.compute_us >= k.memory_us)
        memory = sum(k.memory_us for k in self.kernels if k.memory_us > k.compute_us)
        return {"host": host, "memory": memory, "compute": compute}

    @property
    def bound(self) -> str:
        s = self.shares()
        return max(s, key=lambda k: s[k]) if self.kernels else "-"

    @property
    def roofline_compute_us(self) -> float:
        return self.flops / (self.peak_tflops * 1e12) * 1e6 if self.peak_tflops else 0.0

    @property
    def roofline_memory_us(self) -> float:
        return self.min_bytes / (self.hbm_tb_per_s * 1e12) * 1e6

    @property
    def roofline_us(self) -> float:
        return max(self.roofline_compute_us, self.roofline_memory_us)

    def aliases(self) -> dict[str, str]:
        """Vector fns of the model costed without a measured fit -> "assumed like X"."""
        out: dict[str, str] = {}
        for k in self.kernels:
            out.update(k.aliases)
        return dict(sorted(out.items()))

    def assumptions(self) -> list[str]:
        al = self.aliases()
        alias_note = (["vector fns without a measured fit (compiler/target/cost_model.py "
                       "VECTOR_FIT_ALIASES, an assumption): "
                       + ", ".join(f"{fn} {src}" for fn, src in al.items())] if al else [])
        return [
            f"HBM bandwidth {self.hbm_tb_per_s} TB/s ({self.hbm_source})",
            f"launch overhead {self.launch_us} us per kernel (assumption: the reference gives "
            "no number, only 'microseconds')",
            f"clock {self.clock_mhz} MHz; cube peak {self.peak_tflops:.1f} TFLOPS "
            "(cores x 8192 flop/cycle x clock for fp16; fp32 half)",
            "vector cycles = k*elements + b per core (measured fp16 fits, fp32 2x k); "
            "kernel time = launch + max(compute, HBM bytes / bandwidth)",
            "kernel bodies walked on the busiest core: each vector op x the turns of its loops; "
            "vector kernels: compute = max(vector, UB->GM bytes / 64 per core; GM->UB loads "
            "only as HBM bytes: no per-core rate in the reference); cube kernels: compute = "
            "max(cube, epilogue vector)",
            *alias_note,
            *([FROM_ORIGIN_ASSUMPTION] if any(FROM_ORIGIN_NOTE in k.note for k in self.kernels) else []),
            *([PACK_NOTE] if any(k.op == "pack" for k in self.kernels) else []),
            *self.control_notes,
        ]

    def to_dict(self) -> dict:
        return {
            "chip": self.chip, "assumptions": self.assumptions(),
            "kernels": [{**asdict(k), "total_us": k.total_us, "bound": k.bound} for k in self.kernels],
            "kernel_count": self.launches, "hbm_bytes": self.hbm_bytes, "flops": self.flops,
            "latency_us": self.latency_us, "bound": self.bound, "shares_us": self.shares(),
            "roofline_us": self.roofline_us, "roofline_compute_us": self.roofline_compute_us,
            "roofline_memory_us": self.roofline_memory_us, "min_bytes": self.min_bytes,
            "ratio_to_roofline": self.latency_us / self.roofline_us if self.roofline_us else None,
            "arena_bytes": self.arena_bytes,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_text(self) -> str:
        lines = [f"performance estimate on {self.chip}"]
        lines += [f"  assumption: {a}" for a in self.assumptions()]
        head = (f"{'#':>4} {'kernel':<20} {'node':<28} {'cores':>5} {'cube_cyc':>10} {'vec_cyc':>10} "
                f"{'hbm_in':>10} {'hbm_out':>10} {'launch_us':>9} {'compute_us':>10} "
                f"{'memory_us':>9} {'total_us':>9} bound")
        lines.append(head)
        for k in self.kernels:
            node = (k.node or "")[-28:]
            lines.append(
                f"{k.step:>4} {k.op:<20} {node:<28} {k.cores:>5} {k.cube_cycles:>10.0f} "
                f"{k.vector_cycles:>10.0f} {k.hbm_in:>10} {k.hbm_out:>10} {k.launch_us:>9.2f} "
                f"{k.compute_us:>10.3f} {k.memory_us:>9.3f} {k.total_us:>9.3f} {k.bound}"
                + (f"  [{k.note}]" if k.note else ""))
        s = self.shares()
        lines.append(
            f"model: {self.launches} kernel launches, {self.hbm_bytes} HBM bytes, "
            f"{self.flops} cube FLOPs, estimated latency {self.latency_us:.3f} us, bound: {self.bound} "
            f"(host {s['host']:.3f} us, memory {s['memory']:.3f} us, compute {s['compute']:.3f} us)")
        ratio = self.latency_us / self.roofline_us if self.roofline_us else float("inf")
        lines.append(
            f"roofline: max(FLOPs / peak = {self.roofline_compute_us:.3f} us, minimum bytes "
            f"{self.min_bytes} / HBM = {self.roofline_memory_us:.3f} us) = {self.roofline_us:.3f} us; "
            f"estimate / roofline = {ratio:.2f}x")
        if self.arena_bytes is not None:
            lines.append(f"device arena: {self.arena_bytes} bytes")
        return "\n".join(lines) + "\n"


def _prop(op, name):
    return op.properties.get(name, op.attributes.get(name))


def _bytes(t) -> int:
    try:
        return mp.tensor_bytes(t)
    except mp.PlanError:
        return 0


def _elem_bytes(t) -> int:
    from dialects.common import numpy_dtype

    return numpy_dtype(t.element_type).itemsize if isinstance(t, TensorType) else 4


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= max(d, 0)
    return n


def kernel_cost(op, step: int, chip: ChipProfile, launch_us: float = LAUNCH_OVERHEAD_US) -> KernelCost:
    from compiler.ir.diagnostics import node_name

    hbm_in = sum(_bytes(v.type) for v in op.operands if isinstance(v.type, TensorType))
    hbm_out = sum(_bytes(r.type) for r in op.results if isinstance(r.type, TensorType))
    inplace = op.attributes.get(mp.INPLACE_ATTR)
    if inplace is not None:  # the result is operand k's buffer: only the written rows move
        k = inplace.value.data
        hbm_in -= _bytes(op.operands[k].type)
        hbm_out = _bytes(op.operands[-1].type)
    bd = _prop(op, "block_dim")
    cores = bd.value.data if isinstance(bd, IntegerAttr) else 1
    tiling = _prop(op, "tiling")
    t = tiling.as_dict() if tiling is not None and hasattr(tiling, "as_dict") else {}
    node = node_name(op) or ""
    name = op.name.removeprefix("kernel.")
    if mp.ELIDED_ATTR in op.attributes:
        return KernelCost(step, name, node, "elided", 0, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0,
                          "inputs written in place" if mp.is_concat(op) else
                          "a view of its operand (memory plan)")
    if isinstance(op, ViewOp):  # the same GM bytes with another shape: no launch, no data move
        return KernelCost(step, name, node, "elided", 0, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0,
                          "a view: no kernel")
    unit = getattr(type(op), "UNIT", None) or ("cube" if "baseK" in t else "vector")
    in_t = op.operands[0].type if op.operands else (op.results[0].type if op.results else None)
    eb = _elem_bytes(in_t) if in_t is not None else 4
    walk = walk_body(op) if isinstance(op, BodyKernelOp) else None
    cube = vec = 0.0
    flops = 0
    note = ""
    aliases: dict[str, str] = {}
    if walk is not None:
        note = f"{_kind(op)}: {walk.summary()}" if walk.counts else _kind(op)
        aliases = dict(walk.aliases)
    if unit == "cube" and {"singleCoreM", "singleCoreN", "Ka", "baseM", "baseN"} <= set(t):
        a_gm = ceil_div(t["singleCoreM"], t["baseM"]) * t["fmapBytes"] if "fmapBytes" in t \
            else None  # a conv's feature-map windows go GM -> L1 (Load3D: conv_geometry.py)
        staged = "stageM" in t  # the windows computed from a producer conv's inputs instead
        cube = cube_core_cycles(chip, t["singleCoreM"], t["singleCoreN"], t["Ka"], t["baseM"],
                                t["baseN"], eb, t.get("weightReads"), 0 if staged else a_gm)
        if staged:
            cube += staged_window_cycles(chip, t, eb)
        flops = 2 * t.get("M", 0) * t.get("N", 0) * t["Ka"]
        if staged:
            note += "; A by Load3D from x's rows computed in L1 by the producer conv's GEMM"
        elif a_gm is not None:
            note += "; A by Load3D from x's rows in L1"
        converted = sorted({f"{ld.src_format.data} -> {ld.dst_format.data}" for ld in op.walk()
                            if isinstance(ld, LoadOp) and ld.view.data == LoadView.from_origin
                            and ld.src_format is not None and ld.dst_format is not None})
        if converted:
            note += f"; {', '.join(converted)} {FROM_ORIGIN_NOTE}"
        if walk is not None:
            # the epilogue (bias, activation, residual) and a scaled conv's A tiles, in UB
            vec = walk.vector_cycles + walk.ub_to_l1_cycles
            if walk.ub_to_l1_bytes:
                note += "; " + (RECURRENT_NOTE if _kind(op) in ("DynamicRNN", "DynamicGRUV2", "SimpleRNN")
                                else STAGED_CONV_NOTE if staged
                                else ROWS_PROLOGUE_NOTE if a_gm is not None
                                else TILE_PROLOGUE_NOTE if _kind(op) in ("Conv2D", "DepthwiseConv2D")
                                else SCALED_CONV_NOTE)
            if "weightReads" in t and t.get("timeStep", 0) > 1 and \
                    t["weightReads"] * 16 <= t["singleCoreM"] // t["timeStep"]:
                note += "; weights resident in L1 across the time steps (GM -> L1 once per 16 rows)"
        else:  # kernel.cube_conv2d: bias add and activation on the output block
            act = _prop(op, "activation")
            fns = ["Add"] if len(op.operands) > 2 else []
            if (a := string_value(act)) is not None and a not in (Activation.none, ""):
                fns.append(a)
            for fn in fns:
                vec += vector_core_cycles(fn, t["singleCoreM"] * t["singleCoreN"], 4)
                aliases.update(_alias(fn))
        compute_cycles = max(cube, vec)
    else:
        unit = "vector"
        if walk is not None:
            vec = walk.vector_cycles
            compute_cycles = max(vec, walk.mte3_cycles)
            if compute_cycles > vec:
                note += "; data moves bound"
        else:
            s = string_value(_prop(op, "fn"))
            fn = s if s is not None else (
                "TransData" if "transdata" in op.name else name)
            elems = t.get("totalElems") or (_elems(op.results[0].type) if op.results else 0)
            per_core = t.get("elemsPerCore") or ceil_div(elems, max(cores, 1))
            vec = vector_core_cycles(fn, per_core, eb)
            aliases.update(_alias(fn))
            note = f"{fn} {aliases[fn]}" if fn in aliases else ""
            compute_cycles = vec
            if isinstance(op, TransDataOp):  # a data move: per core, out at UB->GM's rate
                compute_cycles = max(vec, hbm_out / max(cores, 1) / BYTES_PER_CYCLE["UB->GM"])
        # vector work is not counted in the (cube) FLOPs
    compute_us = compute_cycles / chip.clock_mhz
    memory_us = (hbm_in + hbm_out) / (chip.hbm_tb_per_s * 1e12) * 1e6
    return KernelCost(step, name, node, unit, cores, cube, vec, hbm_in, hbm_out, flops,
                      launch_us, compute_us, memory_us, note, aliases)


def _alias(fn: str) -> dict[str, str]:
    _, _, src = vector_fit(fn)
    return {} if src == "measured" else {fn: src}


def _kind(op) -> str:
    k = _prop(op, "kind")
    return k.data if isinstance(k, StringAttr) else ""


#: The assumption behind a packed launch (compiler/backend/launch_packs.py).
PACK_NOTE = ("packed launches: one kernel runs each member on its own range of block indices "
             "(Ascend C GetBlockIdx), the members' cores disjoint and together within the chip "
             "(a cube core's epilogue on vector_cores / cube_cores vector cores); the kernel time "
             "is launch + max(slowest member, all members' HBM bytes / bandwidth): assumption")
#: A recurrent kernel (compiler/conversions/cann_to_kernel/recurrent.py) moves h_{t-1} UB -> L1
#: every step, at the same assumed rate.
RECURRENT_NOTE = ("h_{t-1} moved UB->L1 every time step, a path and bandwidth not in the reference: "
                  "assumed like UB->GM")
STAGED_CONV_NOTE = ("the producer's output tiles moved UB->L1 into the window (store view "
                    "fmap_window), a path and bandwidth not in the reference: assumed like UB->GM")
ROWS_PROLOGUE_NOTE = ("prologue on x's rows in UB once per M block, moved UB->L1 for Load3D, a path "
                      "and bandwidth not in the reference: assumed like UB->GM")
TILE_PROLOGUE_NOTE = ("prologue on each A tile in UB (x's rows not staged: a grouped conv, a depthwise "
                      "or pool prologue, or the window and the body's tiles do not fit L1 / UB, or "
                      "the A tiles are fewer elements), moved UB->L1, a path and bandwidth not in the "
                      "reference: assumed like UB->GM")
SCALED_CONV_NOTE = ("A tiles scaled in UB (Mul) and moved UB->L1, a path and bandwidth not in the "
                    "reference: assumed like UB->GM")


def _peak(chip: ChipProfile, fp32: bool) -> float:
    return chip.peak_fp16_tflops / (2 if fp32 else 1)


def perf_report(module: ModuleOp, chip_name: str | None = None,
                launch_us: float = LAUNCH_OVERHEAD_US) -> PerfReport:
    from compiler.ir.entry import main_func

    if chip_name is None:
        attr = module.attributes.get("cann.soc_version")
        chip_name = attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP
    chip = get_chip(chip_name)
    fn = main_func(module)
    block = fn.body.blocks.first
    ops = list(block.ops) if block is not None else []
    launches = [op for op in ops if mp.is_kernel(op)]
    fp32 = any(getattr(type(op), "UNIT", "") == "cube" and op.operands
               and _elem_bytes(op.operands[0].type) >= 4 for op in launches)
    rep = PerfReport(chip.name, chip.clock_mhz, chip.hbm_tb_per_s, chip.hbm_source,
                     _peak(chip, fp32), launch_us)
    rep.kernels = _function_costs(launches, chip, launch_us, rep.control_notes)
    for k, cost in enumerate(rep.kernels):
        cost.step = k
    min_bytes = sum(_bytes(t) for t in fn.function_type.inputs)
    min_bytes += sum(_bytes(t) for t in fn.function_type.outputs)
    min_bytes += sum(_bytes(op.results[0].type) for op in ops if mp.is_constant(op))
    rep.min_bytes = min_bytes
    plan = fn.attributes.get(mp.PLAN_ATTR)
    if isinstance(plan, DictionaryAttr) and isinstance(plan.data.get("arena"), IntegerAttr):
        rep.arena_bytes = int_of(plan.data["arena"])
    return rep


# --- control flow: the kernels of the functions a kernel.if / case / while runs ------------------

def _note_kind(note: str) -> str:
    """The kernel kind a cost note starts with ("Conv2D: Add x1" -> "Conv2D")."""
    m = re.match(r"\w+", note)
    return m.group(0) if m else "?"


def _function_costs(launches, chip: ChipProfile, launch_us: float, notes: list[str],
                    prefix: str = "") -> list[KernelCost]:
    from compiler.backend.launch_packs import packs

    out: list[KernelCost] = []
    for group in packs(launches):
        op = group[0]
        if len(group) > 1:  # one packed launch (compiler/backend/launch_packs.py): one row
            cost = packed_cost([kernel_cost(m, 0, chip, launch_us) for m in group], chip)
            cost.node = prefix + cost.node
            out.append(cost)
            continue
        if not mp.is_control(op):
            cost = kernel_cost(op, 0, chip, launch_us)
            cost.node = prefix + cost.node
            out.append(cost)
            continue
        out += _control_costs(op, chip, launch_us, notes, prefix)
    return out


def packed_cost(members: list[KernelCost], chip: ChipProfile) -> KernelCost:
    """One launch running `members` on disjoint core ranges at once: one launch overhead,
    compute = the slowest member's, HBM bytes = every member's (one shared HBM bandwidth)."""
    live = [m for m in members if m.unit != "elided"]
    if not live:
        return members[0]
    hbm_in, hbm_out = sum(m.hbm_in for m in live), sum(m.hbm_out for m in live)
    units = {m.unit for m in live}
    aliases: dict[str, str] = {}
    for m in live:
        aliases.update(m.aliases)
    note = "packed: " + " | ".join(
        f"{m.op} {_note_kind(m.note)} '{m.node.split('+')[-1]}' on {m.cores} {m.unit} cores"
        for m in live)
    return KernelCost(
        0, "pack", live[0].node, "cube" if "cube" in units else "vector",
        sum(m.cores for m in live), max(m.cube_cycles for m in live),
        max(m.vector_cycles for m in live), hbm_in, hbm_out, sum(m.flops for m in live),
        live[0].launch_us, max(m.compute_us for m in live),
        (hbm_in + hbm_out) / (chip.hbm_tb_per_s * 1e12) * 1e6, note, aliases)


def _control_costs(op, chip: ChipProfile, launch_us: float, notes: list[str],
                   prefix: str) -> list[KernelCost]:
    from compiler.ir.diagnostics import node_name

    def body(f):
        ops = [o for o in f.body.blocks.first.ops if mp.is_kernel(o)]
        return _function_costs(ops, chip, launch_us, notes, f"{prefix}@{f.sym_name.data}/")

    def switch(what: str, hbm_in: int = 0, hbm_out: int = 0) -> KernelCost:
        memory_us = (hbm_in + hbm_out) / (chip.hbm_tb_per_s * 1e12) * 1e6
        return KernelCost(0, op.name.removeprefix("kernel."), prefix + (node_name(op) or ""),
                          "host", 0, 0, 0, hbm_in, hbm_out, 0, launch_us, 0.0, memory_us, what)

    fns = mp.callees(op)
    pred = _bytes(op.operands[0].type) if op.operands else 0
    if op.name == "kernel.while":
        cond, loop = fns
        moved = sum(_bytes(v.type) for v in op.operands)
        trips = op.attributes.get("kernel.trip_count")
        if trips is not None:  # compiler/conversions/cann_to_kernel/control_flow.py found it at compile time
            n = trips.value.data
            note = (f"{op.name} '{node_name(op)}': trip count {n} known at compile time: cond "
                    f"{n + 1} times, body {n} times, one switch per predicate read")
            if note not in notes:
                notes.append(note)
            turns = []
            for _ in range(n):
                turns += [*body(cond), switch("predicate read: iterate"), *body(loop)]
            return [switch("loop variables copied in", moved), *turns, *body(cond),
                    switch("predicate read: exit, loop variables copied out", 0, moved)]
        note = (f"{op.name} '{node_name(op)}': trip count unknown at compile time (known at run "
                "time): one iteration assumed, cond twice, body once, one switch per predicate read")
        if note not in notes:
            notes.append(note)
        return [switch("loop variables copied in", moved), *body(cond),
                switch("predicate read: trip count unknown, 1 iteration assumed"), *body(loop), *body(cond),
                switch("predicate read: exit, loop variables copied out", 0, moved)]
    branches = [body(f) for f in fns]
    worst = max(range(len(fns)), key=lambda i: sum(k.total_us for k in branches[i]))
    note = (f"{op.name} '{node_name(op)}': the costliest of {len(fns)} branches "
            f"(@{fns[worst].sym_name.data}) assumed (the predicate is known at run time)")
    if note not in notes:
        notes.append(note)
    return [switch(f"branch @{fns[worst].sym_name.data} assumed", pred), *branches[worst]]
