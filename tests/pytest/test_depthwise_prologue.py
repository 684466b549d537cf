"""Depthwise convs as the A-tile prologue of the 1x1 conv reading them (separable convs;
compiler/transforms/fusion/depthwise.py mark_depthwise_prologues,
compiler/conversions/cann_to_kernel/cube.py _depthwise_a_tile): one cube kernel per separable
conv, the depthwise result never in GM.  Keras blocks checked against TensorFlow at the cann and
the kernel level."""

from __future__ import annotations

import pytest

from compiler.ir.ir_io import make_context, parse_module
from tests.pytest.test_fusion_prologue import _check, _compile, _freeze, _roundtrip
from tools.driver.pipelines import run_passes


def _separable(tmp_path, stride, relu_before, bias, kernel=3, cin=20):
    """[ReLU ->] SeparableConv2D SAME (20 channels: C1 = 2, padding lanes; pads on every side).
    (A dilated one freezes to SpaceToBatchND around an undilated depthwise conv.)"""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    k.utils.set_random_seed(stride * 7 + kernel + 3 * relu_before + bias)
    inp = k.Input((9, 9, cin), name="x")
    h = k.layers.ReLU()(inp) if relu_before else inp
    h = k.layers.SeparableConv2D(24, kernel, strides=stride, padding="same",
                                 use_bias=bool(bias))(h)
    return _freeze(tmp_path, f"sep{stride}{relu_before}{bias}{kernel}", k.Model(inp, h))


def _mobilenet_block(tmp_path):
    """MobileNetV2's tail of an inverted residual: DepthwiseConv2D + BN + ReLU6 -> 1x1 + BN."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    k.utils.set_random_seed(5)
    inp = k.Input((8, 8, 24), name="x")
    h = k.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(inp)
    h = k.layers.ReLU(6.0)(k.layers.BatchNormalization()(h))
    h = k.layers.BatchNormalization()(k.layers.Conv2D(16, 1, use_bias=False)(h))
    return _freeze(tmp_path, "mbv2", k.Model(inp, h))


def _marked(module):
    from compiler.transforms.fusion.depthwise import is_depthwise_prologue

    return [o for o in module.walk() if is_depthwise_prologue(o)]


def _kernel_kinds(ctx, module):
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    module = _roundtrip(ctx, module)
    return module, [o.properties["kind"].data for o in module.walk()
                    if o.name in ("kernel.cube", "kernel.vec_kernel")]


@pytest.mark.parametrize("stride,relu_before,bias,kernel",
                         [(1, 0, 0, 3), (2, 1, 0, 3), (1, 1, 1, 5), (2, 0, 1, 5)])
def test_separable_conv_is_one_cube_kernel_matching_tensorflow(tmp_path, stride, relu_before,
                                                               bias, kernel):
    path = _separable(tmp_path, stride, relu_before, bias, kernel)
    ctx, module = _compile(path)
    assert len(_marked(module)) == 1
    module = _roundtrip(ctx, module)
    _check(path, module)
    module, kinds = _kernel_kinds(ctx, module)
    assert kinds == ["Conv2D"]
    _check(path, module)


def test_depthwise_with_bn_relu6_epilogue_runs_in_the_pointwise_kernel(tmp_path):
    path = _mobilenet_block(tmp_path)
    ctx, module = _compile(path)
    assert len(_marked(module)) == 1
    module, kinds = _kernel_kinds(ctx, module)
    assert kinds == ["Conv2D"]
    _check(path, module)


def test_taps_are_costed_as_vector_work(tmp_path):
    from compiler.target.kernel_cost_walk import walk_body

    path = _separable(tmp_path, 1, 0, 0)
    ctx, module = _compile(path)
    module, _ = _kernel_kinds(ctx, module)
    (cube,) = [o for o in module.walk() if o.name == "kernel.cube"]
    cost = walk_body(cube)
    assert cost.counts.get("Mul", 0) >= 9 and cost.vector_cycles > 0 and cost.ub_to_l1_bytes > 0


def test_switch_keeps_the_depthwise_conv_a_kernel_of_its_own(tmp_path):
    from compiler.transforms.fusion.engine import count_kernels
    from passes.fuse import FusePass

    path = _separable(tmp_path, 1, 0, 0)
    ctx, module = _compile(path, ("tf-to-cann", "cann-cleanup"))
    FusePass(disable=("AutomaticPrologueFusion",)).apply(ctx, module)
    assert not _marked(module)
    assert count_kernels(module) == 2


def test_a_depthwise_conv_with_two_readers_stays_a_kernel(tmp_path):
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((6, 6, 8), name="x")
    h = k.layers.DepthwiseConv2D(3, padding="same", use_bias=False)(inp)
    y1 = k.layers.Conv2D(8, 1, use_bias=False)(h)
    y2 = k.layers.Conv2D(4, 1, use_bias=False)(h)
    path = _freeze(tmp_path, "two", k.Model(inp, [y1, y2]))
    ctx, module = _compile(path)
    assert not _marked(module)
    module, kinds = _kernel_kinds(ctx, module)
    assert kinds.count("DepthwiseConv2D") == 1
    _check(path, module)


def _dw_pw_module(hw, c, cout):
    conv = ("strides = array<i64: 1, 1, 1, 1>, pads = array<i64: {p}>, dilations = "
            "array<i64: 1, 1, 1, 1>, data_format = \"NHWC\"")
    text = f"""
func.func @main(%x: tensor<1x{hw}x{hw}x{c}xf32>) -> tensor<1x{hw}x{hw}x{cout}xf32> {{
  %w = cann.Const dense<0.125> : tensor<3x3x{c}x1xf32>
  %p = cann.Const dense<0.25> : tensor<1x1x{c}x{cout}xf32>
  %0 = cann.DepthwiseConv2D %x, %w {{{conv.format(p="1, 1, 1, 1")}}} : (tensor<1x{hw}x{hw}x{c}xf32>, tensor<3x3x{c}x1xf32>) -> tensor<1x{hw}x{hw}x{c}xf32>
  %1 = cann.Conv2D %0, %p {{{conv.format(p="0, 0, 0, 0")}, groups = 1 : i64}} : (tensor<1x{hw}x{hw}x{c}xf32>, tensor<1x1x{c}x{cout}xf32>) -> tensor<1x{hw}x{hw}x{cout}xf32>
  func.return %1 : tensor<1x{hw}x{hw}x{cout}xf32>
}}
"""
    module, _ = parse_module(make_context(), text, "<t>")
    return module


@pytest.mark.parametrize("hw,c,cout,marked", [(8, 32, 64, True), (7, 960, 320, False)])
def test_the_prologue_is_taken_only_where_the_estimate_gains(hw, c, cout, marked):
    """The taps' vector work is redone for every N block of the 1x1 conv: on 960 channels read by
    a 320-wide conv it costs more than the depthwise kernel's launch and HBM round trip saves."""
    from compiler.target.chips import get_chip
    from compiler.transforms.fusion.depthwise import (
        DW,
        mark_depthwise_prologues,
        prologue_gain_us,
    )

    module = _dw_pw_module(hw, c, cout)
    (dw,) = [o for o in module.walk() if isinstance(o, DW)]
    gain = prologue_gain_us(dw, get_chip("Ascend910B3"))
    assert (gain > 0) == marked
    assert mark_depthwise_prologues(module) == int(marked)
    assert len(_marked(module)) == int(marked)


@pytest.mark.parametrize("soc,marked", [("Ascend910B3", 1), ("Ascend910A", 0)])
def test_the_gain_is_estimated_on_the_chip_fuse_is_given(soc, marked):
    """fuse's soc_version (cann-compile passes its --soc_version) is the chip of the estimate:
    28x28x128 -> 128 gains on the 910B3 (+0.4 us) and loses on the 910A (-1.1 us)."""
    from passes.fuse import FusePass

    module = _dw_pw_module(28, 128, 128)
    FusePass(soc_version=soc).apply(make_context(), module)
    assert len(_marked(module)) == marked


def test_cann_compile_runs_a_separable_conv_as_one_kernel(tmp_path, capsys):
    """Through cann-compile and cann-run --compare-with: the .om launches the input TransData
    and the one conv kernel (which stores the NHWC output), and matches TensorFlow."""
    from kernel_harness import om_launches

    from tools import cann_compile, cann_run

    pb = _separable(tmp_path, 2, 1, 0, 3)
    om = tmp_path / "sep.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert om_launches(om) == 2
    rc = cann_run.main([str(om), "--compare-with", pb, "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
