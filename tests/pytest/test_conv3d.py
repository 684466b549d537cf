"""3-D convolution and pooling (Keras Conv3D, Conv3DTranspose, MaxPooling3D, AveragePooling3D)
compile through cann-compile (compiler/conversions/tf_to_cann/conv3d.py: one cann.Conv3D cube
kernel on the (N*D) batch view of NDC1HWC0, or a Conv2D when kd = 1; separable pools) and the
.om matches TensorFlow: cann-run
--compare-with the frozen .pb (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pytest.test_grouped_conv import _kinds


def _compile_and_compare(model, tmp_path, capsys, *options):
    """cann-compile the frozen model (at the batch of its input), cann-run the .om against the .pb
    on a random input; the .om."""
    from tests.model_zoo.zoo import Input, freeze
    from tools import cann_compile, cann_run

    pb = tmp_path / "m.pb"
    inp = model.inputs[0]
    sig = (Input(inp.name.split(":")[0], tuple(inp.shape)),)
    pb.write_bytes(freeze(model, inputs=sig).SerializeToString())
    om = tmp_path / "m.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}", *options])
    out = capsys.readouterr()
    assert rc == 0, out.err
    npy = tmp_path / "x.npy"
    shape = tuple(model.inputs[0].shape)
    np.save(npy, np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    rc = cann_run.main([str(om), "--input", f"{model.inputs[0].name.split(':')[0]}={npy}",
                        "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    return om


def _layers(seed=1):
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    keras.utils.set_random_seed(seed)
    return keras, keras.layers


# (input D, H, W, C), kernel, strides, dilation, padding
CONVS = [
    ((6, 10, 10, 3), 3, 1, 1, "same"),
    ((5, 9, 9, 16), (1, 3, 3), (1, 2, 2), 1, "valid"),
    ((7, 8, 8, 17), (3, 1, 1), (2, 1, 1), 1, "same"),
    ((7, 9, 9, 16), 3, 2, 1, "same"),
    ((8, 8, 8, 17), 3, 1, (2, 1, 1), "valid"),
    ((6, 8, 8, 3), (3, 1, 1), 1, (2, 1, 1), "same"),  # depth-dilated (2+1)-D temporal conv
    ((6, 8, 9, 16), (3, 1, 3), (1, 1, 2), 1, "same"),  # strided in W
    ((5, 9, 9, 40), 3, (2, 2, 1), 1, "same"),  # C1 = 3 per depth tap, odd sizes
    ((4, 6, 6, 8), (2, 3, 3), (1, 1, 1), (3, 1, 1), "valid"),  # dilation = D - 1: one output depth
]


@pytest.mark.parametrize("shape,kernel,strides,dilation,padding", CONVS)
def test_conv3d_matches_tensorflow(shape, kernel, strides, dilation, padding, tmp_path, capsys):
    keras, layers = _layers()
    x = keras.Input(shape, batch_size=1, name="video")
    y = layers.Conv3D(8, kernel, strides, padding=padding, dilation_rate=dilation)(x)
    _compile_and_compare(keras.Model(x, y), tmp_path, capsys)


@pytest.mark.parametrize("kernel,strides,padding", [(3, (2, 1, 1), "same"), ((3, 1, 1), 1, "valid")])
def test_conv3d_batch_of_two_matches_tensorflow(kernel, strides, padding, tmp_path, capsys):
    """N = 2: the (N*D) batch view holds both clips; no depth tap reads the other clip."""
    keras, layers = _layers()
    x = keras.Input((5, 8, 8, 16), batch_size=2, name="video")
    y = layers.Conv3D(8, kernel, strides, padding=padding)(x)
    _compile_and_compare(keras.Model(x, y), tmp_path, capsys)


# pool layer, (input D, H, W, C), pool size, strides, padding
POOLS = [
    ("MaxPooling3D", (6, 8, 8, 16), 2, 2, "valid"),  # HW first (fewer elements moved)
    ("MaxPooling3D", (6, 8, 8, 16), (1, 2, 2), 2, "valid"),  # depth first: one strided slice
    ("MaxPooling3D", (5, 7, 7, 3), 3, 2, "same"),
    ("AveragePooling3D", (5, 7, 7, 17), 3, 2, "same"),
    ("AveragePooling3D", (6, 8, 8, 16), (3, 1, 1), (1, 1, 1), "valid"),
    ("AveragePooling3D", (4, 9, 9, 3), (1, 3, 3), (1, 2, 2), "same"),
]


@pytest.mark.parametrize("layer,shape,size,strides,padding", POOLS)
def test_pool3d_matches_tensorflow(layer, shape, size, strides, padding, tmp_path, capsys):
    keras, layers = _layers()
    x = keras.Input(shape, batch_size=1, name="video")
    y = getattr(layers, layer)(size, strides, padding=padding)(x)
    _compile_and_compare(keras.Model(x, y), tmp_path, capsys)


@pytest.mark.parametrize("shape,kernel,strides,padding", [
    ((3, 4, 4, 8), 3, 2, "same"),
    ((3, 5, 5, 16), (2, 3, 3), (1, 2, 2), "valid"),
])
def test_conv3d_transpose_matches_tensorflow(shape, kernel, strides, padding, tmp_path, capsys):
    keras, layers = _layers()
    x = keras.Input(shape, batch_size=1, name="video")
    y = layers.Conv3DTranspose(4, kernel, strides, padding=padding)(x)
    _compile_and_compare(keras.Model(x, y), tmp_path, capsys)


def _video_classifier():
    keras, layers = _layers()
    x = keras.Input((8, 16, 16, 3), batch_size=1, name="video")
    y = layers.Conv3D(16, 3, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.MaxPooling3D(2)(y)
    y = layers.GlobalAveragePooling3D()(y)
    y = layers.Dense(5)(y)
    return keras.Model(x, y)


def test_conv3d_bn_relu_pool_model_matches_tensorflow_and_fuses(tmp_path, capsys):
    """Conv3D + BN + ReLU + MaxPool3D + GlobalAveragePooling3D + Dense: one Conv3D cube kernel
    on the (N*D) batch view of NDC1HWC0, the BN and ReLU its epilogue, as after any conv (no
    BNInfer or Relu kernel of their own), and no depth im2col (pad, slices, concat)."""
    om = _compile_and_compare(_video_classifier(), tmp_path, capsys)
    kinds = _kinds(om)
    assert kinds.count("Conv3D") == 1 and not {"Conv2D", "BNInfer", "Relu", "PadD",
                                                "ConcatV2D"} & set(kinds), kinds


def test_avgpool3d_then_global_pool_is_one_mean(tmp_path, capsys):
    """AveragePooling3D(2) then GlobalAveragePooling3D: the depth windows tile D, so the depth
    mean is a ReduceMeanD over the window axis, which merges with the global mean
    (ReduceOfReduce), and the HW windows tile H and W, so the mean reads the pool's input
    (ReduceOfTilingPool): one ReduceMeanD kernel, no AvgPool, no depth slices."""
    keras, layers = _layers()
    x = keras.Input((4, 8, 8, 24), batch_size=1, name="video")
    y = layers.GlobalAveragePooling3D()(layers.AveragePooling3D(2)(x))
    kinds = _kinds(_compile_and_compare(keras.Model(x, y), tmp_path, capsys))
    assert kinds.count("ReduceMeanD") == 1 and not {"StridedSliceD", "AvgPool"} & set(kinds), kinds


def test_avgpool2d_then_global_pool_reads_the_pool_input(tmp_path, capsys):
    """Conv2D, AveragePooling2D(2) (windows tiling 8x8), GlobalAveragePooling2D: the global mean
    reads the conv's result (ReduceOfTilingPool): no AvgPool kernel, one ReduceMeanD."""
    keras, layers = _layers()
    x = keras.Input((8, 8, 5), batch_size=1, name="image")
    y = layers.GlobalAveragePooling2D()(layers.AveragePooling2D(2)(layers.Conv2D(24, 3, padding="same")(x)))
    kinds = _kinds(_compile_and_compare(keras.Model(x, y), tmp_path, capsys))
    assert kinds.count("ReduceMeanD") == 1 and "AvgPool" not in kinds, kinds
