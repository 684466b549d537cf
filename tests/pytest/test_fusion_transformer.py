"""Transformer fusions (compiler/transforms/fusion/rules/20_transformer.rules) against TensorFlow: GELU in
its erfc, erf and tanh forms, LayerNorm in its moments forms (+ residual), attention with and
without a mask, and Q/K/V projections merged into one attention op, on small graphs built here;
a 1-layer Keras encoder (both GELU forms); and, with `-m modelzoo`, the model-zoo counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes


def _write(path, graph_def):
    import tensorflow as tf

    tf.io.write_graph(graph_def, str(path.parent), path.name, as_text=False)
    return str(path)


def _build(path, body):
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        body(tf)
    return _write(path, g.as_graph_def())


def _fuse_and_check(path, want_kernels, want_ops=(), atol=1e-4):
    """tf-to-cann + fuse; at most want_kernels kernels, the wanted fused ops present, outputs
    within atol of TensorFlow's, and a second fuse changes nothing."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from compiler.transforms.fusion.engine import count_kernels
    from tools.driver.runner import run_graphdef

    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "fuse"))
    text = module_to_text(module, False, False)
    assert count_kernels(module) <= want_kernels, text
    for op in want_ops:
        assert op in text, f"{op} missing:\n{text}"
    inputs = random_inputs(module, seed=5)
    ours = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(ours))
    for k in ref:
        err = float(np.abs(ours[k].astype(np.float64) - ref[k]).max())
        assert err <= atol, f"{k}: max abs error {err}"
    module2, _ = parse_module(ctx, text, "<fused>")
    run_passes(ctx, module2, ("fuse",))
    assert module_to_text(module2, False, False) == text
    return module


RNG = np.random.default_rng(7)


def _c(tf, *shape, scale=0.3):
    return tf.constant(RNG.normal(0, scale, shape).astype(np.float32))


def _dense3d(tf, x, n_in, n_out):
    """Keras Dense on a 3-D input: Tensordot's Reshape -> MatMul -> Reshape -> BiasAdd."""
    s = x.shape
    y = tf.reshape(tf.matmul(tf.reshape(x, [-1, n_in]), _c(tf, n_in, n_out)), [s[0], s[1], n_out])
    return tf.nn.bias_add(y, _c(tf, n_out))


def _gelu_dense(tf, form):
    x = tf.compat.v1.placeholder(tf.float32, [1, 6, 16], name="x")
    h = _dense3d(tf, x, 16, 24)
    if form == "erfc":
        y = tf.nn.gelu(h, approximate=False)
    elif form == "tanh":
        y = tf.nn.gelu(h, approximate=True)
    else:  # google-research BERT's erf form
        y = h * (0.5 * (1.0 + tf.math.erf(h / math.sqrt(2.0))))
    tf.identity(y, name="out")


def _gelu_alone(tf):
    x = tf.compat.v1.placeholder(tf.float32, [2, 8], name="x")
    tf.identity(0.5 * x * (1.0 + tf.math.erf(x * (1 / math.sqrt(2.0)))), name="out")


def _layer_norm(tf, form):
    x = tf.compat.v1.placeholder(tf.float32, [1, 6, 16], name="x")
    r = tf.compat.v1.placeholder(tf.float32, [1, 6, 16], name="r")
    h = x + r
    gamma = tf.constant(RNG.uniform(0.5, 1.5, 16).astype(np.float32))
    beta = _c(tf, 16)
    mean, var = tf.nn.moments(h, axes=[-1], keepdims=True)  # StopGradient + SquaredDifference
    if form == "keras":  # Keras 3 LayerNormalization
        inv = tf.math.rsqrt(var + 1e-3) * tf.reshape(gamma, [1, 1, 16])
        y = h * inv + (-mean * inv + tf.reshape(beta, [1, 1, 16]))
    elif form == "batch_norm":  # tf.nn.batch_normalization: x * inv + (beta - mean * inv)
        y = tf.nn.batch_normalization(h, mean, var, beta, gamma, 1e-3)
    else:
        y = (h - mean) * tf.math.rsqrt(var + 1e-3) * gamma + beta
    tf.identity(y, name="out")


def _heads(tf, t, n, d):
    return tf.reshape(t, [1, -1, n, d])


def _attention(tf, mask, project, n=2, d=4, s=5):
    hid = n * d
    if project:  # Keras EinsumDense: x @ W -> [B,S,N,D] + bias [N,D]
        x = tf.compat.v1.placeholder(tf.float32, [1, s, hid], name="x")
        q, k, v = (_heads(tf, tf.matmul(x, _c(tf, hid, hid)), n, d) + _c(tf, n, d) for _ in range(3))
    else:
        q, k, v = (tf.compat.v1.placeholder(tf.float32, [1, s, n, d], name=nm) for nm in "qkv")
    scores = tf.matmul(tf.transpose(q, [0, 2, 1, 3]), tf.transpose(k, [0, 2, 3, 1]))
    scores = scores * (1 / math.sqrt(d))
    if mask:
        scores = scores + tf.compat.v1.placeholder(tf.float32, [1, 1, 1, s], name="mask")
    p = tf.nn.softmax(scores, axis=-1)
    o = tf.transpose(tf.matmul(p, tf.transpose(v, [0, 2, 1, 3])), [0, 2, 1, 3])
    tf.identity(tf.reshape(o, [1, s, hid]), name="out")


def _attention_bnsd(tf):
    q, k, v = (tf.compat.v1.placeholder(tf.float32, [1, 2, 5, 4], name=nm) for nm in "qkv")
    p = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) * 0.5, axis=-1)
    tf.identity(tf.matmul(p, v), name="out")


def _gated_mlp(tf):
    """Llama's MLP: down(silu(x @ Wg) * (x @ Wu)), on a 3-D input."""
    x = tf.compat.v1.placeholder(tf.float32, [1, 5, 8], name="x")
    g = tf.matmul(x, _c(tf, 8, 12))
    # silu as tf.nn.silu computes it, x * sigmoid(beta * x) (tf.nn.silu itself also leaves a
    # dangling custom-gradient Identity that the importer takes for a second output)
    h = g * tf.sigmoid(tf.constant(1.0) * g) * tf.matmul(x, _c(tf, 8, 12))
    tf.identity(tf.matmul(h, _c(tf, 12, 8)), name="out")


CASES = {
    "dense_gelu_erfc": (lambda tf: _gelu_dense(tf, "erfc"), 1, ['activation = "GeluErf"']),
    "dense_gelu_erf": (lambda tf: _gelu_dense(tf, "erf"), 1, ['activation = "GeluErf"']),
    "dense_gelu_tanh": (lambda tf: _gelu_dense(tf, "tanh"), 1, ['activation = "Gelu"']),
    "gelu_erf_alone": (_gelu_alone, 1, ['cann.GeluErf']),
    "layernorm_keras_residual": (lambda tf: _layer_norm(tf, "keras"), 1, ["cann.AddLayerNorm"]),
    "layernorm_batch_norm_residual": (lambda tf: _layer_norm(tf, "batch_norm"), 1, ["cann.AddLayerNorm"]),
    "layernorm_direct_residual": (lambda tf: _layer_norm(tf, "direct"), 1, ["cann.AddLayerNorm"]),
    "attention_bsnd": (lambda tf: _attention(tf, False, False), 1, ['layout = "BSND"']),
    "attention_bnsd": (_attention_bnsd, 1, ["cann.FusedAttention"]),
    "self_attention_qkv": (lambda tf: _attention(tf, False, True), 1, ["cann.FusedMultiHeadAttention"]),
    "attention_bsnd_mask": (lambda tf: _attention(tf, True, False), 1, ['layout = "BSND"']),
    "gated_mlp_swiglu": (_gated_mlp, 2, ["cann.FusedGatedMatMul"]),
    "self_attention_qkv_mask": (lambda tf: _attention(tf, True, True), 1, ["cann.FusedMultiHeadAttention"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_transformer_fusion_matches_tensorflow(tmp_path, case):
    body, kernels, ops = CASES[case]
    _fuse_and_check(_build(tmp_path / f"{case}.pb", body), kernels, ops)


@pytest.mark.parametrize("activation, gelu", [("gelu", '"GeluErf"'), ("gelu_tanh", '"Gelu"')])
def test_keras_encoder_layer(tmp_path, activation, gelu):
    """One Keras encoder layer (MultiHeadAttention, LayerNormalization, Dense gelu): 6 kernels:
    attention with merged QKV, output projection, 2 AddLayerNorm, 2 FFN matmuls."""
    from tests.model_zoo.zoo import bert_encoder, freeze

    model = bert_encoder(layers=1, seq=8, hidden=16, heads=2, ffn=32, activation=activation)
    path = _write(tmp_path / "enc.pb", freeze(model))
    module = _fuse_and_check(path, 6, ["cann.FusedMultiHeadAttention", "cann.AddLayerNorm",
                                       f"activation = {gelu}"])
    assert module_to_text(module, False, False).count("cann.AddLayerNorm") == 2


# --- the gated MLP's single-GEMM form and select attention masks, fused and at the kernel level ----

def _keras_gated_mlp(form, silu):
    """Dense(2F) -> split gate | up (keras.ops.split or h[..., :F] / h[..., F:]) ->
    silu(gate) * up -> Dense down projection, on a 3-D input (Tensordot)."""
    from compiler.frontend.tf_loader import tensorflow

    keras = tensorflow().keras
    keras.utils.set_random_seed(3)
    x = keras.Input((5, 8), batch_size=1, name="x")
    h = keras.layers.Dense(24)(x)
    g, u = keras.ops.split(h, 2, axis=-1) if form == "split" else (h[..., :12], h[..., 12:])
    a = keras.activations.silu(g) if silu == "keras" else g * keras.ops.sigmoid(g)
    return keras.Model(x, keras.layers.Dense(8)(a * u))


def _gated_split_2d(tf, sizes=None):
    """x @ W (2-D, no Reshape) -> tf.split (SplitD, or SplitV with `sizes`) -> x*sigmoid(x) * up."""
    x = tf.compat.v1.placeholder(tf.float32, [6, 8], name="x")
    h = tf.nn.bias_add(tf.matmul(x, _c(tf, 8, 20)), _c(tf, 20))
    g, u = tf.split(h, sizes or 2, axis=-1)
    tf.identity(g * tf.sigmoid(g) * u, name="out")


def _keras_attention(mask):
    """Keras 3 MultiHeadAttention (self-attention) with a causal mask, an attention_mask
    (float or bool) or both."""
    from compiler.frontend.tf_loader import tensorflow

    keras = tensorflow().keras
    keras.utils.set_random_seed(4)
    x = keras.Input((6, 16), batch_size=1, name="x")
    ins = [x]
    kw = {"use_causal_mask": True} if mask in ("causal", "both") else {}
    if mask in ("float", "bool", "both"):
        m = keras.Input((6, 6), batch_size=1, name="m", dtype="bool" if mask == "bool" else "float32")
        ins.append(m)
        kw["attention_mask"] = m
    y = keras.layers.MultiHeadAttention(2, 8)(x, x, **kw)
    return keras.Model(ins, y)


def _where_attention(tf, kind):
    """Hand-written attention on [B, N, S, D] with a tf.where mask: `greater` on a run-time float
    mask (mask > 0), `causal` from band_part(ones) > 0, `swapped` as where(band == 0, -1e9, s)."""
    q, k, v = (tf.compat.v1.placeholder(tf.float32, [1, 2, 5, 4], name=nm) for nm in "qkv")
    s = tf.matmul(q, k, transpose_b=True) * 0.5
    band = tf.linalg.band_part(tf.ones([5, 5]), -1, 0)
    if kind == "greater":
        m = tf.compat.v1.placeholder(tf.float32, [1, 1, 5, 5], name="m")
        s = tf.where(m > 0, s, -1e9)
    elif kind == "causal":
        s = tf.where(band > 0, s, -1e9)
    else:
        s = tf.where(tf.equal(band, 0), tf.fill([1, 2, 5, 5], -1e9), s)
    tf.identity(tf.matmul(tf.nn.softmax(s, axis=-1), v), name="out")


def _mask_inputs(module, seed=5):
    """random inputs, masks (inputs named m) 0/1 with the diagonal kept."""
    from compiler.interpreters.execute import random_inputs

    inputs = random_inputs(module, seed=seed)
    if "m" in inputs:
        m = inputs["m"]
        keep = np.random.default_rng(seed).random(m.shape) > 0.4
        keep |= np.eye(m.shape[-1], dtype=bool)
        inputs["m"] = keep.astype(m.dtype)
    return inputs


def _check_levels(path, want_ops, kernel_level=True, atol=1e-4):
    """fused level (the wanted ops present, no Split / SelectV2 left) and kernel level against
    TensorFlow, max abs error <= atol; the fused text round-trips and fusing again changes nothing."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import run_module
    from tools.driver.runner import run_graphdef

    ctx = make_context()
    levels = [("tf-to-cann", "fuse")]
    if kernel_level:
        levels.append(("assign-layouts", "cann-to-kernel"))
    module = import_graphdef_file(path)
    errs = []
    for passes in levels:
        run_passes(ctx, module, passes)
        text = module_to_text(module, False, False)
        if passes[-1] == "fuse":
            for op in want_ops:
                assert op in text, f"{op} missing:\n{text}"
            for gone in ("cann.SplitD", "cann.SplitVD", "cann.StridedSliceD", "cann.SelectV2",
                         "cann.SoftmaxV2", "cann.Sigmoid"):
                assert gone not in text, f"{gone} left:\n{text}"
            module2, _ = parse_module(ctx, text, "<fused>")
            run_passes(ctx, module2, ("fuse",))
            assert module_to_text(module2, False, False) == text
        module, _ = parse_module(ctx, text, "<level>")
        inputs = _mask_inputs(module)
        ours = run_module(module, inputs)
        ref = run_graphdef(path, inputs, list(ours))
        for k in ref:
            err = float(np.abs(ours[k].astype(np.float64) - ref[k]).max())
            errs.append(err)
            assert err <= atol, f"{passes}: {k}: max abs error {err}"
    return errs


GATED_KERAS = {"split_keras_silu": ("split", "keras"), "split_x_sigmoid": ("split", "manual"),
               "slice_keras_silu": ("slice", "keras"), "slice_x_sigmoid": ("slice", "manual")}


@pytest.mark.parametrize("case", sorted(GATED_KERAS))
def test_gated_mlp_single_gemm_keras(tmp_path, case):
    from tests.model_zoo.zoo import freeze

    path = _write(tmp_path / f"{case}.pb", freeze(_keras_gated_mlp(*GATED_KERAS[case])))
    _check_levels(path, ["cann.FusedGatedMatMul", 'activation = "Swish"'])


@pytest.mark.parametrize("sizes", [None, [10, 10]])
def test_gated_mlp_single_gemm_split(tmp_path, sizes):
    path = _build(tmp_path / "g.pb", lambda tf: _gated_split_2d(tf, sizes))
    _check_levels(path, ["cann.FusedGatedMatMul"])


def test_gated_mlp_swish_on_the_up_half_is_not_fused(tmp_path):
    """silu on the second half: not FusedGatedMatMul's act(gate) * up; stays unfused, exact."""
    def body(tf):
        x = tf.compat.v1.placeholder(tf.float32, [6, 8], name="x")
        g, u = tf.split(tf.matmul(x, _c(tf, 8, 20)), 2, axis=-1)
        tf.identity(u * tf.sigmoid(u) * g, name="out")

    module = _fuse_and_check(_build(tmp_path / "g.pb", body), 99)
    assert "FusedGatedMatMul" not in module_to_text(module, False, False)


@pytest.mark.parametrize("mask", ["causal", "float", "bool"])
def test_keras_attention_select_masks(tmp_path, mask):
    """Keras 3's MultiHeadAttention with use_causal_mask / attention_mask: one
    FusedMultiHeadAttention with a select mask, at the fused and the kernel level."""
    from tests.model_zoo.zoo import freeze

    path = _write(tmp_path / f"mha_{mask}.pb", freeze(_keras_attention(mask)))
    _check_levels(path, ["cann.FusedMultiHeadAttention", 'mask_kind = "select"'])


def test_keras_attention_mask_and_causal_mask(tmp_path):
    """Keras 3's MultiHeadAttention with both attention_mask and use_causal_mask=True: Keras
    builds the causal mask with two Cumsums of ones; the table folds them (constant input), the
    mask preparation left is Cast(mask) & (row >= col), one FusedKernel (automatic fusion), the
    mask prologue of one FusedMultiHeadAttention, and the kernel level matches TensorFlow."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.transforms.fusion.engine import count_kernels
    from tests.model_zoo.zoo import freeze

    path = _write(tmp_path / "mha_both.pb", freeze(_keras_attention("both")))
    tf_text = module_to_text(import_graphdef_file(path), False, False)
    assert tf_text.count("tf.Cumsum") == 2
    errs = _check_levels(path, ["cann.FusedMultiHeadAttention", 'mask_kind = "select"'])
    assert max(errs) <= 1e-4
    ctx = make_context()
    module = import_graphdef_file(path)
    run_passes(ctx, module, ("tf-to-cann", "fuse"))
    text = module_to_text(module, False, False)
    assert "cann.Cumsum" not in text
    mask_ops = [op.name for op in module.walk() if op.name in (
        "cann.Cast", "cann.GreaterEqual", "cann.LogicalAnd")]
    assert sorted(mask_ops) == ["cann.Cast", "cann.GreaterEqual", "cann.LogicalAnd"], text
    assert all(op.parent_op().name == "cann.FusedKernel" for op in module.walk()
               if op.name in ("cann.Cast", "cann.GreaterEqual", "cann.LogicalAnd")), text
    # the attention (the mask's fused kernel its mask prologue: run in the masked softmax,
    # compiler/transforms/fusion/auto.py mask_prologue_problem) + the output projection
    assert count_kernels(module) == 2, text


@pytest.mark.parametrize("kind, mask_kind", [("greater", "greater"), ("causal", "select"),
                                             ("swapped", "select")])
def test_where_masked_attention(tmp_path, kind, mask_kind):
    path = _build(tmp_path / f"where_{kind}.pb", lambda tf: _where_attention(tf, kind))
    _check_levels(path, ["cann.FusedAttention", f'mask_kind = "{mask_kind}"'])


# --- whole models (-m modelzoo) -------------------------------------------------------------------

ZOO_TARGETS = {"BertEncoder2": 16, "ResNet50": 60, "MobileNetV2": 60, "EfficientNetB0": 120}


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", list(ZOO_TARGETS))
def test_model_zoo_kernel_counts_and_accuracy(name):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from compiler.transforms.fusion.engine import count_kernels
    from tests.model_zoo.zoo import frozen_graphdef
    from tools.driver.runner import run_graphdef

    path = frozen_graphdef(name)
    ctx = make_context()
    module = import_graphdef_file(path)
    if isinstance(module, str):
        module, _ = parse_module(ctx, module, path)
    run_passes(ctx, module, ("tf-to-cann", "fuse"))
    n = count_kernels(module)
    assert n <= ZOO_TARGETS[name], f"{name}: {n} kernels, target {ZOO_TARGETS[name]}"
    inputs = random_inputs(module)
    ours = run_module(module, inputs)
    ref = run_graphdef(path, inputs, list(ours))
    for k in ref:
        err = float(np.abs(ours[k].astype(np.float64) - ref[k]).max())
        assert err <= 1e-4, f"{name}/{k}: max abs error {err}"


def _keras3_softmax_mask_attention(tf):
    """Keras 3's attention with Softmax(mask) as keras-hub's backbones freeze it: the query
    scaled first, scores = einsum(key, query) (a matmul then a transpose), where(mask, s, -1e9),
    softmax, where(mask, p, 0); q, k, v [B, S, N, D], the padding mask [B, S] of the keys."""
    q, k, v = (tf.compat.v1.placeholder(tf.float32, [2, 5, 2, 16], name=nm) for nm in "qkv")
    pm = tf.compat.v1.placeholder(tf.bool, [2, 5], name="pm")
    mask = tf.reshape(pm, [2, 1, 1, 5])
    qt = tf.transpose(q * 0.25, [0, 2, 3, 1])
    kt = tf.transpose(k, [0, 2, 1, 3])
    s = tf.transpose(tf.matmul(kt, qt), [0, 1, 3, 2])
    p = tf.nn.softmax(tf.where(mask, s, -1e9), axis=-1)
    p = tf.where(mask, p, 0.0)
    o = tf.matmul(p, tf.transpose(v, [0, 2, 1, 3]))
    tf.identity(tf.transpose(o, [0, 2, 1, 3]), name="out")


def test_keras3_softmax_mask_attention_zeroes_dropped_keys(tmp_path):
    """cann-cleanup brings the scores into the attention rules' form (transposes into adj flags,
    the query's scale onto the scores); the second where is FusedAttention's zero_masked.  With
    every key of batch 1 dropped its output is 0 (TensorFlow's), at the fused and kernel level."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from tools.driver.runner import run_graphdef

    path = _build(tmp_path / "keras3_mask.pb", _keras3_softmax_mask_attention)
    ctx = make_context()
    module = import_graphdef_file(path)
    inputs = random_inputs(module, seed=3)
    inputs["pm"] = np.array([[True, False, True, True, False], [False] * 5])
    ref = run_graphdef(path, inputs, ["out"])["out"]
    assert np.all(ref[1] == 0)
    for passes in (("tf-to-cann", "cann-cleanup", "fuse"), ("assign-layouts", "cann-to-kernel")):
        run_passes(ctx, module, passes)
        text = module_to_text(module, False, False)
        if passes[-1] == "fuse":
            assert "zero_masked = true" in text and "cann.FusedAttention" in text, text
            assert "cann.TransposeD" not in text and "cann.SoftmaxV2" not in text, text
        module, _ = parse_module(ctx, text, "<level>")
        out = run_module(module, inputs)
        (ours,) = out.values()
        assert float(np.abs(ours.astype(np.float64) - ref).max()) <= 1e-4


def test_keras3_softmax_mask_attention_through_cann_compile(tmp_path, capsys):
    """The same graph through cann-compile: three launches (scores GEMM, the masked softmax with
    its zeroing, p @ v), no TransData, and cann-run --compare-with matches TensorFlow."""
    from tools.cann_compile import main as compile_main
    from tools.cann_run import main as run_main

    pb = _build(tmp_path / "keras3_mask.pb", _keras3_softmax_mask_attention)
    om = tmp_path / "keras3_mask.om"
    assert compile_main([f"--model={pb}", "--framework=3", "-o", str(om), "--report"]) == 0
    out = capsys.readouterr().out
    assert "model: 3 kernel launches" in out, out
    assert " transdata " not in out, out
    assert run_main([str(om), "--compare-with", pb]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")


@pytest.mark.parametrize("hidden", [32, 24])
def test_keras_encoder_attention_on_fractal_nz_through_cann_compile(tmp_path, capsys, hidden):
    """One Keras encoder layer through cann-compile: FusedMultiHeadAttention takes in the heads'
    merge and runs on FRACTAL_NZ between the matmuls, so the only TransData the layout report
    lists are the graph input's and output's; cann-run --compare-with matches TensorFlow.  Head
    dim 16 and 12 (the heads' columns off the fractal grid)."""
    from tests.model_zoo.zoo import bert_encoder, freeze
    from tools.cann_compile import main as compile_main
    from tools.cann_run import main as run_main

    pb = _write(tmp_path / "enc.pb", freeze(bert_encoder(layers=1, seq=16, hidden=hidden, heads=2,
                                                         ffn=2 * hidden)))
    om = tmp_path / "enc.om"
    assert compile_main([f"--model={pb}", "--framework=3", "-o", str(om), "--layout-report", "-"]) == 0
    cap = capsys.readouterr()
    out = cap.out + cap.err
    assigned = out.split("after cann-to-kernel:")[0]  # (then the ones folded into kernels' DMA)
    left = [ln for ln in assigned.splitlines() if ln.startswith("TransData")]
    assert len(left) == 2 and left[0].endswith("graph input") and left[1].endswith("graph output"), out
    assert run_main([str(om), "--compare-with", str(pb)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")
