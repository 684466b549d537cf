"""Every cann op the tf -> cann mapping table can emit has a kernel lowering (issue #6).

`EMITTED` is read from the table (compiler/legalization.py, each Rule's CANN name).  Each such op
needs a sample below (a small cann-level function with static shapes), which must lower through
assign-layouts + cann-to-kernel with no cann op left, print and parse back identically, and
compute on the device layouts, tile by tile, what the cann-level semantics compute (those are
held against TensorFlow in test_legalization.py / test_control_flow.py).  An op the table emits
with neither a sample nor an `ALLOW` entry (with its reason) fails the guard."""

from __future__ import annotations

import os

import numpy as np
import pytest

from compiler.ir_io import make_context, module_to_text, parse_module
from compiler.legalization import RULES
from compiler.pipelines import run_passes
from compiler.runner import run_module

EMITTED = sorted({r.cann for r in RULES if not r.cann.startswith("(") and r.cann != "Const"})

#: ops the table emits that have no kernel lowering here yet, with the reason.
ALLOW: dict[str, str] = {}

#: ops whose kernel lowering needs more than one op to sample (functions by symbol), tested in
#: another file: op -> (test file, test function); the guard checks the test exists.
COVERED_ELSEWHERE: dict[str, tuple[str, str]] = {
    kind: ("test_control_flow.py", "test_kernel_level_control_flow_matches_tensorflow")
    for kind in ("If", "Case", "While")
}

F = "f32"
X2 = [((3, 37), F)]
UNARY = ["Relu", "Relu6", "Sigmoid", "Tanh", "Neg", "Sqrt", "Rsqrt", "Square", "Erf", "Erfc",
         "Exp", "Log", "Abs", "Reciprocal", "Softplus"]
BINARY = ["Add", "Mul", "Sub", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference"]
COMPARE = ["Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"]
POSITIVE = {"Sqrt", "Rsqrt", "Log", "Reciprocal", "Pow", "RealDiv"}
ARR = "array<i64: {}>"


def _a(*v) -> str:
    return ARR.format(", ".join(map(str, v)))


NHWC = [((1, 7, 9, 19), F)]
#: name -> (argument (shape, dtype)s, result (shape, dtype)s, op text: "cann.X"(...) <{...}>)
SAMPLES: dict[str, tuple] = {
    **{n: (X2, X2, f'"cann.{n}"(%a0)') for n in UNARY},
    "Elu": (X2, X2, '"cann.Elu"(%a0) <{alpha = 1.0 : f32}>'),
    "LeakyRelu": (X2, X2, '"cann.LeakyRelu"(%a0) <{negative_slope = 0.2 : f32}>'),
    **{n: ([((3, 37), F), ((37,), F)], X2, f'"cann.{n}"(%a0, %a1)') for n in BINARY},
    **{n: ([((3, 37), "i32"), ((3, 1), "i32")], [((3, 37), "i1")], f'"cann.{n}"(%a0, %a1)')
       for n in COMPARE},
    "LogicalAnd": ([((5, 33), "i1"), ((33,), "i1")], [((5, 33), "i1")],
                   '"cann.LogicalAnd"(%a0, %a1)'),
    "LogicalOr": ([((5, 33), "i1")] * 2, [((5, 33), "i1")], '"cann.LogicalOr"(%a0, %a1)'),
    "LogicalNot": ([((5, 33), "i1")], [((5, 33), "i1")], '"cann.LogicalNot"(%a0)'),
    "SelectV2": ([((3, 37), "i1"), ((3, 37), F), ((37,), F)], X2, '"cann.SelectV2"(%a0, %a1, %a2)'),
    "Cast": (X2, [((3, 37), "i32")], '"cann.Cast"(%a0) <{dst_type = i32}>'),
    "BiasAdd": (NHWC + [((19,), F)], NHWC, '"cann.BiasAdd"(%a0, %a1) <{data_format = "NHWC"}>'),
    "Conv2D": (NHWC + [((3, 3, 19, 5), F)], [((1, 7, 9, 5), F)],
               f'"cann.Conv2D"(%a0, %a1) <{{strides = {_a(1, 1, 1, 1)}, pads = {_a(1, 1, 1, 1)}, '
               f'dilations = {_a(1, 1, 1, 1)}, groups = 1 : i64, data_format = "NHWC"'
               '}> {operandSegmentSizes = array<i32: 1, 1, 0>}'),
    "DepthwiseConv2D": (NHWC + [((3, 3, 19, 1), F)], NHWC,
                        f'"cann.DepthwiseConv2D"(%a0, %a1) <{{strides = {_a(1, 1, 1, 1)}, '
                        f'pads = {_a(1, 1, 1, 1)}, dilations = {_a(1, 1, 1, 1)}, '
                        'data_format = "NHWC"}> {operandSegmentSizes = array<i32: 1, 1, 0>}'),
    "BNInfer": (NHWC + [((19,), F)] * 4, NHWC,
                '"cann.BNInfer"(%a0, %a1, %a2, %a3, %a4) <{epsilon = 1.0e-3 : f32, '
                'data_format = "NHWC"}>'),
    "MatMulV2": ([((20, 33), F), ((33, 17), F)], [((20, 17), F)],
                 '"cann.MatMulV2"(%a0, %a1) <{transpose_x1 = 0 : i64, transpose_x2 = 0 : i64'
                 '}> {operandSegmentSizes = array<i32: 1, 1, 0>}'),
    "BatchMatMulV2": ([((2, 20, 33), F), ((2, 33, 17), F)], [((2, 20, 17), F)],
                      '"cann.BatchMatMulV2"(%a0, %a1) <{adj_x1 = 0 : i64, adj_x2 = 0 : i64'
                      '}> {operandSegmentSizes = array<i32: 1, 1, 0>}'),
    "SoftmaxV2": (X2, X2, f'"cann.SoftmaxV2"(%a0) <{{axes = {_a(-1)}}}>'),
    **{n: (NHWC, [((1, 4, 5, 19), F)],
           f'"cann.{n}"(%a0) <{{ksize = {_a(1, 3, 3, 1)}, strides = {_a(1, 2, 2, 1)}, '
           'padding = "SAME", data_format = "NHWC"}>') for n in ("MaxPool", "AvgPool")},
    **{f"Reduce{n}D": ([((3, 5, 7), F)], [((3, 7), F)],
                       f'"cann.Reduce{n}D"(%a0) <{{axes = {_a(1)}, keep_dims = 0 : i64}}>')
       for n in ("Mean", "Sum", "Max", "Min", "Prod")},
    "TransposeD": ([((3, 5, 7), F)], [((7, 3, 5), F)], f'"cann.TransposeD"(%a0) <{{perm = {_a(2, 0, 1)}}}>'),
    "PadD": (X2, [((6, 38), F)], f'"cann.PadD"(%a0) <{{paddings = {_a(1, 2, 0, 1)}}}>'),
    "PadV2D": (X2, [((6, 38), F)],
               f'"cann.PadV2D"(%a0) <{{paddings = {_a(1, 2, 0, 1)}, constant_values = -1.5 : f32}}>'),
    "MirrorPad": (X2, [((7, 40), F)],
                  f'"cann.MirrorPad"(%a0) <{{paddings = {_a(2, 2, 1, 2)}, mode = "REFLECT"}}>'),
    "ConcatV2D": ([((3, 37), F), ((3, 5), F)], [((3, 42), F)],
                  '"cann.ConcatV2D"(%a0, %a1) <{concat_dim = 1 : i64, N = 2 : i64}>'),
    "GatherV2D": ([((11, 6), F), ((4,), "i32")], [((4, 6), F)],
                  '"cann.GatherV2D"(%a0, %a1) <{axis = 0 : i64}>'),
    "StridedSliceD": ([((6, 10), F)], [((3, 4), F)],
                      f'"cann.StridedSliceD"(%a0) <{{begin = {_a(0, 1)}, end = {_a(6, 9)}, '
                      f'strides = {_a(2, 2)}, begin_mask = 0 : i64, end_mask = 0 : i64, '
                      'ellipsis_mask = 0 : i64, new_axis_mask = 0 : i64, '
                      'shrink_axis_mask = 0 : i64}>'),
    "Reshape": (X2, [((111,), F)], f'"cann.Reshape"(%a0) <{{shape = {_a(111)}}}>'),
    **{n: ([((1, 5, 6, 3), F)], [((1, 8, 7, 3), F)],
           '"cann.Const"() <{value = dense<[8, 7]> : tensor<2xi32>}> : () -> tensor<2xi32>\n'
           f'  %r = "cann.{n}"(%a0, %s) <{{align_corners = 0 : i64, half_pixel_centers = 1 : i64}}>')
       for n in ("ResizeBilinearV2", "ResizeNearestNeighborV2")},
    "SplitD": ([((4, 9), F)], [((4, 3), F)] * 3,
               '"cann.SplitD"(%a0) <{split_dim = 1 : i64, num_split = 3 : i64}>'),
    "SplitVD": ([((4, 9), F)], [((4, 2), F), ((4, 0), F), ((4, 7), F)],
                f'"cann.SplitVD"(%a0) <{{size_splits = {_a(2, 0, 7)}, split_dim = -1 : i64, '
                'num_split = 3 : i64}>'),
    "Cumsum": ([((3, 5, 7), F)], [((3, 5, 7), F)],
               '"cann.Cumsum"(%a0) <{axis = 1 : i64, exclusive = false, reverse = true}>'),
}


def _t(shape, dt) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dt}>"


def sample_module(name: str) -> str:
    args, results, text = SAMPLES[name]
    sig = ", ".join(f"%a{i}: {_t(*a)}" for i, a in enumerate(args))
    ins = ", ".join(_t(*a) for a in args)
    outs = ", ".join(_t(*r) for r in results)
    rs = ", ".join(f"%r#{i}" for i in range(len(results))) if len(results) > 1 else "%r"
    head = f"%r:{len(results)}" if len(results) > 1 else "%r"
    if text.startswith('"cann.Const"'):  # resize: the size constant first
        const, op = text.split("\n")
        body = f"  %s = {const}\n{op} : ({ins}, tensor<2xi32>) -> {outs}\n"
    else:
        body = f"  {head} = {text} : ({ins}) -> ({outs})\n"
    return (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main({sig}) -> ({outs}) {{\n{body}  func.return {rs} : {outs}\n}}\n}}\n")


def _inputs(name: str, args, rng) -> dict[str, np.ndarray]:
    out = {}
    for i, (shape, dt) in enumerate(args):
        if dt == "i1":
            v = rng.random(shape) < 0.5
        elif dt == "i32":
            hi = SAMPLES[name][0][0][0][0] if name == "GatherV2D" else 4
            v = rng.integers(0 if name == "GatherV2D" else -3, hi, shape).astype(np.int32)
        else:
            v = np.round(rng.uniform(-2, 2, shape) * 4).astype(np.float32) / 4
            if name in POSITIVE:
                v = np.abs(v) + 0.5
        out[f"arg{i}"] = v
    return out


def test_every_emitted_op_has_a_kernel_or_a_reason():
    missing = [n for n in EMITTED if n not in SAMPLES and n not in ALLOW
               and n not in COVERED_ELSEWHERE]
    assert not missing, f"cann ops the table emits with no kernel sample here: {missing}"
    stale = [n for n in ALLOW if n in SAMPLES or n not in EMITTED]
    assert not stale, f"allow-list entries that are covered or no longer emitted: {stale}"
    assert all(ALLOW.values())
    here = os.path.dirname(os.path.abspath(__file__))
    for op, (file, test) in COVERED_ELSEWHERE.items():
        with open(os.path.join(here, file)) as f:
            assert f"def {test}(" in f.read(), f"{op}: {file} has no {test}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_lowers_and_matches_cann_semantics(name):
    ctx = make_context()
    text = sample_module(name)
    module, _ = parse_module(ctx, text, f"{name}.mlir")
    inputs = _inputs(name, SAMPLES[name][0], np.random.default_rng(len(name)))
    want = run_module(module, inputs)
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    out = module_to_text(module)
    left = [o.name for o in module.walk() if o.dialect_name() == "cann" and o.name != "cann.Const"]
    assert not left, left
    module, _ = parse_module(ctx, out, f"{name}.kernel.mlir")
    assert module_to_text(module) == out  # the kernel IR round-trips
    got = run_module(module, inputs)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=2e-6, atol=1e-6, equal_nan=True,
                                   err_msg=f"{name} {k}")
