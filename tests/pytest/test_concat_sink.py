"""A pointwise op of a concat's result moves into the concat's inputs where each input's
producer takes it (compiler/transforms/fusion/concat_sink.py): NASNet's adjust block, a
BatchNorm of the concat of two 1x1 convs read by a pool, a ReLU and a concat, none of which
could take it.  Through cann-compile and cann-run --compare-with on a small Keras model."""

from __future__ import annotations

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _bn_of_a_concat_of_convs():
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(5)
    x = keras.Input((8, 8, 6), batch_size=1, name="x")
    c = layers.Concatenate()([layers.Conv2D(4, 1, use_bias=False)(x),
                              layers.Conv2D(4, 3, padding="same", use_bias=False)(x)])
    bn = layers.BatchNormalization(beta_initializer="random_normal",
                                   gamma_initializer="random_uniform",
                                   moving_mean_initializer="random_normal",
                                   moving_variance_initializer="ones")(c)
    pool = layers.AveragePooling2D(3, strides=1, padding="same")(bn)
    conv = layers.Conv2D(8, 1)(layers.ReLU()(bn))
    cat = layers.Concatenate()([bn, conv])
    return keras.Model(x, [pool, cat])


def test_bn_of_a_concat_of_convs_folds_into_the_convs(tmp_path, capsys):
    """The BatchNorm is no Elementwise kernel (each conv computes its part), TF's values."""
    kinds = _compile_and_compare(tmp_path, capsys, _bn_of_a_concat_of_convs(), "bn_concat")
    assert "Elementwise" not in kinds, kinds
