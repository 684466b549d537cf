"""Semantics of the data-movement views of the gather, resize and value/mirror padding kernels
(compiler/conversions/cann_to_kernel/gather.py, resize.py, data_movement.py), used by kernel_impl's load and by
`kernel.gather`.  Each fills a UB tile from a GM buffer in its storage layout; rows past the
tensor's end stay zero (the tile's tail), as every other view."""

from __future__ import annotations

import numpy as np

from compiler.interpreters.common import SemanticsError


def resize_source(out_size: int, in_size: int, align_corners: bool, half_pixel: bool,
                  nearest: bool):
    """TensorFlow's source coordinates (image_resizer_state.h, float32 as its kernels compute):
    bilinear -> (lower, upper, lerp weight); nearest -> index."""
    if align_corners and out_size > 1:
        scale = np.float32(in_size - 1) / np.float32(out_size - 1)
    else:
        scale = np.float32(in_size) / np.float32(out_size)
    i = np.arange(out_size, dtype=np.float32)
    if nearest:
        src = (i + np.float32(0.5)) * scale if half_pixel else i * scale
        idx = np.floor(src + np.float32(0.5)) if align_corners else np.floor(src)  # roundf
        idx = np.minimum(idx.astype(np.int64), in_size - 1)
        return np.maximum(idx, 0)
    src = (i + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else i * scale
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lower, upper, (src - floor).astype(np.float32)


def _resize_pixels(op, src: np.ndarray, t: int, tile: int):
    """(x as (N, C1, H, W, inner), output pixel coordinates n, c1, oh, ow of rows [t, +tile))."""
    oh_, ow_ = op.param("out_hw")
    if src.ndim == 4:  # NHWC row-major: one "C1" block of C lanes
        src = src[:, None]
    n_, c1_ = src.shape[:2]
    rows = np.arange(t, min(t + tile, n_ * c1_ * oh_ * ow_))
    nc, rem = np.divmod(rows, oh_ * ow_)
    nn, cc = np.divmod(nc, c1_)
    oh, ow = np.divmod(rem, ow_)
    return src, nn, cc, oh, ow


def _resize_rows(op, src, idx, out):
    (t,) = idx
    x, nn, cc, oh, ow = _resize_pixels(op, src, t, out.shape[0])
    h, w = x.shape[2:4]
    oh_, ow_ = op.param("out_hw")
    ac, hp, corner = bool(op.param("align_corners")), bool(op.param("half_pixel_centers")), \
        op.param("corner")
    if corner < 0:
        hi = resize_source(oh_, h, ac, hp, True)[oh]
        wi = resize_source(ow_, w, ac, hp, True)[ow]
    else:
        hi = resize_source(oh_, h, ac, hp, False)[corner // 2][oh]
        wi = resize_source(ow_, w, ac, hp, False)[corner % 2][ow]
    out[:nn.size] = x[nn, cc, hi, wi]
    return out


def _resize_weights(op, src, idx, out):
    (t,) = idx
    x, nn, _, oh, ow = _resize_pixels(op, src, t, out.shape[0])
    oh_, ow_ = op.param("out_hw")
    ac, hp = bool(op.param("align_corners")), bool(op.param("half_pixel_centers"))
    if op.param("axis") == 0:
        lerp = resize_source(oh_, x.shape[2], ac, hp, False)[2][oh]
    else:
        lerp = resize_source(ow_, x.shape[3], ac, hp, False)[2][ow]
    out[:nn.size, 0] = lerp
    return out


def _reflect(c: np.ndarray, d: int, mode: int) -> np.ndarray:
    """Source coordinate of padded coordinate c (already shifted by the before-pad) on an axis of
    length d: REFLECT (1) does not repeat the edge, SYMMETRIC (2) does."""
    if mode == 1:
        c = np.where(c < 0, -c, c)
        return np.where(c >= d, 2 * (d - 1) - c, c)
    c = np.where(c < 0, -c - 1, c)
    return np.where(c >= d, 2 * d - 1 - c, c)


def _padded_rows(op, src, idx, out):
    (t,) = idx
    pads, mode = op.param("pads"), op.param("mode")
    dst_shape = tuple(op.param("shape"))
    lead = dst_shape[:-1]
    r = np.arange(t, min(t + out.shape[0], int(np.prod(lead))))
    coords = list(np.unravel_index(r, lead)) if lead else []
    cols = np.arange(dst_shape[-1]) - pads[-2]
    ok = np.ones((r.size, dst_shape[-1]), bool)
    src_idx = []
    for ax, c in enumerate([*coords, cols]):
        s_ = c - pads[2 * ax] if ax < len(coords) else c
        d = src.shape[ax]
        if mode:
            s_ = _reflect(s_, d, mode)
        elif ax < len(coords):
            ok &= ((s_ >= 0) & (s_ < d))[:, None]
        else:
            ok &= ((s_ >= 0) & (s_ < d))[None, :]
        src_idx.append(np.clip(s_, 0, d - 1))
    grid = tuple(i[:, None] for i in src_idx[:-1]) + (src_idx[-1][None, :],)
    vals = src[grid] if src.ndim else np.broadcast_to(src, ok.shape)
    if mode == 0:
        fill = op.params.data["value"].value.data
        vals = np.where(ok, vals, np.asarray(fill).astype(out.dtype))
    out[:r.size] = vals
    return out


#: view name -> fn(load op, GM source, indices, zero tile) -> filled tile
LOAD_VIEWS = {"resize_rows": _resize_rows, "resize_weights": _resize_weights,
              "padded_rows": _padded_rows}


def gather(op, src: np.ndarray, ids: np.ndarray, idx: tuple[int, ...]) -> np.ndarray:
    """kernel.gather: rows [t, +tile) of take(x, ids) viewed as [outer * M, inner]."""
    from dialects.common import numpy_dtype

    (t,) = idx
    rt = op.result.type
    out = np.zeros(tuple(rt.get_shape()), numpy_dtype(rt.element_type))
    axis_len, m, inner = op.param("axis_len"), op.param("num_ids"), op.param("inner")
    if src.size % (axis_len * inner):
        raise SemanticsError(op, f"{op.name}: x of {src.size} elements is not [outer, "
                                 f"{axis_len}, {inner}]")
    x = src.reshape(-1, axis_len, inner)
    rows = np.arange(t, min(t + out.shape[0], x.shape[0] * m))
    i = ids.reshape(-1)[:rows.size].astype(np.int64)
    ok = (i >= 0) & (i < axis_len)
    vals = x[rows // m, np.clip(i, 0, axis_len - 1)]
    out.reshape(out.shape[0], -1)[:rows.size] = np.where(ok[:, None], vals, 0)
    return out


def _nz_tile_rows(op, shape, idx, tile_rows):
    """Rows [t, +tile_rows) of a FRACTAL_NZ (..., K1, M1, 16, C0) tensor's padded row space
    (B * M1 * 16 rows, batch-major): (batch index, m1, m0, valid-row mask) of each row."""
    (t,) = idx
    k1, m1, m0, _ = shape[-4:]
    n = int(np.prod(shape[:-4], dtype=np.int64)) * m1 * m0
    r = np.arange(t, min(t + tile_rows, n))
    b, rem = np.divmod(r, m1 * m0)
    m, r0 = np.divmod(rem, m0)
    return b, m, r0, rem < op.param("rows")


def _nz_origin_rows(op, src, idx, out):
    """Rows of a FRACTAL_NZ (..., K1, M1, 16, C0) tensor as [tile, K] row-major rows of its
    origin (..., M, K): row r of the padded row space = batch r // (M1*16), origin row
    r % (M1*16) = m1*16 + m0, i.e. NZ[b, :, m1, m0, :] (all K1 column blocks side by side); the
    columns past K (`cols`) are dropped and the rows past M (`rows`) are zero."""
    k1, m1, m0, c0 = src.shape[-4:]
    x = src.reshape(-1, k1, m1, m0, c0)
    b, m, r0, ok = _nz_tile_rows(op, src.shape, idx, out.shape[0])
    k = op.param("cols")
    rows = x[b, :, m, r0].reshape(b.size, k1 * c0)[:, :k]
    out[:b.size] = np.where(ok[:, None], rows, 0)
    return out


LOAD_VIEWS["nz_origin_rows"] = _nz_origin_rows


def _store_nz_origin_rows(op, v, dst, idx):
    """The inverse of the `nz_origin_rows` load: each row is written across all K1 column
    blocks, the columns past K and the rows past M as zeros, so the padding of the result is
    zero whatever the buffer held before (an arena reuses memory)."""
    k1, m1, m0, c0 = dst.shape[-4:]
    y = dst.reshape(-1, k1, m1, m0, c0)
    b, m, r0, ok = _nz_tile_rows(op, dst.shape, idx, v.shape[0])
    k = op.param("cols")
    full = np.zeros((b.size, k1 * c0), dst.dtype)
    full[:, :k] = v[:b.size]
    full[~ok] = 0
    y[b, :, m, r0] = full.reshape(b.size, k1, c0)


#: view name -> fn(store op, UB tile, GM destination (written in place), indices)
STORE_VIEWS = {"nz_origin_rows": _store_nz_origin_rows}


def _nc1hwc0_tile_rows(shape, idx, tile_rows):
    """Rows [t, +tile_rows) of an NC1HWC0 (N, C1, H, W, C0) tensor's origin rows (n, h, w)
    (N*H*W rows, NHWC order): (n, h, w) of each row."""
    (t,) = idx
    n_, _, h_, w_, _ = shape
    r = np.arange(t, min(t + tile_rows, n_ * h_ * w_))
    n, rem = np.divmod(r, h_ * w_)
    h, w = np.divmod(rem, w_)
    return n, h, w


def _nc1hwc0_rows(op, src, idx, out):
    """Rows of an NC1HWC0 (N, C1, H, W, C0) tensor as [tile, C] rows of its NHWC origin: row
    (n, h, w) = x[n, :, h, w, :], the C1 blocks of C0 lanes side by side, the padding lanes of
    the last block (channels past `channels`) dropped, so a row statistic sees exactly C values
    whatever C mod C0; rows past N*H*W are zero."""
    n, h, w = _nc1hwc0_tile_rows(src.shape, idx, out.shape[0])
    c1, c0 = src.shape[1], src.shape[4]
    rows = src[n, :, h, w, :].reshape(n.size, c1 * c0)[:, :op.param("channels")]
    out[:n.size] = rows
    return out


def _store_nc1hwc0_rows(op, v, dst, idx):
    """The inverse of the `nc1hwc0_rows` load: each row (n, h, w) is written across all C1
    blocks, the padding lanes as zeros (the format's rule, whatever the buffer held)."""
    n, h, w = _nc1hwc0_tile_rows(dst.shape, idx, v.shape[0])
    c1, c0 = dst.shape[1], dst.shape[4]
    full = np.zeros((n.size, c1 * c0), dst.dtype)
    full[:, :op.param("channels")] = v[:n.size]
    dst[n, :, h, w, :] = full.reshape(n.size, c1, c0)


def _nc1hwc0_pixels(op, src, idx, out):
    """An NC1HWC0 tensor as [N/g, g*H*W, C1*C0] (g = param `images`, 1 by default: the pixels
    of g consecutive images form one row): with g = 1, out[i, j, k] = x[n+i, (c+k) // C0,
    (p+j) // W, (p+j) % W, (c+k) % C0]; zero past the end of each axis."""
    n0, p0, c0_ = (int(i) for i in idx)
    n_, c1, h_, w_, c0 = src.shape
    g = op.param("images", 1)
    v = src.transpose(0, 2, 3, 1, 4).reshape(n_ // g, g * h_ * w_, c1 * c0)
    v = v[n0:n0 + out.shape[0], p0:p0 + out.shape[1], c0_:c0_ + out.shape[2]]
    out[:v.shape[0], :v.shape[1], :v.shape[2]] = v
    return out


LOAD_VIEWS["nc1hwc0_pixels"] = _nc1hwc0_pixels
LOAD_VIEWS["nc1hwc0_rows"] = _nc1hwc0_rows
STORE_VIEWS["nc1hwc0_rows"] = _store_nc1hwc0_rows


def _store_concat_c0(op, v, dst, idx):
    """concat_c0: a flat tile (elements [t, +tile)) of input i, stored NC1HWC0 (N, C1_i, HW, C0),
    into a concat over C whose channel offset is off the C0 grid: channel c of the input goes
    to channel offset + c of dst (N, C1, H, W, C0); padding lanes are skipped, but the last
    input writes its own (zero) padding lanes over the result's padding."""
    (t,) = idx
    off, ch, c1, hw, last = (int(op.param(k)) for k in ("offset", "channels", "c1", "hw", "last"))
    c0 = dst.shape[-1]
    total = dst.shape[0] * c1 * hw * c0
    n = min(v.shape[0], total - t)
    if n <= 0:
        return
    p = np.arange(t, t + n)
    rest, lane = np.divmod(p, c0)
    rest, s = np.divmod(rest, hw)
    nn, b = np.divmod(rest, c1)
    c = b * c0 + lane
    out_c = off + c
    keep = (c < ch) | (bool(last) & (out_c < dst.shape[1] * c0))
    flat = dst.reshape(dst.shape[0], dst.shape[1], hw, c0)
    flat[nn[keep], out_c[keep] // c0, s[keep], out_c[keep] % c0] = v[:n][keep].astype(dst.dtype)


STORE_VIEWS["concat_c0"] = _store_concat_c0


def _split_c0(op, src, idx, out):
    """split_c0: a flat tile (elements [t, +tile)) of one part of a split over C of an NC1HWC0
    x (N, C1x, H, W, C0) at a channel offset off the C0 grid: channel c of the part (stored
    (N, C1, HW, C0)) is channel offset + c of x; padding lanes are zero."""
    (t,) = idx
    off, ch, c1, hw = (int(op.param(k)) for k in ("offset", "channels", "c1", "hw"))
    c0 = src.shape[-1]
    total = src.shape[0] * c1 * hw * c0
    n = min(out.shape[0], total - t)
    if n <= 0:
        return out
    p = np.arange(t, t + n)
    rest, lane = np.divmod(p, c0)
    rest, s = np.divmod(rest, hw)
    nn, b = np.divmod(rest, c1)
    c = b * c0 + lane
    keep = c < ch
    xc = np.where(keep, off + c, 0)
    x = src.reshape(src.shape[0], src.shape[1], hw, c0)
    out[:n] = np.where(keep, x[nn, xc // c0, s, xc % c0], 0).astype(out.dtype)
    return out


LOAD_VIEWS["split_c0"] = _split_c0


def _img2col_cols(op, g: int, cols: np.ndarray, c0: int):
    """(channel of x, channel inside the group, kernel row, kernel column) of img2col columns."""
    kh, kw = op.param("kernel_hw")
    kc1, rem = np.divmod(cols, kh * kw * c0)
    ki, rem3 = np.divmod(rem, kw * c0)
    kj, kc0 = np.divmod(rem3, c0)
    ci = kc1 * c0 + kc0
    return g * op.param("cin_group") + ci, ci, ki, kj


def _img2col_channel(op, src: np.ndarray, idx, out):
    """A per-channel vector (ND, last axis C; one element: a scalar) broadcast to the img2col
    tile A[M, K]: element (m, k) = v[channel of column k], 0 past C (a fused conv prologue's
    channel operand, compiler/conversions/cann_to_kernel/cube.py); with `channel_offset`,
    v[channel_offset + channel], 0 past cin."""
    g, m0, k0_ = idx
    v = np.asarray(src).reshape(-1)
    rows = np.arange(m0, min(m0 + out.shape[0], op.param("M")))
    cols = np.arange(k0_, min(k0_ + out.shape[1], op.param("K")))
    ch, _, _, _ = _img2col_cols(op, g, cols, op.param("c0"))
    off = op.param("channel_offset")
    if off is not None:  # v[off:off + cin] (a depthwise filter tap's row of HWCN weights)
        cin = op.param("cin")
        vals = np.where(ch < cin, v[off + np.minimum(ch, cin - 1)], 0)
    elif v.size == 1:
        vals = np.full(cols.size, v[0])
    else:
        vals = np.where(ch < v.size, v[np.minimum(ch, v.size - 1)], 0)
    out[:rows.size, :cols.size] = vals[None, :]
    return out


def _img2col_valid(op, src: np.ndarray, idx, out):
    """1 where the img2col tile A[M, K] of x (NC1HWC0) reads an element of x, 0 at conv pads,
    channel padding lanes (channel >= cin or past the group) and past M, K: the mask that keeps
    a fused prologue's padding zero (f(0) need not be 0).  in_hw: the extent of the tensor the
    conv reads when src is another one (a pool prologue's input)."""
    g, m0, k0_ = idx
    _, _, h_, w_, c0 = src.shape
    h_, w_ = op.param("in_hw", (h_, w_))
    sh, sw = op.param("strides")
    dh, dw = op.param("dilations")
    pt, _, pl, _ = op.param("pads")
    ho, wo = op.param("out_hw")
    rows = np.arange(m0, min(m0 + out.shape[0], op.param("M")))
    cols = np.arange(k0_, min(k0_ + out.shape[1], op.param("K")))
    ch, ci, ki, kj = _img2col_cols(op, g, cols, c0)
    rem = rows % (ho * wo)
    hh, ww = np.divmod(rem, wo)
    hi = (hh * sh - pt)[:, None] + (ki * dh)[None, :]
    wi = (ww * sw - pl)[:, None] + (kj * dw)[None, :]
    ok = (hi >= 0) & (hi < h_) & (wi >= 0) & (wi < w_) & \
        ((ci < op.param("cin_group")) & (ch < op.param("cin")))[None, :]
    out[:rows.size, :cols.size] = ok
    return out


LOAD_VIEWS["img2col_channel"] = _img2col_channel
LOAD_VIEWS["img2col_valid"] = _img2col_valid


def _window_channels(out) -> np.ndarray:
    """The channel of each lane of a feature-map window tile (C1, rows, W, C0)."""
    c1_, _, _, c0 = out.shape
    return (np.arange(c1_)[:, None] * c0 + np.arange(c0)[None, :])[:, None, None, :]


def _fmap_channel(op, src: np.ndarray, idx, out):
    """A per-channel vector (ND, last axis C; one element: a scalar) broadcast to the window
    tile (C1, rows, W, C0) of view fmap: element (c1, r, w, c0) = v[c1*C0 + c0], 0 past C (a
    fused conv prologue's channel operand on x's rows, compiler/conversions/cann_to_kernel/cube.py)."""
    v = np.asarray(src).reshape(-1)
    ch = np.broadcast_to(_window_channels(out), out.shape)
    out[...] = v[0] if v.size == 1 else np.where(ch < v.size, v[np.minimum(ch, v.size - 1)], 0)
    return out


def _fmap_valid(op, src: np.ndarray, idx, out):
    """1 on the lanes of the window tile (C1, rows, W, C0) that hold a channel of x (< cin), 0
    on its channel padding lanes: the mask that keeps them zero after a prologue (f(0) need not
    be 0, nor finite, and Load3D moves whole C0 blocks)."""
    out[...] = np.broadcast_to(_window_channels(out) < op.param("cin"), out.shape)
    return out


LOAD_VIEWS["fmap_channel"] = _fmap_channel
LOAD_VIEWS["fmap_valid"] = _fmap_valid


def channel_of(pos: np.ndarray, shape: tuple[int, ...], layout: int) -> np.ndarray:
    """The channel of flat storage positions `pos` of a tensor stored as `shape`: layout 1
    NC1HWC0 (c1*C0 + c0), 2 NCHW (axis 1), 3 FRACTAL_NZ (..., K1, M1, 16, C0) (column
    k1*C0 + c0), 0 the last axis."""
    if layout == 1:
        _, c1, h, w, c0 = shape
        return (pos // (h * w * c0)) % c1 * c0 + pos % c0
    if layout == 2:
        return (pos // int(np.prod(shape[2:]))) % shape[1]
    if layout == 3:
        k1, m1, m0, c0 = shape[-4:]
        return (pos // (m1 * m0 * c0)) % k1 * c0 + pos % c0
    return pos % shape[-1]


def _chunk_positions(op, idx, out) -> tuple[np.ndarray, np.ndarray]:
    """The flat storage positions of the [tile, chunk, inner] chunk_rows tile at [t, l] of a
    tensor viewed as [rows, length, inner], and where each lies inside it (l < length, the row
    < rows)."""
    t, l0 = idx
    rows, length, inner = op.param("rows"), op.param("length"), op.param("inner")
    r = np.arange(t, t + out.shape[0])[:, None, None]
    pos_l = np.arange(l0, l0 + out.shape[1])[None, :, None]
    i = np.arange(out.shape[2])[None, None, :]
    inside = (r < rows) & (pos_l < length) & (i < inner)
    return ((r * length + pos_l) * inner + i), inside


def _chunk_channel(op, src: np.ndarray, idx, out):
    """A per-channel vector ([C] / [1, .., 1, C]; one element: a scalar) broadcast to the
    chunk_rows tile of a tensor stored as `shape` (its channels by `layout`, as channel_flat):
    element (r, l, i) = v[channel of that position], 0 past C (a reduction's fused prologue's
    channel operand, compiler/conversions/cann_to_kernel/vector.py)."""
    v = np.asarray(src).reshape(-1)
    pos, inside = _chunk_positions(op, idx, out)
    if v.size == 1:
        vals = np.full(pos.shape, v[0])
    else:
        ch = channel_of(pos, tuple(op.param("shape")), op.param("layout"))
        vals = np.where(ch < v.size, v[np.minimum(ch, v.size - 1)], 0)
    out[...] = np.where(inside, vals, 0)
    return out


def _chunk_valid(op, src: np.ndarray, idx, out):
    """1 where the chunk_rows tile of x (stored as `shape`) holds an element of x: inside
    [rows, length, inner] and, on NC1HWC0 (layout 1), a lane below `channels`; 0 at channel
    padding lanes and past the ends (the mask that gives a reduction's fused prologue the
    unfused kernel's input: f(0) need not be 0)."""
    pos, inside = _chunk_positions(op, idx, out)
    ok = inside
    if op.param("layout") == 1:
        ok = ok & (channel_of(pos, tuple(op.param("shape")), 1) < op.param("channels"))
    out[...] = ok
    return out


def _flat_valid(op, src: np.ndarray, idx, out):
    """1 where flat storage position t.. of a tensor stored as `shape` holds a channel below
    `channels` (channels by `layout`, channel_of), 0 at channel padding lanes and past the end
    (the mask that keeps a fused body's f(0) out of the padding lanes a kernel stores)."""
    (t,) = idx
    shape = tuple(op.param("shape"))
    pos = np.arange(t, t + out.shape[0])
    ok = (pos < int(np.prod(shape))) & (channel_of(pos, shape, op.param("layout")) < op.param("channels"))
    out[...] = ok
    return out


LOAD_VIEWS["flat_valid"] = _flat_valid
LOAD_VIEWS["chunk_channel"] = _chunk_channel
LOAD_VIEWS["chunk_valid"] = _chunk_valid


def _register_aipp_views() -> None:  # static AIPP's source views (compiler/interpreters/aipp_impl.py)
    from compiler.interpreters.aipp_impl import VIEWS

    LOAD_VIEWS.update(VIEWS)


_register_aipp_views()
