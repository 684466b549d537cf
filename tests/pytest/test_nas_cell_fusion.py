"""NAS-cell fusions end to end (issue 12): on a NASNet-style cell built from Keras layers,
cann-compile
  * merges the sibling separable convs' depthwise halves (3x3 and 5x5 on one input, read by
    their pointwise convs) into one depthwise conv with channel multiplier 2
    (compiler/transforms/fusion/depthwise.py);
  * folds the ZeroPadding2D read by two stride-2 depthwise convs into both (fusion/pads.py);
  * turns ZeroPadding2D + Cropping2D + AveragePooling2D(1, 2) + 1x1 conv into a crop and one
    stride-2 conv (pads.py slice_before_pad, rule PoolSubsampleConv2dFusionPass);
  * runs AvgPool(x) + MaxPool(x) as the AvgPool kernel's epilogue (pools are OutputFusable);
so the .om launches fewer kernels than with those fusions off in a switch file, and it still
matches TensorFlow under cann-run --compare-with (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np
from kernel_harness import compile_on_off, om_launches, om_matches_tf


def _cell():
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    x = keras.Input((15, 15, 8), batch_size=1)
    h = layers.ReLU()(x)
    s3 = layers.SeparableConv2D(8, 3, padding="same", name="sep3")(h)
    s5 = layers.SeparableConv2D(8, 5, padding="same", name="sep5")(h)
    p = layers.ZeroPadding2D(((1, 2), (1, 2)))(h)
    r1 = layers.DepthwiseConv2D(3, 2, name="red1")(p)
    r2 = layers.DepthwiseConv2D(3, 2, name="red2")(p)
    q = layers.Cropping2D(((1, 0), (1, 0)))(layers.ZeroPadding2D(((0, 1), (0, 1)))(h))
    f = layers.Conv2D(8, 1, name="fact")(layers.AveragePooling2D(1, 2)(q))
    pools = layers.Add()([layers.AveragePooling2D(3, 1, padding="same")(h),
                          layers.MaxPooling2D(3, 1, padding="same")(h)])
    top = layers.Concatenate()([s3, s5, pools])
    low = layers.Concatenate()([r1, r2, f])
    model = keras.Model(x, [top, low])
    for i, w in enumerate(model.weights):  # distinct weights: no two convs the same (CSE)
        rng = np.random.default_rng(i)
        w.assign(rng.uniform(-1.0, 1.0, w.shape).astype(np.float32))
    return model


def test_nas_cell_fusions_launch_fewer_kernels_and_match_tensorflow(tmp_path, capsys):
    model = _cell()
    pb, oms = compile_on_off(tmp_path, capsys, model, "HorizontalConvFusion:off\nPadConv2dFusionPass:off\n"
                   "PoolSubsampleConv2dFusionPass:off\n")
    # the pad red1 and red2 read (their readers are a concat, so they stay two): gone; the
    # factorized path's pad: gone (its unpadded pool runs on the conv's A tiles either way: a
    # pool prologue with the fusions off, the conv's stride with them on).  sep3/sep5's
    # depthwise convs: merged into one kernel with the fusions on; with them off each runs in
    # its pointwise conv's A tiles (AutomaticPrologueFusion, fusion/depthwise.py), no launch of
    # its own: on is 1 more there
    assert om_launches(oms["on"]) == om_launches(oms["off"]) - 1
    om_matches_tf(tmp_path, capsys, model, oms["on"], pb)

