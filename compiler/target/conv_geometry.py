"""Convolution geometry: SAME/VALID padding resolved to explicit pads, output extents.

The SAME formula is canndev's GetPadConv2D (cann-facts.md section 4), which equals TensorFlow's.
"""

from __future__ import annotations


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


def fmap_window_rows(bm: int, n: int, h: int, ho: int, wo: int, kh: int, sh: int, dh: int) -> int:
    """At most how many rows `fmap_rows` spans for any bm consecutive output pixels: the output
    rows they touch, (rows - 1) * stride + the dilated kernel, plus H - Ho*stride per image
    boundary crossed (rows an image has past its last window), at most all N*H rows."""
    dk = dh * (kh - 1) + 1
    out_rows = (bm + wo - 2) // wo + 1
    crossings = out_rows // ho + 1
    return min(n * h, (out_rows - 1) * sh + dk + crossings * max(0, h - ho * sh))
