"""Issue 13, item 2: TF1 control flow (control flow v1, graph mode) functionalized on import in
the shapes TensorFlow's own FunctionalizeControlFlow accepts: conds nested in while bodies (on
the loop counter, reading a loop invariant: an `is_constant` Enter), whiles inside conds, nested
loops, conds inside conds, several loop variables.  Each graph is imported, lowered to kernels
and run, and compared with TensorFlow running the original graph."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes

W = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0) / 8.0
KERNEL_PASSES = ("tf-to-cann", "fuse", "assign-layouts", "cann-to-kernel")


def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def v1_graph(build):
    """GraphDef of `build(x)` built in graph mode with control flow v1 (x: a [2, 3] float)."""
    from tensorflow.python.ops import control_flow_util

    t = tf()
    g = t.Graph()
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        with g.as_default():
            x = t.compat.v1.placeholder(t.float32, [2, 3], name="x")
            t.identity(build(x), name="out")
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    gd = g.as_graph_def()
    assert {"Switch", "Merge"} <= {n.op for n in gd.node}
    return gd


def _while(cond, body, loop_vars):
    return tf().compat.v1.while_loop(cond, body, loop_vars)


def _cond(p, a, b):
    return tf().compat.v1.cond(p, a, b)


def cond_on_counter_reads_invariant(x):  # the case: 13 nodes were left
    y = x * 3.0

    def body(i, a):
        return i + 1, _cond(i > 1, lambda: a + y, lambda: a - y)
    return _while(lambda i, a: i < 4, body, [0, x])[1]


def cond_with_matmuls_in_loop(x):
    def body(i, a):
        return i + 1, _cond(tf().reduce_sum(a) > 0, lambda: tf().matmul(a, W),
                            lambda: tf().matmul(a, W * 0.5) + 1.0)
    return _while(lambda i, a: i < 3, body, [tf().constant(0), x])[1]


def several_variables(x):
    def body(i, a, b):
        return i + 1, _cond(i < 2, lambda: tf().matmul(a, W), lambda: a + b), b * 0.5
    _, a, b = _while(lambda i, a, b: i < 4, body, [0, x, x])
    return a + b


def while_inside_cond(x):
    return _cond(tf().reduce_sum(x) > 0,
                 lambda: _while(lambda i, a: i < 3, lambda i, a: (i + 1, tf().tanh(a)), [0, x])[1],
                 lambda: x * 2.0)


def nested_loops(x):
    def outer(i, a):
        inner = _while(lambda j, b: j < i, lambda j, b: (j + 1, b * 0.9 + 0.1), [0, a])[1]
        return i + 1, inner
    return _while(lambda i, a: i < 3, outer, [0, x])[1]


def cond_in_cond_in_loop(x):
    y = x * 3.0

    def body(i, a):
        inner = lambda: _cond(i > 1, lambda: a + y, lambda: a - y)  # noqa: E731
        return i + 1, _cond(tf().reduce_sum(a) > 0, inner, lambda: tf().matmul(a, W))
    return _while(lambda i, a: i < 4, body, [0, x])[1]


def cond_in_cond(x):
    inner = lambda: _cond(tf().reduce_max(x) > 1, lambda: x + 1.0, lambda: x - 1.0)  # noqa: E731
    return _cond(tf().reduce_sum(x) > 0, inner, lambda: x * 0.5)


CASES = [cond_on_counter_reads_invariant, cond_with_matmuls_in_loop, several_variables,
         while_inside_cond, nested_loops, cond_in_cond_in_loop, cond_in_cond]


def tf_run(gd, x):
    t = tf()
    g = t.Graph()
    with g.as_default():
        t.graph_util.import_graph_def(gd, name="")
    with t.compat.v1.Session(graph=g) as s:
        return s.run("out:0", {"x:0": x})


@pytest.mark.parametrize("build", CASES, ids=[c.__name__ for c in CASES])
def test_tf1_control_flow_compiles_to_kernels_and_matches(build):
    from compiler.frontend.importers.graphdef import import_graphdef

    gd = v1_graph(build)
    module = import_graphdef(gd, "v1.pb", warn=lambda line: None)
    text = module_to_text(module)
    for op in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"):
        assert f"tf.{op} " not in text
    ctx = make_context()
    run_passes(ctx, module, KERNEL_PASSES)
    module, _ = parse_module(ctx, module_to_text(module), "v1.kernel.mlir")
    rng = np.random.default_rng(3)
    for sign in (1.0, -1.0):  # both branches of the data-dependent conditionals
        x = (sign * np.abs(rng.standard_normal((2, 3)))).astype(np.float32)
        (ours,) = run_module(module, {"x": x}).values()
        np.testing.assert_allclose(ours, tf_run(gd, x), atol=1e-5, rtol=1e-5)
