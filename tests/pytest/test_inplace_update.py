"""Issue 13 item 3: a TensorList / TensorArray write (TensorListSetItem) is cann.InplaceUpdate,
lowered in a while body as a kernel that writes one row over the loop-carried buffer itself
(compiler/conversions/cann_to_kernel/inplace_update.py): the report's bytes for it are one row
and its index, not the buffer, and the memory plan gives that loop variable one buffer in both
of the while's sets (compiler/backend/memory_plan.py).  Through cann-compile and cann-run
--compare-with against TensorFlow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
N, D = 12, 8


def _graph():
    from compiler.frontend.tf_loader import tensorflow

    tf = tensorflow()

    def fn(x):
        ta = tf.TensorArray(tf.float32, size=N)

        def body(i, ta):
            return i + 1, ta.write(i, tf.tanh(tf.gather(x, i)) * 2.0)
        return tf.while_loop(lambda i, ta: i < N, body, [0, ta])[1].stack()
    spec = tf.TensorSpec((N, D), tf.float32, name="x")
    return tf.function(fn, input_signature=[spec]).get_concrete_function().graph.as_graph_def()


def test_tensor_array_write_moves_one_row_in_place(tmp_path):
    pb = tmp_path / "ta.pb"
    pb.write_bytes(_graph().SerializeToString())
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "--soc_version=Ascend910B3", "-o", tmp_path / "ta",
                        "--report"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if "[InplaceUpdate" in ln]
    assert rows and all((int(c[6]), int(c[7])) == (4 + D * 4, D * 4) for c in rows), rows

    from compiler.backend import memory_plan as mp
    from compiler.backend.offline_model import load_offline_model

    module = load_offline_model(str(tmp_path / "ta.om")).module
    (loop,) = [o for o in module.walk() if o.name == "kernel.while"]
    shared = mp.inplace_loop_variables(loop, mp.callees(loop))
    lay = mp.control_layout(loop)
    assert shared and all(lay.sets[0][k] == lay.sets[1][k] for k in shared)

    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((N, D)).astype(np.float32))
    r = subprocess.run([sys.executable, "-m", "tools.cann_run", tmp_path / "ta.om",
                        "--compare-with", pb, f"--input=x={tmp_path / 'x.npy'}", "--atol", "1e-5",
                        "--rtol", "1e-5"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout
