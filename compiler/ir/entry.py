"""The entry function of a module and its framework-facing names and shapes.

Names come from the function attribute `tf.entry_function = {inputs = "x,y", outputs = "Relu,out:1"}`
(what the importer writes); without it, arguments are `arg0, arg1, ..` and results `out0, ..`.
Shapes are origin shapes: an argument stored in a device format (`#cann.format<..>`) is named by
the shape the framework sees.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr, TensorType

from compiler.ir.diagnostics import CompileError
from compiler.ir.typed import elem_of
from dialects.cann import origin_shape
from dialects.common import numpy_dtype

ENTRY_ATTR = "tf.entry_function"


def main_func(module: ModuleOp) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise CompileError("the module has no func.func @main to run")


def _split(attr, n: int, prefix: str) -> list[str]:
    names = [s.strip() for s in attr.data.split(",")] if isinstance(attr, StringAttr) else []
    names = [s for s in names if s]
    if len(names) != n:
        return [f"{prefix}{i}" for i in range(n)]
    return names


def io_names(fn: func.FuncOp) -> tuple[list[str], list[str]]:
    """(input names, output names) from `tf.entry_function`, else arg0.. / out0.."""
    n_in, n_out = len(fn.function_type.inputs), len(fn.function_type.outputs)
    entry = fn.attributes.get(ENTRY_ATTR)
    ins = outs = None
    if isinstance(entry, DictionaryAttr):
        ins, outs = entry.data.get("inputs"), entry.data.get("outputs")
    return _split(ins, n_in, "arg"), _split(outs, n_out, "out")


def framework_shape(t) -> tuple[int, ...]:
    return tuple(origin_shape(t)) if isinstance(t, TensorType) else ()


def input_specs(module: ModuleOp) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    """(name, origin shape, dtype) of each input of @main; dynamic dims are -1."""
    fn = main_func(module)
    names, _ = io_names(fn)
    return [(n, framework_shape(t), numpy_dtype(elem_of(t)))
            for n, t in zip(names, fn.function_type.inputs, strict=True)]
