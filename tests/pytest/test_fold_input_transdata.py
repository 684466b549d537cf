"""A TransData from the row-major graph input (NHWC -> NC1HWC0, ND -> FRACTAL_NZ) folds into the
GM -> L1 loads of the cube kernel reading it (compiler/conversions/cann_to_kernel/data_movement.py
FoldInputTransData: the converting DMA, `from_origin` loads): compiled by cann-compile, the .om
has no kernel.transdata, the cube kernel reads the function argument itself, and cann-run
--compare-with matches TensorFlow (any channel count: the DMA pads the channels with zeros)."""

from __future__ import annotations

import pytest

from tests.pytest.kernel_harness import om_matches_tf


def _compile(tmp_path, capsys, model, *flags: str):
    from tests.model_zoo.zoo import freeze
    from tools import cann_compile

    pb, om = tmp_path / "model.pb", tmp_path / "model.om"
    pb.write_bytes(freeze(model).SerializeToString())
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}", *flags])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return pb, om, out.err


def _module(om):
    from compiler.backend.offline_model import load_offline_model

    return load_offline_model(str(om)).module


def _check(tmp_path, capsys, model, head_kind: str) -> None:
    from xdsl.dialects.func import FuncOp

    from dialects import kernel

    pb, om, _ = _compile(tmp_path, capsys, model)
    module = _module(om)
    assert not [o for o in module.walk() if isinstance(o, kernel.TransDataOp)]
    main = next(o for o in module.walk() if isinstance(o, FuncOp) and o.sym_name.data == "main")
    cube = [k for k in module.walk() if isinstance(k, kernel.CubeKernelOp) and k.kind.data == head_kind]
    assert len(cube) == 1 and cube[0].inputs[0] is main.args[0]
    arg = cube[0].body.block.args[0]
    assert {u.operation.view.data for u in arg.uses} == {kernel.LoadView.from_origin}
    om_matches_tf(tmp_path, capsys, model, om, pb)


@pytest.mark.parametrize("channels", [1, 3, 4, 17])
def test_conv_input_is_converted_by_the_cube_loads(tmp_path, capsys, channels):
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, channels), batch_size=1)
    y = k.layers.Conv2D(21, 3, activation="relu")(inp)
    _check(tmp_path, capsys, k.Model(inp, y), "Conv2D")


def test_strided_padded_conv_input_is_converted_by_the_cube_loads(tmp_path, capsys):
    """A stem conv (stride 2, SAME pads): its L1 windows of input rows overlap and start at
    negative rows; each converts its own rows."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((17, 15, 3), batch_size=1)
    h = k.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
    y = k.layers.Conv2D(8, 1)(h)
    pb, om, _ = _compile(tmp_path, capsys, k.Model(inp, y))
    from dialects import kernel

    assert not [o for o in _module(om).walk() if isinstance(o, kernel.TransDataOp)]
    om_matches_tf(tmp_path, capsys, k.Model(inp, y), om, pb)


def test_dense_input_is_converted_by_the_matmul_loads(tmp_path, capsys):
    """ND -> FRACTAL_NZ: the matmul's A rows (M = 1 of a 16-row block, K = 37 of 48)."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((37,), batch_size=1)
    _check(tmp_path, capsys, k.Model(inp, k.layers.Dense(19, activation="relu")(inp)), "MatMulV2")


def test_fp16_conv_reads_the_cast_input_by_its_loads(tmp_path, capsys):
    """--precision_mode=force_fp16: the input's Cast to float16 stays a vector kernel, and the
    conv's loads convert its NHWC result."""
    from dialects import kernel
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, 3), batch_size=1)
    _, om, _ = _compile(tmp_path, capsys, k.Model(inp, k.layers.Conv2D(8, 3)(inp)),
                        "--precision_mode=force_fp16")
    module = _module(om)
    assert not [o for o in module.walk() if isinstance(o, kernel.TransDataOp)]
    views = [o.view.data for o in module.walk() if isinstance(o, kernel.LoadOp)]
    assert views.count(kernel.LoadView.from_origin) == 1


def test_layout_report_names_the_kernel_a_transdata_folded_into(tmp_path, capsys):
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, 3), batch_size=1)
    _, _, err = _compile(tmp_path, capsys, k.Model(inp, k.layers.Conv2D(8, 3)(inp)),
                         "--layout-report=-")
    lines = err.splitlines()
    i = lines.index("after cann-to-kernel: 2 TransData folded into kernels' DMA")
    assert lines[i + 2].startswith("TransData NHWC -> NC1HWC0_C04 [1, 9, 9, 3] at ")  # C_in = 3: C04
    assert ": folded into the GM -> L1 loads of kernel.cube '" in lines[i + 2]
