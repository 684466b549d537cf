"""Row kernels on FRACTAL_NZ (passes/assign_layouts.py LayoutRowsNZ, compiler/conversions/cann_to_kernel/vector.py
RowsToVectorBody, the `nz_origin_rows` load/store views of compiler/interpreters/kernel_views.py):
a matmul's NZ result goes straight into LayerNorm / AddLayerNorm / SoftmaxV2 over the last axis,
with M and K not multiples of 16, so the padding rows and columns must stay out of the row
statistics and come out zero.  Executed tile by tile and compared with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_harness import compile_and_run, ty


def _layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _check_nz_rows(text: str, kind: str, n_transdata: int):
    """The row kernel reads NZ (no TransData between it and the matmul) and stores its rows as
    nz_origin_rows, placed straight into the ND output (view to_origin: y's TransData folded)."""
    assert text.count("kernel.transdata") == n_transdata, text
    start = text.index(f'kind = "{kind}"')
    assert 'view = "nz_origin_rows"' in text[start:], text[start:start + 3000]
    assert 'view = "rows"' not in text[start:]


# (batch, M, K_in, K): M and K not multiples of 16 (and one K across several C0 blocks)
SHAPES = [((), 20, 40, 24), ((), 7, 16, 37), ((2,), 20, 24, 18), ((), 33, 8, 5)]


@pytest.mark.parametrize("batch,m,kin,k", SHAPES)
@pytest.mark.parametrize("kind", ["LayerNorm", "AddLayerNorm", "SoftmaxV2"])
def test_row_kernel_on_nz(kind, batch, m, kin, k):
    rng = np.random.default_rng(m * 100 + k)
    a = rng.standard_normal((*batch, m, kin)).astype(np.float32)
    w = rng.normal(0, 0.5, (*batch, kin, k)).astype(np.float32)
    g = rng.normal(1, 0.2, (k,)).astype(np.float32)
    bt = rng.normal(0, 0.2, (k,)).astype(np.float32)
    r = rng.standard_normal((*batch, m, k)).astype(np.float32) + 3.0  # offset: a wrong mean shows
    ys = (*batch, m, k)
    mm = "BatchMatMulV2" if batch else "MatMulV2"
    flags = "{adj_x1 = false, adj_x2 = false}" if batch else \
        "{transpose_x1 = false, transpose_x2 = false}"
    lines = [f"%0 = cann.{mm} %arg0, %arg1 {flags} : ({ty(a.shape)}, {ty(w.shape)}) -> {ty(ys)}"]
    args = {"arg0": a, "arg1": w}
    ln = "{begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.0e-05 : f32}"
    if kind == "LayerNorm":
        args.update(arg2=g, arg3=bt)
        lines.append(f"%1 = cann.LayerNorm %0, %arg2, %arg3 {ln} : ({ty(ys)}, {ty(g.shape)}, "
                     f"{ty(bt.shape)}) -> {ty(ys)}")
        want = _layer_norm(a @ w, g, bt, 1e-5)
        n_td = 0  # a and w converted by the matmul's loads; y out folds into the row store
    elif kind == "AddLayerNorm":
        # the residual is a second matmul's NZ result (as in BERT, where it is the previous
        # AddLayerNorm): both inputs arrive in NZ, so the global layout choice runs the row
        # kernel on NZ.  (With a graph input as the residual, ND is cheaper: one TransData
        # after the matmul instead of one for the residual and one for y.)
        eye = np.ascontiguousarray(np.broadcast_to(np.eye(k, dtype=np.float32), (*batch, k, k)))
        args.update(arg2=g, arg3=bt, arg4=r, arg5=eye)
        lines.append(f"%r = cann.{mm} %arg4, %arg5 {flags} : ({ty(ys)}, {ty(eye.shape)}) -> {ty(ys)}")
        lines.append(f"%1 = cann.AddLayerNorm %r, %0, %arg2, %arg3 {ln} : ({ty(ys)}, {ty(ys)}, "
                     f"{ty(g.shape)}, {ty(bt.shape)}) -> {ty(ys)}")
        want = _layer_norm(r + a @ w, g, bt, 1e-5)
        n_td = 0  # the four matmul inputs converted by their loads; y out into the row store
    else:
        lines.append(f"%1 = cann.SoftmaxV2 %0 {{axes = array<i64: -1>}} : ({ty(ys)}) -> {ty(ys)}")
        want = _softmax(a @ w)
        n_td = 0  # a and w converted by the matmul's loads; y out folds into the row store
    lines.append(f"func.return %1 : {ty(ys)}")
    text, y = compile_and_run("\n".join(lines), args, ys)
    _check_nz_rows(text, kind, n_td)
    assert y.shape == ys
    np.testing.assert_allclose(y, want, atol=2e-5, rtol=1e-4)


def test_add_layer_norm_then_matmul_stays_nz():
    """matmul -> AddLayerNorm -> identity reshape chain -> matmul: the second matmul reads the
    row kernel's NZ output (its zero padding columns are the K padding of its A operand)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((20, 40)).astype(np.float32)
    w1 = rng.normal(0, 0.3, (40, 24)).astype(np.float32)
    w2 = rng.normal(0, 0.3, (24, 9)).astype(np.float32)
    g = rng.normal(1, 0.2, (24,)).astype(np.float32)
    bt = rng.normal(0, 0.2, (24,)).astype(np.float32)
    r = rng.standard_normal((20, 24)).astype(np.float32)
    body = "\n".join([
        "%0 = cann.MatMulV2 %arg0, %arg1 {transpose_x1 = false, transpose_x2 = false} : "
        "(tensor<20x40xf32>, tensor<40x24xf32>) -> tensor<20x24xf32>",
        "%1 = cann.AddLayerNorm %arg5, %0, %arg3, %arg4 {begin_norm_axis = 1 : i64, "
        "begin_params_axis = 1 : i64, epsilon = 1.0e-12 : f32} : (tensor<20x24xf32>, "
        "tensor<20x24xf32>, tensor<24xf32>, tensor<24xf32>) -> tensor<20x24xf32>",
        "%2 = cann.Reshape %1 {shape = array<i64: 1, 20, 24>} : (tensor<20x24xf32>) -> "
        "tensor<1x20x24xf32>",
        "%3 = cann.Reshape %2 {shape = array<i64: 20, 24>} : (tensor<1x20x24xf32>) -> "
        "tensor<20x24xf32>",
        "%4 = cann.MatMulV2 %3, %arg2 {transpose_x1 = false, transpose_x2 = false} : "
        "(tensor<20x24xf32>, tensor<24x9xf32>) -> tensor<20x9xf32>",
        "func.return %4 : tensor<20x9xf32>"])
    text, y = compile_and_run(body, {"arg0": a, "arg1": w1, "arg2": w2, "arg3": g, "arg4": bt,
                                     "arg5": r}, (20, 9))
    # the residual in (a, w1, w2 are converted by the matmuls' loads; y is stored ND by the last
    # matmul): none between the kernels
    assert text.count("kernel.transdata") == 1
    assert "kernel.view" not in text
    want = _layer_norm(r + a @ w1, g, bt, 1e-12) @ w2
    np.testing.assert_allclose(y, want, atol=2e-5, rtol=1e-4)


def test_nz_origin_rows_views_match_the_format():
    """The load view reads exactly the origin rows (formats.to_storage's NZ map) and the store
    writes them back with zero padding, whatever the destination held before."""
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr, StringAttr, f32, i64
    from xdsl.ir import Block

    from compiler.interpreters.kernel_views import LOAD_VIEWS, STORE_VIEWS
    from compiler.target.formats import Format, from_storage, to_storage
    from dialects import kernel

    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 21, 35)).astype(np.float32)
    nz = to_storage(x, Format.FRACTAL_NZ, Format.ND)  # (2, 3, 2, 16, 16)
    blk = Block(arg_types=[kernel.memref(nz.shape, f32, "GM"), IndexType()])
    params = DictionaryAttr({"rows": IntegerAttr(21, i64), "cols": IntegerAttr(35, i64)})
    load = kernel.LoadOp(operands=[blk.args[0], [blk.args[1]]],
                         result_types=[kernel.memref([24, 35], f32, "UB")],
                         properties={"view": StringAttr("nz_origin_rows"), "params": params})
    rows_total = 2 * 2 * 16  # the padded row space
    dst = np.full(nz.shape, np.nan, np.float32)  # an arena buffer with stale bytes
    got = []
    for t in range(0, rows_total, 24):
        tile = LOAD_VIEWS["nz_origin_rows"](load, nz, (t,), np.zeros((24, 35), np.float32))
        got.append(tile)
        store = kernel.StoreOp(operands=[load.result, blk.args[0], [blk.args[1]]],
                               properties={"view": StringAttr("nz_origin_rows"), "params": params})
        STORE_VIEWS["nz_origin_rows"](store, tile, dst, (t,))
    rows = np.concatenate(got)[:rows_total].reshape(2, 32, 35)
    np.testing.assert_array_equal(rows[:, :21], x)
    assert not rows[:, 21:].any()  # padding rows read as zero
    np.testing.assert_array_equal(dst, nz)  # zeros in the padding, not NaN
    np.testing.assert_array_equal(from_storage(dst, Format.FRACTAL_NZ, Format.ND, x.shape), x)
    # a row kernel computes f(0) != 0 on the padding rows (LayerNorm gives beta there): not stored
    ones = np.ones_like(dst)
    for t in range(0, rows_total, 24):
        STORE_VIEWS["nz_origin_rows"](store, np.full((24, 35), 7.0, np.float32), ones, (t,))
    np.testing.assert_array_equal(ones, to_storage(np.full(x.shape, 7.0, np.float32),
                                                   Format.FRACTAL_NZ, Format.ND))
