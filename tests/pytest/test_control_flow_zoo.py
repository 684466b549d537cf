"""Issue 13: the control-flow zoo (tests/model_zoo/control_flow.py) through `cann-compile`
and `cann-run --compare-with` at atol 1e-5: the while+cond program in TF2 and TF1 form, nested
loops, a data-dependent trip count, tf.map_fn, a Keras LSTM+GRU text classifier, a
bidirectional LSTM and a SimpleRNN.  Set CANN_MODEL_ZOO to keep the built graphs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.model_zoo.control_flow import ZOO, control_flow_graphdef, control_flow_inputs

ROOT = Path(__file__).resolve().parents[2]


def _run(tool, *args):
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", list(ZOO))
def test_control_flow_model_compiles_and_matches_tensorflow(name, tmp_path):
    pb = control_flow_graphdef(name)
    r = _run("cann_compile", f"--model={pb}", "--framework=3", "-o", tmp_path / name, "--report")
    assert r.returncode == 0, r.stderr
    assert "kernel launches" in r.stdout
    feeds = []
    for k, v in control_flow_inputs(name).items():
        np.save(tmp_path / f"{k}.npy", v)
        feeds.append(f"--input={k}={tmp_path / k}.npy")
    r = _run("cann_run", tmp_path / f"{name}.om", "--compare-with", pb, *feeds,
             "--atol", "1e-5", "--rtol", "1e-5")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout
