"""Shape gears end to end (tools/driver/gears.py, compiler/backend/gear_model.py):
cann-compile --dynamic_batch_size / --dynamic_image_size / --dynamic_dims writes one multi-gear
.om, cann-run picks the gear from the inputs' shapes (or from ascend_mbatch_shape_data) and each
gear matches TensorFlow; the weights are stored once; every bad value is one error line.

The models (tests/model_zoo/gear_models.py) are built here, frozen with `?` where the gears
apply.  Compiles and runs call the tools' main() in this process; the error tests run them as
subprocesses (exit code and stderr as a user sees them)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PBTXT = os.path.join(ROOT, "examples", "conv_block.pbtxt")
BATCHES = (1, 2, 4, 8)


def _tool(name: str, capsys, *args) -> tuple[int, str, str]:
    import importlib

    rc = importlib.import_module(f"tools.{name}").main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _run(tool, *args):
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)


def _one_error(r, *texts):
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    for text in texts:
        assert text in r.stderr, r.stderr


def _npy(path, shape, seed=0):
    np.save(path, np.random.default_rng(seed).standard_normal(shape).astype(np.float32))
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    from tests.model_zoo.gear_models import cnn_graphdef, encoder_graphdef

    d = tmp_path_factory.mktemp("gear_models")
    return {"cnn": cnn_graphdef(str(d / "cnn.pb")), "encoder": encoder_graphdef(str(d / "enc.pb"))}


@pytest.fixture(scope="module")
def batch_om(models, tmp_path_factory):
    """The CNN with 4 batch gears, and the same CNN compiled static (batch 1)."""
    from tools.cann_compile import main

    d = tmp_path_factory.mktemp("batch_gears")
    om, static = str(d / "cnn_gears.om"), str(d / "cnn_static.om")
    assert main([f"--model={models['cnn']}", "-o", om, "--input_shape=x:-1,32,32,3",
                 "--dynamic_batch_size=" + ",".join(map(str, BATCHES))]) == 0
    assert main([f"--model={models['cnn']}", "-o", static, "--input_shape=x:1,32,32,3"]) == 0
    return om, static


@pytest.mark.parametrize("batch", BATCHES)
def test_batch_gear_matches_tensorflow(batch_om, models, tmp_path, capsys, batch):
    x = _npy(tmp_path / "x.npy", (batch, 32, 32, 3), seed=batch)
    rc, out, err = _tool("cann_run", capsys, batch_om[0], "--input", f"x={x}",
                         "--compare-with", models["cnn"], "--atol", "1e-4")
    assert rc == 0, out + err
    assert out.count(" OK") == 1 and "FAIL" not in out, out


def test_weights_stored_once(batch_om):
    """4 gears in one .om: at most 1.1x one static .om, every gear's weights in one WEIGHTS."""
    from compiler.backend.offline_model import load_offline_model

    om, static = batch_om
    assert os.path.getsize(om) <= 1.1 * os.path.getsize(static), \
        (os.path.getsize(om), os.path.getsize(static))
    gears = load_offline_model(om).gears
    assert gears.header.weight_bytes == load_offline_model(static).header.weight_bytes
    assert gears.table["weight_bytes_all_gears"] >= 4 * gears.header.weight_bytes * 0.95


def test_mbatch_input_selects_the_gear(batch_om, tmp_path, capsys):
    x = _npy(tmp_path / "x.npy", (4, 32, 32, 3))
    mb = tmp_path / "mb.npy"
    np.save(mb, np.array([4], np.int64))
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    rc, out, err = _tool("cann_run", capsys, batch_om[0], "--input", f"x={x}",
                         "--input", f"ascend_mbatch_shape_data={mb}", "--output-dir", out_a)
    assert rc == 0, err
    rc, out, err = _tool("cann_run", capsys, batch_om[0], "--input", f"x={x}", "--output-dir", out_b)
    assert rc == 0, err
    (name,) = os.listdir(out_a)
    a, b = np.load(out_a / name), np.load(out_b / name)
    assert a.shape == (4, 10) and np.array_equal(a, b)


def test_shape_in_no_gear_is_one_error(batch_om, tmp_path):
    x = _npy(tmp_path / "x.npy", (3, 32, 32, 3))
    r = _run("cann_run", batch_om[0], "--input", f"x={x}")
    _one_error(r, "input 'x' has shape [3, 32, 32, 3], which matches no gear",
               "1,32,32,3 | 2,32,32,3 | 4,32,32,3 | 8,32,32,3", str(x))


def test_mbatch_value_of_no_gear_is_one_error(batch_om, tmp_path):
    mb = tmp_path / "mb.npy"
    np.save(mb, np.array([3], np.int64))
    r = _run("cann_run", batch_om[0], "--input", f"ascend_mbatch_shape_data={mb}")
    _one_error(r, "input 'ascend_mbatch_shape_data' = [3] is no gear", "the gears are 1; 2; 4; 8")


def test_mode6_and_mode1_show_the_gears(batch_om, tmp_path, capsys):
    import json

    rc, out, err = _tool("cann_compile", capsys, "--mode=6", f"--om={batch_om[0]}")
    assert rc == 0, err
    assert 'gears: 4 (--dynamic_batch_size="1,2,4,8"' in out
    assert "  gear 3: [8] x:8,32,32,3 " in out
    assert "[0] x: -1x32x32x3 float32" in out and "[1] ascend_mbatch_shape_data: 1 int64" in out
    js = tmp_path / "m.json"
    rc, out, err = _tool("cann_compile", capsys, "--mode=1", f"--om={batch_om[0]}", f"--json={js}")
    assert rc == 0, err
    data = json.loads(js.read_text())
    assert data["gears"]["gears"] == [[b] for b in BATCHES]
    assert [m["inputs"][0]["shape"][0] for m in data["gears"]["models"]] == list(BATCHES)


def test_image_size_gears_match_tensorflow(models, tmp_path, capsys):
    om = tmp_path / "cnn_hw.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={models['cnn']}", "-o", om,
                         "--input_shape=x:1,-1,-1,3", "--dynamic_image_size=16,16;24,32;40,40")
    assert rc == 0, err
    assert "3 gears (--dynamic_image_size=16,16;24,32;40,40)" in out
    for h, w in ((16, 16), (24, 32), (40, 40)):
        x = _npy(tmp_path / f"x{h}.npy", (1, h, w, 3), seed=h)
        rc, out, err = _tool("cann_run", capsys, om, "--input", f"x={x}",
                             "--compare-with", models["cnn"], "--atol", "1e-4")
        assert rc == 0 and " OK" in out, out + err


SEQS = (8, 16, 24, 32)


@pytest.fixture(scope="module")
def seq_om(models, tmp_path_factory):
    """The encoder with 4 sequence-length gears (--dynamic_dims), and static at gear 0's shape."""
    from tools.cann_compile import main

    d = tmp_path_factory.mktemp("seq_gears")
    om, static = str(d / "enc_gears.om"), str(d / "enc_static.om")
    assert main([f"--model={models['encoder']}", "-o", om, "--input_shape=x:2,-1,64",
                 "--input_format=ND", "--dynamic_dims=" + ";".join(map(str, SEQS))]) == 0
    assert main([f"--model={models['encoder']}", "-o", static, "--input_shape=x:2,8,64",
                 "--input_format=ND"]) == 0
    return om, static


@pytest.mark.parametrize("seq", SEQS)
def test_encoder_sequence_gear_matches_tensorflow(seq_om, models, tmp_path, capsys, seq):
    x = _npy(tmp_path / "x.npy", (2, seq, 64), seed=seq)
    rc, out, err = _tool("cann_run", capsys, seq_om[0], "--input", f"x={x}",
                         "--compare-with", models["encoder"], "--atol", "1e-4")
    assert rc == 0 and out.count(" OK") == 1 and "FAIL" not in out, out + err


def test_encoder_gears_om_at_most_1_1x_static(seq_om):
    """The encoder's kernel IR is of the size of its weights: the per-gear sections are zlib
    streams, so 4 gears still fit in 1.1x one static .om."""
    om, static = seq_om
    assert os.path.getsize(om) <= 1.1 * os.path.getsize(static), \
        (os.path.getsize(om), os.path.getsize(static))


def test_encoder_batch_gears_match_tensorflow(models, tmp_path, capsys):
    om = tmp_path / "enc_b.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={models['encoder']}", "-o", om,
                         "--input_shape=x:-1,16,64", "--dynamic_batch_size=1,2,4,8")
    assert rc == 0, err
    for b in (1, 8):
        x = _npy(tmp_path / f"x{b}.npy", (b, 16, 64), seed=b)
        rc, out, err = _tool("cann_run", capsys, om, "--input", f"x={x}",
                             "--compare-with", models["encoder"], "--atol", "1e-4")
        assert rc == 0 and " OK" in out, out + err


def test_dynamic_dims_fill_the_minus_ones_in_order():
    from tools.driver.gears import GearSpec

    spec = GearSpec("dynamic_dims", "20,20,1,1;40,40,2,2",
                    {"data": [1, 1, 40, -1], "label": [1, -1], "mask": [-1, -1]},
                    ((20, 20, 1, 1), (40, 40, 2, 2)))
    # ATC's example: gear 0 is data(1,1,40,20) + label(1,20) + mask(1,1)
    assert spec.shapes(0) == {"data": [1, 1, 40, 20], "label": [1, 20], "mask": [1, 1]}
    assert spec.shapes(1) == {"data": [1, 1, 40, 40], "label": [1, 40], "mask": [2, 2]}


def test_single_gear_om_is_still_version_1(batch_om):
    from compiler.backend import offline_model as om

    with open(batch_om[1], "rb") as f:
        assert om.parse_header(f.read(), batch_om[1]).version == om.FORMAT_VERSION
    assert om.load_offline_model(batch_om[1]).gears is None


# --- bad values: one line naming the option and the value, exit 1, no .om --------------------

MANY = ",".join(str(b) for b in range(1, 102))


@pytest.mark.parametrize("args, texts", [
    (["--input_shape=x:-1,8,8,3", "--dynamic_batch_size=4"],
     ["--dynamic_batch_size=4: 1 gear(s); ATC takes 2 to 100"]),
    (["--input_shape=x:-1,8,8,3", f"--dynamic_batch_size={MANY}"], ["101 gear(s); ATC takes 2 to 100"]),
    (["--input_shape=x:-1,8,8,3", "--dynamic_batch_size=1,x"],
     ["--dynamic_batch_size=1,x: 'x' is not a positive integer"]),
    (["--input_shape=x:-1,8,8,3", "--dynamic_batch_size=2,2"], ["gear '2' is given twice"]),
    (["--input_shape=x:-1,8,8,3", "--dynamic_batch_size=1,4096"], ["batch size 4096 is above ATC's limit 2048"]),
    (["--dynamic_batch_size=1,2"], ["--dynamic_batch_size=1,2: needs --input_shape"]),
    (["--input_shape=x:1,8,8,3", "--dynamic_batch_size=1,2"],
     ["--input_shape=x:1,8,8,3: no dimension is -1"]),
    (["--input_shape=x:1,-1,8,3", "--dynamic_batch_size=1,2"],
     ["--input_shape=x:1,-1,8,3: 'x' has -1 in dimension 1", "only in the first (batch)"]),
    (["--input_shape=x:1~4,8,8,3", "--dynamic_batch_size=1,2"], ["ATC forbids shape ranges with gears"]),
    (["--input_shape=x:1,-1,-1,3", "--dynamic_image_size=8,8;16"],
     ["--dynamic_image_size=8,8;16: gear '16' has 1 value(s); each gear is h,w"]),
    (["--input_shape=x:1,-1,-1,3", "--dynamic_image_size=8,8;;16,16"], ["an empty gear"]),
    (["--input_shape=x:1,-1,-1,3", "--dynamic_image_size=8,8;16,16", "--input_format=ND"],
     ["--dynamic_image_size=8,8;16,16: needs --input_format NCHW or NHWC, got ND"]),
    (["--input_shape=x:1,-1,-1,3", "--dynamic_image_size=8,8;16,16", "--input_format=NCHW"],
     ["'x': with --dynamic_image_size and NCHW, -1 stands at H and W (dimensions 2 and 3"]),
    (["--input_shape=x:1,8,-1,3", "--dynamic_image_size=8,8;16,16"], ["-1 stands at H and W"]),
    (["--input_shape=x:1,-1,8,3", "--dynamic_dims=4;8"], ["--dynamic_dims=4;8: needs --input_format=ND"]),
    (["--input_shape=x:1,-1,8,-1", "--dynamic_dims=4;8", "--input_format=ND"],
     ["gear '4' has 1 value(s); each gear is 2 value(s), one per -1 of --input_shape"]),
    (["--input_shape=x:-1,8,8,3", "--dynamic_batch_size=1,2", "--dynamic_dims=4;8"],
     ["--dynamic_batch_size and --dynamic_dims cannot be used together"]),
    (["--input_shape=x:-1,8,8,3"], ["--input_shape=x:-1,8,8,3: 'x:-1,8,8,3': dynamic dimension"]),
])
def test_gear_option_errors(tmp_path, args, texts):
    out = tmp_path / "m.om"
    r = _run("cann_compile", f"--model={PBTXT}", "-o", out, *args)
    _one_error(r, *texts)
    assert not out.exists()


def test_gear_the_model_rejects_names_the_gear(tmp_path):
    """A gear TensorFlow's shape inference rejects: the importer's line, with the gear."""
    out = tmp_path / "m.om"
    r = _run("cann_compile", f"--model={PBTXT}", "-o", out, "--input_shape=x:-1,8,8,5",
             "--dynamic_batch_size=1,2")
    _one_error(r, "(gear 0: x:1,8,8,5)")
    assert not out.exists()


# --- a damaged multi-gear .om (checksums valid): one line, exit 1 -----------------------------

def _resealed(src: str, dst, edit) -> str:
    """`src` rebuilt with its sections edited (`edit(list of [kind, gear, bytes])`), header and
    checksums recomputed, as a corrupted-but-sealed file would be."""
    from compiler.backend import offline_model as om

    data = open(src, "rb").read()
    h = om.parse_header(data, src)
    entries = []
    for i in range(h.sections):
        kind, gear, off, n = om._SECTION.unpack_from(data, om.HEADER_SIZE + i * om._SECTION.size)
        entries.append([kind, gear, data[off:off + n]])
    fields, payload = om.assemble([(k, g, [b]) for k, g, b in edit(entries)], h.name,
                                  h.op_count, h.platform, h.arena, h.weight_bytes, h.version)
    om.write_chunks(str(dst), fields, payload)
    return str(dst)


def _gear_table_edit(change):
    import json

    def edit(entries):
        for e in entries:
            if e[0] == 7:
                table = json.loads(e[2])
                change(table)
                e[2] = json.dumps(table).encode()
        return entries
    return edit


def _not_zlib(entries):
    for e in entries:
        if e[0] == 4 and e[1] == 1:  # gear 1's TILING
            e[2] = b"not a zlib stream"
    return entries


def _drop_model_def_2(entries):
    return [e for e in entries if not (e[0] == 1 and e[1] == 2)]


@pytest.mark.parametrize("edit, text", [
    (_not_zlib, "corrupted offline model: gear 1 TILING is not a zlib stream"),
    (_drop_model_def_2, "corrupted offline model: gear 2 has no MODEL_DEF section"),
    (_gear_table_edit(lambda t: t["launches"].__setitem__(0, t["launches"][0] + 1)),
     "corrupted offline model: the header's op count or arena disagrees with the gear table"),
    (_gear_table_edit(lambda t: t.__setitem__("gears", "many")), "corrupted offline model: GEARS.gears must be a list"),
])
def test_damaged_gear_model_is_one_error(batch_om, tmp_path, edit, text):
    bad = _resealed(batch_om[0], tmp_path / "bad.om", edit)
    r = _run("cann_run", bad)
    _one_error(r, f"{bad}: error: {text}")


def test_inflating_past_the_tensor_limit_is_one_error(batch_om, tmp_path):
    import zlib

    def bomb(entries):
        for e in entries:
            if e[0] == 1 and e[1] == 0:
                e[2] = zlib.compress(bytes(1 << 24), 9)
        return entries

    bad = _resealed(batch_om[0], tmp_path / "bomb.om", bomb)
    r = subprocess.run([sys.executable, "-m", "tools.cann_run", bad], capture_output=True,
                       text=True, cwd=ROOT, timeout=900,
                       env={**os.environ, "CANN_MAX_TENSOR_BYTES": str(1 << 20)})
    _one_error(r, "gear 0 MODEL_DEF inflates to more than 1048576 bytes")


def test_mode3_pre_checks_every_gear(tmp_path, capsys):
    import json

    report = tmp_path / "check.json"
    rc, out, err = _tool("cann_compile", capsys, "--mode=3", f"--model={PBTXT}",
                         "--input_shape=x:-1,8,8,5", "--dynamic_batch_size=1,2",
                         f"--check_report={report}")
    assert rc == 0, err
    result = json.loads(report.read_text())
    assert result["result"] == "failed" and result["gears"] == 2
    assert [(u["node"], u["gear"], u["gear_shape"]) for u in result["unsupported"]] == [
        ("conv1/Conv2D", 0, "x:1,8,8,5"), ("conv1/Conv2D", 1, "x:2,8,8,5")]


def test_report_and_pipeline_per_gear(tmp_path, capsys):
    om = tmp_path / "cb.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={PBTXT}", "-o", om, "--report",
                         "--print-pipeline", "--input_shape=x:-1,8,8,3", "--dynamic_batch_size=1,2")
    assert rc == 0, err
    assert out.startswith("tf-to-cann") and out.count("tf-to-cann") == 1, out
    assert "== gear 0: x:1,8,8,3" in out and "== gear 1: x:2,8,8,3" in out
    assert out.index("== gear 0") < out.index("== gear 1")


def test_one_cann_run_switches_gears(batch_om, models, tmp_path, capsys):
    """--input repeated: one run per value, each in the gear of its shape (as one loaded model
    on the device runs any gear)."""
    xs = [_npy(tmp_path / f"x{b}.npy", (b, 32, 32, 3), seed=b) for b in (8, 1, 4)]
    rc, out, err = _tool("cann_run", capsys, batch_om[0], *(a for x in xs for a in ("--input", f"x={x}")),
                         "--compare-with", models["cnn"], "--atol", "1e-4")
    assert rc == 0, out + err
    lines = out.strip().splitlines()
    assert [ln.split("]")[0] for ln in lines] == ["[gear 3: x:8,32,32,3", "[gear 0: x:1,32,32,3",
                                                   "[gear 2: x:4,32,32,3"], out
    assert all(ln.endswith(" OK") for ln in lines), out


# --- AIPP with gears; NCHW image-size gears --------------------------------------------------

def _dyn_conv(tmp_path, data_format: str):
    """Conv2D(3 -> 4, 3x3, SAME) + BiasAdd + Relu frozen with x [?, ?, ?, 3] (NHWC) or
    [?, 3, ?, ?] (NCHW); also the TensorFlow reference on NHWC inputs (TensorFlow's CPU
    kernels take no NCHW Conv2D, so the NCHW reference transposes around the NHWC one)."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.2)
    b = tf.constant(rng.standard_normal(4).astype(np.float32))

    def nhwc(x):
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))

    spec = [None, None, None, 3] if data_format == "NHWC" else [None, 3, None, None]

    @tf.function(input_signature=[tf.TensorSpec(spec, tf.float32, name="x")])
    def f(x):
        if data_format == "NHWC":
            return nhwc(x)
        y = tf.nn.conv2d(x, w, 1, "SAME", data_format="NCHW")
        return tf.nn.relu(tf.nn.bias_add(y, b, data_format="NCHW"))

    gd = convert_variables_to_constants_v2(f.get_concrete_function()).graph.as_graph_def()
    tf.io.write_graph(gd, str(tmp_path), f"conv_{data_format}.pb", as_text=False)
    return str(tmp_path / f"conv_{data_format}.pb"), lambda x: nhwc(tf.constant(x)).numpy()


NORMALIZE_CFG = """aipp_op { aipp_mode: static related_input_rank: 0 input_format: RGB888_U8
  rbuv_swap_switch: true mean_chn_0: 120 mean_chn_1: 110 mean_chn_2: 100
  var_reci_chn_0: 0.017 var_reci_chn_1: 0.0175 var_reci_chn_2: 0.0174 }
"""
CROP_CFG = """aipp_op { aipp_mode: static related_input_rank: 0 input_format: RGB888_U8
  src_image_size_w: 12 src_image_size_h: 10
  crop: true load_start_pos_w: 3 load_start_pos_h: 1 crop_size_w: 8 crop_size_h: 8
  mean_chn_0: 120 mean_chn_1: 110 mean_chn_2: 100 }
"""


def _images(tmp_path, shapes):
    paths = []
    for k, s in enumerate(shapes):
        p = tmp_path / f"img{k}.npy"
        np.save(p, np.random.default_rng(k).integers(0, 256, s).astype(np.uint8))
        paths.append(p)
    return paths


def _gear_runs(capsys, om, pb, paths, n):
    argv = [om]
    for p in paths:
        argv += ["--input", f"x={p}"]
    rc, out, err = _tool("cann_run", capsys, *argv, "--compare-with", pb, "--atol", "1e-4")
    runs = [ln for ln in out.splitlines() if ln.startswith("[gear")]
    assert rc == 0 and len(runs) == n and all(ln.endswith(" OK") for ln in runs), out + err
    return runs


def test_aipp_with_batch_gears_matches_tensorflow(tmp_path, capsys):
    """--insert_op_conf (crop 10x12 -> 8x8, normalization) + --dynamic_batch_size: each gear's
    input is the raw uint8 image of its batch; cann-run picks the gear from the image's shape
    and --compare-with gives TensorFlow the image preprocessed as the AIPP says."""
    pb, _ = _dyn_conv(tmp_path, "NHWC")
    cfg = tmp_path / "crop.cfg"
    cfg.write_text(CROP_CFG)
    om = tmp_path / "aipp_b.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={pb}", "-o", om,
                         "--input_shape=x:-1,8,8,3", "--dynamic_batch_size=1,2,4",
                         f"--insert_op_conf={cfg}")
    assert rc == 0, err
    runs = _gear_runs(capsys, om, pb, _images(tmp_path, [(2, 10, 12, 3), (1, 10, 12, 3),
                                                         (4, 10, 12, 3)]), 3)
    assert [ln.split("]")[0] for ln in runs] == [
        "[gear 1: x:2,10,12,3", "[gear 0: x:1,10,12,3", "[gear 2: x:4,10,12,3"]
    rc, out, err = _tool("cann_compile", capsys, "--mode=6", f"--om={om}")
    assert rc == 0, err
    assert "  gear 2: [4] x:4,10,12,3 (" in out and "  [0] x: -1x10x12x3 uint8" in out, out


def test_aipp_with_image_size_gears_matches_tensorflow(tmp_path, capsys):
    """Without crop and padding (ATC's rule) the AIPP takes each gear's H x W image."""
    pb, _ = _dyn_conv(tmp_path, "NHWC")
    cfg = tmp_path / "norm.cfg"
    cfg.write_text(NORMALIZE_CFG)
    om = tmp_path / "aipp_hw.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={pb}", "-o", om,
                         "--input_shape=x:1,-1,-1,3", "--dynamic_image_size=8,8;12,16",
                         f"--insert_op_conf={cfg}")
    assert rc == 0, err
    runs = _gear_runs(capsys, om, pb, _images(tmp_path, [(1, 12, 16, 3), (1, 8, 8, 3)]), 2)
    assert [ln.split("]")[0] for ln in runs] == ["[gear 1: x:1,12,16,3", "[gear 0: x:1,8,8,3"]


@pytest.mark.parametrize("cfg,gear,text", [
    (CROP_CFG, "--dynamic_image_size=8,8;12,16",
     ":3: error: --insert_op_conf: crop: true cannot be used with --dynamic_image_size (ATC: "
     "the image is each gear's H x W)"),
    (NORMALIZE_CFG.replace("RGB888_U8", "RGB888_U8 src_image_size_w: 16"),
     "--dynamic_image_size=8,8;12,16",
     ":1: error: --insert_op_conf: src_image_size_w: 16 must be 0 with --dynamic_image_size"),
    (NORMALIZE_CFG, "--dynamic_dims=8,8;12,16",
     "--dynamic_dims and --insert_op_conf cannot be used together (ATC forbids it)"),
])
def test_aipp_with_gears_bad_combinations_are_one_error(tmp_path, cfg, gear, text):
    path = tmp_path / "a.cfg"
    path.write_text(cfg)
    out = tmp_path / "m.om"
    fmt = ["--input_format=ND"] if "dims" in gear else []
    r = _run("cann_compile", f"--model={PBTXT}", "-o", out, "--input_shape=x:1,-1,-1,3", gear,
             f"--insert_op_conf={path}", *fmt)
    _one_error(r, text)
    assert not out.exists()


def test_nchw_image_size_gears_match_tensorflow(tmp_path, capsys):
    """A model whose input is NCHW, --input_format=NCHW --dynamic_image_size: -1 at dimensions
    2 and 3; each gear's outputs match TensorFlow (on the NHWC transposes)."""
    pb, reference = _dyn_conv(tmp_path, "NCHW")
    om = tmp_path / "nchw.om"
    rc, out, err = _tool("cann_compile", capsys, f"--model={pb}", "-o", om, "--input_format=NCHW",
                         "--input_shape=x:2,3,-1,-1", "--dynamic_image_size=8,8;12,16;5,7")
    assert rc == 0, err
    assert "gear 1 (ascend_mbatch_shape_data = [12,16]) x:2,3,12,16" in out
    argv, xs = [om], []
    for k, (h, w) in enumerate(((12, 16), (8, 8), (5, 7))):
        xs.append(_npy(tmp_path / f"x{k}.npy", (2, 3, h, w), seed=k))
        argv += ["--input", f"x={xs[-1]}"]
    rc, out, err = _tool("cann_run", capsys, *argv, "--output-dir", tmp_path / "out")
    assert rc == 0, err
    assert [ln.split("]")[0] for ln in out.splitlines() if ln.startswith("[")] == [
        "[gear 1: x:2,3,12,16", "[gear 0: x:2,3,8,8", "[gear 2: x:2,3,5,7"]
    outs = sorted(os.listdir(tmp_path / "out"))
    assert len(outs) == 3, outs
    for k, x in enumerate(xs):
        (name,) = [n for n in outs if f"_run{k}" in n]
        got = np.load(tmp_path / "out" / name)
        want = reference(np.load(x).transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(got, want, atol=1e-4, rtol=0)
