"""Ops the hold-out set (tests/model_zoo/holdout.py) found unsupported or wrong, each through
cann-compile and cann-run --compare-with the frozen graph (tf-to-cann rows: lit
tf_to_cann_holdout_ops.mlir)."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_common_tf_ops import _lambda_model
from tests.pytest.test_reduction_prologue import _compile_and_compare


def _gather_model():
    import tensorflow as tf

    def f(x):
        # DeBERTa's relative-position lookup: take_along_axis on the last axis (GatherV2 with
        # batch_dims = axis = 2), and tf.gather with batch_dims 1 < axis 2 (broadcast over M)
        idx = tf.cast(tf.math.floormod(tf.range(24), 6), tf.int32)[::-1]
        idx = tf.reshape(tf.concat([idx[:10], idx[14:]], 0), (1, 4, 5))
        along = tf.gather(x, idx, axis=2, batch_dims=2)
        rows = tf.gather(x, tf.constant([[5, 0, 2]], tf.int64), axis=2, batch_dims=1)
        return along, rows

    return _lambda_model(f, (4, 6))


def test_gather_with_batch_dims_matches_tf(tmp_path, capsys):
    rng = np.random.default_rng(0)
    _compile_and_compare(tmp_path, capsys, _gather_model(), "gather_batch_dims",
                         inputs={"x": rng.standard_normal((1, 4, 6)).astype("float32")})


def _roll_model():
    import tensorflow as tf

    def f(x):
        # Swin's cyclic shift of the windows and its inverse, two shifts on one axis adding up,
        # a negative axis
        y = tf.roll(x, (-2, -2), (1, 2)) * 2.0
        return tf.roll(y, (3, -1, 4), (1, 1, -1)) + x

    return _lambda_model(f, (5, 6, 3))


def test_roll_matches_tf(tmp_path, capsys):
    rng = np.random.default_rng(1)
    _compile_and_compare(tmp_path, capsys, _roll_model(), "roll",
                         inputs={"x": rng.standard_normal((1, 5, 6, 3)).astype("float32")})
