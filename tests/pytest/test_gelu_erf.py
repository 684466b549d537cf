"""The exact GELU, numerics.gelu_erf: the one formula of cann.GeluErf (cann_impl.py, run in its
operand's type) and of a fused op's GeluErf epilogue (numerics.activate, in the accumulator
type); the caller names the type it computes in."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.interpreters import numerics
from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, parse_module

RNG = np.random.default_rng(11)


def _run_gelu_erf(x: np.ndarray) -> np.ndarray:
    """cann.GeluErf on x, by the cann-level interpreter (what cann-run and folding execute)."""
    et = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}[x.dtype]
    t = f"tensor<{x.size}x{et}>"
    text = (f"func.func @main(%x: {t}) -> {t} {{\n  %y = cann.GeluErf %x : ({t}) -> {t}\n"
            f"  func.return %y : {t}\n}}")
    module, _ = parse_module(make_context(), text, "gelu.mlir")
    (y,) = run_module(module, {"arg0": x}).values()
    return y


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-6), (np.float16, 2e-3)])
def test_gelu_erf_matches_tensorflow(dtype, tol):
    from compiler.frontend.tf_loader import tensorflow

    x = (RNG.standard_normal(512) * 3).astype(dtype)
    want = tensorflow().nn.gelu(x, approximate=False).numpy()
    got = _run_gelu_erf(x)
    assert got.dtype == dtype
    err = np.abs(got.astype(np.float64) - want.astype(np.float64)) / np.maximum(1, np.abs(want))
    assert err.max() <= tol


def test_gelu_erf_op_runs_in_float16_the_epilogue_in_float32():
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    x = h[np.isfinite(h) & (np.abs(h) < 8)]
    got = _run_gelu_erf(x)
    assert got.tobytes() == numerics.gelu_erf(x, np.float16).tobytes()
    epilogue = numerics.activate(x.astype(np.float32), "GeluErf").astype(np.float16)
    assert (got != epilogue).any()  # float16 arithmetic rounds where the accumulator does not
