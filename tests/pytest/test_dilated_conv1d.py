"""Keras' dilated Conv1D and SeparableConv1D (TensorFlow runs them as SpaceToBatchND -> conv ->
BatchToSpaceND) compile to one dilated cube kernel each (compiler/conversions/tf_to_cann/dilated.py:
no PadD, TransposeD or TransData between; a SeparableConv1D's dilated depthwise conv then runs as
its pointwise conv's A-tile prologue, compiler/transforms/fusion/depthwise.py), and the .om matches TensorFlow: cann-compile, then
cann-run --compare-with (atol 1e-4, rtol 1e-3).  Odd lengths make BatchToSpaceND crop."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pytest.test_grouped_conv import _kinds


@pytest.mark.parametrize("steps,rate,padding,separable", [(31, 2, "same", False), (24, 3, "same", False),
                                                          (17, 2, "valid", True)])
def test_dilated_conv1d_is_one_cube_kernel_and_matches_tensorflow(steps, rate, padding, separable,
                                                                  tmp_path, capsys):
    from tests.model_zoo.zoo import _keras, freeze
    from tools import cann_compile, cann_run

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(1)
    x = keras.Input((steps, 8), batch_size=1)
    conv = layers.SeparableConv1D if separable else layers.Conv1D
    y = conv(16, 3, padding=padding, dilation_rate=rate, activation="relu")(x)
    model = keras.Model(x, y)
    pb = tmp_path / "d.pb"
    pb.write_bytes(freeze(model).SerializeToString())
    om = tmp_path / "d.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    kinds = [k for k in _kinds(om) if k not in ("kernel.transdata", "kernel.view")]
    assert kinds == ["Conv2D"], kinds  # a separable conv's dilated depthwise runs on its 1x1's A tiles
    npy = tmp_path / "x.npy"
    np.save(npy, np.random.default_rng(0).standard_normal((1, steps, 8)).astype(np.float32))
    rc = cann_run.main([str(om), "--input", f"{model.inputs[0].name.split(':')[0]}={npy}",
                        "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
