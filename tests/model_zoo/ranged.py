"""Models frozen with a dynamic dimension in their signature, for shape ranges (issue 16).

    path = ranged_graphdef("RangedCNN")   # x: [?, 32, 32, 3]  (batch dynamic)
    path = ranged_graphdef("RangedEncoder")  # x: [1, ?, 32]  (sequence dynamic)

The CNN is Conv2D + BatchNormalization + ReLU, MaxPooling2D, Conv2D + ReLU, global average
pooling, Dense + softmax; the encoder is a Keras-layer transformer block: MultiHeadAttention
(EinsumDense projections), residual + LayerNormalization, a GELU Dense FFN (Tensordot: its
reshape targets come from the tensor's own shape), residual + LayerNormalization.  Variables
are perturbed as in the zoo (compiler/.. zoo.py `perturb_variables`) and the graphs frozen with
`convert_variables_to_constants_v2` on a concrete function whose input spec has the `None`.
Cached under `CANN_MODEL_ZOO` (zoo.py's `default_cache_dir`), keyed by this file and the versions.
"""

from __future__ import annotations

import hashlib
import os

from tests.model_zoo.zoo import default_cache_dir, perturb_variables

SPECS = {"RangedCNN": [None, 32, 32, 3], "RangedEncoder": [1, None, 32]}
#: keras-hub backbones (the zoo's small configuration) with a dynamic sequence: int32 inputs.
HUB_SPECS = {"RangedBert": ("BertBackbone", ("token_ids", "segment_ids", "padding_mask"))}


def _cnn(keras):
    L = keras.layers
    x = keras.Input((32, 32, 3))
    y = L.Conv2D(8, 3, padding="same")(x)
    y = L.ReLU()(L.BatchNormalization()(y))
    y = L.MaxPooling2D()(y)
    y = L.Conv2D(16, 3, padding="same", activation="relu")(y)
    y = L.Dense(10, activation="softmax")(L.GlobalAveragePooling2D()(y))
    return keras.Model(x, y)


def _encoder(keras):
    L = keras.layers
    x = keras.Input((None, 32))
    h = L.LayerNormalization()(x + L.MultiHeadAttention(2, 16)(x, x))
    f = L.Dense(32)(L.Dense(64, activation="gelu")(h))
    return keras.Model(x, L.LayerNormalization()(h + f))


BUILDERS = {"RangedCNN": _cnn, "RangedEncoder": _encoder}


def _digest() -> str:
    from importlib import metadata

    from compiler.frontend.tf_loader import tensorflow

    h = hashlib.sha256(open(__file__, "rb").read())
    h.update(tensorflow().__version__.encode())
    h.update(metadata.version("keras").encode())
    return h.hexdigest()[:12]


def _hub_graph_def(name: str):
    """The keras-hub backbone of `name` frozen with its inputs [1, None] (int32)."""
    from tests.model_zoo.zoo import Input, freeze, hub_backbone

    cls, inputs = HUB_SPECS[name]
    return freeze(hub_backbone(cls), inputs=tuple(Input(n, (1, None), "int32") for n in inputs))


def ranged_graphdef(name: str, cache_dir: str | None = None) -> str:
    """Path of the frozen GraphDef of `name` (input 'x', output 'Identity'; a keras-hub one:
    its HUB_SPECS inputs), built on first use."""
    cache_dir = cache_dir or default_cache_dir()
    path = os.path.join(cache_dir, f"{name}-{_digest()}.pb")
    if os.path.exists(path):
        return path
    if name in HUB_SPECS:
        _write(path, _hub_graph_def(name))
        return path
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    from compiler.frontend.tf_loader import tensorflow

    tf = tensorflow()
    import keras

    keras.utils.set_random_seed(0)
    model = BUILDERS[name](keras)
    perturb_variables(model, 0)
    spec = tf.TensorSpec(SPECS[name], tf.float32, name="x")
    concrete = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    _write(path, convert_variables_to_constants_v2(concrete).graph.as_graph_def())
    return path


def _write(path: str, graph_def) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(graph_def.SerializeToString())
    os.replace(tmp, path)
