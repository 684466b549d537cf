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

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from compiler.interpreters import numerics
from compiler.interpreters.cann_impl import transdata
from compiler.interpreters.common import SemanticsError, layout_of, result_dtype
from compiler.ir.typed import int_of, num_of
from compiler.target.formats import Format, ceil_div, from_storage, to_storage
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
    operand = np.zeros(0, acc)  # BiasAdd's bias, broadcast over the flat tensor
    if fn == kernel.VectorFunction.BiasAdd:
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
            if fn == kernel.VectorFunction.BiasAdd:
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


# === explicit kernel bodies ==================================================================
#
# Values inside a body: GM buffers are the storage-layout numpy arrays of the operands (the
# result's is allocated zero-filled, so padding the kernel does not write stays zero); local
# tiles (L1, L0A, L0B, L0C, UB) are numpy arrays of the memref's static shape; indices are ints.

from xdsl.interpreter import ReturnedValues, impl_terminator  # noqa: E402

from compiler.interpreters.cann_impl import LIBRARY_SEMANTICS  # noqa: E402
from dialects import cann as _cann  # noqa: E402
from dialects.common import numpy_dtype  # noqa: E402


def _shape(t) -> tuple[int, ...]:
    return tuple(t.get_shape())


def _take2(mat_fn, rows: np.ndarray, cols: np.ndarray, r_lim: int, c_lim: int, out):
    """Fill out[i, j] = mat_fn(rows[i], cols[j]) where in range, else leave zero."""
    rv, cv = rows < r_lim, cols < c_lim
    if rv.any() and cv.any():
        out[np.ix_(rv, cv)] = mat_fn(rows[rv], cols[cv])
    return out


def _batch_index(src_batch: tuple[int, ...], out_batch: tuple[int, ...], b: int) -> tuple[int, ...]:
    """The source batch index of output batch b (numpy broadcasting of the batch dims)."""
    flat = np.unravel_index(b, out_batch) if out_batch else ()
    idx = tuple(int(i) for i in flat)[len(out_batch) - len(src_batch):] if src_batch else ()
    return tuple(0 if d == 1 else i for i, d in zip(idx, src_batch))


def _img2col(P, fetch, x_dims: tuple[int, int, int, int], g: int, m0: int, k0_: int,
             out: np.ndarray) -> np.ndarray:
    """The img2col tile out = A[m0.., k0_..] of group g (the img2col view's params P): element
    (m, k) is fetch(n, c1, h, w, c0) of x (H, W, C1, C0 = x_dims) where that is inside x, else 0."""
    h_, w_, c1_, c0 = x_dims
    kh, kw = P("kernel_hw")
    sh, sw = P("strides")
    dh, dw = P("dilations")
    pt, _, pl, _ = P("pads")
    ho, wo = P("out_hw")
    cg, ctot = P("cin_group"), P("cin")
    m_tot, k_tot = P("M"), P("K")
    rows, cols = np.arange(m0, m0 + out.shape[0]), np.arange(k0_, k0_ + out.shape[1])
    depth = P("depth")  # a Conv3D's (cube3d.py): x is the (N*D_in) batch view, K per depth tap

    def a_at(r, c):
        nn, rem = np.divmod(r, ho * wo)
        hh, ww = np.divmod(rem, wo)
        if depth is not None:
            d_in, d_out, kd, sd, dd, pf, _ = depth
            nb, do = np.divmod(nn, d_out)
            kdi, c = np.divmod(c, c1_ * kh * kw * c0)
            di = (do * sd - pf)[:, None] + (kdi * dd)[None, :]
            # columns past the kd taps (a C04 filter's K padding: compiler/target/c04.py) read 0
            in_d = (di >= 0) & (di < d_in) & (kdi < kd)[None, :]
            nn = nb[:, None] * d_in + np.clip(di, 0, d_in - 1)
        kc1, rem2 = np.divmod(c, kh * kw * c0)
        ki, rem3 = np.divmod(rem2, kw * c0)
        kj, kc0 = np.divmod(rem3, c0)
        ci = kc1 * c0 + kc0                       # channel inside the (enlarged) group
        ch = g * cg + ci                          # channel of x
        hi = (hh * sh - pt)[:, None] + (ki * dh)[None, :]
        wi = (ww * sw - pl)[:, None] + (kj * dw)[None, :]
        ok = (hi >= 0) & (hi < h_) & (wi >= 0) & (wi < w_) & (ci < cg)[None, :] & (ch < ctot)[None, :]
        chc = np.minimum(ch, c1_ * c0 - 1)
        if depth is not None:
            ok &= in_d
            nb = nn
        else:
            nb = np.broadcast_to(nn[:, None], ok.shape)
        hb, wb = np.clip(hi, 0, h_ - 1), np.clip(wi, 0, w_ - 1)
        c1b = np.broadcast_to((chc // c0)[None, :], ok.shape)
        c0b = np.broadcast_to((chc % c0)[None, :], ok.shape)
        vals = np.zeros(ok.shape, out.dtype)
        vals[ok] = fetch(nb[ok], c1b[ok], hb[ok], wb[ok], c0b[ok])
        return vals
    return _take2(a_at, rows, cols, m_tot, k_tot, out)


def _fmap_first_row(P, m0: int) -> int:
    from compiler.target.conv_geometry import fmap_first_row

    ho, wo = P("out_hw")
    if P("depth") is not None:  # a 3-D conv's (compiler/conversions/cann_to_kernel/cube3d.py)
        from compiler.target.conv_geometry import fmap3d_first_row

        return fmap3d_first_row(P("fmap3d"), m0, P("block_m"))
    return fmap_first_row(m0, P("in_hw")[0], ho, wo, P("strides")[0], P("pads")[0])


def _load3d_planes(op, src: np.ndarray, P, idx, shape, dt) -> np.ndarray:
    """Load3D from a 3-D conv's window of one 2-D window per depth tap (view fmap with
    plane_rows): tap d_i's plane in slots [d_i*C1, +C1), its rows from the block's first."""
    from compiler.target.conv_geometry import fmap3d_plane_window

    g, m0, k0_ = idx
    fm = P("fmap3d")
    kd, dd, plane = fm[12], fm[14], P("plane_rows")
    c1x = src.shape[0] // kd
    h_, w_ = P("in_hw")
    clip, top, lo = fmap3d_plane_window(fm, m0)

    def fetch(nn, c1, hi, wi, cc):
        kdi, off = np.divmod(nn - clip - top, dd)
        r = hi - lo
        if r.size and (off.any() or kdi.min() < 0 or kdi.max() >= kd or r.min() < 0
                       or r.max() >= plane):
            raise SemanticsError(op, f"{op.name}: the A tile at m = {m0} reads a plane or row "
                                     f"of x outside the L1 window (depth taps from {top}, rows "
                                     f"[{lo}, {lo + plane}))")
        return src[kdi * c1x + c1, r, wi, cc]
    m1, k1, m16, kf = shape
    a = _img2col(P, fetch, (h_, w_, c1x, src.shape[3]), g, m0, k0_,
                 np.zeros((m1 * m16, k1 * kf), dt))
    return np.ascontiguousarray(a.reshape(m1, m16, k1, kf).transpose(0, 2, 1, 3))


def _resampled(src: np.ndarray, P) -> np.ndarray:
    """x (N, C1, H, W, C0) as a conv reads it through a staged pixel resample (params upsample
    = [a, b], upsample_phase: [-1, -1] each pixel repeated over its a x b block, else at that
    place of the block, zeros elsewhere; compiler/transforms/fusion/resample.py)."""
    if P("resize_corner") is not None:  # a bilinear resize's corner-k source pixels
        from compiler.interpreters.kernel_views import resize_source

        (ho, wo), k = P("in_hw"), P("resize_corner")
        ac, hp = bool(P("align_corners")), bool(P("half_pixel_centers"))
        hi = resize_source(ho, src.shape[2], ac, hp, False)[k // 2]
        wi = resize_source(wo, src.shape[3], ac, hp, False)[k % 2]
        return src[:, :, hi][:, :, :, wi]
    a, b = P("upsample")
    ph, pw = P("upsample_phase")
    if ph < 0:
        return np.repeat(np.repeat(src, a, axis=2), b, axis=3)
    n_, c1_, h_, w_, c0 = src.shape
    out = np.zeros((n_, c1_, h_ * a, w_ * b, c0), src.dtype)
    out[:, :, ph::a, pw::b] = src
    return out


def load(op: kernel.LoadOp, src: np.ndarray, idx: tuple[int, ...],
         view: str | None = None) -> np.ndarray:
    """The tile `view` (default: the op's view) reads from src at idx."""
    view = op.view.data if view is None else view
    if view == kernel.LoadView.from_origin:
        return load(op, _device_storage(op, src), idx, op.dst_view.data if op.dst_view else None)
    rt = op.result.type
    shape = _shape(rt)
    dt = numpy_dtype(rt.element_type)
    out = np.zeros(shape, dt)
    P = op.param
    if view == kernel.LoadView.Zz:  # [m, k] -> (m1, k1, 16, k0)
        m, k = src.shape
        k0 = shape[3]
        return np.ascontiguousarray(src.reshape(m // N0, N0, k // k0, k0).transpose(0, 2, 1, 3))
    if view == kernel.LoadView.Zn:  # [k, n] -> (k1, n1, 16(n), k0)
        k0 = shape[3]
        if idx:  # rows [k, +k1*k0) of an L1 panel (a resident B)
            src = src[idx[0]:idx[0] + shape[0] * k0]
        k, n = src.shape
        return np.ascontiguousarray(src.reshape(k // k0, k0, n // N0, N0).transpose(0, 2, 3, 1))
    if view == kernel.LoadView.fmap_resize_weights:  # lerp weights of the window's rows / columns
        from compiler.interpreters.kernel_views import resize_source

        (ho, wo), lo = P("in_hw"), _fmap_first_row(P, idx[1])
        ac, hp = bool(P("align_corners")), bool(P("half_pixel_centers"))
        if P("axis") == 0:
            rows = np.arange(lo, min(lo + shape[1], src.shape[0] * ho))
            out[0, :rows.size, 0, 0] = resize_source(ho, src.shape[2], ac, hp, False)[2][rows % ho]
        else:
            out[0, 0, :, 0] = resize_source(wo, src.shape[3], ac, hp, False)[2][:shape[2]]
        return out
    if (P("upsample") is not None or P("resize_corner") is not None) and \
            view in (kernel.LoadView.img2col, kernel.LoadView.fmap):
        src = _resampled(src, P)
    if P("c1_range") is not None and view == kernel.LoadView.fmap:  # planes [c, +n) of x only
        c, n = P("c1_range")
        src = src[:, c:c + n]
    if view == kernel.LoadView.img2col:
        g, m0, k0_ = idx
        n_, c1_, h_, w_, c0 = src.shape

        def fetch(nn, c1, hi, wi, cc):
            return src[nn, c1, hi, wi, cc]
        return _img2col(P, fetch, (h_, w_, c1_, c0), g, m0, k0_, out)
    if view == kernel.LoadView.fmap:  # rows of x (N*H rows of (C1, W, C0)) from the window's first
        g, m0 = idx
        n_, c1_, h_, w_, c0 = src.shape
        plane = P("plane_rows")
        if plane is not None:  # a 3-D conv's window per depth tap: slot d_i = rows of one plane
            from compiler.target.conv_geometry import fmap3d_plane_window

            fm = P("fmap3d")
            clip, top, lo = fmap3d_plane_window(fm, m0)
            for kdi in range(fm[12]):
                d = top + kdi * fm[14]
                if 0 <= d < fm[10]:
                    part = src[clip + d, :, lo:lo + plane]
                    out[kdi * c1_:(kdi + 1) * c1_, :part.shape[1]] = part
            return out
        rows = src.transpose(1, 0, 2, 3, 4).reshape(c1_, n_ * h_, w_, c0)
        lo = _fmap_first_row(P, m0)
        part = rows[:, lo:lo + shape[1]]
        out[:, :part.shape[1]] = part
        return out
    if view == kernel.LoadView.load3d:  # img2col from the L1 window of M block m, to L0A fractals
        g, m0, k0_ = idx
        c1_, n_rows, w_, c0 = src.shape
        h_, _ = P("in_hw")
        plane = P("plane_rows")
        if plane is not None:  # one 2-D window per depth tap (the view fmap's slots)
            return _load3d_planes(op, src, P, idx, shape, dt)
        lo = _fmap_first_row(P, m0)

        def fetch3d(nn, c1, hi, wi, cc):
            r = nn * h_ + hi - lo
            if r.size and (r.min() < 0 or r.max() >= n_rows):
                raise SemanticsError(op, f"{op.name}: the A tile at m = {m0} reads row "
                                         f"{int(r.min() if r.min() < 0 else r.max()) + lo} of x, "
                                         f"outside the L1 window [{lo}, {lo + n_rows})")
            return src[c1, r, wi, cc]
        m1, k1, m16, kf = shape
        a = _img2col(P, fetch3d, (h_, w_, c1_, c0), g, m0, k0_,
                     np.zeros((m1 * m16, k1 * kf), dt))
        return np.ascontiguousarray(a.reshape(m1, m16, k1, kf).transpose(0, 2, 1, 3))
    if view == kernel.LoadView.fz:
        g, k0_, n0_ = idx
        rows_, n1, _, c0 = src.shape
        kg, n_lim = P("K"), P("N")
        rows, cols = np.arange(k0_, k0_ + shape[0]), np.arange(n0_, n0_ + shape[1])

        def b_at(r, c):
            rr = g * (kg // c0) + r // c0
            return src[rr[:, None], (c // N0)[None, :], (c % N0)[None, :], (r % c0)[:, None]]
        return _take2(b_at, rows, cols, kg, n_lim, out)
    if view in (kernel.LoadView.nz, kernel.LoadView.nd):
        b, r0, c0_ = idx
        transpose = bool(P("transpose", 0))
        out_batch = tuple(P("batch", ()))
        if P("reverse", 0):
            b = int(np.prod(out_batch)) - 1 - b
        if view == kernel.LoadView.nz:
            *sb, k1, m1, _, cz = src.shape
            nd_r, nd_c = P("rows"), P("cols")  # origin ND extents of the stored matrix
        else:
            *sb, nd_r, nd_c = src.shape
        bi = _batch_index(tuple(sb), out_batch, b)
        mat = src[bi] if sb else src
        lim_r, lim_c = (nd_c, nd_r) if transpose else (nd_r, nd_c)
        rows, cols = np.arange(r0, r0 + shape[0]), np.arange(c0_, c0_ + shape[1])

        def m_at(r, c):
            if transpose:
                r, c = c, r
                rr, cc = r[None, :], c[:, None]
            else:
                rr, cc = r[:, None], c[None, :]
            if view == kernel.LoadView.nz:
                return mat[cc // cz, rr // N0, rr % N0, cc % cz]
            return mat[rr, cc]
        return _take2(m_at, rows, cols, lim_r, lim_c, out)
    if view == kernel.LoadView.nc1hwc0:  # a residual tile [m, n] of an NC1HWC0 tensor (conv output geometry)
        g, m0, n0_ = idx
        ho, wo = P("out_hw")
        m_lim, n_lim, off, ctot = P("M"), P("N"), P("offset", 0), P("cout")
        c0 = src.shape[-1]
        rows, cols = np.arange(m0, m0 + shape[0]), np.arange(n0_, n0_ + shape[1])

        def r_at(r, c):
            nn, rem = np.divmod(r, ho * wo)
            hh, ww = np.divmod(rem, wo)
            ch = np.minimum(g * off + c, ctot - 1)
            vals = src[nn[:, None], (ch // c0)[None, :], hh[:, None], ww[:, None], (ch % c0)[None, :]]
            return np.where(((g * off + c) < ctot)[None, :], vals, 0)
        return _take2(r_at, rows, cols, m_lim, n_lim, out)
    if view == kernel.LoadView.channel:
        g, n0_ = idx
        src = src.reshape(-1)  # [C], or [1, .., 1, C]: one value per channel
        off, n_lim = P("offset", 0), P("N")
        cols = np.arange(n0_, n0_ + shape[-1])
        ch = g * off + cols
        ok = (cols < n_lim) & (ch < src.shape[0])
        out.reshape(-1)[ok] = src[ch[ok]]
        return out
    if view == kernel.LoadView.flat:
        (t,) = idx
        dst_shape = tuple(P("shape"))
        total = int(np.prod(dst_shape))
        pos = np.arange(t, min(t + shape[0], total))
        if src.shape == dst_shape:
            out[:pos.size] = src.reshape(-1)[pos]
        else:  # numpy broadcasting of the source to the destination's storage shape
            out[:pos.size] = np.broadcast_to(src, dst_shape).reshape(-1)[pos]
        return out
    if view == kernel.LoadView.transpose_flat:  # flat tile of y = transpose(src, perm), gathered from src
        (t,) = idx
        perm, dst_shape = tuple(P("perm")), tuple(P("shape"))
        if src.ndim != len(perm) or tuple(src.shape[p] for p in perm) != dst_shape:
            raise SemanticsError(op, f"{op.name}: transpose_flat of {src.shape} by {perm} "
                                     f"is not {dst_shape}")
        total = int(np.prod(dst_shape))
        pos = np.arange(t, min(t + shape[0], total))
        yc = np.unravel_index(pos, dst_shape) if dst_shape else ()
        xc = [None] * len(perm)
        for i, p in enumerate(perm):
            xc[p] = yc[i]
        out[:pos.size] = src[tuple(xc)] if perm else src.reshape(-1)[pos]
        return out
    if view == kernel.LoadView.slice_flat:  # flat tile of the strided slice: x[start + i * step] per axis
        (t,) = idx
        start, step, count = P("start"), P("step"), P("count")
        if src.ndim != len(count):
            raise SemanticsError(op, f"{op.name}: slice_flat of rank {len(count)} on {src.shape}")
        total = int(np.prod(count))
        pos = np.arange(t, min(t + shape[0], total))
        yc = np.unravel_index(pos, tuple(count)) if count else ()
        out[:pos.size] = src[tuple(s + c * d for s, c, d in zip(start, yc, step))] if count \
            else src.reshape(-1)[pos]
        return out
    if view == kernel.LoadView.channel_flat:
        (t,) = idx
        src = src.reshape(-1)  # [C], or [1, .., 1, C]: one value per channel
        dst_shape = tuple(P("shape"))
        total = int(np.prod(dst_shape))
        pos = np.arange(t, min(t + shape[0], total))
        from compiler.interpreters.kernel_views import channel_of

        ch = channel_of(pos, dst_shape, P("layout"))
        ok = ch < src.shape[0]
        vals = np.zeros(pos.size, dt)
        vals[ok] = src[ch[ok]]
        out[:pos.size] = vals
        return out
    if view in (kernel.LoadView.windows, kernel.LoadView.window_count):
        (t,) = idx
        kh, kw = P("kernel_hw")
        sh, sw = P("strides")
        pt, _, pl, _ = P("pads")
        ho, wo = P("out_hw")
        n_, c1_, h_, w_, c0 = src.shape
        rows = np.arange(t, min(t + shape[0], n_ * c1_ * ho * wo))
        nc, rem = np.divmod(rows, ho * wo)
        nn, cc = np.divmod(nc, c1_)
        oh, ow = np.divmod(rem, wo)
        hi = (oh * sh - pt)[:, None, None] + np.arange(kh)[None, :, None]
        wi = (ow * sw - pl)[:, None, None] + np.arange(kw)[None, None, :]
        ok = ((hi >= 0) & (hi < h_) & (wi >= 0) & (wi < w_)).reshape(rows.size, kh * kw)
        if view == kernel.LoadView.window_count:
            out[:rows.size, 0] = ok.sum(axis=1)
            return out
        vals = src[nn[:, None, None], cc[:, None, None], np.clip(hi, 0, h_ - 1),
                   np.clip(wi, 0, w_ - 1)].reshape(rows.size, kh * kw, c0)
        fill = P("fill", 0)
        fill_v = -np.inf if fill else 0
        out[:rows.size] = np.where(ok[:, :, None], vals, fill_v)
        return out
    if view == kernel.LoadView.rows:
        (t,) = idx
        rl = int(np.prod(shape[1:]))
        bshape = P("shape", None)
        if bshape is not None and tuple(src.shape) != tuple(bshape):
            src = np.broadcast_to(src, tuple(bshape))  # a mask or a scalar broadcast to the rows
        flat = src.reshape(-1, rl)
        n = max(0, min(shape[0], flat.shape[0] - t))
        out.reshape(shape[0], rl)[:n] = flat[t:t + n]
        return out
    if view == kernel.LoadView.chunk_rows:
        t, l0 = idx
        rows, length, inner = P("rows"), P("length"), P("inner")
        fill = P("fill", 0)
        if fill:
            out[...] = _fill_value(dt, fill)
        v = src.reshape(rows, length, inner)[t:t + shape[0], l0:l0 + shape[1]]
        out[:v.shape[0], :v.shape[1]] = v
        return out
    if view == kernel.LoadView.pad_rows:
        (t,) = idx
        pads = P("pads")
        dst_shape = tuple(P("shape"))
        lead = dst_shape[:-1]
        r = np.arange(t, min(t + shape[0], int(np.prod(lead))))
        coords = np.unravel_index(r, lead) if lead else ()
        ok = np.ones(r.size, bool)
        src_idx = []
        for ax, c in enumerate(coords):
            s_ = c - pads[2 * ax]
            ok &= (s_ >= 0) & (s_ < src.shape[ax])
            src_idx.append(np.clip(s_, 0, src.shape[ax] - 1))
        lo = pads[-2]
        rows_v = src[tuple(src_idx)] if src_idx else src[None]
        out[:r.size, lo:lo + src.shape[-1]] = np.where(ok[:, None], rows_v, 0)
        return out
    if view == kernel.LoadView.heads:
        bh, r0, c0_ = idx
        heads, d, off = P("heads"), P("head_dim"), P("col_offset")
        bb, h = divmod(bh, heads)
        mat = src[bb][:, off + h * d: off + (h + 1) * d]
        if P("transpose", 0):
            mat = mat.T
        v = mat[r0:r0 + shape[0], c0_:c0_ + shape[1]]
        out[:v.shape[0], :v.shape[1]] = v
        return out
    if view == kernel.LoadView.scan_rows:
        return _scan_rows(op, src, idx, out)
    from compiler.interpreters.kernel_views import LOAD_VIEWS

    if view in LOAD_VIEWS:  # gather / resize / value and mirror padding views
        return LOAD_VIEWS[view](op, src, idx, out)
    if view == kernel.LoadView.img2col_scale:  # scale[n(m), channel(k)] over the img2col tile
        g, m0, k0_ = idx
        _, c1_, _, _, c0 = src.shape
        kh, kw = P("kernel_hw")
        ho, wo = P("out_hw")
        cg, ctot = P("cin_group"), P("cin")
        rows, cols = np.arange(m0, m0 + shape[0]), np.arange(k0_, k0_ + shape[1])

        def s_at(r, c):
            kc1, rem = np.divmod(c, kh * kw * c0)
            ch = g * cg + kc1 * c0 + rem % c0
            chc = np.minimum(ch, c1_ * c0 - 1)
            vals = src[(r // (ho * wo))[:, None], (chc // c0)[None, :], 0, 0, (chc % c0)[None, :]]
            return np.where((ch < ctot)[None, :], vals, 0)
        return _take2(s_at, rows, cols, P("M"), P("K"), out)
    if view == kernel.LoadView.hw_chunks:
        n0, ch0, l0 = idx
        _, c1_, h_, w_, c0 = src.shape
        v = src[n0].reshape(c1_, h_ * w_, c0)[ch0 // c0:ch0 // c0 + shape[0], l0:l0 + shape[1]]
        out[:v.shape[0], :v.shape[1]] = v
        return out
    if view == kernel.LoadView.filter_t:
        r0, c0_ = idx
        ci, co = src.shape[-2:]
        wt = src.reshape(ci, co).T
        flat = out.reshape(shape[0], -1)
        v = wt[r0:r0 + shape[0], c0_:c0_ + flat.shape[1]]
        flat[:v.shape[0], :v.shape[1]] = v
        return out
    if view == kernel.LoadView.copy:
        if src.size != out.size:  # fewer rows: the rows of the tile first, zero after
            out[:src.shape[0]] = src
            return out
        return np.array(src, dtype=dt).reshape(shape)
    raise SemanticsError(op, f"{op.name}: view '{view}' cannot load")


def store(op: kernel.StoreOp, v: np.ndarray, dst: np.ndarray, idx: tuple[int, ...],
          view: str | None = None) -> None:
    """Store tile v into dst as `view` (default: the op's view) places it."""
    view = op.view.data if view is None else view
    if view == kernel.StoreView.to_origin:
        _store_to_origin(op, v, dst, idx)
        return
    P = op.param
    if view == kernel.StoreView.fmap_window:  # a producer conv's tile into its reader's window
        base, m0, n0_ = idx
        c1_, n_rows, w_, c0 = dst.shape
        rows = np.arange(m0, min(m0 + v.shape[0], P("M"), base + n_rows * w_))
        cols = np.arange(n0_, min(n0_ + v.shape[1], P("N")))
        if rows.size == 0 or cols.size == 0:
            return
        r, ww = np.divmod(rows - base, w_)
        dst[(cols // c0)[None, :], r[:, None], ww[:, None], (cols % c0)[None, :]] = \
            v[np.ix_(rows - m0, cols - n0_)].astype(dst.dtype)
        return
    if view == kernel.StoreView.nc1hwc0:
        g, m0, n0_ = idx
        ho, wo = P("out_hw")
        m_lim, n_lim, off, ctot = P("M"), P("N"), P("offset", 0), P("cout")
        c0 = dst.shape[-1]
        rows = np.arange(m0, min(m0 + v.shape[0], m_lim))
        cols = np.arange(n0_, min(n0_ + v.shape[1], n_lim))
        ch = g * off + cols
        keep = ch < ctot
        cols, ch = cols[keep], ch[keep]
        if rows.size == 0 or cols.size == 0:
            return
        nn, rem = np.divmod(rows, ho * wo)
        hh, ww = np.divmod(rem, wo)
        dst[nn[:, None], (ch // c0)[None, :], hh[:, None], ww[:, None], (ch % c0)[None, :]] = \
            v[np.ix_(rows - m0, cols - n0_)].astype(dst.dtype)
        return
    if view in (kernel.StoreView.nz, kernel.StoreView.nd):
        b, r0, c0_ = idx
        r_lim, c_lim = P("rows"), P("cols")
        out_batch = tuple(P("batch", ()))
        if P("reverse", 0):
            b = int(np.prod(out_batch)) - 1 - b
        bi = tuple(int(i) for i in np.unravel_index(b, out_batch)) if out_batch else ()
        mat = dst[bi] if bi else dst
        rows = np.arange(r0, min(r0 + v.shape[0], r_lim))
        cols = np.arange(c0_, min(c0_ + v.shape[1], c_lim))
        if rows.size == 0 or cols.size == 0:
            return
        val = v[np.ix_(rows - r0, cols - c0_)].astype(dst.dtype)
        if view == kernel.StoreView.nz:
            cz = mat.shape[-1]
            mat[(cols // cz)[None, :], (rows // N0)[:, None], (rows % N0)[:, None], (cols % cz)[None, :]] = val
        else:
            mat[np.ix_(rows, cols)] = val
        return
    if view in (kernel.StoreView.flat, kernel.StoreView.rows):
        (t,) = idx
        rl = int(np.prod(v.shape[1:]))
        flat = dst.reshape(-1) if view == kernel.StoreView.flat else dst.reshape(-1, rl)
        n = min(v.shape[0], flat.shape[0] - t)
        if n <= 0:
            return
        flat[t:t + n] = v[:n].reshape(flat[t:t + n].shape).astype(dst.dtype)
        return
    if view == kernel.StoreView.concat_flat:  # flat tile of input i -> its columns of dst viewed [outer, row]
        (t,) = idx
        inner, row, off = P("inner"), P("row"), P("offset")
        flat = dst.reshape(-1)
        n = min(v.shape[0], flat.size // row * inner - t)
        if n <= 0:
            return
        p = np.arange(t, t + n)
        flat[(p // inner) * row + off + p % inner] = v[:n].astype(dst.dtype)
        return
    if view == kernel.StoreView.nz_rows:  # rows (n, c1) of [N*C1, C0] -> FRACTAL_NZ (C1, ceil(N/16), 16, C0)
        (t,) = idx
        c1 = P("c1")
        k1, m1, m0, c0 = dst.shape[-4:]
        n_rows = min(v.shape[0], m1 * m0 * c1 - t)
        r = np.arange(t, t + max(n_rows, 0))
        nn, cc = np.divmod(r, c1)
        dst[cc, nn // m0, nn % m0, :] = v[:r.size].astype(dst.dtype)
        return
    if view == kernel.StoreView.heads:  # the [S, D] tile of head h into y [B, S, N, D] (row-major)
        bh, r0, c0_ = idx
        heads, d, off = P("heads"), P("head_dim"), P("col_offset")
        bb, h = divmod(bh, heads)
        if P("nz", 0):  # into its columns of the FRACTAL_NZ (B, K1, M1, 16, C0) matrix [S, N*D]
            rows = np.arange(r0, min(r0 + v.shape[0], P("rows")))
            cols = np.arange(c0_, min(c0_ + v.shape[1], d))
            if rows.size and cols.size:
                cz, oc = dst.shape[-1], off + h * d + cols
                dst[bb][(oc // cz)[None, :], (rows // N0)[:, None], (rows % N0)[:, None], (oc % cz)[None, :]] = \
                    v[np.ix_(rows - r0, cols - c0_)].astype(dst.dtype)
            return
        b_, s_ = dst.shape[0], dst.shape[1]
        mat = dst.reshape(b_, s_, -1)[bb][:, off + h * d: off + (h + 1) * d]
        nr, nc = min(v.shape[0], s_ - r0), min(v.shape[1], d - c0_)
        if nr > 0 and nc > 0:
            mat[r0:r0 + nr, c0_:c0_ + nc] = v[:nr, :nc].astype(dst.dtype)
        return
    from compiler.interpreters.kernel_views import STORE_VIEWS

    if view in STORE_VIEWS:  # row kernels on FRACTAL_NZ
        STORE_VIEWS[view](op, v, dst, idx)
        return
    if view == kernel.StoreView.scan_rows:
        _scan_rows(op, dst, idx, v)
        return
    raise SemanticsError(op, f"{op.name}: view '{view}' cannot store")


def _device_storage(op: kernel.LoadOp, src: np.ndarray) -> np.ndarray:
    """The `from_origin` view's source: the row-major src as the device storage the converting
    DMA writes (padding zero), of the shape param `dst_shape`."""
    assert op.src_format is not None and op.dst_format is not None
    dev = to_storage(src, Format(op.dst_format.data), Format(op.src_format.data))
    want = tuple(op.param("dst_shape"))
    if tuple(dev.shape) != want:
        raise SemanticsError(op, f"{op.name}: {op.src_format.data} {list(src.shape)} converts to "
                                 f"{op.dst_format.data} {list(dev.shape)}, not the view's {list(want)}")
    return dev


def _store_to_origin(op: kernel.StoreOp, v: np.ndarray, dst: np.ndarray,
                     idx: tuple[int, ...]) -> None:
    """The `to_origin` view: v placed by the `src_view` store into the source storage, then each
    placed element that is not padding copied to its origin position in the row-major dst."""
    assert op.src_view is not None and op.src_format is not None and op.dst_format is not None
    src_shape = tuple(op.param("src_shape"))
    fmt, ofmt = op.src_format.data, op.dst_format.data
    src_view = op.src_view.data
    scratch = np.zeros(src_shape, dst.dtype)
    placed = np.zeros(src_shape, np.float32)
    store(op, v, scratch, idx, src_view)
    store(op, np.ones(v.shape, np.float32), placed, idx, src_view)
    where = from_storage(np.arange(placed.size).reshape(src_shape), Format(fmt), Format(ofmt),
                         tuple(dst.shape)).reshape(-1)  # origin position -> storage position
    keep = placed.reshape(-1)[where] != 0
    dst.reshape(-1)[keep] = scratch.reshape(-1)[where[keep]]


def _scan_rows(op, gm: np.ndarray, idx: tuple[int, ...], tile: np.ndarray) -> np.ndarray:
    """The `scan_rows` view: gm as [rows, length, inner]; tile [tile, chunk, inner] holds rows
    [t, +tile) at positions [l, +chunk), counted from the last position when `reverse` = 1.  A
    load (tile is the zero-filled result) copies GM into the tile, a store (tile is the value)
    the tile into GM; both clipped at the ends."""
    t, l0 = idx
    rows, length, inner = op.param("rows"), op.param("length"), op.param("inner")
    view = gm.reshape(rows, length, inner)
    nr, nl = min(tile.shape[0], rows - t), min(tile.shape[1], length - l0)
    if nr <= 0 or nl <= 0:
        return tile
    pos = np.arange(l0, l0 + nl)
    if op.param("reverse", 0):
        pos = length - 1 - pos
    if isinstance(op, kernel.LoadOp):
        tile[:nr, :nl] = view[t:t + nr][:, pos]
    else:
        view[t:t + nr, pos] = tile[:nr, :nl].astype(gm.dtype)
    return tile


def _pad_mask(dst: np.ndarray, t) -> None:
    """Zero the padding of a formatted result of type t (elementwise kernels may write f(0) != 0
    there)."""
    f = format_of(t)
    if f is None or f.origin_fmt is None or f.fmt == f.origin_fmt:
        return
    if f.fmt == Format.NC1HWC0:
        c = f.origin[3] if f.origin_fmt == Format.NHWC else f.origin[1]
        c1, c0 = dst.shape[1], dst.shape[4]
        if c < c1 * c0:
            flat = dst.transpose(0, 1, 4, 2, 3).reshape(dst.shape[0], c1 * c0, -1)
            mask = np.arange(c1 * c0) >= c
            tmp = flat.copy()
            tmp[:, mask, :] = 0
            dst[...] = tmp.reshape(dst.shape[0], c1, c0, dst.shape[2], dst.shape[3]).transpose(0, 1, 3, 4, 2)
    elif f.fmt == Format.FRACTAL_NZ:
        m, k = f.origin[-2], f.origin[-1]
        *_, k1, m1, m0, c0 = dst.shape
        rows = np.arange(m1 * m0).reshape(m1, m0)
        cols = np.arange(k1 * c0).reshape(k1, c0)
        bad = (cols[:, None, None, :] >= k) | (rows[None, :, :, None] >= m)
        dst[..., bad] = 0


def vec(op: kernel.VecOp, args: tuple[np.ndarray, ...]) -> np.ndarray:
    fn = op.fn.data
    rt = op.result.type
    shape, dt = _shape(rt), numpy_dtype(rt.element_type)
    acc = numerics.acc_dtype(dt)
    xs = [a.astype(acc, copy=False) for a in args]
    with np.errstate(all="ignore"):
        if fn == "PoolMax":
            y = xs[0].max(axis=1)
        elif fn == "PoolAvg":
            y = xs[0].sum(axis=1) / np.maximum(xs[1], 1)
        elif fn == "Relu":
            y = np.maximum(xs[0], 0)
        elif fn in ("RowSum", "RowMax", "RowMin", "RowMean", "RowProd"):  # along axis 1 of the tile
            reds: dict[str, Callable[..., Any]] = {"RowSum": np.sum, "RowMax": np.max, "RowMin": np.min,
                                                   "RowMean": np.mean, "RowProd": np.prod}
            cols = op.attrs.data.get("cols")  # the row's leading columns of a wider tile
            x0 = xs[0][:, :int_of(cols)] if cols is not None else xs[0]
            y = reds[fn](x0, axis=1, keepdims=len(shape) == xs[0].ndim)
        elif fn in ("Muls", "Adds"):  # with a scalar
            c = acc.type(num_of(op.attrs.data["value"]))
            y = xs[0] * c if fn == "Muls" else xs[0] + c
        elif fn == "Fill":  # 0, lowest or highest: a reduction's initial accumulator
            f = int_of(op.attrs.data["fill"])
            y = np.full(shape, _fill_value(dt, f), acc)
        elif fn == "Duplicate":  # a scalar broadcast over the tile (AscendC Duplicate)
            y = np.full(shape, num_of(op.attrs.data["value"]), acc)
        elif fn == "Cast":
            y = args[0].astype(dt)
        elif fn == "BroadcastToD":  # fused: x's tile is loaded broadcast to the tile's shape
            y = xs[0]
        elif fn in _PREDICATES:  # comparisons and logic: on the operands' own type, bool result
            y = LIBRARY_SEMANTICS[_PREDICATES[fn]](None, *args)
        elif fn == "SelectV2":
            y = np.where(args[0].astype(bool), xs[1], xs[2])
        elif fn == "ReduceSum":  # over the tile axes `axes`, shaped as the result tile
            y = xs[0].sum(axis=tuple(ints(op.attrs.data["axes"]))).reshape(shape)
        elif fn in ("Cumsum", "Cumprod"):  # along axis 1 of the tile, in order, from the carry
            # y[:, j] = carry + x[:, 0] + ... + x[:, j] (exclusive: up to x[:, j-1]; Cumprod: *)
            scan = (np.cumsum if fn == "Cumsum" else np.cumprod)(
                np.concatenate([xs[1][:, None], xs[0]], axis=1), axis=1, dtype=acc)
            ex = op.attrs.data.get("exclusive")
            y = scan[:, :-1] if ex is not None and int_of(ex) else scan[:, 1:]
        elif fn == "TopKIndices":  # per row (axis 1) of the tile: the k extreme positions, int32
            from compiler.interpreters.cann_impl import top_k_indices

            y = top_k_indices(args[0], int_of(op.attrs.data["k"]),
                              bool(int_of(op.attrs.data["largest"])))
        elif fn == "GatherLanes":  # y[r, j] = x[r, idx[r, j]] (a per-lane gather within the row)
            y = np.take_along_axis(xs[0], args[1].astype(np.intp), axis=1)
        elif fn == "BiasAdd":
            y = xs[0] + xs[1]
        elif fn.startswith("act:"):  # an epilogue activation (cann.Activation), alpha in attrs
            from compiler.interpreters.numerics import activate

            a = op.attrs.data.get("alpha")
            y = activate(xs[0], fn[4:], float(num_of(a)) if a is not None else None)
        else:
            cls = _ELEMENTWISE.get(fn)
            if cls is None:
                raise SemanticsError(op, f"{op.name}: unknown vector function '{fn}'")
            attrs = type("Attrs", (), dict(op.attrs.data))()
            y = LIBRARY_SEMANTICS[cls](attrs, *xs)
    y = np.asarray(y)
    if y.shape != shape:
        y = np.broadcast_to(y, shape)
    return np.ascontiguousarray(y.astype(dt, copy=False))


_ELEMENTWISE = {c.name.removeprefix("cann."): c for c in LIBRARY_SEMANTICS
                if issubclass(c, (_cann.UnaryCannOp, _cann.BinaryCannOp))}
_PREDICATES = {c.name.removeprefix("cann."): c for c in LIBRARY_SEMANTICS
               if issubclass(c, (_cann.CompareCannOp, _cann.LogicalNotOp))}


def _fill_value(dt: np.dtype, fill: int):
    """A reduction's initial value: 0, the lowest, the highest value of dt, or 1 (product)."""
    if fill in (0, 3):
        return {0: 0, 3: 1}[fill]
    info = np.finfo(dt) if np.issubdtype(dt, np.floating) else np.iinfo(dt)
    return info.min if fill == 1 else info.max


@register_impls
class KernelBodyFunctions(InterpreterFunctions):
    def _run_body(self, interp: Interpreter, op: kernel.BodyKernelOp, args):
        y = np.zeros(_shape(op.y.type), result_dtype(op.y.type))
        inplace = op.attributes.get("mem.inplace_of")  # y is operand k's buffer: it holds k's data
        if inplace is not None:
            y[...] = np.asarray(args[int_of(inplace)]).reshape(y.shape)
        # order="C", not ascontiguousarray: that makes a scalar (rank-0 tensor) 1-d
        # extra results (multi-output fusion): stored intermediates, the body's last arguments
        extra = [np.zeros(_shape(r.type), result_dtype(r.type)) for r in op.extra]
        interp.run_ssacfg_region(op.body, (*[np.asarray(a, order="C") for a in args], y, *extra),
                                 op.name)
        if op.kind.data in kernel.ELEMENTWISE_KINDS:
            for buf, r in zip((y, *extra), op.results):
                _pad_mask(buf, r.type)
        return (y, *extra)

    @impl(kernel.CubeKernelOp)
    def run_cube(self, interp: Interpreter, op: kernel.CubeKernelOp, args):
        return self._run_body(interp, op, args)

    @impl(kernel.VectorKernelOp)
    def run_vec_kernel(self, interp: Interpreter, op: kernel.VectorKernelOp, args):
        return self._run_body(interp, op, args)

    @impl(kernel.CoresOp)
    def run_cores(self, interp: Interpreter, op: kernel.CoresOp, args):
        grid, tile = ints(op.grid), ints(op.tile)
        for b in range(int(np.prod(grid))):
            offs, rest = [], b
            for g, t in zip(grid, tile):
                rest, i = divmod(rest, g)
                offs.append(i * t)
            interp.run_ssacfg_region(op.body, tuple(offs), op.name)
        return ()

    @impl(kernel.ForOp)
    def run_for(self, interp: Interpreter, op: kernel.ForOp, args):
        base = int(args[0])
        hi = min(base + op.extent.value.data, op.limit.value.data)
        for iv in range(base, hi, op.step.value.data):
            interp.run_ssacfg_region(op.body, (iv,), op.name)
        return ()

    @impl_terminator(kernel.YieldOp)
    def run_yield(self, interp: Interpreter, op: kernel.YieldOp, args):
        return ReturnedValues(()), ()

    @impl(kernel.IndexOp)
    def run_index(self, interp: Interpreter, op: kernel.IndexOp, args):
        return (op.value.value.data,)

    @impl(kernel.MulIndexOp)
    def run_mul_index(self, interp: Interpreter, op: kernel.MulIndexOp, args):
        return (int(args[0]) * op.by.value.data,)

    @impl(kernel.FmapBaseOp)
    def run_fmap_base(self, interp: Interpreter, op: kernel.FmapBaseOp, args):
        from compiler.target.conv_geometry import fmap_first_row

        (h, w), (ho, wo) = op.param("in_hw"), op.param("out_hw")
        return (fmap_first_row(int(args[0]), h, ho, wo, op.param("strides")[0],
                               op.param("pads")[0]) * w,)

    @impl(kernel.SyncAllOp)
    def run_sync_all(self, interp: Interpreter, op: kernel.SyncAllOp, args):
        return ()  # each kernel.cores phase has run on every core before the next starts

    @impl(kernel.AllocOp)
    def run_alloc(self, interp: Interpreter, op: kernel.AllocOp, args):
        return (np.zeros(_shape(op.result.type), numpy_dtype(op.result.type.element_type)),)

    @impl(kernel.LoadOp)
    def run_load(self, interp: Interpreter, op: kernel.LoadOp, args):
        return (load(op, args[0], tuple(int(i) for i in args[1:])),)

    @impl(kernel.JoinOp)
    def run_join(self, interp: Interpreter, op: kernel.JoinOp, args):
        return (np.concatenate([np.asarray(a) for a in args], axis=0),)

    @impl(kernel.MmadOp)
    def run_mmad(self, interp: Interpreter, op: kernel.MmadOp, args):
        c, a, b = args
        m1, k1, m0, k0 = a.shape
        _, n1, n0, _ = b.shape
        a2 = a.transpose(0, 2, 1, 3).reshape(m1 * m0, k1 * k0).astype(c.dtype, copy=False)
        b2 = b.transpose(0, 3, 1, 2).reshape(k1 * k0, n1 * n0).astype(c.dtype, copy=False)
        prod = a2 @ b2  # [M, N] -> Nz (n1, m1, 16, 16)
        c += prod.reshape(m1, m0, n1, n0).transpose(2, 0, 1, 3)
        return ()

    @impl(kernel.FixpipeOp)
    def run_fixpipe(self, interp: Interpreter, op: kernel.FixpipeOp, args):
        (c,) = args
        n1, m1, m0, n0 = c.shape
        out = c.transpose(1, 2, 0, 3).reshape(m1 * m0, n1 * n0)
        return (out.astype(numpy_dtype(op.result.type.element_type)),)

    @impl(kernel.VecOp)
    def run_vec(self, interp: Interpreter, op: kernel.VecOp, args):
        return (vec(op, args),)

    @impl(kernel.AccumulateOp)
    def run_accumulate(self, interp: Interpreter, op: kernel.AccumulateOp, args):
        acc, v = args
        A = kernel.AccumulateFn
        fns: dict[str, Callable[..., Any]] = {A.Add: np.add, A.Max: np.maximum, A.Min: np.minimum,
                                              A.Mul: np.multiply,
                                              A.Copy: lambda a, b, out: np.copyto(out, b)}
        fn = fns[op.fn.data]
        fn(acc, v.astype(acc.dtype, copy=False), out=acc)
        return ()

    @impl(kernel.GatherOp)
    def run_gather(self, interp: Interpreter, op: kernel.GatherOp, args):
        from compiler.interpreters.kernel_views import gather

        return (gather(op, args[0], args[-1], tuple(int(i) for i in args[1:-1])),)

    @impl(kernel.ScatterOp)
    def run_scatter(self, interp: Interpreter, op: kernel.ScatterOp, args):
        v, dst, ids = args[0], args[1], args[-1]
        (t,) = (int(i) for i in args[2:-1])
        rows, k = op.param("rows"), op.param("num_ids")
        n = max(0, min(v.shape[0], k - t))
        idx = np.asarray(ids).reshape(-1)[:n].astype(np.int64)
        if n and (idx.min() < 0 or idx.max() >= rows):
            raise SemanticsError(op, f"{op.name}: index {int(idx.max())} is outside the {rows} rows")
        flat = dst.reshape(rows, -1)
        flat[idx] = v[:n].reshape(n, -1).astype(dst.dtype)
        return ()

    @impl(kernel.ViewOp)
    def run_view(self, interp: Interpreter, op: kernel.ViewOp, args):
        return (np.asarray(args[0]).reshape(_shape(op.y.type)),)

    @impl(kernel.StoreOp)
    def run_store(self, interp: Interpreter, op: kernel.StoreOp, args):
        store(op, args[0], args[1], tuple(int(i) for i in args[2:]))
        return ()




# --- host-side control flow (kernel.if / kernel.case / kernel.while) -------------------------------

@register_impls
class KernelControlFunctions(InterpreterFunctions):
    """The host reads the predicate / branch index and runs the named function's kernels
    (semantics as cann.If / Case / While: compiler/interpreters/cann_impl.py)."""

    @impl(kernel.IfKernelOp)
    def run_if(self, interp: Interpreter, op: kernel.IfKernelOp, args):
        from compiler.interpreters.cann_impl import run_if

        return run_if(interp, op, args)

    @impl(kernel.CaseKernelOp)
    def run_case(self, interp: Interpreter, op: kernel.CaseKernelOp, args):
        from compiler.interpreters.cann_impl import run_case

        return run_case(interp, op, args)

    @impl(kernel.WhileKernelOp)
    def run_while(self, interp: Interpreter, op: kernel.WhileKernelOp, args):
        from compiler.interpreters.cann_impl import run_while

        return run_while(interp, op, args)
