"""Static AIPP (cann-compile --insert_op_conf, compiler/frontend/aipp_config.py): end to end through
cann-compile and cann-run on a small conv model built here with TensorFlow, against TensorFlow
run on the same preprocessing written in numpy below (from ATC's documented formulas, not from
the compiler's code); and the bad-input lines of the config file."""

from __future__ import annotations

import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PBTXT = os.path.join(ROOT, "examples", "conv_block.pbtxt")  # input x [1, 8, 8, 3] (NHWC)


def _conv_model(tmp_path_factory, cin: int):
    """A frozen Conv2D(cin -> 4, 3x3, SAME) + BiasAdd + Relu GraphDef on x [1, 8, 8, cin] and a
    function running it with TensorFlow."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(0)
    w = tf.constant(rng.standard_normal((3, 3, cin, 4)).astype(np.float32) * 0.2)
    b = tf.constant(rng.standard_normal(4).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 8, 8, cin], tf.float32, name="x")])
    def f(x):
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))

    gd = convert_variables_to_constants_v2(f.get_concrete_function()).graph.as_graph_def()
    d = tmp_path_factory.mktemp("aipp")
    tf.io.write_graph(gd, str(d), "conv.pb", as_text=False)
    return str(d / "conv.pb"), lambda x: f(tf.constant(x)).numpy()


@pytest.fixture(scope="module")
def conv_model(tmp_path_factory):
    return _conv_model(tmp_path_factory, 3)


@pytest.fixture(scope="module")
def gray_conv_model(tmp_path_factory):
    return _conv_model(tmp_path_factory, 1)


def _compile(capsys, *args):
    from tools.cann_compile import main

    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _run_om(capsys, om, img_path, out_dir) -> np.ndarray:
    from tools.cann_run import main

    rc = main([str(om), "--input", f"x={img_path}", "--output-dir", str(out_dir)])
    out = capsys.readouterr()
    assert rc == 0, out.err
    (name,) = os.listdir(out_dir)
    return np.load(os.path.join(out_dir, name))


RGB_CFG = """\
# RGB888 with crop, channel swap and normalization
aipp_op {
  aipp_mode: static
  related_input_rank: 0
  input_format: RGB888_U8
  src_image_size_w: 12
  src_image_size_h: 10
  crop: true
  load_start_pos_w: 3
  load_start_pos_h: 1
  crop_size_w: 8
  crop_size_h: 8
  rbuv_swap_switch: true
  mean_chn_0: 120
  mean_chn_1: 110
  mean_chn_2: 100
  min_chn_0: 3.5
  min_chn_1: 1.25
  min_chn_2: 0.5
  var_reci_chn_0: 0.0171247538316637
  var_reci_chn_1: 0.0175070028011204
  var_reci_chn_2: 0.0174291938997821
}
"""

YUV_CFG = """\
aipp_op { aipp_mode: static related_input_rank: 0 input_format: YUV420SP_U8
  src_image_size_w: 12 src_image_size_h: 10
  crop: true load_start_pos_w: 2 load_start_pos_h: 4 crop_size_w: 6 crop_size_h: 6
  csc_switch: true rbuv_swap_switch: false
  matrix_r0c0: 256 matrix_r0c1: 0 matrix_r0c2: 359
  matrix_r1c0: 256 matrix_r1c1: -88 matrix_r1c2: -183
  matrix_r2c0: 256 matrix_r2c1: 454 matrix_r2c2: 0
  input_bias_0: 0 input_bias_1: 128 input_bias_2: 128
  mean_chn_0: 104 mean_chn_1: 117 mean_chn_2: 123
  var_reci_chn_0: 0.017 var_reci_chn_1: 0.0175 var_reci_chn_2: 0.0174
  padding: true left_padding_size: 1 right_padding_size: 1 top_padding_size: 1
  bottom_padding_size: 1 padding_value: 0.5 }
"""


def _compile_and_run(capsys, tmp_path, pb, cfg_text, img):
    cfg = tmp_path / "aipp.cfg"
    cfg.write_text(cfg_text)
    om = tmp_path / "m.om"
    rc, out, err = _compile(capsys, f"--model={pb}", "--framework=3", f"--output={om}",
                            f"--insert_op_conf={cfg}", "--print-pipeline", "--report")
    assert rc == 0, err
    assert f'insert-aipp{{config="{cfg}"}}' in out.splitlines()[0]
    img_path = tmp_path / "img.npy"
    np.save(img_path, img)
    # cann-run --compare-with gives TensorFlow the image preprocessed as the model's AIPP says
    from tools.cann_run import main

    rc = main([str(om), "--input", f"x={img_path}", "--compare-with", pb, "--atol", "1e-4"])
    res = capsys.readouterr()
    assert rc == 0 and res.out.strip().endswith("OK"), res.out + res.err
    return out, _run_om(capsys, om, img_path, tmp_path / "out")


def test_rgb888_crop_normalization_matches_tensorflow(capsys, tmp_path, conv_model):
    pb, tf_run = conv_model
    img = np.random.default_rng(1).integers(0, 256, (1, 10, 12, 3)).astype(np.uint8)
    report, got = _compile_and_run(capsys, tmp_path, pb, RGB_CFG, img)
    # ATC: rbuv_swap (R <-> B), then crop, then (p - mean - min) * var_reci per channel
    px = img[:, 1:9, 3:11, ::-1].astype(np.float32)
    x = (px - np.float32([120, 110, 100]) - np.float32([3.5, 1.25, 0.5])) * \
        np.float32([0.0171247538316637, 0.0175070028011204, 0.0174291938997821])
    np.testing.assert_allclose(got, tf_run(x), atol=1e-4, rtol=0)
    # the AIPP kernel is the first launch and writes NC1HWC0 for the conv, whose cube kernel
    # stores the output's origin layout: no TransData is left (without AIPP the input has one)
    rows = [ln.split() for ln in report.splitlines() if ln.strip()[:1].isdigit()]
    assert rows[0][1:3] == ["vec_kernel", "x/aipp"]
    assert [r[1] for r in rows].count("transdata") == 0


def test_yuv420sp_csc_normalization_padding_matches_tensorflow(capsys, tmp_path, conv_model):
    pb, tf_run = conv_model
    nv12 = np.random.default_rng(2).integers(0, 256, (1, 15, 12, 1)).astype(np.uint8)
    _, got = _compile_and_run(capsys, tmp_path, pb, YUV_CFG, nv12)
    # NV12: 10 rows of Y, then 5 rows of interleaved U, V (one pair per 2x2 block of pixels)
    img = nv12[0, :, :, 0]
    y = img[:10].astype(np.float32)
    u = np.repeat(np.repeat(img[10:, 0::2], 2, 0), 2, 1).astype(np.float32)
    v = np.repeat(np.repeat(img[10:, 1::2], 2, 0), 2, 1).astype(np.float32)
    yuv = np.stack([y, u, v], -1)[4:10, 2:8] - np.float32([0, 128, 128])  # crop, input_bias
    m = np.float32([[256, 0, 359], [256, -88, -183], [256, 454, 0]])
    rgb = np.floor(np.clip(yuv @ m.T / 256, 0, 255))  # >> 8, a uint8 pixel
    x = (rgb - np.float32([104, 117, 123])) * np.float32([0.017, 0.0175, 0.0174])
    x = np.pad(x, ((1, 1), (1, 1), (0, 0)), constant_values=0.5)[None].astype(np.float32)
    np.testing.assert_allclose(got, tf_run(x), atol=1e-4, rtol=0)


def test_force_fp16_aipp_writes_float16(capsys, tmp_path, conv_model):
    """Under --precision_mode=force_fp16 the AIPP kernel writes the conv's float16 input, as the
    device's AIPP does (ATC: "if the AIPP output is FP16, C0 = 16"): 8x8 pixels x 16 lanes x 2
    bytes; the result within the README's force_fp16 bound (5e-3 of max |TF|)."""
    pb, tf_run = conv_model
    cfg = tmp_path / "aipp.cfg"
    cfg.write_text(RGB_CFG)
    om = tmp_path / "m.om"
    rc, out, err = _compile(capsys, f"--model={pb}", f"--output={om}", f"--insert_op_conf={cfg}",
                            "--precision_mode=force_fp16", "--report")
    assert rc == 0, err
    first = next(ln.split() for ln in out.splitlines() if ln.strip()[:1].isdigit())
    assert first[1:3] == ["vec_kernel", "x/aipp"] and first[7] == str(8 * 8 * 16 * 2)
    img = np.random.default_rng(1).integers(0, 256, (1, 10, 12, 3)).astype(np.uint8)
    np.save(tmp_path / "img.npy", img)
    got = _run_om(capsys, om, tmp_path / "img.npy", tmp_path / "out")
    px = img[:, 1:9, 3:11, ::-1].astype(np.float32)
    x = (px - np.float32([120, 110, 100]) - np.float32([3.5, 1.25, 0.5])) * \
        np.float32([0.0171247538316637, 0.0175070028011204, 0.0174291938997821])
    ref = tf_run(x)
    assert np.abs(got - ref).max() / np.abs(ref).max() < 5e-3


def test_yuv400_normalization_matches_tensorflow(capsys, tmp_path, gray_conv_model):
    pb, tf_run = gray_conv_model
    cfg = ("aipp_op {\n aipp_mode: static\n input_format: YUV400_U8\n mean_chn_0: 100\n"
           " min_chn_0: 0.5\n var_reci_chn_0: 0.01\n}\n")  # src size 0: the model input's 8x8
    img = np.random.default_rng(3).integers(0, 256, (1, 8, 8, 1)).astype(np.uint8)
    _, got = _compile_and_run(capsys, tmp_path, pb, cfg, img)
    x = (img.astype(np.float32) - np.float32(100) - np.float32(0.5)) * np.float32(0.01)
    np.testing.assert_allclose(got, tf_run(x), atol=1e-4, rtol=0)


def test_print_pipeline_with_aipp_replays_with_cann_opt(capsys, tmp_path):
    """cann-compile --print-pipeline's spec (insert-aipp{config=...} included), replayed by
    cann-opt on the imported IR, gives the .om's kernel IR."""
    from xdsl.dialects.builtin import UnknownLoc

    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.ir_io import load_module, module_to_text
    from tools.cann_opt import main as opt
    from tools.cann_translate import main as translate

    cfg = tmp_path / "aipp.cfg"
    cfg.write_text("aipp_op { aipp_mode: static input_format: RGB888_U8 padding: true\n"
                   "  left_padding_size: 2 mean_chn_1: 7 }\n")  # an 8x6 image padded to 8x8
    om = tmp_path / "m.om"
    rc, out, err = _compile(capsys, f"--model={PBTXT}", f"--output={om}", f"--insert_op_conf={cfg}",
                            "--print-pipeline")
    assert rc == 0, err
    spec = out.splitlines()[0]
    assert spec.startswith(f'tf-to-cann,insert-aipp{{config="{cfg}"}},cann-cleanup,')
    tf_ir, k_ir = tmp_path / "m.tf.mlir", tmp_path / "k.mlir"
    assert translate(["--import-graphdef", PBTXT, "-o", str(tf_ir)]) == 0
    assert opt(["-p", spec, str(tf_ir), "-o", str(k_ir)]) == 0, capsys.readouterr().err
    replayed, compiled = load_module(str(k_ir))[0], load_offline_model(str(om)).module
    for m in (replayed, compiled):  # locations and the order of the module's attributes aside
        for op in m.walk():
            op.location = UnknownLoc()
        attrs = sorted(m.attributes.items())
        m.attributes.clear()
        m.attributes.update(attrs)
    assert module_to_text(replayed) == module_to_text(compiled)


def _one_error(rc, err, text):
    assert rc == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0] and "Traceback" not in err, err
    assert text in lines[0], err


BASE = ("aipp_op {\n  aipp_mode: static\n  input_format: RGB888_U8\n"
        "  src_image_size_w: 8\n  src_image_size_h: 8\n")


@pytest.mark.parametrize("text, expect", [
    (BASE + "  mean_chn_0: 300\n}\n", "aipp.cfg:6: error: --insert_op_conf: mean_chn_0: 300 is out of range [0, 255]"),
    (BASE + "  crop_size_q: 4\n}\n", "aipp.cfg:6: error: --insert_op_conf: unknown field 'crop_size_q'"),
    (BASE + "  csc_switch true\n}\n", "aipp.cfg:6: error: --insert_op_conf: expected ':' after csc_switch, got 'true'"),
    (BASE + "  related_input_rank: 1\n}\n", "aipp.cfg:6: error: --insert_op_conf: related_input_rank 1 names no input (the model has 1: x)"),
    ("aipp_op {\n  aipp_mode: static\n  input_format: XRGB8888_U8\n}\n",
     "aipp.cfg:3: error: --insert_op_conf: input_format: 'XRGB8888_U8' is not supported by this compiler"),
    ("aipp_op {\n  aipp_mode: dynamic\n  input_format: RGB888_U8\n}\n",
     "aipp.cfg:2: error: --insert_op_conf: aipp_mode: dynamic AIPP is not supported"),
    (BASE + "  crop: true\n  load_start_pos_w: 2\n  crop_size_w: 8\n}\n",
     "aipp.cfg:8: error: --insert_op_conf: load_start_pos_w 2 + crop_size_w 8 exceeds src_image_size_w 8"),
])
def test_bad_config_is_one_line(capsys, tmp_path, text, expect):
    cfg = tmp_path / "aipp.cfg"
    cfg.write_text(text)
    om = tmp_path / "m.om"
    rc, _, err = _compile(capsys, f"--model={PBTXT}", f"--output={om}", f"--insert_op_conf={cfg}")
    _one_error(rc, err, f"{cfg.parent}/{expect}")
    assert not om.exists()
