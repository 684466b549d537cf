"""Kernel level against TensorFlow: hand-written cann IR -> assign-layouts -> cann-to-kernel, the
kernel bodies executed tile by tile on the real layouts (padding included), compared with
TensorFlow's kernels on the same inputs (max abs <= 1e-4, fp32)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import compile_and_run, dense, ty  # noqa: F401

from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from dialects.common import dense_from_numpy  # noqa: F401
from tools.driver.pipelines import run_passes


def tf():
    from compiler.frontend.tf_loader import tensorflow
    return tensorflow()


CONV = [  # (H, W, Cin, Cout, k, stride, padding)
    (9, 9, 3, 20, 3, 1, "SAME"),
    (9, 9, 3, 20, 3, 2, "SAME"),
    (8, 7, 17, 33, 3, 1, "VALID"),
    (11, 10, 20, 5, 3, 2, "VALID"),
    (6, 6, 40, 24, 1, 1, "VALID"),
]


@pytest.mark.parametrize("h,w,cin,cout,k,s,padding", CONV)
def test_conv_kernel(h, w, cin, cout, k, s, padding):
    from compiler.target.conv_geometry import out_size, same_pads
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, h, w, cin)).astype(np.float32)
    f = rng.normal(0, 0.5, (k, k, cin, cout)).astype(np.float32)
    b = rng.normal(0, 0.5, (cout,)).astype(np.float32)
    pt, pb = same_pads(h, k, s, 1) if padding == "SAME" else (0, 0)
    pl, pr = same_pads(w, k, s, 1) if padding == "SAME" else (0, 0)
    ho, wo = out_size(h, k, s, 1, pt, pb), out_size(w, k, s, 1, pl, pr)
    yshape = (2, ho, wo, cout)
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %y = cann.FusedConv2D %x, %w, %b {{strides = array<i64: 1, {s}, {s}, 1>, pads = array<i64: {pt}, {pb}, {pl}, {pr}>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"}} : ({ty(x.shape)}, {ty(f.shape)}, {ty(b.shape)}) -> {ty(yshape)}
  func.return %y : {ty(yshape)}"""
    text, y = compile_and_run(body, {"x": x, "b": b}, yshape)
    # none: the input's folds into the cube kernel's loads (from_origin), the output's into its
    # store (to_origin)
    assert "kernel.cube" in text and "kernel.mmad" in text and text.count("kernel.transdata") == 0
    want = tf().nn.relu(tf().nn.bias_add(tf().nn.conv2d(x, f, s, padding), b)).numpy()
    assert np.abs(y - want).max() <= 1e-4


@pytest.mark.parametrize("c,mult,s,padding", [(32, 1, 1, "SAME"), (24, 1, 2, "SAME"),
                                              (8, 2, 1, "VALID"), (40, 1, 2, "VALID")])
def test_depthwise_kernel(c, mult, s, padding):
    from compiler.target.conv_geometry import out_size, same_pads
    rng = np.random.default_rng(1)
    h = w = 9
    x = rng.standard_normal((1, h, w, c)).astype(np.float32)
    f = rng.normal(0, 0.5, (3, 3, c, mult)).astype(np.float32)
    pt, pb = same_pads(h, 3, s, 1) if padding == "SAME" else (0, 0)
    ho = out_size(h, 3, s, 1, pt, pb)
    yshape = (1, ho, ho, c * mult)
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %y = cann.DepthwiseConv2D %x, %w {{strides = array<i64: 1, {s}, {s}, 1>, pads = array<i64: {pt}, {pb}, {pt}, {pb}>, dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"}} : ({ty(x.shape)}, {ty(f.shape)}) -> {ty(yshape)}
  func.return %y : {ty(yshape)}"""
    text, y = compile_and_run(body, {"x": x}, yshape)
    assert 'kind = "DepthwiseConv2D"' in text and f"groups {c}" in text
    want = tf().nn.depthwise_conv2d(x, f, [1, s, s, 1], padding).numpy()
    assert np.abs(y - want).max() <= 1e-4


@pytest.mark.parametrize("m,k,n,ta,tb,bias", [(17, 33, 20, 0, 0, True), (40, 50, 7, 1, 0, False),
                                              (5, 16, 130, 0, 1, True), (300, 70, 33, 1, 1, False)])
def test_matmul_kernel(m, k, n, ta, tb, bias):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    bv = rng.standard_normal((n,)).astype(np.float32)
    args = {"a": a, "b": b, **({"bv": bv} if bias else {})}
    ops = "%a, %b, %bv" if bias else "%a, %b"
    tys = ", ".join(ty(v.shape) for v in args.values())
    body = f"""
  %y = cann.MatMulV2 {ops} {{transpose_x1 = {ta} : i64, transpose_x2 = {tb} : i64}} : ({tys}) -> {ty((m, n))}
  func.return %y : {ty((m, n))}"""
    text, y = compile_and_run(body, args, (m, n))
    assert 'kind = "MatMulV2"' in text and 'view = "nz"' in text
    want = (a.T if ta else a) @ (b.T if tb else b) + (bv if bias else 0)
    assert np.abs(y - want).max() <= 1e-4


def test_batch_matmul_kernel():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 17, 24)).astype(np.float32)
    b = rng.standard_normal((1, 3, 20, 24)).astype(np.float32)  # adj_x2, batch broadcast
    body = f"""
  %y = cann.BatchMatMulV2 %a, %b {{adj_x1 = 0 : i64, adj_x2 = 1 : i64}} : ({ty(a.shape)}, {ty(b.shape)}) -> {ty((2, 3, 17, 20))}
  func.return %y : {ty((2, 3, 17, 20))}"""
    text, y = compile_and_run(body, {"a": a, "b": b}, (2, 3, 17, 20))
    assert 'kind = "BatchMatMulV2"' in text
    want = tf().linalg.matmul(a, np.broadcast_to(b, (2, 3, 20, 24)), adjoint_b=True).numpy()
    assert np.abs(y - want).max() <= 1e-4


@pytest.mark.parametrize("kind,k,s,padding,c", [("MaxPool", 3, 2, "SAME", 20), ("AvgPool", 3, 2, "SAME", 20),
                                                 ("MaxPool", 2, 2, "VALID", 16), ("AvgPool", 3, 1, "VALID", 3)])
def test_pool_kernel(kind, k, s, padding, c):
    from compiler.target.conv_geometry import out_size, same_pads
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 9, 9, c)).astype(np.float32)
    pt, pb = same_pads(9, k, s, 1) if padding == "SAME" else (0, 0)
    ho = out_size(9, k, s, 1, pt, pb)
    yshape = (2, ho, ho, c)
    body = f"""
  %y = cann.{kind} %x {{ksize = array<i64: 1, {k}, {k}, 1>, strides = array<i64: 1, {s}, {s}, 1>, padding = "{padding}", data_format = "NHWC"}} : ({ty(x.shape)}) -> {ty(yshape)}
  func.return %y : {ty(yshape)}"""
    text, y = compile_and_run(body, {"x": x}, yshape)
    assert "kernel.vec_kernel" in text and "PoolM" in text or "PoolA" in text
    fn = tf().nn.max_pool2d if kind == "MaxPool" else tf().nn.avg_pool2d
    want = fn(x, k, s, padding).numpy()
    assert np.abs(y - want).max() <= 1e-4


def test_elementwise_chain_on_nc1hwc0():
    """conv -> Sigmoid -> Mul (with a per-channel constant) -> Add (residual) stay in NC1HWC0;
    padded channels stay zero; only the two edge TransData remain."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 6, 6, 5)).astype(np.float32)
    f = rng.normal(0, 0.5, (1, 1, 5, 20)).astype(np.float32)
    sc = rng.standard_normal((20,)).astype(np.float32)
    ys = (1, 6, 6, 20)
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %s = cann.Const {dense(sc)} : {ty(sc.shape)}
  %c = cann.Conv2D %x, %w {{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"}} : ({ty(x.shape)}, {ty(f.shape)}) -> {ty(ys)}
  %g = cann.Sigmoid %c : ({ty(ys)}) -> {ty(ys)}
  %m = cann.Mul %g, %s : ({ty(ys)}, {ty(sc.shape)}) -> {ty(ys)}
  %r = cann.Add %m, %c : ({ty(ys)}, {ty(ys)}) -> {ty(ys)}
  func.return %r : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    # none: the input's folds into the conv's loads, the output's is the last vector kernel's
    # to_origin store
    assert text.count("kernel.transdata") == 0 and text.count("kernel.vec_kernel") == 3
    assert text.count('view = "to_origin"') == 1
    c = tf().nn.conv2d(x, f, 1, "VALID").numpy()
    want = 1 / (1 + np.exp(-c)) * sc + c
    assert np.abs(y - want).max() <= 1e-4


def test_dynamic_dim_is_a_diagnostic():
    from compiler.ir.diagnostics import OpError
    text = ('builtin.module attributes {cann.soc_version = "Ascend910B3"} {\n'
            "func.func @main(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {\n"
            '  %y = cann.Sigmoid %x : (tensor<?x8xf32>) -> tensor<?x8xf32> loc("act/Sigmoid")\n'
            "  func.return %y : tensor<?x8xf32>\n}\n}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    with pytest.raises(OpError) as e:
        run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    assert "dynamic dimension" in str(e.value.items[0][1])


def test_fused_ops_kernels():
    """FusedConv2DAdd (Relu6, + residual, post Relu), FusedDepthwiseConv2D (Swish) and FusedMatMul
    (Relu) lower to cube kernels whose UB epilogue matches the cann-level semantics."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 6, 6, 20)).astype(np.float32)
    res = rng.standard_normal((1, 6, 6, 20)).astype(np.float32)
    f = rng.normal(0, 0.3, (3, 3, 20, 20)).astype(np.float32)
    dwf = rng.normal(0, 0.3, (3, 3, 20, 1)).astype(np.float32)
    b = rng.normal(0, 0.3, (20,)).astype(np.float32)
    ys = (1, 6, 6, 20)
    conv_attrs = ('strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, '
                  'dilations = array<i64: 1, 1, 1, 1>, data_format = "NHWC"')
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %d = cann.Const {dense(dwf)} : {ty(dwf.shape)}
  %c = cann.FusedConv2DAdd %x, %w, %b, %r {{{conv_attrs}, groups = 1 : i64, activation = "Relu6", post_activation = "Relu"}} : ({ty(ys)}, {ty(f.shape)}, {ty(b.shape)}, {ty(ys)}) -> {ty(ys)}
  %e = cann.FusedDepthwiseConv2D %c, %d, %b {{{conv_attrs}, activation = "Swish"}} : ({ty(ys)}, {ty(dwf.shape)}, {ty(b.shape)}) -> {ty(ys)}
  func.return %e : {ty(ys)}"""
    ctx = make_context()
    sig = f"%x: {ty(ys)}, %b: {ty(b.shape)}, %r: {ty(ys)}"
    text = (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main({sig}) -> {ty(ys)} {{\n{body}\n}}\n}}")
    module, _ = parse_module(ctx, text, "t.mlir")
    inputs = {"arg0": x, "arg1": b, "arg2": res}
    want = next(iter(run_module(module, inputs).values()))  # cann level
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    out = module_to_text(module)
    assert out.count("kernel.cube") == 2 and 'fn = "act:Relu6"' in out and 'fn = "act:Swish"' in out
    # the residual r's (loaded GM -> UB by the epilogue); x's folds into the conv's loads, the
    # output's into the cube's store
    assert out.count("kernel.transdata") == 1
    got = next(iter(run_module(parse_module(ctx, out, "k.mlir")[0], inputs).values()))
    assert np.abs(got - want).max() <= 1e-4
    # and against TensorFlow
    t = tf()
    c = t.nn.relu(t.nn.relu6(t.nn.conv2d(x, f, 1, "SAME") + b) + res)
    e = t.nn.depthwise_conv2d(c, dwf, [1, 1, 1, 1], "SAME") + b
    assert np.abs(got - (e * t.sigmoid(e)).numpy()).max() <= 1e-4
