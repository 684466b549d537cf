"""Squeeze-excite in two kernels (rules/30_squeeze_excite.rules, FusedSqueezeExcite,
FusedConv2DScaled, compiler/conversions/cann_to_kernel/squeeze_excite.py): a Keras SE block checked against
TensorFlow at the fused and the kernel level, and the gate / scaled-conv kernels on shapes
that exercise their tiling (several channel blocks, H*W in chunks, batch 2)."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.interpreters.execute import random_inputs, run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes
from tools.driver.runner import run_graphdef

TOL = 1e-4


def _keras_se_block(tmp_path, name, hw, c, co, residual):
    """EfficientNet's block tail: depthwise conv + BN + swish, SE (GlobalAveragePooling2D,
    Reshape, Conv2D swish, Conv2D sigmoid, Multiply), projection conv + BN (+ residual)."""
    from tests.model_zoo.zoo import freeze, tensorflow

    tf = tensorflow()
    k = tf.keras
    inp = k.Input((hw, hw, c), name="x")
    h = k.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(inp)
    h = k.layers.Activation("swish")(k.layers.BatchNormalization()(h))
    s = k.layers.GlobalAveragePooling2D()(h)
    s = k.layers.Reshape((1, 1, c))(s)
    s = k.layers.Conv2D(max(1, c // 4), 1, activation="swish")(s)
    s = k.layers.Conv2D(c, 1, activation="sigmoid")(s)
    h = k.layers.Multiply()([h, s])
    h = k.layers.BatchNormalization()(k.layers.Conv2D(co, 1, use_bias=False)(h))
    if residual:
        h = k.layers.Add()([h, inp])
    path = tmp_path / f"{name}.pb"
    path.write_bytes(freeze(k.Model(inp, h)).SerializeToString())
    return str(path)


def _kinds(module):
    return [o.properties["kind"].data for o in module.walk() if o.name in ("kernel.cube", "kernel.vec_kernel")]


def _roundtrip(ctx, module):
    text = module_to_text(module)
    again, _ = parse_module(ctx, text, "<printed>")
    assert module_to_text(again) == text
    return again


@pytest.mark.parametrize("hw,c,co,residual", [(9, 40, 24, False), (6, 24, 24, True)])
def test_keras_se_block_matches_tensorflow(tmp_path, hw, c, co, residual):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.transforms.fusion.engine import count_kernels

    path = _keras_se_block(tmp_path, "se", hw, c, co, residual)
    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "cann-cleanup", "fuse"))
    names = [o.name for o in module.walk() if o.name.startswith("cann.") and o.name != "cann.Const"]
    # the residual Add: the scaled conv's epilogue (a FusedKernel, compiler/transforms/fusion/auto.py)
    epilogue = ["cann.FusedKernel", "cann.Add", "cann.Yield"] if residual else []
    assert names == ["cann.FusedDepthwiseConv2D", "cann.FusedSqueezeExcite",
                     "cann.FusedConv2DScaled", *epilogue]
    assert count_kernels(module) == 3
    module = _roundtrip(ctx, module)
    inputs = random_inputs(module, seed=5)
    fused = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(fused))
    for key in ref:
        assert np.abs(fused[key].astype(np.float64) - ref[key]).max() <= TOL

    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    # With the residual a graph input (ND), assign-layouts keeps the residual Add in ND, so
    # the epilogue runs as a vector kernel of its own after the scaled conv (the layout cost
    # model does not yet know that a FusedKernel on its host's format saves a launch).
    assert _kinds(module) == ["DepthwiseConv2D", "SqueezeExcite", "Conv2DScaled",
                              *(["Elementwise"] if residual else [])]
    ours = run_module(module, inputs)
    for key in ref:
        assert np.abs(ours[key].astype(np.float64) - ref[key]).max() <= TOL


def _se_text(n, hw, c, cr, co, act1="Swish", act2="Sigmoid", chip="Ascend910B3"):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"  # noqa: E731
    conv = ('strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = '
            'array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"')
    x, g = t(n, hw, hw, c), t(n, 1, 1, c)
    return f"""builtin.module attributes {{cann.soc_version = "{chip}"}} {{
func.func @main(%x: {x}, %w1: {t(1, 1, c, cr)}, %b1: {t(cr)}, %w2: {t(1, 1, cr, c)}, %b2: {t(c)}, %wp: {t(1, 1, c, co)}, %bp: {t(co)}) -> {t(n, hw, hw, co)} {{
  %0 = cann.ReduceMeanD %x {{axes = array<i64: 1, 2>, keep_dims = true}} : ({x}) -> {g}
  %1 = cann.FusedConv2D %0, %w1, %b1 {{{conv}, activation = "{act1}"}} : ({g}, {t(1, 1, c, cr)}, {t(cr)}) -> {t(n, 1, 1, cr)}
  %2 = cann.FusedConv2D %1, %w2, %b2 {{{conv}, activation = "{act2}"}} : ({t(n, 1, 1, cr)}, {t(1, 1, cr, c)}, {t(c)}) -> {g}
  %3 = cann.Mul %2, %x : ({g}, {x}) -> {x}
  %4 = cann.FusedConv2D %3, %wp, %bp {{{conv}, activation = "Relu"}} : ({x}, {t(1, 1, c, co)}, {t(co)}) -> {t(n, hw, hw, co)}
  func.return %4 : {t(n, hw, hw, co)}
}}
}}"""


@pytest.mark.parametrize("n,hw,c,cr,co,chip", [
    (2, 5, 40, 10, 24, "Ascend910B3"),     # batch 2 (3 cores a batch), C not a multiple of C0
    (24, 3, 40, 10, 24, "Ascend910B3"),    # 24 batches: one batch per core, one phase
    (1, 7, 1152, 48, 40, "Ascend910B3"),   # EfficientNetB0's widest SE: several w1 / w2 blocks
    (1, 40, 32, 8, 16, "Ascend910B3"),     # H*W summed in several UB chunks
    (1, 20, 96, 4, 256, "Ascend310P3"),    # 256 KiB L0C: the base block shrinks so UB holds the
])                                         # epilogue and the staged A tiles
def test_se_kernels_match_unfused_semantics(n, hw, c, cr, co, chip):
    ctx = make_context()
    text = _se_text(n, hw, c, cr, co, chip=chip)
    ref_module, _ = parse_module(ctx, text, "<se>")
    inputs = random_inputs(ref_module, seed=1)
    ref = run_module(ref_module, inputs)
    module, _ = parse_module(ctx, text, "<se>")
    run_passes(ctx, module, ("fuse", "assign-layouts", "cann-to-kernel"))
    assert _kinds(module) == ["SqueezeExcite", "Conv2DScaled"]
    module = _roundtrip(ctx, module)
    ours = run_module(module, inputs)
    for key in ref:
        assert np.abs(ours[key].astype(np.float64) - ref[key]).max() <= TOL


def test_se_kernels_plan_memory_and_report():
    from compiler.backend.perf_report import perf_report

    ctx = make_context()
    module, _ = parse_module(ctx, _se_text(1, 7, 96, 4, 24), "<se>")
    run_passes(ctx, module, ("fuse", "assign-layouts", "cann-to-kernel", "plan-memory"))
    rep = perf_report(module)
    assert rep.arena_bytes is not None  # planned like any other kernels
    gate = [k for k in rep.kernels if k.note.startswith("SqueezeExcite")]
    conv = [k for k in rep.kernels if k.unit == "cube"]
    assert len(gate) == 1 and gate[0].unit == "vector" and gate[0].vector_cycles > 0
    # batch 1, 96 channels: the 6 channel blocks on 6 cores, the barrier named, not charged
    assert gate[0].cores == 6 and "SyncAll x1" in gate[0].note
    assert "SyncAll" in gate[0].aliases and "not charged" in gate[0].aliases["SyncAll"]
    # the A tiles' scaling is charged to the vector unit, with its assumption stated
    assert len(conv) == 1 and conv[0].vector_cycles > 0 and "UB->L1" in conv[0].note


def test_rules_switch_off_by_name_and_appear_in_the_report(tmp_path):
    import json

    from passes.fuse import FusePass

    ctx = make_context()
    module, _ = parse_module(ctx, _se_text(1, 5, 32, 8, 16), "<se>")
    FusePass(report=str(tmp_path / "on.json")).apply(ctx, module)
    on = json.loads((tmp_path / "on.json").read_text())
    assert "SqueezeExciteKeepDimsFusionPass" in json.dumps(on)
    assert "SqueezeExciteScaleConvFusionPass" in json.dumps(on)

    switch = tmp_path / "switch.cfg"
    switch.write_text("SqueezeExciteKeepDimsFusionPass:off\nSqueezeExciteScaleConvFusionPass:off\n")
    module, _ = parse_module(ctx, _se_text(1, 5, 32, 8, 16), "<se>")
    FusePass(switch_file=str(switch)).apply(ctx, module)
    names = {o.name for o in module.walk()}
    assert "cann.FusedSqueezeExcite" not in names and "cann.FusedConv2DScaled" not in names
    assert "cann.Mul" in names and "cann.ReduceMeanD" in names
