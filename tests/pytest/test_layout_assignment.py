"""The global layout assignment (compiler/transforms/layout_assignment.py, passes/assign-layouts): ops
between convs follow them onto NC1HWC0, concats over C at channel offsets on and off the C0
grid included, executed tile by tile (and on the planned arena) against numpy; an op with no
NC1HWC0 kernel keeps its TransData and the report names it."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import compile_and_run, dense, ty

from compiler.backend import memory_plan as mp
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from compiler.transforms.layout_assignment import report_lines
from tools.driver.pipelines import run_passes

CONV = ('{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, '
        'dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"}')


def _concat_block(channels, hw=4, cin=8, cout=16, seed=0):
    """x -> one 1x1 conv per piece -> Relu -> ConcatV2 over C -> 1x1 conv: text and reference."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, hw, hw, cin)).astype(np.float32)
    lines, pieces, names = [], [], []
    for k, c in enumerate(channels):
        w = rng.normal(0, 0.5, (1, 1, cin, c)).astype(np.float32)
        lines.append(f"%w{k} = cann.Const {dense(w)} : {ty(w.shape)}")
        lines.append(f"%c{k} = cann.Conv2D %arg0, %w{k} {CONV} : ({ty(x.shape)}, {ty(w.shape)}) "
                     f"-> {ty((1, hw, hw, c))}")
        lines.append(f"%r{k} = cann.Relu %c{k} : ({ty((1, hw, hw, c))}) -> {ty((1, hw, hw, c))}")
        pieces.append(np.maximum(np.einsum("nhwc,cd->nhwd", x, w[0, 0]), 0))
        names.append(f"%r{k}")
    total = sum(channels)
    cat = (1, hw, hw, total)
    in_types = ", ".join(ty((1, hw, hw, c)) for c in channels)
    lines.append(f"%cat = cann.ConcatV2D {', '.join(names)} {{concat_dim = 3 : i64, N = {len(channels)} : i64}} "
                 f": ({in_types}) -> {ty(cat)}")
    w = rng.normal(0, 0.5, (1, 1, total, cout)).astype(np.float32)
    lines.append(f"%wo = cann.Const {dense(w)} : {ty(w.shape)}")
    lines.append(f"%y = cann.Conv2D %cat, %wo {CONV} : ({ty(cat)}, {ty(w.shape)}) -> {ty((1, hw, hw, cout))}")
    lines.append(f"func.return %y : {ty((1, hw, hw, cout))}")
    want = np.einsum("nhwc,cd->nhwd", np.concatenate(pieces, axis=-1), w[0, 0])
    return "\n".join(lines), {"arg0": x}, (1, hw, hw, cout), want


@pytest.mark.parametrize("channels", [(16, 32), (24, 12, 20), (5, 16, 3)])
def test_concat_between_convs_runs_on_nc1hwc0(channels):
    body, args, ys, want = _concat_block(channels)
    text, y = compile_and_run(body, args, ys)
    # none: the graph's input (8 channels) is converted by the first convs' loads
    # (FoldInputTransData); the output's 16 channels are one C0 block, so its TransData is a
    # kernel.view (cann.stored_as_origin)
    assert text.count("kernel.transdata") == 0, text
    assert text.count("kernel.view") == 1, text
    aligned = all(c % 16 == 0 for c in channels[:-1])
    assert ('view = "concat_c0"' in text) != aligned
    np.testing.assert_allclose(y, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("channels", [(16, 32), (24, 12, 20)])
def test_concat_on_nc1hwc0_runs_on_the_planned_arena(channels):
    """Inputs at whole C0 blocks are written in place; the others are copied lane by lane over
    the padding of the previous one; run on one arena at the planned offsets."""
    from compiler.backend.offline_model import run_planned
    from compiler.ir.entry import main_func

    body, args, ys, want = _concat_block(channels, seed=1)
    sig = ", ".join(f"%{k}: {ty(v.shape)}" for k, v in args.items())
    text = (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main({sig}) -> {ty(ys)} {{\n{body}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel", "plan-memory"])
    module, _ = parse_module(ctx, module_to_text(module), "k.mlir")
    fn = main_func(module)
    assert mp.check_function(fn) == []
    concat = next(op for op in fn.body.blocks.first.ops if mp.is_concat(op))
    c = mp.read_plan(fn)
    flags = mp.in_place_inputs(c.collected, c.offsets, c.collected.launches.index(concat))
    # a piece at a channel offset on the C0 grid sits in its blocks of the result
    assert flags == [(sum(channels[:k]) % 16 == 0) for k in range(len(channels))]
    assert (mp.ELIDED_ATTR in concat.attributes) == all(flags)
    y = next(iter(run_planned(module, args).values()))
    np.testing.assert_allclose(y, want, atol=1e-5, rtol=1e-5)


def test_op_without_an_nc1hwc0_kernel_keeps_its_transdata_and_the_report_names_it():
    # conv -> TransposeD (ND only) -> conv: the TransData pair around the transpose stays
    rng = np.random.default_rng(2)
    w1 = rng.normal(0, 0.5, (1, 1, 8, 16)).astype(np.float32)
    w2 = rng.normal(0, 0.5, (1, 1, 16, 4)).astype(np.float32)
    text = f"""
builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{
func.func @main(%arg0: {ty((1, 4, 4, 8))}) -> {ty((1, 4, 4, 4))} {{
  %w1 = cann.Const {dense(w1)} : {ty(w1.shape)}
  %w2 = cann.Const {dense(w2)} : {ty(w2.shape)}
  %a = cann.Conv2D %arg0, %w1 {CONV} : ({ty((1, 4, 4, 8))}, {ty(w1.shape)}) -> {ty((1, 4, 4, 16))} loc("conv_a")
  %t = cann.TransposeD %a {{perm = array<i64: 0, 2, 1, 3>}} : ({ty((1, 4, 4, 16))}) -> {ty((1, 4, 4, 16))} loc("swap_hw")
  %y = cann.Conv2D %t, %w2 {CONV} : ({ty((1, 4, 4, 16))}, {ty(w2.shape)}) -> {ty((1, 4, 4, 4))} loc("conv_b")
  func.return %y : {ty((1, 4, 4, 4))}
}}
}}"""
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts"])
    lines = report_lines(module)
    assert lines[0].startswith("layout report: 4 TransData")
    assert sum("cann.TransposeD 'swap_hw': cann.TransposeD has no NC1HWC0 kernel" in ln
               for ln in lines) == 2
    assert sum(ln.endswith("graph input") for ln in lines) == 1
    assert sum(ln.endswith("graph output") for ln in lines) == 1


@pytest.mark.parametrize("parts,each", [(3, 8), (2, 16)])
def test_split_between_convs_runs_on_nc1hwc0(parts, each):
    """conv -> SplitD over C -> Relu per part -> ConcatV2 -> conv (a grouped conv as Keras
    builds it): the split gathers each part lane by lane when its channel offset is off the C0
    grid; TransData only at the graph's edges."""
    rng = np.random.default_rng(parts)
    x = rng.standard_normal((1, 4, 4, 8)).astype(np.float32)
    c = parts * each
    w0 = rng.normal(0, 0.5, (1, 1, 8, c)).astype(np.float32)
    w1 = rng.normal(0, 0.5, (1, 1, c, 16)).astype(np.float32)
    s4, p4, y4 = (1, 4, 4, c), (1, 4, 4, each), (1, 4, 4, 16)
    lines = [f"%w0 = cann.Const {dense(w0)} : {ty(w0.shape)}",
             f"%w1 = cann.Const {dense(w1)} : {ty(w1.shape)}",
             f"%a = cann.Conv2D %arg0, %w0 {CONV} : ({ty(x.shape)}, {ty(w0.shape)}) -> {ty(s4)}",
             f"%s:{parts} = cann.SplitD %a {{split_dim = 3 : i64, num_split = {parts} : i64}} : "
             f"({ty(s4)}) -> ({', '.join([ty(p4)] * parts)})"]
    for k in range(parts):
        lines.append(f"%r{k} = cann.Sigmoid %s#{k} : ({ty(p4)}) -> {ty(p4)}")
    lines.append(f"%cat = cann.ConcatV2D {', '.join(f'%r{k}' for k in reversed(range(parts)))} "
                 f"{{concat_dim = 3 : i64, N = {parts} : i64}} : ({', '.join([ty(p4)] * parts)}) -> {ty(s4)}")
    lines.append(f"%y = cann.Conv2D %cat, %w1 {CONV} : ({ty(s4)}, {ty(w1.shape)}) -> {ty(y4)}")
    lines.append(f"func.return %y : {ty(y4)}")
    text, y = compile_and_run("\n".join(lines), {"arg0": x}, y4)
    # the input's 8 channels: converted by the conv's loads; the output's 16 (one C0 block): a
    # kernel.view
    assert text.count("kernel.transdata") == 0, text
    assert ('view = "split_c0"' in text) == (each % 16 != 0)
    a = np.einsum("nhwc,cd->nhwd", x, w0[0, 0])
    pieces = np.split(1 / (1 + np.exp(-a)), parts, axis=-1)
    want = np.einsum("nhwc,cd->nhwd", np.concatenate(pieces[::-1], axis=-1), w1[0, 0])
    np.testing.assert_allclose(y, want, atol=1e-5, rtol=1e-5)


def test_strided_slice_over_h_w_runs_on_nc1hwc0():
    """conv -> StridedSlice [:, 1:, ::2, :] -> conv (NASNet's cropping after a pad): a slice of
    the stored NC1HWC0 array, C1 and C0 whole; no TransData kernel (the first conv's loads
    convert the input, the last conv's cube kernel stores the NHWC output itself)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 5, 6, 8)).astype(np.float32)
    w0 = rng.normal(0, 0.5, (1, 1, 8, 20)).astype(np.float32)
    w1 = rng.normal(0, 0.5, (1, 1, 20, 4)).astype(np.float32)
    a4, s4, y4 = (1, 5, 6, 20), (1, 4, 3, 20), (1, 4, 3, 4)
    body = f"""
  %w0 = cann.Const {dense(w0)} : {ty(w0.shape)}
  %w1 = cann.Const {dense(w1)} : {ty(w1.shape)}
  %a = cann.Conv2D %arg0, %w0 {CONV} : ({ty(x.shape)}, {ty(w0.shape)}) -> {ty(a4)}
  %s = cann.StridedSliceD %a {{begin = array<i64: 0, 1, 0, 0>, end = array<i64: 1, 5, 6, 20>, strides = array<i64: 1, 1, 2, 1>, begin_mask = 0 : i64, end_mask = 0 : i64, ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64}} : ({ty(a4)}) -> {ty(s4)}
  %y = cann.Conv2D %s, %w1 {CONV} : ({ty(s4)}, {ty(w1.shape)}) -> {ty(y4)}
  func.return %y : {ty(y4)}"""
    text, y = compile_and_run(body, {"arg0": x}, y4)
    assert text.count("kernel.transdata") == 0 and 'kind = "StridedSliceD"' in text, text
    a = np.einsum("nhwc,cd->nhwd", x, w0[0, 0])[:, 1:, ::2, :]
    np.testing.assert_allclose(y, np.einsum("nhwc,cd->nhwd", a, w1[0, 0]), atol=1e-5, rtol=1e-5)
