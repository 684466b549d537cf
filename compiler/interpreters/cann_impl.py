"""cann-level semantics: the project's own numpy definitions of the CANN operators.

Operands arrive in their types' storage layouts (NC1HWC0 x, FRACTAL_Z filter, ...).  Each op
converts them to their origin layout with `compiler.formats.from_storage`, computes with the
reference numerics of `compiler.numerics`, and stores the result as its result type says
(`to_storage`), so padded channels come out as the format rule says: zeros.

Plain (unencoded) types are in the layout the op implies: x/y in `data_format`, the filter HWCN
(TF's filter layout, kept by tf-to-cann), the bias ND.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from compiler import numerics
from compiler.interpreters.common import (
    SemanticsError,
    from_origin,
    origin_layout_of,
    result_dtype,
    to_origin,
)
from dialects import cann
from dialects.common import numpy_from_dense


def run_conv(op: cann.ConvLike, args: tuple[Any, ...], activation: str) -> np.ndarray:
    """Conv (+ bias, + activation) of a cann conv op, result in the op's result storage layout."""
    fmt = op.data_format.data
    x = to_origin(args[0], op.x.type, fmt, want="NHWC")
    w = to_origin(args[1], op.filter.type, "HWCN", want="HWCN")
    strides, dilations, pads = op.geometry()
    y = numerics.conv2d_nhwc(x, w, strides, dilations, pads)
    if op.bias is not None:
        y = numerics.bias_add(y, to_origin(args[2], op.bias.type, "ND").astype(y.dtype), "NHWC")
    y = numerics.activate(y, activation)
    try:
        return from_origin(y, op.y.type, fmt, have="NHWC")
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None


@register_impls
class CannFunctions(InterpreterFunctions):
    @impl(cann.ConstOp)
    def run_const(self, interp: Interpreter, op: cann.ConstOp, args: tuple[Any, ...]):
        # The value holds the storage data already (its device layout).
        return (numpy_from_dense(op.value).astype(result_dtype(op.output.type), copy=False),)

    @impl(cann.Conv2DOp)
    def run_conv2d(self, interp: Interpreter, op: cann.Conv2DOp, args: tuple[Any, ...]):
        return (run_conv(op, args, "none"),)

    @impl(cann.FusedConv2DOp)
    def run_fused_conv2d(self, interp: Interpreter, op: cann.FusedConv2DOp, args: tuple[Any, ...]):
        return (run_conv(op, args, op.activation.data),)

    @impl(cann.BiasAddOp)
    def run_bias_add(self, interp: Interpreter, op: cann.BiasAddOp, args: tuple[Any, ...]):
        fmt = op.data_format.data
        x = to_origin(args[0], op.x.type, fmt)
        b = to_origin(args[1], op.bias.type, "ND")
        ofmt = origin_layout_of(op.x.type, fmt).value
        y = numerics.bias_add(x, b.astype(x.dtype), "NCHW" if ofmt == "NCHW" else "NHWC")
        return (from_origin(y, op.y.type, fmt),)

    @impl(cann.ReluOp)
    def run_relu(self, interp: Interpreter, op: cann.ReluOp, args: tuple[Any, ...]):
        # Elementwise on the storage data: relu(0) = 0 keeps padded channels zero.
        return (numerics.activate(args[0], "Relu").astype(result_dtype(op.y.type), copy=False),)

    @impl(cann.TransDataOp)
    def run_transdata(self, interp: Interpreter, op: cann.TransDataOp, args: tuple[Any, ...]):
        return (transdata(op, args[0], op.src.type, op.dst.type,
                          op.src_format.data, op.dst_format.data),)


def transdata(op, x: np.ndarray, src_t, dst_t, src_format: str, dst_format: str) -> np.ndarray:
    """src storage -> origin -> dst storage, following the two types' format descriptors.

    A plain type is in the layout its format attribute names (that is also its origin layout);
    a plain NHWC source feeding an NC1HWC0-from-NCHW result is permuted on the way."""
    try:
        src_origin = origin_layout_of(src_t, src_format)
        dst_origin = origin_layout_of(dst_t, dst_format)
        origin = to_origin(x, src_t, src_origin)
        return from_origin(origin, dst_t, dst_origin, have=src_origin)
    except ValueError as e:
        raise SemanticsError(op, f"{op.name}: {e}") from None
