"""Issue 13, item 3: TensorLists as preallocated buffers (compiler/conversions/tf_to_cann/tensor_list_types.py and the
TensorList rows of compiler/conversions/tf_to_cann/legalization.py), through the whole compile: kernel level, memory
plan (the buffers are loop-carried), .om, and the offline model run, against TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.backend import memory_plan as mp
from compiler.backend.offline_model import build_offline_model, load_offline_model, run_offline_model
from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes

KERNEL_PASSES = ("tf-to-cann", "cann-cleanup", "fuse", "assign-layouts", "cann-to-kernel")


def tf():
    from compiler.frontend.tf_loader import tensorflow

    return tensorflow()


def _tensor_array_loop(x):
    """tf.TensorArray read / write / stack in a tf.while_loop: TensorListFromTensor, Reserve,
    GetItem, SetItem, Stack."""
    t = tf()
    n = x.shape[0]
    inp = t.TensorArray(t.float32, size=n).unstack(x)
    out = t.TensorArray(t.float32, size=n)

    def body(i, h, out):
        h = t.tanh(inp.read(i) * 0.5 + h)
        return i + 1, h, out.write(i, h * 2.0)
    _, h, out = t.while_loop(lambda i, h, o: i < n, body, [0, t.zeros_like(x[0]), out])
    return out.stack() + t.reduce_sum(h)


def _lstm_gru():
    keras = tf().keras
    keras.utils.set_random_seed(0)
    x = keras.Input((5, 4), batch_size=1, name="x")
    h = keras.layers.LSTM(6, return_sequences=True)(x)
    h = keras.layers.GRU(3)(h)
    return keras.Model(x, h)


def _graphs():
    t = tf()
    cf = t.function(_tensor_array_loop,
                    input_signature=[t.TensorSpec([5, 3], t.float32, name="x")])
    cf = cf.get_concrete_function()
    yield "tensor_array", cf.graph.as_graph_def(), lambda x: cf(t.constant(x)).numpy(), (5, 3)
    from tests.model_zoo.zoo import freeze

    model = _lstm_gru()
    gd = freeze(model)
    yield "lstm_gru", gd, lambda x: model(x, training=False).numpy(), (1, 5, 4)


GRAPHS = {name: (gd, want, shape) for name, gd, want, shape in _graphs()}


def _kernel_module(gd):
    from compiler.frontend.importers.graphdef import import_graphdef

    # a tf.function's graph: its output only (the unread TensorArray `inp` is a sink too)
    outputs = "Identity" if gd.library.function else None
    module = import_graphdef(gd, "tl.pb", warn=lambda line: None, outputs=outputs)
    assert "TensorListSetItem" in module_to_text(module)
    ctx = make_context()
    run_passes(ctx, module, KERNEL_PASSES)
    module, _ = parse_module(ctx, module_to_text(module), "tl.kernel.mlir")
    return module


@pytest.mark.parametrize("name", list(GRAPHS))
def test_tensor_lists_compile_plan_and_run_offline(name, tmp_path):
    gd, want, shape = GRAPHS[name]
    module = _kernel_module(gd)
    text = module_to_text(module)
    assert "tf.variant" not in text and "kernel.while" in text
    mp.plan_module(module)
    assert mp.check_module(module) == []
    path = str(tmp_path / f"{name}.om")
    with open(path, "wb") as f:
        f.write(build_offline_model(module, name))
    om = load_offline_model(path)
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    ref = want(x)
    (ours,) = [v for k, v in run_offline_model(om, {"x": x}).items() if v.shape == ref.shape]
    np.testing.assert_allclose(ours, ref, atol=1e-5, rtol=1e-5)


def test_buffer_is_loop_carried_with_its_static_type():
    gd, _, _ = GRAPHS["tensor_array"]
    module = _kernel_module(gd)
    (loop,) = [o for o in module.walk() if o.name == "kernel.while"]
    types = [str(v.type) for v in loop.operands]
    assert "tensor<5x3xf32>" in types  # the TensorArray's buffer, 5 rows of 3
    assert run_module(module, {"x": np.ones((5, 3), np.float32)})  # runs at kernel level


def test_unknown_list_size_is_a_legalization_error_at_the_node():
    text = """
func.func @main(%n: tensor<i32>) -> tensor<?x2xf32> {
  %es = tf.Const dense<2> : tensor<1xi32>
  %l = "tf.TensorListReserve"(%es, %n) {element_dtype = f32, shape_type = i32} : (tensor<1xi32>, tensor<i32>) -> tensor<!tf.variant> loc("reserve")
  %s = "tf.TensorListStack"(%l, %es) {element_dtype = f32, num_elements = -1 : i64} : (tensor<!tf.variant>, tensor<1xi32>) -> tensor<?x2xf32> loc("stack")
  func.return %s : tensor<?x2xf32>
}
"""
    from compiler.ir.diagnostics import OpError

    ctx = make_context()
    module, _ = parse_module(ctx, text, "tl.mlir")
    with pytest.raises(OpError) as e:
        run_passes(ctx, module, ("tf-to-cann",))
    msgs = [m for _, m in e.value.items]
    assert any("TensorListReserve" in m and "num_elements must be constants" in m for m in msgs), msgs
