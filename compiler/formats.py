"""Ascend tensor formats: storage shapes and index maps.

Every formula here is the one in `shared/reference/cann-facts.md` sections 1-3 (GE's
`format_transfer_*.cc`): padding beyond the original extent is zero.  These functions are the
single source of layout truth for the passes (storage types, compile-time weight conversion)
and for the interpreters (TransData and kernel semantics).
"""

from __future__ import annotations

from enum import Enum

import numpy as np


class Format(str, Enum):
    """Format names and GE format ids (metadef `c_types.h`)."""

    NCHW = "NCHW"
    NHWC = "NHWC"
    ND = "ND"
    NC1HWC0 = "NC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"
    HWCN = "HWCN"
    FRACTAL_NZ = "FRACTAL_NZ"

    @property
    def ge_id(self) -> int:
        return {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4,
                "HWCN": 16, "FRACTAL_NZ": 29}[self.value]


FORMAT_NAMES = tuple(f.value for f in Format)

N0 = 16  # the cube's row block (FRACTAL_Z N0, FRACTAL_NZ M0)


def c0_for(dtype: np.dtype | str) -> int:
    """C0 by element type: 16 for fp16/bf16/fp32, 32 for int8/uint8 (GetCubeSizeByDataType)."""
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name in ("int8", "uint8", "i8", "ui8"):
        return 32
    return 16


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _pad_axis(a: np.ndarray, axis: int, size: int) -> np.ndarray:
    extra = size - a.shape[axis]
    if extra == 0:
        return a
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, extra)
    return np.pad(a, widths)


# --- NC1HWC0 -------------------------------------------------------------------------------

def nc1hwc0_shape(n: int, c: int, h: int, w: int, c0: int) -> tuple[int, ...]:
    return (n, ceil_div(c, c0), h, w, c0)


def nchw_to_nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    """dst[n][c1][h][w][c0] = src[n][c1*C0+c0][h][w], zero where c1*C0+c0 >= C."""
    n, c, h, w = x.shape
    c1 = ceil_div(c, c0)
    x = _pad_axis(x, 1, c1 * c0)
    return np.ascontiguousarray(x.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))


def nhwc_to_nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    return nchw_to_nc1hwc0(x.transpose(0, 3, 1, 2), c0)


def nc1hwc0_to_nchw(x: np.ndarray, c: int) -> np.ndarray:
    n, c1, h, w, c0 = x.shape
    return np.ascontiguousarray(x.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :c])


def nc1hwc0_to_nhwc(x: np.ndarray, c: int) -> np.ndarray:
    return np.ascontiguousarray(nc1hwc0_to_nchw(x, c).transpose(0, 2, 3, 1))


# --- FRACTAL_Z (conv weights) --------------------------------------------------------------

def fractal_z_shape(cout: int, cin: int, kh: int, kw: int, c0: int) -> tuple[int, ...]:
    return (ceil_div(cin, c0) * kh * kw, ceil_div(cout, N0), N0, c0)


def nchw_to_fractal_z(w: np.ndarray, c0: int) -> np.ndarray:
    """FZ[(c1*H + h)*W + w][n1][n0][c0] = W_nchw[n1*16+n0][c1*C0+c0][h][w] (0 out of range)."""
    n, c, kh, kw = w.shape
    c1, n1 = ceil_div(c, c0), ceil_div(n, N0)
    w = _pad_axis(_pad_axis(w, 0, n1 * N0), 1, c1 * c0)
    # (n1, n0, c1, c0, h, w) -> (c1, h, w, n1, n0, c0)
    w = w.reshape(n1, N0, c1, c0, kh, kw).transpose(2, 4, 5, 0, 1, 3)
    return np.ascontiguousarray(w.reshape(c1 * kh * kw, n1, N0, c0))


def hwcn_to_fractal_z(w: np.ndarray, c0: int) -> np.ndarray:
    """TF filters are HWCN: W_nchw[n][c][h][w] = W_hwcn[h][w][c][n]."""
    return nchw_to_fractal_z(w.transpose(3, 2, 0, 1), c0)


def fractal_z_to_nchw(fz: np.ndarray, cout: int, cin: int, kh: int, kw: int) -> np.ndarray:
    c1hw, n1, n0, c0 = fz.shape
    c1 = c1hw // (kh * kw)
    w = fz.reshape(c1, kh, kw, n1, n0, c0).transpose(3, 4, 0, 5, 1, 2)
    return np.ascontiguousarray(w.reshape(n1 * n0, c1 * c0, kh, kw)[:cout, :cin])


def fractal_z_to_hwcn(fz: np.ndarray, cout: int, cin: int, kh: int, kw: int) -> np.ndarray:
    return np.ascontiguousarray(fractal_z_to_nchw(fz, cout, cin, kh, kw).transpose(2, 3, 1, 0))


# --- FRACTAL_NZ (matmul operands) ----------------------------------------------------------

def fractal_nz_shape(shape: tuple[int, ...], c0: int) -> tuple[int, ...]:
    *batch, m, k = shape
    return (*batch, ceil_div(k, c0), ceil_div(m, N0), N0, c0)


def nd_to_fractal_nz(x: np.ndarray, c0: int) -> np.ndarray:
    """NZ[..., k1, m1, m0, k0] = ND[..., m1*16+m0, k1*C0+k0]."""
    *batch, m, k = x.shape
    m1, k1 = ceil_div(m, N0), ceil_div(k, c0)
    x = _pad_axis(_pad_axis(x, -2, m1 * N0), -1, k1 * c0)
    nb = len(batch)
    x = x.reshape(*batch, m1, N0, k1, c0)
    perm = (*range(nb), nb + 2, nb, nb + 1, nb + 3)
    return np.ascontiguousarray(x.transpose(perm))


def fractal_nz_to_nd(x: np.ndarray, m: int, k: int) -> np.ndarray:
    *batch, k1, m1, m0, c0 = x.shape
    nb = len(batch)
    perm = (*range(nb), nb + 1, nb + 2, nb, nb + 3)
    x = x.transpose(perm).reshape(*batch, m1 * m0, k1 * c0)
    return np.ascontiguousarray(x[..., :m, :k])


# --- shape rules used to build storage types -----------------------------------------------

def storage_shape(fmt: Format, origin_format: Format, origin_shape: tuple[int, ...],
                  dtype: np.dtype | str) -> tuple[int, ...]:
    """The storage shape of a tensor of `origin_shape` in `origin_format` stored as `fmt`."""
    c0 = c0_for(dtype)
    if fmt in (Format.ND, Format.NHWC, Format.NCHW, Format.HWCN) and fmt == origin_format:
        return tuple(origin_shape)
    if fmt == Format.NC1HWC0:
        n, c, h, w = _as_nchw(origin_format, origin_shape)
        return nc1hwc0_shape(n, c, h, w, c0)
    if fmt == Format.FRACTAL_Z:
        if origin_format not in (Format.HWCN, Format.NCHW):
            raise ValueError(f"FRACTAL_Z from {origin_format.value} is not supported")
        if len(origin_shape) != 4:
            raise ValueError(f"a {origin_format.value} filter has 4 dimensions, got {len(origin_shape)}")
        if origin_format == Format.HWCN:
            kh, kw, cin, cout = origin_shape
        else:
            cout, cin, kh, kw = origin_shape
        return fractal_z_shape(cout, cin, kh, kw, c0)
    if fmt == Format.FRACTAL_NZ:
        if len(origin_shape) < 2:
            raise ValueError(f"FRACTAL_NZ needs rank >= 2, got {len(origin_shape)}")
        return fractal_nz_shape(tuple(origin_shape), c0)
    raise ValueError(f"no storage rule from {origin_format.value} to {fmt.value}")


def _as_nchw(fmt: Format, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    if fmt in (Format.NHWC, Format.NCHW) and len(shape) != 4:
        raise ValueError(f"a {fmt.value} shape has 4 dimensions, got {len(shape)}")
    if fmt == Format.NHWC:
        n, h, w, c = shape
    elif fmt == Format.NCHW:
        n, c, h, w = shape
    else:
        raise ValueError(f"NC1HWC0 from {fmt.value} is not supported")
    return n, c, h, w


def to_storage(x: np.ndarray, fmt: Format, origin_format: Format) -> np.ndarray:
    """Convert an origin-format array to its storage format (TransData on the host)."""
    c0 = c0_for(x.dtype)
    if fmt == origin_format:
        return x
    if fmt == Format.NC1HWC0:
        if origin_format == Format.NHWC:
            return nhwc_to_nc1hwc0(x, c0)
        if origin_format == Format.NCHW:
            return nchw_to_nc1hwc0(x, c0)
    if fmt == Format.FRACTAL_Z:
        if origin_format == Format.HWCN:
            return hwcn_to_fractal_z(x, c0)
        if origin_format == Format.NCHW:
            return nchw_to_fractal_z(x, c0)
    if fmt == Format.FRACTAL_NZ:
        return nd_to_fractal_nz(x, c0)
    raise ValueError(f"no TransData from {origin_format.value} to {fmt.value}")


def from_storage(x: np.ndarray, fmt: Format, origin_format: Format,
                 origin_shape: tuple[int, ...]) -> np.ndarray:
    """Convert a storage-format array back to its origin format and shape."""
    if fmt == origin_format:
        return x
    if fmt == Format.NC1HWC0:
        n, c, h, w = _as_nchw(origin_format, origin_shape)
        nchw = nc1hwc0_to_nchw(x, c)
        return np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)) if origin_format == Format.NHWC else nchw
    if fmt == Format.FRACTAL_Z:
        if origin_format == Format.HWCN:
            kh, kw, cin, cout = origin_shape
            return fractal_z_to_hwcn(x, cout, cin, kh, kw)
        if origin_format == Format.NCHW:
            cout, cin, kh, kw = origin_shape
            return fractal_z_to_nchw(x, cout, cin, kh, kw)
    if fmt == Format.FRACTAL_NZ:
        return fractal_nz_to_nd(x, origin_shape[-2], origin_shape[-1])
    raise ValueError(f"no TransData from {fmt.value} to {origin_format.value}")
