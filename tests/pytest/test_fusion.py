"""The fusion engine: the rule language's errors, rule semantics, idempotence, and numeric
equality with TensorFlow after fusion (conv + BN + bias + activations + residual, matmul + bias
+ activation) on small frozen graphs."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir.diagnostics import CompileError
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from compiler.transforms.fusion import builtin_rules, parse_rules
from tools.driver.pipelines import run_passes


def test_builtin_rules_parse_and_have_unique_names():
    names = [r.name for r in builtin_rules()]
    assert len(names) == len(set(names))
    assert "AABiasaddConvFusion" in names and "TbeConv2DReluFusion" in names


@pytest.mark.parametrize("text, where, msg", [
    ("rule A {\n  match { c = Conv2D(x, w) }\n  replace { }\n}\n", "3:13", "unexpected"),
    ("rule A {\n  match { c = Relu(x) }\n  require foo(c)\n  replace { Relu(x) }\n}\n", "3:11",
     "unknown helper function 'foo'"),
    ("rule A {\n  match { c = Relu(x) }\n  require y == 1\n  replace { Relu(x) }\n}\n", "3:11",
     "unknown variable 'y'"),
    ("rule A {\n  match {\n    c = Relu(x)\n    d = Relu(x)\n  }\n  replace { Relu(x) }\n}\n", "1:1",
     "do not feed the root"),
    ("rule A $", "1:8", "unexpected character"),
])
def test_malformed_rules_name_file_line_column(text, where, msg):
    with pytest.raises(CompileError) as e:
        parse_rules(text, "my.rules")
    line = e.value.messages[0]
    assert line.startswith(f"my.rules:{where}: error:"), line
    assert msg in line


def _build(path, body):
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        body(tf)
    tf.io.write_graph(g.as_graph_def(), str(path.parent), path.name, as_text=False)
    return str(path)


def _conv_bn_graph(tf, depthwise=False, act="relu", residual=True, keras_bn=True):
    rng = np.random.default_rng(0)
    x = tf.compat.v1.placeholder(tf.float32, [1, 9, 9, 8], name="x")
    if depthwise:
        w = tf.constant(rng.normal(0, 0.5, (3, 3, 8, 1)).astype(np.float32))
        y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")
    else:
        w = tf.constant(rng.normal(0, 0.5, (3, 3, 8, 8)).astype(np.float32))
        y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        y = tf.nn.bias_add(y, tf.constant(rng.normal(0, 0.5, (8,)).astype(np.float32)))
    gamma, beta, mean = (tf.constant(rng.normal(0, 0.5, (8,)).astype(np.float32)) for _ in range(3))
    var = tf.constant(rng.uniform(0.5, 1.5, (8,)).astype(np.float32))
    if keras_bn:  # Keras 3's decomposed form on reshaped constants
        scale = tf.math.rsqrt(var + 1e-3) * gamma
        y = y * tf.reshape(scale, [1, 1, 1, 8]) + tf.reshape(beta - mean * scale, [1, 1, 1, 8])
    else:
        y = tf.compat.v1.nn.fused_batch_norm(y, gamma, beta, mean, var, epsilon=1e-3, is_training=False)[0]
    if residual:
        y = y + x
    if act == "relu":
        y = tf.nn.relu(y)
    elif act == "relu6":
        y = tf.nn.relu6(y)
    elif act == "swish":
        y = y * tf.sigmoid(y)
    tf.identity(y, name="out")


def _dense_graph(tf, act="gelu_erf"):
    rng = np.random.default_rng(1)
    x = tf.compat.v1.placeholder(tf.float32, [1, 5, 16], name="x")
    w = tf.constant(rng.normal(0, 0.3, (16, 12)).astype(np.float32))
    b = tf.constant(rng.normal(0, 0.3, (12,)).astype(np.float32))
    y = tf.reshape(tf.matmul(tf.reshape(x, [5, 16]), w), [1, 5, 12])
    y = tf.nn.bias_add(y, b)
    if act == "relu":
        y = tf.nn.relu(y)
    elif act == "tanh":
        y = tf.tanh(y)
    tf.identity(y, name="out")


def _chain_graph(tf):
    """An elementwise DAG over two inputs with scalar constants: one FusedKernel (automatic
    fusion), run by the interpreter through its region."""
    x = tf.compat.v1.placeholder(tf.float32, [2, 3, 8], name="x")
    y = tf.compat.v1.placeholder(tf.float32, [2, 3, 8], name="y")
    a = tf.maximum(tf.tanh((x + y) * 0.5 - x), tf.sigmoid(y))
    b = tf.math.rsqrt(tf.square(a / (tf.exp(-y) + 1.0)) + 1.0)
    c = tf.nn.relu(b * 3.0 - 1.0)
    tf.identity(tf.minimum(c, tf.sqrt(tf.nn.relu(y) + 0.25)), name="out")


CASES = {
    "elementwise_chain": (_chain_graph, 1),
    "conv_kerasbn_residual_relu": (lambda tf: _conv_bn_graph(tf), 1),
    "conv_fusedbn_relu6": (lambda tf: _conv_bn_graph(tf, act="relu6", residual=False, keras_bn=False), 1),
    "conv_bn_swish": (lambda tf: _conv_bn_graph(tf, act="swish", residual=False), 1),
    "depthwise_bn_relu6": (lambda tf: _conv_bn_graph(tf, depthwise=True, act="relu6", residual=False), 1),
    "dense3d_bias_relu": (lambda tf: _dense_graph(tf, "relu"), 1),
    "dense3d_bias_tanh": (lambda tf: _dense_graph(tf, "tanh"), 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_graph_matches_tensorflow(tmp_path, case):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from compiler.transforms.fusion.engine import count_kernels
    from tools.driver.runner import run_graphdef

    body, want_kernels = CASES[case]
    path = _build(tmp_path / f"{case}.pb", body)
    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "fuse"))
    assert count_kernels(module) <= want_kernels, module_to_text(module, False, False)
    inputs = random_inputs(module, seed=3)
    ours = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(ours))
    for k in ref:
        assert np.abs(ours[k].astype(np.float64) - ref[k]).max() <= 1e-4, case
    # fusing again changes nothing
    text = module_to_text(module, False, False)
    module2, _ = parse_module(ctx, text, "<fused>")
    run_passes(ctx, module2, ("fuse",))
    assert module_to_text(module2, False, False) == text
