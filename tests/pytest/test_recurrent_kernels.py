"""The recurrent kernels (compiler/conversions/cann_to_kernel/recurrent.py) compute what the
operators define (compiler/interpreters/recurrent.py): cann.DynamicRNN, cann.DynamicGRUV2
(forward and REDIRECTIONAL, reset_after both ways, with seq_length) and cann.TanhRNN run at the
cann level and, lowered, at the kernel level on the same inputs agree to 1e-5.
Batch 20 makes two 16-row blocks on two cores; the layer is one kernel.cube with a time loop."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.interpreters.execute import make_interpreter
from compiler.ir.ir_io import make_context, parse_module
from tools.driver.pipelines import run_passes

T, B, I, H = 3, 20, 5, 7

LSTM = f"""
func.func @main(%x: tensor<{T}x{B}x{I}xf32>, %w: tensor<{I + H}x{4 * H}xf32>, %b: tensor<{4 * H}xf32>,
                %h: tensor<1x{B}x{H}xf32>, %c: tensor<1x{B}x{H}xf32>) -> tensor<{T}x{B}x{H}xf32> {{
  %y, %yh, %yc = cann.DynamicRNN %x, %w, %b, %h, %c {{cell_type = "LSTM", direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", forget_bias = 1.0 : f32, gate_order = "ijfo"}} : (tensor<{T}x{B}x{I}xf32>, tensor<{I + H}x{4 * H}xf32>, tensor<{4 * H}xf32>, tensor<1x{B}x{H}xf32>, tensor<1x{B}x{H}xf32>) -> (tensor<{T}x{B}x{H}xf32>, tensor<{T}x{B}x{H}xf32>, tensor<{T}x{B}x{H}xf32>)
  func.return %yh : tensor<{T}x{B}x{H}xf32>
}}
"""

GRU = f"""
func.func @main(%x: tensor<{T}x{B}x{I}xf32>, %wi: tensor<{I}x{3 * H}xf32>, %wh: tensor<{H}x{3 * H}xf32>,
                %bi: tensor<{3 * H}xf32>, %bh: tensor<{3 * H}xf32>, %h: tensor<{B}x{H}xf32>) -> tensor<{T}x{B}x{H}xf32> {{
  %y, %yh = cann.DynamicGRUV2 %x, %wi, %wh, %bi, %bh, %h {{direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh", gate_order = "rzh", reset_after = 1 : i64}} : (tensor<{T}x{B}x{I}xf32>, tensor<{I}x{3 * H}xf32>, tensor<{H}x{3 * H}xf32>, tensor<{3 * H}xf32>, tensor<{3 * H}xf32>, tensor<{B}x{H}xf32>) -> (tensor<{T}x{B}x{H}xf32>, tensor<{T}x{B}x{H}xf32>)
  func.return %y : tensor<{T}x{B}x{H}xf32>
}}
"""

# A backward GRU with reset_after = false (r * h the A operand of the candidate's matmul).
GRU_BACK_RESET_BEFORE = GRU.replace('direction = "UNIDIRECTIONAL"', 'direction = "REDIRECTIONAL"') \
    .replace("reset_after = 1", "reset_after = 0")

# A backward LSTM with seq_length (a 0/1 mask [T, B, H], the last argument): output_h.
LSTM_BACK_MASKED = LSTM.replace('direction = "UNIDIRECTIONAL"', 'direction = "REDIRECTIONAL"') \
    .replace(f"%c: tensor<1x{B}x{H}xf32>)", f"%c: tensor<1x{B}x{H}xf32>, %m: tensor<{T}x{B}x{H}xf32>)") \
    .replace("%h, %c {", "%h, %c, %m {").replace(
        f"tensor<1x{B}x{H}xf32>, tensor<1x{B}x{H}xf32>) ->",
        f"tensor<1x{B}x{H}xf32>, tensor<1x{B}x{H}xf32>, tensor<{T}x{B}x{H}xf32>) ->")

SIMPLE = f"""
func.func @main(%x: tensor<{T}x{B}x{I}xf32>, %wx: tensor<{I}x{H}xf32>, %wh: tensor<{H}x{H}xf32>,
                %b: tensor<{H}xf32>, %h: tensor<{B}x{H}xf32>) -> tensor<{T}x{B}x{H}xf32> {{
  %y = cann.TanhRNN %x, %wx, %wh, %b, %h {{direction = "UNIDIRECTIONAL", time_major = 1 : i64, activation = "tanh"}} : (tensor<{T}x{B}x{I}xf32>, tensor<{I}x{H}xf32>, tensor<{H}x{H}xf32>, tensor<{H}xf32>, tensor<{B}x{H}xf32>) -> tensor<{T}x{B}x{H}xf32>
  func.return %y : tensor<{T}x{B}x{H}xf32>
}}
"""


def _run(text: str, lower: bool):
    ctx = make_context()
    module, _ = parse_module(ctx, text, "rnn.mlir")
    if lower:
        run_passes(ctx, module, ("assign-layouts", "cann-to-kernel"))
        cubes = [o for o in module.walk() if o.name == "kernel.cube"]
        assert len(cubes) == 1 and cubes[0].block_dim.value.data == 2
    fn = next(o for o in module.walk() if o.name == "func.func")
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(t.get_shape()).astype(np.float32) * 0.5
            for t in fn.function_type.inputs]
    if "%m:" in text:  # the seq_length mask: 0 / 1
        args[-1] = (rng.random(args[-1].shape[:2] + (1,)) < 0.6).astype(np.float32) \
            * np.ones_like(args[-1])
    args = tuple(args)
    (y,) = make_interpreter(module).call_op("main", args)
    return np.asarray(y)


@pytest.mark.parametrize("text", [LSTM, GRU, GRU_BACK_RESET_BEFORE, LSTM_BACK_MASKED, SIMPLE],
                         ids=["DynamicRNN", "DynamicGRUV2", "DynamicGRUV2-backward-reset-before",
                              "DynamicRNN-backward-seq_length", "TanhRNN"])
def test_kernel_matches_the_operator(text):
    np.testing.assert_allclose(_run(text, True), _run(text, False), rtol=1e-5, atol=1e-5)
