"""Shape ranges with tiling at dispatch (issue 16 part 2): `cann-compile --input_shape="x:1~16,.."`
compiles once; `cann-run` runs the .om at several shapes in the range, each tiled at dispatch
and cached by shape, and compares each with TensorFlow.  Models: tests/model_zoo/ranged.py (a
small CNN with a dynamic batch, a Keras-layer transformer encoder with a dynamic sequence)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("tensorflow")
pytest.importorskip("keras")


def _compile(capsys, *argv):
    from tools.cann_compile import main as compile_main

    rc = compile_main(["--framework=3", "--soc_version=Ascend910B3", *argv])
    return rc, capsys.readouterr()


def _run(capsys, *argv):
    from tools.cann_run import main as run_main

    rc = run_main(list(argv))
    return rc, capsys.readouterr()


@pytest.fixture(scope="module")
def cnn(tmp_path_factory):
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_compile import main as compile_main

    pb = ranged_graphdef("RangedCNN")
    out = tmp_path_factory.mktemp("cnn") / "cnn"
    assert compile_main([f"--model={pb}", "--framework=3", "--input_shape=x:1~16,32,32,3",
                         f"--output={out}"]) == 0
    return pb, f"{out}.om"


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_compile import main as compile_main

    pb = ranged_graphdef("RangedEncoder")
    out = tmp_path_factory.mktemp("enc") / "enc"
    assert compile_main([f"--model={pb}", "--framework=3", "--input_shape=x:1,1~32,32",
                         f"--output={out}"]) == 0
    return pb, f"{out}.om"


def _inputs(tmp_path, shapes):
    paths = []
    for k, s in enumerate(shapes):
        p = tmp_path / f"x{k}.npy"
        np.save(p, np.random.default_rng(k).standard_normal(s).astype(np.float32))
        paths.append(p)
    return paths


def _check_runs(capsys, tmp_path, model, shapes):
    pb, om = model
    argv = [om]
    for p in _inputs(tmp_path, shapes):
        argv += ["--input", f"x={p}"]
    rc, out = _run(capsys, *argv, "--compare-with", pb, "--atol", "1e-4", "--rtol", "1e-3")
    lines = out.out.strip().splitlines()
    assert rc == 0, out.out + out.err
    runs = [ln for ln in lines if ln.startswith("[")]
    assert len(runs) == len(shapes) and all(ln.endswith(" OK") for ln in runs), out.out
    for ln, s in zip(runs, shapes):
        assert ln.startswith(f"[x:{','.join(map(str, s))}]")
    return lines[-1]


def test_cnn_with_a_batch_range_matches_tf_at_six_shapes(capsys, tmp_path, cnn):
    shapes = [(b, 32, 32, 3) for b in (1, 3, 4, 9, 16, 4)]
    stats = _check_runs(capsys, tmp_path, cnn, shapes)
    assert stats.startswith("tiling at dispatch: 1 hits, 5 misses of the shape cache (5 shapes"), stats


def test_cnn_with_image_size_ranges_matches_tf_at_five_shapes(capsys, tmp_path):
    """Batch, H and W ranged at once (stride-1 SAME convs, a VALID 2x2 max pool: odd sizes too)."""
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_compile import main as compile_main

    pb = ranged_graphdef("RangedCNN")
    out = tmp_path / "hw"
    assert compile_main([f"--model={pb}", "--framework=3", "--input_shape=x:1~4,16~48,16~48,3",
                         f"--output={out}"]) == 0
    shapes = [(1, 16, 16, 3), (2, 17, 31, 3), (4, 48, 48, 3), (3, 32, 20, 3), (1, 45, 16, 3)]
    stats = _check_runs(capsys, tmp_path, (pb, f"{out}.om"), shapes)
    assert stats.startswith("tiling at dispatch: 0 hits, 5 misses"), stats


def test_encoder_with_a_sequence_range_matches_tf_at_six_lengths(capsys, tmp_path, encoder):
    shapes = [(1, s, 32) for s in (1, 5, 8, 13, 24, 32, 13)]
    stats = _check_runs(capsys, tmp_path, encoder, shapes)
    assert stats.startswith("tiling at dispatch: 1 hits, 6 misses of the shape cache (6 shapes"), stats


def test_the_om_is_planned_for_the_range_maximum(cnn):
    """The .om's arena is the plan at batch 16; every shape's plan at dispatch fits in it."""
    from compiler.backend.memory_plan import read_plan
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.entry import input_specs, main_func
    from tools.driver.runtime_tiling import Dispatcher

    module = load_offline_model(cnn[1]).module
    assert input_specs(module)[0][1] == (16, 32, 32, 3)
    d = Dispatcher.of_kernel_module(module)
    arena = read_plan(main_func(module)).arena
    plans = [read_plan(main_func(d.kernels({"x": [b, 32, 32, 3]}))).arena for b in (1, 7, 16)]
    assert plans[-1] == arena and all(p <= arena for p in plans) and plans[0] < arena


def test_a_shape_outside_the_range_is_one_error(capsys, tmp_path, cnn):
    (p,) = _inputs(tmp_path, [(17, 32, 32, 3)])
    rc, out = _run(capsys, cnn[1], "--input", f"x={p}")
    assert rc == 1
    assert out.err.strip() == (f"{p}: error: input 'x' has shape [17, 32, 32, 3], outside the "
                               "compiled ranges [1~16,32,32,3]")


@pytest.mark.parametrize("spec,why", [
    ("x:1~,32,32,3", "'1~' is neither a positive integer nor a range lo~hi"),
    ("x:16~1,32,32,3", "range '16~1' must have 1 <= lo <= hi"),
    ("x:0~4,32,32,3", "range '0~4' must have 1 <= lo <= hi"),
    ("x:1~a,32,32,3", "'1~a' is neither a positive integer nor a range lo~hi"),
])
def test_a_malformed_range_is_one_error(capsys, tmp_path, cnn, spec, why):
    out = tmp_path / "bad"
    rc, res = _compile(capsys, f"--model={cnn[0]}", f"--input_shape={spec}", f"--output={out}")
    assert rc == 1 and not (tmp_path / "bad.om").exists()
    assert res.err.strip() == f"cann-compile: error: --input_shape={spec}: '{spec}': {why}", res.err


def test_a_data_dependent_shape_is_one_error_naming_the_node(capsys, tmp_path):
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 8], name="x")
        tf.gather_nd(x, tf.where(x > 0, name="positive"), name="y")
    tf.io.write_graph(g.as_graph_def(), str(tmp_path), "dd.pb", as_text=False)
    pb = tmp_path / "dd.pb"
    rc, res = _compile(capsys, f"--model={pb}", "--input_shape=x:1~4,8", f"--output={tmp_path / 'dd'}")
    assert rc == 1 and not (tmp_path / "dd.om").exists()
    assert res.err.strip() == (
        f"{pb}: error: node 'positive' (tf.Where) has an output shape (?x2) that depends on the "
        "data, not only on the input shapes; a shape range cannot express it"), res.err


@pytest.mark.parametrize("model,spec,shape", [
    ("RangedCNN", "x:1~16,32,32,3", "x:4,32,32,3"),
    ("RangedEncoder", "x:1,1~32,32", "x:1,13,32"),
])
def test_run_time_tiling_estimate_is_within_1_1x_of_a_static_compile(capsys, tmp_path, model,
                                                                      spec, shape):
    from tests.model_zoo.ranged import ranged_graphdef

    pb = ranged_graphdef(model)
    ranged, static = tmp_path / "ranged.json", tmp_path / "static.json"
    rc, res = _compile(capsys, f"--model={pb}", f"--input_shape={spec}", f"--report-shape={shape}",
                       f"--report-json={ranged}", f"--output={tmp_path / 'r'}")
    assert rc == 0, res.err
    rc, res = _compile(capsys, f"--model={pb}", f"--input_shape={shape}",
                       f"--report-json={static}", f"--output={tmp_path / 's'}")
    assert rc == 0, res.err
    ours = json.loads(ranged.read_text())["latency_us"]
    theirs = json.loads(static.read_text())["latency_us"]
    assert ours <= 1.1 * theirs, (ours, theirs)


def test_symbolic_shapes_reach_the_recorded_kernels(cnn, encoder):
    """The recorded tiling function is kernel-level IR with `?` where the range is (in the
    storage shapes and the formats' origin shapes); it parses and prints back the same."""
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.ir_io import make_context, module_to_text, parse_module
    from tools.driver.runtime_tiling import KERNELS_ATTR

    for (_, om), pattern in (
            (cnn, r"tiling_fn<cube, symbolic \[\[0, 0\]\]>.*\n.*\n *%\S+ = cann\.FusedConv2D.*"
                  r"tensor<\?x1x32x32x4xf32, #cann\.format<NC1HWC0_C04, origin NHWC \[\?, 32, 32, 3\]>>"),
            (encoder, r"cann\.FusedMatMul.*tensor<2x\?x16x16xf32, #cann\.format<FRACTAL_NZ, "
                      r"origin ND \[\?, 32\]>>")):
        text = load_offline_model(om).module.attributes[KERNELS_ATTR].data
        assert re.search(pattern, text), text[:2000]
        assert module_to_text(parse_module(make_context(), text, "source")[0]) == text


def test_model_information_names_the_ranges(capsys, cnn):
    rc, out = _compile(capsys, "--mode=6", f"--om={cnn[1]}")
    assert rc == 0, out.err
    lines = out.out.splitlines()
    assert ("shape ranges (kernels tiled at dispatch; inputs below at the maximum): "
            "x:1~16,32,32,3") in lines
    assert "  [0] x: 16x32x32x3 float32" in lines


@pytest.mark.parametrize("flag", ["--dump-graph=g.dot", "--layout-report=-"])
def test_per_graph_reports_are_refused_with_a_range(capsys, tmp_path, cnn, flag):
    rc, res = _compile(capsys, f"--model={cnn[0]}", "--input_shape=x:1~16,32,32,3", flag,
                       f"--output={tmp_path / 'r'}")
    assert rc == 1 and not (tmp_path / "r.om").exists()
    assert res.err.strip() == (f"cann-compile: error: {flag.split('=')[0]} cannot be used with a "
                               "ranged --input_shape (fusion and layouts run per shape, at "
                               "dispatch); compile at one shape for it")


@pytest.mark.parametrize("level", ["cann", "fused"])
def test_the_interpreters_run_symbolic_ir_at_any_shape(capsys, tmp_path, level):
    """IR imported with `?` and taken to the cann (or fused cann) level runs at two batch sizes
    and matches TensorFlow: the cann and fused-cann interpreters take `?` types.  (The tf-level
    interpreter has semantics for a few ops only, Reshape not among them, `?` or not.)"""
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_opt import main as opt_main
    from tools.cann_translate import main as translate_main

    pb = ranged_graphdef("RangedCNN")
    tf_ir, ir = tmp_path / "m.tf.mlir", tmp_path / f"m.{level}.mlir"
    assert translate_main(["--import-graphdef", pb, "--input-shape", "x:-1,32,32,3",
                           "-o", str(tf_ir)]) == 0
    assert opt_main([f"--to-level={level}", str(tf_ir), "-o", str(ir)]) == 0
    assert "tensor<?x32x32x3xf32>" in ir.read_text()
    capsys.readouterr()
    for p in _inputs(tmp_path, [(3, 32, 32, 3), (7, 32, 32, 3)]):
        rc, out = _run(capsys, str(ir), "--input", f"x={p}", "--compare-with", pb, "--atol", "1e-4")
        assert rc == 0 and out.out.strip().endswith("OK"), out.out + out.err


def test_the_shape_cache_evicts_the_least_recently_used(cnn):
    from compiler.backend.offline_model import load_offline_model
    from tools.driver.runtime_tiling import Dispatcher

    d = Dispatcher.of_kernel_module(load_offline_model(cnn[1]).module)
    d.cache_limit = 2
    first = d.kernels({"x": [1, 32, 32, 3]})
    d.kernels({"x": [2, 32, 32, 3]})
    assert d.kernels({"x": [1, 32, 32, 3]}) is first  # a hit: now the most recently used
    d.kernels({"x": [3, 32, 32, 3]})  # evicts batch 2
    d.kernels({"x": [1, 32, 32, 3]})
    d.kernels({"x": [2, 32, 32, 3]})  # tiled again
    assert (d.hits, d.misses, d.evictions) == (2, 4, 2)
    assert "(2 shapes tiled, 2 evicted)" in d.stats_line()


def test_an_unbounded_dimension_runs_past_any_compiled_size(capsys, tmp_path):
    """ATC's -1 in a spec with a range (`1~1`: the batch, fixed): any sequence length from 1; the
    .om holds the kernels at the smallest shape and each dispatch plans the arena it needs."""
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_compile import main as compile_main

    pb = ranged_graphdef("RangedEncoder")
    out = tmp_path / "u"
    assert compile_main([f"--model={pb}", "--framework=3", "--input_shape=x:1~1,-1,32",
                         f"--output={out}"]) == 0
    rc, info = _compile(capsys, "--mode=6", f"--om={out}.om")
    assert "shape ranges (kernels tiled at dispatch; inputs below at the smallest): x:1,-1,32" \
        in info.out.splitlines()
    stats = _check_runs(capsys, tmp_path, (pb, f"{out}.om"), [(1, 3, 32), (1, 40, 32), (1, 77, 32)])
    assert stats.startswith("tiling at dispatch: 0 hits, 3 misses"), stats


def test_keras_hub_bert_with_a_sequence_range_matches_tf_at_five_lengths(capsys, tmp_path):
    """keras-hub's BertBackbone (the zoo's small configuration) compiled once with its three
    inputs ranged on the sequence axis: its PositionEmbedding slices the table to Shape(x)[1]
    and broadcasts it to Shape(x) (cann.Shape / Slice / BroadcastTo, resolved at dispatch)."""
    from tests.model_zoo.ranged import HUB_SPECS, ranged_graphdef

    pb = ranged_graphdef("RangedBert")
    names = HUB_SPECS["RangedBert"][1]
    out = tmp_path / "bert"
    rc, res = _compile(capsys, f"--model={pb}", "--input_shape=" + ";".join(
        f"{n}:1,1~32" for n in names), f"--output={out}")
    assert rc == 0, res.err
    rng = np.random.default_rng(0)
    argv, lengths = [f"{out}.om"], (1, 5, 13, 16, 32)
    for n_tokens in lengths:
        mask = np.zeros((1, n_tokens), np.int32)
        mask[0, :max(1, n_tokens - 2)] = 1
        values = {"token_ids": rng.integers(0, 1000, (1, n_tokens)),
                  "segment_ids": rng.integers(0, 2, (1, n_tokens)), "padding_mask": mask}
        for n in names:
            p = tmp_path / f"{n}{n_tokens}.npy"
            np.save(p, values[n].astype(np.int32))
            argv += ["--input", f"{n}={p}"]
    rc, res = _run(capsys, *argv, "--compare-with", pb, "--atol", "1e-4", "--rtol", "1e-3")
    assert rc == 0, res.out + res.err
    runs = [ln for ln in res.out.splitlines() if ln.startswith("[")]
    assert len(runs) == 2 * len(lengths) and all(ln.endswith(" OK") for ln in runs), res.out
    from compiler.backend.offline_model import load_offline_model

    order = [i["name"] for i in load_offline_model(f"{out}.om").manifest["inputs"]]  # the .om's
    assert sorted(order) == sorted(names)
    assert [ln.split("]")[0] for ln in runs[::2]] == [
        "[" + ";".join(f"{n}:1,{s}" for n in order) for s in lengths]
    assert res.out.splitlines()[-1].startswith("tiling at dispatch: 0 hits, 5 misses")


def test_a_size_computed_from_the_data_is_one_error_naming_the_node(capsys, tmp_path):
    """A Slice size from Shape(x) and the data: not a shape computation (the data-dependent
    shape error of the range import)."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.int32, [1, None], name="x")
        table = tf.constant(np.ones((32, 4), np.float32))
        n = tf.minimum(tf.shape(x)[1], tf.reduce_max(x))
        tf.slice(table, [0, 0], tf.stack([n, 4]), name="rows")
    tf.io.write_graph(g.as_graph_def(), str(tmp_path), "ds.pb", as_text=False)
    pb = tmp_path / "ds.pb"
    rc, res = _compile(capsys, f"--model={pb}", "--input_shape=x:1,1~32", "--out_nodes=rows:0",
                       f"--output={tmp_path / 'ds'}")
    assert rc == 1 and not (tmp_path / "ds.om").exists()
    assert res.err.strip() == (
        f"{pb}: error: node 'rows' (tf.Slice) has an output shape (?x4) that depends on the "
        "data, not only on the input shapes; a shape range cannot express it"), res.err


def _mode3(capsys, tmp_path, pb, spec):
    report = tmp_path / "check.json"
    rc, res = _compile(capsys, "--mode=3", f"--model={pb}", f"--input_shape={spec}",
                       f"--check_report={report}")
    assert rc == 0, res.err
    return json.loads(report.read_text())


def test_mode3_pre_checks_the_graph_a_ranged_compile_legalizes(capsys, tmp_path):
    """--mode=3 with a range checks the symbolic graph: a SAME depthwise conv of stride 2 needs
    static H and W, so it passes at one shape and fails with H and W ranged (its node named);
    a data-dependent shape is an import entry naming its node."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None, None, 3], name="x")
        w = tf.constant(np.ones((3, 3, 3, 1), np.float32))
        y = tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME", name="dw")
        tf.nn.relu(y, name="y")
    tf.io.write_graph(g.as_graph_def(), str(tmp_path), "dw.pb", as_text=False)
    pb = tmp_path / "dw.pb"
    ok = _mode3(capsys, tmp_path, pb, "x:1~4,16,16,3")
    assert (ok["result"], ok["unsupported_count"], ok["shape_ranges"]) == (
        "success", 0, "x:1~4,16,16,3") and ok["ops_checked"] > 0
    bad = _mode3(capsys, tmp_path, pb, "x:1,8~32,8~32,3")
    assert bad["result"] == "failed" and bad["shape_ranges"] == "x:1,8~32,8~32,3"
    assert [(u["node"], u["stage"]) for u in bad["unsupported"]] == [("dw", "tf-to-cann")]
    assert "needs static spatial dimensions" in bad["unsupported"][0]["reason"]

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 8], name="x")
        tf.gather_nd(x, tf.where(x > 0, name="positive"), name="y")
    tf.io.write_graph(g.as_graph_def(), str(tmp_path), "dd.pb", as_text=False)
    dd = _mode3(capsys, tmp_path, tmp_path / "dd.pb", "x:1~4,8")
    assert dd["result"] == "failed"
    assert [(u["node"], u["stage"]) for u in dd["unsupported"]] == [("positive", "import")]


def test_mode3_with_a_malformed_range_is_one_error(capsys, tmp_path):
    from tests.model_zoo.ranged import ranged_graphdef

    rc, res = _compile(capsys, "--mode=3", f"--model={ranged_graphdef('RangedCNN')}", "--input_shape=x:4~2,32,32,3",
                       f"--check_report={tmp_path / 'c.json'}")
    assert rc == 1 and not (tmp_path / "c.json").exists()
    assert res.err.strip() == ("cann-compile: error: --input_shape=x:4~2,32,32,3: 'x:4~2,32,32,3': "
                               "range '4~2' must have 1 <= lo <= hi"), res.err


@pytest.fixture(scope="module")
def encoder_mlir(tmp_path_factory):
    """RangedEncoder as tf-level IR (cann-translate --import-graphdef), beside its .pb."""
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_translate import main as translate_main

    pb = ranged_graphdef("RangedEncoder")
    path = tmp_path_factory.mktemp("mlir") / "enc.tf.mlir"
    assert translate_main(["--import-graphdef", pb, "-o", str(path)]) == 0
    return pb, path


def test_a_range_on_tf_level_mlir_matches_tf_at_five_lengths(capsys, tmp_path, encoder_mlir):
    """The .mlir is exported to a GraphDef, so TensorFlow's shape inference reruns at the
    ranged shapes as for a .pb."""
    pb, path = encoder_mlir
    out = tmp_path / "enc"
    rc, res = _compile(capsys, f"--model={path}", "--input_shape=x:1,1~32,32", f"--output={out}")
    assert rc == 0, res.err
    stats = _check_runs(capsys, tmp_path, (pb, f"{out}.om"), [(1, s, 32) for s in (1, 7, 16, 25, 32)])
    assert stats.startswith("tiling at dispatch: 0 hits, 5 misses"), stats


def test_gears_and_a_static_shape_on_tf_level_mlir_match_tf(capsys, tmp_path, encoder_mlir):
    pb, path = encoder_mlir
    out = tmp_path / "gears"
    rc, res = _compile(capsys, f"--model={path}", "--input_shape=x:1,-1,32", "--input_format=ND",
                       "--dynamic_dims=8;16;24", f"--output={out}")
    assert rc == 0, res.err
    assert "3 gears (--dynamic_dims=8;16;24)" in res.out
    argv = [f"{out}.om"]
    for p in _inputs(tmp_path, [(1, 16, 32), (1, 8, 32), (1, 24, 32)]):
        argv += ["--input", f"x={p}"]
    rc, res = _run(capsys, *argv, "--compare-with", pb, "--atol", "1e-4", "--rtol", "1e-3")
    runs = [ln for ln in res.out.splitlines() if ln.startswith("[gear")]
    assert rc == 0 and len(runs) == 3 and all(ln.endswith(" OK") for ln in runs), res.out + res.err
    assert [ln.split(":")[0] for ln in runs] == ["[gear 1", "[gear 0", "[gear 2"]
    rc, res = _compile(capsys, f"--model={path}", "--input_shape=x:1,12,32",
                       f"--output={tmp_path / 'static'}")
    assert rc == 0, res.err
    (x,) = _inputs(tmp_path, [(1, 12, 32)])
    rc, res = _run(capsys, str(tmp_path / "static.om"), "--input", f"x={x}", "--compare-with", pb,
                   "--atol", "1e-4", "--rtol", "1e-3")
    assert rc == 0 and res.out.strip().endswith("OK"), res.out + res.err


def test_a_range_on_cann_level_mlir_is_one_error(capsys, tmp_path):
    path = tmp_path / "m.cann.mlir"
    path.write_text('func.func @main(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {\n'
                    '  %0 = cann.Relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>\n'
                    '  func.return %0 : tensor<1x8xf32>\n}\n')
    rc, res = _compile(capsys, f"--model={path}", "--input_shape=x:1~4,8",
                       f"--output={tmp_path / 'm'}")
    assert rc == 1 and not (tmp_path / "m.om").exists()
    assert res.err.strip() == (f"{path}: error: --input_shape with a range needs tf-level IR "
                               "(shape inference reruns on the new shapes); this IR is at the "
                               "cann level"), res.err


def test_a_broadcast_to_a_run_time_shape_of_computed_values_matches_tf(capsys, tmp_path):
    """BroadcastTo(relu(x[:, :1]), Shape(x)) + x over a ranged sequence: at dispatch the
    BroadcastTo becomes BroadcastToD of a computed value, fused with the Add (its tile is x's,
    loaded broadcast)."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, None, 4], name="x")
        tf.add(tf.broadcast_to(tf.nn.relu(x[:, :1]), tf.shape(x)), x, name="y")
    tf.io.write_graph(g.as_graph_def(), str(tmp_path), "bc.pb", as_text=False)
    pb = tmp_path / "bc.pb"
    out = tmp_path / "bc"
    rc, res = _compile(capsys, f"--model={pb}", "--input_shape=x:1,1~16,4", "--out_nodes=y:0",
                       f"--output={out}")
    assert rc == 0, res.err
    stats = _check_runs(capsys, tmp_path, (str(pb), f"{out}.om"), [(1, s, 4) for s in (1, 3, 16)])
    assert stats.startswith("tiling at dispatch: 0 hits, 3 misses"), stats


@pytest.mark.parametrize("which,shape", [("cnn", [5, 32, 32, 3]), ("encoder", [1, 19, 32])])
def test_kernels_with_dynamic_dims_give_the_layouts_of_the_whole_tiling_function(cnn, encoder,
                                                                                 which, shape):
    """The .om records the kernels fused and laid out once, with `?` (kernel.dispatch with a
    tiling function per kernel); at a shape between the two the compile generalized, the
    verifiers' shape rules give exactly the laid-out function the whole tiling function (fuse,
    assign-layouts at that shape) makes, and dispatch runs only the tiling passes (pack-launches,
    cann-to-kernel, plan-memory)."""
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.entry import main_func
    from compiler.ir.ir_io import make_context, module_to_text
    from dialects.kernel import DispatchOp
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.cann_compile import parse_args, pipeline_options
    from tools.driver.pipelines import run_pipeline
    from tools.driver.runtime_tiling import PIPELINE_ATTR, RANGES_ATTR, Dispatcher, concretize, specialize
    from tools.driver.shape_ranges import compile_ranged

    model, spec = {"cnn": ("RangedCNN", "x:1~16,32,32,3"), "encoder": ("RangedEncoder", "x:1,1~32,32")}[which]
    args = parse_args([f"--model={ranged_graphdef(model)}", "--framework=3", f"--input_shape={spec}",
                       "--soc_version=Ascend910B3", "--output=unused"])
    om = {"cnn": cnn, "encoder": encoder}[which][1]
    recorded = Dispatcher.of_kernel_module(load_offline_model(om).module)
    _, d = compile_ranged(args, pipeline_options(args))  # with the `?` cann function
    assert recorded.dispatch_kernels is not None and d.dispatch_kernels is not None
    mine = recorded.dispatch_kernels.clone()
    for key in (RANGES_ATTR, PIPELINE_ATTR):  # what the .om records beside the kernels
        mine.attributes.pop(key)
    assert module_to_text(mine) == module_to_text(d.dispatch_kernels)
    d.dispatch_kernels.verify()
    ops = [o for o in main_func(d.dispatch_kernels).body.ops
           if o.name not in ("cann.Const", "func.return")]
    assert ops and all(isinstance(o, DispatchOp) for o in ops)
    assert any(o.tiling_fn.solver.data == "cube" and o.tiling_fn.dims for o in ops)
    assert [p.name for p in d.lowering] == ["pack-launches", "cann-to-kernel", "plan-memory"]
    whole = specialize(d.symbolic, {"x": shape})
    run_pipeline(make_context(), whole, d.head, d.source)
    assert module_to_text(concretize(d.dispatch_kernels, {"x": shape})) == module_to_text(whole)
    recorded.kernels({"x": shape})
    assert "kernels with ? lowered once" in recorded.stats_line()


def _relu_module(op: str, rows: int, fmt: bool):
    from compiler.ir.ir_io import make_context, parse_module

    t = (f"tensor<1x{(rows + 15) // 16}x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [{rows}, 16]>>"
         if fmt else f"tensor<{rows}x16xf32>")
    text = f"""builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{
  func.func @main(%x: {t}) -> {t} attributes {{tf.entry_function = {{inputs = "x", outputs = "y"}}}} {{
    %y = cann.{op} %x : ({t}) -> {t}
    func.return %y : {t}
  }}
}}"""
    return parse_module(make_context(), text, "m.mlir")[0]


def test_generalize_puts_a_question_mark_where_two_shapes_differ():
    """1 and 17 rows stored FRACTAL_NZ: the origin row count differs, and so does the storage's
    row-block count (1 and 2) it implies: both become `?`; the rest stays."""
    from compiler.ir.ir_io import module_to_text
    from tools.driver.runtime_tiling import concretize, generalize, to_dispatch_kernels

    g = generalize(_relu_module("Relu", 1, True), _relu_module("Relu", 17, True))
    text = module_to_text(g)
    assert "tensor<1x?x16x16xf32, #cann.format<FRACTAL_NZ, origin ND [?, 16]>>" in text, text
    k = to_dispatch_kernels(g)
    k.verify()
    assert "#kernel.tiling_fn<vector, symbolic [[0, 1]]>" in module_to_text(k)
    assert module_to_text(concretize(k, {"x": [40, 16]})) == \
        module_to_text(_relu_module("Relu", 40, True))


def test_generalize_refuses_two_shapes_with_different_ops():
    from tools.driver.runtime_tiling import NotGeneral, generalize

    with pytest.raises(NotGeneral, match="the ops differ"):
        generalize(_relu_module("Relu", 4, False), _relu_module("Sigmoid", 9, False))
