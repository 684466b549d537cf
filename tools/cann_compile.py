"""cann-compile: a TensorFlow model to a deployable offline model (.om), like ATC.

    cann-compile --model=model.pb --framework=3 --soc_version=Ascend910B3 --output=model
                 [--input_shape="x:1,224,224,3"] [--out_nodes="logits:0"]
                 [--precision_mode=force_fp16] [--fusion_switch_file=switch.cfg]
                 [--report] [--report-json=FILE] [--dump-graph=graph.svg|graph.dot]

Runs import -> the passes of the `kernel` level in compiler/pipelines.py (tf-to-cann, fuse,
assign-layouts, cann-to-kernel and whatever optimizations that list holds) -> plan-memory, and
writes the offline model atomically (`-o model` writes model.om, as ATC does).  Options are
spelt as ATC spells them (`--soc_version`) or with dashes (`--soc-version`).

An option is handed to the pass that declares a field for it (precision_mode, switch_file /
fusion_switch_file, soc_version); an option no pass of the pipeline takes is an error naming
it, never silently ignored.  --input_shape and --out_nodes are given to the importer when it
takes them; otherwise they must agree with the graph (a graph whose shapes differ is an error).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import inspect
import os
import sys
import time
from collections.abc import Iterator, Sequence

from compiler.cli import ToolArgumentParser, run_tool
from compiler.diagnostics import CompileError, OpError, SourceMap

TOOL = "cann-compile"
FRAMEWORKS = {"0": "Caffe", "1": "MindSpore", "3": "TensorFlow", "5": "ONNX"}
PRECISION_MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp32")
#: What the pipeline does when no pass takes a precision mode: every op keeps its dtype.
IMPLICIT_PRECISION = "must_keep_origin_dtype"
#: Passes that only add attributes the verifier does not check (plan-memory re-checks its plan
#: with its own overlap checker): the module they leave was verified after the pass before.
ANNOTATING_PASSES = frozenset({"plan-memory"})


def _parser() -> ToolArgumentParser:
    p = ToolArgumentParser(prog=TOOL, description="Compile a TensorFlow model to an offline model (.om).")
    a = p.add_argument
    a("--model", required=True, help="frozen GraphDef (.pb / .pbtxt) or tf-level IR (.mlir)")
    a("--framework", default="3", help="3 = TensorFlow (the only one supported)")
    a("--soc_version", "--soc-version", dest="soc_version", default=None,
      help="chip (default: Ascend910B3)")
    a("--input_shape", "--input-shape", dest="input_shape", default=None,
      help='"name:1,224,224,3;name2:..."')
    a("--input_format", "--input-format", dest="input_format", default=None,
      help="layout of the inputs (TensorFlow: NHWC)")
    a("--out_nodes", "--out-nodes", dest="out_nodes", default=None, help='"node:0;node2:0"')
    a("--precision_mode", "--precision-mode", dest="precision_mode", default=None,
      choices=PRECISION_MODES)
    a("--fusion_switch_file", "--fusion-switch-file", dest="fusion_switch_file", default=None,
      help="fusion passes to switch off (ATC format: 'Name:off' lines or JSON)")
    a("-o", "--output", required=True, help="output path (.om appended when missing)")
    a("--report", action="store_true", help="print the performance estimate")
    a("--report-json", dest="report_json", default=None, metavar="FILE",
      help="write the performance estimate as JSON")
    a("--dump-graph", dest="dump_graph", default=None, metavar="FILE.dot|FILE.svg",
      help="draw the graph before and after fusion")
    a("--name", default=None, help="model name in the .om header (default: the output's)")
    a("--time", action="store_true", help="print the time of each step on stderr")
    return p


# --- options -> passes ----------------------------------------------------------------------

def pipeline_names() -> list[str]:
    from compiler.pipelines import LEVELS

    return [*LEVELS["kernel"], "plan-memory"]


def pass_classes(names: Sequence[str]) -> dict[str, type]:
    from passes import ALL_PASSES

    missing = [n for n in names if n not in ALL_PASSES]
    if missing:
        raise CompileError(f"{TOOL}: internal error: unknown passes {', '.join(missing)}")
    return {n: ALL_PASSES[n]() for n in names}


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()


def route_options(classes: dict[str, type], wanted: dict[str, tuple[tuple[str, ...], object, str]]
                  ) -> dict[str, dict[str, object]]:
    """wanted: option -> (candidate field names, value, flag).  Each goes to every pass that has
    one of the fields; an option no pass takes raises CompileError naming the flag."""
    per_pass: dict[str, dict[str, object]] = {n: {} for n in classes}
    errors = []
    for opt, (field_names, value, flag) in wanted.items():
        taken = False
        for name, cls in classes.items():
            fs = _fields(cls)
            for f in field_names:
                if f in fs:
                    per_pass[name][f] = value
                    taken = True
                    break
        if not taken:
            errors.append(f"{TOOL}: error: {flag} is not supported yet: no pass of the pipeline "
                          f"({', '.join(classes)}) takes a {' or '.join(field_names)} option")
    if errors:
        raise CompileError(errors)
    return per_pass


def parse_input_shape(spec: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for part in (p for p in spec.split(";") if p.strip()):
        name, colon, dims = part.rpartition(":")
        if not colon or not name:
            raise CompileError(f"{TOOL}: error: --input_shape expects 'name:d0,d1,...', got '{part}'")
        try:
            out[name.strip()] = [int(d) for d in dims.split(",") if d.strip()]
        except ValueError:
            raise CompileError(f"{TOOL}: error: --input_shape: '{dims}' is not a list of integers") from None
    return out


def _import(path: str, shapes: dict | None, outs: list[str] | None):
    """Import, giving the importer the shapes / outputs when it takes them; returns
    (module, shapes_applied, outs_applied)."""
    if path.endswith((".pb", ".pbtxt")):
        from compiler.importers import graphdef

        fn = graphdef.import_graphdef_file
        params = inspect.signature(fn).parameters
        kwargs = {}
        applied_s = applied_o = False
        for key in ("input_shapes", "input_shape"):
            if shapes and key in params:
                kwargs[key], applied_s = shapes, True
                break
        for key in ("out_nodes", "outputs", "output_names"):
            if outs and key in params:
                kwargs[key], applied_o = outs, True
                break
        return fn(path, **kwargs), applied_s, applied_o
    if path.endswith(".mlir"):
        from compiler.ir_io import load_module

        return load_module(path)[0], False, False
    raise CompileError(f"{path}: error: --model must be a frozen GraphDef (.pb, .pbtxt) or .mlir")


def _check_against_graph(module, shapes: dict | None, outs: list[str] | None) -> None:
    if not shapes and not outs:
        return
    from compiler.runner import input_specs, io_names, main_func  # (imports the interpreters)

    if shapes:
        have = {n: list(s) for n, s, _ in input_specs(module)}
        for name, dims in shapes.items():
            if name not in have:
                raise CompileError(f"{TOOL}: error: --input_shape names '{name}', the model's "
                                   f"inputs are {', '.join(have) or '(none)'}")
            if have[name] != dims:
                raise CompileError(
                    f"{TOOL}: error: --input_shape {name}:{','.join(map(str, dims))} differs from "
                    f"the graph's {have[name]}, and the importer cannot change input shapes yet")
    if outs:
        _, have_out = io_names(main_func(module))
        norm = lambda s: s[:-2] if s.endswith(":0") else s  # noqa: E731
        if sorted(map(norm, outs)) != sorted(map(norm, have_out)):
            raise CompileError(
                f"{TOOL}: error: --out_nodes {';'.join(outs)} differs from the graph's outputs "
                f"{';'.join(have_out)}, and the importer cannot select outputs yet")


# --- the driver -------------------------------------------------------------------------------

@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (reference counting still frees everything that
    is not in a cycle).  A compile allocates ~10^5 IR objects and frees few cycles, and every full
    collection rescans the whole heap, TensorFlow's ~3*10^5 objects included: ~0.4 s of a
    ResNet50 compile for nothing (benchmarks/compile_vs_grappler.py; peak RSS ~1.0 GB either
    way).  Nests; the collector is enabled again on exit if it was enabled on entry."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def compile_model(args, log=lambda step, dt: None):
    """Returns (kernel-level planned module, before-fusion module or None, after-fusion module
    or None)."""
    from compiler.chips import DEFAULT_CHIP, UnknownChipError, get_chip

    if str(args.framework) != "3":
        fw = FRAMEWORKS.get(str(args.framework), f"'{args.framework}'")
        raise CompileError(f"{TOOL}: error: --framework={args.framework} ({fw}) is not supported; "
                           "only 3 (TensorFlow) is")
    if args.input_format not in (None, "NHWC"):
        raise CompileError(f"{TOOL}: error: --input_format={args.input_format} is not supported; "
                           "TensorFlow inputs are NHWC")
    chip = args.soc_version or DEFAULT_CHIP
    try:
        get_chip(chip)
    except UnknownChipError as e:
        raise CompileError(f"{TOOL}: error: --soc_version: {e}") from None
    if args.fusion_switch_file and not os.path.isfile(args.fusion_switch_file):
        raise CompileError(f"{args.fusion_switch_file}: error: no such file (--fusion_switch_file)")
    shapes = parse_input_shape(args.input_shape) if args.input_shape else None
    outs = [s.strip() for s in args.out_nodes.split(";") if s.strip()] if args.out_nodes else None

    names = pipeline_names()
    classes = pass_classes(names)
    wanted: dict = {}
    if any("soc_version" in _fields(c) for c in classes.values()):
        # also recorded on the module (cann.soc_version), which every pass reads
        wanted["soc_version"] = (("soc_version",), chip, "--soc_version")
    if args.precision_mode is not None:
        fields = ("precision_mode",)
        if args.precision_mode == IMPLICIT_PRECISION and not any(
                "precision_mode" in _fields(c) for c in classes.values()):
            pass  # what the pipeline does anyway: every op keeps its dtype
        else:
            wanted["precision_mode"] = (fields, args.precision_mode, "--precision_mode")
    if args.fusion_switch_file:
        wanted["switch"] = (("fusion_switch_file", "switch_file"), args.fusion_switch_file,
                            "--fusion_switch_file")
    per_pass = route_options(classes, wanted)
    with cycle_collection_paused():
        return _run_pipeline(args, names, classes, per_pass, chip, shapes, outs, log)


def _run_pipeline(args, names, classes, per_pass, chip, shapes, outs, log):
    """Import, then every pass in order, verifying after each (see compile_model)."""
    from xdsl.dialects.builtin import StringAttr

    from compiler.diagnostics import verify_module
    from compiler.ir_io import make_context

    t0 = time.perf_counter()
    module, applied_s, applied_o = _import(args.model, shapes, outs)
    _check_against_graph(module, None if applied_s else shapes, None if applied_o else outs)
    module.attributes["cann.soc_version"] = StringAttr(chip)
    log("import", time.perf_counter() - t0)
    ctx = make_context()
    source = SourceMap(args.model)
    before = after = None
    for name in names:
        t0 = time.perf_counter()
        if name == "fuse" and args.dump_graph:
            before = module.clone()
        p = classes[name](**per_pass[name])
        try:
            p.apply(ctx, module)
        except OpError as e:
            raise CompileError([source.describe(op, msg) for op, msg in e.items]) from None
        if name not in ANNOTATING_PASSES:
            verify_module(module, source)
        if name == "fuse" and args.dump_graph:
            after = module.clone()
        log(name, time.perf_counter() - t0)
    return module, before, after


def output_path(path: str) -> str:
    return path if path.endswith(".om") else path + ".om"


def main(argv: Sequence[str] | None = None) -> int:
    def body() -> int:
        args = _parser().parse_args(argv)
        from compiler.offline_model import write_offline_model

        def log(step: str, dt: float) -> None:
            if args.time:
                print(f"// {step}: {dt:.4f} s", file=sys.stderr)

        t_all = time.perf_counter()
        with cycle_collection_paused():
            module, before, after = compile_model(args, log)
            out = output_path(args.output)
            if args.dump_graph:
                from compiler.graph_dump import fusion_dot, write_graph

                if before is None or after is None:
                    raise CompileError(f"{TOOL}: error: --dump-graph: the pipeline has no fuse step")
                write_graph(args.dump_graph, fusion_dot(before, after, os.path.basename(out)))
            t0 = time.perf_counter()
            name = args.name or os.path.splitext(os.path.basename(out))[0]
            size = write_offline_model(module, out, name)
            log("write .om", time.perf_counter() - t0)
        from compiler.runner import main_func
        from compiler.memory_plan import read_plan

        plan = read_plan(main_func(module))
        print(f"{out}: {size} bytes, {len(plan.collected.launches)} kernels, arena {plan.arena} B "
              f"(live-set bound {plan.live_bound} B, naive {plan.naive} B), "
              f"compiled in {time.perf_counter() - t_all:.2f} s")
        if args.report or args.report_json:
            from compiler.perf_report import perf_report

            rep = perf_report(module)
            if args.report:
                sys.stdout.write(rep.to_text())
            if args.report_json:
                from compiler.ir_io import write_atomically

                write_atomically(args.report_json, lambda: rep.to_json() + "\n")
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
