"""Convolution geometry: SAME/VALID padding resolved to explicit pads, output extents.

The SAME formula is canndev's GetPadConv2D (cann-facts.md section 4), which equals TensorFlow's.
"""

from __future__ import annotations

import math

import numpy as np


def same_pads(size: int, k: int, stride: int, dilation: int) -> tuple[int, int]:
    dk = dilation * (k - 1) + 1
    tail = size % stride
    pad = max((dk - tail) if tail > 0 else (dk - stride), 0)
    return pad // 2, pad - pad // 2


def out_size(size: int, k: int, stride: int, dilation: int, pad_begin: int, pad_end: int) -> int:
    dk = dilation * (k - 1) + 1
    return (size + pad_begin + pad_end - dk) // stride + 1


# --- the feature-map window of a block of output pixels (the conv's A operand in L1) ---------
#
# A conv's A operand need not reach L1 as the img2col matrix: Ascend C's Load3D "performs the
# image-to-column operation to convert a multi-dimensional feature map into a two-dimensional
# matrix" on the paths A1 -> A2 and B1 -> B2 (L1 -> L0A / L0B; Ascend C API reference, LoadData /
# Load3D, hiascend.com atlasascendc_api_07_00170).  So GM -> L1 moves the rows of x that a block of
# output pixels reads, once, and the img2col expansion (each element read kh*kw times) happens on
# the L1 -> L0A path.  x NC1HWC0 (N, C1, H, W, C0) is viewed per C1 block as N*H rows (row n*H + h)
# of W pixels; the output pixel m is (n, ho, wo) with m = (n*Ho + ho)*Wo + wo.


def fmap_first_row(m_lo: int, h: int, ho: int, wo: int, sh: int, pt: int) -> int:
    """The first row (of x's N*H rows) that output pixel m_lo and those after it read."""
    n, r = divmod(m_lo // wo, ho)
    return n * h + min(max(r * sh - pt, 0), h)


def fmap_rows(m_lo: int, m_hi: int, h: int, ho: int, wo: int, kh: int, sh: int, dh: int,
              pt: int) -> tuple[int, int]:
    """Rows [lo, hi) of x's N*H rows that the output pixels [m_lo, m_hi) read."""
    dk = dh * (kh - 1) + 1
    lo = fmap_first_row(m_lo, h, ho, wo, sh, pt)
    n, r = divmod((m_hi - 1) // wo, ho)
    return lo, max(lo, n * h + min(max(r * sh - pt + dk, 0), h))


def fmap_window_rows(bm: int, n: int, h: int, ho: int, wo: int, kh: int, sh: int, dh: int,
                     start_align: int = 1) -> int:
    """At most how many rows `fmap_rows` spans for any bm consecutive output pixels starting at
    a multiple of start_align (a core's blocks start at c*singleCoreM + i*baseM: multiples of
    their gcd): the output rows they touch (the first pixel at most Wo - gcd(start_align, Wo)
    into its row: 0 when Wo divides the starts), (rows - 1) * stride + the dilated kernel, plus
    H - Ho*stride per image boundary crossed (rows an image has past its last window), at most
    all N*H rows."""
    dk = dh * (kh - 1) + 1
    out_rows = (wo - math.gcd(start_align, wo) + bm - 1) // wo + 1
    crossings = out_rows // ho + 1
    return min(n * h, (out_rows - 1) * sh + dk + crossings * max(0, h - ho * sh))


# A 3-D conv (cann.Conv3D, compiler/conversions/cann_to_kernel/cube3d.py) reads x through its
# (N*D) batch view: x's rows are (n*D_in + d)*H + h, output pixel m is ((n*D_out + do)*Ho + ho)*Wo
# + wo, and tap (kd_i, i) of pixel m reads row (n*D_in + do*sd - pf + kd_i*dd)*H + ho*sh - pt +
# i*dh where that plane and row exist.  The rows one output row reads are therefore inside
# [first, last) below; the window of a block of pixels spans its output rows' min first to max
# last (not monotone in m: a depth pad shifts the first plane back at each new output depth).
# Fmap3 = (N, H, W, C1, Ho, Wo, kh, sh, dh, pt, D_in, D_out, kd, sd, dd, pf).

def fmap3d_row_bounds(fmap) -> tuple[np.ndarray, np.ndarray]:
    """(first, last) row of x the output rows q = (n*D_out + do)*Ho + ho read, per q."""
    n, h, _, _, ho, _, kh, sh, dh, pt, d_in, d_out, kd, sd, dd, pf = fmap
    q = np.arange(n * d_out * ho)
    nd, r = np.divmod(q, ho)
    nn, do = np.divmod(nd, d_out)
    top = do * sd - pf
    p_lo = nn * d_in + np.clip(top, 0, d_in - 1)
    p_hi = nn * d_in + np.clip(top + (kd - 1) * dd, 0, d_in - 1)
    first = p_lo * h + np.clip(r * sh - pt, 0, h)
    last = p_hi * h + np.clip(r * sh - pt + dh * (kh - 1) + 1, 0, h)
    return first, np.maximum(first, last)


def fmap3d_window_rows(fmap, bm: int) -> int:
    """At most how many rows of x any bm consecutive output pixels read (their window)."""
    first, last = fmap3d_row_bounds(fmap)
    wo = fmap[5]
    span = min(len(first), (bm + wo - 2) // wo + 1)  # output rows bm pixels touch
    lo = np.lib.stride_tricks.sliding_window_view(first, span).min(axis=1)
    hi = np.lib.stride_tricks.sliding_window_view(last, span).max(axis=1)
    return int((hi - lo).max())


def fmap3d_first_row(fmap, m_lo: int, bm: int) -> int:
    """The first row of the window of output pixels [m_lo, m_lo + bm)."""
    first, _ = fmap3d_row_bounds(fmap)
    wo = fmap[5]
    return int(first[m_lo // wo: (m_lo + bm - 1) // wo + 1].min())


# A block of output pixels inside one output plane (n, do) reads, at each of the kd depth taps,
# one input plane (do*sd - pf + kd_i*dd of clip n, or none: a depth pad) and in it the rows of
# the 2-D conv's window.  So the L1 window can hold kd 2-D windows, one per tap, slot kd_i being
# an NC1HWC0 (C1, rows, W, C0) feature map that Load3D expands for tap kd_i's K columns
# (FRACTAL_Z_3D's K is (d, c1, i, j, c0): tap-major) instead of every row from the first
# plane's to the last's: a k x k x k conv's span covers (kd - 1) whole planes in between.
# The tile is (kd*C1, rows, W, C0), row kd_i*C1 + c1 of its first axis the tap's C1 block: a
# 2-D feature map of kd*C1 channel blocks whose K order (c1', i, j, c0), c1' = kd_i*C1 + c1, is
# the 3-D conv's, so one Load3D over it expands any K block, across taps too.  A depth pad's
# slot is zeros (written in L1, not read from GM; charged as GM -> L1 bytes all the same).

def fmap3d_plane_rows(fmap, bm: int) -> int:
    """The rows each depth tap's window holds for blocks of bm output pixels that start at
    multiples of bm inside one output plane (Ho*Wo a multiple of bm): the most rows of one
    input plane any such block reads; 0 when Ho*Wo is not a multiple of bm (a block may span
    two output planes)."""
    h, ho, wo, kh, sh, dh, pt = fmap[1], fmap[4], fmap[5], fmap[6], fmap[7], fmap[8], fmap[9]
    if (ho * wo) % bm:
        return 0
    dk = dh * (kh - 1) + 1
    rows = 0
    for m_lo in range(0, ho * wo, bm):
        r_lo, r_hi = m_lo // wo, (m_lo + bm - 1) // wo
        lo = min(max(r_lo * sh - pt, 0), h)
        rows = max(rows, min(max(r_hi * sh - pt + dk, 0), h) - lo)
    return rows


def fmap3d_plane_window(fmap, m_lo: int) -> tuple[int, int, int]:
    """(clip, top, row): the block at output pixel m_lo reads, at tap kd_i, depth d = top +
    kd_i*dd of its clip (x's plane clip + d of its N*D_in planes; no plane when d is outside
    [0, D_in): a depth pad, zeros), from row `row` of that plane on."""
    _, h, _, _, ho, wo, _, sh, _, pt, d_in, d_out, _, sd, _, pf = fmap
    nd, r = divmod(m_lo // wo, ho)
    n, do = divmod(nd, d_out)
    return n * d_in, do * sd - pf, min(max(r * sh - pt, 0), h)
