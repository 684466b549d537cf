"""Models with dynamic input dimensions, for the shape-gear tests and benchmark
(tests/pytest/test_gears.py, benchmarks/gears.py): frozen with `None` where the gears apply, so
the GraphDef's Placeholders keep `?` there and cann-compile's --input_shape gives each gear.

    cnn_graphdef(path)       # x: [?, ?, ?, 3] NHWC: conv/BN/ReLU blocks, global pool, dense softmax
    encoder_graphdef(path)   # x: [?, ?, 64]: one transformer encoder block from Keras layers

Both are small but not toys: the CNN has ~1.2 M parameters (a few MB of weights, as a real CNN's
weights dwarf its kernel IR), the encoder a MultiHeadAttention, two LayerNormalizations and a
GELU feed-forward.  Built locally with perturbed variables (tests/model_zoo/zoo.py); nothing is
downloaded.
"""

from __future__ import annotations

from compiler.frontend.tf_loader import tensorflow


def _freeze(model, spec: list) -> bytes:
    tf = tensorflow()
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from tests.model_zoo.zoo import perturb_variables

    perturb_variables(model, 0)
    fn = tf.function(lambda t: model(t, training=False)).get_concrete_function(
        tf.TensorSpec(spec, tf.float32, name="x"))
    return convert_variables_to_constants_v2(fn).graph.as_graph_def().SerializeToString()


def cnn(widths=(32, 64, 128, 256)):
    keras = tensorflow().keras
    keras.utils.set_random_seed(0)
    x_in = keras.Input((None, None, 3), name="x")
    x = x_in
    for i, w in enumerate(widths):
        x = keras.layers.Conv2D(w, 3, strides=1 if i == 0 else 2, padding="same", use_bias=False,
                                name=f"conv{i}")(x)
        x = keras.layers.BatchNormalization(name=f"bn{i}")(x)
        x = keras.layers.ReLU(name=f"relu{i}")(x)
    x = keras.layers.Conv2D(widths[-1], 3, padding="same", activation="relu", name="conv_last")(x)
    x = keras.layers.GlobalAveragePooling2D(name="gap")(x)
    x = keras.layers.Dense(10, activation="softmax", name="logits")(x)
    return keras.Model(x_in, x, name="gear_cnn")


def encoder(hidden=64, heads=4, ffn=128):
    keras = tensorflow().keras
    keras.utils.set_random_seed(0)
    x_in = keras.Input((None, hidden), name="x")
    att = keras.layers.MultiHeadAttention(heads, hidden // heads, name="attention")(x_in, x_in)
    x = keras.layers.LayerNormalization(epsilon=1e-6, name="ln_att")(x_in + att)
    h = keras.layers.Dense(ffn, activation="gelu", name="ffn_in")(x)
    h = keras.layers.Dense(hidden, name="ffn_out")(h)
    x = keras.layers.LayerNormalization(epsilon=1e-6, name="ln_ffn")(x + h)
    return keras.Model(x_in, x, name="gear_encoder")


def cnn_graphdef(path: str) -> str:
    with open(path, "wb") as f:
        f.write(_freeze(cnn(), [None, None, None, 3]))
    return path


def encoder_graphdef(path: str, hidden: int = 64) -> str:
    with open(path, "wb") as f:
        f.write(_freeze(encoder(hidden), [None, None, hidden]))
    return path
