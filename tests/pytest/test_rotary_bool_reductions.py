"""Ops of decoder LLMs (Llama / Gemma-style, keras-hub): rotary position embeddings (Sin, Cos of
positions x inverse frequencies, on the activations) and All / Any over a data-dependent mask.
Through cann-compile and cann-run --compare-with the frozen graph (tf-to-cann rows: lit
tf_to_cann_sin_cos_all_any.mlir)."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _rotary_model(seq=16, dim=32):
    import keras
    from keras import ops

    x = keras.Input((seq, dim))
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, dim, 2, dtype="float32") / dim))
    # the angles from the activations too, so Sin / Cos run on the device, not folded
    pos = ops.cumsum(ops.ones_like(x[..., :1]), axis=1) + 0.1 * ops.tanh(x[..., :1])
    ang = pos * inv_freq[None, None, :]
    ang = ops.concatenate([ang, ang], axis=-1)
    half = dim // 2
    rotated = ops.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    y = x * ops.cos(ang) + rotated * ops.sin(ang)
    return keras.Model(x, keras.layers.Dense(8)(y))


def test_rotary_embedding_runs_on_the_device_and_matches_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _rotary_model(), "rotary")


def _bool_reduce_model():
    import keras
    from keras import ops

    x = keras.Input((4, 6), name="x")
    pos = x > 0
    every = ops.all(pos, axis=-1, keepdims=True)      # tf.All
    some = ops.any(pos, axis=1, keepdims=True)        # tf.Any
    y = ops.where(every, x, -x) + ops.where(some, 1.0, 0.0)
    return keras.Model(x, y)


def test_all_and_any_over_a_data_dependent_mask_match_tf(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 4, 6)).astype("float32")
    x[0, 1] = np.abs(x[0, 1])  # one row where every entry is positive
    x[0, :, 2] = -np.abs(x[0, :, 2])  # one column where none is
    _compile_and_compare(tmp_path, capsys, _bool_reduce_model(), "bool_reduce",
                         inputs={"x": x})
