"""The performance report costs kernels by what their bodies do (compiler/target/kernel_cost_walk.py)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import dense, ty

from compiler.backend.perf_report import perf_report
from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, parse_module
from compiler.target.chips import get_chip
from compiler.target.cost_model import VECTOR_FITS, cube_core_cycles
from compiler.target.formats import ceil_div
from tools.driver.pipelines import run_passes

CHIP = "Ascend910B3"


def fit(name: str, elems: int, elem_bytes: int = 4) -> float:
    """cycles = k * elements + b (cann-facts.md section 6), fp32 2x k: written out here."""
    k, b = VECTOR_FITS[name]
    return (2 * k if elem_bytes >= 4 else k) * elems + b


# 200 rows of 128 on 4 cores of 64 rows, 16-row tiles: core 0 runs 4 tiles, core 3 one (192..199)
SOFTMAX = """
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%x: tensor<200x128xf32>) -> tensor<200x128xf32> {
    %y = kernel.vec_kernel %x {kind = "SoftmaxV2", block_dim = 4 : i64, tiling = #kernel.tiling<totalElems = 200, elemsPerCore = 64, tileElems = 16, tilesPerCore = 4>, buffers = [#kernel.buffer<UB, 16384, "io0">]} : (tensor<200x128xf32>) -> tensor<200x128xf32> {
    ^bb0(%X: memref<200x128xf32, #kernel.space<GM>>, %Y: memref<200x128xf32, #kernel.space<GM>>):
      kernel.cores attributes {grid = array<i64: 4>, tile = array<i64: 64>} {
      ^bb0(%c: index):
        kernel.for %c attributes {extent = 64 : i64, step = 16 : i64, limit = 200 : i64} {
        ^bb0(%r: index):
          %t = kernel.load %X[%r] {view = "rows", params = {}} : memref<200x128xf32, #kernel.space<GM>> -> memref<16x128xf32, #kernel.space<UB>>
          %m = kernel.vec %t {fn = "RowMax", attrs = {}} : (memref<16x128xf32, #kernel.space<UB>>) -> memref<16x1xf32, #kernel.space<UB>>
          %d = kernel.vec %t, %m {fn = "Sub", attrs = {}} : (memref<16x128xf32, #kernel.space<UB>>, memref<16x1xf32, #kernel.space<UB>>) -> memref<16x128xf32, #kernel.space<UB>>
          %e = kernel.vec %d {fn = "Exp", attrs = {}} : (memref<16x128xf32, #kernel.space<UB>>) -> memref<16x128xf32, #kernel.space<UB>>
          %s = kernel.vec %e {fn = "RowSum", attrs = {}} : (memref<16x128xf32, #kernel.space<UB>>) -> memref<16x1xf32, #kernel.space<UB>>
          %o = kernel.vec %e, %s {fn = "RealDiv", attrs = {}} : (memref<16x128xf32, #kernel.space<UB>>, memref<16x1xf32, #kernel.space<UB>>) -> memref<16x128xf32, #kernel.space<UB>>
          kernel.store %o, %Y[%r] {view = "rows", params = {}} : memref<16x128xf32, #kernel.space<UB>>, memref<200x128xf32, #kernel.space<GM>>
          kernel.yield
        }
        kernel.yield
      }
      kernel.yield
    }
    func.return %y : tensor<200x128xf32>
  }
}
"""


def _parse(text: str):
    module, _ = parse_module(make_context(), text, "t.mlir")
    return module


def test_softmax_kernel_costed_by_its_body():
    module = _parse(SOFTMAX)
    # the hand-written kernel is a softmax (so the costed body is a real one)
    x = np.random.default_rng(0).standard_normal((200, 128)).astype(np.float32)
    y = next(iter(run_module(module, {"arg0": x}).values()))
    ref = np.exp(x - x.max(1, keepdims=True))
    assert np.abs(y - ref / ref.sum(1, keepdims=True)).max() <= 1e-5

    (k,) = perf_report(module).kernels
    tile, trips = 16 * 128, 4  # the busiest core: 4 tiles of 16 x 128 fp32
    per_tile = (fit("ReduceSum", tile) + fit("Add", tile) + fit("Exp", tile)  # RowMax ~ ReduceSum
                + fit("ReduceSum", tile) + fit("Div", tile))  # Sub ~ Add, RealDiv ~ Div
    assert k.vector_cycles == pytest.approx(trips * per_tile)
    # stores: 4 x 8 KiB at 64 B/cycle = 512 cycles, under the vector work
    assert k.compute_us == pytest.approx(trips * per_tile / get_chip(CHIP).clock_mhz)
    assert k.note == "SoftmaxV2: RowMax x4, Sub x4, Exp x4, RowSum x4, RealDiv x4"
    # far more than the old estimate (one Add over the core's 64 "elements")
    assert k.vector_cycles > 20 * fit("Add", 64)
    # aliased fits are named, measured ones are not
    al = perf_report(module).aliases()
    assert al == {"RealDiv": "assumed like Div", "RowMax": "assumed like ReduceSum",
                  "RowSum": "assumed like ReduceSum", "Sub": "assumed like Add"}
    text = perf_report(module).to_text()
    assert "RowMax assumed like ReduceSum" in text and "Exp assumed" not in text


def test_loop_trips_clipped_by_the_limit():
    # one core, a constant base: iv = 0, 16, 32 < limit 40 -> 3 tiles, not extent / step = 4
    text = SOFTMAX.replace("block_dim = 4", "block_dim = 1").replace(
        "grid = array<i64: 4>, tile = array<i64: 64>", "grid = array<i64: 1>, tile = array<i64: 40>")
    text = text.replace("kernel.for %c attributes {extent = 64 : i64, step = 16 : i64, limit = 200",
                        "%z = kernel.index {value = 0 : i64}\n"
                        "        kernel.for %z attributes {extent = 64 : i64, step = 16 : i64, limit = 40")
    (k,) = perf_report(_parse(text)).kernels
    tile = 16 * 128
    per_tile = 2 * fit("ReduceSum", tile) + fit("Add", tile) + fit("Exp", tile) + fit("Div", tile)
    assert k.vector_cycles == pytest.approx(3 * per_tile)


def test_conv_relu_epilogue_from_the_body():
    rng = np.random.default_rng(1)
    x_shape, cout = (1, 20, 20, 32), 48
    w = rng.normal(0, 0.5, (3, 3, 32, cout)).astype(np.float32)
    b = rng.normal(0, 0.5, (cout,)).astype(np.float32)
    y = (1, 18, 18, cout)
    text = (f'builtin.module attributes {{cann.soc_version = "{CHIP}"}} {{\n'
            f"func.func @main(%x: {ty(x_shape)}) -> {ty(y)} {{\n"
            f"  %w = cann.Const {dense(w)} : {ty(w.shape)}\n"
            f"  %b = cann.Const {dense(b)} : {ty(b.shape)}\n"
            f"  %y = cann.FusedConv2D %x, %w, %b {{strides = array<i64: 1, 1, 1, 1>, pads = "
            f"array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, "
            f'data_format = "NHWC", activation = "Relu"}} : ({ty(x_shape)}, {ty(w.shape)}, '
            f"{ty(b.shape)}) -> {ty(y)}\n  func.return %y : {ty(y)}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    (conv,) = [k for k in perf_report(module).kernels if k.unit == "cube"]
    (op,) = [o for o in module.walk() if o.name == "kernel.cube"]
    t = op.tiling.as_dict()
    # per base block of the busiest core: bias Add and Relu on a baseM x baseN fp32 tile
    blocks = (ceil_div(min(t["singleCoreM"], t["M"]), t["baseM"])
              * ceil_div(min(t["singleCoreN"], t["N"]), t["baseN"]))
    tile = t["baseM"] * t["baseN"]
    assert conv.vector_cycles == pytest.approx(blocks * (fit("Add", tile) + fit("Relu", tile)))
    assert conv.note.startswith("Conv2D: Add x") and "Relu x" in conv.note
    # a 3x3 conv: A by Load3D, one window of x's rows per M block goes GM -> L1
    a_gm = ceil_div(t["singleCoreM"], t["baseM"]) * t["fmapBytes"]
    cube = cube_core_cycles(get_chip(CHIP), t["singleCoreM"], t["singleCoreN"], t["Ka"],
                            t["baseM"], t["baseN"], 4, a_gm_bytes=a_gm)
    assert conv.cube_cycles == cube
    assert conv.compute_us == pytest.approx(max(cube, conv.vector_cycles) / get_chip(CHIP).clock_mhz)


@pytest.mark.modelzoo
@pytest.mark.parametrize("model", ["ResNet50", "BertEncoder2"])
def test_model_totals_grow_with_the_vector_work(model):
    """Costing bodies adds the cube epilogues (ResNet50) and softmax / LayerNorm / Gelu work (BERT)
    that the old per-kernel estimate (one Add per element, no cube epilogue) left out."""
    import os

    from compiler.backend import memory_plan as mp
    from compiler.ir.entry import main_func
    from tests.model_zoo.zoo import frozen_graphdef
    from tools.cann_compile import compile_model, parse_args

    path = frozen_graphdef(model, os.environ.get("CANN_MODEL_ZOO", "/tmp/zoo"))
    module, _, _ = compile_model(parse_args([f"--model={path}", "--framework=3",
                                             f"--soc_version={CHIP}", "--output=unused"]))
    rep = perf_report(module, CHIP)
    chip = get_chip(CHIP)
    ops = [o for o in main_func(module).body.block.ops if mp.is_kernel(o)]
    assert len(ops) == len(rep.kernels)  # no control flow: one cost per kernel op, in order
    old = new = 0.0
    epilogues = 0
    for op, k in zip(ops, rep.kernels):
        if k.unit == "elided":
            continue
        if op.name == "kernel.cube":  # the old estimate: no vector work (kernel.cube has no
            compute = k.cube_cycles   # `activation` property)
            epilogues += k.vector_cycles > 0
        elif op.name == "kernel.vec_kernel":  # the old estimate: one Add per core's element
            t = op.tiling.as_dict()
            per_core = t.get("elemsPerCore") or ceil_div(t.get("totalElems", 0), k.cores)
            compute = fit("Add", per_core, 4)
        else:
            compute = k.compute_us * chip.clock_mhz
        old += k.launch_us + max(compute / chip.clock_mhz, k.memory_us)
        new += k.total_us
    assert new > old and epilogues > 0


def test_top_k_kernel_costed_by_its_sort_passes():
    """TopKV2's row kernel: each tile's sort is ceil(log2 n) merge passes over the rows, a compare
    and a select per element (an assumption, compiler/target/kernel_cost_walk.py sort_steps),
    then the per-lane gather (like TransData's Cast fit)."""
    text = """
builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @main(%x: tensor<64x100xf32>) -> (tensor<64x5xf32>, tensor<64x5xi32>) {
    %v, %i = cann.TopKV2 %x {k = 5 : i64, sorted = true, dim = -1 : i64, largest = true} : (tensor<64x100xf32>) -> (tensor<64x5xf32>, tensor<64x5xi32>)
    func.return %v, %i : tensor<64x5xf32>, tensor<64x5xi32>
  }
}
"""
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    (op,) = [o for o in module.walk() if o.name == "kernel.vec_kernel"]
    f = op.properties["tiling"]  # tile rows, tiles on the busiest core
    tile, trips = f["tileElems"], f["tilesPerCore"]
    (k,) = perf_report(module).kernels
    passes = 7  # ceil(log2 100)
    per_tile = passes * 2 * fit("Add", tile * 100) + fit("Cast", tile * 100)
    assert k.vector_cycles == pytest.approx(trips * per_tile)
    assert k.note == f"TopKV2: Greater x{passes * trips}, SelectV2 x{passes * trips}, GatherLanes x{trips}"
