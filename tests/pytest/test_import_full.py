"""Full-fidelity import (issue 3): attribute kinds, multi-output, control inputs, unknown ops,
function library and functional control flow, --input-shape/--outputs, SavedModel, bad input,
and import -> export -> TensorFlow round trips (bit-identical)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from compiler.frontend.exporters.graphdef import export_graphdef
from compiler.frontend.importers.graphdef import import_graphdef, import_graphdef_file
from compiler.ir.diagnostics import CompileError
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.cann_translate import main as translate_main

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


@pytest.fixture(scope="module")
def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def reparse(module):
    text = module_to_text(module, debuginfo=True)
    again, _ = parse_module(make_context(), text, "<printed>")
    assert module_to_text(again, debuginfo=True) == text
    return again


def run_graph(tf, gd, feeds, outs):
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    with tf.compat.v1.Session(graph=g) as s:
        return s.run([o if ":" in o else o + ":0" for o in outs], {k + ":0": v for k, v in feeds.items()})


# --- every attribute kind, lossless through import -> print -> parse -> export -------------

ATTRS = '''
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "u" op: "MyCustomOp" input: "x" input: "^x"
  attr { key: "i" value { i: -7 } }
  attr { key: "f" value { f: 0.25 } }
  attr { key: "b" value { b: true } }
  attr { key: "s" value { s: "hello" } }
  attr { key: "raw" value { s: "\\377\\000bytes" } }
  attr { key: "t" value { type: DT_BFLOAT16 } }
  attr { key: "ts" value { type: DT_STRING } }
  attr { key: "sh" value { shape { dim { size: 1 } dim { size: -1 } } } }
  attr { key: "sh_unknown" value { shape { unknown_rank: true } } }
  attr { key: "sh_scalar" value { shape { } } }
  attr { key: "fn" value { func { name: "some_fn" } } }
  attr { key: "fn_attrs" value { func { name: "other_fn" attr { key: "k" value { i: 3 } } } } }
  attr { key: "li" value { list { i: 1 i: 2 } } }
  attr { key: "lf" value { list { f: 1.5 f: -2 } } }
  attr { key: "lb" value { list { b: true b: false } } }
  attr { key: "ls" value { list { s: "a" s: "b" } } }
  attr { key: "lt" value { list { type: DT_INT8 type: DT_HALF } } }
  attr { key: "lsh" value { list { shape { dim { size: 2 } } shape { unknown_rank: true } } } }
  attr { key: "lfn" value { list { func { name: "f1" } } } }
  attr { key: "empty" value { list { } } }
  attr { key: "T" value { type: DT_FLOAT } }
}
'''

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _const_nodes(tf):
    import ml_dtypes

    gd = tf.compat.v1.GraphDef()
    rng = np.random.default_rng(0)
    for name in DTYPES:
        np_dtype = ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)
        a = (rng.normal(size=(3, 5)) * 50).astype(np_dtype)
        n = gd.node.add(name=f"c_{name}", op="Const")
        n.attr["dtype"].type = tf.as_dtype(name).as_datatype_enum
        n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(a))
    n = gd.node.add(name="c_string", op="Const")
    n.attr["dtype"].type = tf.string.as_datatype_enum
    n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.array([[b"a", b"\xff\x00"], [b"", b"xyz"]], dtype=object)))
    n = gd.node.add(name="c_complex", op="Const")
    n.attr["dtype"].type = tf.complex64.as_datatype_enum
    n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.array([1 + 2j], np.complex64)))
    return gd


def _attrs_graph(tf):
    from google.protobuf import text_format

    gd = text_format.Parse(ATTRS, tf.compat.v1.GraphDef())
    gd.node.extend(_const_nodes(tf).node)
    t = gd.node[1].attr["tensor"].tensor
    t.CopyFrom(tf.make_tensor_proto(np.arange(6, dtype=np.int32).reshape(2, 3)))
    lt = gd.node[1].attr["ltensor"].list.tensor
    lt.add().CopyFrom(tf.make_tensor_proto(np.float32(1.5)))
    return gd


def test_every_attribute_kind_round_trips(tf):
    gd = _attrs_graph(tf)
    notes = []
    module = import_graphdef(gd, "attrs.pbtxt", warn=notes.append)
    assert notes == ["attrs.pbtxt: warning: op types without a typed tf op, imported generically: MyCustomOp"]
    text = module_to_text(module)
    for piece in ['i = -7 : i64', 'f = 2.500000e-01 : f32', 'b = true', 's = "hello"', 't = bf16',
                  'ts = !tf.string', 'sh = #tf.shape<1x?>', 'sh_unknown = #tf.shape<*>',
                  'sh_scalar = #tf.shape<>', 'fn = @some_fn', 'fn_attrs = #tf.func<@other_fn, {k = 3 : i64}>',
                  'li = array<i64: 1, 2>', 'lt = [i8, f16]', 'lsh = [#tf.shape<2>, #tf.shape<*>]',
                  'raw = #tf.bytes<"\\FF\\00bytes">', 'tf.control_inputs = ["x"]',
                  '#tf.strings<["a", "\\FF\\00", "", "xyz"] : tensor<2x2x!tf.string>>',
                  '#tf.tensor_proto<"']:
        assert piece in text, piece
    again = reparse(module)
    out = export_graphdef(again)
    before = {n.name: n for n in gd.node}
    after = {n.name: n for n in out.node}
    assert set(before) == set(after)
    for name, n in before.items():
        m = after[name]
        assert (m.op, list(m.input)) == (n.op, list(n.input)), name
        for k, v in n.attr.items():
            if k == "value":
                assert np.array_equal(tf.make_ndarray(m.attr[k].tensor), tf.make_ndarray(v.tensor)), name
            elif k != "empty":
                assert m.attr[k] == v, (name, k, m.attr[k], v)


# --- multi-output, control inputs, NoOp, IdentityN, StopGradient ----------------------------


def _small_graph(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 6], name="x")
        a, b = tf.split(x, 2, axis=1, name="split")
        n = tf.no_op(name="barrier")
        with g.control_dependencies([n]):
            c = tf.identity(b, name="after")
        y = tf.raw_ops.IdentityN(input=[a, c], name="idn")
        z = tf.stop_gradient(y[1], name="sg")
        tf.add(y[0], z, name="out")
        tf.nn.relu(x, name="other")
    return g.as_graph_def()


def test_multi_output_control_inputs_and_round_trip(tf):
    gd = _small_graph(tf)
    module = reparse(import_graphdef(gd, "small.pb"))
    text = module_to_text(module)
    assert "tf.Split" in text and '"tf.NoOp"() {tf.control_inputs' not in text
    assert 'tf.control_inputs = ["barrier"]' in text and "tf.IdentityN" in text and "tf.StopGradient" in text
    out = export_graphdef(module)
    after = {n.name: n for n in out.node}
    assert list(after["after"].input) == ["split:1", "^barrier"]
    assert after["barrier"].op == "NoOp"
    feeds = {"x": np.random.default_rng(1).normal(size=(3, 6)).astype(np.float32)}
    a = run_graph(tf, gd, feeds, ["out", "other"])
    b = run_graph(tf, out, feeds, ["out", "other"])
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    f = module.body.block.first_op
    assert f.attributes["tf.entry_function"].data["outputs"].data == "out,other"


def test_input_shape_and_outputs(tf, capsys):
    gd = _small_graph(tf)
    notes = []
    module = import_graphdef(gd, "small.pb", input_shapes="x:2,6", outputs="split:1,sg", warn=notes.append)
    f = module.body.block.first_op
    assert str(f.function_type) == "(tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)"
    assert f.attributes["tf.entry_function"].data["outputs"].data == "split:1,sg"
    assert notes == ["note: --outputs: pruned 2 unreachable node(s)"]  # other, out
    with pytest.raises(CompileError) as e:
        import_graphdef(gd, "small.pb", input_shapes="nope:1;x:a", outputs=None)
    assert "--input-shape" in e.value.messages[0]
    with pytest.raises(CompileError) as e:
        import_graphdef(gd, "small.pb", outputs="missing,also_missing")
    assert len(e.value.messages) == 2


# --- function library and functional control flow ------------------------------------------


def _control_flow_graph(tf):
    @tf.function(autograph=False)
    def f(x):
        return tf.cond(x[0] > 0, lambda: x * 2, lambda: x - 1)

    @tf.function(autograph=False)
    def g(x):
        return tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), [tf.constant(0), x])[1]

    @tf.function(autograph=False)
    def h(x):
        c = tf.switch_case(tf.cast(x[1] > 0, tf.int32), [lambda: x + 1, lambda: x * 3])
        return f(x) + g(x) + c

    return h.get_concrete_function(tf.TensorSpec([2], tf.float32, name="x")).graph.as_graph_def()


def test_function_library_and_control_flow(tf):
    gd = _control_flow_graph(tf)
    module = reparse(import_graphdef(gd, "cf.pb"))
    text = module_to_text(module)
    assert "tf.StatelessIf" in text and "tf.StatelessWhile" in text and "tf.StatelessCase" in text \
        or "tf.Case" in text
    assert "then_branch = @" in text and "body = @" in text and "f = @__inference_f" in text
    names = {op.sym_name.data for op in module.ops}
    assert len(names) == len(gd.library.function) + 1
    out = export_graphdef(module)
    for v in ([1.5, -2.0], [-1.0, 3.0]):
        feeds = {"x": np.array(v, np.float32)}
        a = run_graph(tf, gd, feeds, ["Identity"])
        b = run_graph(tf, out, feeds, ["Identity"])
        assert np.array_equal(a[0], b[0])


def test_cann_translate_export_cli(tf, tmp_path):
    src = tmp_path / "cf.pb"
    src.write_bytes(_control_flow_graph(tf).SerializeToString())
    mlir, pb = tmp_path / "cf.mlir", tmp_path / "back.pb"
    assert translate_main(["--import-graphdef", str(src), "--print-debuginfo", "-o", str(mlir)]) == 0
    assert translate_main(["--export-graphdef", str(mlir), "-o", str(pb)]) == 0
    gd = tf.compat.v1.GraphDef()
    gd.ParseFromString(pb.read_bytes())
    feeds = {"x": np.array([0.5, 2.0], np.float32)}
    assert np.array_equal(run_graph(tf, gd, feeds, ["Identity"])[0],
                          run_graph(tf, _control_flow_graph(tf), feeds, ["Identity"])[0])


# --- SavedModel -----------------------------------------------------------------------------


def test_saved_model_and_missing_signature(tf, tmp_path):
    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

        @tf.function(input_signature=[tf.TensorSpec([1, 2], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": tf.matmul(x, self.w)}

    m = M()
    path = str(tmp_path / "sm")
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__, "other": m.__call__})
    module = import_graphdef_file(path)
    text = module_to_text(module)
    assert "tf.MatMul" in text and "tf.Const" in text and "VarHandleOp" not in text
    assert import_graphdef_file(path, signature="other") is not None
    with pytest.raises(CompileError) as e:
        import_graphdef_file(path, signature="nope")
    assert e.value.messages == [f"{path}: error: the SavedModel has no signature 'nope' "
                                "(it has: other, serving_default); choose one with --signature"]


# --- bad input: all problems in one run -----------------------------------------------------


def test_bad_input_all_listed(tf, tmp_path):
    text = ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "shape" value { shape { dim { size: 2 } } } } }\n'
            'node { name: "a" op: "Relu" input: "ghost" }\n'
            'node { name: "a" op: "Relu" input: "x" }\n'
            'node { name: "b" op: "Relu" input: "^phantom" }\n')
    p = tmp_path / "bad.pbtxt"
    p.write_text(text)
    assert translate_main(["--import-graphdef", str(p), "-o", str(tmp_path / "o.mlir")]) == 1
    assert not (tmp_path / "o.mlir").exists()
    with pytest.raises(CompileError) as e:
        import_graphdef_file(str(p))
    assert len(e.value.messages) == 3


def test_truncated_protobuf(tf, tmp_path):
    data = _small_graph(tf).SerializeToString()
    p = tmp_path / "t.pb"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(CompileError) as e:
        import_graphdef_file(str(p))
    assert e.value.messages == [f"{p}: error: not a GraphDef (binary or text protobuf)"]


def test_cycle_outside_a_loop(tf, tmp_path):
    text = ('node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }\n'
            'node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }\n')
    p = tmp_path / "c.pbtxt"
    p.write_text(text)
    with pytest.raises(CompileError) as e:
        import_graphdef_file(str(p))
    assert len(e.value.messages) == 1 and "cycle" in e.value.messages[0]


def test_verifier_checks_types_and_attrs():
    from compiler.ir.diagnostics import SourceMap, verify_module

    text = '''
    func.func @f(%a: tensor<2xf32>, %b: tensor<2xi32>) {
      %0 = tf.AddV2 %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
      %1 = tf.Mul %a, %a {T = f64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %2 = tf.MaxPool %a : (tensor<2xf32>) -> tensor<2xf32>
      %3 = tf.Squeeze %a {squeeze_dims = "x"} : (tensor<2xf32>) -> tensor<2xf32>
      func.return
    }'''
    with pytest.raises(CompileError) as e:
        parse_module(make_context(), text, "v.mlir")
    msgs = "\n".join(e.value.messages)
    assert "tf.AddV2: operand 'y' has element type i32, but 'x' has f32" in msgs
    assert "tf.Mul: operand 'x' has element type f32, but 'T' = f64" in msgs
    assert "tf.MaxPool: missing required attribute 'ksize'" in msgs
    assert "tf.Squeeze: attribute 'squeeze_dims' must be a TensorFlow list(int)" in msgs
    _ = (SourceMap, verify_module)


# --- the model zoo: import -> export -> TensorFlow, bit-identical ----------------------------


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", ["ResNet50", "MobileNetV2", "EfficientNetB0", "BertEncoder2"])
def test_model_zoo_round_trip_bit_identical(tf, name):
    from tests.model_zoo.zoo import frozen_graphdef

    path = frozen_graphdef(name)
    gd = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    module = reparse(import_graphdef(gd, path))
    assert not any(op.name.startswith("tf.") and type(op).__name__.startswith("Generic_")
                   for op in module.walk())  # every op typed
    out = export_graphdef(module)
    entry = module.body.block.first_op.attributes["tf.entry_function"].data
    ins, outs = entry["inputs"].data.split(","), entry["outputs"].data.split(",")
    g = tf.Graph()
    with g.as_default():
        tf.graph_util.import_graph_def(gd, name="")
    rng = np.random.default_rng(0)
    feeds = {}
    for i in ins:
        t = g.get_tensor_by_name(i + ":0")
        feeds[i] = rng.normal(size=t.shape.as_list()).astype(t.dtype.as_numpy_dtype)
    a = run_graph(tf, gd, feeds, outs)
    b = run_graph(tf, out, feeds, outs)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))


# --- .keras input, custom objects, unknown attribute kinds, cann-opt on model files ---------


def test_keras_file_matches_keras_model(tf, tmp_path):
    keras = tf.keras
    keras.utils.set_random_seed(3)
    inp = keras.Input((6, 6, 3), name="img")
    x = keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv")(inp)
    x = keras.layers.GlobalAveragePooling2D(name="gap")(x)
    out = keras.layers.Dense(5, activation="softmax", name="dense")(x)
    model = keras.Model(inp, out)
    path = str(tmp_path / "small.keras")
    model.save(path)
    module = reparse(import_graphdef_file(path))
    entry = module.body.block.first_op.attributes["tf.entry_function"].data
    ins, outs = entry["inputs"].data.split(","), entry["outputs"].data.split(",")
    assert len(ins) == 1 and len(outs) == 1
    assert "tf.Conv2D" in module_to_text(module)
    xv = np.random.default_rng(2).normal(size=(1, 6, 6, 3)).astype(np.float32)
    got = run_graph(tf, export_graphdef(module), {ins[0]: xv}, outs)[0]
    np.testing.assert_allclose(got, model(xv).numpy(), rtol=1e-6, atol=1e-6)


def test_keras_file_needing_custom_objects_is_one_line(tf, tmp_path, capsys):
    keras = tf.keras

    class Doubler(keras.layers.Layer):  # not registered: a loader cannot find it by name
        def call(self, x):
            return x * 2.0

    inp = keras.Input((3,), name="v")
    model = keras.Model(inp, Doubler(name="dbl")(inp))
    path = tmp_path / "custom.keras"
    model.save(str(path))
    out = tmp_path / "o.mlir"
    assert translate_main(["--import-graphdef", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}: error: cannot load the Keras model")
    assert "Traceback" not in err[0] and not out.exists()


def test_saved_model_needing_custom_ops_is_one_line(tf, tmp_path, capsys):
    """A SavedModel whose graph needs an op library that is not loaded (a custom op)."""
    from tensorflow.core.protobuf import saved_model_pb2

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": tf.nn.relu(x)}

    path = tmp_path / "sm_custom"
    tf.saved_model.save(M(), str(path))
    sm = saved_model_pb2.SavedModel()
    sm.ParseFromString((path / "saved_model.pb").read_bytes())
    for f in sm.meta_graphs[0].graph_def.library.function:
        for n in f.node_def:
            if n.op == "Relu":
                n.op = "CannTestOnlyCustomRelu"
    (path / "saved_model.pb").write_bytes(sm.SerializeToString())
    out = tmp_path / "o.mlir"
    assert translate_main(["--import-graphdef", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}: error: cannot load the SavedModel")
    assert not out.exists()


def test_attribute_of_unknown_kind(tf, tmp_path, capsys):
    gd = _small_graph(tf)
    node = next(n for n in gd.node if n.name == "other")
    node.attr["from_the_future"].MergeFromString(b"\x98\x06\x01")  # AttrValue field 99
    node2 = next(n for n in gd.node if n.name == "out")
    node2.attr["also_new"].MergeFromString(b"\x98\x06\x02")
    p = tmp_path / "future.pb"
    p.write_bytes(gd.SerializeToString())
    assert translate_main(["--import-graphdef", str(p), "-o", str(tmp_path / "o.mlir")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert sorted(err) == [
        f"{p}: error: node 'other' (Relu): attribute 'from_the_future' has an unknown kind",
        f"{p}: error: node 'out' (AddV2): attribute 'also_new' has an unknown kind"]
    assert not (tmp_path / "o.mlir").exists()


def test_cann_opt_reads_graphdef_and_saved_model(tf, tmp_path, capsys):
    from tools.cann_opt import main as opt_main

    pb = tmp_path / "small.pb"
    pb.write_bytes(_small_graph(tf).SerializeToString())
    out = tmp_path / "o.mlir"
    assert opt_main([str(pb), "-p", "dce", "-o", str(out)]) == 0
    text = out.read_text()
    assert "tf.Split" in text and "func.func @main" in text
    assert opt_main([str(pb), "--tf-to-cann", "--allow-host-fallback", "-o", str(out)]) == 0
    assert "cann." in out.read_text()

    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

        @tf.function(input_signature=[tf.TensorSpec([1, 2], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": tf.matmul(x, self.w)}

    sm = tmp_path / "sm"
    tf.saved_model.save(M(), str(sm))
    assert opt_main([str(sm), "--tf-to-cann", "-o", str(out)]) == 0
    assert "cann.MatMul" in out.read_text() or "cann." in out.read_text()
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0a\xff\xff\xff\x0f garbage")
    capsys.readouterr()
    assert opt_main([str(bad), "-o", str(tmp_path / "b.mlir")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{bad}: error: not a GraphDef (binary or text protobuf)"]
    assert not (tmp_path / "b.mlir").exists()
