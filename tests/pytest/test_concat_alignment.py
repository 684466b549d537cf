"""align-concat-slabs (compiler/transforms/concat_alignment.py): a densely connected block whose
concat slabs start off the C0 grid (growth 12 on a 24-channel stem) gets padded channels; every
concat is then zero-copy in the memory plan and the .om still matches TensorFlow."""

from __future__ import annotations

import numpy as np


def _dense_net(tmp_path) -> str:
    """Stem 24, two BN-ReLU-Conv layers of growth 12, a transition (BN-ReLU-Conv1x1-AvgPool),
    one more layer, BN-ReLU-GAP-Dense-softmax: slabs at 24, 36, 18 (after the transition)."""
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    layers = k.layers
    k.utils.set_random_seed(1)
    inp = k.Input((8, 8, 3), batch_size=1, name="image")
    x = layers.Conv2D(24, 3, padding="same", use_bias=False)(inp)

    def layer(x):
        y = layers.ReLU()(layers.BatchNormalization()(x))
        y = layers.Conv2D(12, 3, padding="same", use_bias=False)(y)
        return layers.Concatenate()([x, y])

    x = layer(layer(x))
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.AveragePooling2D(2)(layers.Conv2D(18, 1, use_bias=False)(x))
    x = layer(x)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.Dense(5, activation="softmax")(layers.GlobalAveragePooling2D()(x))
    path = tmp_path / "dense.pb"
    path.write_bytes(freeze(k.Model(inp, x), seed=1).SerializeToString())
    return str(path)


def test_dense_block_concats_are_zero_copy_and_match_tensorflow(tmp_path, capsys):
    from compiler.backend.offline_model import load_offline_model
    from tools import cann_compile, cann_run

    pb = _dense_net(tmp_path)
    om = tmp_path / "dense.om"
    assert cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                              f"--output={om}"]) == 0, capsys.readouterr().err
    module = load_offline_model(str(om)).module
    concats = [op for op in module.walk() if op.name == "kernel.vec_kernel"
               and getattr(op.properties.get("kind") or op.attributes.get("kind"), "data", None) == "ConcatV2D"]
    assert len(concats) == 3
    assert all("mem.elided" in op.attributes for op in concats)
    x = tmp_path / "image.npy"
    np.save(x, np.random.default_rng(0).standard_normal((1, 8, 8, 3)).astype(np.float32))
    rc = cann_run.main([str(om), "--input", f"image={x}", "--compare-with", pb, "--atol", "1e-4",
                        "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
