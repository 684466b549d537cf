"""What the interpreters share: the error they raise, typed-value layout conversion, lazy TF.

A value is a numpy array in its type's STORAGE layout: a tensor type whose encoding is
`#cann.format<NC1HWC0, origin NHWC [..]>` holds NC1HWC0 data of the storage shape; a type
without an encoding holds its origin layout (which one — NHWC, NCHW, HWCN, ND — the op says).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation

from compiler.ir.typed import shape_of
from compiler.target.formats import Format, from_storage, to_storage
from dialects.cann import format_of
from dialects.common import numpy_dtype


class SemanticsError(Exception):
    """An op cannot be executed as written (e.g. a tiling that does not cover the problem).
    The runner turns it into a one-line diagnostic naming the op's position and TF node."""

    def __init__(self, op: Operation, message: str):
        self.op = op
        self.message = message
        super().__init__(message)


def result_dtype(t: Attribute) -> np.dtype:
    assert isinstance(t, TensorType)
    return numpy_dtype(t.element_type)


def layout_of(t: Attribute, default: Format | str) -> Format:
    """The layout the value's data is in: the encoding's storage format, else `default`."""
    f = format_of(t)
    return f.fmt if f is not None else Format(default)


def origin_layout_of(t: Attribute, default: Format | str) -> Format:
    """The framework-visible layout: the encoding's origin format, else `default`."""
    f = format_of(t)
    if f is not None and f.origin_fmt is not None:
        return f.origin_fmt
    return Format(default)


_PERMS = {  # origin layout conversions (all 4-D)
    ("NHWC", "NCHW"): (0, 3, 1, 2),
    ("NCHW", "NHWC"): (0, 2, 3, 1),
    ("HWCN", "NCHW"): (3, 2, 0, 1),
    ("NCHW", "HWCN"): (2, 3, 1, 0),
}


def permute(x: np.ndarray, src: Format | str, dst: Format | str) -> np.ndarray:
    src, dst = Format(src).value, Format(dst).value
    if src == dst or "ND" in (src, dst):
        return x
    if (src, dst) not in _PERMS:
        raise ValueError(f"no layout permutation from {src} to {dst}")
    return np.ascontiguousarray(x.transpose(_PERMS[(src, dst)]))


def to_origin(x: np.ndarray, t: Attribute, default: Format | str, want: Format | str | None = None
              ) -> np.ndarray:
    """The value of type `t` as an array in its origin layout (or in `want`, a permutation of it)."""
    f = format_of(t)
    if f is not None and f.origin_fmt is not None and f.fmt != f.origin_fmt:
        x = from_storage(x, f.fmt, f.origin_fmt, f.origin, f.groups.data, f.is_grouped_conv)
    origin = origin_layout_of(t, default)
    return permute(x, origin, want) if want is not None else x


def from_origin(x: np.ndarray, t: Attribute, default: Format | str, have: Format | str | None = None
                ) -> np.ndarray:
    """An origin-layout array (in layout `have`, default: t's origin) stored as type `t` says."""
    origin = origin_layout_of(t, default)
    if have is not None:
        x = permute(x, have, origin)
    x = np.asarray(x.astype(result_dtype(t), copy=False), order="C")  # keeps 0-d arrays 0-d
    f = format_of(t)
    if f is not None and f.origin_fmt is not None and f.fmt != f.origin_fmt:
        x = to_storage(x, f.fmt, f.origin_fmt, f.groups.data, f.is_grouped_conv)
    want = shape_of(t)
    if tuple(x.shape) != want and all(d >= 0 for d in want):
        raise ValueError(f"computed shape {list(x.shape)} does not match the type's {list(want)}")
    return x
