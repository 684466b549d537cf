"""A channel concat read only by convs is part of their fmap load
(compiler/transforms/fusion/concat_stage.py): each source fills its C1 planes of the conv's L1
window (one fmap load per source, kernel.join); a nearest upsample or a bilinear resize among
the sources composes with it (compiler/transforms/fusion/resample.py).  Small Keras graphs
through cann-compile and cann-run --compare-with TensorFlow (U-Net's decoder blocks)."""

from __future__ import annotations

import pytest

from compiler.ir.ir_io import make_context
from tests.pytest.compare import compile_and_compare
from tools.driver.pipelines import run_passes


def _freeze(tmp_path, name, build, channels=(32, 16)):
    """x -> a (1x1 conv, channels[0]) and b (3x3 conv, channels[1]) at 16x16; build(k, a, b)."""
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    inp = k.Input((16, 16, 8), name="x")
    k.utils.set_random_seed(11)
    a = k.layers.Conv2D(channels[0], 1, activation="relu")(inp)
    b = k.layers.Conv2D(channels[1], 3, padding="same", activation="relu")(inp)
    path = tmp_path / f"{name}.pb"
    path.write_bytes(freeze(k.Model(inp, build(k, a, b))).SerializeToString())
    return str(path)


def _decoder(interpolation):
    """A U-Net decoder block: the deep map upsampled 2x, concatenated with the skip, a conv."""
    def build(k, a, b):
        deep = k.layers.MaxPooling2D(2)(a)  # 8x8, upsampled back to 16x16
        up = k.layers.UpSampling2D(2, interpolation=interpolation)(deep)
        return k.layers.Conv2D(16, 3, padding="same")(k.layers.Concatenate()([up, b]))
    return build


def _two_convs(k, a, b):
    return k.layers.Conv2D(16, 3, padding="same")(k.layers.Concatenate()([a, b]))


def _fused(path):
    from compiler.frontend.importers.graphdef import import_graphdef_file

    module = import_graphdef_file(path)
    run_passes(make_context(), module, ("tf-to-cann", "cann-cleanup", "fuse"))
    return module


def _kernels(path):
    from compiler.frontend.importers.graphdef import import_graphdef_file

    module = import_graphdef_file(path)
    run_passes(make_context(), module, ("tf-to-cann", "cann-cleanup", "fuse", "align-concat-slabs",
                                        "assign-layouts", "cann-to-kernel"))
    return [o for o in module.walk() if o.name in ("kernel.cube", "kernel.vec_kernel")]


def _window_joins(cube) -> list[int]:
    """The number of parts of each kernel.join in the cube kernel's body."""
    return [len(o.operands) for o in cube.walk() if o.name == "kernel.join"]


def test_concat_of_two_convs_is_the_readers_window(tmp_path, capsys):
    pb = _freeze(tmp_path, "two", _two_convs)
    from compiler.transforms.fusion.engine import count_kernels

    assert count_kernels(_fused(pb)) == 3  # the two convs and their reader; no concat
    kernels = _kernels(pb)
    assert [o.name for o in kernels] == ["kernel.cube"] * 3
    assert _window_joins(kernels[-1]) == [2]
    compile_and_compare(tmp_path, capsys, pb)


@pytest.mark.parametrize("interpolation, parts", [("nearest", 2), ("bilinear", 3)])
def test_upsample_and_concat_are_the_decoder_convs_load(tmp_path, capsys, interpolation, parts):
    """Neither the upsample nor the concat is a kernel: the two convs, the pool and the decoder
    conv are.  The window joins the nearest source's fmap load and the skip's, or the bilinear
    source's two C1 planes (each computed in UB) and the skip's."""
    pb = _freeze(tmp_path, interpolation, _decoder(interpolation))
    kernels = _kernels(pb)
    assert [o.kind.data for o in kernels] == ["Conv2D", "MaxPool", "Conv2D", "Conv2D"]
    assert _window_joins(kernels[-1]) == [parts]
    compile_and_compare(tmp_path, capsys, pb)


def test_concat_read_by_another_op_stays_a_kernel(tmp_path):
    """The concat is also a model output: it is not staged into the conv's window."""
    def build(k, a, b):
        c = k.layers.Concatenate()([a, b])
        return [c, k.layers.Conv2D(16, 3, padding="same")(c)]
    kernels = _kernels(_freeze(tmp_path, "shared", build))
    assert "ConcatV2D" in [o.kind.data for o in kernels]
    assert not any(_window_joins(o) for o in kernels)


def test_unaligned_slab_is_not_staged(tmp_path, capsys):
    """A first source of 8 channels is no whole C0 block: the concat stays (slab-aligned by
    align-concat-slabs) and the result still matches TensorFlow."""
    pb = _freeze(tmp_path, "unaligned", _two_convs, channels=(8, 16))
    assert not any(_window_joins(o) for o in _kernels(pb))
    compile_and_compare(tmp_path, capsys, pb)
