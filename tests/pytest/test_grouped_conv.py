"""A grouped Conv2D (Keras Conv2D(groups=G)) compiles to ONE cube kernel (cann.Conv2D with
groups = G over a grouped FRACTAL_Z filter), its BN and ReLU fused into it, and the .om matches
TensorFlow: cann-compile, then cann-run --compare-with (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np
import pytest


def _kinds(om) -> list[str]:
    from xdsl.dialects.builtin import StringAttr

    from compiler.backend import memory_plan as mp
    from compiler.backend.offline_model import load_offline_model

    out = []
    for f in mp.planned_functions(load_offline_model(str(om)).module):
        for op in f.body.blocks.first.ops:
            if mp.is_kernel(op):
                kind = op.properties.get("kind")
                out.append(kind.data if isinstance(kind, StringAttr) else op.name)
    return out


# (Cin, groups, Cout): Cin/G = 4, Cout/G = 6 (e_mult merges groups into enlarged ones); and
# Cin/G = 8 = G (ResNeXt's second stage), whose filter has the shape of a depthwise one and is
# marked `groups 8 conv` in its FRACTAL_Z format.
@pytest.mark.parametrize("cin,groups,cout", [(32, 8, 48), (64, 8, 64)])
def test_grouped_conv_is_one_cube_kernel_and_matches_tensorflow(cin, groups, cout, tmp_path, capsys):
    from tests.model_zoo.zoo import _keras, freeze
    from tools import cann_compile, cann_run

    keras = _keras()
    layers = keras.layers
    x = keras.Input((10, 10, cin), batch_size=1)
    y = layers.Conv2D(cout, 3, strides=2, padding="same", groups=groups, use_bias=False)(x)
    y = layers.ReLU()(layers.BatchNormalization()(y))
    model = keras.Model(x, y)
    for w in model.weights:  # BN statistics away from the identity
        w.assign(np.random.default_rng(len(w.name)).uniform(0.5, 1.5, w.shape).astype(np.float32))
    pb = tmp_path / "g.pb"
    pb.write_bytes(freeze(model).SerializeToString())
    om = tmp_path / "g.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    kinds = _kinds(om)
    assert [k for k in kinds if k != "kernel.transdata"] == ["Conv2D"], kinds
    npy = tmp_path / "x.npy"
    np.save(npy, np.random.default_rng(0).standard_normal((1, 10, 10, cin)).astype(np.float32))
    rc = cann_run.main([str(om), "--input", f"{model.inputs[0].name.split(':')[0]}={npy}",
                        "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
