"""Row ops as a matmul kernel's epilogue (compiler/transforms/fusion/row_epilogue.py,
compiler/conversions/cann_to_kernel/row_epilogue.py): a softmax or (Add)LayerNorm over the last
axis of a matmul's result runs on the matmul's output tiles when one tile holds whole rows.
Through cann-compile and cann-run --compare-with on small Keras models."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _keras():
    from tests.model_zoo.zoo import _keras as k

    return k()


@pytest.mark.parametrize("n", [10, 100])
def test_dense_softmax_is_one_matmul_kernel(tmp_path, capsys, n):
    """Dense(n) + softmax, N = 10 and 100 (both one output tile: padding columns masked out
    of the row statistics): one MatMulV2 kernel, no SoftmaxV2 kernel; equals TensorFlow."""
    keras = _keras()
    keras.utils.set_random_seed(n)
    inp = keras.Input((40,), batch_size=3, name="x")
    y = keras.layers.Dense(n, activation="softmax")(inp)
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), f"sm{n}")
    assert kinds == ["MatMulV2"], kinds


def test_dense_softmax_wider_than_a_tile_stays_two_kernels(tmp_path, capsys):
    """Dense(1000) + softmax: a row of 1000 columns is wider than one output tile (256), so the
    softmax is a kernel of its own; equals TensorFlow."""
    keras = _keras()
    keras.utils.set_random_seed(5)
    inp = keras.Input((40,), batch_size=2, name="x")
    y = keras.layers.Dense(1000, activation="softmax")(inp)
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), "sm1000")
    assert kinds == ["MatMulV2", "SoftmaxV2"], kinds


def test_dense_residual_layer_norm_is_one_matmul_kernel(tmp_path, capsys):
    """A transformer's output projection: an EinsumDense of h, + h, LayerNorm (an
    AddLayerNorm): the residual and the norm run on the matmul's output tiles; no LayerNorm
    kernel is left, and the .om equals TensorFlow."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(6)
    inp = keras.Input((16, 64), batch_size=1, name="x")
    h = layers.Dense(64, activation="relu")(inp)
    p = layers.EinsumDense("abc,cd->abd", output_shape=(16, 64), bias_axes="d")
    ln = layers.LayerNormalization(epsilon=1e-6)
    y = ln(layers.Add()([p(h), h]))
    rng = np.random.default_rng(1)
    ln.set_weights([rng.uniform(0.5, 1.5, 64), rng.uniform(-0.5, 0.5, 64)])
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), "addln")
    assert [k.removeprefix("Batch") for k in kinds] == ["MatMulV2", "MatMulV2"], kinds


def test_switch_off_keeps_the_softmax_kernel(tmp_path, capsys):
    """fuse disable=RowEpilogueFusion (a switch file): Dense + softmax is two kernels."""
    from tests.model_zoo.zoo import freeze
    from tests.pytest.test_grouped_conv import _kinds
    from tools import cann_compile

    keras = _keras()
    keras.utils.set_random_seed(7)
    inp = keras.Input((40,), batch_size=1, name="x")
    y = keras.layers.Dense(10, activation="softmax")(inp)
    pb = tmp_path / "m.pb"
    pb.write_bytes(freeze(keras.Model(inp, y)).SerializeToString())
    cfg = tmp_path / "switch.cfg"
    cfg.write_text("RowEpilogueFusion:off\n")
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={tmp_path / 'm'}", f"--fusion_switch_file={cfg}"])
    assert rc == 0, capsys.readouterr().err
    assert [k for k in _kinds(tmp_path / "m.om") if k not in ("kernel.transdata", "kernel.view")] \
        == ["MatMulV2", "SoftmaxV2"]


def test_whole_row_tiling_puts_n_in_one_block():
    """cube_tiling(whole_n=True): one core's N extent and one base block hold every column."""
    from compiler.target.chips import CHIPS
    from compiler.target.tiling import cube_tiling

    t = cube_tiling("MatMulV2", 512, 200, 64, 4, 16, CHIPS["Ascend910B3"], whole_n=True)
    f = t.fields
    assert f["singleCoreN"] == f["baseN"] == 208


@pytest.mark.parametrize("channels", [64, 21])
def test_gap_dense_softmax_is_conv_and_one_matmul_kernel(tmp_path, capsys, channels):
    """Conv -> global average pool -> Dense(10) + softmax (a classifier's tail): the pool runs
    on the matmul's A tiles (compiler/transforms/fusion/mean_prologue.py) and the softmax on its
    output tiles, so the tail is one kernel; 21 channels leave C0 padding lanes; equals
    TensorFlow."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(channels)
    inp = keras.Input((9, 9, 5), batch_size=1, name="x")
    h = layers.Conv2D(channels, 3, activation="relu")(inp)
    y = layers.Dense(10, activation="softmax")(layers.GlobalAveragePooling2D()(h))
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), "gap")
    assert kinds == ["Conv2D", "MatMulV2"], kinds


def test_gap_read_by_two_layers_stays_a_kernel(tmp_path, capsys):
    """A pool read by two Dense layers is no prologue (one reader only): it stays a kernel."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(8)
    inp = keras.Input((6, 6, 16), batch_size=1, name="x")
    p = layers.GlobalAveragePooling2D()(inp)
    y = layers.Concatenate()([layers.Dense(8)(p), layers.Dense(4)(p)])
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), "gap2")
    assert "ReduceMeanD" in kinds, kinds


@pytest.mark.parametrize("batch", [1, 2])
def test_gap3d_dense_softmax_is_conv_and_one_matmul_kernel(tmp_path, capsys, batch):
    """Conv3D -> AveragePooling3D -> GlobalAveragePooling3D -> Dense(5) + softmax (a video
    classifier's tail): Conv3D folds the depth into N, the mean reads a reshape of it and
    averages g = depth images per row of A (mean_prologue.py pool_input): it runs on the
    matmul's A tiles, no mean, TransData or reshape kernel; batch 2 has two rows of A of g
    images each; equals TensorFlow."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(3 + batch)
    inp = keras.Input((4, 6, 6, 8), batch_size=batch, name="x")
    h = layers.Conv3D(24, 3, padding="same", activation="relu")(inp)
    h = layers.GlobalAveragePooling3D()(layers.AveragePooling3D(2)(h))
    y = layers.Dense(5, activation="softmax")(h)
    kinds = _compile_and_compare(tmp_path, capsys, keras.Model(inp, y), f"gap3d{batch}")
    assert kinds == ["Conv3D", "MatMulV2"], kinds
