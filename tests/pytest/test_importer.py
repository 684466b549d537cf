"""The GraphDef importer (compiler.frontend.importers.graphdef) and the cann-translate tool."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, DictionaryAttr, NameLoc
from xdsl.dialects.func import FuncOp, ReturnOp

from compiler.frontend.importers.graphdef import import_graphdef, import_graphdef_file
from compiler.ir.diagnostics import CompileError
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from dialects.common import ints, numpy_from_dense
from dialects.tf import ShapeAttr
from tools.cann_translate import main as translate_main

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture(scope="module")
def tf():
    import tensorflow

    return tensorflow


def conv_block_graph(tf, padding="SAME", stride=1, batch=1, seed=0):
    """x: 1x9x9x5 NHWC, filter 3x3x5x7, bias 7, Relu.  Returns (GraphDef, filter, bias)."""
    rng = np.random.default_rng(seed)
    filt = rng.normal(size=(3, 3, 5, 7)).astype(np.float32)
    bias = rng.normal(size=(7,)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [batch, 9, 9, 5], name="x")
        w = tf.constant(filt, name="conv1/filter")
        b = tf.constant(bias, name="conv1/bias")
        y = tf.nn.conv2d(x, w, strides=[1, stride, stride, 1], padding=padding, name="conv1/Conv2D")
        y = tf.nn.bias_add(y, b, name="conv1/BiasAdd")
        tf.nn.relu(y, name="conv1/Relu")
    return g.as_graph_def(), filt, bias


def write_graph(graph_def, path, text: bool):
    from google.protobuf import text_format

    if text:
        path.write_text(text_format.MessageToString(graph_def))
    else:
        path.write_bytes(graph_def.SerializeToString())
    return str(path)


def func_of(module) -> FuncOp:
    (func,) = [op for op in module.ops if isinstance(op, FuncOp)]
    return func


def body_ops(module):
    return [op for op in func_of(module).body.block.ops if not isinstance(op, ReturnOp)]


def entry(module) -> dict[str, str]:
    attr = func_of(module).attributes["tf.entry_function"]
    assert isinstance(attr, DictionaryAttr)
    return {k: v.data for k, v in attr.data.items()}


# --- the conv block: shapes, attributes, weights, locations ---------------------------------

CASES = [("SAME", 1, 9), ("SAME", 2, 5), ("VALID", 1, 7), ("VALID", 2, 4)]


@pytest.fixture(scope="module")
def conv_files(tf, tmp_path_factory):
    """(padding, stride, text) -> (path, filter, bias); built once for the module."""
    d = tmp_path_factory.mktemp("graphs")
    files = {}
    for padding, stride, _ in CASES:
        gd, filt, bias = conv_block_graph(tf, padding, stride)
        for text in (False, True):
            name = f"conv_{padding}_{stride}.{'pbtxt' if text else 'pb'}"
            files[padding, stride, text] = (write_graph(gd, d / name, text), filt, bias)
    return files


@pytest.mark.parametrize("text", [False, True], ids=["pb", "pbtxt"])
@pytest.mark.parametrize("padding,stride,out", CASES)
def test_conv_block(conv_files, padding, stride, out, text):
    path, filt, bias = conv_files[padding, stride, text]
    module = import_graphdef_file(path)
    ops = body_ops(module)
    assert [op.name for op in ops] == [
        "tf.Placeholder", "tf.Const", "tf.Const", "tf.Conv2D", "tf.BiasAdd", "tf.Relu"]
    names = [op.location.desc.data for op in ops]
    assert all(isinstance(op.location, NameLoc) for op in ops)
    assert names == ["x", "conv1/filter", "conv1/bias", "conv1/Conv2D", "conv1/BiasAdd", "conv1/Relu"]

    func = func_of(module)
    assert [tuple(t.get_shape()) for t in func.function_type.inputs] == [(1, 9, 9, 5)]
    assert [tuple(t.get_shape()) for t in func.function_type.outputs] == [(1, out, out, 7)]
    assert entry(module) == {"inputs": "x", "outputs": "conv1/Relu"}

    placeholder, w, b, conv, bias_add, relu = ops
    assert placeholder.input is func.body.block.args[0]
    assert placeholder.shape == ShapeAttr([1, 9, 9, 5])
    assert np.array_equal(numpy_from_dense(w.value), filt)
    assert np.array_equal(numpy_from_dense(b.value), bias)
    assert ints(conv.strides) == (1, stride, stride, 1)
    assert ints(conv.dilations) == (1, 1, 1, 1)
    assert conv.padding.data == padding and conv.data_format.data == "NHWC"
    assert ints(conv.explicit_paddings) == ()  # TF's default, kept
    assert bias_add.data_format.data == "NHWC"
    assert conv.input is placeholder.output and conv.filter is w.output
    assert relu.y.type == conv.output.type
    module.verify()


@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_printed_ir_reparses_identically(conv_files, generic):
    module = import_graphdef_file(conv_files["SAME", 2, True][0])
    text = module_to_text(module, generic=generic, debuginfo=True)
    assert 'loc("conv1/Conv2D")' in text
    assert '"0x' in text  # 315 weights: hex
    reparsed, _ = parse_module(make_context(), text, "<printed>")
    assert module_to_text(reparsed, generic=generic, debuginfo=True) == text
    assert module_to_text(reparsed) == module_to_text(module)
    default = module_to_text(module)  # the node names by default, no loc(unknown)
    assert 'loc("x")' in default and "loc(unknown)" not in default
    assert "loc(" not in module_to_text(module, strip=True)


def test_unknown_batch_is_dynamic(tf):
    gd, _, _ = conv_block_graph(tf, "SAME", 2, batch=None)
    module = import_graphdef(gd, "dyn.pb")
    func = func_of(module)
    assert tuple(func.function_type.inputs.data[0].get_shape()) == (DYNAMIC_INDEX, 9, 9, 5)
    assert tuple(func.function_type.outputs.data[0].get_shape()) == (DYNAMIC_INDEX, 5, 5, 7)
    assert body_ops(module)[0].shape == ShapeAttr([-1, 9, 9, 5])
    text = module_to_text(module)
    assert "tensor<?x9x9x5xf32>" in text
    reparsed, _ = parse_module(make_context(), text, "<printed>")
    assert module_to_text(reparsed) == text


def test_frozen_tf_function(tf):
    """The real path: a tf.function with variables, frozen by convert_variables_to_constants_v2."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    w = tf.Variable(np.random.default_rng(1).normal(size=(3, 3, 5, 7)).astype(np.float32))
    b = tf.Variable(np.linspace(-1, 1, 7).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 9, 9, 5], tf.float32, name="x")])
    def block(x):
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b))

    gd = convert_variables_to_constants_v2(block.get_concrete_function()).graph.as_graph_def()
    module = import_graphdef(gd, "frozen.pb")
    kinds = [op.name for op in body_ops(module)]
    assert kinds.count("tf.Conv2D") == 1 and kinds.count("tf.Relu") == 1
    assert entry(module) == {"inputs": "x", "outputs": "Identity"}
    assert tuple(func_of(module).function_type.outputs.data[0].get_shape()) == (1, 7, 7, 7)


def test_two_inputs_two_outputs_unsorted_graph(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.placeholder(tf.float32, [2, 3], name="a")
        b = tf.compat.v1.placeholder(tf.float32, [2, 3], name="b")
        tf.nn.relu(a, name="ra")
        tf.identity(tf.identity(b, name="ib"), name="out")
        tf.constant(1.0, name="unused")  # a dead Const is not a result
    gd = g.as_graph_def()
    nodes = list(gd.node)
    del gd.node[:]
    gd.node.extend(reversed(nodes))  # users before their inputs
    module = import_graphdef(gd, "two.pbtxt")
    # function arguments and results follow graph order; the ops are topologically sorted
    assert entry(module) == {"inputs": "b,a", "outputs": "out,ra"}
    assert [op.location.desc.data for op in body_ops(module)] == ["unused", "b", "ib", "out", "a", "ra"]
    module.verify()


# --- errors ---------------------------------------------------------------------------------

PH = 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } ' \
     'attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } } } } }\n'


def unary(name, op, inp, t="DT_FLOAT"):
    return f'node {{ name: "{name}" op: "{op}" input: "{inp}" attr {{ key: "T" value {{ type: {t} }} }} }}\n'


def errors_of(tmp_path, text: str | bytes, name="g.pbtxt") -> list[str]:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(CompileError) as info:
        import_graphdef_file(str(path))
    prefix = f"{path}: error: "
    assert all(m.startswith(prefix) for m in info.value.messages), info.value.messages
    return [m.removeprefix(prefix) for m in info.value.messages]


def test_every_unknown_op_imports_generically_and_is_reported(tmp_path):
    """Op types without a typed op import generically (all attributes kept) and are listed once."""
    text = PH + unary("s", "Sigmoid", "x") + unary("t", "Tanh", "s") + unary("r", "Relu", "t") \
        + unary("m", "FooBarUnregistered", "r") + unary("n", "BarBazUnregistered", "m")
    path = tmp_path / "g.pbtxt"
    path.write_text(text)
    notes = []
    module = import_graphdef_file(str(path), warn=notes.append)
    assert [op.name for op in body_ops(module)] == [
        "tf.Placeholder", "tf.Sigmoid", "tf.Tanh", "tf.Relu", "tf.FooBarUnregistered", "tf.BarBazUnregistered"]
    assert notes == [f"{path}: warning: op types without a typed tf op, imported generically: "
                     "BarBazUnregistered, FooBarUnregistered"]


def test_structural_errors_all_reported(tmp_path):
    text = PH + unary("r", "Relu", "nowhere:0") + unary("r", "Identity", "x") \
        + unary("q", "Relu", "gone")
    assert errors_of(tmp_path, text) == [
        "node 'r' (Relu): input 'nowhere:0' names no node of the graph",
        "node 'r' (Identity): duplicate node name (first defined as a Relu)",
        "node 'q' (Relu): input 'gone' names no node of the graph",
    ]


@pytest.mark.parametrize("data,name", [
    (b"hello, this is no graph\n", "g.pbtxt"),
    (b"\xff\xfe\x00garbage\x01\x02" * 7, "g.pb"),
    (b"node { name: 'x' op: }", "g.pb"),
], ids=["text", "binary", "broken-text"])
def test_not_a_graphdef(tmp_path, data, name):
    assert errors_of(tmp_path, data, name) == ["not a GraphDef (binary or text protobuf)"]


def test_empty_file(tmp_path):
    assert errors_of(tmp_path, b"", "g.pb") == ["the GraphDef has no nodes"]


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.pb")
    with pytest.raises(CompileError) as info:
        import_graphdef_file(path)
    assert info.value.messages == [f"{path}: error: no such file"]


def test_shape_inference_error_names_the_node(tmp_path, tf):
    gd, _, _ = conv_block_graph(tf)
    for node in gd.node:  # filter expects 4 input channels, x has 5
        if node.name == "conv1/filter":
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.zeros((3, 3, 4, 7), np.float32)))
    errs = errors_of(tmp_path, gd.SerializeToString(), "g.pb")
    assert len(errs) == 1 and errs[0].startswith("node 'conv1/Conv2D' (Conv2D): ")


def test_cycle(tmp_path):
    text = PH + 'node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }\n' \
        + 'node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }\n'
    (err,) = errors_of(tmp_path, text)
    assert "cycle" in err


# --- cann-translate -------------------------------------------------------------------------


def test_translate_writes_output(conv_files, tmp_path, capsys):
    out = tmp_path / "m.mlir"
    assert translate_main(["--import-graphdef", conv_files["VALID", 1, False][0], "-o", str(out)]) == 0
    text = out.read_text()
    assert "tf.Conv2D" in text and 'loc("conv1/Relu")' in text  # node names survive the text
    assert translate_main(["--import-graphdef", conv_files["VALID", 1, False][0],
                           "--print-debuginfo", "--print-op-generic"]) == 0
    printed = capsys.readouterr().out
    assert '"tf.Conv2D"' in printed and 'loc("conv1/Conv2D")' in printed


@pytest.mark.parametrize("make", ["missing", "junk", "unsupported"])
def test_translate_error_exit_1_no_output(tmp_path, capsys, make):
    src = tmp_path / "in.pbtxt"
    if make == "junk":
        src.write_text("junk junk\n")
    elif make == "unsupported":
        src.write_text(PH + unary("s", "Sigmoid", "nothing") + unary("t", "Tanh", "nowhere"))
    out = tmp_path / "out.mlir"
    assert translate_main(["--import-graphdef", str(src), "-o", str(out)]) == 1
    assert not out.exists()
    assert os.listdir(tmp_path) == (["in.pbtxt"] if make != "missing" else [])
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == (2 if make == "unsupported" else 1)
    assert all(line.startswith(f"{src}: error: ") for line in lines)


def test_translate_usage_error(capsys):
    assert translate_main(["model.pb"]) == 1
    assert "--import-graphdef" in capsys.readouterr().err


def test_subprocess_one_clean_line_and_no_tensorflow_at_import(tmp_path):
    """No traceback and no TensorFlow start-up chatter on stderr; importing the module is cheap."""
    src = tmp_path / "junk.pb"
    src.write_bytes(b"\x00\x01junk")
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.run([sys.executable, "-m", "tools.cann_translate", "--import-graphdef", str(src),
                           "-o", str(tmp_path / "o.mlir")], capture_output=True, text=True, env=env, cwd=REPO)
    assert proc.returncode == 1
    assert proc.stderr == f"{src}: error: not a GraphDef (binary or text protobuf)\n"
    assert not (tmp_path / "o.mlir").exists()
    check = ("import sys, compiler.frontend.importers.graphdef, tools.cann_translate; "
             "print('tensorflow' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=REPO)
    assert proc.stdout.strip() == "False", proc.stderr


def test_example_conv_block_is_importable():
    module = import_graphdef_file(os.path.join(REPO, "examples", "conv_block.pbtxt"))
    assert entry(module) == {"inputs": "x", "outputs": "output"}
    assert tuple(func_of(module).function_type.outputs.data[0].get_shape()) == (1, 8, 8, 4)
    w = numpy_from_dense(body_ops(module)[1].value)
    assert w.shape == (3, 3, 3, 4) and len(np.unique(w)) > 50  # perturbed, not one repeated value


def test_unknown_rank_reports_only_the_root_cause(tmp_path):
    text = 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n' \
        + unary("r", "Relu", "x") + unary("i", "Identity", "r")
    assert errors_of(tmp_path, text) == [
        "node 'x' (Placeholder): output has unknown rank (give the graph's Placeholders a shape)"]


def test_output_index_out_of_range(tmp_path):
    (err,) = errors_of(tmp_path, PH + unary("r", "Relu", "x:1"))
    assert err == "node 'r' (Relu): input 'x:1': 'x' (Placeholder) has only 1 output(s)"


def test_control_edges_and_noop_are_kept(tmp_path):
    text = PH + unary("r", "Relu", "x") + 'node { name: "n" op: "NoOp" input: "^r" }\n' \
        + 'node { name: "i" op: "Identity" input: "x" input: "^n" ' \
        + 'attr { key: "T" value { type: DT_FLOAT } } }\n'
    path = tmp_path / "g.pbtxt"
    path.write_text(text)
    module = import_graphdef_file(str(path))
    ops = body_ops(module)
    assert [op.name for op in ops] == ["tf.Placeholder", "tf.Relu", "tf.NoOp", "tf.Identity"]
    assert [a.data for a in ops[2].attributes["tf.control_inputs"].data] == ["r"]
    assert [a.data for a in ops[3].attributes["tf.control_inputs"].data] == ["n"]
    # NoOp is no result; r is read only through a control edge, so it is a sink
    assert entry(module) == {"inputs": "x", "outputs": "r,i"}
