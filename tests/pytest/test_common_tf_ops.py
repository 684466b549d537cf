"""Common TF ops of held-out models (issue #12): rounding, sign, log1p / expm1, softsign, selu,
floor division and modulo, DivNoNan, LogSoftmax, ClipByValue, IsNan / IsInf / IsFinite,
ZerosLike / OnesLike, ArgMax / ArgMin, Unpack and OneHot, through cann-compile and cann-run --compare-with the
frozen graph (tf-to-cann rows: lit tf_to_cann_common_ops.mlir)."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _quarters(shape, seed=0):
    """Multiples of 1/4 in [-3, 3): exact halves (x * 2) and zeros (Sign(0), DivNoNan by 0)."""
    rng = np.random.default_rng(seed)
    return (rng.integers(-12, 12, shape) / 4).astype("float32")


def _lambda_model(f, shape, batch_size=1):
    """A Keras model of one Lambda layer applying f to an input `x` of `shape`."""
    import keras

    x = keras.Input(shape, batch_size=batch_size, name="x")
    return keras.Model(x, keras.layers.Lambda(f)(x))


def _float_model():
    import tensorflow as tf

    def f(x):
        r = tf.math.round(x * 2.0) + tf.math.rint(x * 2.0 + 1.0)  # halves go to even
        r += tf.math.floor(x * 3.0) - tf.math.ceil(x * 3.0) + tf.math.sign(x)
        r += tf.math.log1p(tf.abs(x)) + tf.math.expm1(x * 0.5)
        r += tf.nn.softsign(x) + tf.nn.selu(x)
        r += tf.math.floordiv(x, 0.7) + tf.math.floormod(x, -0.7)
        q = x / tf.math.floor(x)  # inf (x / 0) and nan (0 / 0) on purpose
        r += tf.where(tf.math.is_finite(q), q, 0.0) + tf.where(tf.math.is_nan(q), 1.0, 0.0)
        r += tf.where(tf.math.is_inf(q), 2.0, 0.0) + tf.math.divide_no_nan(x, tf.math.floor(x))
        r += tf.nn.log_softmax(x) + tf.clip_by_value(x, -0.5, 0.75)
        r += tf.zeros_like(x) + 2.0 * tf.ones_like(x)
        # ties (quarters repeat): the first index, as TF; int64 and int32 outputs
        r += tf.cast(tf.math.argmax(x, axis=-1), tf.float32)[..., None]
        r += tf.cast(tf.math.argmin(x, axis=1, output_type=tf.int32), tf.float32)[:, None, :]
        parts = tf.unstack(tf.reshape(x, (1, 4, 2, 4)), axis=2)
        return r + tf.reshape(tf.concat([parts[1] * 3.0, parts[0]], axis=-1), (1, 4, 8))

    return _lambda_model(f, (4, 8), batch_size=None)


def test_rounding_activations_and_predicates_match_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _float_model(), "float_ops",
                         inputs={"x": _quarters((1, 4, 8))})


def _int_model():
    import keras
    import tensorflow as tf

    def f(i):
        d = tf.math.floordiv(i, 3) * 10 + tf.math.floormod(i, -4)  # negatives round to -inf
        hot = tf.one_hot(i, 5, on_value=2.0, off_value=-1.0, axis=1)  # -3..-1, 5, 6: all off
        return tf.cast(d, tf.float32)[:, None, :] * hot

    i = keras.Input((7,), dtype="int32", name="i")
    return keras.Model(i, keras.layers.Lambda(f, output_shape=(5, 7))(i))


def test_integer_floor_division_and_one_hot_match_tf(tmp_path, capsys):
    i = np.array([[-7, -3, -1, 0, 2, 5, 6]], dtype=np.int32)
    _compile_and_compare(tmp_path, capsys, _int_model(), "int_ops", inputs={"i": i})


def _top_k_model():
    import tensorflow as tf

    def f(x):
        # a router's top-k on logits: values (sorted, largest first) and int32 indices; quarters
        # repeat, so ties are taken by the lower index, as TensorFlow does
        v, i = tf.math.top_k(x * 2.0 - 1.0, k=3)
        w, j = tf.math.top_k(tf.reshape(x, (1, 32)), k=32)  # k = n: a full descending sort
        return v, i, w + tf.cast(j, tf.float32)

    return _lambda_model(f, (4, 8))


def test_top_k_values_and_indices_match_tf(tmp_path, capsys):
    kinds = _compile_and_compare(tmp_path, capsys, _top_k_model(), "top_k",
                                 inputs={"x": _quarters((1, 4, 8), seed=1)})
    assert kinds.count("TopKV2") == 2, kinds


def _depth_space_model():
    import keras
    import tensorflow as tf

    def f(x):
        # sub-pixel upsampling (DepthToSpace after a conv) and YOLO's reorg (SpaceToDepth)
        up = tf.nn.depth_to_space(x, 2)  # [1, 4, 6, 12] -> [1, 8, 12, 3]
        return tf.nn.space_to_depth(up * 2.0 + 1.0, 4), tf.nn.space_to_depth(x, 2)

    x = keras.Input((4, 6, 12), batch_size=1, name="x")
    y = keras.layers.Conv2D(12, 3, padding="same", name="conv")(x)
    return keras.Model(x, keras.layers.Lambda(f)(y))


def test_depth_to_space_and_space_to_depth_match_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _depth_space_model(), "depth_space",
                         inputs={"x": _quarters((1, 4, 6, 12), seed=2)})


def _gather_nd_model():
    import keras
    import tensorflow as tf

    def f(args):
        x, i = args
        # run-time indices (all three dims: one element each) and constant indices (rows of x[0])
        rows = tf.gather_nd(tf.reshape(x, (4, 6)), tf.constant([[3], [1], [3]]))
        return tf.gather_nd(x, i), rows * 2.0

    x = keras.Input((4, 6), batch_size=1, name="x")
    i = keras.Input((5, 3), batch_size=1, dtype="int32", name="i")
    return keras.Model([x, i], keras.layers.Lambda(f, output_shape=[(5,), (3, 6)])([x, i]))


def test_gather_nd_matches_tf(tmp_path, capsys):
    rng = np.random.default_rng(3)
    idx = np.stack([np.zeros(5, int), rng.integers(0, 4, 5), rng.integers(0, 6, 5)], -1)
    _compile_and_compare(tmp_path, capsys, _gather_nd_model(), "gather_nd",
                         inputs={"x": _quarters((1, 4, 6), seed=4),
                                 "i": idx.astype(np.int32)[None]})


def _atan2_model():
    import tensorflow as tf

    def f(x):
        # every quadrant, the axes and atan2(0, 0) = 0 (quarters include zeros)
        return tf.math.atan2(x, tf.reverse(x, axis=[-1]))

    return _lambda_model(f, (4, 8))


def test_atan2_matches_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _atan2_model(), "atan2",
                         inputs={"x": _quarters((1, 4, 8), seed=5)})


def _cumprod_model():
    import tensorflow as tf

    def f(x):
        # inclusive along the last axis, exclusive and reversed along axis 1
        return tf.math.cumprod(x, axis=-1), tf.math.cumprod(x, axis=1, exclusive=True, reverse=True)

    return _lambda_model(f, (4, 8))


def test_cumprod_matches_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _cumprod_model(), "cumprod",
                         inputs={"x": _quarters((1, 4, 8), seed=6)})


def _lrn_model():
    import keras
    import tensorflow as tf

    def f(x):
        # AlexNet / GoogLeNet's LRN after a conv + ReLU: windows clipped at both channel ends
        a = tf.nn.local_response_normalization(x, depth_radius=2, bias=2.0, alpha=0.1, beta=0.75)
        return a + tf.nn.local_response_normalization(x)  # TF's defaults: r 5, 1, 1, 0.5

    x = keras.Input((5, 6, 8), batch_size=1, name="x")
    y = keras.layers.Conv2D(19, 3, padding="same", activation="relu", name="conv")(x)
    return keras.Model(x, keras.layers.Lambda(f)(y))


def test_lrn_matches_tf(tmp_path, capsys):
    _compile_and_compare(tmp_path, capsys, _lrn_model(), "lrn",
                         inputs={"x": _quarters((1, 5, 6, 8), seed=7)})
