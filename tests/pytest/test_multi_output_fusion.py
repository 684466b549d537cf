"""Multi-output fusion (compiler/transforms/fusion/auto.py: escape_host / escape_problem for a
reduction's prologue, escape_ok / escaping for a pointwise group): a value read by two
consumers is computed in one of their kernels and stored from UB to GM as an extra output of
it, instead of being a kernel of its own.  Through cann-compile and cann-run --compare-with on
small Keras models: the .om's kernels, and the outputs against TensorFlow."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _kernels(om):
    """(kind, number of results) of each kernel the .om launches (no TransData, no view)."""
    from xdsl.dialects.builtin import StringAttr

    from compiler.backend import memory_plan as mp
    from compiler.backend.offline_model import load_offline_model

    out = []
    for f in mp.planned_functions(load_offline_model(str(om)).module):
        for op in f.body.blocks.first.ops:
            kind = op.properties.get("kind")
            if mp.is_kernel(op) and isinstance(kind, StringAttr):
                out.append((kind.data, len(op.results)))
    return out


def _keras():
    from tests.model_zoo.zoo import _keras as k

    return k()


def test_pre_ln_residual_add_is_stored_by_the_next_layer_norm(tmp_path, capsys):
    """Pre-LN block: h = x + attn(LN(x)); y = h + mlp(LN(h)).  h (read by the second
    LayerNorm and by the last Add) is computed in that LayerNorm's kernel and stored as its
    extra output: the only Elementwise kernel left is the last Add."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(5)
    x = keras.Input((16, 64), batch_size=1, name="x")
    h = layers.Add()([x, layers.Dense(64)(layers.Dense(64)(layers.LayerNormalization()(x)))])
    y = layers.Add()([h, layers.Dense(64)(layers.LayerNormalization()(h))])
    _compile_and_compare(tmp_path, capsys, keras.Model(x, y), "pre_ln")
    kernels = _kernels(tmp_path / "pre_ln.om")
    assert [k for k in kernels if k[0] == "Elementwise"] == [("Elementwise", 1)], kernels
    assert sorted(k for k in kernels if k[0] == "LayerNorm") == [("LayerNorm", 1), ("LayerNorm", 2)]


def test_post_ln_add_read_by_the_norm_and_a_matmul(tmp_path, capsys):
    """h = x + dense(x) read by a LayerNorm and by another Dense: the LayerNorm's kernel
    computes h and stores it for the matmul; no Elementwise kernel."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(6)
    x = keras.Input((16, 64), batch_size=1, name="x")
    h = layers.Add()([x, layers.Dense(64)(x)])
    model = keras.Model(x, [layers.LayerNormalization()(h), layers.Dense(32)(h)])
    _compile_and_compare(tmp_path, capsys, model, "post_ln")
    kernels = _kernels(tmp_path / "post_ln.om")
    assert not [k for k in kernels if k[0] == "Elementwise"], kernels
    assert ("LayerNorm", 2) in kernels


def test_nasnet_like_add_read_by_two_convs_stays_an_epilogue(tmp_path, capsys):
    """A NASNet cell's Add of two branches read by two convs: it is the second branch conv's
    epilogue (its kernel's one result), not a kernel of its own nor an extra output."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(7)
    x = keras.Input((8, 8, 16), batch_size=1, name="x")
    a = layers.Conv2D(16, 3, padding="same")(x)
    s = layers.Add()([a, layers.Conv2D(16, 1)(x)])
    model = keras.Model(x, [layers.Conv2D(8, 3, padding="same")(s), layers.Conv2D(8, 1)(s)])
    kinds = _compile_and_compare(tmp_path, capsys, model, "nas_add")
    assert "Elementwise" not in kinds, kinds


def test_pointwise_intermediate_read_outside_is_an_extra_result(tmp_path, capsys):
    """s = x + y is a model output and the input of tanh(s) * exp(s): one Elementwise kernel
    with two results (s stored as the extra one)."""
    keras = _keras()
    layers = keras.layers
    x = keras.Input((8, 32), batch_size=1, name="x")
    y = keras.Input((8, 32), batch_size=1, name="y")
    s = layers.Add()([x, y])
    z = layers.Multiply()([layers.Activation("tanh")(s), layers.Activation("exponential")(s)])
    rng = np.random.default_rng(1)
    inputs = {n: rng.uniform(-1, 1, (1, 8, 32)).astype(np.float32) for n in ("x", "y")}
    _compile_and_compare(tmp_path, capsys, keras.Model([x, y], [s, z]), "mo", inputs)
    assert _kernels(tmp_path / "mo.om") == [("Elementwise", 2)]
