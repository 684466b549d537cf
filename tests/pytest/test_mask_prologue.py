"""Mask prologues (compiler/transforms/fusion/auto.py mask_prologue_problem): the pointwise kernel
computing an attention mask from graph inputs (a padding mask's Cast, a causal mask's compare),
read only by attention ops as their mask (through a Reshape), runs in each attention's masked
softmax kernel (compiler/conversions/cann_to_kernel/attention.py masked_softmax_ops): no kernel of
its own.  Through cann-compile and cann-run --compare-with on small Keras models."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_reduction_prologue import _compile_and_compare


def _keras():
    from tests.model_zoo.zoo import _keras as k

    return k()


def _encoder(causal: bool):
    """Two Keras MultiHeadAttention layers (batch 2, 6 tokens) reading one mask computed from an
    int32 padding-mask graph input: Cast(pm) to bool (BERT), or with `causal` GPT-2's
    min(pm[:, None, :], lower triangle) > 0."""
    keras = _keras()
    layers = keras.layers
    ops = keras.ops
    keras.utils.set_random_seed(11)
    x = keras.Input((6, 16), batch_size=2, name="x")
    pm = keras.Input((6,), batch_size=2, name="pm", dtype="int32")
    if causal:
        tril = np.tril(np.ones((1, 6, 6), np.int32))
        am = ops.greater(ops.minimum(ops.expand_dims(pm, 1), tril), 0)  # [B, S, S]
    else:
        am = ops.expand_dims(ops.cast(pm, "bool"), 1)  # [B, 1, S]: the keys' mask
    h = layers.MultiHeadAttention(2, 8)(x, x, attention_mask=am)
    y = layers.MultiHeadAttention(2, 8)(h, h, attention_mask=am)
    return keras.Model([x, pm], y)


def _signature():
    from tests.model_zoo.zoo import Input

    return (Input("x", (2, 6, 16)), Input("pm", (2, 6), "int32"))


def _inputs():
    rng = np.random.default_rng(2)
    pm = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0]], np.int32)  # per-row padding
    return {"x": rng.uniform(-1, 1, (2, 6, 16)).astype(np.float32), "pm": pm}


def test_padding_mask_cast_runs_in_both_attentions(tmp_path, capsys):
    """The Cast of the padding mask is no kernel: both attentions' masked softmax kernels
    compute it on their rows, [B, S] viewed as [B, 1, 1, S] (each batch its own mask)."""
    kinds = _compile_and_compare(tmp_path, capsys, _encoder(False), "pad", _inputs(),
                                 _signature())
    assert "Elementwise" not in kinds, kinds
    assert kinds.count("SoftmaxV2") == 2, kinds


def test_causal_mask_compare_runs_in_both_attentions(tmp_path, capsys):
    """GPT-2's causal mask, Minimum of the padding mask [B, 1, S] (a view of the input) and a
    constant lower triangle, then Greater: one pointwise kernel, run in both masked softmax
    kernels on the broadcast rows of its inputs."""
    kinds = _compile_and_compare(tmp_path, capsys, _encoder(True), "causal", _inputs(),
                                 _signature())
    assert "Elementwise" not in kinds, kinds
    assert kinds.count("SoftmaxV2") == 2, kinds
