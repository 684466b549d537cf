"""TensorFlow's StridedSlice index semantics (begin/end/strides and the five masks) as a numpy
index tuple, shared by the cann.StridedSliceD verifier and its execution semantics."""

from __future__ import annotations


def strided_slice_index(op, rank: int) -> tuple:
    """The numpy index that StridedSlice(begin, end, strides, masks) applies to a rank-`rank` x."""
    from dialects.common import ints

    begin, end, strides = ints(op.begin), ints(op.end), ints(op.strides)
    bm, em = op.begin_mask.value.data, op.end_mask.value.data
    elm, nam = op.ellipsis_mask.value.data, op.new_axis_mask.value.data
    sam = op.shrink_axis_mask.value.data
    n = len(begin)
    # Dimensions of x consumed by the spec entries (new-axis entries consume none).
    consumed = sum(1 for i in range(n) if not (nam >> i) & 1 and not (elm >> i) & 1)
    index: list = []
    for i in range(n):
        if (elm >> i) & 1:
            index.append(Ellipsis)
            continue
        if (nam >> i) & 1:
            index.append(None)
            continue
        if (sam >> i) & 1:
            index.append(begin[i])
            continue
        b = None if (bm >> i) & 1 else begin[i]
        e = None if (em >> i) & 1 else end[i]
        index.append(slice(b, e, strides[i]))
    if Ellipsis not in index and consumed > rank:
        raise ValueError(f"the slice has {consumed} entries for rank {rank}")
    return tuple(index)
