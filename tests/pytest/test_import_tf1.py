"""TF1 control flow (issue 3): Switch/Merge conditionals and Enter/Exit/NextIteration/LoopCond
loops are functionalized on import into If/While with generated functions; loop-carried shapes
are kept (a dim that changes across iterations becomes `?`); import -> print -> parse -> export
-> TensorFlow gives bit-identical outputs, for TF1 graphs and frozen tf.functions (which
freezing lowers to the TF1 form)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from compiler.frontend.exporters.graphdef import export_graphdef
from compiler.frontend.importers.graphdef import import_graphdef, import_graphdef_file
from compiler.ir.diagnostics import CompileError
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.cann_translate import main as translate_main

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

TF1_OPS = ("tf.Switch", "tf.Merge", "tf.Enter", "tf.Exit", "tf.NextIteration", "tf.LoopCond")


@pytest.fixture(scope="module")
def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def v1_graph(tf, build):
    """A graph built with control flow v1 (Switch/Merge, frames)."""
    from tensorflow.python.ops import control_flow_util

    g = tf.Graph()
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        with g.as_default():
            build()
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    return g.as_graph_def()


def run_graph(tf, gd, feeds, outs):
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    with tf.compat.v1.Session(graph=g) as s:
        return s.run([o if ":" in o else o + ":0" for o in outs],
                     {k + ":0": v for k, v in feeds.items()})


def round_trip(tf, gd, feeds_list, name="g.pb"):
    """Import, print, parse, export, run both in TensorFlow: bit-identical. Returns the text."""
    notes = []
    module = import_graphdef(gd, name, warn=notes.append)
    text = module_to_text(module, debuginfo=True)
    again, _ = parse_module(make_context(), text, "<printed>")
    assert module_to_text(again, debuginfo=True) == text
    plain = module_to_text(module)
    for op in TF1_OPS:
        assert op + " " not in plain, op
    out = export_graphdef(again)
    assert not any(n.op in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond")
                   for n in out.node)
    entry = module.body.block.first_op.attributes["tf.entry_function"].data
    outs = entry["outputs"].data.split(",")
    for feeds in feeds_list:
        a = run_graph(tf, gd, feeds, outs)
        b = run_graph(tf, out, feeds, outs)
        for name_, p, q in zip(outs, a, b):
            assert p.dtype == q.dtype and p.shape == q.shape, name_
            assert np.array_equal(p, q), name_
    return plain


def feeds_of(*arrays):
    return [{"x": a} for a in arrays]


RNG = np.random.default_rng(0)
X23 = [RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(2)] + [np.full((2, 3), -1, np.float32)]


# --- TF1 graphs -------------------------------------------------------------------------


def test_tf1_cond(tf):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        c = tf.compat.v1.cond(tf.reduce_sum(x) > 0, lambda: (x * 2, x + 1), lambda: (x - 1, x * x))
        tf.identity(c[0], name="a")
        tf.identity(c[1], name="b")

    text = round_trip(tf, v1_graph(tf, build), feeds_of(*X23))
    assert "tf.StatelessIf" in text and "then_branch = @" in text and "else_branch = @" in text
    assert "-> (tensor<2x3xf32>, tensor<2x3xf32>)" in text


def test_tf1_while_with_growing_shape(tf):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        i0 = tf.constant(0)
        r = tf.compat.v1.while_loop(
            lambda i, a: i < 3, lambda i, a: (i + 1, tf.concat([a, a[:1] * 2.0], 0)), [i0, x],
            shape_invariants=[i0.shape, tf.TensorShape([None, 3])])
        tf.identity(r[1], name="y")

    text = round_trip(tf, v1_graph(tf, build), feeds_of(*X23))
    assert "tf.StatelessWhile" in text
    # the counter keeps its scalar shape, the growing dim becomes ?
    assert "output_shapes = [#tf.shape<>, #tf.shape<?x3>]" in text
    assert "(tensor<i32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<?x3xf32>)" in text


def test_tf1_nested_loops_cond_in_loop_and_invariants(tf):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        w = tf.constant(RNG.normal(size=(3, 3)).astype(np.float32) * 0.5, name="w")

        def inner(j, a):
            return j + 1, tf.matmul(a, w)

        def outer(i, a):
            _, a = tf.compat.v1.while_loop(lambda j, a: j < i, inner, [tf.constant(0), a])
            a = tf.compat.v1.cond(tf.reduce_max(a) > 1.0, lambda: a * 0.5, lambda: a + 0.25)
            return i + 1, a

        r = tf.compat.v1.while_loop(lambda i, a: i < 4, outer, [tf.constant(0), x])
        tf.identity(r[1], name="y")
        # a loop inside a conditional
        c = tf.compat.v1.cond(tf.reduce_sum(x) > 0,
                              lambda: tf.compat.v1.while_loop(lambda k, a: k < 2,
                                                              lambda k, a: (k + 1, a * 3.0),
                                                              [tf.constant(0), x])[1],
                              lambda: x)
        tf.identity(c, name="z")

    text = round_trip(tf, v1_graph(tf, build), feeds_of(*X23))
    assert text.count("tf.StatelessWhile") == 3 and text.count("tf.StatelessIf") == 2


def test_tf1_stateful_body_is_while_not_stateless(tf):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        r = tf.compat.v1.while_loop(
            lambda i, a: i < 2,
            lambda i, a: (i + 1, a + tf.raw_ops.RandomUniform(shape=[2, 3], dtype=tf.float32, seed=1, seed2=2) * 0.0),
            [tf.constant(0), x])
        tf.identity(r[1], name="y")

    text = round_trip(tf, v1_graph(tf, build), feeds_of(X23[0]))
    assert "tf.While" in text and "tf.StatelessWhile" not in text


# --- frozen tf.functions (convert_variables_to_constants_v2 lowers to the TF1 form) ---------


def _frozen_function(tf):
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    w = tf.Variable(RNG.normal(size=(3, 3)).astype(np.float32) * 0.7)

    @tf.function
    def f(x):
        def body(i, a):
            a = tf.matmul(a, w)
            a = tf.cond(tf.reduce_sum(a) > 1.0, lambda: a * 0.5, lambda: a + 1.0)
            return i + 1, a

        _, y = tf.while_loop(lambda i, a: i < 5, body, [tf.constant(0), x])
        _, z = tf.while_loop(lambda n, z: n < 3, lambda n, z: (n + 1, tf.concat([z, z], 0)),
                             [tf.constant(0), x], shape_invariants=[tf.TensorShape([]),
                                                                    tf.TensorShape([None, 3])])
        return {"y": tf.identity(y, name="y"), "z": tf.identity(z, name="z")}

    cf = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32, name="x"))
    return convert_variables_to_constants_v2(cf).graph.as_graph_def()


def test_frozen_tf_function_with_while_and_cond(tf):
    gd = _frozen_function(tf)
    assert any(n.op == "NextIteration" for n in gd.node)  # freezing lowered it
    text = round_trip(tf, gd, feeds_of(*X23), "frozen.pb")
    assert "tf.StatelessWhile" in text and "tf.StatelessIf" in text
    assert "unused_control_flow_input" not in text
    assert "tensor<?x3xf32>" in text


def test_functional_v2_still_round_trips(tf):
    @tf.function(autograph=False)
    def f(x):
        return tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                             [tf.constant(0), x])[1]

    gd = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32, name="x")).graph.as_graph_def()
    text = round_trip(tf, gd, feeds_of(X23[0]))
    assert "tf.StatelessWhile" in text or "tf.While" in text


def test_cli_round_trip_and_printed_form(tf, tmp_path):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        r = tf.compat.v1.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                                    [tf.constant(0), x])
        tf.identity(r[1], name="y")

    src = tmp_path / "loop.pb"
    gd = v1_graph(tf, build)
    src.write_bytes(gd.SerializeToString())
    mlir, pb = tmp_path / "loop.mlir", tmp_path / "back.pb"
    assert translate_main(["--import-graphdef", str(src), "--print-debuginfo", "-o", str(mlir)]) == 0
    assert translate_main(["--export-graphdef", str(mlir), "-o", str(pb)]) == 0
    back = tf.compat.v1.GraphDef()
    back.ParseFromString(pb.read_bytes())
    feeds = {"x": X23[0]}
    assert np.array_equal(run_graph(tf, back, feeds, ["y"])[0], run_graph(tf, gd, feeds, ["y"])[0])


# --- malformed frames: one line each, naming the frame/node ---------------------------------


def test_malformed_loop_is_one_line_error(tf, tmp_path):
    def build():
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        r = tf.compat.v1.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                                    [tf.constant(0), x])
        tf.identity(r[1], name="y")

    gd = v1_graph(tf, build)
    # break the structure: a second LoopCond in the frame
    lc = next(n for n in gd.node if n.op == "LoopCond")
    extra = gd.node.add()
    extra.CopyFrom(lc)
    extra.name = lc.name + "_dup"
    p = tmp_path / "bad_loop.pb"
    p.write_bytes(gd.SerializeToString())
    out = tmp_path / "o.mlir"
    assert translate_main(["--import-graphdef", str(p), "-o", str(out)]) == 1
    assert not out.exists()
    with pytest.raises(CompileError) as e:
        import_graphdef_file(str(p))
    assert len(e.value.messages) == 1
    assert "loop frame 'while/while_context'" in e.value.messages[0]
    assert "LoopCond" in e.value.messages[0] and e.value.messages[0].startswith(str(p))
