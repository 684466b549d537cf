"""The automatic fusion (compiler/transforms/fusion/auto.py) end to end: TensorFlow graphs whose pointwise
ops no hand-written rule matches, fused into cann.FusedKernel regions (vector kernels, or a
conv / matmul kernel's epilogue), compiled to the kernel level and run tile by tile against
TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes


def _build(path, body):
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        body(tf)
    tf.io.write_graph(g.as_graph_def(), str(path.parent), path.name, as_text=False)
    return str(path)


def _residual_chain(tf):
    """Two convs; the sum, a ReLU, a hard-sigmoid gate written out (no rule knows it), a scale."""
    rng = np.random.default_rng(0)
    x = tf.compat.v1.placeholder(tf.float32, [1, 7, 7, 8], name="x")
    w1 = tf.constant(rng.normal(0, 0.4, (3, 3, 8, 20)).astype(np.float32))
    w2 = tf.constant(rng.normal(0, 0.4, (1, 1, 8, 20)).astype(np.float32))
    b = tf.constant(rng.normal(0, 0.4, (20,)).astype(np.float32))
    a = tf.nn.bias_add(tf.nn.conv2d(x, w1, 1, "SAME"), b)
    d = tf.nn.conv2d(x, w2, 1, "SAME")
    z = tf.nn.relu(a + d)
    g = tf.minimum(tf.maximum(z * 0.2 + 0.5, 0.0), 1.0)
    tf.identity(z * g - 0.25 * tf.square(z), name="out")


def _matmul_chain(tf):
    rng = np.random.default_rng(1)
    x = tf.compat.v1.placeholder(tf.float32, [6, 16], name="x")
    w = tf.constant(rng.normal(0, 0.3, (16, 24)).astype(np.float32))
    m = tf.matmul(x, w)
    tf.identity(tf.exp(-tf.abs(m)) * 2.0 + tf.sqrt(tf.abs(m) + 1.0), name="out")


def _pointwise_dag(tf):
    """Pointwise ops only, with a per-column vector and a [6, 1] column broadcast."""
    rng = np.random.default_rng(2)
    x = tf.compat.v1.placeholder(tf.float32, [6, 40], name="x")
    y = tf.compat.v1.placeholder(tf.float32, [6, 40], name="y")
    v = tf.constant(rng.normal(0, 1, (40,)).astype(np.float32))
    c = tf.constant(rng.normal(0, 1, (6, 1)).astype(np.float32))
    s = tf.tanh(x * v + y) - c
    tf.identity(tf.where(s > 0.0, s, tf.sigmoid(y) * c), name="out")


# (graph, kernels after fuse, cube kernels at the kernel level, vector kernels there
#  besides TransData)
CASES = {
    "conv_residual_custom_gate": (_residual_chain, 2, 2, 0),
    "matmul_custom_epilogue": (_matmul_chain, 1, 1, 0),
    "pointwise_dag_broadcasts": (_pointwise_dag, 1, 0, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_auto_fusion_matches_tensorflow_at_kernel_level(tmp_path, case):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from compiler.transforms.fusion.engine import count_kernels
    from tools.driver.runner import run_graphdef

    body, want_kernels, want_cube, want_vec = CASES[case]
    path = _build(tmp_path / f"{case}.pb", body)
    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "fuse"))
    fused = module_to_text(module, False, False)
    assert count_kernels(module) == want_kernels, fused
    assert "cann.FusedKernel" in fused
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
    text = module_to_text(module, False, False)
    kinds = [op.kind.data for op in module.walk() if op.name in ("kernel.cube", "kernel.vec_kernel")]
    assert (sum(op.name == "kernel.cube" for op in module.walk()),
            sum(k != "TransData" for k in kinds) - want_cube) == (want_cube, want_vec), text
    module, _ = parse_module(ctx, text, "<kernel>")
    inputs = random_inputs(module, seed=3)
    ours = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(ours))
    for k in ref:
        assert np.abs(ours[k].astype(np.float64) - ref[k]).max() <= 1e-4, case
