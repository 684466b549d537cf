"""Launch packing end to end (compiler/transforms/launch_packing.py): independent kernels of a
small graph become one launch (`kernel.pack`), each member tiled for its share of the cores;
the .om launches fewer kernels than with LaunchPacking:off in a fusion switch file, its memory
plan passes the overlap checker, the perf report shows the pack as one row naming its members,
and cann-run matches TensorFlow (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np
from kernel_harness import compile_on_off, om_launches, om_matches_tf

OFF = "LaunchPacking:off\n"


def _model(branches: str):
    """One NHWC input read by two branches (no path between them) whose results are
    concatenated: "convs" a 3x3 and a 5x5 conv (different geometry: no horizontal fusion),
    "conv_pool" a 3x3 conv and a 3x3 max pool; "entry" an Xception entry block (two
    SeparableConv-BN, a stride-2 max pool, added to a 1x1 stride-2 conv + BN shortcut)."""
    from tests.model_zoo.zoo import _keras

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(7)
    x = keras.Input((16, 16, 32), batch_size=1)
    if branches == "entry":
        s = layers.BatchNormalization()(layers.Conv2D(32, 1, 2, padding="same", use_bias=False)(x))
        y = layers.BatchNormalization()(layers.SeparableConv2D(32, 3, padding="same", use_bias=False)(x))
        y = layers.ReLU()(y)
        y = layers.BatchNormalization()(layers.SeparableConv2D(32, 3, padding="same", use_bias=False)(y))
        y = layers.MaxPooling2D(3, 2, padding="same")(y)
        return keras.Model(x, layers.Add()([y, s]))
    a = layers.Conv2D(32, 3, padding="same", activation="relu", name="a")(x)
    if branches == "convs":
        b = layers.Conv2D(32, 5, padding="same", activation="relu", name="b")(x)
    else:
        b = layers.MaxPooling2D(3, 1, padding="same", name="pool")(x)
    return keras.Model(x, layers.Concatenate()([a, b]))


def _packs(om):
    from compiler.backend.launch_packs import pack_id
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.entry import main_func

    module = load_offline_model(str(om)).module
    return module, [o for o in main_func(module).body.blocks.first.ops if pack_id(o) is not None]


def _check(tmp_path, capsys, branches: str):
    from compiler.backend.memory_plan import check_module
    from compiler.backend.perf_report import perf_report

    model = _model(branches)
    pb, oms = compile_on_off(tmp_path, capsys, model, OFF, common="")
    assert om_launches(oms["on"]) == om_launches(oms["off"]) - 1
    module, members = _packs(oms["on"])
    assert len(members) == 2 and len({o.attributes["kernel.pack"] for o in members}) == 1
    assert check_module(module) == []
    rows = [k for k in perf_report(module, "Ascend910B3").kernels if k.op == "pack"]
    assert len(rows) == 1 and rows[0].note.count(" cores") == 2
    assert _packs(oms["off"])[1] == []
    om_matches_tf(tmp_path, capsys, model, oms["on"], pb)
    return rows[0]


def test_two_convs_reading_one_input_share_one_launch(tmp_path, capsys):
    row = _check(tmp_path, capsys, "convs")
    assert row.unit == "cube" and row.cores <= 20  # the 910B3's cube cores, shared


def test_a_conv_and_a_pool_share_one_launch(tmp_path, capsys):
    row = _check(tmp_path, capsys, "conv_pool")
    assert "cube" in row.note and "vector" in row.note


def test_a_shortcut_conv_read_by_a_pool_add_kernel_shares_a_launch(tmp_path, capsys):
    """The MaxPool + Add kernel reads the shortcut conv's result though no cann path leads from
    the conv to the MaxPool (the pool's kernel took the Add in): that kernel edge is in the
    packing graph, so the shortcut conv is still a candidate and packs with the first
    separable conv, which reads the same input."""
    row = _check(tmp_path, capsys, "entry")
    assert row.unit == "cube" and row.note.count("cube Conv2D") == 2


_INPLACE = """
func.func @main(%x: tensor<1x64xf32>) -> (tensor<1x64xf32>, tensor<1x64xf32>) {{
  %t = cann.Relu %x : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %a = cann.Exp %t {{{a}}} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %b = cann.Neg %t {{{b}}} : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %c = cann.Abs %a : (tensor<1x64xf32>) -> tensor<1x64xf32>
  %d = cann.Abs %b : (tensor<1x64xf32>) -> tensor<1x64xf32>
  func.return %c, %d : tensor<1x64xf32>, tensor<1x64xf32>
}}
"""


def _inplace_writes(a: str, b: str) -> int:
    """The memory plan's count of in-place writes (mem.plan's `inplace`)."""
    from compiler.backend.memory_plan import check_module, read_plan_info
    from compiler.ir.entry import main_func
    from compiler.ir.ir_io import make_context, parse_module
    from tools.driver.pipelines import run_passes

    ctx = make_context()
    module, _ = parse_module(ctx, _INPLACE.format(a=a, b=b), "inplace.mlir")
    run_passes(ctx, module, ("assign-layouts", "cann-to-kernel", "plan-memory"))
    assert check_module(module) == []
    return read_plan_info(main_func(module))["inplace"]


def test_no_member_writes_in_place_over_an_input_its_mate_reads():
    """%t dies with its last readers Exp and Neg.  One after another, Neg (the last) may write
    its result over %t; packed into one launch (`cann.pack` on both, which cann-to-kernel
    copies to their kernels) they run at once, so neither may."""
    assert _inplace_writes("", "") == 1
    assert _inplace_writes("cann.pack = 0 : i64", "cann.pack = 0 : i64") == 0


def test_a_pack_is_one_time_slot_of_the_memory_plan():
    """Consecutive launches with one pack id share one time slot; others have their own."""
    from compiler.backend.launch_packs import launch_slots, packs

    class Op:
        def __init__(self, p):
            from xdsl.dialects.builtin import IntegerAttr, i64
            self.attributes = {} if p is None else {"kernel.pack": IntegerAttr(p, i64)}

    ops = [Op(None), Op(0), Op(0), Op(None), Op(1), Op(1), Op(0)]
    assert launch_slots(ops) == [0, 1, 1, 2, 3, 3, 4]  # type: ignore[arg-type]
    assert [len(g) for g in packs(ops)] == [1, 2, 1, 2, 1]  # type: ignore[arg-type]
    assert np.all(np.diff(launch_slots(ops)) >= 0)  # type: ignore[arg-type]
