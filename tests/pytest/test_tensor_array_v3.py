"""Issue 13: TF1 TensorArrays (the TensorArrayV3 family of a graph-mode, control flow v1 loop)
are buffers (compiler/conversions/tf_to_cann/tensor_array_v3.py): unstack (ScatterV3), a read
(ReadV3) and a write (WriteV3, in place: one InplaceUpdate row per step) per iteration, size
(SizeV3) and stack (GatherV3), through cann-compile and cann-run --compare-with at atol 1e-5."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _graph():
    from tests.model_zoo.control_flow import tf1_control_flow_graph

    with tf1_control_flow_graph() as (tf, g):
        x = tf.compat.v1.placeholder(tf.float32, [5, 4], name="x")
        xs = tf.TensorArray(tf.float32, size=5, element_shape=[4]).unstack(x)
        ys = tf.TensorArray(tf.float32, size=5, element_shape=[4])

        def body(i, ys):
            size = tf.raw_ops.TensorArraySizeV3(handle=ys.handle, flow_in=ys.flow)
            return i + 1, ys.write(i, tf.tanh(xs.read(i)) * tf.cast(size, tf.float32))
        _, ys = tf.compat.v1.while_loop(lambda i, ys: i < 5, body, [tf.constant(0), ys])
        tf.identity(ys.stack(), name="out")
    return g.as_graph_def(add_shapes=True)  # the shapes TF1 sets on reads (set_shape)


def test_tf1_tensor_arrays_match_tensorflow(tmp_path):
    gd = _graph()
    ops = {n.op for n in gd.node}
    assert {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3",
            "TensorArraySizeV3", "TensorArrayGatherV3", "Enter", "Merge"} <= ops
    pb = tmp_path / "ta.pb"
    pb.write_bytes(gd.SerializeToString())
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "--soc_version=Ascend910B3", "-o", tmp_path / "ta",
                        "--report"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    writes = [ln.split() for ln in r.stdout.splitlines()
              if "[InplaceUpdate" in ln and "TensorArrayWriteV3" in ln]  # the loop's writes
    assert writes and all((int(c[6]), int(c[7])) == (4 + 16, 16) for c in writes), writes
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    r = subprocess.run([sys.executable, "-m", "tools.cann_run", tmp_path / "ta.om",
                        "--compare-with", pb, f"--input=x={tmp_path / 'x.npy'}", "--atol", "1e-5",
                        "--rtol", "1e-5"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout
