"""A conv reading its input through a pixel resample (compiler/transforms/fusion/resample.py):
a Conv2DTranspose's zero insertion (Reshape, PadD of two unit axes, Reshape) and a nearest
UpSampling2D (Reshape, BroadcastToD, Reshape) are staged into the conv's input rows (the load
views fmap / img2col with `upsample`): the resample is no kernel and its tensor no GM buffer.
Small Keras graphs through cann-compile and cann-run --compare-with TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir.ir_io import make_context
from tests.pytest.compare import compile_and_compare
from tools.driver.pipelines import run_passes


def _freeze(tmp_path, name, build):
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    inp = k.Input((6, 6, 24), name="x")
    k.utils.set_random_seed(7)
    path = tmp_path / f"{name}.pb"
    h = k.layers.Conv2D(24, 1)(inp)  # the resample reads a kernel's NC1HWC0 result (a decoder's)
    path.write_bytes(freeze(k.Model(inp, build(k, h))).SerializeToString())
    return str(path)


def _transpose(tmp_path, kernel, stride, padding):
    return _freeze(tmp_path, f"tr{kernel}{stride}{padding}", lambda k, x: k.layers.Conv2DTranspose(
        16, kernel, strides=stride, padding=padding)(x))


def _nearest(tmp_path):
    return _freeze(tmp_path, "nearest", lambda k, x: k.layers.Conv2D(16, 3, padding="same")(
        k.layers.UpSampling2D(2, interpolation="nearest")(x)))


def _kernels(path):
    from compiler.frontend.importers.graphdef import import_graphdef_file

    module = import_graphdef_file(path)
    run_passes(make_context(), module, ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts",
                                        "cann-to-kernel"))
    return [o for o in module.walk() if o.name in ("kernel.cube", "kernel.vec_kernel")]


def _staged_params(cube) -> list[tuple[int, ...]]:
    return [tuple(o.param("upsample")) + tuple(o.param("upsample_phase")) for o in cube.walk()
            if o.name == "kernel.load" and o.param("upsample") is not None]


@pytest.mark.parametrize("kernel, stride, padding", [(2, 2, "same"), (3, 2, "same"),
                                                     (3, 2, "valid"), (4, 3, "same")])
def test_transpose_conv_is_one_cube_kernel_matching_tensorflow(tmp_path, capsys, kernel, stride,
                                                               padding):
    pb = _transpose(tmp_path, kernel, stride, padding)
    first, cube = _kernels(pb)
    assert cube.name == first.name == "kernel.cube"
    assert {p[:2] for p in _staged_params(cube)} == {(stride, stride)}
    compile_and_compare(tmp_path, capsys, pb)


def test_nearest_upsample_is_repeated_into_the_conv_rows(tmp_path, capsys):
    pb = _nearest(tmp_path)
    first, cube = _kernels(pb)
    assert cube.name == first.name == "kernel.cube" and set(_staged_params(cube)) == {(2, 2, -1, -1)}
    compile_and_compare(tmp_path, capsys, pb)


def test_resample_read_by_another_op_stays_a_kernel(tmp_path):
    """The upsampled tensor is also a model output: it is written to GM by its own kernel."""
    def build(k, x):
        u = k.layers.UpSampling2D(2, interpolation="nearest")(x)
        return [u, k.layers.Conv2D(16, 3, padding="same")(u)]
    kernels = _kernels(_freeze(tmp_path, "shared", build))
    assert [o.name for o in kernels].count("kernel.vec_kernel") == 1
    assert not any(_staged_params(o) for o in kernels)


def test_phase_places_each_pixel_in_its_block():
    """The interpreter's staged view: x at (phase) of each a x b block, zeros elsewhere, or
    repeated (phase -1)."""
    from compiler.interpreters.kernel_impl import _resampled

    x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    z = _resampled(x, {"upsample": [2, 3], "upsample_phase": [1, 0]}.get)
    assert z.shape == (1, 1, 4, 6, 2)
    assert (z[:, :, 1::2, 0::3] == x).all() and z.sum() == x.sum()
    r = _resampled(x, {"upsample": [2, 2], "upsample_phase": [-1, -1]}.get)
    assert (r[:, :, ::2, ::2] == x).all() and (r[:, :, 1::2, 1::2] == x).all()
