"""Executing a module at any IR level (tf, cann, kernel) and comparing with TensorFlow.

    outputs = run_module(module, {"x": x})          # {"Relu": array, ...}
    reference = run_graphdef("model.pb", {"x": x}, list(outputs))
    for name, c in compare(outputs, reference, atol=1e-5, rtol=1e-5).items(): ...

`@main` runs in xDSL's interpreter with the tf/cann/kernel implementations of
compiler/interpreters.  Inputs and outputs are framework-facing: origin layout and shape.  An
argument whose type carries a storage format (`#cann.format<NC1HWC0, origin NHWC [..]>`) is
converted to it on entry, a formatted result back to its origin on exit.

Names come from the function attribute `tf.entry_function = {inputs = "x,y", outputs = "Relu,out:1"}`
(what the importer writes); without it, arguments are `arg0, arg1, ..` and results `out0, ..`.
TensorFlow is imported only when a tf op runs or a GraphDef is run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from compiler.frontend.tf_loader import read_graphdef_file
from compiler.frontend.tf_loader import tensorflow as import_tensorflow
from compiler.interpreters.cann_impl import CannFunctions
from compiler.interpreters.common import SemanticsError
from compiler.interpreters.kernel_impl import KernelBodyFunctions, KernelControlFunctions, KernelFunctions
from compiler.interpreters.tf_impl import TfFunctions
from compiler.ir.diagnostics import CompileError, OpError, tensor_too_large
from compiler.ir.typed import elem_of
from compiler.target.formats import from_storage, to_storage
from dialects.cann import format_of, origin_shape
from dialects.common import numpy_dtype

ENTRY_ATTR = "tf.entry_function"


# --- the entry function and its names ------------------------------------------------------

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


def _prepare_input(name: str, value: np.ndarray, t: Attribute) -> np.ndarray:
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


def _finish_output(value: np.ndarray, t) -> np.ndarray:
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

    interp.register_implementations(FusedFunctions(), override=True)
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
    args = tuple(_prepare_input(n, inputs[n], t)
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
    return {name: _finish_output(v, t)
            for name, v, t in zip(out_names, results, fn.function_type.outputs, strict=True)}


# --- the TensorFlow reference ------------------------------------------------------------------

def _tensor_name(name: str) -> str:
    return name if ":" in name else f"{name}:0"


def run_graphdef(path: str, inputs: dict[str, np.ndarray], output_names: list[str]
                 ) -> dict[str, np.ndarray]:
    """Run a frozen GraphDef (.pb binary or .pbtxt text) in TensorFlow (tf.compat.v1 Session)."""
    tf = import_tensorflow()
    gd = read_graphdef_file(path)
    for node in gd.node:  # a model compiled with --input_shape: run TF at the fed shapes too
        if node.op == "Placeholder" and node.name in inputs and "shape" in node.attr:
            shape = node.attr["shape"].shape
            shape.Clear()
            for d in np.shape(inputs[node.name]):
                shape.dim.add().size = int(d)
    graph = tf.Graph()
    with graph.as_default():
        try:
            tf.compat.v1.import_graph_def(gd, name="")
        except Exception as e:  # noqa: BLE001
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise CompileError(f"{path}: error: TensorFlow cannot import the graph: {first}") from None

    def tensor(name: str, what: str):
        try:
            return graph.get_tensor_by_name(_tensor_name(name))
        except (KeyError, ValueError):
            raise CompileError(f"{path}: error: the graph has no {what} '{name}'") from None

    feed = {tensor(n, "input"): v for n, v in inputs.items()}
    fetches = [tensor(n, "output") for n in output_names]
    with tf.compat.v1.Session(graph=graph) as sess:
        try:
            values = sess.run(fetches, feed_dict=feed)
        except Exception as e:  # noqa: BLE001
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise CompileError(f"{path}: error: TensorFlow failed to run the graph: {first}") from None
    return {n: np.asarray(v) for n, v in zip(output_names, values, strict=True)}


# --- comparison --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    name: str
    max_abs: float
    max_rel: float
    ok: bool
    note: str = ""


def compare(ours: dict[str, np.ndarray], reference: dict[str, np.ndarray], atol: float = 1e-5,
            rtol: float = 1e-5) -> dict[str, Comparison]:
    """Per output: max |a-b|, max |a-b| / max(|b|, tiny), and numpy.allclose's verdict
    (|a-b| <= atol + rtol*|b| everywhere; NaN never passes)."""
    out: dict[str, Comparison] = {}
    for name, b in reference.items():
        if name not in ours:
            out[name] = Comparison(name, float("inf"), float("inf"), False, "missing from our outputs")
            continue
        a = np.asarray(ours[name])
        b = np.asarray(b)
        if a.shape != b.shape:
            out[name] = Comparison(name, float("inf"), float("inf"), False,
                                   f"shape {list(a.shape)} vs reference {list(b.shape)}")
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        diff = np.abs(a64 - b64)
        tiny = np.finfo(np.float32).tiny
        max_abs = float(diff.max()) if diff.size else 0.0
        max_rel = float((diff / np.maximum(np.abs(b64), tiny)).max()) if diff.size else 0.0
        ok = bool(np.allclose(a64, b64, atol=atol, rtol=rtol))
        out[name] = Comparison(name, max_abs, max_rel, ok)
    return out


# --- what cann-run prints and saves for one run -------------------------------------------------

def output_file_name(name: str, tag: str = "") -> str:
    """The .npy file `--output-dir` gets for output `name` (`tag`: `_run{k}` of repeated runs)."""
    return name.replace("/", "_").replace(":", "_") + tag + ".npy"


def summary(name: str, v: np.ndarray) -> str:
    """One output as cann-run prints it without --compare-with: shape, dtype and value range."""
    if v.size and np.issubdtype(v.dtype, np.number):
        f = v.astype(np.float64)
        stats = f" min={f.min():.6g} max={f.max():.6g} mean={f.mean():.6g}"
    else:
        stats = ""
    return f"{name}: shape={list(v.shape)} dtype={v.dtype}{stats}"


def repeated_inputs(specs, load_npy) -> dict[str, list[tuple[str, np.ndarray]]]:
    """cann-run's `--input NAME=FILE.npy`, each name possibly given more than once (one run per
    value): name -> [(file, array), ...] in the order given."""
    given: dict[str, list[tuple[str, np.ndarray]]] = {}
    for spec in specs:
        name, eq, path = spec.partition("=")
        if not eq or not name or not path:
            raise CompileError(f"cann-run: error: --input expects NAME=FILE.npy, got '{spec}'")
        given.setdefault(name, []).append((path, load_npy(path, name)))
    return given


def report_run(args, outputs: dict[str, np.ndarray], reference_inputs: dict[str, np.ndarray],
               prefix: str = "", tag: str = "") -> bool:
    """cann-run's output for one run: the outputs saved to `--output-dir` (file names with
    `tag`), then either one summary line per output or, with `--compare-with`, one comparison
    line per output against TensorFlow run on `reference_inputs`.  Each line starts with
    `prefix` (which gear or shape the run was).  True when a comparison failed."""
    import os

    if args.output_dir:
        try:
            os.makedirs(args.output_dir, exist_ok=True)
            for name, v in outputs.items():
                np.save(os.path.join(args.output_dir, output_file_name(name, tag)), v)
        except OSError as e:
            raise CompileError(f"{args.output_dir}: error: cannot write: {e.strerror}") from None
    if not args.compare_with:
        for name, v in outputs.items():
            print(prefix + summary(name, v))
        return False
    reference = run_graphdef(args.compare_with, reference_inputs, list(outputs))
    failed = False
    for name, c in compare(outputs, reference, args.atol, args.rtol).items():
        note = f" [{c.note}]" if c.note else ""
        print(f"{prefix}{name}: max_abs={c.max_abs:.3g} max_rel={c.max_rel:.3g} "
              f"(atol={args.atol:g}, rtol={args.rtol:g}) {'OK' if c.ok else 'FAIL'}{note}")
        failed |= not c.ok
    return failed
