"""Issue 13: the perf report costs a loop as trip count x (cond + body) when the trip count is a
compile-time constant (kernel.trip_count, set by cann-to-kernel from the cann-level cond and
body; a bound may be a loop-invariant variable starting at a constant, as Keras's RNN loops'
maximum_iterations), and says the trip count is unknown and one iteration assumed when it is
known only at run time."""

from __future__ import annotations

import numpy as np

from compiler.backend import memory_plan as mp
from compiler.backend.perf_report import perf_report
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes

PASSES = ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts", "cann-to-kernel")
W = np.eye(3, dtype=np.float32) * 0.5


def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def _kernels(fn, *specs):
    from compiler.frontend.importers.graphdef import import_graphdef

    cf = tf().function(fn, input_signature=list(specs)).get_concrete_function()
    module = import_graphdef(cf.graph.as_graph_def(), "p.pb", warn=lambda line: None)
    ctx = make_context()
    run_passes(ctx, module, PASSES)
    module, _ = parse_module(ctx, module_to_text(module), "p.mlir")  # the attribute round-trips
    mp.plan_module(module)
    return module


def _loop(n_start, bound, step):
    def fn(x):
        return tf().while_loop(lambda i, a: i < bound, lambda i, a: (i + step, tf().matmul(a, W)),
                               [tf().constant(n_start), x])[1]
    return fn


def test_static_trip_count_costs_trips_times_body():
    spec = tf().TensorSpec([2, 3], tf().float32)
    module = _kernels(_loop(1, 8, 2), spec)  # i = 1, 3, 5, 7: 4 turns
    (loop,) = [o for o in module.walk() if o.name == "kernel.while"]
    assert loop.attributes["kernel.trip_count"].value.data == 4
    rep = perf_report(module)
    text = rep.to_text()
    assert "trip count 4 known at compile time: cond 5 times, body 4 times" in text
    body = [k for k in rep.kernels if k.node.startswith("@while_body") and k.unit == "cube"]
    assert len(body) == 4  # the body's matmul, once per turn


def test_data_dependent_trip_count_says_unknown_and_one_iteration_assumed():
    def fn(x):
        return tf().while_loop(lambda a: tf().reduce_sum(a) < 100.0, lambda a: a * 2.0 + 1.0, [x])

    module = _kernels(fn, tf().TensorSpec([2, 3], tf().float32))
    (loop,) = [o for o in module.walk() if o.name == "kernel.while"]
    assert "kernel.trip_count" not in loop.attributes
    assert "trip count unknown at compile time (known at run time): one iteration assumed" in \
        perf_report(module).to_text()


def test_loop_invariant_bound_gives_the_trip_count():
    """maximum_iterations (how Keras's RNN loops are bounded) is a loop variable the body passes
    through unchanged, starting at a constant: cond `counter < it and i < 100` turns 5 times."""
    def fn(x):
        return tf().while_loop(lambda i, a: i < 100, lambda i, a: (i + 1, tf().matmul(a, W)),
                               [tf().constant(0), x], maximum_iterations=5)[1]

    module = _kernels(fn, tf().TensorSpec([2, 3], tf().float32))
    (loop,) = [o for o in module.walk() if o.name == "kernel.while"]
    assert loop.attributes["kernel.trip_count"].value.data == 5
    assert "trip count 5 known at compile time: cond 6 times, body 5 times" in \
        perf_report(module).to_text()
