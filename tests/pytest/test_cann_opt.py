"""The cann-opt driver: pass flags, options, one-line errors, no output file on failure, and no
TensorFlow import for .mlir inputs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tools.cann_opt import main, split_pass_flags

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(REPO, "examples", "conv_block.tf.mlir")


def test_pass_flags_become_a_pipeline():
    rest, pipeline = split_pass_flags(
        ["--tf-to-cann", "in.mlir", "--fuse=disable=A,B", "--cann-to-kernel=soc-version=Ascend910A", "-o", "x"],
        ["tf-to-cann", "fuse", "cann-to-kernel"])
    assert rest == ["in.mlir", "-o", "x"]
    assert pipeline == ["tf-to-cann", "fuse{disable=A,B}", "cann-to-kernel{soc_version=Ascend910A}"]


def test_flag_and_p_forms_agree(capsys):
    assert main(["--tf-to-cann", "--fuse", EXAMPLE]) == 0
    flags = capsys.readouterr().out
    assert main(["-p", "tf-to-cann,fuse", EXAMPLE]) == 0
    assert capsys.readouterr().out == flags
    assert "cann.FusedConv2D" in flags


@pytest.mark.parametrize("args, message", [
    (["--no-such-pass", EXAMPLE], "cann-opt: error: unrecognized arguments: --no-such-pass"),
    (["-p", "nope", EXAMPLE], "Unrecognized passes: ['nope']"),
    (["--soc-version=Ascend999", EXAMPLE], "unknown soc version 'Ascend999'; known: Ascend910A"),
    (["/no/such/file.mlir"], "/no/such/file.mlir: error: no such file"),
])
def test_bad_invocations_are_one_line(args, message, capsys, tmp_path):
    out = tmp_path / "out.mlir"
    assert main([*args, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not out.exists()


def test_failing_pass_writes_no_output(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(
        "func.func @main(%x: tensor<1x8x8x3xf64>, %w: tensor<3x3x3x4xf64>) -> tensor<1x8x8x4xf64> {\n"
        "  %y = tf.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, padding = \"SAME\", data_format = \"NHWC\", "
        "dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf64>, tensor<3x3x3x4xf64>) -> tensor<1x8x8x4xf64>\n"
        "  func.return %y : tensor<1x8x8x4xf64>\n}\n")
    out = tmp_path / "out.mlir"
    out.write_text("previous contents\n")
    assert main(["--tf-to-cann", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Conv2D supports float16, float32, bfloat16; got float64" in err
    assert out.read_text() == "previous contents\n"  # untouched


def test_mlir_input_does_not_import_tensorflow():
    code = ("import sys; from tools.cann_opt import main; "
            f"rc = main(['--tf-to-cann', '--fuse', '--assign-layouts', '--cann-to-kernel', {EXAMPLE!r}, '-o', '/dev/null']); "
            "assert rc == 0; print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "False"
