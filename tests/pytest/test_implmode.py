"""cann-compile --op_select_implmode / --optypelist_for_implmode (compiler/conversions/cann_to_kernel/implmode.py):
the kernels differ as the mode says, and the numeric error of each mode is measured.

- GELU (exact, GeluErf): high_performance computes the tanh approximation, high_precision the
  erf form; measured against TensorFlow's exact gelu on a small dense + GELU model.
- fp16 softmax rows: high_precision computes each tile in float32, high_performance in float16;
  measured against a float64 softmax of the same fp16 logits."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_cann_compile import _run, compile_, run_

RNG = np.random.default_rng(7)


def _gelu_model(path) -> None:
    """x[8, 32] -> MatMul -> tf.nn.gelu(approximate=False) -> 'out' (one cube kernel, GELU in
    its epilogue)."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [8, 32], name="x")
        w = tf.constant((RNG.standard_normal([32, 64]) * 0.5).astype(np.float32))
        tf.identity(tf.nn.gelu(tf.matmul(x, w), approximate=False), name="out")
    path.write_text(str(g.as_graph_def()))


def _softmax16_model(path) -> None:
    """x[16, 1024] float16 -> softmax over the last axis -> 'out'."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float16, [16, 1024], name="x")
        tf.nn.softmax(x, name="out")
    path.write_text(str(g.as_graph_def()))


def _tf_out(pbtxt, x: np.ndarray) -> np.ndarray:
    import tensorflow as tf
    from google.protobuf import text_format

    gd = text_format.Parse(open(pbtxt).read(), tf.compat.v1.GraphDef())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        with tf.compat.v1.Session(graph=g) as s:
            return s.run("out:0", {"x:0": x})


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("implmode")
    _gelu_model(d / "gelu.pbtxt")
    _softmax16_model(d / "softmax16.pbtxt")
    np.save(d / "xg.npy", RNG.uniform(-3, 3, [8, 32]).astype(np.float32))
    np.save(d / "xs.npy", RNG.uniform(-8, 8, [16, 1024]).astype(np.float16))
    return d


@pytest.fixture(scope="module")
def oms(models):
    """model -> mode -> the .om compiled with --op_select_implmode=mode ("" = no option)."""
    out = {}
    for model in ("gelu", "softmax16"):
        for mode in ("", "high_precision", "high_performance"):
            om = models / f"{model}_{mode or 'default'}"
            opt = [f"--op_select_implmode={mode}"] if mode else []
            r = _run("cann_compile", f"--model={models / model}.pbtxt", "--framework=3",
                     f"--output={om}", *opt)
            assert r.returncode == 0, r.stderr
            out[model, mode] = f"{om}.om"
    return out


def vec_fns(om: str) -> set[tuple[str, str]]:
    """(fn, element type) of every kernel.vec of an .om's kernel bodies."""
    from compiler.backend.offline_model import load_offline_model
    from dialects import kernel

    return {(o.fn.data, str(o.result.type.element_type))
            for o in load_offline_model(om).module.walk() if isinstance(o, kernel.VecOp)}


def run_om(capsys, om: str, x_npy, tmp_path) -> np.ndarray:
    rc, _, err = run_(capsys, om, "--input", f"x={x_npy}", "--output-dir", tmp_path)
    assert rc == 0, err
    return np.load(tmp_path / "out.npy")


# --- the kernels chosen --------------------------------------------------------------------------

def test_high_performance_gelu_is_the_tanh_form(oms):
    fns = {f for f, _ in vec_fns(oms["gelu", "high_performance"])}
    assert "act:Gelu" in fns and "act:GeluErf" not in fns, fns


def test_high_precision_gelu_is_the_erf_form(oms):
    fns = {f for f, _ in vec_fns(oms["gelu", "high_precision"])}
    assert "act:GeluErf" in fns and "act:Gelu" not in fns, fns


def test_default_gelu_is_the_erf_form(oms):
    assert vec_fns(oms["gelu", ""]) == vec_fns(oms["gelu", "high_precision"])


def test_optypelist_keeps_unlisted_types_at_their_default(models, tmp_path, capsys):
    om = tmp_path / "listed"
    rc, _, err = compile_(capsys, f"--model={models / 'gelu.pbtxt'}", "--framework=3",
                          f"--output={om}", "--op_select_implmode=high_performance",
                          "--optypelist_for_implmode=SoftmaxV2,LayerNorm")
    assert rc == 0, err
    assert "act:GeluErf" in {f for f, _ in vec_fns(f"{om}.om")}


def test_optypelist_naming_gelu_takes_the_mode(models, tmp_path, capsys):
    om = tmp_path / "listed_gelu"
    rc, _, err = compile_(capsys, f"--model={models / 'gelu.pbtxt'}", "--framework=3",
                          f"--output={om}", "--op_select_implmode=high_performance",
                          "--optypelist_for_implmode=Gelu")
    assert rc == 0, err
    assert "act:Gelu" in {f for f, _ in vec_fns(f"{om}.om")}


def test_high_precision_fp16_softmax_computes_in_fp32(oms):
    fns = vec_fns(oms["softmax16", "high_precision"])
    assert {("RowMax", "f32"), ("Exp", "f32"), ("RowSum", "f32"), ("RealDiv", "f32"),
            ("Cast", "f32"), ("Cast", "f16")} <= fns, fns


def test_high_performance_fp16_softmax_computes_in_fp16(oms):
    fns = vec_fns(oms["softmax16", "high_performance"])
    assert {t for _, t in fns} == {"f16"}, fns


def test_print_pipeline_names_the_mode(models, tmp_path, capsys):
    rc, out, err = compile_(capsys, f"--model={models / 'gelu.pbtxt'}", "--framework=3",
                            f"--output={tmp_path / 'printed'}", "--op_select_implmode=high_performance",
                            "--optypelist_for_implmode=GeluErf", "--print-pipeline")
    assert rc == 0, err
    assert 'cann-to-kernel{soc_version="Ascend910B3" implmode="high_performance" ' \
           'implmode_ops="GeluErf"}' in out, out


# --- numerics, measured ----------------------------------------------------------------------

def _gelu_error(oms, models, capsys, tmp_path, mode) -> float:
    x = np.load(models / "xg.npy")
    y = run_om(capsys, oms["gelu", mode], models / "xg.npy", tmp_path)
    err = float(np.abs(y - _tf_out(models / "gelu.pbtxt", x)).max())
    with capsys.disabled():
        print(f"GELU {mode}: max abs error vs TensorFlow {err:.3g}")
    return err


def test_high_precision_gelu_matches_tensorflow(oms, models, capsys, tmp_path):
    assert _gelu_error(oms, models, capsys, tmp_path, "high_precision") < 1e-5


def test_high_performance_gelu_error_is_the_tanh_approximation(oms, models, capsys, tmp_path):
    """The tanh form differs from the exact GELU by up to ~5e-4 on these values (|x| < ~5)."""
    err = _gelu_error(oms, models, capsys, tmp_path, "high_performance")
    assert 1e-4 < err < 1e-3, err


def _softmax_error(oms, models, capsys, tmp_path, mode) -> float:
    x = np.load(models / "xs.npy").astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    ref = e / e.sum(axis=-1, keepdims=True)
    y = run_om(capsys, oms["softmax16", mode], models / "xs.npy", tmp_path).astype(np.float64)
    return float((np.abs(y - ref) / np.maximum(ref, 1e-4)).max())


def test_high_precision_fp16_softmax_is_more_accurate(oms, models, capsys, tmp_path):
    errs = {}
    for mode in ("high_precision", "high_performance"):
        (tmp_path / mode).mkdir()
        errs[mode] = _softmax_error(oms, models, capsys, tmp_path / mode, mode)
    with capsys.disabled():
        print(f"fp16 softmax, max relative error vs float64: {errs}")
    assert errs["high_precision"] < errs["high_performance"], errs


# --- bad values --------------------------------------------------------------------------------

@pytest.mark.parametrize("args, text", [
    (["--op_select_implmode=fastest"], "--op_select_implmode=fastest: not one of"),
    (["--optypelist_for_implmode=GeluErf"], "--optypelist_for_implmode=GeluErf: needs "
                                            "--op_select_implmode"),
    (["--op_select_implmode=high_precision", "--optypelist_for_implmode=Softmax,Gelux"],
     "'Softmax' is not an Ascend IR op type"),
])
def test_bad_implmode_values(models, tmp_path, args, text):
    r = _run("cann_compile", f"--model={models / 'gelu.pbtxt'}", "--framework=3",
             f"--output={tmp_path / 'bad'}", *args)
    assert r.returncode == 1 and text in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "bad.om")
