"""Small-C_in convs (compiler/target/c04.py): x NC1HWC0_C04, filter FRACTAL_Z_C04 with the taps'
4-channel groups packed in K.  The formats round-trip, the choice is the packed K's cost, and a
C_in = 3 Conv2D stem and Conv3D compiled by cann-compile run (cann-run) equal to TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.target.c04 import prefers_c04
from compiler.target.formats import Format, c04_k, from_storage, storage_shape, to_storage
from tests.pytest.test_conv3d import _compile_and_compare, _layers


@pytest.mark.parametrize("shape,origin", [((7, 7, 3, 20), Format.HWCN),
                                          ((3, 3, 3, 2, 16), Format.ND)])
def test_fractal_z_c04_round_trips(shape, origin):
    w = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    fz = to_storage(w, Format.FRACTAL_Z_C04, origin)
    taps = int(np.prod(shape[:-2]))
    assert fz.shape == storage_shape(Format.FRACTAL_Z_C04, origin, shape, "float32")
    assert fz.shape[0] * 16 == c04_k(taps)
    np.testing.assert_array_equal(from_storage(fz, Format.FRACTAL_Z_C04, origin, shape), w)


def test_fractal_z_c04_row_is_tap_times_4_plus_channel():
    w = np.random.default_rng(1).standard_normal((2, 2, 3, 5)).astype(np.float32)
    fz = to_storage(w, Format.FRACTAL_Z_C04, Format.HWCN)
    k = (1 * 2 + 0) * 4 + 2  # tap (h=1, w=0), channel 2
    assert fz[k // 16, 0, 4, k % 16] == w[1, 0, 2, 4]


def test_nc1hwc0_c04_round_trips():
    x = np.random.default_rng(2).standard_normal((2, 5, 6, 3)).astype(np.float32)
    s = to_storage(x, Format.NC1HWC0_C04, Format.NHWC)
    assert s.shape == (2, 1, 5, 6, 4) and not s[..., 3].any()
    np.testing.assert_array_equal(from_storage(s, Format.NC1HWC0_C04, Format.NHWC, x.shape), x)


@pytest.mark.parametrize("cin,taps,want", [(3, 49, True), (3, 9, True), (4, 27, True),
                                           (3, 1, False), (5, 9, False), (16, 9, False)])
def test_c04_taken_where_packed_k_is_smaller(cin, taps, want):
    assert prefers_c04(cin, taps, np.float32) is want


def _packed_ks(om) -> list[int]:
    from compiler.backend.offline_model import load_offline_model
    from dialects import kernel

    mod = load_offline_model(str(om)).module
    return [op.tiling.as_dict()["Ka"] for op in mod.walk() if isinstance(op, kernel.CubeKernelOp)
            and "FRACTAL_Z_C04" in str(op.inputs[1].type)]


def test_conv2d_stem_c04_matches_tensorflow(tmp_path, capsys):
    """An ImageNet-style stem (7x7 stride 2, C_in = 3, BN, ReLU): K = 208 (49 taps x 4)."""
    keras, layers = _layers()
    x = keras.Input((32, 32, 3), batch_size=1, name="image")
    y = layers.ReLU()(layers.BatchNormalization()(layers.Conv2D(16, 7, 2, padding="same")(x)))
    om = _compile_and_compare(keras.Model(x, y), tmp_path, capsys)
    assert _packed_ks(om) == [208]


def test_conv3d_c04_matches_tensorflow(tmp_path, capsys):
    """A 3x3x3 Conv3D of a C_in = 3 clip: K = 112 (27 taps x 4, its last 4 columns padding)."""
    keras, layers = _layers()
    x = keras.Input((4, 12, 12, 3), batch_size=1, name="video")
    y = layers.Conv3D(8, 3, padding="same", activation="relu")(x)
    om = _compile_and_compare(keras.Model(x, y), tmp_path, capsys)
    assert _packed_ks(om) == [112]


def _cube_ks(om) -> list[tuple[str, int]]:
    from compiler.backend.offline_model import load_offline_model
    from dialects import kernel

    mod = load_offline_model(str(om)).module
    return [(str(op.inputs[1].type).split("#cann.format<")[1].split(",")[0],
             op.tiling.as_dict()["Ka"]) for op in mod.walk() if isinstance(op, kernel.CubeKernelOp)]


def test_enable_small_channel_0_keeps_nc1hwc0(tmp_path, capsys):
    """ATC's --enable_small_channel=0: the C_in = 3 stem keeps its filter FRACTAL_Z, K = 784
    (49 taps x 16 lanes), and still equals TensorFlow."""
    keras, layers = _layers()
    x = keras.Input((32, 32, 3), batch_size=1, name="image")
    y = layers.ReLU()(layers.Conv2D(16, 7, 2, padding="same")(x))
    om = _compile_and_compare(keras.Model(x, y), tmp_path, capsys, "--enable_small_channel=0")
    assert _cube_ks(om) == [("FRACTAL_Z", 784)]
