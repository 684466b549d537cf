"""Issue 13, item 1: shapes inside functions.  A tf.function traced with an input of unknown
shape leaves its branch and body functions' arguments unknown; the importer refines them from
the call sites and from loop invariance (compiler/frontend/importers/function_shapes.py).  A dimension
that really changes across iterations stays `?`, and compiling the loop is one error naming the
loop's node and the variable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp

from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes

ROOT = Path(__file__).resolve().parents[2]
W = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0) / 10.0


def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def _while_cond_matmul(x):
    def body(i, a):
        a = tf().cond(tf().reduce_sum(a) > 0.0, lambda: tf().matmul(a, W),
                      lambda: tf().matmul(a, W) * 0.5 + 1.0)
        return i + 1, a
    return tf().while_loop(lambda i, a: i < 3, body, [tf().constant(0), x])[1]


def _graph(fn, shape):
    cf = tf().function(fn, input_signature=[tf().TensorSpec(shape, tf().float32, name="x")])
    cf = cf.get_concrete_function()
    return cf.graph.as_graph_def(), cf


def _import(gd, **options):
    from compiler.frontend.importers.graphdef import import_graphdef

    return import_graphdef(gd, "case.pb", warn=lambda line: None, **options)


def test_function_arguments_refined_from_call_sites_and_loop_invariance():
    gd, cf = _graph(_while_cond_matmul, [None, 3])  # every function argument is ?x3 in TF
    module = _import(gd, input_shapes="x:2,3")
    funcs = [f for f in module.ops if isinstance(f, FuncOp)]
    assert len(funcs) == 5  # main, cond, body, two branches
    for f in funcs:
        for t in [*f.function_type.inputs.data, *f.function_type.outputs.data]:
            assert isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()), (f.sym_name, t)
    ctx = make_context()
    run_passes(ctx, module, ("tf-to-cann",))  # failed before: tensor<?x3xf32> in the branches
    module, _ = parse_module(ctx, module_to_text(module), "case.cann.mlir")
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    (ours,) = run_module(module, {"x": x}).values()
    np.testing.assert_allclose(ours, cf(tf().constant(x)).numpy(), atol=1e-5, rtol=1e-5)


def test_unknown_rank_arguments_become_static():
    """tf.function with TensorSpec(None): the branch arguments are tensor<*xf32> in TF's own
    graph; matmul in each branch, the loop on its counter."""
    def fn(x):
        def body(i, a):
            return i + 1, tf().cond(i < 2, lambda: tf().matmul(a, W), lambda: tf().matmul(a, W) * 0.5)
        return tf().while_loop(lambda i, a: i < 3, body, [tf().constant(0), x])[1]

    gd, cf = _graph(fn, None)
    module = _import(gd, input_shapes="x:2,3")
    text = module_to_text(module)
    assert "tensor<*x" not in text
    ctx = make_context()
    run_passes(ctx, module, ("tf-to-cann",))
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    (ours,) = run_module(module, {"x": x}).values()
    np.testing.assert_allclose(ours, cf(tf().constant(x)).numpy(), atol=1e-5, rtol=1e-5)


def _growing(x):
    def body(i, a):
        return i + 1, tf().concat([a, x], 0)
    return tf().while_loop(lambda i, a: i < 3, body, [tf().constant(0), x],
                           shape_invariants=[tf().TensorShape([]), tf().TensorShape([None, 3])])[1]


def test_dimension_that_varies_stays_dynamic():
    gd, _ = _graph(_growing, [2, 3])
    module = _import(gd)
    (body,) = [f for f in module.ops if isinstance(f, FuncOp) and "body" in f.sym_name.data]
    types = [str(t) for t in body.function_type.inputs.data]
    assert types[3:] == ["tensor<?x3xf32>", "tensor<2x3xf32>"]  # the growing one, x invariant


def test_varying_loop_variable_is_one_error_naming_loop_and_variable(tmp_path):
    gd, _ = _graph(_growing, [2, 3])
    pb = tmp_path / "grow.pbtxt"
    pb.write_text(str(gd))
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "-o", tmp_path / "grow"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{pb}: error: cann.While: loop variable #3 'while_placeholder_1' "
                               "(tensor<?x3xf32>) changes shape across iterations")
    assert lines[0].endswith("[node 'while']") and "Traceback" not in r.stderr
    assert not (tmp_path / "grow.om").exists()
