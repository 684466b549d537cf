"""The walking skeleton's numeric check: a Conv2D + BiasAdd + Relu GraphDef, imported and lowered
to every level (tf, cann, fused, layouts, kernel), printed and re-parsed, executed, and compared
with TensorFlow on the same inputs (max abs error <= 1e-5, fp32)."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import LEVELS, run_passes

CONFIGS = [
    # (name, H, W, Cin, Cout, k, stride, padding)
    ("same_s1_c3_20", 9, 9, 3, 20, 3, 1, "SAME"),
    ("same_s2_c3_20", 9, 9, 3, 20, 3, 2, "SAME"),
    ("valid_s1_c17_33", 8, 7, 17, 33, 3, 1, "VALID"),
    ("valid_s2_c20_5", 11, 10, 20, 5, 3, 2, "VALID"),
    ("same_s2_k1_c16_16", 8, 8, 16, 16, 1, 2, "SAME"),
]


def build_conv_block(path, h, w, cin, cout, k, stride, padding, seed=0):
    """Conv2D + BiasAdd + Relu with perturbed (non-trivial) constants, as a frozen GraphDef."""
    import tensorflow as tf

    rng = np.random.default_rng(seed)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, h, w, cin], name="x")
        f = tf.constant(rng.normal(0, 0.5, (k, k, cin, cout)).astype(np.float32), name="filter")
        b = tf.constant(rng.normal(0, 0.5, (cout,)).astype(np.float32), name="bias")
        y = tf.nn.conv2d(x, f, strides=[1, stride, stride, 1], padding=padding, name="conv")
        y = tf.nn.bias_add(y, b, name="bias_add")
        tf.nn.relu(y, name="relu")
    tf.io.write_graph(g.as_graph_def(), str(path.parent), path.name, as_text=False)
    return path


@pytest.fixture(scope="module", params=CONFIGS, ids=[c[0] for c in CONFIGS])
def conv_graph(request, tmp_path_factory):
    name, *cfg = request.param
    path = tmp_path_factory.mktemp("graphs") / f"{name}.pb"
    return build_conv_block(path, *cfg)


@pytest.mark.parametrize("level", list(LEVELS))
def test_level_matches_tensorflow(conv_graph, level):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from tools.driver.runner import compare, run_graphdef

    ctx = make_context()
    module = run_passes(ctx, import_graphdef_file(str(conv_graph)), LEVELS[level])
    # Through text and back: what a user would feed to cann-run.
    text = module_to_text(module)
    module, _ = parse_module(ctx, text, f"{level}.mlir")
    assert module_to_text(module) == text

    inputs = random_inputs(module, seed=1)
    ours = run_module(module, inputs)
    reference = run_graphdef(str(conv_graph), inputs, list(ours))
    results = compare(ours, reference, atol=1e-5, rtol=0.0)
    for out, r in results.items():
        assert r.max_abs <= 1e-5, f"{level}/{out}: max abs error {r.max_abs}"
    if level == "kernel":
        assert 'kind = "Conv2D"' in text and "kernel.mmad" in text and "cann.FusedConv2D" not in text
        # no TransData kernel: the conv's cube kernel loads the input converting it (from_origin;
        # a kernel.view for C0 = 16 channels) and stores the output's origin layout itself
        assert text.count("kernel.transdata") == 0, text
    if level in ("fused", "layouts"):
        assert "cann.FusedConv2D" in text and "cann.Relu" not in text
