"""kernel-level semantics: the tiled kernels, executed on the device layouts, tile by tile.

`kernel.cube_conv2d` is an implicit GEMM (img2col) on the real layouts:
  x      NC1HWC0   (N, C1, H, W, C0)
  filter FRACTAL_Z (C1*kh*kw, N1, 16, C0), row (c1*kh + i)*kw + j
  bias   ND        [Cout]
  y      NC1HWC0   (N, Cout1, Ho, Wo, C0)
  A[M, K]    M = N*Ho*Wo (m = (n*Ho + ho)*Wo + wo), K = C1*kh*kw*C0 (k = ((c1*kh + i)*kw + j)*C0 + c0),
             A[m, k] = xpad[n, c1, ho*sh + i*dh, wo*sw + j*dw, c0]   (spatial pads read as zero)
  B[K, Npad] B[k, n1*16 + n0] = FZ[k // C0, n1, n0, k % C0]         (padded rows/columns are zero)
  y[n, c // C0, ho, wo, c % C0] = act(sum_k A[m, k] B[k, c] + bias[c])
The loops follow the tiling (Ascend C TCubeTiling names, cann-facts.md section 7):
  mDim = ceil(M / singleCoreM), nDim = ceil(N / singleCoreN); block b of block_dim takes
  (mIdx, nIdx) = (b % mDim, b // mDim) (Ascend C's matmul samples) and the rows
  [mIdx*singleCoreM, +singleCoreM) x columns [nIdx*singleCoreN, +singleCoreN), clipped at M, N;
  within it base blocks baseM x baseN (iterateOrder 0: M moves fastest, 1: N moves fastest),
  each accumulated in float32 (L0C) over K in baseK chunks up to singleCoreK, then the epilogue
  (bias, activation) on the tile, written to y.
A tiling that does not describe this problem (M, N, K, usedCoreNum vs block_dim vs the core grid)
raises SemanticsError; as a last guard, every element of y is checked to have been written.

`kernel.vector` applies `fn` to the flattened storage data in tiles of tileElems elements,
tilesPerCore consecutive tiles per core over block_dim cores; a tiling that leaves elements
unprocessed raises SemanticsError.  BiasAdd broadcasts bias [C] over NC1HWC0's channel axes
(bias padded with zeros to C1*C0, shaped (1, C1, 1, 1, C0)), over axis 1 of NCHW, or over the last
axis (NHWC, ND, and any other layout).

`kernel.transdata` converts layouts exactly as cann.TransData.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from compiler import numerics
from compiler.formats import Format, ceil_div
from compiler.interpreters.cann_impl import transdata
from compiler.interpreters.common import SemanticsError, layout_of, result_dtype
from dialects import kernel
from dialects.cann import format_of
from dialects.common import ints

N0 = 16


def mmad(l0c: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """One cube step (Ascend C's Mmad): L0C += L0A @ L0B, accumulated in L0C's type."""
    l0c += a @ b


def _cout(op: kernel.CubeConv2DOp, npad: int, bias: np.ndarray | None) -> int:
    """Cout: from the filter's or y's origin descriptor, else the bias length, else Npad."""
    f = format_of(op.filter.type)
    if f is not None and f.origin_fmt is not None:
        return f.origin[3] if f.origin_fmt == Format.HWCN else f.origin[0]
    f = format_of(op.y.type)
    if f is not None and f.origin_fmt is not None:
        return f.origin[3] if f.origin_fmt == Format.NHWC else f.origin[1]
    if bias is not None:
        return int(bias.size)
    return npad


def cube_conv2d(op: kernel.CubeConv2DOp, x: np.ndarray, fz: np.ndarray,
                bias: np.ndarray | None) -> np.ndarray:
    def fail(msg: str):
        raise SemanticsError(op, f"{op.name}: {msg}")

    n_, c1_, h_, w_, c0 = x.shape
    rows, n1, n0, c0f = fz.shape
    y_shape = tuple(op.y.type.get_shape())
    yn, co1, ho, wo, c0y = y_shape
    kh, kw = ints(op.kernel_hw)
    sh, sw = ints(op.strides)
    dh, dw = ints(op.dilations)
    pt, pb, pl, pr = ints(op.pads)
    if c0f != c0 or n0 != N0:
        fail(f"filter fractal {list(fz.shape)} does not match x's C0 = {c0}")
    if rows != c1_ * kh * kw:
        fail(f"filter has {rows} fractal rows, x's C1*kh*kw is {c1_ * kh * kw}")
    want_ho = numerics.conv_out_size(h_, kh, sh, dh, pt, pb)
    want_wo = numerics.conv_out_size(w_, kw, sw, dw, pl, pr)
    if (yn, ho, wo) != (n_, want_ho, want_wo):
        fail(f"y is {list(y_shape)} but the geometry gives N={n_}, Ho={want_ho}, Wo={want_wo}")
    npad = n1 * N0
    cout = _cout(op, npad, bias)
    m_total = n_ * ho * wo
    k_total = c1_ * kh * kw * c0

    t = op.tiling.as_dict()
    bd = op.block_dim.value.data
    tm, tn, ka, kb = t["M"], t["N"], t["Ka"], t["Kb"]
    sc_m, sc_n, sc_k = t["singleCoreM"], t["singleCoreN"], t["singleCoreK"]
    base_m, base_n, base_k = t["baseM"], t["baseN"], t["baseK"]
    if tm != m_total:
        fail(f"tiling M = {tm}, but the problem has M = N*Ho*Wo = {m_total}")
    if not cout <= tn <= npad:
        fail(f"tiling N = {tn}, but the problem has N = Cout = {cout} (padded {npad})")
    if tn > co1 * c0y:
        fail(f"tiling N = {tn} exceeds y's {co1 * c0y} (padded) channels")
    if ka != k_total or kb != k_total:
        fail(f"tiling Ka = {ka}, Kb = {kb}, but the problem has K = C1*kh*kw*C0 = {k_total}")
    if sc_k != k_total:
        fail(f"singleCoreK = {sc_k} must equal K = {k_total} (no K split)")
    if min(sc_m, sc_n, base_m, base_n, base_k) <= 0:
        fail("tiling sizes must be positive")
    if base_m % N0 or base_n % N0 or base_k % c0:
        fail(f"baseM ({base_m}) and baseN ({base_n}) must be multiples of 16, baseK ({base_k}) of C0 = {c0}")
    m_dim, n_dim = ceil_div(tm, sc_m), ceil_div(tn, sc_n)
    used = t["usedCoreNum"]
    if used != bd:
        fail(f"tiling usedCoreNum = {used} differs from block_dim = {bd}")
    if m_dim * n_dim != used:
        fail(f"tiling splits M = {tm} by singleCoreM = {sc_m} and N = {tn} by singleCoreN = {sc_n} "
             f"into {m_dim}x{n_dim} = {m_dim * n_dim} core blocks, but usedCoreNum = {used}")

    acc = numerics.acc_dtype(x.dtype)
    xpad = np.pad(x.astype(acc, copy=False), ((0, 0), (0, 0), (pt, pb), (pl, pr), (0, 0)))
    # B[k, n] from the fractal: (row, n1, n0, c0) -> (row, c0, n1, n0) -> (K, Npad)
    b_mat = fz.astype(acc, copy=False).transpose(0, 3, 1, 2).reshape(k_total, npad)
    bias_pad = np.zeros(npad, acc)
    if bias is not None:
        bflat = bias.reshape(-1).astype(acc)
        if bflat.size > npad:
            fail(f"bias has {bflat.size} elements, more than the {npad} padded output channels")
        bias_pad[:bflat.size] = bflat
    activation = op.activation.data

    y = np.zeros(y_shape, result_dtype(op.y.type))
    written = np.zeros((m_total, cout), bool)
    c1_idx = np.arange(c1_)[None, :, None, None]
    i_off, j_off = np.arange(kh) * dh, np.arange(kw) * dw

    def load_a(m_lo: int, m_hi: int):
        """The A rows of one base block (img2col from NC1HWC0, as the cube's load to L0A)."""
        m = np.arange(m_lo, m_hi)
        nn, rem = np.divmod(m, ho * wo)
        hh, ww = np.divmod(rem, wo)
        hi = (hh * sh)[:, None] + i_off[None, :]
        wj = (ww * sw)[:, None] + j_off[None, :]
        a = xpad[nn[:, None, None, None], c1_idx, hi[:, None, :, None], wj[:, None, None, :]]
        return a.reshape(m_hi - m_lo, k_total), nn, hh, ww

    def tile(m_lo: int, m_hi: int, n_lo: int, n_hi: int) -> None:
        a, nn, hh, ww = load_a(m_lo, m_hi)
        l0c = np.zeros((m_hi - m_lo, n_hi - n_lo), acc)
        for k_lo in range(0, sc_k, base_k):
            k_hi = min(k_lo + base_k, sc_k)
            mmad(l0c, a[:, k_lo:k_hi], b_mat[k_lo:k_hi, n_lo:n_hi])
        out = numerics.activate(l0c + bias_pad[n_lo:n_hi], activation)
        cols = np.arange(n_lo, n_hi)
        y[nn[:, None], (cols // c0y)[None, :], hh[:, None], ww[:, None], (cols % c0y)[None, :]] = out
        written[m_lo:m_hi, n_lo:min(n_hi, cout)] = True

    for b in range(bd):
        m_idx, n_idx = b % m_dim, b // m_dim
        m_lo, n_lo = m_idx * sc_m, n_idx * sc_n
        m_hi, n_hi = min(m_lo + sc_m, tm), min(n_lo + sc_n, tn)
        m_blocks = [(s, min(s + base_m, m_hi)) for s in range(m_lo, m_hi, base_m)]
        n_blocks = [(s, min(s + base_n, n_hi)) for s in range(n_lo, n_hi, base_n)]
        if t.get("iterateOrder", 0) == 1:
            order = [(mb, nb) for mb in m_blocks for nb in n_blocks]
        else:
            order = [(mb, nb) for nb in n_blocks for mb in m_blocks]
        for (ml, mh), (nl, nh) in order:
            tile(ml, mh, nl, nh)

    if not written.all():
        miss_m = np.flatnonzero(~written.all(axis=1))
        miss_n = np.flatnonzero(~written.all(axis=0))
        fail(f"the tiling leaves y uncovered (rows {_ranges(miss_m)} of M = {m_total}, "
             f"columns {_ranges(miss_n)} of N = {cout})")
    return y


def _ranges(idx: np.ndarray) -> str:
    if idx.size == 0:
        return "none"
    return f"{idx[0]}..{idx[-1]}" if idx.size > 1 else str(idx[0])


def vector(op: kernel.VectorOp, args: tuple[Any, ...]) -> np.ndarray:
    def fail(msg: str):
        raise SemanticsError(op, f"{op.name}: {msg}")

    fn = op.fn.data
    want_args = {"Relu": 1, "BiasAdd": 2}[fn]
    if len(args) != want_args:
        fail(f"fn {fn} takes {want_args} input(s), got {len(args)}")
    x = args[0]
    out_dtype = result_dtype(op.y.type)
    if tuple(x.shape) != tuple(op.y.type.get_shape()):
        fail(f"input shape {list(x.shape)} differs from the result's {list(op.y.type.get_shape())}")
    acc = numerics.acc_dtype(x.dtype)
    flat = x.reshape(-1)
    operand = None
    if fn == "BiasAdd":
        operand = _broadcast_bias(op, x, args[1].reshape(-1).astype(acc), fail).reshape(-1)

    t = op.tiling.as_dict()
    tile_elems, per_core, bd = t["tileElems"], t["tilesPerCore"], op.block_dim.value.data
    if tile_elems <= 0 or per_core <= 0:
        fail("tileElems and tilesPerCore must be positive")
    total = flat.size
    n_tiles = ceil_div(total, tile_elems)
    if bd * per_core < n_tiles:
        fail(f"the tiling processes {bd} cores x {per_core} tiles x {tile_elems} elements = "
             f"{bd * per_core * tile_elems} elements, the tensor has {total}")
    out = np.zeros(total, out_dtype)
    for core in range(bd):
        for tile in range(core * per_core, min((core + 1) * per_core, n_tiles)):
            lo, hi = tile * tile_elems, min((tile + 1) * tile_elems, total)
            v = flat[lo:hi].astype(acc, copy=False)  # GM -> UB
            if fn == "BiasAdd":
                v = v + operand[lo:hi]
            else:
                v = numerics.activate(v, "Relu")
            out[lo:hi] = v  # UB -> GM
    return out.reshape(x.shape)


def _broadcast_bias(op: kernel.VectorOp, x: np.ndarray, b: np.ndarray, fail) -> np.ndarray:
    layout = layout_of(op.inputs[0].type, "ND")
    if layout == Format.NC1HWC0:
        _, c1, _, _, c0 = x.shape
        if b.size > c1 * c0:
            fail(f"bias has {b.size} elements, x has {c1 * c0} (padded) channels")
        padded = np.zeros(c1 * c0, b.dtype)
        padded[:b.size] = b
        return np.broadcast_to(padded.reshape(1, c1, 1, 1, c0), x.shape)
    axis = 1 if layout == Format.NCHW else x.ndim - 1
    if b.size != x.shape[axis]:
        fail(f"bias has {b.size} elements, x has {x.shape[axis]} channels on axis {axis}")
    shape = [1] * x.ndim
    shape[axis] = b.size
    return np.broadcast_to(b.reshape(shape), x.shape)


@register_impls
class KernelFunctions(InterpreterFunctions):
    @impl(kernel.CubeConv2DOp)
    def run_cube_conv2d(self, interp: Interpreter, op: kernel.CubeConv2DOp, args: tuple[Any, ...]):
        x, fz = args[0], args[1]
        bias = args[2] if op.bias is not None else None
        return (cube_conv2d(op, x, fz, bias),)

    @impl(kernel.VectorOp)
    def run_vector(self, interp: Interpreter, op: kernel.VectorOp, args: tuple[Any, ...]):
        return (vector(op, args),)

    @impl(kernel.TransDataOp)
    def run_transdata(self, interp: Interpreter, op: kernel.TransDataOp, args: tuple[Any, ...]):
        return (transdata(op, args[0], op.src.type, op.dst.type,
                          op.src_format.data, op.dst_format.data),)
