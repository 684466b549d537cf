"""Shape ranges (issue 16 part 2): `--input_shape="x:1~16,224,224,3"` compiles once for every
shape in the range; the kernels are tiled at dispatch, for the shape the model is run at.

    cann-compile --model=m.pb --input_shape="x:1~16,32,32,3" --output=m    # one .om
    cann-run m.om --input x=x4.npy --input x=x9.npy --compare-with m.pb     # one run per value

What the compile does:

1. The model is imported at the range's largest shape with TensorFlow's shape inference; a value
   whose shape is still unknown there depends on the data (Where, Unique, ...), which no range
   can express: one error naming the node.
2. It is imported again with `?` at every ranged dimension.  Reshape targets Keras computes from
   the tensor's own shape (Tensordot) are folded symbolically (compiler/frontend/symbolic_shapes.py)
   and shape inference reruns, until nothing changes.  tf-to-cann and cann-cleanup run on this
   symbolic graph: the cann level carries `?` (the mapping table, Einsum included, keeps it).
3. Fusion and layouts run once, at the ranges' smallest and largest shapes, generalized into
   kernels with `?` types (`kernel.dispatch`, each with its tiling function: the solver and its
   symbolic inputs), recorded as `cann.dispatch_kernels`; at dispatch the ops' shape rules give
   every shape and only cann-to-kernel and plan-memory run (runtime_tiling.py, "kernels lowered
   once").  When that generalization does not hold (a note names why and the node), the rest of
   the pipeline (fuse, [set-precision], assign-layouts, cann-to-kernel, plan-memory)
   is the *tiling function*: it runs at dispatch on the symbolic function made concrete at the
   run's shape (tools/driver/runtime_tiling.py), with the same tiling solver as a static
   compile.  The kernel module of the .om is this function run at the range's largest shape, so
   its memory plan is sized for the maximum; the symbolic function, the ranges and the tiling
   function's pass spec are recorded on that module (attributes `cann.shape_ranges`,
   `cann.dispatch_pipeline`, `cann.dispatch_source`), so they travel inside MODEL_DEF.
4. The tiling function also runs at the range's smallest shape at compile time: an op it cannot
   lower, or a plan larger than the maximum's, is a compile error, not a run-time one.

A range is `lo~hi` (1 <= lo <= hi), or, in a spec with a range, ATC's `-1`: any size from 1 up
(`x:1~1,-1,32` for one unbounded dimension alone; a spec of -1s without a range is the gears'
(tools/driver/gears.py), where a -1 needs a gear option).  With an unbounded dimension there is no
maximum: the .om's kernels and
arena are those at the ranges' smallest shape, and each dispatch plans (and the caller provides)
the arena its shape needs.  A shape outside the ranges is one error naming the input, its shape
and the allowed ones.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass

from compiler.frontend.shape_spec import parse_named_shapes
from compiler.ir.diagnostics import CompileError
from tools.driver.atc_options import option_error
from tools.driver.runtime_tiling import KERNELS_ATTR, PIPELINE_ATTR, RANGES_ATTR, SOURCE_ATTR

#: Rounds of symbolic reshape folding + re-import (each round can refine the next Reshape).
MAX_REFINE_ROUNDS = 8


@dataclass(frozen=True)
class DimRange:
    lo: int
    hi: int | None
    """None: unbounded (ATC's -1)."""

    @property
    def ranged(self) -> bool:
        return self.lo != self.hi

    def text(self) -> str:
        if self.hi is None:
            return "-1"
        return f"{self.lo}~{self.hi}" if self.ranged else str(self.lo)

    def holds(self, d: int) -> bool:
        return self.lo <= d and (self.hi is None or d <= self.hi)


Ranges = dict[str, tuple[DimRange, ...]]


def parse_ranges(spec: str) -> Ranges:
    """`"x:1~16,224,224,3;y:1,1~128"` -> {name: (DimRange, ...)}."""
    def bad(why: str) -> CompileError:
        return option_error("input_shape", spec, why)

    def dim(part: str, d: str) -> DimRange:
        if d == "-1":
            return DimRange(1, None)
        lo_s, tilde, hi_s = d.partition("~")
        if not tilde:
            lo_s = hi_s = d
        if not (lo_s.strip().isdigit() and hi_s.strip().isdigit()):
            raise bad(f"'{part}': '{d}' is neither a positive integer nor a range lo~hi")
        lo, hi = int(lo_s), int(hi_s)
        if lo < 1 or hi < lo:
            raise bad(f"'{part}': range '{d}' must have 1 <= lo <= hi")
        return DimRange(lo, hi)

    out = {n: tuple(dims) for n, dims in parse_named_shapes(spec, bad, dim).items()}
    if not any(r.ranged for dims in out.values() for r in dims):
        raise bad("no dimension is a range lo~hi or -1")
    return out


def ranges_text(ranges: Ranges) -> str:
    return ";".join(f"{n}:{','.join(r.text() for r in dims)}" for n, dims in ranges.items())


def shape_at(ranges: Ranges, which: str) -> dict[str, list[int]]:
    """The smallest ("lo") or largest ("hi") shape; an unbounded dimension's largest is its lo."""
    return {n: [r.lo if getattr(r, which) is None else getattr(r, which) for r in dims]
            for n, dims in ranges.items()}


def bounded(ranges: Ranges) -> bool:
    return all(r.hi is not None for dims in ranges.values() for r in dims)


def outside(ranges: Ranges, name: str, shape) -> str | None:
    """Why `shape` is no shape of input `name` in the ranges, or None."""
    dims = ranges.get(name)
    if dims is None:
        return None
    shape = tuple(int(d) for d in shape)
    if len(shape) == len(dims) and all(r.holds(d) for r, d in zip(dims, shape)):
        return None
    allowed = ",".join(r.text() for r in dims)
    return f"input '{name}' has shape {list(shape)}, outside the compiled ranges [{allowed}]"


def parse_shape_spec(spec: str, option: str) -> dict[str, list[int]]:
    """`"x:4,32,32,3;y:..."` (concrete shapes, e.g. --report-shape)."""
    def bad(why: str) -> CompileError:
        return option_error(option, spec, why)

    def dim(part: str, d: str) -> int:
        if not d.isdigit() or int(d) == 0:
            raise bad(f"'{part}': dimension '{d}' is not a positive integer")
        return int(d)

    return parse_named_shapes(spec, bad, dim)


# --- the compile ------------------------------------------------------------------------------

def _load_graphdef(path: str):
    from compiler.frontend.tf_loader import load_keras_graphdef, load_saved_model_graphdef, read_graphdef_file

    if os.path.isdir(path):
        return load_saved_model_graphdef(path, None)
    if path.endswith(".keras"):
        return load_keras_graphdef(path)
    if path.endswith((".pb", ".pbtxt")):
        return read_graphdef_file(path)
    if path.endswith(".mlir"):  # tf-level IR: exported, so TensorFlow's shape inference reruns
        from compiler.frontend.exporters.graphdef import graphdef_of_tf_mlir

        return graphdef_of_tf_mlir(path, "--input_shape with a range")[0]
    raise CompileError(f"{path}: error: --input_shape with a range needs a TensorFlow model "
                       "(.pb, .pbtxt, SavedModel, .keras) or tf-level IR (.mlir)")


def _import(graph_def, path: str, shapes: dict[str, list[int]], outs, warn):
    from compiler.frontend.importers.graphdef import import_graphdef

    return import_graphdef(graph_def, path, input_shapes=shapes, outputs=outs, warn=warn)


def check_data_independent(module, path: str) -> None:
    """At a concrete input shape every value's shape is known unless it depends on the data."""
    from xdsl.dialects.builtin import TensorType

    from compiler.ir.diagnostics import node_name

    for op in module.walk():
        for r in op.results:
            t = r.type
            if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
                shape = "x".join("?" if d < 0 else str(d) for d in t.get_shape())
                raise CompileError(
                    f"{path}: error: node '{node_name(op) or op.name}' ({op.name}) has an output "
                    f"shape ({shape}) that depends on the data, not only on the input shapes; "
                    "a shape range cannot express it")


def import_symbolic(path: str, ranges: Ranges, outs, warn=lambda line: None):
    """The tf-level module with `?` at each ranged dimension, reshape targets folded."""
    from compiler.frontend.symbolic_shapes import erase_dead_shape_ops, patch_graphdef, reshape_targets

    graph_def = copy.deepcopy(_load_graphdef(path))
    shapes = {n: [-1 if r.ranged else r.lo for r in dims] for n, dims in ranges.items()}
    at_max = _import(graph_def, path, shape_at(ranges, "hi"), outs, warn)
    check_data_independent(at_max, path)
    if outs is None:  # the graph's own outputs: a patched shape subgraph must not become one
        from compiler.ir.entry import io_names, main_func

        outs = io_names(main_func(at_max))[1]
    module = _import(graph_def, path, shapes, outs, warn)
    for _ in range(MAX_REFINE_ROUNDS):
        targets = reshape_targets(module)
        if not targets:
            break
        patch_graphdef(graph_def, targets)
        module = _import(graph_def, path, shapes, outs, warn)
    erase_dead_shape_ops(module)
    return module


def compile_ranged(args, options, log_step=lambda step, dt: None, print_spec=None,
                   warn=lambda line: None):
    """cann-compile with a ranged --input_shape: the kernel module at the range's maximum, with
    the symbolic function and the tiling function recorded on it."""
    import time

    from xdsl.dialects.builtin import DictionaryAttr, StringAttr

    from compiler.ir.diagnostics import SourceMap
    from compiler.ir.ir_io import make_context
    from tools.driver.pipelines import build_pipeline, dispatch_head, pipeline_spec, run_pipeline
    from tools.driver.runtime_tiling import Dispatcher, tail_passes

    ranges = parse_ranges(args.input_shape)
    for flag, given in (("--dump-graph", args.dump_graph), ("--layout-report", args.layout_report)):
        if given:  # fusion and layouts run per shape at dispatch: no one graph to draw or report
            raise CompileError(f"{flag} cannot be used with a ranged --input_shape (fusion and "
                               "layouts run per shape, at dispatch); compile at one shape for it")
    t0 = time.perf_counter()
    outs = args.out_nodes.split(";") if args.out_nodes else None
    module = import_symbolic(args.model, ranges, outs)
    log_step("import (symbolic)", time.perf_counter() - t0)
    from dataclasses import replace

    head = build_pipeline(replace(options, level="cann"))
    tail = [*dispatch_head(), *tail_passes(options)]
    if print_spec:
        print_spec(pipeline_spec([*head, *tail]))
    module.attributes["cann.soc_version"] = StringAttr(options.chip.name)
    if args.input_format:
        module.attributes["cann.input_format"] = StringAttr(args.input_format)
    t0 = time.perf_counter()
    run_pipeline(make_context(), module, head, SourceMap(args.model))
    log_step("tf-to-cann (symbolic)", time.perf_counter() - t0)
    module.attributes[RANGES_ATTR] = DictionaryAttr(
        {n: StringAttr(",".join(r.text() for r in dims)) for n, dims in ranges.items()})
    module.attributes[PIPELINE_ATTR] = StringAttr(pipeline_spec(tail))
    dispatcher = Dispatcher(module, source=args.model)
    t0 = time.perf_counter()
    dispatcher.lower_once()
    log_step("fusion and layouts once (kernels with ?)", time.perf_counter() - t0)
    if dispatcher.fallback:
        warn(f"{args.model}: note: the kernels are fused and laid out per shape at dispatch: "
             f"{dispatcher.fallback}")
    t0 = time.perf_counter()
    top = dispatcher.kernels(shape_at(ranges, "hi"))
    low = dispatcher.kernels(shape_at(ranges, "lo"))  # lowers at the smallest shape too
    from compiler.backend.memory_plan import read_plan
    from compiler.ir.entry import main_func

    arena = read_plan(main_func(top)).arena
    if bounded(ranges) and read_plan(main_func(low)).arena > arena:
        raise CompileError(f"{args.model}: error: the memory plan at the smallest shape "
                           f"({read_plan(main_func(low)).arena} B) exceeds the one at the largest "
                           f"({arena} B): a plan sized for the range's maximum cannot hold it")
    log_step("tiling at min and max", time.perf_counter() - t0)
    out = top.clone()
    for key in (RANGES_ATTR, PIPELINE_ATTR):
        out.attributes[key] = module.attributes[key]
    if dispatcher.dispatch_kernels is not None:  # the kernels with `?` (one copy of the weights)
        from compiler.ir.ir_io import module_to_text

        out.attributes[KERNELS_ATTR] = StringAttr(module_to_text(dispatcher.dispatch_kernels))
    else:  # the whole tiling function runs per shape, from the `?` cann function
        out.attributes[SOURCE_ATTR] = StringAttr(dispatcher.source_text())
    return out, dispatcher


def pre_check_ranged(path: str, spec: str, outputs, pre_check) -> dict:
    """--mode=3 with a ranged --input_shape: `model_info.pre_check` on what a ranged compile
    legalizes, the symbolic import (a data-dependent shape is its import-stage entry, naming
    the node); the result says the ranges."""
    ranges = parse_ranges(spec)
    result = pre_check(path, outputs=outputs,
                       importer=lambda: import_symbolic(path, ranges, outputs))
    return {**result, "shape_ranges": ranges_text(ranges)}


def recorded(module) -> bool:
    return RANGES_ATTR in module.attributes


def shape_reports(module, specs: list[str], json_path: str | None) -> int:
    """--report-shape: the perf report of the kernels a range-compiled `module` runs at each
    shape, printed (and with --report-json written: one report, or {shape: report} for
    several).  The kernels are those of the dispatch (the same tiling function and cache)."""
    import json

    from compiler.backend.perf_report import perf_report
    from tools.driver.runtime_tiling import Dispatcher

    if not recorded(module):
        raise CompileError(f"--report-shape={specs[0]}: needs a ranged --input_shape (lo~hi)")
    shapes = [parse_shape_spec(spec, "report-shape") for spec in specs]  # all checked first
    dispatcher = Dispatcher.of_kernel_module(module)
    reports = {}
    for spec, shape in zip(specs, shapes):
        rep = reports[spec] = perf_report(dispatcher.kernels(shape))
        print(f"estimate at {spec} (tiled at dispatch):")
        print(rep.to_text(), end="")
    if json_path:
        from compiler.ir.ir_io import write_atomically

        data = next(iter(reports.values())).to_dict() if len(reports) == 1 else \
            {spec: r.to_dict() for spec, r in reports.items()}
        write_atomically(json_path, lambda: json.dumps(data, indent=1) + "\n")
    return 0


# --- cann-run ---------------------------------------------------------------------------------

def run_ranged(args, module, model_path: str, load_npy) -> int:
    """cann-run on a range-compiled model: `--input NAME=FILE` may repeat, one run per value
    (an input given fewer times keeps its last value; one never given is random, at the range's
    largest shape).  Each run is dispatched at its inputs' shapes; the tiling cache's hits and
    misses are printed after the runs."""
    import numpy as np

    from compiler.interpreters.execute import random_inputs
    from compiler.ir.entry import input_specs
    from tools.driver.runner import repeated_inputs, report_run
    from tools.driver.runtime_tiling import Dispatcher

    dispatcher = Dispatcher.of_kernel_module(module, model_path)
    known = [n for n, _, _ in input_specs(module)]
    given = repeated_inputs(args.input, load_npy)
    for name in given:
        if name not in known:
            raise CompileError(f"cann-run: error: unknown input '{name}'; the model's inputs are "
                               f"{', '.join(known) or '(none)'}")
    for name, values in given.items():
        for path, v in values:
            if name in dispatcher.ranges and (why := outside(dispatcher.ranges, name, np.shape(v))):
                raise CompileError(f"{path}: error: {why}")
    n_runs = max((len(v) for v in given.values()), default=1)
    default = random_inputs(module, args.seed)
    failed = False
    for k in range(n_runs):
        inputs = dict(default)
        for name, values in given.items():
            inputs[name] = values[min(k, len(values) - 1)][1]
        shapes = ";".join(f"{n}:{','.join(map(str, np.shape(v)))}" for n, v in inputs.items())
        outputs = dispatcher.run(inputs)
        prefix = f"[{shapes}] " if n_runs > 1 or args.compare_with else ""
        failed |= report_run(args, outputs, inputs, prefix, f"_run{k}" if n_runs > 1 else "")
    print(dispatcher.stats_line())
    return 1 if failed else 0
