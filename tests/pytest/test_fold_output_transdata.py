"""A TransData at a graph output folds into the store of the vector or cube kernel producing it
(compiler/conversions/cann_to_kernel/data_movement.py FoldOriginTransData): compiled by
cann-compile, the .om has no kernel.transdata but at the input, the head kernel stores `to_origin`, and cann-run
--compare-with matches TensorFlow."""

from __future__ import annotations

from tests.pytest.kernel_harness import om_matches_tf


def _compile(tmp_path, capsys, model):
    from tests.model_zoo.zoo import freeze
    from tools import cann_compile

    pb, om = tmp_path / "model.pb", tmp_path / "model.om"
    pb.write_bytes(freeze(model).SerializeToString())
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return pb, om


def _kernels(om):
    from compiler.backend.offline_model import load_offline_model
    from dialects import kernel

    module = load_offline_model(str(om)).module
    return [o for o in module.walk() if isinstance(o, kernel.KernelOp)]


def _check(tmp_path, capsys, model, head_kind: str = "SoftmaxV2") -> None:
    from xdsl.ir import OpResult

    from dialects import kernel

    pb, om = _compile(tmp_path, capsys, model)
    ks = _kernels(om)
    # TransData only at the graph's input (it reads a function argument), none at the output
    assert not [k for k in ks if isinstance(k, kernel.TransDataOp) and isinstance(k.src, OpResult)]
    # the last kernel of head_kind stores the graph's output (a softmax head is its matmul's
    # row epilogue: compiler/conversions/cann_to_kernel/row_epilogue.py)
    head = [k for k in ks if isinstance(k, kernel.BodyKernelOp) and k.kind.data == head_kind][-1:]
    assert len(head) == 1
    views = {s.view.data for s in head[0].walk() if isinstance(s, kernel.StoreOp)}
    assert views == {kernel.StoreView.to_origin}
    om_matches_tf(tmp_path, capsys, model, om, pb)


def test_dense_softmax_head_stores_its_rows_in_nd(tmp_path, capsys):
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((37,), batch_size=1)
    h = k.layers.Dense(53, activation="relu")(inp)
    y = k.layers.Dense(19, activation="softmax")(h)
    _check(tmp_path, capsys, k.Model(inp, y), "MatMulV2")


def test_conv_gap_dense_softmax_with_odd_channels_stores_in_nd(tmp_path, capsys):
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, 5), batch_size=1)
    h = k.layers.Conv2D(21, 3, activation="relu")(inp)
    h = k.layers.GlobalAveragePooling2D()(h)
    y = k.layers.Dense(11, activation="softmax")(h)
    _check(tmp_path, capsys, k.Model(inp, y), "MatMulV2")


def test_conv_output_stores_nhwc_from_the_cube_kernel(tmp_path, capsys):
    """A graph ending in a conv (bias, ReLU): the cube kernel's stores write the NHWC output."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, 5), batch_size=1)
    y = k.layers.Conv2D(21, 3, activation="relu")(inp)
    _check(tmp_path, capsys, k.Model(inp, y), "Conv2D")


def test_dense_output_stores_nd_from_the_cube_kernel(tmp_path, capsys):
    """A graph ending in a Dense layer (M = 1, N = 19 of a 16-row NZ block): the matmul's cube
    kernel stores the ND rows, its padding rows and columns not stored."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((37,), batch_size=1)
    _check(tmp_path, capsys, k.Model(inp, k.layers.Dense(19)(inp)), "MatMulV2")


def test_dense_squeeze_excite_gate_stores_nd_through_its_reshape_view(tmp_path, capsys):
    """SE-ResNeXt's gate (hold-out set): GAP(keepdims) -> Dense ReLU -> Dense sigmoid on
    [1, 1, 1, C] is a matmul on FRACTAL_NZ [1, C] viewed as [1, 1, 1, C]; the TransData to ND
    the residual add's kernel reading the gate needs folds through that view into the matmul's
    stores."""
    from xdsl.ir import OpResult

    from dialects import kernel
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    inp = k.Input((8, 8, 32), batch_size=1)
    y = k.layers.Conv2D(32, 3, padding="same", activation="relu")(inp)
    g = k.layers.GlobalAveragePooling2D(keepdims=True)(y)
    g = k.layers.Dense(8, activation="relu")(g)
    g = k.layers.Dense(32, activation="sigmoid")(g)
    out = k.layers.ReLU()(k.layers.Add()([inp, k.layers.Multiply()([y, g])]))
    model = k.Model(inp, k.layers.Conv2D(16, 1)(out))
    pb, om = _compile(tmp_path, capsys, model)
    assert not [o for o in _kernels(om)
                if isinstance(o, kernel.TransDataOp) and isinstance(o.src, OpResult)]
    om_matches_tf(tmp_path, capsys, model, om, pb)
