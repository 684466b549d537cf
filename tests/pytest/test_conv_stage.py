"""A conv whose only reader is a conv is computed in that conv's L1 window (conv -> conv fusion:
compiler/transforms/fusion/conv_stage.py, compiler/conversions/cann_to_kernel/conv_stage.py):
one launch, checked through cann-compile and cann-run --compare-with TensorFlow."""

from __future__ import annotations

import json

import pytest

from tests.pytest.compare import compile_and_compare, freeze_to


def _freeze(tmp_path, name, build, shape=(16, 16, 8)):
    """The Keras model x -> build(k, x), frozen to `name`.pb."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input(shape, batch_size=1, name="x")
    k.utils.set_random_seed(5)
    return freeze_to(tmp_path, name, k.Model(inp, build(k, inp)))


def _report(tmp_path, om_pb, capsys) -> dict:
    from tests.pytest.compare import compile_om

    out = tmp_path / "report.json"
    compile_om(om_pb, tmp_path / "r.om", capsys, f"--report-json={out}")
    return json.loads(out.read_text())


def _launches(report: dict) -> int:
    return report["kernel_count"]


def _chain(p_kernel, p_stride, c_dilation, pool):
    def build(k, x):
        if pool:
            x = k.layers.MaxPooling2D(2)(x)
        y = k.layers.Conv2D(16, p_kernel, p_stride, padding="same", activation="relu",
                            name="producer")(x)
        return k.layers.Conv2D(16, 3, padding="same", dilation_rate=c_dilation, name="reader")(y)
    return build


@pytest.mark.parametrize("p_kernel, p_stride, c_dilation, pool", [
    (3, 1, 1, False),  # the U-Net pair: 3x3 -> 3x3
    (1, 2, 2, False),  # a strided 1x1 producer, a dilated reader (its halo 2 rows each side)
    (3, 1, 1, True),   # the producer's own x is a max pool on its A tiles
])
def test_conv_pair_is_one_launch(tmp_path, capsys, p_kernel, p_stride, c_dilation, pool):
    pb = _freeze(tmp_path, "pair", _chain(p_kernel, p_stride, c_dilation, pool))
    compile_and_compare(tmp_path, capsys, pb)
    report = _report(tmp_path, pb, capsys)
    # (a pool reading the model input keeps the input's TransData: a launch of its own)
    assert _launches(report) == (2 if pool else 1)
    (k,) = [k for k in report["kernels"] if k["unit"] == "cube"]
    assert "computed in L1 by the producer conv's GEMM" in k["note"]


def test_conv_read_twice_is_its_own_launch(tmp_path, capsys):
    """The producer's result is also a model output: two readers, two launches."""
    def build(k, x):
        y = k.layers.Conv2D(16, 3, padding="same", activation="relu")(x)
        return [k.layers.Conv2D(16, 3, padding="same")(y), y]
    pb = _freeze(tmp_path, "two", build)
    compile_and_compare(tmp_path, capsys, pb)
    report = _report(tmp_path, pb, capsys)
    assert _launches(report) == 2
    assert not any("producer conv" in k["note"] for k in report["kernels"])


def test_fusion_report_names_the_pair(tmp_path, capsys):
    from tools import cann_opt

    pb = _freeze(tmp_path, "pair", _chain(3, 1, 1, False))
    out = tmp_path / "fusion.json"
    assert cann_opt.main([pb, "--to-level=fused", f"--fusion-report={out}",
                          "-o", str(tmp_path / "f.mlir")]) == 0
    stages = json.loads(out.read_text())["auto_fusion"]["conv_stages"]
    (pair,) = stages  # "<model>/producer_1/convolution -> <model>/reader_1/convolution"
    assert [name.split("/")[1:] for name in pair.split(" -> ")] == \
        [["producer_1", "convolution"], ["reader_1", "convolution"]]


def test_switch_file_turns_it_off(tmp_path, capsys):
    """`ConvStageFusion:off` in the fusion switch file: the pair is two launches again."""
    pb = _freeze(tmp_path, "pair", _chain(3, 1, 1, False))
    cfg = tmp_path / "switch.cfg"
    cfg.write_text("ConvStageFusion:off\n")
    from tests.pytest.compare import compile_om

    out = tmp_path / "report.json"
    compile_om(pb, tmp_path / "off.om", capsys, f"--report-json={out}", f"--fusion_switch_file={cfg}")
    assert _launches(json.loads(out.read_text())) == 2
