"""Real models, built locally: Keras applications and a BERT/GPT-style encoder as frozen GraphDefs.

Nothing is downloaded: `weights=None`, then every variable whose value is one repeated number
(fresh BatchNorm gamma=1, beta=0, mean=0, var=1, zero biases) is perturbed so the graph looks
trained (tf-graphs.md: otherwise constant folding deletes the patterns fusion must see).
Variances stay positive.  Frozen with `convert_variables_to_constants_v2` on a concrete function
with a static input signature (batch 1), as the reference measurements were.

    path = frozen_graphdef("ResNet50", cache_dir)      # cached .pb, built once per cache_dir
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable

import numpy as np

from compiler.tf_loader import tensorflow

#: name -> (builder, input shape without batch)
KERAS_APPLICATIONS = {
    "ResNet50": ("ResNet50", (224, 224, 3)),
    "MobileNetV2": ("MobileNetV2", (224, 224, 3)),
    "EfficientNetB0": ("EfficientNetB0", (224, 224, 3)),
}


def perturb_variables(model, seed: int = 0) -> int:
    """Give every constant-valued variable non-trivial values; return how many were changed."""
    rng = np.random.default_rng(seed)
    changed = 0
    for v in model.variables:
        value = v.numpy()
        if value.size == 0 or not np.issubdtype(value.dtype, np.floating):
            continue
        flat = value.reshape(-1)
        if not np.all(flat == flat[0]):
            continue
        name = v.path if hasattr(v, "path") else v.name
        if "variance" in name:
            new = rng.uniform(0.5, 1.5, value.shape)
        elif "gamma" in name or "scale" in name:
            new = rng.uniform(0.5, 1.5, value.shape)
        else:
            new = value + rng.normal(0.0, 0.1, value.shape)
        v.assign(new.astype(value.dtype))
        changed += 1
    return changed


def bert_encoder(layers: int = 2, seq: int = 128, hidden: int = 256, heads: int = 4,
                 ffn: int = 1024, activation: str = "gelu", seed: int = 0):
    """A BERT/GPT-style encoder from Keras layers: MultiHeadAttention, LayerNormalization,
    Dense with GELU (erf form by default; "gelu_tanh" for the tanh form)."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x_in = keras.Input((seq, hidden), batch_size=1, name="x")
    x = x_in
    for i in range(layers):
        att = keras.layers.MultiHeadAttention(heads, hidden // heads, name=f"attention_{i}")(x, x)
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"ln_att_{i}")(x + att)
        if activation == "gelu_tanh":
            act = lambda t: keras.activations.gelu(t, approximate=True)  # noqa: E731
        else:
            act = "gelu"
        h = keras.layers.Dense(ffn, activation=act, name=f"ffn_in_{i}")(x)
        h = keras.layers.Dense(hidden, name=f"ffn_out_{i}")(h)
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"ln_ffn_{i}")(x + h)
    return keras.Model(x_in, x, name=f"encoder{layers}")


def keras_application(name: str, seed: int = 0):
    tf = tensorflow()
    builder, shape = KERAS_APPLICATIONS[name]
    tf.keras.utils.set_random_seed(seed)
    return getattr(tf.keras.applications, builder)(weights=None, input_shape=shape)


MODELS: dict[str, Callable[[], object]] = {
    **{n: (lambda n=n: keras_application(n)) for n in KERAS_APPLICATIONS},
    "BertEncoder2": lambda: bert_encoder(layers=2),
}


def freeze(model, seed: int = 0):
    """A frozen GraphDef (batch 1, static shapes) of a Keras model."""
    tf = tensorflow()
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    perturb_variables(model, seed)
    specs = [tf.TensorSpec((1, *inp.shape[1:]), inp.dtype, name=inp.name.split(":")[0])
             for inp in model.inputs]
    fn = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0], training=False))
    concrete = fn.get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete)
    return frozen.graph.as_graph_def()


def default_cache_dir() -> str:
    """`$CANN_MODEL_ZOO`, else a folder in the system's temp dir (nothing is downloaded: the
    cache only saves rebuilding the models between runs)."""
    return os.environ.get("CANN_MODEL_ZOO") or os.path.join(tempfile.gettempdir(), "cann-mlir-zoo")


def _recipe_digest() -> str:
    """Changes whenever this file or the TensorFlow version changes: a stale graph is never reused."""
    h = hashlib.sha256(open(__file__, "rb").read())
    h.update(tensorflow().__version__.encode())
    return h.hexdigest()[:12]


def frozen_graphdef(name: str, cache_dir: str | None = None) -> str:
    """Path of `name`'s frozen GraphDef under cache_dir, building it on first use."""
    cache_dir = cache_dir or default_cache_dir()
    path = os.path.join(cache_dir, f"{name}-{_recipe_digest()}.pb")
    if not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        graph_def = freeze(MODELS[name]())
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(graph_def.SerializeToString())
        os.replace(tmp, path)
    return path
