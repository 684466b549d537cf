"""Issue 13 item 4: the While loops Keras emits for LSTM and GRU layers are recomposed into
CANN's DynamicRNN / DynamicGRUV2 (compiler/transforms/recurrent.py) and lowered as one kernel
per layer whose body loops over the time steps (compiler/conversions/cann_to_kernel/recurrent.py).
`cann-compile --report` lists one cube kernel per recurrent layer and no host-side while; the
numbers against TensorFlow are tests/pytest/test_control_flow_zoo.py's (cann-run
--compare-with at atol 1e-5).  A SimpleRNN (no CANN operator computes it) is this project's
own TanhRNN, one kernel too; a cell no operator computes (a sigmoid SimpleRNN) stays a loop."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.model_zoo.control_flow import control_flow_graphdef

ROOT = Path(__file__).resolve().parents[2]


def _compile_report(name: str, out: Path) -> list[str]:
    """The report's lines of `cann-compile --report` on the zoo model."""
    pb = control_flow_graphdef(name)
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "--soc_version=Ascend910B3", "-o", out / name,
                        "--report"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def _kernels(lines: list[str]) -> list[tuple[str, str]]:
    """(kernel, kind) per report row: kind is the bracketed note's first word; a packed launch's
    row gives its members ("packed: cube DynamicRNN 'name' on 1 cube cores | ...")."""
    out = []
    for ln in lines:
        if not re.match(r"\s+\d+ ", ln):
            continue
        if ln.split()[1] == "pack":
            out += re.findall(r"(cube|vec_kernel|transdata) (\w+) '", ln)
            continue
        m = re.search(r"\[(\w+)", ln)
        out.append((ln.split()[1], m.group(1) if m else ""))
    return out


@pytest.mark.modelzoo
@pytest.mark.parametrize("name, layers", [
    ("LstmGruTextClassifier", {"DynamicRNN": 1, "DynamicGRUV2": 1}),
    ("BidirectionalLstm", {"DynamicRNN": 4}),  # 2 Bidirectional layers x 2 directions
    ("GruResetBefore", {"DynamicGRUV2": 2}),   # reset_after=False
    ("LstmReturnState", {"DynamicRNN": 1}),    # the final c too: no second kernel
    ("MaskedLstm", {"DynamicRNN": 1}),         # Embedding(mask_zero) -> seq_length
])
def test_each_recurrent_layer_is_one_launch(name, layers, tmp_path):
    ks = _kernels(_compile_report(name, tmp_path))
    got = {kind: sum(1 for k, kd in ks if k == "cube" and kd == kind) for kind in layers}
    assert got == layers
    assert not [k for k, _ in ks if k == "while"]


@pytest.mark.modelzoo
def test_backward_layers_leave_no_reversal(tmp_path):
    """Bidirectional's backward LSTMs run REDIRECTIONAL on the unreversed sequence: no GatherV2D
    of a reversed index vector (a legalized ReverseV2) is left at the fused level."""
    pb = control_flow_graphdef("BidirectionalLstm")
    out = tmp_path / "fused.mlir"
    r = subprocess.run([sys.executable, "-m", "tools.cann_opt", "--to-level", "fused", pb, "-o",
                        out], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.count('direction = "REDIRECTIONAL"') == 2
    assert "dense<[5, 4, 3, 2, 1, 0]>" not in text


@pytest.fixture(scope="module")
def sigmoid_rnn_report(tmp_path_factory):
    return _compile_report("SigmoidRnn", tmp_path_factory.mktemp("sigrnn"))


@pytest.mark.modelzoo
def test_simple_rnn_is_one_kernel_of_its_own(tmp_path):
    """SimpleRNN (tanh): this project's TanhRNN, one cube kernel of kind SimpleRNN, no loop."""
    ks = _kernels(_compile_report("SimpleRnn", tmp_path))
    assert [kd for k, kd in ks if k == "cube"] == ["SimpleRNN"]
    assert not [k for k, _ in ks if k == "while"]


@pytest.mark.modelzoo
def test_an_unknown_cell_stays_a_loop(sigmoid_rnn_report):
    ks = _kernels(sigmoid_rnn_report)
    assert [k for k, _ in ks if k == "while"] and not [
        kd for _, kd in ks if kd in ("DynamicRNN", "DynamicGRUV2", "SimpleRNN")]


@pytest.mark.modelzoo
def test_keras_rnn_loop_trip_count_comes_from_its_bound(sigmoid_rnn_report):
    """Keras's loop: time < 6 and counter < maximum_iterations (a loop variable starting at 6)."""
    assert any(re.search(r"simple_rnn_1\w*/while': trip count 6 known at compile time", ln)
               for ln in sigmoid_rnn_report)


def test_lstm_semantics_follow_the_gate_order():
    """DynamicRNN's "ifjo" weights are "ijfo" weights with the j and f column blocks swapped."""
    from compiler.interpreters.recurrent import lstm_cell

    rng = np.random.default_rng(0)
    x, h, c = (rng.standard_normal((2, n)).astype(np.float32) for n in (3, 4, 4))
    wx, wh = rng.standard_normal((3, 16)), rng.standard_normal((4, 16))
    b = rng.standard_normal(16)
    perm = np.r_[0:4, 8:12, 4:8, 12:16]
    a = lstm_cell(x, h, c, wx, wh, b, "ifjo")
    bb = lstm_cell(x, h, c, wx[:, perm], wh[:, perm], b[perm], "ijfo")
    np.testing.assert_allclose(a[0], bb[0], rtol=1e-6)
    np.testing.assert_allclose(a[1], bb[1], rtol=1e-6)


@pytest.mark.modelzoo
def test_batched_wide_layers_match_tensorflow(tmp_path):
    """Batch 3 and 130 units (input 130 wide): the kernel's column chunks of H, K chunks of I and
    the h_{t-1} chunks all take more than one tile; LSTM then GRU, through cann-compile and
    cann-run --compare-with at atol 1e-5."""
    from compiler.frontend.tf_loader import tensorflow
    from tests.model_zoo.zoo import Input, freeze

    keras = tensorflow().keras
    keras.utils.set_random_seed(3)
    x = keras.Input((4, 130), batch_size=3, name="x")
    h = keras.layers.LSTM(130, return_sequences=True)(x)
    h = keras.layers.GRU(20)(h)
    gd = freeze(keras.Model(x, h), 3, (Input("x", (3, 4, 130)),))
    pb = tmp_path / "wide.pb"
    pb.write_bytes(gd.SerializeToString())
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "--soc_version=Ascend910B3", "-o", tmp_path / "wide",
                        "--report"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    kinds = [k for _, k in _kernels(r.stdout.splitlines())]
    assert kinds.count("DynamicRNN") == 1 and kinds.count("DynamicGRUV2") == 1
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((3, 4, 130))
            .astype(np.float32))
    r = subprocess.run([sys.executable, "-m", "tools.cann_run", tmp_path / "wide.om",
                        "--compare-with", pb, f"--input=x={tmp_path / 'x.npy'}", "--atol", "1e-5",
                        "--rtol", "1e-5"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout


@pytest.mark.modelzoo
def test_masked_lstm_keeps_the_state_at_masked_steps(tmp_path):
    """Embedding(mask_zero=True) -> LSTM: ids 0 at the start, in the middle and at the end;
    DynamicRNN's seq_length keeps h and c there.  cann-compile + cann-run --compare-with at
    atol 1e-5."""
    pb = control_flow_graphdef("MaskedLstm")
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={pb}",
                        "--framework=3", "-o", tmp_path / "m"], capture_output=True, text=True,
                       cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "ids.npy", np.array([[0, 2, 0, 1, 2, 0]], np.int32))
    r = subprocess.run([sys.executable, "-m", "tools.cann_run", tmp_path / "m.om",
                        "--compare-with", pb, f"--input=ids={tmp_path / 'ids.npy'}", "--atol",
                        "1e-5", "--rtol", "1e-5"], capture_output=True, text=True, cwd=ROOT,
                       timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "max_abs=" in ln]
    assert lines and all(ln.endswith("OK") for ln in lines), r.stdout
