"""cann-run's reference and report: TensorFlow on the same inputs, the comparison, what it prints.

    outputs = run_module(module, {"x": x})          # compiler/interpreters/execute.py
    reference = run_graphdef("model.pb", {"x": x}, list(outputs))
    for name, c in compare(outputs, reference, atol=1e-5, rtol=1e-5).items(): ...

TensorFlow is imported only when a GraphDef is run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.frontend.tf_loader import read_graphdef_file
from compiler.frontend.tf_loader import tensorflow as import_tensorflow
from compiler.ir.diagnostics import CompileError

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
