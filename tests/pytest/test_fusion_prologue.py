"""Conv prologues (compiler/transforms/fusion/auto.py mark_prologues, compiler/conversions/cann_to_kernel/cube.py): the
BatchNorm (per-channel Mul / Add) + ReLU in front of a convolution of pre-activation and densely
connected CNNs runs in the conv kernel, in UB: on x's rows before Load3D (channel padding lanes
masked back to zero) or on the A tiles (conv pads and padding lanes masked).  Keras blocks checked against TensorFlow at the cann and the kernel level."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.interpreters.execute import random_inputs, run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes
from tools.driver.runner import run_graphdef

TOL = 1e-4


def _freeze(tmp_path, name, model) -> str:
    from tests.model_zoo.zoo import freeze

    path = tmp_path / f"{name}.pb"
    path.write_bytes(freeze(model).SerializeToString())
    return str(path)


def _bn(k, h):
    """A BatchNormalization with non-trivial statistics (so scale * 0 + shift != 0)."""
    bn = k.layers.BatchNormalization()
    y = bn(h)
    c = h.shape[-1]
    rng = np.random.default_rng(c)
    bn.set_weights([rng.uniform(0.5, 1.5, c), rng.uniform(0.2, 1.0, c),
                    rng.uniform(-0.5, 0.5, c), rng.uniform(0.5, 2.0, c)])
    return y


def _preact_block(tmp_path, stride):
    """BN-ReLU-Conv3x3 SAME, 20 channels (C1 = 2: padding lanes), pads on every side."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((7, 7, 20), name="x")
    h = k.layers.Activation("relu")(_bn(k, inp))
    h = k.layers.Conv2D(24, 3, strides=stride, padding="same", use_bias=False)(h)
    return _freeze(tmp_path, f"preact{stride}", k.Model(inp, h))


def _dense_block(tmp_path):
    """DenseNet's bottleneck: concat of two feature maps -> BN-ReLU-Conv1x1 (and a second
    conv reading the same prologue: each recomputes it)."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((6, 6, 12), name="x")
    a = k.layers.Conv2D(8, 3, padding="same")(inp)
    h = k.layers.Concatenate()([inp, a])
    h = k.layers.Activation("relu")(_bn(k, h))
    y1 = k.layers.Conv2D(16, 1, use_bias=False)(h)
    y2 = k.layers.Conv2D(8, 3, padding="same", use_bias=False)(h)
    return _freeze(tmp_path, "dense", k.Model(inp, [y1, y2]))


def _compile(path, passes=("tf-to-cann", "cann-cleanup", "fuse")):
    from compiler.frontend.importers.graphdef import import_graphdef_file

    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, passes)
    return ctx, module


def _roundtrip(ctx, module):
    text = module_to_text(module)
    again, _ = parse_module(ctx, text, "<printed>")
    assert module_to_text(again) == text
    return again


def _check(path, module):
    inputs = random_inputs(module, seed=3)
    got = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(got))
    for key in ref:
        assert np.abs(got[key].astype(np.float64) - ref[key]).max() <= TOL


def _prologues(module):
    from compiler.transforms.fusion.auto import is_prologue

    return [o for o in module.walk() if is_prologue(o)]


@pytest.mark.parametrize("stride", [1, 2])
def test_preact_block_is_one_conv_kernel_matching_tensorflow(tmp_path, stride):
    path = _preact_block(tmp_path, stride)
    ctx, module = _compile(path)
    assert len(_prologues(module)) == 1
    module = _roundtrip(ctx, module)
    _check(path, module)
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    kinds = [o.properties["kind"].data for o in module.walk()
             if o.name in ("kernel.cube", "kernel.vec_kernel")]
    assert kinds == ["Conv2D"]
    _check(path, module)


def test_dense_block_prologue_recomputed_by_each_conv(tmp_path):
    path = _dense_block(tmp_path)
    ctx, module = _compile(path)
    (pro,) = _prologues(module)
    assert len(list(pro.results[0].uses)) == 2
    _check(path, module)
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    cubes = [o for o in module.walk() if o.name == "kernel.cube"]
    assert len(cubes) == 3 and not [o for o in module.walk() if o.name == "kernel.vec_kernel"
                                    and o.properties["kind"].data == "Elementwise"]
    _check(path, module)


def test_padding_stays_zero_after_the_prologue(tmp_path):
    """The prologue runs on x's rows before Load3D, which inserts the conv pads as zeros after
    it; on the 20 channels' padding lanes (C1 = 2) the BN's channel vectors are 0, so
    relu(0 * 0 + 0) = 0 there (fused.keeps_zero on lanes): no mask at all in the kernel body
    (test_rows_prologue.py: a body that needs one)."""
    path = _preact_block(tmp_path, 1)
    ctx, module = _compile(path, ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts",
                                  "cann-to-kernel"))
    (cube,) = [o for o in module.walk() if o.name == "kernel.cube"]
    views = {o.view.data for o in cube.walk() if o.name == "kernel.load"}
    fns = {o.fn.data for o in cube.walk() if o.name == "kernel.vec"}
    assert "fmap" in views and not views & {"fmap_valid", "img2col_valid"}
    assert "SelectV2" not in fns


def test_prologue_vector_work_is_costed(tmp_path):
    from compiler.target.kernel_cost_walk import walk_body

    path = _preact_block(tmp_path, 1)
    _, module = _compile(path, ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts",
                                "cann-to-kernel"))
    (cube,) = [o for o in module.walk() if o.name == "kernel.cube"]
    cost = walk_body(cube)
    assert cost.counts.get("Relu", 0) > 0 and cost.vector_cycles > 0 and cost.ub_to_l1_bytes > 0


def test_switch_keeps_the_prologue_a_kernel_of_its_own(tmp_path):
    from compiler.transforms.fusion.engine import count_kernels
    from passes.fuse import FusePass

    path = _preact_block(tmp_path, 1)
    ctx, module = _compile(path, ("tf-to-cann", "cann-cleanup"))
    FusePass(disable=("AutomaticPrologueFusion",)).apply(ctx, module)
    assert not _prologues(module)

    assert count_kernels(module) == 2


def test_report_says_why_a_prologue_was_rejected():
    from compiler.transforms.fusion.auto import fuse_pointwise

    text = """
func.func @main(%x: tensor<1x4x4x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>) {
  %s = cann.Const dense<1.5> : tensor<8xf32>
  %w = cann.Const dense<0.25> : tensor<1x1x8x16xf32>
  %0 = cann.Mul %x, %s : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %1 = cann.Relu %0 : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %c = cann.Conv2D %1, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : (tensor<1x4x4x8xf32>, tensor<1x1x8x16xf32>) -> tensor<1x4x4x16xf32>
  func.return %1, %c : tensor<1x4x4x8xf32>, tensor<1x4x4x16xf32>
}
"""
    module, _ = parse_module(make_context(), text, "<t>")
    report = fuse_pointwise(module)
    assert report.prologues == 0
    (u,) = [u for u in report.unfused if u.kind == "prologue rejected"]
    assert "consumer func.return" in u.reasons[0] or "return" in u.reasons[0]


# --- pools as conv prologues (auto.pool_prologue_problem, fused.emit_pool_prologue) -------------

def _pool_conv(tmp_path, pool, conv_stride, size):
    """conv -> pool -> Conv3x3 SAME (stride conv_stride), 20 channels (padding lanes): the conv
    pads read past the pooled tensor's edge, which the pool's input covers when size is odd."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((size, size, 6), name="x")
    h = k.layers.Conv2D(20, 3, padding="same", activation="relu")(inp)
    h = pool(k)(h)
    h = k.layers.Conv2D(24, 3, strides=conv_stride, padding="same")(h)
    return _freeze(tmp_path, f"pool{conv_stride}_{size}", k.Model(inp, h))


POOLS = {"max2": lambda k: k.layers.MaxPooling2D(2),
         "avg2": lambda k: k.layers.AveragePooling2D(2),
         "max3s2": lambda k: k.layers.MaxPooling2D(3, strides=2)}


@pytest.mark.parametrize("pool", sorted(POOLS))
@pytest.mark.parametrize("conv_stride,size", [(1, 9), (2, 8)])
def test_pool_runs_on_the_conv_a_tiles_matching_tensorflow(tmp_path, pool, conv_stride, size):
    path = _pool_conv(tmp_path, POOLS[pool], conv_stride, size)
    ctx, module = _compile(path)
    assert [o.name for o in _prologues(module)] == [
        "cann.MaxPool" if pool.startswith("max") else "cann.AvgPool"]
    module = _roundtrip(ctx, module)
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    kinds = [o.properties["kind"].data for o in module.walk()
             if o.name in ("kernel.cube", "kernel.vec_kernel")]
    assert kinds == ["Conv2D", "Conv2D"]
    _check(path, module)


PADDED_POOLS = {"max3s1": lambda k: k.layers.MaxPooling2D(3, 1, padding="same"),
                "max3s2": lambda k: k.layers.MaxPooling2D(3, 2, padding="same"),
                "avg3s1": lambda k: k.layers.AveragePooling2D(3, 1, padding="same")}


@pytest.mark.parametrize("pool", sorted(PADDED_POOLS))
@pytest.mark.parametrize("conv_stride,size", [(1, 8), (2, 9)])
def test_padded_pool_runs_on_the_conv_a_tiles_matching_tensorflow(tmp_path, pool, conv_stride,
                                                                  size):
    """A SAME pool whose windows are padded (inception's 3x3 / stride-1 branch pool): the
    offsets outside x are left out of the max (counted out of the mean), so no pool kernel."""
    path = _pool_conv(tmp_path, PADDED_POOLS[pool], conv_stride, size)
    ctx, module = _compile(path)
    assert [o.name for o in _prologues(module)] == [
        "cann.MaxPool" if pool.startswith("max") else "cann.AvgPool"]
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    kinds = [o.properties["kind"].data for o in module.walk()
             if o.name in ("kernel.cube", "kernel.vec_kernel")]
    assert kinds == ["Conv2D", "Conv2D"]
    _check(path, module)
