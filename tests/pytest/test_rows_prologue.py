"""A conv's fused prologue on x's rows (compiler/conversions/cann_to_kernel/fused.py
emit_rows_prologue): where the conv's A comes by Load3D from the window of x's rows in L1, the
BN-ReLU body runs once on that window in UB (each element of x once per M block, before the N
blocks) and Load3D inserts the conv pads after it: no img2col_valid pad mask, only the channel
padding lanes selected back to 0 when C is not a multiple of C0.  Small BN-ReLU-Conv graphs
through cann-compile and cann-run --compare-with TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.ir.ir_io import make_context
from tests.pytest.compare import compile_and_compare
from tools.driver.pipelines import run_passes


def _bn_relu_conv(tmp_path, c, cout, kernel, stride, dilation, padding):
    """BN (relu(bn(0)) != 0: the shifts are positive) -> ReLU -> Conv2D, no bias."""
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, c), name="x")
    bn = k.layers.BatchNormalization()
    h = bn(inp)
    rng = np.random.default_rng(c)
    bn.set_weights([rng.uniform(0.5, 1.5, c), rng.uniform(0.2, 1.0, c),
                    rng.uniform(-0.2, 0.2, c), rng.uniform(0.5, 2.0, c)])
    h = k.layers.Activation("relu")(h)
    h = k.layers.Conv2D(cout, kernel, strides=stride, dilation_rate=dilation, padding=padding,
                        use_bias=False)(h)
    path = tmp_path / f"bnreluconv{c}.pb"
    path.write_bytes(freeze(k.Model(inp, h)).SerializeToString())
    return str(path)


def _cube(path):
    from compiler.frontend.importers.graphdef import import_graphdef_file

    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts",
                             "cann-to-kernel"))
    (cube,) = [o for o in module.walk() if o.name == "kernel.cube"]
    return cube


def _views(cube) -> list[str]:
    return [o.view.data for o in cube.walk() if o.name == "kernel.load"]


CASES = [  # (channels, cout, kernel, stride, dilation, padding)
    (16, 24, 3, 1, 1, "same"),
    (20, 24, 3, 1, 1, "valid"),
    (13, 8, 3, 2, 1, "same"),
    (16, 16, 3, 1, 2, "same"),
    (7, 12, 5, 1, 1, "same"),
]


@pytest.mark.parametrize("c, cout, kernel, stride, dilation, padding", CASES)
def test_prologue_runs_on_the_rows_and_matches_tensorflow(tmp_path, capsys, c, cout, kernel,
                                                         stride, dilation, padding):

    pb = _bn_relu_conv(tmp_path, c, cout, kernel, stride, dilation, padding)
    views = _views(_cube(pb))
    assert "load3d" in views and "img2col_valid" not in views and "img2col" not in views
    compile_and_compare(tmp_path, capsys, pb)


def test_whole_c0_blocks_need_no_mask(tmp_path):
    """16 channels fill C0: no padding lane, no select: the body's ops and the copy to L1."""
    cube = _cube(_bn_relu_conv(tmp_path, 16, 24, 3, 1, 1, "same"))
    fns = [o.fn.data for o in cube.walk() if o.name == "kernel.vec"]
    assert "SelectV2" not in fns and "fmap_valid" not in _views(cube)


def test_rows_are_staged_once_per_m_block(tmp_path):
    """The window is loaded to UB, computed and moved to L1 in the M loop, outside the N loop:
    the prologue is not re-run per N block."""
    from dialects import kernel

    cube = _cube(_bn_relu_conv(tmp_path, 16, 24, 3, 1, 1, "same"))
    (win,) = [o for o in cube.walk() if o.name == "kernel.load" and o.view.data == "fmap"]
    loops = []
    p = win.parent_op()
    while isinstance(p, kernel.ForOp):
        loops.append(p)
        p = p.parent_op()
    assert len(loops) == 2  # the M block and the batch loops, no N or K loop around it
    assert {u.operation.name for u in win.result.uses} == {"kernel.vec"}  # the body reads it


def _relu_conv(tmp_path, c):
    """ReLU -> Conv2D 3x3 SAME: relu(0) = 0, so neither pads nor padding lanes need a mask."""
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, c), name="x")
    h = k.layers.Activation("relu")(inp)
    h = k.layers.Conv2D(8, 3, padding="same", use_bias=False)(h)
    path = tmp_path / f"reluconv{c}.pb"
    path.write_bytes(freeze(k.Model(inp, h)).SerializeToString())
    return str(path)


def test_a_body_that_keeps_zero_needs_no_mask(tmp_path, capsys):
    """13 channels leave padding lanes, but relu(0) = 0 there (fused.keeps_zero): no select."""

    pb = _relu_conv(tmp_path, 13)
    cube = _cube(pb)
    fns = [o.fn.data for o in cube.walk() if o.name == "kernel.vec"]
    assert fns == ["Relu"] and "fmap_valid" not in _views(cube)
    compile_and_compare(tmp_path, capsys, pb)


def _shift_relu_conv(tmp_path, c):
    """relu(x + 0.5) -> Conv2D 3x3 SAME: the scalar shift is 0.5 on the padding lanes too."""
    from tests.model_zoo.zoo import freeze, tensorflow

    k = tensorflow().keras
    inp = k.Input((9, 9, c), name="x")
    h = k.layers.Activation("relu")(inp + 0.5)
    h = k.layers.Conv2D(8, 3, padding="same", use_bias=False)(h)
    path = tmp_path / f"shiftreluconv{c}.pb"
    path.write_bytes(freeze(k.Model(inp, h)).SerializeToString())
    return str(path)


def test_a_scalar_shift_needs_the_lane_mask(tmp_path, capsys):
    """relu(0 + 0.5) != 0 on 13 channels' padding lanes: the window is selected against
    fmap_valid (a select, not a multiply: f(0) may be inf or NaN), and matches TensorFlow."""

    pb = _shift_relu_conv(tmp_path, 13)
    cube = _cube(pb)
    (mask,) = [o for o in cube.walk() if o.name == "kernel.load" and o.view.data == "fmap_valid"]
    (use,) = [u.operation for u in mask.result.uses]
    assert use.name == "kernel.vec" and use.fn.data == "SelectV2" and use.operands[0] is mask.result
    compile_and_compare(tmp_path, capsys, pb)
