"""tf-level semantics: TensorFlow's own kernels (`tf.raw_ops`), so the tf dialect means exactly
what the TensorFlow graph means.  TensorFlow is imported on the first tf op executed, never at
import time.  tf.Placeholder and tf.Identity forward their operand; tf.Const returns its value."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from compiler.frontend.tf_loader import tensorflow as import_tensorflow
from compiler.interpreters.common import result_dtype
from dialects import tf as tfd
from dialects.common import ints, numpy_from_dense


def _np(t: Any, dtype: np.dtype) -> np.ndarray:
    return np.asarray(t.numpy()).astype(dtype, copy=False)


@register_impls
class TfFunctions(InterpreterFunctions):
    @impl(tfd.PlaceholderOp)
    def run_placeholder(self, interp: Interpreter, op: tfd.PlaceholderOp, args: tuple[Any, ...]):
        return (args[0],)

    @impl(tfd.IdentityOp)
    def run_identity(self, interp: Interpreter, op: tfd.GeneratedTFOp, args: tuple[Any, ...]):
        return (args[0],)

    @impl(tfd.ConstOp)
    def run_const(self, interp: Interpreter, op: tfd.ConstOp, args: tuple[Any, ...]):
        return (numpy_from_dense(op.value),)

    @impl(tfd.Conv2DOp)
    def run_conv2d(self, interp: Interpreter, op: tfd.GeneratedTFOp, args: tuple[Any, ...]):
        tf = import_tensorflow()
        x, w = args
        kwargs = {}
        if op.padding.data == "EXPLICIT" and op.explicit_paddings is not None:
            kwargs["explicit_paddings"] = list(ints(op.explicit_paddings))
        y = tf.raw_ops.Conv2D(
            input=x, filter=w, strides=list(ints(op.strides)), padding=op.padding.data,
            data_format=op.data_format.data, dilations=list(ints(op.dilations)), **kwargs)
        return (_np(y, result_dtype(op.output.type)),)

    @impl(tfd.BiasAddOp)
    def run_bias_add(self, interp: Interpreter, op: tfd.GeneratedTFOp, args: tuple[Any, ...]):
        tf = import_tensorflow()
        y = tf.raw_ops.BiasAdd(value=args[0], bias=args[1], data_format=op.data_format.data)
        return (_np(y, result_dtype(op.output.type)),)

    @impl(tfd.ReluOp)
    def run_relu(self, interp: Interpreter, op: tfd.GeneratedTFOp, args: tuple[Any, ...]):
        tf = import_tensorflow()
        return (_np(tf.raw_ops.Relu(features=args[0]), result_dtype(op.y.type)),)
