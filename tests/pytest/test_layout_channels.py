"""Ops over the channels of NC1HWC0 values (issue 12, layouts): LayerNorm and reductions over C
(the padding lanes of the last C1 block masked, any channel count) and Reshapes that keep the
channels (H, W regrouped; the flatten to [N*H*W, C] around a matmul, to and from FRACTAL_NZ)
run on NC1HWC0 between convs, so only the graph's input and output keep a TransData.  Each
model is built here in TensorFlow, compiled by cann-compile and its .om run by cann-run
--compare-with against TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tensorflow")


def _graph(path, build):
    """A frozen GraphDef written by build(tf, rng) from placeholder 'x' to output 'y'."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        build(tf, np.random.default_rng(0))
    tf.io.write_graph(g.as_graph_def(), str(path.parent), path.name, as_text=False)
    return path


def _conv(tf, rng, x, cin, cout, k=1, name=None):
    w = tf.constant((rng.standard_normal([k, k, cin, cout]) * 0.4).astype(np.float32))
    b = tf.constant((rng.standard_normal([cout]) * 0.1).astype(np.float32))
    return tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b, name=name)


def _layer_norm(tf, rng, x, c, eps=1e-6):
    """Keras LayerNormalization's graph over the last axis (moments, rsqrt, x*inv + beta - mean*inv)."""
    gamma = tf.constant((1 + 0.1 * rng.standard_normal([c])).astype(np.float32))
    beta = tf.constant((0.1 * rng.standard_normal([c])).astype(np.float32))
    mean, var = tf.nn.moments(x, axes=[3], keepdims=True)
    inv = tf.math.rsqrt(var + eps) * gamma
    return x * inv + (beta - mean * inv)


def _compile_and_compare(tmp_path, capsys, pb):
    from tools.cann_compile import main as compile_main
    from tools.cann_run import main as run_main

    om, rep = tmp_path / "m", tmp_path / "layout.txt"
    rc = compile_main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                       f"--output={om}", f"--layout-report={rep}"])
    err = capsys.readouterr().err
    assert rc == 0, err
    rc = run_main([f"{om}.om", "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0 and out.out.rstrip().endswith("OK"), out.out + out.err
    return rep.read_text(), f"{om}.om"


def _kernel_kinds(om):
    from xdsl.dialects.builtin import StringAttr

    from compiler.backend import memory_plan as mp
    from compiler.backend.offline_model import load_offline_model

    kinds = []
    for f in mp.planned_functions(load_offline_model(om).module):
        for op in f.body.blocks.first.ops:
            k = op.properties.get("kind")
            kinds.append(k.data if isinstance(k, StringAttr) else op.name)
    return kinds


@pytest.mark.parametrize("channels", [24, 40])
def test_layer_norm_over_channels_between_convs_keeps_nc1hwc0(tmp_path, capsys, channels):
    """conv -> LayerNorm over C (C not a multiple of C0 = 16) -> depthwise-free 1x1 conv: the
    norm runs on NC1HWC0; TransData only at the graph's input and output."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, 6, 6, 3], name="x")
        a = _conv(tf, rng, x, 3, channels, k=3)
        n = _layer_norm(tf, rng, a, channels)
        tf.identity(_conv(tf, rng, n, channels, 8), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "ln.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep
    assert "LayerNorm" in _kernel_kinds(om)


@pytest.mark.parametrize("reduce_fn", ["reduce_max", "reduce_mean"])
def test_reduction_over_channels_feeds_a_conv_on_nc1hwc0(tmp_path, capsys, reduce_fn):
    """conv (20 channels) -> max / mean over C with keep_dims -> conv: the reduction reads
    NC1HWC0 and writes NC1HWC0 (N, 1, H, W, C0), which the next conv reads as it is."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, 5, 7, 3], name="x")
        a = _conv(tf, rng, x, 3, 20, k=3)
        r = getattr(tf.math, reduce_fn)(a, axis=3, keepdims=True)
        tf.identity(_conv(tf, rng, r, 1, 4, k=3), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "red.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep


@pytest.mark.parametrize("hw", [8, 3])
def test_flatten_around_a_matmul_between_convs_keeps_device_layouts(tmp_path, capsys, hw):
    """conv -> Reshape [N*H*W, C] -> MatMul -> Reshape [N, H, W, C'] -> conv (a dense layer over
    channels, as Keras's Tensordot writes it): the reshapes go NC1HWC0 <-> FRACTAL_NZ, a view
    when H*W is a multiple of 16 (hw = 8), else a row-moving kernel (hw = 3)."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, hw, hw, 3], name="x")
        a = _conv(tf, rng, x, 3, 24, k=3)
        m = tf.reshape(a, [hw * hw, 24])
        w = tf.constant((rng.standard_normal([24, 40]) * 0.3).astype(np.float32))
        d = tf.nn.relu(tf.matmul(m, w))
        tf.identity(_conv(tf, rng, tf.reshape(d, [1, hw, hw, 40]), 40, 8), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "flat.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep
    assert ("Reshape" in _kernel_kinds(om)) == (hw * hw % 16 != 0)


def test_reshape_of_h_and_w_between_convs_is_a_view(tmp_path, capsys):
    """conv -> Reshape [1, 8, 8, C] -> [1, 4, 16, C] (N and C kept) -> conv: no kernel, no
    TransData between the convs."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, 8, 8, 3], name="x")
        a = _conv(tf, rng, x, 3, 20, k=3)
        tf.identity(_conv(tf, rng, tf.reshape(a, [1, 4, 16, 20]), 20, 8, k=3), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "hw.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep
    assert "kernel.view" in _kernel_kinds(om)


def test_repeat_upsampling_between_convs_keeps_nc1hwc0(tmp_path, capsys):
    """conv (20 channels) -> tf.repeat along H then W (Reshape to a rank-5 value, BroadcastToD over
    the inserted axis, Reshape back) -> conv: the rank-5 values are channels-last NC1HWC0
    (formats.py channels_last_shape), the reshapes views, the two repeats one broadcast kernel on
    the stored array (algebraic-simplify's BroadcastChain) read only by the conv, so it is the
    conv's fmap load (compiler/transforms/fusion/resample.py): no kernel of its own; TransData only
    at the graph's input and output."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, 4, 5, 3], name="x")
        a = _conv(tf, rng, x, 3, 20, k=3)
        u = tf.repeat(tf.repeat(a, 2, axis=1), 2, axis=2)
        tf.identity(_conv(tf, rng, u, 20, 4, k=3), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "rep.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep
    assert [k for k in _kernel_kinds(om) if k != "cann.Const"] == ["Conv2D", "Conv2D", "func.return"]


def test_zero_insertion_between_convs_keeps_nc1hwc0(tmp_path, capsys):
    """conv -> Reshape [1, H, 1, W, 1, C] -> Pad after the unit axes -> Reshape [1, 2H, 2W, C]
    (the zero insertion of a stride-2 transposed conv) -> conv: the pad runs on the rank-6
    channels-last NC1HWC0 value, read only by the conv, so it is the conv's fmap load
    (compiler/transforms/fusion/resample.py); TransData only at the graph's input and output."""
    def build(tf, rng):
        x = tf.compat.v1.placeholder(tf.float32, [1, 3, 4, 3], name="x")
        a = _conv(tf, rng, x, 3, 24, k=3)
        r = tf.reshape(a, [1, 3, 1, 4, 1, 24])
        p = tf.pad(r, [[0, 0], [0, 0], [0, 1], [0, 0], [0, 1], [0, 0]])
        tf.identity(_conv(tf, rng, tf.reshape(p, [1, 6, 8, 24]), 24, 4, k=2), name="y")

    rep, om = _compile_and_compare(tmp_path, capsys, _graph(tmp_path / "zi.pb", build))
    assert rep.startswith("layout report: 2 TransData"), rep
    assert [k for k in _kernel_kinds(om) if k != "cann.Const"] == ["Conv2D", "Conv2D", "func.return"]


def test_embedding_gather_writes_fractal_nz_for_the_matmul(tmp_path, capsys):
    """ids -> GatherV2D of table rows (M = 20 rows: the NZ padding rows 20..31 written as zeros)
    -> MatMul: the gather stores its rows as FRACTAL_NZ (rule gather-rows), so the matmul reads
    them with no TransData; only the graph's output is converted."""
    def build(tf, rng):
        ids = tf.compat.v1.placeholder(tf.int32, [20], name="x")
        table = tf.constant(rng.standard_normal([50, 24]).astype(np.float32))
        e = tf.gather(table, ids)
        w = tf.constant((rng.standard_normal([24, 8]) * 0.3).astype(np.float32))
        tf.identity(tf.nn.relu(tf.matmul(e, w)), name="y")

    pb = _graph(tmp_path / "emb.pb", build)
    from tools.cann_compile import main as compile_main
    from tools.cann_run import main as run_main

    om, rep = tmp_path / "m", tmp_path / "layout.txt"
    assert compile_main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                         f"--output={om}", f"--layout-report={rep}"]) == 0, capsys.readouterr().err
    ids = tmp_path / "ids.npy"
    np.save(ids, np.random.default_rng(1).integers(0, 50, 20).astype(np.int32))
    rc = run_main([f"{om}.om", "--input", f"x={ids}", "--compare-with", str(pb), "--atol", "1e-4",
                   "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0 and out.out.rstrip().endswith("OK"), out.out + out.err
    text = rep.read_text()
    assert text.startswith("layout report: 1 TransData"), text
    assert "graph output" in text
