"""Executing a module at any IR level (tf, cann, kernel) on framework-facing inputs.

    outputs = run_module(module, {"x": x})          # {"Relu": array, ...}

`@main` runs in xDSL's interpreter with the tf/cann/kernel implementations of
compiler/interpreters.  Inputs and outputs are framework-facing: origin layout and shape.  An
argument whose type carries a storage format (`#cann.format<NC1HWC0, origin NHWC [..]>`) is
converted to it on entry, a formatted result back to its origin on exit.  Names: see
compiler/ir/entry.py.  TensorFlow is imported only when a tf op runs.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from compiler.interpreters.cann_impl import CannFunctions
from compiler.interpreters.common import SemanticsError
from compiler.interpreters.kernel_impl import KernelBodyFunctions, KernelControlFunctions, KernelFunctions
from compiler.interpreters.tf_impl import TfFunctions
from compiler.ir.diagnostics import CompileError, OpError, tensor_too_large
from compiler.ir.entry import framework_shape, input_specs, io_names, main_func
from compiler.ir.typed import elem_of
from compiler.target.formats import from_storage, to_storage
from dialects.cann import format_of
from dialects.common import numpy_dtype


def check_sizes(module: ModuleOp) -> None:
    """Every tensor a run would allocate (arguments and results of every op) fits the limit
    `MAX_TENSOR_BYTES`: an IR type may claim terabytes; refuse it before numpy tries."""
    problems: list[tuple[Operation, str]] = []
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            t = v.type
            if isinstance(t, TensorType) and t.get_shape():
                bits = getattr(t.element_type, "bitwidth", 64)
                why = tensor_too_large(t.get_shape(), max(int(bits) // 8, 1))
                if why is not None:
                    problems.append((op, f"{op.name}: cannot execute: {why}"))
                    break
    if problems:
        raise OpError(problems[:1])  # the first: later tensors follow from it


def random_inputs(module: ModuleOp, seed: int = 0) -> dict[str, np.ndarray]:
    """normal(0, 1) inputs of @main's (origin) shapes; dynamic dimensions become 1."""
    check_sizes(module)
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal([d if d >= 0 else 1 for d in shape]).astype(dtype)
            for name, shape, dtype in input_specs(module)}


# --- running -------------------------------------------------------------------------------

def input_problem(name: str, value: np.ndarray, t: Attribute) -> str | None:
    """Why `value` cannot be input `name` of type `t` (shape or dtype), or None."""
    want = framework_shape(t)
    if len(value.shape) != len(want) or any(w >= 0 and w != d for w, d in zip(want, value.shape)):
        return f"input '{name}' has shape {list(value.shape)}, the model expects {list(want)}"
    dtype = numpy_dtype(elem_of(t))
    if value.dtype != dtype and not np.can_cast(value.dtype, dtype, casting="same_kind"):
        return f"input '{name}' has dtype {value.dtype}, the model expects {dtype}"
    return None


def check_inputs(module: ModuleOp, inputs: dict[str, np.ndarray], files: dict[str, str]) -> None:
    """Each given input fits @main's argument of its name; an error names the input's file."""
    fn = main_func(module)
    in_names, _ = io_names(fn)
    types = dict(zip(in_names, fn.function_type.inputs))
    errors = []
    for name, value in inputs.items():
        why = input_problem(name, np.asarray(value), types[name]) if name in types else None
        if why is not None:
            errors.append(f"{files.get(name, name)}: error: {why}")
    if errors:
        raise CompileError(errors)


def prepare_input(name: str, value: np.ndarray, t: Attribute) -> np.ndarray:
    value = np.asarray(value)
    why = input_problem(name, value, t)
    if why is not None:
        raise CompileError(why)
    dtype = numpy_dtype(elem_of(t))
    if value.dtype != dtype:
        value = value.astype(dtype)
    f = format_of(t)
    if f is not None and f.origin_fmt is not None and f.fmt != f.origin_fmt:
        value = to_storage(value, f.fmt, f.origin_fmt, f.groups.data, f.is_grouped_conv)
    return np.asarray(value, order="C")  # (ascontiguousarray would make a scalar input 1-d)


def finish_output(value: np.ndarray, t) -> np.ndarray:
    f = format_of(t)
    if f is not None and f.origin_fmt is not None and f.fmt != f.origin_fmt:
        return from_storage(value, f.fmt, f.origin_fmt, f.origin, f.groups.data, f.is_grouped_conv)
    return np.asarray(value)


class _Tracker(Interpreter.Listener):
    def __init__(self):
        self.op: Operation | None = None

    def will_interpret_op(self, op, args) -> None:
        self.op = op


def make_interpreter(module: ModuleOp, listeners=()) -> Interpreter:
    # Importing xdsl.interpreters.func loads every xDSL interpreter (riscv included, ~0.3-1 s):
    # only executing IR needs it, not a compile that writes a .om.
    from xdsl.interpreters.func import FuncFunctions

    interp = Interpreter(module, listeners=tuple(listeners))
    for fns in (FuncFunctions(), TfFunctions(), CannFunctions(), KernelFunctions(),
                KernelBodyFunctions(), KernelControlFunctions()):
        interp.register_implementations(fns)
    from compiler.interpreters.fused_impl import FusedFunctions  # the fuse pass's ops

    interp.register_implementations(FusedFunctions())
    return interp


def check_input_names(in_names: list[str], inputs: dict[str, np.ndarray]) -> None:
    """Every input fed is one of the model's, and every one of the model's is fed."""
    unknown = sorted(set(inputs) - set(in_names))
    if unknown:
        raise CompileError(f"unknown input '{unknown[0]}'; the model's inputs are "
                           f"{', '.join(in_names) or '(none)'}")
    missing = [n for n in in_names if n not in inputs]
    if missing:
        raise CompileError(f"no value for input '{missing[0]}'")


def run_module(module: ModuleOp, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run @main on framework-layout inputs (by name); return its outputs by name.

    Failures raise CompileError (inputs) or OpError (an op that cannot run, with its message)."""
    fn = main_func(module)
    in_names, out_names = io_names(fn)
    check_input_names(in_names, inputs)
    check_sizes(module)
    args = tuple(prepare_input(n, inputs[n], t)
                 for n, t in zip(in_names, fn.function_type.inputs, strict=True))
    tracker = _Tracker()
    interp = make_interpreter(module, [tracker])
    try:
        results = interp.call_op(fn, args)
    except SemanticsError as e:
        raise OpError([(e.op, e.message)]) from None
    except InterpretationError as e:
        op = tracker.op
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if op is not None and "Could not find interpretation function" in msg:
            raise OpError([(op, f"'{op.name}' has no execution semantics")]) from None
        if op is None:
            raise CompileError(f"{msg}") from None
        raise OpError([(op, f"{op.name}: {msg}")]) from None
    except Exception as e:  # noqa: BLE001 - any op failure becomes one line naming the op
        op = tracker.op
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        if op is None:
            raise
        raise OpError([(op, f"{op.name}: cannot execute: {msg}")]) from None
    return {name: finish_output(v, t)
            for name, v, t in zip(out_names, results, fn.function_type.outputs, strict=True)}
