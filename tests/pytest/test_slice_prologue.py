"""Injective prologues (compiler/transforms/fusion/auto.py slice_reader): a pointwise kernel read
by convolutions as their x and by a StridedSlice (NASNet's Cropping2D of a ReLU) is every
reader's prologue: the convs compute it on their A tiles, the slice on the elements it gathers
(compiler/conversions/cann_to_kernel/data_movement.py slice_prologue_kernel).  Through
cann-compile and cann-run --compare-with on a small Keras model."""

from __future__ import annotations

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _keras():
    from tests.model_zoo.zoo import _keras as k

    return k()


def _relu_read_by_convs_and_a_crop(conv_channels: int, activation: str = "relu"):
    """A concat of a conv and the input x (8 channels; x computes nothing that could take the
    activation, so it stays after the concat: compiler/transforms/fusion/concat_sink.py)."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(12)
    x = keras.Input((8, 8, 8), batch_size=1, name="x")
    c = layers.Concatenate()([layers.Conv2D(conv_channels, 3, padding="same")(x), x])
    r = layers.Activation(activation)(c)
    a = layers.Conv2D(8, 1)(r)
    b = layers.Conv2D(8, 3, padding="same")(r)
    crop = layers.Cropping2D(((1, 0), (1, 0)))(r)
    return keras.Model(x, [a, b, crop])


def test_relu_read_by_convs_and_a_cropping_is_no_kernel(tmp_path, capsys):
    """32 channels (no padding lanes): the ReLU is no Elementwise kernel; the crop applies it."""
    kinds = _compile_and_compare(tmp_path, capsys, _relu_read_by_convs_and_a_crop(24), "crop")
    assert "Elementwise" not in kinds, kinds
    assert kinds.count("StridedSliceD") == 1, kinds


def test_sigmoid_with_padding_lanes_read_by_convs_and_a_cropping_is_no_kernel(tmp_path, capsys):
    """18 channels leave C0 padding lanes, where sigmoid(0) = 0.5: the crop applies the sigmoid
    and selects those lanes back to 0 (flat_valid); no Elementwise kernel, TF's values."""
    kinds = _compile_and_compare(tmp_path, capsys, _relu_read_by_convs_and_a_crop(10, "sigmoid"),
                                 "crop_lanes")
    assert "Elementwise" not in kinds, kinds
