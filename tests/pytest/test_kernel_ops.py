"""Kernel lowerings of the ops whole models need (softmax, layer norm, reductions, padding,
reshape views, multi-head attention, the squeeze-excite layout rule): cann IR -> assign-layouts
-> cann-to-kernel, printed, re-parsed, run tile by tile on the device layouts and compared with
TensorFlow's kernels (max abs <= 1e-4, fp32)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import compile_and_run, dense, ty  # noqa: F401

from compiler.interpreters.execute import run_module
from compiler.ir.diagnostics import OpError
from compiler.ir.ir_io import make_context, parse_module
from tools.driver.pipelines import run_passes


def tf():
    from compiler.frontend.tf_loader import tensorflow
    return tensorflow()


RNG = np.random.default_rng(7)


def conv_prefix(x_shape, cout, name="%c"):
    """A 1x1 conv (+ Relu) so the op under test sees an NC1HWC0 input."""
    cin = x_shape[-1]
    w = RNG.normal(0, 0.5, (1, 1, cin, cout)).astype(np.float32)
    b = RNG.normal(0, 0.5, (cout,)).astype(np.float32)
    y = (*x_shape[:-1], cout)
    text = f"""
  %w = cann.Const {dense(w)} : {ty(w.shape)}
  %b = cann.Const {dense(b)} : {ty(b.shape)}
  {name} = cann.FusedConv2D %x, %w, %b {{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"}} : ({ty(x_shape)}, {ty(w.shape)}, {ty(b.shape)}) -> {ty(y)}"""

    def ref(x):
        return tf().nn.relu(tf().nn.conv2d(x, w, 1, "VALID") + b).numpy()
    return text, y, ref


@pytest.mark.parametrize("shape", [(3, 5, 37), (1, 1000), (2, 300)])
def test_softmax_kernel(shape):
    x = RNG.standard_normal(shape).astype(np.float32) * 3
    body = f"""
  %y = cann.SoftmaxV2 %x {{axes = array<i64: -1>}} : ({ty(shape)}) -> {ty(shape)}
  func.return %y : {ty(shape)}"""
    text, y = compile_and_run(body, {"x": x}, shape)
    assert 'kind = "SoftmaxV2"' in text and 'fn = "RowMax"' in text and 'view = "rows"' in text
    assert np.abs(y - tf().nn.softmax(x).numpy()).max() <= 1e-4


@pytest.mark.parametrize("add", [False, True])
def test_layer_norm_kernel(add):
    shape = (2, 7, 40)
    x1 = RNG.standard_normal(shape).astype(np.float32)
    x2 = RNG.standard_normal(shape).astype(np.float32)
    g = RNG.uniform(0.5, 1.5, (40,)).astype(np.float32)
    b = RNG.normal(0, 0.3, (40,)).astype(np.float32)
    if add:
        op = (f"%y = cann.AddLayerNorm %a, %c, %g, %b {{begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, "
              f"epsilon = 1.0e-12 : f32}} : ({ty(shape)}, {ty(shape)}, {ty(g.shape)}, {ty(b.shape)}) -> {ty(shape)}")
        args = {"a": x1, "c": x2, "g": g, "b": b}
    else:
        op = (f"%y = cann.LayerNorm %a, %g, %b {{begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, "
              f"epsilon = 1.0e-3 : f32}} : ({ty(shape)}, {ty(g.shape)}, {ty(b.shape)}) -> {ty(shape)}")
        args = {"a": x1, "g": g, "b": b}
    text, y = compile_and_run(f"  {op}\n  func.return %y : {ty(shape)}", args, shape)
    assert 'fn = "RowMean"' in text and 'fn = "Rsqrt"' in text
    ln = tf().keras.layers.LayerNormalization(epsilon=1e-12 if add else 1e-3)
    ln.build(shape)
    ln.set_weights([g, b])
    want = ln(x1 + x2 if add else x1).numpy()
    assert np.abs(y - want).max() <= 1e-4


@pytest.mark.parametrize("op,keep,hw", [("ReduceMeanD", False, 5), ("ReduceMeanD", True, 5),
                                        ("ReduceMaxD", True, 6), ("ReduceSumD", False, 3),
                                        ("ReduceMeanD", False, 112)])
def test_reduce_hw_kernel(op, keep, hw):
    """Global pooling on NC1HWC0: keep_dims -> NC1HWC0, else FRACTAL_NZ of [N, C]; two
    TransData in all.  112x112 needs several UB chunks of H*W."""
    xs = (2, hw, hw, 3)
    pre, cs, ref = conv_prefix(xs, 20)
    ys = (2, 1, 1, 20) if keep else (2, 20)
    x = RNG.standard_normal(xs).astype(np.float32)
    body = f"""{pre}
  %y = cann.{op} %c {{axes = array<i64: 1, 2>, keep_dims = {str(keep).lower()}}} : ({ty(cs)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    # none: the input's folds into the conv's loads; the reduction stores its result through the
    # to_origin view
    assert text.count("kernel.transdata") == 0 and 'view = "chunk_rows"' in text
    assert 'view = "to_origin"' in text
    assert ('view = "nz_rows"' in text) == (not keep)
    fn = {"ReduceMeanD": tf().reduce_mean, "ReduceMaxD": tf().reduce_max,
          "ReduceSumD": tf().reduce_sum}[op]
    want = fn(ref(x), axis=[1, 2], keepdims=keep).numpy()
    assert np.abs(y - want).max() <= 1e-4 * max(1.0, np.abs(want).max())


def test_reduce_trailing_axes_plain():
    x = RNG.standard_normal((4, 6, 10)).astype(np.float32)
    body = f"""
  %y = cann.ReduceMeanD %x {{axes = array<i64: 1, 2>, keep_dims = false}} : ({ty(x.shape)}) -> {ty((4,))}
  func.return %y : {ty((4,))}"""
    _, y = compile_and_run(body, {"x": x}, (4,))
    assert np.abs(y - x.mean(axis=(1, 2))).max() <= 1e-5


def test_squeeze_excite_layout_rule():
    """EfficientNet's SE: Mean without keep_dims, Reshape to [N,1,1,C], 1x1 convs, Mul: only the
    model's input and output TransData remain; the Reshape disappears."""
    xs = (1, 6, 6, 5)
    pre, cs, ref = conv_prefix(xs, 24)
    w1 = RNG.normal(0, 0.5, (1, 1, 24, 6)).astype(np.float32)
    w2 = RNG.normal(0, 0.5, (1, 1, 6, 24)).astype(np.float32)
    x = RNG.standard_normal(xs).astype(np.float32)
    conv = ('{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = '
            'array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC", activation = "%s"}')
    body = f"""{pre}
  %m = cann.ReduceMeanD %c {{axes = array<i64: 1, 2>, keep_dims = false}} : ({ty(cs)}) -> {ty((1, 24))}
  %r = cann.Reshape %m {{shape = array<i64: 1, 1, 1, 24>}} : ({ty((1, 24))}) -> {ty((1, 1, 1, 24))}
  %w1 = cann.Const {dense(w1)} : {ty(w1.shape)}
  %s1 = cann.FusedConv2D %r, %w1 {conv % "Swish"} : ({ty((1, 1, 1, 24))}, {ty(w1.shape)}) -> {ty((1, 1, 1, 6))}
  %w2 = cann.Const {dense(w2)} : {ty(w2.shape)}
  %s2 = cann.FusedConv2D %s1, %w2 {conv % "Sigmoid"} : ({ty((1, 1, 1, 6))}, {ty(w2.shape)}) -> {ty((1, 1, 1, 24))}
  %y = cann.Mul %c, %s2 : ({ty(cs)}, {ty((1, 1, 1, 24))}) -> {ty(cs)}
  func.return %y : {ty(cs)}"""
    text, y = compile_and_run(body, {"x": x}, cs)
    # none (input: the conv's converting loads; output: to_origin store)
    assert text.count("kernel.transdata") == 0 and "kernel.view" not in text
    assert 'view = "to_origin"' in text
    c = ref(x)
    m = c.mean(axis=(1, 2), keepdims=True)
    s1 = tf().nn.conv2d(m, w1, 1, "VALID").numpy()
    s1 = s1 / (1 + np.exp(-s1))
    s2 = 1 / (1 + np.exp(-tf().nn.conv2d(s1, w2, 1, "VALID").numpy()))
    assert np.abs(y - c * s2).max() <= 1e-4


def test_pad_kernels():
    """PadD after a conv, whose cube kernel stores NHWC (its output TransData folded), so the
    pad reads plain rows; and on a plain tensor.  (PadD on NC1HWC0: lit assign_layouts_channels.)"""
    xs = (1, 5, 4, 3)
    pre, cs, ref = conv_prefix(xs, 18)
    ys = (1, 8, 5, 18)
    x = RNG.standard_normal(xs).astype(np.float32)
    body = f"""{pre}
  %y = cann.PadD %c {{paddings = array<i64: 0, 0, 1, 2, 0, 1, 0, 0>}} : ({ty(cs)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    assert text.count("kernel.transdata") == 0 and 'view = "pad_rows"' in text  # input: conv loads
    want = tf().pad(ref(x), [[0, 0], [1, 2], [0, 1], [0, 0]]).numpy()
    assert np.abs(y - want).max() <= 1e-5
    p = RNG.standard_normal((3, 7)).astype(np.float32)
    body = f"""
  %y = cann.PadD %x {{paddings = array<i64: 1, 0, 2, 3>}} : ({ty(p.shape)}) -> {ty((4, 12))}
  func.return %y : {ty((4, 12))}"""
    _, y = compile_and_run(body, {"x": p}, (4, 12))
    assert np.array_equal(y, np.pad(p, [(1, 0), (2, 3)]))


def test_reshape_is_a_view_and_constants_fold():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    k = RNG.standard_normal((24,)).astype(np.float32)
    body = f"""
  %k = cann.Const {dense(k)} : {ty(k.shape)}
  %kr = cann.Reshape %k {{shape = array<i64: 6, 4>}} : ({ty(k.shape)}) -> {ty((6, 4))}
  %r = cann.Reshape %x {{shape = array<i64: 6, 4>}} : ({ty(x.shape)}) -> {ty((6, 4))}
  %y = cann.Add %r, %kr : ({ty((6, 4))}, {ty((6, 4))}) -> {ty((6, 4))}
  func.return %y : {ty((6, 4))}"""
    text, y = compile_and_run(body, {"x": x}, (6, 4))
    assert text.count("kernel.view") == 1  # the constant's reshape folded at compile time
    assert np.array_equal(y, x.reshape(6, 4) + k.reshape(6, 4))


def test_multi_head_attention_kernels():
    b, s, hid, heads = 2, 24, 32, 4
    d = hid // heads
    x = RNG.standard_normal((b, s, hid)).astype(np.float32)
    w = RNG.normal(0, 0.3, (hid, 3 * hid)).astype(np.float32)
    bias = RNG.normal(0, 0.3, (3 * hid,)).astype(np.float32)
    ys = (b, s, heads, d)
    body = f"""
  %w = cann.Const {dense(w)} : {ty(w.shape)}
  %bias = cann.Const {dense(bias)} : {ty(bias.shape)}
  %y = cann.FusedMultiHeadAttention %x, %w, %bias {{num_heads = {heads} : i64, scale = {1 / np.sqrt(d)} : f32}} : ({ty(x.shape)}, {ty(w.shape)}, {ty(bias.shape)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    assert text.count("kernel.cube") == 3 and 'kind = "SoftmaxV2"' in text and 'view = "heads"' in text
    T = tf()
    qkv = T.matmul(x, w) + bias
    q, k, v = (T.transpose(T.reshape(t, (b, s, heads, d)), (0, 2, 1, 3)) for t in T.split(qkv, 3, -1))
    p = T.nn.softmax(T.matmul(q, k, transpose_b=True) / np.sqrt(d))
    want = T.transpose(T.matmul(p, v), (0, 2, 1, 3)).numpy()
    assert np.abs(y - want).max() <= 1e-4


def test_unlowerable_op_is_a_diagnostic():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    text = (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main(%x: {ty(x.shape)}) -> {ty(x.shape)} {{\n"
            f'  %y = cann.SoftmaxV2 %x {{axes = array<i64: 0>}} : ({ty(x.shape)}) -> {ty(x.shape)} loc("sm")\n'
            f"  func.return %y : {ty(x.shape)}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    with pytest.raises(OpError) as e:
        run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    assert "SoftmaxV2" in str(e.value) and "only the last axis" in str(e.value)


# --- Cast, SelectV2, FusedKernel, BNInfer: vector kernels with explicit bodies -----------------

def test_cast_kernel_nc1hwc0():
    """Cast of a conv output (NC1HWC0, C = 20 padded to 32) to f16 and back: fp32 -> fp16 is
    TensorFlow's rounding, and the padding channels stay zero."""
    x = RNG.standard_normal((1, 5, 6, 3)).astype(np.float32)
    pre, y, ref = conv_prefix(x.shape, 20)
    h = f"tensor<{'x'.join(map(str, y))}xf16>"
    body = f"""{pre}
  %h = cann.Cast %c {{dst_type = f16}} : ({ty(y)}) -> {h}
  %o = cann.Cast %h {{dst_type = f32}} : ({h}) -> {ty(y)}
  func.return %o : {ty(y)}"""
    text, out = compile_and_run(body, {"x": x}, y)
    assert text.count('fn = "Cast"') == 2 and 'kind = "Elementwise"' in text
    want = tf().cast(tf().cast(ref(x), tf().float16), tf().float32).numpy()
    assert np.array_equal(out, want)


def test_cast_kernel_to_int():
    x = (RNG.standard_normal((3, 70)) * 50).astype(np.float32)
    body = f"""
  %i = cann.Cast %x {{dst_type = i32}} : ({ty(x.shape)}) -> tensor<3x70xi32>
  %o = cann.Cast %i {{dst_type = f32}} : (tensor<3x70xi32>) -> {ty(x.shape)}
  func.return %o : {ty(x.shape)}"""
    _, out = compile_and_run(body, {"x": x}, x.shape)
    want = tf().cast(tf().cast(x, tf().int32), tf().float32).numpy()
    assert np.array_equal(out, want)


def test_select_v2_kernel_broadcast():
    """SelectV2 with a broadcast condition ([70] against [3, 70]) and a broadcast else value."""
    cond = RNG.standard_normal((70,)) > 0
    x = RNG.standard_normal((3, 70)).astype(np.float32)
    e = RNG.standard_normal((1, 70)).astype(np.float32)
    c_dense = "dense<[" + ", ".join("true" if b else "false" for b in cond) + "]>"
    body = f"""
  %c = cann.Const {c_dense} : tensor<70xi1>
  %e = cann.Const {dense(e)} : {ty(e.shape)}
  %y = cann.SelectV2 %c, %x, %e : (tensor<70xi1>, {ty(x.shape)}, {ty(e.shape)}) -> {ty(x.shape)}
  func.return %y : {ty(x.shape)}"""
    text, out = compile_and_run(body, {"x": x}, x.shape)
    assert 'fn = "SelectV2"' in text
    assert np.array_equal(out, tf().where(cond, x, e).numpy())


def test_fused_kernel_on_nc1hwc0():
    """A cann.FusedKernel (exact GELU, * 2 + x, sigmoid) on an NC1HWC0 tensor that no cube
    kernel produces (a conv, then a 1x1 max pool, so the fused kernel cannot be the conv's
    epilogue): assign-layouts moves it onto NC1HWC0, the body runs as kernel.vec ops on each
    tile of the pool kernel (a pool is OutputFusable: the fused kernel is its epilogue), and the
    8 padding channels stay zero although sigmoid(0) = 0.5."""
    x = RNG.standard_normal((1, 4, 5, 3)).astype(np.float32)
    pre, y, ref = conv_prefix(x.shape, 24)
    t = ty(y)
    body = f"""{pre}
  %p = cann.MaxPool %c {{ksize = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1, 1, 1>, padding = "VALID", data_format = "NHWC"}} : ({t}) -> {t}
  %g = cann.FusedKernel %p : ({t}) -> {t} {{
  ^bb0(%a: {t}):
    %e = cann.GeluErf %a : ({t}) -> {t}
    %k = cann.Const dense<2.0> : tensor<f32>
    %m = cann.Mul %e, %k : ({t}, tensor<f32>) -> {t}
    %s = cann.Add %m, %a : ({t}, {t}) -> {t}
    %q = cann.Sigmoid %s : ({t}) -> {t}
    cann.Yield %q : {t}
  }}
  func.return %g : {t}"""
    text, out = compile_and_run(body, {"x": x}, y)
    fused = text[text.index('kind = "MaxPool"'):]  # the pool kernel with its epilogue, after the conv's
    assert [fused.count(f'fn = "{f}"') for f in ("GeluErf", "Duplicate", "Mul", "Sigmoid")] == [1, 1, 1, 1]
    r = ref(x)
    want = tf().sigmoid(tf().nn.gelu(r, approximate=False) * 2.0 + r).numpy()
    assert np.abs(out - want).max() <= 1e-5


@pytest.mark.parametrize("conv", [True, False])
def test_bninfer_kernel(conv):
    """BNInfer per channel: on NC1HWC0 (after a conv, C = 20 not a multiple of C0) and on a
    row-major ND tensor (channels last)."""
    shape = (1, 5, 6, 3)
    x = RNG.standard_normal(shape).astype(np.float32)
    c = 20 if conv else 3
    mean, off = (RNG.normal(0, 0.5, (c,)).astype(np.float32) for _ in range(2))
    var, scale = (RNG.uniform(0.5, 1.5, (c,)).astype(np.float32) for _ in range(2))
    if conv:
        pre, y, ref = conv_prefix(shape, c)
        src = "%c"
    else:
        pre, y, ref = "", shape, (lambda a: a)
        src = "%x"
    consts = "\n".join(f"  %{n} = cann.Const {dense(a)} : {ty(a.shape)}"
                       for n, a in (("s", scale), ("o", off), ("m", mean), ("v", var)))
    p = ty((c,))
    body = f"""{pre}
{consts}
  %y = cann.BNInfer {src}, %s, %o, %m, %v {{epsilon = 1.0e-03 : f32, data_format = "{'NHWC' if conv else 'ND'}"}} : ({ty(y)}, {p}, {p}, {p}, {p}) -> {ty(y)}
  func.return %y : {ty(y)}"""
    text, out = compile_and_run(body, {"x": x}, y)
    assert 'view = "channel_flat"' in text and 'fn = "Rsqrt"' in text
    want = tf().nn.batch_normalization(ref(x), mean, var, off, scale, 1e-3).numpy()
    assert np.abs(out - want).max() <= 1e-4


# --- TransposeD, ConcatV2D: data-movement vector kernels with explicit bodies ----------------

@pytest.mark.parametrize("shape,perm", [((2, 3, 5, 7), (2, 0, 3, 1)), ((4, 70), (1, 0)),
                                        ((1, 5, 2, 4), (0, 2, 1, 3))])
def test_transpose_kernel(shape, perm):
    x = RNG.standard_normal(shape).astype(np.float32)
    ys = tuple(shape[p] for p in perm)
    body = f"""
  %y = cann.TransposeD %x {{perm = array<i64: {", ".join(map(str, perm))}>}} : ({ty(shape)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    assert 'kind = "TransposeD"' in text and 'view = "transpose_flat"' in text
    assert np.abs(y - tf().transpose(x, perm).numpy()).max() <= 1e-4


def test_transpose_kernel_after_conv():
    """x comes from a conv (NC1HWC0): assign-layouts brings it back to NHWC with a TransData,
    which folds into the conv's stores (to_origin), as the input's folds into its loads."""
    xs = (1, 4, 5, 3)
    pre, cs, ref = conv_prefix(xs, 18)
    ys = (1, 18, 4, 5)
    x = RNG.standard_normal(xs).astype(np.float32)
    body = f"""{pre}
  %y = cann.TransposeD %c {{perm = array<i64: 0, 3, 1, 2>}} : ({ty(cs)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    assert 'kind = "TransposeD"' in text and "kernel.transdata" not in text
    assert np.abs(y - tf().transpose(ref(x), (0, 3, 1, 2)).numpy()).max() <= 1e-4


@pytest.mark.parametrize("shapes,axis", [([(2, 3, 5), (2, 4, 5)], 1), ([(3, 70), (2, 70), (1, 70)], 0),
                                         ([(2, 3, 33), (2, 3, 1)], -1)])
def test_concat_kernel(shapes, axis):
    xs = {f"x{i}": RNG.standard_normal(s).astype(np.float32) for i, s in enumerate(shapes)}
    want = tf().concat(list(xs.values()), axis).numpy()
    names = ", ".join(f"%{k}" for k in xs)
    types = ", ".join(ty(s) for s in shapes)
    body = f"""
  %y = cann.ConcatV2D {names} {{concat_dim = {axis} : i64, N = {len(shapes)} : i64}} : ({types}) -> {ty(want.shape)}
  func.return %y : {ty(want.shape)}"""
    text, y = compile_and_run(body, xs, want.shape)
    assert 'kind = "ConcatV2D"' in text and text.count('view = "concat_flat"') == len(shapes)
    assert np.abs(y - want).max() <= 1e-4


def test_concat_kernel_after_convs():
    """Concat along C of two conv outputs (NC1HWC0, C not a multiple of C0): row-major via TransData."""
    xs = (1, 4, 5, 3)
    pre1, cs1, ref1 = conv_prefix(xs, 18, "%c1")
    pre2, cs2, ref2 = conv_prefix(xs, 7, "%c2")
    ys = (1, 4, 5, 25)
    x = RNG.standard_normal(xs).astype(np.float32)
    body = f"""{pre1}{pre2.replace("%w ", "%w2 ").replace("%b ", "%b2 ").replace("%w,", "%w2,").replace("%b {", "%b2 {")}
  %y = cann.ConcatV2D %c1, %c2 {{concat_dim = 3 : i64, N = 2 : i64}} : ({ty(cs1)}, {ty(cs2)}) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, y = compile_and_run(body, {"x": x}, ys)
    assert 'kind = "ConcatV2D"' in text
    want = tf().concat([ref1(x), ref2(x)], 3).numpy()
    assert np.abs(y - want).max() <= 1e-4


def test_concat_kernel_plans_in_place():
    """plan-memory recognises the ConcatV2D kernel: with leading dims 1 its inputs are written
    into their slabs of the result and the concat is elided."""
    from compiler.backend import memory_plan as mp

    a = RNG.standard_normal((1, 4, 64)).astype(np.float32)
    ts = ty((1, 4, 64))
    text = (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main(%a: {ts}, %b: {ts}) -> {ty((1, 8, 64))} {{\n"
            f"  %ra = cann.Relu %a : ({ts}) -> {ts}\n  %rb = cann.Relu %b : ({ts}) -> {ts}\n"
            f"  %c = cann.ConcatV2D %ra, %rb {{concat_dim = 1 : i64, N = 2 : i64}} : ({ts}, {ts}) -> {ty((1, 8, 64))}\n"
            f"  %y = cann.Relu %c : ({ty((1, 8, 64))}) -> {ty((1, 8, 64))}\n"
            f"  func.return %y : {ty((1, 8, 64))}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    fn = next(o for o in module.walk() if o.name == "func.func")
    plan = mp.plan_function(fn)
    assert plan.concat_inplace == 2
    assert any(mp.ELIDED_ATTR in o.attributes for o in fn.body.walk()
               if getattr(o.properties.get("kind"), "data", None) == "ConcatV2D")
    assert mp.check_function(fn) == []
    res = run_module(module, {"arg0": a, "arg1": -a})
    y = next(iter(res.values()))
    assert np.abs(y - np.maximum(np.concatenate([np.maximum(a, 0), np.maximum(-a, 0)], 1), 0)).max() <= 1e-6


# (begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
SLICES = [
    ((1, 0, -2), (4, 6, 0), (2, 2, 1), 0, 0, 0, 0, 4),
    ((0, 5, 0), (0, 0, 3), (1, -2, 1), 1, 1, 0, 0, 0),
    ((0, 1), (0, 3), (1, 1), 0, 0, 1, 0, 0),
    ((0, 0, 2), (0, 0, 5), (1, 1, 1), 1, 1, 2, 1, 0),
]


@pytest.mark.parametrize("spec", range(len(SLICES)))
def test_strided_slice_kernel(spec):
    b, e, s, bm, em, elm, nam, sam = SLICES[spec]
    x = RNG.standard_normal((4, 6, 5)).astype(np.float32)
    want = tf().strided_slice(x, b, e, s, begin_mask=bm, end_mask=em, ellipsis_mask=elm,
                              new_axis_mask=nam, shrink_axis_mask=sam).numpy()

    def arr(v):
        return "array<i64: " + ", ".join(map(str, v)) + ">"
    body = f"""
  %y = cann.StridedSliceD %x {{begin = {arr(b)}, end = {arr(e)}, strides = {arr(s)}, begin_mask = {bm} : i64, end_mask = {em} : i64, ellipsis_mask = {elm} : i64, new_axis_mask = {nam} : i64, shrink_axis_mask = {sam} : i64}} : ({ty(x.shape)}) -> {ty(want.shape)}
  func.return %y : {ty(want.shape)}"""
    text, y = compile_and_run(body, {"x": x}, want.shape)
    assert 'kind = "StridedSliceD"' in text and 'view = "slice_flat"' in text
    assert y.shape == want.shape and np.abs(y - want).max() <= 1e-4


# --- issue #6: gather, comparisons and logic, resize, split, value / mirror padding, reductions -

MLIR_DT = {np.float32: "f32", np.float16: "f16", np.int32: "i32", np.int64: "i64", np.bool_: "i1",
           np.int8: "i8"}


def tt(shape, dtype=np.float32) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if len(shape) else ''}{MLIR_DT[np.dtype(dtype).type]}>"


def run_kernels(args: dict, results: list, body: str):
    """Like kernel_harness.compile_and_run, for any element types and several results:
    results = [(shape, dtype)]; returns (kernel IR text, [outputs])."""
    sig = ", ".join(f"%{k}: {tt(v.shape, v.dtype)}" for k, v in args.items())
    outs = ", ".join(tt(*r) for r in results)
    text = (f'builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{\n'
            f"func.func @main({sig}) -> ({outs}) {{\n{body}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    from compiler.ir.ir_io import module_to_text
    out = module_to_text(module)
    module, _ = parse_module(ctx, out, "k.mlir")
    assert module_to_text(module) == out
    assert not [o for o in module.walk() if o.dialect_name() == "cann" and o.name != "cann.Const"]
    res = run_module(module, {f"arg{i}": v for i, v in enumerate(args.values())})
    return out, list(res.values())


def block_dims(text: str) -> list[int]:
    import re
    return [int(b) for b in re.findall(r"block_dim = (\d+)", text)]


@pytest.mark.parametrize("xs,ids,axis,dt", [
    ((50, 33), (7,), 0, np.float32), ((4, 300, 5), (3, 2), 1, np.float32),
    ((2, 9), (), 1, np.int32), ((3000, 40), (900,), 0, np.float32),   # 900 rows over cores
    ((6, 5, 3), (4,), 2, np.float16)])
def test_gather_kernel(xs, ids, axis, dt):
    x = (RNG.standard_normal(xs) * 10).astype(dt)
    i = RNG.integers(0, xs[axis], ids).astype(np.int32)
    want = tf().gather(x, i, axis=axis).numpy()
    body = f"""
  %y = cann.GatherV2D %x, %i {{axis = {axis} : i64}} : ({tt(xs, dt)}, {tt(ids, np.int32)}) -> {tt(want.shape, dt)}
  func.return %y : {tt(want.shape, dt)}"""
    text, (y,) = run_kernels({"x": x, "i": i}, [(want.shape, dt)], body)
    assert 'kind = "GatherV2D"' in text and "kernel.gather" in text
    if xs[0] == 3000:
        assert block_dims(text)[0] > 1
    assert np.array_equal(y, want)


@pytest.mark.parametrize("name,tfn", [("Greater", "greater"), ("GreaterEqual", "greater_equal"),
                                      ("Less", "less"), ("LessEqual", "less_equal"),
                                      ("Equal", "equal"), ("NotEqual", "not_equal")])
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
def test_compare_kernels(name, tfn, dt):
    """Broadcast [3, 1037] against [1037] (multi-core, a tail tile), ties included."""
    a = np.round(RNG.standard_normal((3, 1037)) * 2).astype(dt)
    b = np.round(RNG.standard_normal((1037,)) * 2).astype(dt)
    body = f"""
  %y = cann.{name} %a, %b : ({tt(a.shape, dt)}, {tt(b.shape, dt)}) -> {tt(a.shape, bool)}
  func.return %y : {tt(a.shape, bool)}"""
    text, (y,) = run_kernels({"a": a, "b": b}, [(a.shape, bool)], body)
    assert f'fn = "{name}"' in text and block_dims(text)[0] > 1
    want = getattr(tf().math, tfn)(a, b).numpy()
    assert y.dtype == np.bool_ and np.array_equal(y, want)


def test_logic_kernels():
    a = RNG.random((7, 333)) < 0.5
    b = RNG.random((333,)) < 0.5
    bt = tt(b.shape, bool)
    body = f"""
  %n = cann.LogicalNot %a : ({tt(a.shape, bool)}) -> {tt(a.shape, bool)}
  %o = cann.LogicalOr %n, %b : ({tt(a.shape, bool)}, {bt}) -> {tt(a.shape, bool)}
  %y = cann.LogicalAnd %o, %a : ({tt(a.shape, bool)}, {tt(a.shape, bool)}) -> {tt(a.shape, bool)}
  func.return %y : {tt(a.shape, bool)}"""
    text, (y,) = run_kernels({"a": a, "b": b}, [(a.shape, bool)], body)
    assert all(f'fn = "Logical{n}"' in text for n in ("Not", "Or", "And"))
    T = tf()
    assert np.array_equal(y, T.logical_and(T.logical_or(T.logical_not(a), b), a).numpy())


@pytest.mark.parametrize("bilinear", [True, False])
@pytest.mark.parametrize("mode", ["legacy", "align_corners", "half_pixel"])
@pytest.mark.parametrize("conv", [False, True])
def test_resize_kernel(bilinear, mode, conv):
    """NHWC row-major, or NC1HWC0 after a conv (C = 19: one full and one padded C0 block); up-
    and down-sampling in one op (H 6 -> 13, W 9 -> 4)."""
    ac, hp = mode == "align_corners", mode == "half_pixel"
    xs = (2, 6, 9, 3)
    x = RNG.standard_normal(xs).astype(np.float32)
    name = "ResizeBilinearV2" if bilinear else "ResizeNearestNeighborV2"
    if conv:
        pre, cs, ref = conv_prefix(xs, 19)
        src, inp = "%c", ref(x)
    else:
        pre, cs, src, inp = "", xs, "%x", x
    ys = (cs[0], 13, 4, cs[3])
    body = f"""{pre}
  %s = cann.Const dense<[13, 4]> : tensor<2xi32>
  %y = cann.{name} {src}, %s {{align_corners = {int(ac)} : i64, half_pixel_centers = {int(hp)} : i64}} : ({ty(cs)}, tensor<2xi32>) -> {ty(ys)}
  func.return %y : {ty(ys)}"""
    text, (y,) = run_kernels({"x": x}, [(ys, np.float32)], body)
    assert f'kind = "{name}"' in text and 'view = "resize_rows"' in text
    if conv:  # the resize runs on the conv's NC1HWC0 output: only the input's TransData stays,
        # the input's TransData folds into the conv's loads; the resize stores its result
        # through the to_origin view
        assert text.count("kernel.transdata") == 0 and 'view = "to_origin"' in text
    raw = tf().raw_ops.ResizeBilinear if bilinear else tf().raw_ops.ResizeNearestNeighbor
    want = raw(images=inp, size=[13, 4], align_corners=ac, half_pixel_centers=hp).numpy()
    assert np.abs(y - want).max() <= 1e-5


def test_resize_kernel_multicore_f16():
    """Nearest on f16 (TF keeps the type) and bilinear f16 -> f32, many cores."""
    x = RNG.standard_normal((1, 20, 24, 37)).astype(np.float16)
    ys = (1, 41, 47, 37)
    body = f"""
  %s = cann.Const dense<[41, 47]> : tensor<2xi32>
  %n = cann.ResizeNearestNeighborV2 %x, %s {{align_corners = 0 : i64, half_pixel_centers = 1 : i64}} : ({tt(x.shape, np.float16)}, tensor<2xi32>) -> {tt(ys, np.float16)}
  %b = cann.ResizeBilinearV2 %x, %s {{align_corners = 0 : i64, half_pixel_centers = 1 : i64}} : ({tt(x.shape, np.float16)}, tensor<2xi32>) -> {tt(ys)}
  func.return %n, %b : {tt(ys, np.float16)}, {tt(ys)}"""
    text, (n, b) = run_kernels({"x": x}, [(ys, np.float16), (ys, np.float32)], body)
    assert min(block_dims(text)) > 1
    raw = tf().raw_ops
    assert np.array_equal(n, raw.ResizeNearestNeighbor(images=x, size=[41, 47],
                                                       half_pixel_centers=True).numpy())
    want = raw.ResizeBilinear(images=x, size=[41, 47], half_pixel_centers=True).numpy()
    assert b.dtype == np.float32 and np.abs(b - want).max() <= 1e-5


@pytest.mark.parametrize("sizes,axis", [(None, 1), ([2, 0, 5, 2], -1), ([300, 700], 0)])
def test_split_kernels(sizes, axis):
    xs = (1000, 9) if sizes == [300, 700] else (4, 9, 5) if sizes is None else (3, 2, 9)
    x = RNG.standard_normal(xs).astype(np.float32)
    want = [p.numpy() for p in tf().split(x, 3 if sizes is None else sizes, axis=axis)]
    outs = ", ".join(ty(w.shape) for w in want)
    if sizes is None:
        op = f"cann.SplitD %x {{split_dim = {axis} : i64, num_split = 3 : i64}}"
    else:
        op = (f"cann.SplitVD %x {{size_splits = array<i64: {', '.join(map(str, sizes))}>, "
              f"split_dim = {axis} : i64, num_split = {len(sizes)} : i64}}")
    rs = ", ".join(f"%y#{i}" for i in range(len(want)))
    body = f"""
  %y:{len(want)} = {op} : ({ty(xs)}) -> ({outs})
  func.return {rs} : {outs}"""
    text, ys = run_kernels({"x": x}, [(w.shape, np.float32) for w in want], body)
    kind = "SplitD" if sizes is None else "SplitVD"
    assert text.count(f'kind = "{kind}"') == sum(1 for w in want if w.size)
    if sizes == [300, 700]:
        assert max(block_dims(text)) > 1
    for y, w in zip(ys, want):
        assert y.shape == w.shape and np.array_equal(y, w)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("xs,pads,dt", [((3, 37, 5), [[1, 2], [0, 3], [2, 2]], np.float32),
                                        ((200, 130), [[3, 1], [4, 4]], np.float32),
                                        ((5, 6), [[2, 0], [1, 3]], np.int32)])
def test_value_and_mirror_pad_kernels(mode, xs, pads, dt):
    x = (RNG.standard_normal(xs) * 10).astype(dt)
    if mode == "CONSTANT":
        want = tf().pad(x, pads, constant_values=dt(-7)).numpy()
        op = f"cann.PadV2D %x {{paddings = array<i64: {', '.join(str(v) for p in pads for v in p)}>, constant_values = -7.0 : f32}}"
    else:
        want = tf().raw_ops.MirrorPad(input=x, paddings=pads, mode=mode).numpy()
        op = f'cann.MirrorPad %x {{paddings = array<i64: {", ".join(str(v) for p in pads for v in p)}>, mode = "{mode}"}}'
    body = f"""
  %y = {op} : ({tt(xs, dt)}) -> {tt(want.shape, dt)}
  func.return %y : {tt(want.shape, dt)}"""
    text, (y,) = run_kernels({"x": x}, [(want.shape, dt)], body)
    assert 'view = "padded_rows"' in text
    if xs == (200, 130):
        assert block_dims(text)[0] > 1
    assert np.array_equal(y, want)


@pytest.mark.parametrize("op,xs,axes,keep,dt", [
    ("ReduceProdD", (5, 37), [1], False, np.float32),
    ("ReduceSumD", (3, 50, 7), [1], True, np.float32),        # a middle axis: inner = 7
    ("ReduceMeanD", (2, 3, 40, 9), [1, 2], False, np.float32),
    ("ReduceMaxD", (6, 700), [0], False, np.int32),           # int: lowest is iinfo's
    ("ReduceMinD", (4, 3000), [1], False, np.int32)])
def test_reduce_more_kernels(op, xs, axes, keep, dt):
    x = (RNG.uniform(0.8, 1.25, xs) if op == "ReduceProdD" else RNG.standard_normal(xs) * 100).astype(dt)
    fn = {"ReduceProdD": "reduce_prod", "ReduceSumD": "reduce_sum", "ReduceMeanD": "reduce_mean",
          "ReduceMaxD": "reduce_max", "ReduceMinD": "reduce_min"}[op]
    want = getattr(tf().math, fn)(x, axis=axes, keepdims=keep).numpy()
    body = f"""
  %y = cann.{op} %x {{axes = array<i64: {', '.join(map(str, axes))}>, keep_dims = {str(keep).lower()}}} : ({tt(xs, dt)}) -> {tt(want.shape, dt)}
  func.return %y : {tt(want.shape, dt)}"""
    text, (y,) = run_kernels({"x": x}, [(want.shape, dt)], body)
    assert f'kind = "{op}"' in text
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-5)


def test_reduce_non_contiguous_axes_transposes_then_reduces_one_block():
    x = np.random.default_rng(3).normal(size=(3, 4, 5)).astype(np.float32)
    body = f"""
  %y = cann.ReduceSumD %x {{axes = array<i64: 0, 2>, keep_dims = false}} : ({ty((3, 4, 5))}) -> {ty((4,))} loc("rs")
  func.return %y : {ty((4,))}"""
    text, (y,) = run_kernels({"x": x}, [((4,), np.float32)], body)
    assert text.index('kind = "TransposeD"') < text.index('kind = "ReduceSumD"')
    np.testing.assert_allclose(y, tf().math.reduce_sum(x, axis=[0, 2]).numpy(), rtol=2e-6, atol=1e-5)


def test_tf_graph_with_the_new_ops_runs_at_kernel_level():
    """A TensorFlow graph (import -> tf-to-cann -> fuse -> assign-layouts -> cann-to-kernel):
    gather, resize of a conv output (NC1HWC0, C = 19), split, mirror and value padding,
    comparisons, logic, select and a product, executed tile by tile against TensorFlow."""
    from compiler.frontend.importers.graphdef import import_graphdef
    from compiler.ir.ir_io import module_to_text

    T = tf()
    w = RNG.normal(0, 0.5, (3, 3, 5, 19)).astype(np.float32)  # a Const node of the graph

    def fn(x, ids):
        c = T.nn.relu(T.nn.conv2d(x, w, 1, "SAME"))
        r = T.image.resize(c, [11, 13])                          # bilinear, half-pixel
        n = T.image.resize(c, [4, 3], method="nearest")
        g = T.gather(x, ids, axis=2)
        a, b = T.split(x, [2, 4], axis=1)
        p = T.pad(a, [[0, 0], [1, 1], [2, 0], [0, 0]], mode="REFLECT")
        q = T.pad(b, [[0, 0], [0, 1], [0, 0], [1, 0]], constant_values=2.5)
        k = T.where(T.logical_and(x > 0.5, T.logical_not(x >= 1.5)), x, -x)
        return r, n, g, p, q, k, T.reduce_prod(x, axis=2)

    specs = [T.TensorSpec((2, 6, 7, 5), T.float32), T.TensorSpec((4,), T.int32)]
    cf = T.function(fn, input_signature=specs).get_concrete_function()
    module = import_graphdef(cf.graph.as_graph_def(), "g.pb", warn=lambda line: None)
    ctx = make_context()
    run_passes(ctx, module, ["tf-to-cann", "fuse", "assign-layouts", "cann-to-kernel"])
    text = module_to_text(module)
    for kind in ("ResizeBilinearV2", "ResizeNearestNeighborV2", "GatherV2D", "SplitVD",
                 "MirrorPad", "PadV2D", "ReduceProdD"):
        assert f'kind = "{kind}"' in text, kind
    module, _ = parse_module(ctx, text, "g.kernel.mlir")
    x = RNG.standard_normal((2, 6, 7, 5)).astype(np.float32)
    ids = np.array([6, 0, 3, 3], np.int32)
    ours = list(run_module(module, {"x": x, "ids": ids}).values())
    want = cf(T.constant(x), T.constant(ids))
    assert len(ours) == len(want)
    for a, b in zip(ours, want):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-5, atol=1e-5)


def test_new_op_diagnostics_name_the_node():
    """What the new lowerings cannot serve is one line per op with its TF node: a dynamic shape,
    and a bilinear resize whose pixel (C lanes x 9 UB buffers, double-buffered) exceeds UB."""
    text = """builtin.module attributes {cann.soc_version = "Ascend910B3"} {
func.func @main(%x: tensor<?x5xf32>, %i: tensor<3xi32>, %r: tensor<1x2x2x20000xf32>) -> (tensor<?x5xf32>, tensor<1x3x3x20000xf32>) {
  %g = cann.GatherV2D %x, %i {axis = 1 : i64} : (tensor<?x5xf32>, tensor<3xi32>) -> tensor<?x3xf32> loc("emb/Gather")
  %s = cann.Const dense<[3, 3]> : tensor<2xi32>
  %y = cann.ResizeBilinearV2 %r, %s {align_corners = 0 : i64, half_pixel_centers = 0 : i64} : (tensor<1x2x2x20000xf32>, tensor<2xi32>) -> tensor<1x3x3x20000xf32> loc("up/Resize")
  func.return %x, %y : tensor<?x5xf32>, tensor<1x3x3x20000xf32>
}
}"""
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    with pytest.raises(OpError) as e:
        run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    from compiler.ir.diagnostics import node_name

    got = {node_name(op): m for op, m in e.value.items}
    assert set(got) == {"emb/Gather", "up/Resize"}
    assert "dynamic dimension" in got["emb/Gather"] and "do not fit" in got["up/Resize"]


# --- Cumsum: the scan kernel (compiler/conversions/cann_to_kernel/scan.py) ------------------------------------------

@pytest.mark.parametrize("xs,axis,exclusive,reverse,dt", [
    ((3, 37), -1, False, False, np.float32),      # last axis, odd length
    ((3, 37), 0, True, False, np.float32),        # axis 0: inner = 37
    ((5, 7, 9), 1, False, True, np.float32),      # a middle axis, reverse
    ((2, 7, 9), 1, True, True, np.int32),         # int32, exclusive and reverse
    ((1, 1, 1001), 2, True, True, np.float32),    # odd sizes, one row
])
def test_cumsum_kernel(xs, axis, exclusive, reverse, dt):
    x = (RNG.standard_normal(xs) * (50 if dt == np.int32 else 1)).astype(dt)
    want = tf().math.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    body = f"""
  %y = cann.Cumsum %x {{axis = {axis} : i64, exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()}}} : ({tt(xs, dt)}) -> {tt(xs, dt)} loc("cs")
  func.return %y : {tt(xs, dt)}"""
    text, (y,) = run_kernels({"x": x}, [(xs, dt)], body)
    assert 'kind = "Cumsum"' in text and 'view = "scan_rows"' in text and 'fn = "Cumsum"' in text
    assert f"reverse = {int(reverse)} : i64" in text
    if dt == np.int32:
        assert y.dtype == np.int32 and np.array_equal(y, want)
    else:
        assert np.abs(y - want).max() <= 1e-4


def test_cumsum_kernel_walks_the_axis_in_chunks():
    """An axis longer than one UB chunk (8192 f32 positions on 910B3): the carry crosses the
    chunks; quarter-integer data keeps every partial sum exact, so the result must be equal."""
    xs = (2, 20001)
    x = (np.round(RNG.uniform(-4, 4, xs) * 4) / 4).astype(np.float32)
    want = tf().math.cumsum(x, axis=1, reverse=True).numpy()
    body = f"""
  %y = cann.Cumsum %x {{axis = 1 : i64, exclusive = false, reverse = true}} : ({tt(xs)}) -> {tt(xs)}
  func.return %y : {tt(xs)}"""
    text, (y,) = run_kernels({"x": x}, [(xs, np.float32)], body)
    assert "scanLen = 20001, chunkLen = 8192" in text
    assert np.array_equal(y, want)


def test_cumprod_kernel_walks_the_axis_in_chunks():
    """Cumprod on the scan kernel across UB chunks: the carry (from 1) is multiplied by each
    chunk's RowProd; +-1 with a few 2s and 0.5s keeps every partial product exact (powers of
    two), so the result must be equal."""
    xs = (2, 20001)
    x = RNG.choice(np.array([-1.0, 1.0], np.float32), xs)
    x[:, RNG.integers(0, xs[1], 40)] = 2.0
    x[:, RNG.integers(0, xs[1], 40)] = 0.5
    want = tf().math.cumprod(x, axis=1, exclusive=True).numpy()
    body = f"""
  %y = cann.Cumprod %x {{axis = 1 : i64, exclusive = true, reverse = false}} : ({tt(xs)}) -> {tt(xs)}
  func.return %y : {tt(xs)}"""
    text, (y,) = run_kernels({"x": x}, [(xs, np.float32)], body)
    assert 'kind = "Cumprod"' in text and "scanLen = 20001, chunkLen = 8192" in text
    assert np.array_equal(y, want)


def test_cumsum_kernel_diagnostic_names_the_node():
    """A row of the inner extent that does not fit UB (no inner split): one line at the node."""
    body = f"""
  %y = cann.Cumsum %x {{axis = 1 : i64, exclusive = false, reverse = false}} : ({ty((2, 3, 60000))}) -> {ty((2, 3, 60000))} loc("big/Cumsum")
  func.return %y : {ty((2, 3, 60000))}"""
    with pytest.raises(OpError) as e:
        run_kernels({"x": np.zeros((2, 3, 60000), np.float32)}, [((2, 3, 60000), np.float32)], body)
    from compiler.ir.diagnostics import node_name

    (op, msg), = e.value.items
    assert node_name(op) == "big/Cumsum" and "inner extent 60000" in msg


# --- TopKV2: the row kernel (compiler/conversions/cann_to_kernel/topk.py) ------------------------

def test_top_k_kernel_diagnostic_names_the_node():
    """A row too long for UB (the kernel sorts whole rows; no split of a row): one line at the
    node, saying so."""
    xs, ys = (2, 60000), (2, 8)
    body = f"""
  %v, %i = cann.TopKV2 %x {{k = 8 : i64, sorted = true, dim = -1 : i64, largest = true}} : ({ty(xs)}) -> ({ty(ys)}, {tt(ys, np.int32)}) loc("vocab/TopKV2")
  func.return %v, %i : {ty(ys)}, {tt(ys, np.int32)}"""
    with pytest.raises(OpError) as e:
        run_kernels({"x": np.zeros(xs, np.float32)}, [(ys, np.float32), (ys, np.int32)], body)
    from compiler.ir.diagnostics import node_name

    (op, msg), = e.value.items
    assert node_name(op) == "vocab/TopKV2" and "sorts whole rows of 60000 elements" in msg
