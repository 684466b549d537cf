"""Ascend tensor formats: storage shapes and index maps.

Every formula here is the one in `shared/reference/cann-facts.md` sections 1-3 (GE's
`format_transfer_*.cc`): padding beyond the original extent is zero.  These functions are the
single source of layout truth for the passes (storage types, compile-time weight conversion)
and for the interpreters (TransData and kernel semantics).
"""

from __future__ import annotations

import numpy as np
from xdsl.utils.str_enum import StrEnum


class Format(StrEnum):
    """Format names and GE format ids (metadef `c_types.h`); the closed set of a storage format
    attribute (TransData's src_format / dst_format: dialects/cann/base.py FormatNameAttr)."""

    NCHW = "NCHW"
    NHWC = "NHWC"
    ND = "ND"
    NC1HWC0 = "NC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"
    HWCN = "HWCN"
    FRACTAL_NZ = "FRACTAL_NZ"
    NDC1HWC0 = "NDC1HWC0"
    FRACTAL_Z_3D = "FRACTAL_Z_3D"
    NC1HWC0_C04 = "NC1HWC0_C04"
    FRACTAL_Z_C04 = "FRACTAL_Z_C04"

    @property
    def ge_id(self) -> int:
        return {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4,
                "NC1HWC0_C04": 12, "FRACTAL_Z_C04": 13,
                "HWCN": 16, "FRACTAL_NZ": 29, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33}[self.value]


FORMAT_NAMES = tuple(f.value for f in Format)

N0 = 16  # the cube's row block (FRACTAL_Z N0, FRACTAL_NZ M0)


def c0_for(dtype: np.dtype | str) -> int:
    """C0 by element type (GetCubeSizeByDataType, cann-facts.md section 2): 16 for
    fp16/bf16/fp32 (and every other type), 32 for int8/uint8, 64 for int4."""
    if isinstance(dtype, str):
        name = dtype
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = str(dtype)
    if name in ("int8", "uint8", "i8", "ui8", "si8"):
        return 32
    if name in ("int4", "i4", "si4"):
        return 64
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


# NC1HWC0 of a channels-last value of another rank than 4, [d0, d1, .., dk, C] ->
# (d0, C1, d1, .., dk, C0): the middle axes take the place of H, W (row-major inside each
# (d0, c1) block), so a reshape that regroups only them moves no byte.  The layout
# assignment uses it only for the reshapes, pads and broadcasts between 4-D NC1HWC0 values
# (e.g. [1, H, 1, W, 1, C] of a zero-inserting upsampling).  An assumption: the reference
# (cann-facts.md section 3) names no such format for rank != 4 (NDC1HWC0 places C1 after D),
# so these values never leave the device; a TransData to their origin is this inverse.

def channels_last_shape(shape: tuple[int, ...], c0: int) -> tuple[int, ...]:
    return (shape[0], ceil_div(shape[-1], c0), *shape[1:-1], c0)


def channels_last_to_nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    c1 = ceil_div(x.shape[-1], c0)
    x = _pad_axis(x, x.ndim - 1, c1 * c0).reshape(*x.shape[:-1], c1, c0)
    return np.ascontiguousarray(np.moveaxis(x, -2, 1))


def nc1hwc0_to_channels_last(x: np.ndarray, c: int) -> np.ndarray:
    x = np.moveaxis(x, 1, -2)
    return np.ascontiguousarray(x.reshape(*x.shape[:-2], -1)[..., :c])


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


# --- FRACTAL_Z for grouped / depthwise convolutions (TransShapeToFzWithGroups) --------------

def _lcm(a: int, b: int) -> int:
    from math import gcd
    return a * b // gcd(a, b)


def group_enlargement(groups: int, cin_ori: int, cout_ori: int, c0: int) -> dict[str, int]:
    """The group enlargement rule (cann-facts.md section 3, GE TransShapeToFzWithGroups):
    e_mult groups are merged into one, so that the merged Cin and Cout fill C0 and 16.

      e_mult  = min(lcm(lcm(cin_ori, C0)/cin_ori, lcm(cout_ori, 16)/cout_ori), groups)
      cin_opt = ceil(e_mult*cin_ori / C0)*C0, c1 = cin_opt/C0, g_dim = ceil(groups/e_mult)
      n1      = ceil(cout_ori*e_mult / 16)
    """
    if min(groups, cin_ori, cout_ori, c0) <= 0:
        raise ValueError(f"groups {groups}, cin {cin_ori}, cout {cout_ori} must be positive")
    e_mult = min(_lcm(_lcm(cin_ori, c0) // cin_ori, _lcm(cout_ori, N0) // cout_ori), groups)
    cin_opt = ceil_div(e_mult * cin_ori, c0) * c0
    return {"e_mult": e_mult, "cin_opt": cin_opt, "c1": cin_opt // c0,
            "g_dim": ceil_div(groups, e_mult), "n1": ceil_div(cout_ori * e_mult, N0),
            "cin_ori": cin_ori, "cout_ori": cout_ori, "groups": groups}


def fractal_z_group_shape(cout: int, cin_ori: int, kh: int, kw: int, groups: int,
                          c0: int) -> tuple[int, ...]:
    """(g_dim*c1*H*W, n1, 16, C0) for a filter of Cout outputs, Cin/groups inputs per group."""
    if cout % groups:
        raise ValueError(f"Cout {cout} is not a multiple of groups {groups}")
    e = group_enlargement(groups, cin_ori, cout // groups, c0)
    return (e["g_dim"] * e["c1"] * kh * kw, e["n1"], N0, c0)


def hwcn_to_fractal_z_groups(w: np.ndarray, groups: int, c0: int) -> np.ndarray:
    """A grouped HWCN filter (kh, kw, Cin/groups, Cout) to grouped FRACTAL_Z.

    Group gi = g*e_mult + e (g < g_dim, e < e_mult) occupies, inside enlarged group g, the input
    channels [e*cin_ori, (e+1)*cin_ori) and the output columns [e*cout_ori, (e+1)*cout_ori):
      FZ[((g*c1 + ci // C0)*H + h)*W + w][co // 16][co % 16][ci % C0]
          = W_hwcn[h][w][ci - e*cin_ori][gi*cout_ori + co - e*cout_ori]
    with ci = e*cin_ori + i, co = e*cout_ori + o; every other element is zero (block diagonal).
    The shape is the reference's (section 3); the placement inside an enlarged group is the
    natural block-diagonal one (GE's format_transfer_fractal_z.cc is not quoted in the reference).
    """
    kh, kw, cin_ori, cout = w.shape
    cout_ori = cout // groups
    e = group_enlargement(groups, cin_ori, cout_ori, c0)
    em, c1, g_dim, n1 = e["e_mult"], e["c1"], e["g_dim"], e["n1"]
    # group gi = g*em + e's block (cin_ori, kh, kw, cout_ori) on the diagonal (e, e) of enlarged
    # group g; groups past `groups` (g_dim*em of them) are zero
    blocks = np.zeros((kh, kw, cin_ori, g_dim * em, cout_ori), w.dtype)
    blocks[:, :, :, :groups] = w.reshape(kh, kw, cin_ori, groups, cout_ori)
    blocks = blocks.reshape(kh, kw, cin_ori, g_dim, em, cout_ori).transpose(4, 3, 2, 0, 1, 5)
    diag = np.zeros((g_dim, em, cin_ori, kh, kw, em, cout_ori), w.dtype)
    e_ = np.arange(em)
    diag[:, e_, :, :, :, e_, :] = blocks  # (em, g_dim, cin_ori, kh, kw, cout_ori)
    out = np.zeros((g_dim, c1 * c0, kh, kw, n1 * N0), w.dtype)  # (g, ci, h, w, co)
    out[:, :em * cin_ori, :, :, :em * cout_ori] = diag.reshape(g_dim, em * cin_ori, kh, kw,
                                                               em * cout_ori)
    # (g, c1, c0, h, w, n1, n0) -> (g, c1, h, w, n1, n0, c0)
    out = out.reshape(g_dim, c1, c0, kh, kw, n1, N0).transpose(0, 1, 3, 4, 5, 6, 2)
    return np.ascontiguousarray(out.reshape(g_dim * c1 * kh * kw, n1, N0, c0))


def fractal_z_groups_to_hwcn(fz: np.ndarray, cout: int, cin_ori: int, kh: int, kw: int,
                             groups: int) -> np.ndarray:
    c0 = fz.shape[-1]
    cout_ori = cout // groups
    e = group_enlargement(groups, cin_ori, cout_ori, c0)
    em, c1, g_dim, n1 = e["e_mult"], e["c1"], e["g_dim"], e["n1"]
    full = fz.reshape(g_dim, c1, kh, kw, n1, N0, c0).transpose(0, 1, 6, 2, 3, 4, 5)
    full = full.reshape(g_dim, c1 * c0, kh, kw, n1 * N0)
    w = np.zeros((kh, kw, cin_ori, cout), fz.dtype)
    for gi in range(groups):
        g, ei = divmod(gi, em)
        blk = full[g, ei * cin_ori:(ei + 1) * cin_ori, :, :, ei * cout_ori:(ei + 1) * cout_ori]
        w[:, :, :, gi * cout_ori:(gi + 1) * cout_ori] = blk.transpose(1, 2, 0, 3)
    return w


def depthwise_to_grouped_hwcn(w: np.ndarray) -> np.ndarray:
    """A TF depthwise filter (kh, kw, Cin, multiplier) as the grouped HWCN filter
    (kh, kw, 1, Cin*multiplier) with groups = Cin (output channel c*multiplier + m)."""
    kh, kw, cin, mult = w.shape
    return np.ascontiguousarray(w.reshape(kh, kw, 1, cin * mult))


# --- 2-D ND -> FRACTAL_Z --------------------------------------------------------------------

def nd2_fractal_z_shape(d0: int, d1: int, c0: int) -> tuple[int, ...]:
    """2-D ND (d0, d1) -> FRACTAL_Z (ceil(d0/C0), ceil(d1/16), 16, C0) (section 3)."""
    return (ceil_div(d0, c0), ceil_div(d1, N0), N0, c0)


def nd2_to_fractal_z(x: np.ndarray, c0: int) -> np.ndarray:
    """FZ[i1][j1][j0][i0] = ND[i1*C0 + i0][j1*16 + j0] (the K x N matrix B of a GEMM, d0 = K)."""
    d0, d1 = x.shape
    i1, j1 = ceil_div(d0, c0), ceil_div(d1, N0)
    x = _pad_axis(_pad_axis(x, 0, i1 * c0), 1, j1 * N0)
    return np.ascontiguousarray(x.reshape(i1, c0, j1, N0).transpose(0, 2, 3, 1))


def fractal_z_to_nd2(fz: np.ndarray, d0: int, d1: int) -> np.ndarray:
    i1, j1, n0, c0 = fz.shape
    return np.ascontiguousarray(fz.transpose(0, 3, 1, 2).reshape(i1 * c0, j1 * n0)[:d0, :d1])


# --- NDC1HWC0 (5-D activations; GE format id 32) and FRACTAL_Z_3D (3-D filters; id 33) -------
# NDC1HWC0 (N, D, C1, H, W, C0) of an NDHWC value holds the bytes of NC1HWC0 (N*D, C1, H, W, C0)
# of the same value viewed as [N*D, H, W, C]: folding (N, D) into the batch (and back) moves no
# byte.  A 3-D conv's x is stored so and read through that 4-D view (cann.Conv3D, whose x is the
# [N*D, H, W, C] view; compiler/conversions/cann_to_kernel/cube3d.py).
# FRACTAL_Z_3D of a DHWCN filter (kd, kh, kw, C, O) (cann-facts.md section 1, id 33): rows
# (d*C1 + c1)*kh*kw + h*kw + w of (N1, 16, C0) fractals, i.e. FRACTAL_Z of the HWCN filter
# (kh, kw, kd*C1*C0, O) whose input channel d*C1*C0 + c is tap d's channel c (zero past C): the
# cube's K loop runs over kd*C1*kh*kw*C0.  The K order (depth outermost) is an assumption taken
# from the shape name (D before C1); cann-facts.md gives no index map for it.

def ndc1hwc0_shape(n: int, d: int, c: int, h: int, w: int, c0: int) -> tuple[int, ...]:
    return (n, d, ceil_div(c, c0), h, w, c0)


def fractal_z_3d_shape(kd: int, kh: int, kw: int, cin: int, cout: int, c0: int) -> tuple[int, ...]:
    return fractal_z_shape(cout, kd * ceil_div(cin, c0) * c0, kh, kw, c0)


def dhwcn_to_fractal_z_3d(w: np.ndarray, c0: int) -> np.ndarray:
    kd, kh, kw, c, o = w.shape
    cp = ceil_div(c, c0) * c0
    w = _pad_axis(w, 3, cp).transpose(1, 2, 0, 3, 4).reshape(kh, kw, kd * cp, o)
    return hwcn_to_fractal_z(w, c0)


def fractal_z_3d_to_dhwcn(fz: np.ndarray, kd: int, kh: int, kw: int, cin: int,
                          cout: int) -> np.ndarray:
    c0 = fz.shape[-1]
    cp = ceil_div(cin, c0) * c0
    w = fractal_z_to_hwcn(fz, cout, kd * cp, kh, kw).reshape(kh, kw, kd, cp, cout)
    return np.ascontiguousarray(w.transpose(2, 0, 1, 3, 4)[:, :, :, :cin])


def ndhwc_to_ndc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    """NDHWC (N, D, H, W, C) -> (N, D, C1, H, W, C0), C zero-padded to C1*C0."""
    n, d, h, w, c = x.shape
    c1 = ceil_div(c, c0)
    x = _pad_axis(x, 4, c1 * c0)
    return np.ascontiguousarray(x.reshape(n, d, h, w, c1, c0).transpose(0, 1, 4, 2, 3, 5))


def ndc1hwc0_to_ndhwc(x: np.ndarray, c: int) -> np.ndarray:
    n, d, c1, h, w, c0 = x.shape
    return np.ascontiguousarray(x.transpose(0, 1, 3, 4, 2, 5).reshape(n, d, h, w, c1 * c0)[..., :c])


# --- NC1HWC0_C04 (id 12) and FRACTAL_Z_C04 (id 13): a small-C_in conv's K packing -----------
# CANN's format enum has NC1HWC0_C04 ("NC1HWC0, C0 = 4") and FRACTAL_Z_C04 ("FRACZ, C0 = 4")
# (cann-facts.md section 1; CANN aclFormat, hiascend.com appdevgapi aclcppdevg_03_1348:
# "NC1HWC0_C04: a 5D format. C0 has a fixed value of 4 while C1 = C/C0").  A conv whose x has
# C <= 4 channels (an image stem: 3) stores x with C0 = 4 and packs its filter taps' 4-channel
# groups into K: row k = tap*4 + c of the GEMM's B, tap = (d*kh + h)*kw + w (a 2-D filter: kd
# = 1), K = ceil(taps*4 / 16)*16 instead of taps*16 (FRACTAL_Z's C1 = 1 of C0 = 16), stored as
# the 2-D ND [taps*4, Cout] matrix's FRACTAL_Z (nd2_to_fractal_z, C0 = 16: the cube's fractal).
# The A tiles are then the img2col of the C0 = 4 x, whose columns (d, c1 = 0, h, w, c0 < 4)
# are the same (tap, c) order (compiler/target/c04.py).  The index map
# of FRACTAL_Z_C04 is an assumption: the reference names the format, not its layout.

C04 = 4  # NC1HWC0_C04's C0


def _c04_filter(x: np.ndarray, origin_format: Format) -> np.ndarray:
    """The [taps*4, Cout] matrix of an HWCN (kh, kw, C, O) or DHWCN (ND, 5-D) filter, C <= 4."""
    if origin_format == Format.HWCN and x.ndim == 4:
        x = x[None]
    elif not (origin_format == Format.ND and x.ndim == 5):
        raise ValueError(f"FRACTAL_Z_C04 from {origin_format.value} {list(x.shape)} is not supported")
    if x.shape[3] > C04:
        raise ValueError(f"FRACTAL_Z_C04 holds at most {C04} input channels, got {x.shape[3]}")
    x = _pad_axis(x, 3, C04)
    return x.reshape(-1, x.shape[4])


def fractal_z_c04_shape(origin_format: Format, origin_shape: tuple[int, ...]) -> tuple[int, ...]:
    taps = int(np.prod(origin_shape[:-2]))
    return nd2_fractal_z_shape(taps * C04, origin_shape[-1], N0)


def c04_k(taps: int) -> int:
    """The packed K of a FRACTAL_Z_C04 filter of `taps` kernel taps (one fractal is 16 deep)."""
    return ceil_div(taps * C04, N0) * N0


def to_fractal_z_c04(x: np.ndarray, origin_format: Format) -> np.ndarray:
    return nd2_to_fractal_z(_c04_filter(x, origin_format), N0)


def from_fractal_z_c04(fz: np.ndarray, origin_format: Format,
                       origin_shape: tuple[int, ...]) -> np.ndarray:
    *taps, cin, cout = origin_shape
    w = fractal_z_to_nd2(fz, int(np.prod(taps)) * C04, cout)
    return np.ascontiguousarray(w.reshape(*taps, C04, cout)[..., :cin, :])


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

#: Two sizes no rule maps to the same storage dimension (primes past any C0 or block): a `?`
#: origin dimension is probed with both to tell which storage dimensions depend on it.
_PROBES = (1_000_003, 2_000_003)


def storage_shape(fmt: Format, origin_format: Format, origin_shape: tuple[int, ...],
                  dtype: np.dtype | str, groups: int = 1, grouped_conv: bool = False) -> tuple[int, ...]:
    """The storage shape of a tensor of `origin_shape` in `origin_format` stored as `fmt`; a
    dynamic origin dimension (-1) makes every storage dimension computed from it -1."""
    if not any(d < 0 for d in origin_shape):
        return _storage_shape(fmt, origin_format, tuple(origin_shape), dtype, groups, grouped_conv)
    a, b = (_storage_shape(fmt, origin_format, tuple(p if d < 0 else d for d in origin_shape),
                           dtype, groups, grouped_conv) for p in _PROBES)
    return tuple(x if x == y else -1 for x, y in zip(a, b))


def _storage_shape(fmt: Format, origin_format: Format, origin_shape: tuple[int, ...],
                   dtype: np.dtype | str, groups: int = 1, grouped_conv: bool = False) -> tuple[int, ...]:
    """The storage shape of a tensor of `origin_shape` in `origin_format` stored as `fmt`.

    `groups` only matters for FRACTAL_Z filters of grouped / depthwise convolutions: a HWCN
    origin (kh, kw, a, b) is TF's depthwise filter (kh, kw, Cin, multiplier) when a == groups,
    else the grouped filter (kh, kw, Cin/groups, Cout); `grouped_conv` (a grouped Conv2D's
    filter, `#cann.format<..., groups G conv>`) says it is always the grouped filter, which
    settles a grouped conv with Cin/groups == groups."""
    c0 = c0_for(dtype)
    if fmt in (Format.ND, Format.NHWC, Format.NCHW, Format.HWCN) and fmt == origin_format:
        return tuple(origin_shape)
    if fmt == Format.NC1HWC0:
        if origin_format == Format.NHWC and len(origin_shape) != 4 and len(origin_shape) >= 2:
            return channels_last_shape(tuple(origin_shape), c0)
        n, c, h, w = _as_nchw(origin_format, origin_shape)
        return nc1hwc0_shape(n, c, h, w, c0)
    if fmt == Format.NC1HWC0_C04:
        n, c, h, w = _as_nchw(origin_format, origin_shape)
        return nc1hwc0_shape(n, c, h, w, C04)
    if fmt == Format.FRACTAL_Z_C04:
        return fractal_z_c04_shape(origin_format, origin_shape)
    if fmt == Format.FRACTAL_Z:
        if origin_format == Format.ND:
            if len(origin_shape) != 2:
                raise ValueError(f"FRACTAL_Z from ND needs rank 2, got {len(origin_shape)}")
            return nd2_fractal_z_shape(*origin_shape, c0)
        if origin_format not in (Format.HWCN, Format.NCHW):
            raise ValueError(f"FRACTAL_Z from {origin_format.value} is not supported")
        if len(origin_shape) != 4:
            raise ValueError(f"a {origin_format.value} filter has 4 dimensions, got {len(origin_shape)}")
        if origin_format == Format.HWCN:
            kh, kw, cin, cout = origin_shape
        else:
            cout, cin, kh, kw = origin_shape
        if groups != 1:
            if origin_format == Format.HWCN and cin == groups and not grouped_conv:
                cin, cout = 1, groups * cout  # TF depthwise (kh, kw, C, mult)
            return fractal_z_group_shape(cout, cin, kh, kw, groups, c0)
        return fractal_z_shape(cout, cin, kh, kw, c0)
    if groups != 1:
        raise ValueError(f"groups = {groups} only applies to FRACTAL_Z")
    if fmt == Format.NDC1HWC0 and origin_format == Format.ND and len(origin_shape) == 5:
        n, d, h, w, c = origin_shape  # an NDHWC value (ND: no NDHWC name in this set)
        return ndc1hwc0_shape(n, d, c, h, w, c0)
    if fmt == Format.FRACTAL_Z_3D and origin_format == Format.ND and len(origin_shape) == 5:
        return fractal_z_3d_shape(*origin_shape, c0)  # a DHWCN filter
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


def to_storage(x: np.ndarray, fmt: Format, origin_format: Format, groups: int = 1,
               grouped_conv: bool = False) -> np.ndarray:
    """Convert an origin-format array to its storage format (TransData on the host)."""
    c0 = c0_for(x.dtype)
    if fmt == origin_format:
        return x
    if fmt == Format.NC1HWC0:
        if origin_format == Format.NHWC and x.ndim != 4 and x.ndim >= 2:
            return channels_last_to_nc1hwc0(x, c0)
        if origin_format == Format.NHWC:
            return nhwc_to_nc1hwc0(x, c0)
        if origin_format == Format.NCHW:
            return nchw_to_nc1hwc0(x, c0)
    if fmt == Format.NC1HWC0_C04 and origin_format == Format.NHWC:
        return nhwc_to_nc1hwc0(x, C04)
    if fmt == Format.FRACTAL_Z_C04:
        return to_fractal_z_c04(x, origin_format)
    if fmt == Format.FRACTAL_Z:
        if origin_format == Format.ND and x.ndim == 2:
            return nd2_to_fractal_z(x, c0)
        if groups != 1:
            if origin_format == Format.NCHW:
                x = x.transpose(2, 3, 1, 0)
            elif x.shape[2] == groups and not grouped_conv:  # TF depthwise (kh, kw, C, mult)
                x = depthwise_to_grouped_hwcn(x)
            return hwcn_to_fractal_z_groups(x, groups, c0)
        if origin_format == Format.HWCN:
            return hwcn_to_fractal_z(x, c0)
        if origin_format == Format.NCHW:
            return nchw_to_fractal_z(x, c0)
    if fmt == Format.NDC1HWC0 and x.ndim == 5:
        return ndhwc_to_ndc1hwc0(x, c0)
    if fmt == Format.FRACTAL_Z_3D and x.ndim == 5:
        return dhwcn_to_fractal_z_3d(x, c0)
    if fmt == Format.FRACTAL_NZ:
        return nd_to_fractal_nz(x, c0)
    raise ValueError(f"no TransData from {origin_format.value} to {fmt.value}")


def from_storage(x: np.ndarray, fmt: Format, origin_format: Format,
                 origin_shape: tuple[int, ...], groups: int = 1,
                 grouped_conv: bool = False) -> np.ndarray:
    """Convert a storage-format array back to its origin format and shape."""
    if fmt == origin_format:
        return x
    if fmt == Format.NC1HWC0:
        if origin_format == Format.NHWC and len(origin_shape) != 4 and len(origin_shape) >= 2:
            return nc1hwc0_to_channels_last(x, origin_shape[-1])
        n, c, h, w = _as_nchw(origin_format, origin_shape)
        nchw = nc1hwc0_to_nchw(x, c)
        return np.ascontiguousarray(nchw.transpose(0, 2, 3, 1)) if origin_format == Format.NHWC else nchw
    if fmt == Format.NC1HWC0_C04 and origin_format == Format.NHWC:
        return np.ascontiguousarray(nc1hwc0_to_nchw(x, origin_shape[3]).transpose(0, 2, 3, 1))
    if fmt == Format.FRACTAL_Z_C04:
        return from_fractal_z_c04(x, origin_format, tuple(origin_shape))
    if fmt == Format.FRACTAL_Z:
        if origin_format == Format.ND and len(origin_shape) == 2:
            return fractal_z_to_nd2(x, *origin_shape)
        if origin_format == Format.HWCN:
            kh, kw, cin, cout = origin_shape
            if groups != 1:
                if cin == groups and not grouped_conv:  # TF depthwise (kh, kw, C, mult)
                    g = fractal_z_groups_to_hwcn(x, cin * cout, 1, kh, kw, groups)
                    return np.ascontiguousarray(g.reshape(kh, kw, cin, cout))
                return fractal_z_groups_to_hwcn(x, cout, cin, kh, kw, groups)
            return fractal_z_to_hwcn(x, cout, cin, kh, kw)
        if origin_format == Format.NCHW:
            cout, cin, kh, kw = origin_shape
            if groups != 1:
                return np.ascontiguousarray(
                    fractal_z_groups_to_hwcn(x, cout, cin, kh, kw, groups).transpose(3, 2, 0, 1))
            return fractal_z_to_nchw(x, cout, cin, kh, kw)
    if fmt == Format.NDC1HWC0 and len(origin_shape) == 5:
        return ndc1hwc0_to_ndhwc(x, origin_shape[-1])
    if fmt == Format.FRACTAL_Z_3D and len(origin_shape) == 5:
        return fractal_z_3d_to_dhwcn(x, *origin_shape)
    if fmt == Format.FRACTAL_NZ:
        return fractal_nz_to_nd(x, origin_shape[-2], origin_shape[-1])
    raise ValueError(f"no TransData from {fmt.value} to {origin_format.value}")
