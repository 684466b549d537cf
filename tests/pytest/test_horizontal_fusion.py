"""Horizontal fusion end to end: the three 1x1 Conv-BN-ReLU branches that open an inception
block read the same input; cann-compile merges them into one wide conv whose output pieces are
views the memory plan aliases (compiler/transforms/fusion/horizontal.py), so the .om launches
fewer kernels than with HorizontalConvFusion:off in a fusion switch file, and it still matches
TensorFlow under cann-run --compare-with (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np
from kernel_harness import compile_on_off, om_launches, om_matches_tf

#: Both compiles without launch packing and conv -> conv fusion (which, with the siblings not
#: merged, computes b2a in b2b's window and b3a in b3b's: 2 launches fewer by other means), so
#: the launch count compares horizontal fusion alone.
ISOLATED = "LaunchPacking:off\nConvStageFusion:off\n"


def _block():
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers

    def cbr(x, c, k, name):
        x = layers.Conv2D(c, k, padding="same", use_bias=False, name=name)(x)
        return layers.ReLU()(layers.BatchNormalization(name=name + "_bn")(x))

    x = keras.Input((12, 12, 8), batch_size=1)
    b1 = cbr(x, 16, 1, "b1")
    b2 = cbr(cbr(x, 12, 1, "b2a"), 16, 3, "b2b")
    b3 = cbr(cbr(x, 8, 1, "b3a"), 12, 3, "b3b")
    b4 = cbr(layers.MaxPooling2D(3, 1, padding="same")(x), 8, 1, "b4")
    model = keras.Model(x, layers.Concatenate()([b1, b2, b3, b4]))
    for w in model.weights:  # BN statistics away from the identity
        rng = np.random.default_rng(len(w.name) + int(np.prod(w.shape)))
        w.assign(rng.uniform(0.5, 1.5, w.shape).astype(np.float32) * np.sign(
            rng.standard_normal(w.shape)).astype(np.float32) if "kernel" in w.path else
            rng.uniform(0.5, 1.5, w.shape).astype(np.float32))
    return model


def test_sibling_convs_merge_into_one_wide_conv_and_match_tensorflow(tmp_path, capsys):
    model = _block()
    pb, oms = compile_on_off(tmp_path, capsys, model, "HorizontalConvFusion:off\n", ISOLATED)
    # b1, b2a, b3a: 3 conv launches become 1, and every piece of the split is a view of the wide
    # output (mem.elided), b1's too now that the concat stores straight into the NHWC result
    assert om_launches(oms["on"]) == om_launches(oms["off"]) - 2
    om_matches_tf(tmp_path, capsys, model, oms["on"], pb)


def test_concat_first_piece_is_a_view_of_the_wide_conv_and_the_concat(tmp_path, capsys):
    """The block's concat read by another conv (an arena tensor, not the model's output): b1's
    piece goes last in the wide conv, whose output then meets the concat's buffer on it
    (compiler/backend/memory_plan.py _in_common_slab): no SplitVD kernel copies it."""
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    block = _block()
    y = keras.layers.Conv2D(8, 1, name="after")(block.output)
    model = keras.Model(block.input, y)
    pb, oms = compile_on_off(tmp_path, capsys, model, "HorizontalConvFusion:off\n", ISOLATED)
    # b1, b2a, b3a: 3 conv launches become 1, no copy of a piece
    assert om_launches(oms["on"]) == om_launches(oms["off"]) - 2
    om_matches_tf(tmp_path, capsys, model, oms["on"], pb)


def _two_heads():
    """Two Keras Dense branches (constant weights, ReLU) reading one [1, 16, 32] feature, each
    followed by its own Dense, summed: the sibling matmuls (widths 16 and 32, whole C0 column
    blocks of FRACTAL_NZ) merge into one FusedMatMul whose pieces are K1 slabs of its output."""
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(3)
    x = keras.Input((16, 32), batch_size=1)
    a = layers.Dense(8, name="a_out")(layers.Dense(16, activation="relu", name="a")(x))
    b = layers.Dense(8, name="b_out")(layers.Dense(32, activation="relu", name="b")(x))
    return keras.Model(x, layers.Add()([a, b]))


def test_sibling_matmuls_merge_into_one_wide_matmul_and_match_tensorflow(tmp_path, capsys):
    model = _two_heads()
    pb, oms = compile_on_off(tmp_path, capsys, model, "HorizontalConvFusion:off\n")
    # a, b: 2 matmul launches become 1; the split's pieces are views of the wide output
    assert om_launches(oms["on"]) == om_launches(oms["off"]) - 1
    om_matches_tf(tmp_path, capsys, model, oms["on"], pb)
