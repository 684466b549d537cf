"""Input fusion (compiler/transforms/fusion/auto.py, InputFusable reductions;
compiler/conversions/cann_to_kernel/reduction_prologue.py): the pointwise chain in front of a
reduction runs on the reduction kernel's tiles in UB.  Through cann-compile and cann-run
--compare-with on small Keras models: no pointwise kernel is left, and the .om matches
TensorFlow."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_grouped_conv import _kinds


def _bn(layers, h, seed):
    """A BatchNormalization with non-trivial statistics (its shift makes f(0) != 0 on the
    channel padding lanes)."""
    bn = layers.BatchNormalization()
    y = bn(h)
    c = h.shape[-1]
    rng = np.random.default_rng(seed)
    bn.set_weights([rng.uniform(0.5, 1.5, c), rng.uniform(-1.0, 1.0, c),
                    rng.uniform(-0.5, 0.5, c), rng.uniform(0.5, 2.0, c)])
    return y


def _compile_and_compare(tmp_path, capsys, model, name, inputs=None, signature=()) -> list[str]:
    from tests.model_zoo.zoo import freeze
    from tools import cann_compile, cann_run

    pb = tmp_path / f"{name}.pb"
    pb.write_bytes(freeze(model, inputs=signature).SerializeToString())
    om = tmp_path / f"{name}.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    args = [str(om), "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"]
    for k, v in (inputs or {}).items():
        npy = tmp_path / f"{k}.npy"
        np.save(npy, v)
        args += ["--input", f"{k}={npy}"]
    rc = cann_run.main(args)
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    return [k for k in _kinds(om) if k not in ("kernel.transdata", "kernel.view")]


def test_bn_relu_before_global_pools_runs_in_the_reduction_kernels(tmp_path, capsys):
    """DenseNet's head: concat -> BN-ReLU -> global average pool, and a BN -> global max pool
    (negative values), 20 channels (C1 = 2: padding lanes)."""
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(3)
    inp = keras.Input((6, 6, 8), batch_size=1, name="x")
    h = layers.Concatenate()([inp, layers.Conv2D(12, 3, padding="same")(inp)])
    a = layers.GlobalAveragePooling2D()(layers.ReLU()(_bn(layers, h, 1)))
    m = layers.GlobalMaxPooling2D()(_bn(layers, h, 2))
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, [a, m]), "gap")
    assert "Elementwise" not in kinds, kinds
    assert sorted(k for k in kinds if k.startswith("Reduce")) == ["ReduceMaxD", "ReduceMeanD"]


def test_embedding_adds_run_in_the_layer_norm_kernel(tmp_path, capsys):
    """BERT's embeddings: token + position + segment embeddings -> LayerNorm is one
    AddLayerNorm kernel (the first Add its prologue) after the three gathers."""
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(4)
    ids = [keras.Input((16,), batch_size=1, dtype="int32", name=n) for n in ("tok", "pos", "seg")]
    e = [layers.Embedding(n, 64)(i) for n, i in zip((50, 16, 2), ids)]
    y = layers.LayerNormalization(epsilon=1e-12)(layers.Add()([e[0], e[1]]) + e[2])
    rng = np.random.default_rng(0)
    inputs = {"tok": rng.integers(0, 50, (1, 16), dtype=np.int32),
              "pos": np.arange(16, dtype=np.int32)[None],
              "seg": rng.integers(0, 2, (1, 16), dtype=np.int32)}
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(ids, y), "emb", inputs)
    assert sorted(kinds) == ["AddLayerNorm", "GatherV2D", "GatherV2D", "GatherV2D"], kinds
