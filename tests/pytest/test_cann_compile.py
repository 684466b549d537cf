"""cann-compile end to end: its ATC options (each one changes the output as it must), its ATC
working modes (--mode=1/3/6), the pipeline it prints (replayed with cann-opt) and its errors.

Most compiles run the tool's main() in this process (the same code path as the command line,
TensorFlow imported once); the error tests and the replay run the commands as subprocesses."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PBTXT = os.path.join(ROOT, "examples", "conv_block.pbtxt")


def _run(tool, *args):
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=600)


def _one_error(r, text):
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0], r.stderr
    assert "Traceback" not in r.stderr and text in r.stderr, r.stderr


def compile_(capsys, *args) -> tuple[int, str, str]:
    from tools.cann_compile import main

    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def run_(capsys, *args) -> tuple[int, str, str]:
    from tools.cann_run import main

    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def kernels(om: str) -> list[tuple[str, str, str]]:
    """(kind, TF node names, result element type) of every launch of an .om."""
    from xdsl.dialects.builtin import StringAttr

    from compiler.backend import memory_plan as mp
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.diagnostics import node_name

    out = []
    for f in mp.planned_functions(load_offline_model(om).module):
        for op in f.body.blocks.first.ops:
            if mp.is_kernel(op):
                kind = op.properties.get("kind")
                out.append((kind.data if isinstance(kind, StringAttr) else op.name,
                            node_name(op) or "", str(op.results[0].type.element_type)))
    return out


def dtype_of(om: str, kind: str) -> set[str]:
    """The result dtypes of the kernels of `kind`; for SoftmaxV2, of the kernel computing the
    softmax: its own, or the MatMulV2 kernel whose row epilogue it is (one dtype there:
    compiler/transforms/fusion/row_epilogue.py)."""
    found = {d for k, _, d in kernels(om) if k == kind}
    if kind == "SoftmaxV2" and not found:
        return dtype_of(om, "MatMulV2")
    return found


# --- models ------------------------------------------------------------------------------------

def _small_graph(path, dtype: str) -> None:
    """x[1,8,8,3] -> conv+bias+relu -> maxpool -> reshape -> matmul -> softmax ('prob')."""
    import tensorflow as tf

    dt = tf.float16 if dtype == "f16" else tf.float32
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(dt, [1, 8, 8, 3], name="x")
        w = tf.constant((rng.standard_normal([3, 3, 3, 4]) * 0.3).astype(dt.as_numpy_dtype), name="w")
        b = tf.constant((rng.standard_normal([4]) * 0.1).astype(dt.as_numpy_dtype), name="b")
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME", name="conv"), b, name="bias"),
                       name="relu")
        p = tf.nn.max_pool2d(y, 2, 2, "VALID", name="pool")
        r = tf.reshape(p, [1, 64], name="flat")
        m = tf.constant((rng.standard_normal([64, 10]) * 0.2).astype(dt.as_numpy_dtype), name="m")
        tf.nn.softmax(tf.matmul(r, m, name="fc"), name="prob")
    path.write_text(str(g.as_graph_def()))


def _unsupported_graph(path) -> None:
    """Three nodes the compiler does not take: Lgamma, Digamma (no CANN op), a float64 MatMul."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        lg = tf.math.lgamma(tf.nn.relu(x, name="ok_relu"), name="bad_lgamma")
        tf.math.digamma(lg, name="bad_digamma")
        d = tf.compat.v1.placeholder(tf.float64, [2, 3], name="d")
        tf.matmul(d, tf.constant(np.ones([3, 4]), dtype=tf.float64), name="bad_matmul64")
    path.write_text(str(g.as_graph_def()))


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    _small_graph(d / "small32.pbtxt", "f32")
    _small_graph(d / "small16.pbtxt", "f16")
    _unsupported_graph(d / "unsupported.pbtxt")
    return d


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    d = tmp_path_factory.mktemp("compile")
    r = _run("cann_compile", f"--model={PBTXT}", "--framework=3", "--soc_version=Ascend910B3",
             "--input_shape=x:1,8,8,3", "--out_nodes=output:0", "-o", str(d / "conv_block"),
             "--report", f"--report-json={d / 'report.json'}", f"--dump-graph={d / 'g.dot'}")
    assert r.returncode == 0, r.stderr
    return d, r


# --- the default compile -----------------------------------------------------------------------

def test_writes_om_and_summary(compiled):
    d, r = compiled
    assert (d / "conv_block.om").exists()  # .om appended, as ATC does
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{d / 'conv_block.om'}: ") and "arena" in first
    assert not [p for p in os.listdir(d) if p.startswith(".tmp-")]


def test_report(compiled):
    d, r = compiled
    out = r.stdout
    assert "performance estimate on Ascend910B3" in out
    assert "HBM bandwidth 1.6 TB/s" in out and "launch overhead 3.0 us" in out
    assert "roofline:" in out and "estimate / roofline" in out and "bound:" in out
    rep = json.loads((d / "report.json").read_text())
    assert rep["kernel_count"] == len(rep["kernels"]) >= 1
    assert rep["bound"] in ("host", "memory", "compute")
    assert rep["latency_us"] >= rep["roofline_us"] > 0
    assert any(k["unit"] == "cube" and k["cube_cycles"] > 0 for k in rep["kernels"])


def test_graph_dump(compiled):
    d, _ = compiled
    dot = (d / "g.dot").read_text()
    assert dot.startswith("digraph") and "before fusion" in dot and "after fusion" in dot
    assert "cluster_b_g0" in dot  # the fused group outlined in the before picture


def test_om_runs_and_matches_tensorflow(compiled):
    d, _ = compiled
    r = _run("cann_run", str(d / "conv_block.om"), "--compare-with", PBTXT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("OK")


# --- the pipeline builder ----------------------------------------------------------------------

def test_print_pipeline_replays_with_cann_opt(tmp_path):
    """The printed -p spec, run by cann-opt on the imported IR, gives the .om's kernel IR."""
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.ir_io import load_module, module_to_text

    r = _run("cann_compile", f"--model={PBTXT}", "-o", str(tmp_path / "m"), "--print-pipeline",
             "--input_shape=x:2,8,8,3", "--precision_mode=allow_fp32_to_fp16")
    assert r.returncode == 0, r.stderr
    spec = r.stdout.splitlines()[0]
    assert spec.startswith("tf-to-cann,cann-cleanup,recompose-rnn,fuse") and "plan-memory" in spec
    assert 'set-precision{mode="allow_fp32_to_fp16"}' in spec
    assert 'cann-to-kernel{soc_version="Ascend910B3"}' in spec
    tf_ir = tmp_path / "m.tf.mlir"
    r = _run("cann_translate", "--import-graphdef", PBTXT, "--input-shape", "x:2,8,8,3",
             "-o", str(tf_ir))
    assert r.returncode == 0, r.stderr
    r = _run("cann_opt", "-p", spec, str(tf_ir), "-o", str(tmp_path / "k.mlir"))
    assert r.returncode == 0, r.stderr
    replayed = load_module(str(tmp_path / "k.mlir"))[0]
    compiled = load_offline_model(str(tmp_path / "m.om")).module
    # Locations aside (the .om spells a fused location as one 'a+b+c' name), the same IR.
    from xdsl.dialects.builtin import UnknownLoc

    for m in (replayed, compiled):
        for op in m.walk():
            op.location = UnknownLoc()
    assert module_to_text(replayed) == module_to_text(compiled)


def test_cann_opt_to_level_is_the_same_pipeline(tmp_path):
    r = _run("cann_opt", "--to-level=kernel", "--precision-mode=force_fp16", "--print-pipeline",
             os.path.join(ROOT, "examples", "conv_block.tf.mlir"), "-o", os.devnull)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ('tf-to-cann,cann-cleanup,recompose-rnn,fuse{fold_constants=false soc_version="Ascend910B3"},'
                                'set-precision{mode="force_fp16"},cann-cleanup,align-concat-slabs,assign-layouts,'
                                'pack-launches{soc_version="Ascend910B3"},cann-to-kernel{soc_version="Ascend910B3"}')


def test_pipeline_builder_options_reach_their_passes():
    from tools.driver.pipelines import PipelineOptions, build_pipeline, resolve_chip

    passes = build_pipeline(PipelineOptions(chip=resolve_chip("Ascend310P3"), level="planned",
                                            fusion_switch_file="s.cfg", keep_dtype=("a",)))
    by_name = {p.name: p for p in passes}
    assert by_name["fuse"].switch_file == "s.cfg"
    assert by_name["set-precision"].keep == ("a",)
    assert by_name["cann-to-kernel"].soc_version == "Ascend310P3"
    assert [p.name for p in build_pipeline(PipelineOptions(level="cann"))] == \
        ["tf-to-cann", "cann-cleanup"]


def _pipeline_that_breaks_then_repairs():
    """A module whose one func.return returns nothing from a function typed () -> (), and two
    passes: the first retypes the function (a module that does not verify), the second puts the
    type back; the names of the passes that ran are collected."""
    from dataclasses import dataclass

    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import func
    from xdsl.dialects.builtin import FunctionType, ModuleOp, f32
    from xdsl.passes import ModulePass

    ran: list[str] = []
    module = ModuleOp([])
    with ImplicitBuilder(module.body):
        fn = func.FuncOp("main", ((), ()))
        with ImplicitBuilder(fn.body):
            func.ReturnOp()

    @dataclass(frozen=True)
    class Break(ModulePass):
        name = "break"

        def apply(self, ctx, op) -> None:
            ran.append(self.name)
            fn.function_type = FunctionType.from_lists([], [f32])

    @dataclass(frozen=True)
    class Repair(ModulePass):
        name = "repair"

        def apply(self, ctx, op) -> None:
            ran.append(self.name)
            fn.function_type = FunctionType.from_lists([], [])

    return module, [Break(), Repair()], ran


def test_pipeline_verifies_after_each_pass_with_verify_each():
    from compiler.ir.diagnostics import CompileError
    from compiler.ir.ir_io import make_context
    from tools.driver.pipelines import run_pipeline

    module, passes, ran = _pipeline_that_breaks_then_repairs()
    with pytest.raises(CompileError):
        run_pipeline(make_context(), module, passes, verify_each=True)
    assert ran == ["break"]  # stopped at the pass that left an invalid module


def test_pipeline_verifies_the_module_it_leaves_by_default_in_cann_compile():
    from compiler.ir.ir_io import make_context
    from tools.driver.pipelines import run_pipeline

    module, passes, ran = _pipeline_that_breaks_then_repairs()
    run_pipeline(make_context(), module, passes, verify_each=False)  # the final module verifies
    assert ran == ["break", "repair"]


def test_verify_each_writes_the_same_om(compiled, tmp_path):
    d, _ = compiled
    r = _run("cann_compile", f"--model={PBTXT}", "--framework=3", "--soc_version=Ascend910B3",
             "--input_shape=x:1,8,8,3", "--out_nodes=output:0", "-o", str(tmp_path / "conv_block"),
             "--verify-each")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "conv_block.om").read_bytes() == (d / "conv_block.om").read_bytes()


# --- every option changes the output as it must ------------------------------------------------

def test_input_shape_reshapes_and_matches_tensorflow(tmp_path, capsys):
    om = tmp_path / "b2.om"
    rc, out, err = compile_(capsys, f"--model={PBTXT}", "-o", om, "--input_shape=x:2,8,8,3")
    assert rc == 0, err
    rc, out, err = compile_(capsys, "--mode=6", f"--om={om}")
    assert rc == 0, err
    assert "[0] x: 2x8x8x3 float32" in out and "[0] output: 2x8x8x4 float32" in out
    rc, out, err = run_(capsys, om, "--compare-with", PBTXT)
    assert rc == 0 and out.rstrip().endswith("OK"), out + err


def test_input_shape_other_spatial_size(tmp_path, capsys):
    """The old 'differs from the graph' error is gone: the importer takes the new shape."""
    om = tmp_path / "s16.om"
    rc, out, err = compile_(capsys, f"--model={PBTXT}", "-o", om, "--input_shape=x:1,16,16,3")
    assert rc == 0, err
    rc, out, _ = compile_(capsys, "--mode=6", f"--om={om}")
    assert "[0] output: 1x16x16x4 float32" in out


@pytest.mark.parametrize("mode, expect", [
    # conv (cube), pool (grey), softmax (black), on the float32 model
    ("must_keep_origin_dtype", {"Conv2D": "f32", "MaxPool": "f32", "SoftmaxV2": "f32"}),
    ("force_fp32", {"Conv2D": "f32", "MaxPool": "f32", "SoftmaxV2": "f32"}),
    ("force_fp16", {"Conv2D": "f16", "MaxPool": "f16", "SoftmaxV2": "f16"}),
    ("allow_fp32_to_fp16", {"Conv2D": "f16", "MaxPool": "f32", "SoftmaxV2": "f32"}),
    ("allow_mix_precision", {"Conv2D": "f16", "MaxPool": "f16", "SoftmaxV2": "f32"}),
])
def test_precision_mode_sets_kernel_dtypes(models, tmp_path, capsys, mode, expect):
    om = tmp_path / f"{mode}.om"
    rc, _, err = compile_(capsys, f"--model={models / 'small32.pbtxt'}", "-o", om,
                          f"--precision_mode={mode}")
    assert rc == 0, err
    assert {k: dtype_of(str(om), k) for k in expect} == {k: {v} for k, v in expect.items()}
    assert dtype_of(str(om), "MatMulV2") == {"f32" if expect["Conv2D"] == "f32" else "f16"}


def test_force_fp32_raises_a_float16_model(models, tmp_path, capsys):
    for mode, want in (("must_keep_origin_dtype", "f16"), ("force_fp32", "f32")):
        om = tmp_path / f"{mode}.om"
        rc, _, err = compile_(capsys, f"--model={models / 'small16.pbtxt'}", "-o", om,
                              f"--precision_mode={mode}")
        assert rc == 0, err
        assert {d for k, _, d in kernels(str(om)) if k in ("Conv2D", "MatMulV2", "SoftmaxV2")} == {want}


def test_force_fp16_matches_tensorflow_within_fp16(models, tmp_path, capsys):
    om = tmp_path / "f16.om"
    assert compile_(capsys, f"--model={models / 'small32.pbtxt'}", "-o", om,
                    "--precision_mode=force_fp16")[0] == 0
    rc, out, err = run_(capsys, om, "--compare-with", models / "small32.pbtxt", "--atol", "1e-2",
                        "--rtol", "1e-2")
    assert rc == 0 and out.rstrip().endswith("OK"), out + err


def _fused_chain_graph(path) -> None:
    """x[4,40], y[4,40] -> relu(x * y + 0.5) * sigmoid(x) -> sum over axis 1: a pointwise chain
    the automatic fusion makes one cann.FusedKernel."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 40], name="x")
        y = tf.compat.v1.placeholder(tf.float32, [4, 40], name="y")
        t = tf.nn.relu(x * y + 0.5) * tf.sigmoid(x)
        tf.reduce_sum(t, axis=1, name="out")
    path.write_text(str(g.as_graph_def()))


def test_force_fp16_computes_a_fused_kernel_in_fp16(tmp_path, capsys):
    """--precision_mode=force_fp16 converts a cann.FusedKernel with its body (block arguments,
    ops, constants), as it converts each op it was fused from; the .om matches TF within fp16."""
    model = tmp_path / "chain.pbtxt"
    _fused_chain_graph(model)
    om = tmp_path / "chain.om"
    rc, _, err = compile_(capsys, f"--model={model}", "-o", om, "--precision_mode=force_fp16")
    assert rc == 0, err
    launches = kernels(str(om))  # the casts of x and y, the fused chain, the sum, the cast back
    assert ({d for _, _, d in launches[:-1]}, launches[-1][2]) == ({"f16"}, "f32")
    rc, out, err = run_(capsys, om, "--compare-with", model, "--atol", "2e-2", "--rtol", "1e-2")
    assert rc == 0 and out.rstrip().endswith("OK"), out + err


def test_out_nodes_selects_the_output(tmp_path, capsys):
    om = tmp_path / "bias.om"
    rc, _, err = compile_(capsys, f"--model={PBTXT}", "-o", om, "--out_nodes=conv1/BiasAdd:0")
    assert rc == 0, err
    info = compile_(capsys, "--mode=6", f"--om={om}")[1]
    assert "outputs: 1" in info and "[0] conv1/BiasAdd: 1x8x8x4" in info
    assert all("conv1/Relu" not in nodes for _, nodes, _ in kernels(str(om)))
    rc, out, err = run_(capsys, om, "--compare-with", PBTXT)
    assert rc == 0 and out.rstrip().endswith("OK"), out + err


def test_input_format_nhwc_is_recorded(tmp_path, capsys):
    om = tmp_path / "f.om"
    assert compile_(capsys, f"--model={PBTXT}", "-o", om, "--input_format=NHWC")[0] == 0
    js = tmp_path / "f.json"
    assert compile_(capsys, "--mode=1", f"--om={om}", f"--json={js}")[0] == 0
    attrs = json.loads(js.read_text())["model"]["module_attributes"]
    assert attrs["cann.input_format"] == '"NHWC"'


NCHW_MODEL = """\
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {tf.entry_function = {inputs = "x", outputs = "conv"}} {
  %w = "tf.Const"() {value = dense<0.1> : tensor<3x3x3x4xf32>} : () -> tensor<3x3x3x4xf32> loc("w")
  %0 = "tf.Conv2D"(%x, %w) {data_format = "NCHW", dilations = array<i64: 1, 1, 1, 1>, explicit_paddings = array<i64>, padding = "SAME", strides = array<i64: 1, 1, 1, 1>, use_cudnn_on_gpu = true} : (tensor<1x3x8x8xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x8x8xf32> loc("conv")
  func.return %0 : tensor<1x4x8x8xf32>
}
"""


def test_input_format_nchw_where_the_model_is_nchw(tmp_path, capsys):
    model = tmp_path / "nchw.tf.mlir"
    model.write_text(NCHW_MODEL)
    om = tmp_path / "nchw.om"
    rc, _, err = compile_(capsys, f"--model={model}", "-o", om, "--input_format=NCHW")
    assert rc == 0, err
    assert "[0] x: 1x3x8x8 float32" in compile_(capsys, "--mode=6", f"--om={om}")[1]
    rc, _, err = compile_(capsys, f"--model={model}", "-o", tmp_path / "bad.om", "--input_format=NHWC")
    assert rc == 1 and "--input_format=NHWC: input 'x' is read as NCHW by node 'conv'" in err
    assert not (tmp_path / "bad.om").exists()


def test_fusion_switch_file_keeps_the_relu_apart(tmp_path, capsys):
    """ATC's JSON switch file with every graph and UB fusion rule off: no kernel is the conv
    fused with its Relu any more (the kernels' TF node names say which nodes each computes)."""
    cfg = tmp_path / "switch.cfg"
    cfg.write_text('{"Switch": {"GraphFusion": {"ALL": "off"}, "UBFusion": {"ALL": "off"}}}\n')
    on, off = tmp_path / "on.om", tmp_path / "off.om"
    assert compile_(capsys, f"--model={PBTXT}", "-o", on)[0] == 0
    rc, _, err = compile_(capsys, f"--model={PBTXT}", "-o", off, f"--fusion_switch_file={cfg}")
    assert rc == 0, err

    def conv_with_relu(om) -> bool:
        return any("conv1/Conv2D" in n and "conv1/Relu" in n for _, n, _ in kernels(str(om)))

    assert conv_with_relu(on) and not conv_with_relu(off)


def test_soc_version_is_the_chip_tiled_for(tmp_path, capsys):
    om = tmp_path / "p.om"
    assert compile_(capsys, f"--model={PBTXT}", "-o", om, "--soc_version=Ascend310P3")[0] == 0
    info = compile_(capsys, "--mode=6", f"--om={om}")[1]
    assert "soc_version: Ascend310P3" in info
    js = tmp_path / "p.json"
    compile_(capsys, "--mode=1", f"--om={om}", f"--json={js}")
    ops = json.loads(js.read_text())["graph"]["functions"][0]["ops"]
    assert all(op["block_dim"] <= 8 for op in ops if op["launch"])  # 310P3: 8 cores


def test_output_type_fp16_for_every_output(tmp_path, capsys):
    om = tmp_path / "o.om"
    assert compile_(capsys, f"--model={PBTXT}", "-o", om, "--output_type=FP16")[0] == 0
    info = compile_(capsys, "--mode=6", f"--om={om}")[1]
    assert "[0] output: 1x8x8x4 float16" in info
    rc, out, err = run_(capsys, om, "--compare-with", PBTXT, "--atol", "1e-2", "--rtol", "1e-2")
    assert rc == 0 and out.rstrip().endswith("OK"), out + err


def test_output_type_per_node(tmp_path, capsys):
    om = tmp_path / "o.om"
    rc, _, err = compile_(capsys, f"--model={PBTXT}", "-o", om, "--out_nodes=conv1/Relu:0",
                          "--output_type=conv1/Relu:0:FP16")
    assert rc == 0, err
    assert "[0] conv1/Relu: 1x8x8x4 float16" in compile_(capsys, "--mode=6", f"--om={om}")[1]


def test_keep_dtype_keeps_softmax_and_warns_for_a_fused_op(models, tmp_path, capsys):
    cfg = tmp_path / "keep.cfg"
    cfg.write_text("prob\nrelu\n")
    om = tmp_path / "k.om"
    rc, _, err = compile_(capsys, f"--model={models / 'small32.pbtxt'}", "-o", om,
                          "--precision_mode=force_fp16", f"--keep_dtype={cfg}")
    assert rc == 0, err
    assert dtype_of(str(om), "SoftmaxV2") == {"f32"} and dtype_of(str(om), "Conv2D") == {"f16"}
    assert "cann-compile: warning: --keep_dtype: 'relu' was fused into cann.FusedConv2D" in err


def test_keep_dtype_by_op_type(models, tmp_path, capsys):
    cfg = tmp_path / "keep.cfg"
    cfg.write_text("OpType::MaxPool\n")
    om = tmp_path / "k.om"
    assert compile_(capsys, f"--model={models / 'small32.pbtxt'}", "-o", om,
                    "--precision_mode=force_fp16", f"--keep_dtype={cfg}")[0] == 0
    assert dtype_of(str(om), "MaxPool") == {"f32"} and dtype_of(str(om), "SoftmaxV2") == {"f16"}


def test_customize_dtypes_by_name_and_type(models, tmp_path, capsys):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("prob::InputDtype:float16,OutputDtype:float16\n"
                   "OpType::MaxPool:InputDtype:float16,OutputDtype:float16\n")
    om = tmp_path / "c.om"
    rc, _, err = compile_(capsys, f"--model={models / 'small32.pbtxt'}", "-o", om,
                          f"--customize_dtypes={cfg}")
    assert rc == 0, err
    assert dtype_of(str(om), "SoftmaxV2") == {"f16"} and dtype_of(str(om), "MaxPool") == {"f16"}
    assert dtype_of(str(om), "Conv2D") == {"f32"}


ATC_LINE = re.compile(r"^\[(DEBUG|INFO|WARNING|ERROR)\] [A-Z_-]+\(\d+,cann-compile\):"
                      r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} \[[\w.]+:\d+\]\S")


def test_log_info_is_in_atc_line_format(models, tmp_path, capsys):
    rc, _, err = compile_(capsys, f"--model={PBTXT}", "-o", tmp_path / "m", "--log=info")
    assert rc == 0, err
    lines = err.strip().splitlines()
    assert lines and all(ATC_LINE.match(ln) for ln in lines), err
    assert any("pass fuse" in ln for ln in lines)
    rc, _, err = compile_(capsys, f"--model={PBTXT}", "-o", tmp_path / "m", "--log=debug")
    assert any(ln.startswith("[DEBUG]") and "pipeline: tf-to-cann" in ln for ln in err.splitlines())


def test_log_null_silences_warnings(models, tmp_path, capsys):
    cfg = tmp_path / "keep.cfg"
    cfg.write_text("relu\n")
    args = [f"--model={models / 'small32.pbtxt'}", "-o", tmp_path / "m",
            "--precision_mode=force_fp16", f"--keep_dtype={cfg}"]
    rc, _, err = compile_(capsys, *args, "--log=warning")
    assert rc == 0 and ATC_LINE.match(err) and "[WARNING]" in err and "'relu' was fused" in err
    rc, _, err = compile_(capsys, *args, "--log=null")
    assert rc == 0 and err == ""


# --- ATC's working modes -----------------------------------------------------------------------

def test_mode1_offline_model_to_json(compiled, tmp_path, capsys):
    d, _ = compiled
    js = tmp_path / "m.json"
    rc, _, err = compile_(capsys, "--mode=1", f"--om={d / 'conv_block.om'}", f"--json={js}")
    assert rc == 0, err
    data = json.loads(js.read_text())
    ops = data["graph"]["functions"][0]["ops"]
    launches = [op for op in ops if op["launch"]]
    # the conv alone: it loads the NHWC input converting it (from_origin) and stores NHWC
    assert len(launches) == data["model"]["kernels"] == 1
    assert all(op["tf_nodes"] for op in launches)  # every kernel names its TF nodes
    conv = next(op for op in launches if op.get("kind") == "Conv2D")
    assert conv["tf_nodes"] == ["conv1/Conv2D", "conv1/BiasAdd", "conv1/Relu"]
    assert conv["tiling"] and conv["block_dim"] >= 1 and conv["inputs"][0]["format"] == "ND"
    assert data["memory_plan"]["arena"] == data["model"]["arena_bytes"]
    assert data["inputs"][0]["name"] == "x" and data["weights"]


def test_mode1_original_model_to_json(tmp_path, capsys):
    js = tmp_path / "g.json"
    rc, _, err = compile_(capsys, "--mode=1", f"--om={PBTXT}", f"--json={js}", "--framework=3")
    assert rc == 0, err
    nodes = {n["name"]: n for n in json.loads(js.read_text())["node"]}
    assert nodes["conv1/Conv2D"]["op"] == "Conv2D"
    assert nodes["conv1/Conv2D"]["attr"]["padding"]["s"]  # attributes kept (base64 bytes)


def test_mode1_original_model_by_model_option(tmp_path, capsys):
    js = tmp_path / "g.json"
    rc, _, err = compile_(capsys, "--mode=1", f"--model={PBTXT}", f"--json={js}", "--framework=3")
    assert rc == 0, err
    assert "conv1/Relu" in {n["name"] for n in json.loads(js.read_text())["node"]}


def test_mode3_lists_every_unsupported_op_without_compiling(models, tmp_path, capsys):
    report = tmp_path / "check_result.json"
    rc, out, err = compile_(capsys, "--mode=3", "--framework=3",
                            f"--model={models / 'unsupported.pbtxt'}", f"--check_report={report}")
    assert rc == 0, err
    result = json.loads(report.read_text())
    assert result["result"] == "failed" and result["unsupported_count"] == 3
    assert sorted(u["node"] for u in result["unsupported"]) == \
        ["bad_digamma", "bad_lgamma", "bad_matmul64"]
    matmul = next(u for u in result["unsupported"] if u["node"] == "bad_matmul64")
    assert "float64" in matmul["reason"]
    assert not list(tmp_path.glob("*.om"))


def test_mode3_passes_a_supported_model(tmp_path, capsys):
    report = tmp_path / "check_result.json"
    assert compile_(capsys, "--mode=3", f"--model={PBTXT}", f"--check_report={report}")[0] == 0
    assert json.loads(report.read_text())["result"] == "success"


# --- errors: one line naming the option and the value, exit 1, no output -----------------------

@pytest.mark.parametrize("args, text", [
    (["--framework=5"], "--framework=5 (ONNX) is not supported"),
    (["--soc_version=Ascend999"], "--soc_version: unknown soc version 'Ascend999'"),
    (["--input_format=NCHW"], "--input_format=NCHW: input 'x' is read as NHWC by node 'conv1/Conv2D'"),
    (["--input_format=ND"], "--input_format=ND: input 'x' is read as NHWC"),
    (["--fusion_switch_file=/nonexistent/switch.cfg"], "no such file"),
    (["--mode=7"], "--mode=7: unknown mode"),
    (["--mode=5"], "--mode=5: GE dump graph to JSON"),
    (["--input_shape=x:1,a,8,3"], "--input_shape=x:1,a,8,3: 'x:1,a,8,3': dimension 'a' is not"),
    (["--input_shape=x:-1,8,8,3"], "--input_shape=x:-1,8,8,3: 'x:-1,8,8,3': dynamic dimension"),
    (["--input_shape=y:1,8,8,3"], "names 'y', which is no Placeholder"),
    (["--out_nodes=conv1"], "--out_nodes=conv1: 'conv1' is not node:index"),
    (["--out_nodes=nosuch:0"], "names 'nosuch:0', which is no node of the graph"),
    (["--output_type=BF17"], "--output_type=BF17: 'BF17' is not one of FP32"),
    (["--output_type=output:0:FP16"], "needs --out_nodes naming 'output:0'"),
    (["--precision_mode=fp8"], "argument --precision_mode/--precision-mode: invalid choice: 'fp8'"),
    (["--log=verbose"], "argument --log: invalid choice: 'verbose'"),
    (["--dynamic_batch_size=1,2", "--dynamic_image_size=8,8;16,16"],
     "--dynamic_batch_size and --dynamic_image_size cannot be used together"),
    (["--op_select_implmode=fast"], "--op_select_implmode=fast: not one of high_precision"),
    (["--op_debug_level=1"], "--op_debug_level=1 is not supported"),
])
def test_option_errors(tmp_path, args, text):
    out = tmp_path / "m.om"
    r = _run("cann_compile", f"--model={PBTXT}", "-o", str(out), *args)
    _one_error(r, text)
    assert not out.exists()


@pytest.mark.parametrize("option, content, text", [
    ("keep_dtype", "conv1/Conv2D\nnot_a_node\n", "keep.cfg:2: error: --keep_dtype: 'not_a_node' names no node"),
    ("keep_dtype", "OpType::NoSuchOp\n", "keep.cfg:1: error: --keep_dtype: 'OpType::NoSuchOp' is no CANN op type"),
    ("customize_dtypes", "conv1/Relu::InputDtype:float16,OutputDtype:float32\n", "mixed dtypes"),
    ("customize_dtypes", "conv1/Relu::InputDtype:int4\n", "dtype 'int4' is not one of"),
    ("customize_dtypes", "ghost::InputDtype:float16,OutputDtype:float16\n", "'ghost' names no node"),
])
def test_cfg_errors(tmp_path, option, content, text):
    cfg = tmp_path / "keep.cfg"
    cfg.write_text(content)
    out = tmp_path / "m.om"
    r = _run("cann_compile", f"--model={PBTXT}", "-o", str(out), f"--{option}={cfg}")
    _one_error(r, text)
    assert not out.exists()


def test_mode_errors(tmp_path):
    _one_error(_run("cann_compile", "--mode=1", f"--om={PBTXT}"), "--mode=1 needs --json")
    _one_error(_run("cann_compile", "--mode=6"), "--mode=6 needs --om")
    js = tmp_path / "x.json"
    _one_error(_run("cann_compile", "--mode=1", "--om=/nonexistent.om", f"--json={js}"), "no such file")
    assert not js.exists()


def test_svg_without_graphviz_is_an_error(tmp_path):
    # PATH holds only the Python interpreter's directory: no `dot` can be found.
    env = dict(os.environ, PATH=os.path.dirname(sys.executable))
    out = tmp_path / "m.om"
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={PBTXT}", "-o", str(out),
                        f"--dump-graph={tmp_path / 'g.svg'}"], capture_output=True, text=True,
                       cwd=ROOT, timeout=600, env=env)
    if shutil.which("dot", path=env["PATH"]):
        pytest.skip("Graphviz's dot lives next to the Python interpreter")
    _one_error(r, "needs Graphviz's 'dot' program")
    assert not (tmp_path / "g.svg").exists()


# CI installs Graphviz (.ci/run) and sets CANN_REQUIRE_GRAPHVIZ=1, so there this test never skips.
@pytest.mark.skipif(not shutil.which("dot") and not os.environ.get("CANN_REQUIRE_GRAPHVIZ"),
                    reason="Graphviz's dot is not installed")
def test_svg_outlines_the_fused_groups(tmp_path):
    out, svg = tmp_path / "m.om", tmp_path / "g.svg"
    r = _run("cann_compile", f"--model={PBTXT}", "-o", str(out), f"--dump-graph={svg}")
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert text.lstrip().startswith("<") and "<svg" in text
    # Before fusion: the conv, its bias and its activation inside one dashed cluster named after
    # the fused op; after fusion: the one fused op.
    assert 'class="cluster"' in text and "FusedConv2D" in text
    assert 'stroke-dasharray' in text


def test_objects_of_a_paused_compile_are_not_left_young():
    # cycle_collection_paused moves what the paused region allocated to the oldest generation
    # (unscanned) before it enables the collector again: the first collection after a compile
    # would otherwise scan the whole compile's heap, and the next generation's again; nothing
    # stays frozen.
    import gc

    from tools.cann_compile import cycle_collection_paused

    was = gc.isenabled()
    gc.enable()
    try:
        with cycle_collection_paused():
            assert not gc.isenabled()
            kept = [[i] for i in range(50_000)]
        old = any(o is kept for o in gc.get_objects(2))
        frozen, enabled = gc.get_freeze_count(), gc.isenabled()
    finally:
        if not was:
            gc.disable()
    assert old and frozen == 0 and enabled


def test_tensorflow_imported_in_a_paused_compile_is_not_left_young():
    # cann-compile imports TensorFlow inside its paused compile (cycle_collection_paused): its
    # ~3*10^5 objects must not stay in the youngest generation, which the first collection after
    # the compile scans; nothing stays frozen and the collector stays as it was (paused).
    code = ("import gc; gc.disable(); from compiler.frontend.tf_loader import tensorflow; "
            "tensorflow(); print(len(gc.get_objects(0)), gc.get_freeze_count(), gc.isenabled())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    young, frozen, enabled = r.stdout.split()
    assert int(young) < 1000 and frozen == "0" and enabled == "False"
