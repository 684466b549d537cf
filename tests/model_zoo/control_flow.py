"""A control-flow zoo (issue 13): loops, conditionals and recurrent layers, as GraphDefs.

    path = control_flow_graphdef("WhileCondTF1", cache_dir)   # cached .pb, built once
    feeds = control_flow_inputs("LstmGruTextClassifier")      # valid inputs (ids < vocab)

Each model is small and has a static input signature.  tf.function programs are exported with
their function library (functional While / If, TensorLists); Keras models are frozen with
`tests.model_zoo.zoo.freeze` (perturbed weights, batch 1); the TF1 one is built in graph mode
with control flow v1 (Switch / Merge / Enter / Exit / NextIteration / LoopCond).  The cache is
`tests.model_zoo.zoo`'s (`$CANN_MODEL_ZOO`), keyed by this file's digest and TF's version.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from compiler.frontend.tf_loader import tensorflow
from tests.model_zoo.zoo import default_cache_dir, freeze

W = ((np.arange(16, dtype=np.float32).reshape(4, 4) - 7.5) / 12.0)


@dataclass(frozen=True)
class CfModel:
    build: Callable[[], object]  # -> GraphDef
    inputs: tuple[tuple[str, tuple[int, ...], str, int], ...]  # name, shape, dtype, ids below
    static_trip_count: bool  # the loops' trip counts are compile-time constants


def _tf_function(fn, *specs):
    tf = tensorflow()
    cf = tf.function(fn, input_signature=[tf.TensorSpec(s, getattr(tf, d), name=n)
                                          for n, s, d in specs]).get_concrete_function()
    return cf.graph.as_graph_def()


def _while_cond_body(tf, i, a):
    a = tf.cond(tf.reduce_sum(a) > 0.0, lambda: tf.matmul(a, W),
                lambda: tf.matmul(a, W * 0.5) + 1.0)
    return i + 1, a


def while_cond_tf2():
    """The issue's program: tf.while_loop whose body holds a tf.cond with a matmul per branch."""
    tf = tensorflow()
    return _tf_function(lambda x: tf.while_loop(
        lambda i, a: i < 4, lambda i, a: _while_cond_body(tf, i, a), [tf.constant(0), x])[1],
        ("x", (2, 4), "float32"))


@contextmanager
def tf1_control_flow_graph():
    """A new tf.Graph, entered, with control flow v1 (Switch/Merge/Enter/Exit, TensorArrayV3)
    while the block runs; yields (tf, graph)."""
    from tensorflow.python.ops import control_flow_util

    tf = tensorflow()
    g = tf.Graph()
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        with g.as_default():
            yield tf, g
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def while_cond_tf1():
    """The same program in graph mode with control flow v1."""
    with tf1_control_flow_graph() as (tf, g):
        x = tf.compat.v1.placeholder(tf.float32, [2, 4], name="x")

        def body(i, a):
            a = tf.compat.v1.cond(tf.reduce_sum(a) > 0.0, lambda: tf.matmul(a, W),
                                  lambda: tf.matmul(a, W * 0.5) + 1.0)
            return i + 1, a
        out = tf.compat.v1.while_loop(lambda i, a: i < 4, body, [tf.constant(0), x])[1]
        tf.identity(out, name="out")
    return g.as_graph_def()


def nested_loops():
    tf = tensorflow()

    def fn(x):
        def outer(i, a):
            inner = tf.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, tf.tanh(b @ W) + a),
                                  [0, a])[1]
            return i + 1, inner * 0.5
        return tf.while_loop(lambda i, a: i < 2, outer, [0, x])[1]
    return _tf_function(fn, ("x", (2, 4), "float32"))


def data_dependent_loop():
    """The trip count depends on the input: grow until the sum passes a bound."""
    tf = tensorflow()

    def fn(x):
        return tf.while_loop(lambda a: tf.reduce_sum(tf.abs(a)) < 50.0,
                             lambda a: a * 1.5 + 0.25, [x], maximum_iterations=40)[0]
    return _tf_function(fn, ("x", (2, 4), "float32"))


def map_fn():
    tf = tensorflow()
    return _tf_function(lambda x: tf.map_fn(lambda r: tf.tanh(tf.linalg.matvec(W, r)) + r, x),
                        ("x", (5, 4), "float32"))


def lstm_gru_text_classifier(vocab=50, steps=8, seed=0):
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    ids = keras.Input((steps,), batch_size=1, dtype="int32", name="ids")
    h = keras.layers.Embedding(vocab, 8)(ids)
    h = keras.layers.LSTM(12, return_sequences=True)(h)
    h = keras.layers.GRU(10)(h)
    out = keras.layers.Dense(3, activation="softmax")(h)
    return freeze(keras.Model(ids, out, name="lstm_gru"), seed)


def bidirectional_lstm(steps=6, seed=0):
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x = keras.Input((steps, 5), batch_size=1, name="x")
    h = keras.layers.Bidirectional(keras.layers.LSTM(7, return_sequences=True))(x)
    h = keras.layers.Bidirectional(keras.layers.LSTM(4))(h)
    return freeze(keras.Model(x, h, name="bilstm"), seed)


def simple_rnn(steps=6, seed=0):
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x = keras.Input((steps, 5), batch_size=1, name="x")
    h = keras.layers.SimpleRNN(6, return_sequences=True)(x)
    return freeze(keras.Model(x, h, name="simple_rnn"), seed)


def sigmoid_rnn(steps=6, seed=0):
    """SimpleRNN(activation="sigmoid"): a cell no recurrent operator computes; stays a loop."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x = keras.Input((steps, 5), batch_size=1, name="x")
    h = keras.layers.SimpleRNN(6, activation="sigmoid", return_sequences=True)(x)
    return freeze(keras.Model(x, h, name="sigmoid_rnn"), seed)


def gru_reset_before(steps=5, seed=0):
    """GRU(reset_after=False): the reset gate applied to h before its matmul (one bias)."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x = keras.Input((steps, 4), batch_size=1, name="x")
    h = keras.layers.GRU(6, reset_after=False, return_sequences=True)(x)
    h = keras.layers.GRU(5, reset_after=False)(h)
    return freeze(keras.Model(x, h, name="gru_rb"), seed)


def lstm_return_state(steps=5, seed=0):
    """LSTM(return_state=True): the sequence's last output, the final h and the final c."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x = keras.Input((steps, 4), batch_size=1, name="x")
    out, h, c = keras.layers.LSTM(8, return_state=True)(x)
    return freeze(keras.Model(x, keras.layers.Concatenate()([out, h, c]), name="lstm_rs"), seed)


def masked_lstm(vocab=20, steps=6, seed=0):
    """Embedding(mask_zero=True) -> LSTM: the padded (id 0) steps keep the state."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    ids = keras.Input((steps,), batch_size=1, dtype="int32", name="ids")
    h = keras.layers.Embedding(vocab, 4, mask_zero=True)(ids)
    h = keras.layers.LSTM(8)(h)
    return freeze(keras.Model(ids, h, name="masked_lstm"), seed)


ZOO: dict[str, CfModel] = {
    "WhileCondTF2": CfModel(while_cond_tf2, (("x", (2, 4), "float32", 0),), True),
    "WhileCondTF1": CfModel(while_cond_tf1, (("x", (2, 4), "float32", 0),), True),
    "NestedLoops": CfModel(nested_loops, (("x", (2, 4), "float32", 0),), True),
    "DataDependentLoop": CfModel(data_dependent_loop, (("x", (2, 4), "float32", 0),), False),
    "MapFn": CfModel(map_fn, (("x", (5, 4), "float32", 0),), True),
    "LstmGruTextClassifier": CfModel(lstm_gru_text_classifier, (("ids", (1, 8), "int32", 50),),
                                     True),
    "BidirectionalLstm": CfModel(bidirectional_lstm, (("x", (1, 6, 5), "float32", 0),), True),
    "SimpleRnn": CfModel(simple_rnn, (("x", (1, 6, 5), "float32", 0),), True),
    "SigmoidRnn": CfModel(sigmoid_rnn, (("x", (1, 6, 5), "float32", 0),), True),
    "GruResetBefore": CfModel(gru_reset_before, (("x", (1, 5, 4), "float32", 0),), True),
    "LstmReturnState": CfModel(lstm_return_state, (("x", (1, 5, 4), "float32", 0),), True),
    "MaskedLstm": CfModel(masked_lstm, (("ids", (1, 6), "int32", 3),), True),  # some ids 0
}


def _digest() -> str:
    h = hashlib.sha256(open(__file__, "rb").read())
    h.update(tensorflow().__version__.encode())
    return h.hexdigest()[:12]


def control_flow_graphdef(name: str, cache_dir: str | None = None) -> str:
    """Path of `name`'s GraphDef under cache_dir, built on first use."""
    cache_dir = cache_dir or default_cache_dir()
    path = os.path.join(cache_dir, f"cf-{name}-{_digest()}.pb")
    if not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        gd = ZOO[name].build()
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(gd.SerializeToString())
        os.replace(tmp, path)
    return path


def control_flow_inputs(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for n, shape, dtype, ids in ZOO[name].inputs:
        v = rng.integers(0, ids, shape) if ids else rng.standard_normal(shape)
        out[n] = v.astype(dtype)
    return out
