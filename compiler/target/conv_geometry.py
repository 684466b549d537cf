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
