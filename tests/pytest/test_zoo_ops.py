"""The ops the model zoo needed (issue 12, item 7), each in a small Keras model frozen as
tests/model_zoo/zoo.py's freeze() does, compiled by cann-compile to an .om and checked by
`cann-run --compare-with` against TensorFlow at atol 1e-4 / rtol 1e-3: a concat of inputs whose
sizes ask for different core counts, Conv2DTranspose (Conv2DBackpropInput), UpSampling2D nearest
(Tile) and bilinear, BroadcastTo and Slice, a grouped Conv2D (ConvNeXt's depthwise-as-groups and
a ResNeXt-style groups=2), a dilated Conv1D (SpaceToBatchND / BatchToSpaceND), Embedding
(GatherV2 on a constant table) with an int32 padding mask compared and cast, a mean over two
separate axes, pools read only by convs (conv prologues) and a linear conv before a 1x1 conv.  The tools' main() run in this process."""

from __future__ import annotations

import numpy as np
import pytest


def _keras():
    from tests.model_zoo.zoo import _keras as k

    return k()


def concat_sizes():
    keras = _keras()
    layers = keras.layers
    x = keras.Input((16, 16, 3), batch_size=1)
    y = layers.Conv2D(40, 3, padding="same")(x)
    return keras.Model(x, layers.Concatenate()([y, layers.Conv2D(1, 1)(y), x]))


def conv_transpose():
    keras = _keras()
    layers = keras.layers
    x = keras.Input((7, 6, 5), batch_size=1)
    a = layers.Conv2DTranspose(4, 3, strides=2, padding="same")(x)
    b = layers.Conv2DTranspose(3, 2, strides=2, padding="valid", activation="relu")(x)
    c = layers.Conv2DTranspose(2, 3, strides=1, padding="same")(x)  # TF CPU: no dilation
    return keras.Model(x, [a, b, c])


def upsampling():
    keras = _keras()
    layers = keras.layers
    x = keras.Input((5, 6, 3), batch_size=1)
    a = layers.UpSampling2D(2)(x)
    b = layers.UpSampling2D((2, 3), interpolation="bilinear")(x)
    return keras.Model(x, [a, b])


def broadcast_slice():
    keras = _keras()
    ops = keras.ops
    x = keras.Input((6, 8), batch_size=1)
    s = ops.sum(x, axis=1, keepdims=True)                  # [1, 1, 8]
    y = ops.concatenate([x, ops.broadcast_to(s, (1, 6, 8))], axis=-1)
    return keras.Model(x, ops.slice(y, (0, 1, 2), (1, 4, 11)))


def grouped_conv():
    keras = _keras()
    layers = keras.layers
    x = keras.Input((9, 9, 8), batch_size=1)
    a = layers.Conv2D(8, 7, padding="same", groups=8)(x)   # ConvNeXt's depthwise conv
    b = layers.Conv2D(6, 3, padding="valid", groups=2, activation="relu")(x)
    return keras.Model(x, [layers.LayerNormalization(epsilon=1e-6)(a), b])


def dilated_conv1d():
    keras = _keras()
    layers = keras.layers
    x = keras.Input((33, 3), batch_size=1)
    y = layers.Conv1D(5, 3, padding="same", dilation_rate=2, activation="relu")(x)
    return keras.Model(x, layers.Conv1D(4, 3, strides=2)(y))


def embedding_mask():
    keras = _keras()
    layers, ops = keras.layers, keras.ops
    ids = keras.Input((6,), batch_size=1, dtype="int32", name="ids")
    e = layers.Embedding(11, 8)(ids)
    mask = ops.cast(ops.not_equal(ids, 0), "float32")[..., None]
    return keras.Model(ids, layers.Dense(3)(e * mask))


def mean_two_axes():
    keras = _keras()
    x = keras.Input((5, 3, 7), batch_size=1)
    return keras.Model(x, keras.ops.mean(x, axis=(1, 3)))


def pool_into_conv():
    """U-Net's and VGG's down step: a 2x2 max-pool of an odd size (its last row unread) and a
    2x2 average pool, each read only by a conv (the pool runs on the conv's A tiles)."""
    keras = _keras()
    layers = keras.layers
    x = keras.Input((11, 11, 3), batch_size=1)
    h = layers.Conv2D(20, 3, padding="same", activation="relu")(x)
    a = layers.Conv2D(8, 3, padding="same")(layers.MaxPooling2D(2)(h))
    b = layers.Conv2D(8, 3, strides=2, padding="same")(layers.AveragePooling2D(2)(h))
    return keras.Model(x, [a, b])


def linear_conv_head():
    """A Conv2DTranspose (stride 1, with bias) then a 1x1 sigmoid head, and a linear 3x3 conv
    then a narrowing 1x1 conv: each pair is one conv (W1 . W2)."""
    keras = _keras()
    layers = keras.layers
    x = keras.Input((9, 7, 5), batch_size=1)
    a = layers.Conv2D(1, 1, activation="sigmoid")(layers.Conv2DTranspose(12, 3, padding="same")(x))
    b = layers.Conv2D(3, 1)(layers.Conv2D(16, 3, strides=2, padding="valid")(x))
    return keras.Model(x, [a, b])


MODELS = {f.__name__: f for f in (concat_sizes, conv_transpose, upsampling, broadcast_slice,
                                  grouped_conv, dilated_conv1d, embedding_mask, mean_two_axes,
                                  pool_into_conv, linear_conv_head)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_compiles_and_matches_tensorflow(name, tmp_path, capsys):
    from tests.model_zoo.zoo import freeze
    from tools import cann_compile, cann_run

    model = MODELS[name]()
    pb = tmp_path / f"{name}.pb"
    pb.write_bytes(freeze(model).SerializeToString())
    om = tmp_path / f"{name}.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, f"cann-compile {name}: {out.err}"
    feeds = []
    for i, inp in enumerate(model.inputs):
        shape = (1, *inp.shape[1:])
        rng = np.random.default_rng(i)
        if "int" in str(inp.dtype):  # ids in the table, some 0 (the padding the mask drops)
            v = rng.integers(0, 11, shape).astype(np.int32)
            v[..., -2:] = 0
        else:
            v = rng.standard_normal(shape).astype(np.float32)
        npy = tmp_path / f"in{i}.npy"
        np.save(npy, v)
        feeds += ["--input", f"{inp.name.split(':')[0]}={npy}"]
    rc = cann_run.main([str(om), *feeds, "--compare-with", str(pb), "--atol", "1e-4",
                        "--rtol", "1e-3"])
    out = capsys.readouterr()
    print(out.out)
    assert rc == 0, f"cann-run {name}: {out.out}{out.err}"
