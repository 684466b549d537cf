"""Issue 13: a TensorList that grows (tf.TensorArray(dynamic_size=True): TensorListReserve of 0
elements, TensorListSetItem with resize_if_index_out_of_bounds) in a While with a trip count
known at compile time is one preallocated buffer of (the index counter's start + trip count)
rows (compiler/conversions/tf_to_cann/tensor_list_types.grown_lists), through cann-compile and
cann-run --compare-with at atol 1e-5; with a data-dependent trip count it is one error line
naming the node."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _graph(data_dependent: bool):
    from compiler.frontend.tf_loader import tensorflow

    tf = tensorflow()

    def body(i, ta, x):
        return i + 1, ta.write(i, tf.tanh(x * tf.cast(i, tf.float32))), x * 1.5

    def cond(i, ta, x):
        return tf.reduce_sum(tf.abs(x)) < 20.0 if data_dependent else i < 5

    @tf.function(input_signature=[tf.TensorSpec((3,), tf.float32, name="x")])
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=(3,))
        _, ta, _ = tf.while_loop(cond, body, [0, ta, x])
        return ta.stack()
    return f.get_concrete_function().graph.as_graph_def()


def _run(tool, *args):
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)


@pytest.mark.modelzoo
def test_a_grown_tensor_array_is_a_buffer_of_the_trip_count(tmp_path):
    pb = tmp_path / "grow.pb"
    pb.write_bytes(_graph(False).SerializeToString())
    r = _run("cann_compile", f"--model={pb}", "--framework=3", "-o", tmp_path / "grow")
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "x.npy", np.array([0.5, -1.0, 2.0], np.float32))
    r = _run("cann_run", tmp_path / "grow.om", "--compare-with", pb,
             f"--input=x={tmp_path / 'x.npy'}", "--atol", "1e-5", "--rtol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout


def test_a_list_grown_by_a_data_dependent_loop_is_one_error_naming_the_node(tmp_path):
    pb = tmp_path / "dd.pb"
    pb.write_bytes(_graph(True).SerializeToString())
    r = _run("cann_compile", f"--model={pb}", "--framework=3", "-o", tmp_path / "dd")
    assert r.returncode == 1
    errors = [ln for ln in r.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "[node 'TensorArrayV2']" in errors[0] and "trip count" in errors[0], r.stderr
    assert not (tmp_path / "dd.om").exists()


def _tf1_graph():
    from tests.model_zoo.control_flow import tf1_control_flow_graph

    with tf1_control_flow_graph() as (tf, g):
        x = tf.compat.v1.placeholder(tf.float32, [4], name="x")
        ys = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[4])

        def body(i, ys):
            return i + 1, ys.write(i, tf.tanh(x * tf.cast(i, tf.float32)))
        _, ys = tf.compat.v1.while_loop(lambda i, ys: i < 6, body, [tf.constant(0), ys])
        tf.identity(ys.stack(), name="out")
    return g.as_graph_def(add_shapes=True)


@pytest.mark.modelzoo
def test_a_tf1_dynamic_tensor_array_is_a_buffer_of_the_trip_count(tmp_path):
    """TF1 TensorArrayV3(size=0, dynamic_size=True) written at the loop counter by a 6-step
    control-flow-v1 loop: a 6-row buffer; matches TensorFlow at atol 1e-5."""
    gd = _tf1_graph()
    assert {"TensorArrayV3", "TensorArrayWriteV3", "Enter", "Merge"} <= {n.op for n in gd.node}
    pb = tmp_path / "ta1.pb"
    pb.write_bytes(gd.SerializeToString())
    r = _run("cann_compile", f"--model={pb}", "--framework=3", "-o", tmp_path / "ta1")
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "x.npy", np.array([0.5, -1.0, 2.0, 0.25], np.float32))
    r = _run("cann_run", tmp_path / "ta1.om", "--compare-with", pb,
             f"--input=x={tmp_path / 'x.npy'}", "--atol", "1e-5", "--rtol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout
