"""cann-compile: a TensorFlow model to a deployable offline model (.om), like ATC.

    cann-compile --model=model.pb --framework=3 --soc_version=Ascend910B3 --output=model
                 [--input_shape="x:1,224,224,3"] [--out_nodes="logits:0"] [--input_format=NHWC]
                 [--precision_mode=force_fp16] [--keep_dtype=keep.cfg] [--customize_dtypes=c.cfg]
                 [--output_type=FP16] [--fusion_switch_file=switch.cfg] [--log=info]
                 [--print-pipeline] [--report] [--report-json=FILE] [--dump-graph=graph.svg]
    cann-compile --mode=1 --om=model.om --json=model.json          # an .om (or, with
                                                                   # --framework=3, a .pb) to JSON
    cann-compile --mode=3 --framework=3 --model=model.pb [--check_report=check_result.json]
    cann-compile --mode=6 --om=model.om                            # model information

Options are spelt as ATC spells them (`--soc_version`) or with dashes (`--soc-version`).  Each
one becomes a field of `PipelineOptions` (tools/driver/pipelines.py), which builds the explicit pass
pipeline; `--print-pipeline` prints it as the `-p` spec `cann-opt` replays.  The input shapes and
outputs go to the importer as keyword arguments (shape inference reruns on the new shapes).  An
ATC option this compiler does not implement is rejected by name (tools/driver/atc_options.py),
never silently accepted.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence

from compiler.ir.diagnostics import CompileError, SourceMap
from compiler.ir.typed import block_of
from tools.driver.cli import ToolArgumentParser, run_tool

TOOL = "cann-compile"
FRAMEWORKS = {"0": "Caffe", "1": "MindSpore", "3": "TensorFlow", "5": "ONNX"}
#: Passes that only add attributes the verifier does not check (plan-memory re-checks its plan
#: with its own overlap checker): the module they leave was verified after the pass before.
ANNOTATING_PASSES = frozenset({"plan-memory"})
#: Layout-sensitive TF attributes: the layout a model's ops read their inputs in.
INPUT_FORMATS = ("NHWC", "NCHW", "ND")

log = logging.getLogger("cann.compile")


def _parser() -> ToolArgumentParser:
    from tools.driver.atc_options import LOG_LEVELS, NOT_IMPLEMENTED
    from tools.driver.pipelines import PRECISION_MODES

    p = ToolArgumentParser(prog=TOOL, description="Compile a TensorFlow model to an offline model (.om).")
    a = p.add_argument

    def both(name: str, **kw):
        a(*dict.fromkeys([f"--{name}", f"--{name.replace('_', '-')}"]), dest=name, **kw)

    both("mode", default="0", help="0 compile (default), 1 model to JSON, 3 pre-check only, "
                                   "6 model information of an .om")
    a("--model", default=None, help="frozen GraphDef (.pb / .pbtxt) or tf-level IR (.mlir)")
    a("--framework", default="3", help="3 = TensorFlow (the only one supported)")
    a("--om", default=None, help="--mode=1/6: the offline model (or, --mode=1 with --framework, "
                                 "the original model)")
    a("--json", default=None, help="--mode=1: the JSON file to write")
    both("check_report", default="check_result.json", help="--mode=3: the pre-check result file")
    both("soc_version", default=None, help="chip (default: Ascend910B3)")
    both("input_shape", default=None, help='"name:1,224,224,3;name2:..."')
    both("input_format", default=None, choices=INPUT_FORMATS,
         help="layout of the inputs (NHWC or NCHW: must be the model's; ND)")
    both("out_nodes", default=None, help='"node:0;node2:0"')
    both("precision_mode", default=None, choices=PRECISION_MODES)
    both("keep_dtype", default=None, metavar="FILE.cfg",
         help="ops (names, OpType::T) that keep their dtype under --precision_mode")
    both("customize_dtypes", default=None, metavar="FILE.cfg",
         help="per op: Opname::InputDtype:...,OutputDtype:... / OpType::T:InputDtype:...")
    both("output_type", default=None, help='FP32, FP16, INT8, UINT8, INT32, or "node:0:FP16;..."')
    both("fusion_switch_file", default=None,
         help="fusion passes to switch off (ATC format: 'Name:off' lines or JSON)")
    both("op_select_implmode", default=None, metavar="high_precision|high_performance",
         help="the implementation of ops that have two (GELU; fp16 softmax / LayerNorm rows)")
    both("optypelist_for_implmode", default=None, metavar="OpType,...",
         help="only these op types (e.g. GeluErf,SoftmaxV2) take --op_select_implmode")
    both("enable_small_channel", default=None, choices=["0", "1"],
         help="convs of <= 4 input channels on NC1HWC0_C04 (taps packed in K); ATC's default "
              "is 0, here the default is on where it is cheaper (compiler/target/c04.py); 0: off")
    both("insert_op_conf", default=None, metavar="aipp.cfg",
         help="static AIPP on the model inputs (ATC's aipp_op file)")
    both("dynamic_batch_size", default=None, metavar='"1,2,4,8"',
         help="batch gears: -1 in the first dimension of --input_shape (tools/driver/gears.py)")
    both("dynamic_image_size", default=None, metavar='"h,w;h,w"',
         help="image-size gears: -1 at H and W of --input_shape (NHWC or NCHW)")
    both("dynamic_dims", default=None, metavar='"d1,d2;d1,d2"',
         help="gears of the -1s of --input_shape, in order (--input_format=ND)")
    a("--log", default=None, choices=list(LOG_LEVELS),
      help="debug|info|warning|error|null: log lines on stderr in ATC's format")
    a("-o", "--output", default=None, help="output path (.om appended when missing)")
    a("--print-pipeline", "--print_pipeline", dest="print_pipeline", action="store_true",
      help="print the -p spec of the pass pipeline (replay it with cann-opt -p)")
    a("--report", action="store_true", help="print the performance estimate")
    a("--layout-report", dest="layout_report", default="", metavar="FILE|-",
      help="list every TransData left by assign-layouts and why (- for stderr)")
    a("--report-json", dest="report_json", default=None, metavar="FILE",
      help="write the performance estimate as JSON")
    a("--report-shape", dest="report_shape", action="append", default=[], metavar="x:4,224,224,3",
      help="with a ranged --input_shape: print the estimate of the kernels tiled at this shape "
           "(repeatable)")
    a("--dump-graph", dest="dump_graph", default=None, metavar="FILE.dot|FILE.svg",
      help="draw the graph before and after fusion")
    a("--name", default=None, help="model name in the .om header (default: the output's)")
    a("--time", action="store_true", help="print the time of each step on stderr")
    a("--verify-each", "--verify_each", dest="verify_each", action="store_true",
      help="verify the module after every pass (default: once, the module the pipeline leaves)")
    for name in NOT_IMPLEMENTED:  # recognised so that they are rejected by name, not as typos
        both(name, default=None, help=argparse.SUPPRESS)
    return p


# --- options -> the importer and the pipeline -------------------------------------------------

def _rejected(args) -> None:
    """Options ATC forbids together, then ATC options this compiler does not implement."""
    from tools.driver.atc_options import EXCLUSIVE, NOT_IMPLEMENTED
    from tools.driver.gears import GEAR_OPTIONS

    given = {n for n in (*NOT_IMPLEMENTED, *GEAR_OPTIONS) if getattr(args, n) is not None}
    if args.precision_mode is not None:
        given.add("precision_mode")
    for x, y in EXCLUSIVE:
        if x in given and y in given:
            raise CompileError(f"--{x} and --{y} cannot be used together (ATC forbids it)")
    for n in NOT_IMPLEMENTED:
        if getattr(args, n) is not None:
            raise CompileError(f"--{n}={getattr(args, n)} is not supported by this compiler")


def _check_framework(args) -> None:
    if str(args.framework) != "3":
        fw = FRAMEWORKS.get(str(args.framework), f"'{args.framework}'")
        raise CompileError(f"--framework={args.framework} ({fw}) is not supported; only 3 "
                           "(TensorFlow) is")


def _requires(args, *names: str) -> None:
    missing = [n for n in names if getattr(args, n) in (None, "")]
    if missing:
        raise CompileError(f"--mode={args.mode} needs " + " and ".join(f"--{n}" for n in missing))


def pipeline_options(args, module=None):
    """The PipelineOptions of the parsed arguments.  `module` (the imported tf-level IR) lets
    the cfg files' op names be checked against the graph."""
    from tools.driver.atc_options import parse_customize_dtypes, parse_implmode, parse_keep_dtype, parse_output_type
    from tools.driver.pipelines import PipelineOptions, resolve_chip

    chip = resolve_chip(args.soc_version)
    implmode, implmode_ops = parse_implmode(args.op_select_implmode, args.optypelist_for_implmode)
    if args.fusion_switch_file and not os.path.isfile(args.fusion_switch_file):
        raise CompileError(f"{args.fusion_switch_file}: error: no such file (--fusion_switch_file)")
    if args.insert_op_conf:  # the file checked on its own here; against the inputs by the pass
        from compiler.frontend.aipp_config import parse_aipp_config

        parse_aipp_config(args.insert_op_conf)
    outs = _out_nodes(args)
    keep: tuple[str, ...] = ()
    custom: tuple[str, ...] = ()
    if args.keep_dtype:
        lines = parse_keep_dtype(args.keep_dtype)
        _check_cfg_names(args.keep_dtype, "keep_dtype", [(n, k) for n, k in lines], module)
        keep = tuple(k for _, k in lines)
    if args.customize_dtypes:
        lines3 = parse_customize_dtypes(args.customize_dtypes)
        _check_cfg_names(args.customize_dtypes, "customize_dtypes", [(n, k) for n, k, _ in lines3],
                         module)
        custom = tuple(f"{k}={d}" for _, k, d in lines3)
    return PipelineOptions(
        chip=chip, level="planned", precision_mode=args.precision_mode, keep_dtype=keep,
        customize_dtypes=custom,
        output_types=parse_output_type(args.output_type, outs) if args.output_type else (),
        fusion_switch_file=args.fusion_switch_file or "", layout_report=args.layout_report,
        implmode=implmode, implmode_ops=implmode_ops, aipp_config=args.insert_op_conf or "",
        small_channel=args.enable_small_channel != "0")


def _out_nodes(args) -> list[str] | None:
    from tools.driver.atc_options import parse_out_nodes

    return parse_out_nodes(args.out_nodes) if args.out_nodes else None


def _check_cfg_names(path: str, option: str, entries, module) -> None:
    """Every op name must be a node of the graph, every OpType:: a CANN op type."""
    from dialects.cann import CANN

    cann_types = {op.name.removeprefix("cann.") for op in CANN.operations}
    nodes = {n for o in module.walk() if (n := _own_node(o))} if module is not None else None
    errors = []
    for line, key in entries:
        if key.startswith("OpType::"):
            t = key[len("OpType::"):]
            if t not in cann_types:
                errors.append(f"{path}:{line}: error: --{option}: 'OpType::{t}' is no CANN op type")
        elif nodes is not None and key not in nodes:
            errors.append(f"{path}:{line}: error: --{option}: '{key}' names no node of the graph")
    if errors:
        raise CompileError(errors)


def _own_node(op) -> str | None:
    from xdsl.dialects.builtin import NameLoc

    return op.location.desc.data if isinstance(op.location, NameLoc) else None


def import_model(args):
    """The tf-level module of --model, with --input_shape / --out_nodes applied by the importer
    (its shape inference reruns on the new shapes)."""
    from tools.driver.atc_options import parse_input_shape

    path = args.model
    shapes = parse_input_shape(args.input_shape) if args.input_shape else None
    outs = _out_nodes(args)
    if path.endswith((".pb", ".pbtxt")) or os.path.isdir(path) or path.endswith(".keras"):
        from compiler.frontend.importers.graphdef import import_graphdef_file

        return import_graphdef_file(path, input_shapes=shapes, outputs=outs,
                                    warn=lambda line: log.warning(line))
    if path.endswith(".mlir"):
        if shapes or outs:  # tf-level IR exported, so TensorFlow's shape inference reruns
            from compiler.frontend.exporters.graphdef import graphdef_of_tf_mlir
            from compiler.frontend.importers.graphdef import import_graphdef

            graph_def, mlir_outs = graphdef_of_tf_mlir(
                path, "--input_shape" if shapes else "--out_nodes")
            return import_graphdef(graph_def, path, input_shapes=shapes, outputs=outs or mlir_outs,
                                   warn=lambda line: log.warning(line))
        from compiler.ir.ir_io import load_module

        return load_module(path)[0]
    raise CompileError(f"{path}: error: --model must be a frozen GraphDef (.pb, .pbtxt), a "
                       "SavedModel directory, a .keras file or .mlir")


def _rank(value) -> int | None:
    shape = getattr(value.type, "shape", None)
    return len(shape) if shape is not None else None


def check_input_format(module, fmt: str | None) -> None:
    """--input_format must be the layout the model's ops read: the data_format of the first
    layout-sensitive op each input reaches (NHWC for TensorFlow's default).  ND: no such op."""
    if fmt is None:
        return
    from compiler.ir.entry import io_names, main_func
    from dialects.common import string_value

    fn = main_func(module)
    names = io_names(fn)[0]
    for name, arg in zip(names, block_of(fn.body).args):
        seen, stack, found = set(), [arg], None
        while stack and found is None:
            v = stack.pop()
            for use in v.uses:
                op = use.operation
                if id(op) in seen:
                    continue
                seen.add(id(op))
                df = op.attributes.get("data_format") or op.properties.get("data_format")
                # A 4-letter data_format is a layout of 4-d operands only (a BiasAdd of a
                # [batch, seq, hidden] tensor says NHWC and reads it as ND).
                df = string_value(df)
                if df is not None and len(df) == 4 and _rank(op.operands[0]) == 4:
                    found = (op, df)
                    break
                stack.extend(op.results)
        model_fmt = found[1] if found else "ND"
        if fmt == "ND" and found is None or fmt == model_fmt:
            continue
        if found is None:
            raise CompileError(f"--input_format={fmt}: input '{name}' reaches no layout-sensitive "
                               "op (the model has no data_format): use --input_format=ND")
        raise CompileError(f"--input_format={fmt}: input '{name}' is read as {model_fmt} by node "
                           f"'{_own_node(found[0]) or found[0].name}' (data_format={model_fmt}); "
                           f"the model allows --input_format={model_fmt}")


# --- the driver -------------------------------------------------------------------------------

@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (reference counting still frees everything that
    is not in a cycle).  A compile allocates ~10^5 IR objects and frees few cycles, and every full
    collection rescans the whole heap, TensorFlow's ~3*10^5 objects included: ~0.4 s of a
    ResNet50 compile for nothing (benchmarks/compile_vs_grappler.py; peak RSS ~1.0 GB either
    way).  Nests; the collector is enabled again on exit if it was enabled on entry.  Before it
    is, every object is moved to the oldest generation without a scan (gc.freeze, then
    gc.unfreeze, as `compiler.frontend.tf_loader.tensorflow` does for TensorFlow's objects):
    the compile's ~10^5 objects (NASNet: 2*10^5, 80% of them still alive after it) would stay
    in the youngest generation, which the first allocation after the compile scans, and the
    next generation's collection scans again (~0.1 s CPU each on NASNet).  The next full
    collection scans them, as any, and frees the compile's cycles then."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def compile_model(args, log_step=lambda step, dt: None, print_spec=None, imported=None):
    """Returns (kernel-level planned module, before-fusion module or None, after-fusion module
    or None).  `args` are cann-compile's parsed arguments (`parse_args`); `imported`: the
    tf-level module already imported (one gear's, tools/driver/gears.py)."""
    from xdsl.dialects.builtin import StringAttr

    from compiler.ir.ir_io import make_context
    from tools.driver.pipelines import build_pipeline, pipeline_spec, run_pipeline

    _check_framework(args)
    if not args.model:
        raise CompileError("--model is required (the model to compile)")
    pipeline_options(args)  # every option value checked before the (slow) import
    from tools.driver.atc_options import is_range_spec

    if is_range_spec(args.input_shape):  # "x:1~16,...": tiled at dispatch (shape_ranges.py)
        from tools.driver.shape_ranges import compile_ranged

        with cycle_collection_paused():
            return compile_ranged(args, pipeline_options(args), log_step, print_spec,
                                  warn=lambda line: log.warning(line))[0], None, None
    with cycle_collection_paused():
        t0 = time.perf_counter()
        module = import_model(args) if imported is None else imported
        check_input_format(module, args.input_format)
        options = pipeline_options(args, module)
        passes = build_pipeline(options)
        spec = pipeline_spec(passes)
        log.debug(f"pipeline: {spec}")
        if print_spec:
            print_spec(spec)
        module.attributes["cann.soc_version"] = StringAttr(options.chip.name)
        if args.input_format:
            module.attributes["cann.input_format"] = StringAttr(args.input_format)
        log_step("import", time.perf_counter() - t0)
        log.info(f"imported {args.model}")
        before = after = None
        times: dict[str, float] = {}

        def around(p, when: str) -> None:
            nonlocal before, after
            if when == "before":
                times[p.name] = time.perf_counter()
                if p.name == "fuse" and args.dump_graph:
                    before = module.clone()
                return
            if p.name == "fuse" and args.dump_graph:
                after = module.clone()
            dt = time.perf_counter() - times[p.name]
            log_step(p.name, dt)
            log.info(f"pass {p.pipeline_pass_spec()}: {dt:.4f} s")

        run_pipeline(make_context(), module, passes, SourceMap(args.model), around,
                     verify=lambda p: p.name not in ANNOTATING_PASSES,
                     verify_each=args.verify_each)
    return module, before, after


def output_path(path: str) -> str:
    return path if path.endswith(".om") else path + ".om"


def _mode_json(args) -> int:
    from compiler.backend.offline_model import is_offline_model
    from tools.driver.model_info import offline_model_json, original_model_json, write_json

    if args.om is None and args.model is not None:
        args.om = args.model  # the original model may also be named by --model
    _requires(args, "om", "json")
    if not os.path.exists(args.om):
        raise CompileError(f"{args.om}: error: no such file (--om)")
    if is_offline_model(args.om):
        data = offline_model_json(args.om)
    else:
        _check_framework(args)
        if not args.om.endswith((".pb", ".pbtxt")):
            raise CompileError(f"{args.om}: error: --mode=1 --om takes an offline model (.om) "
                               "or, with --framework=3, a GraphDef (.pb, .pbtxt)")
        data = original_model_json(args.om)
    write_json(args.json, data)
    print(f"{args.json}: written")
    return 0


def _mode_precheck(args) -> int:
    from tools.driver.atc_options import parse_input_shape
    from tools.driver.model_info import pre_check, write_json

    _check_framework(args)
    _requires(args, "model")
    if not args.model.endswith((".pb", ".pbtxt")):
        raise CompileError(f"{args.model}: error: --mode=3 checks a GraphDef (.pb, .pbtxt)")
    if not os.path.exists(args.model):
        raise CompileError(f"{args.model}: error: no such file (--model)")
    from tools.driver.atc_options import is_range_spec
    from tools.driver.gears import parse_gears, pre_check_gears
    from tools.driver.shape_ranges import pre_check_ranged

    spec = parse_gears(args)
    if spec is not None:  # every gear's shapes checked
        result = pre_check_gears(args.model, spec, _out_nodes(args), pre_check)
    elif is_range_spec(args.input_shape):  # the symbolic graph a ranged compile legalizes
        result = pre_check_ranged(args.model, args.input_shape, _out_nodes(args), pre_check)
    else:
        shapes = parse_input_shape(args.input_shape) if args.input_shape else None
        result = pre_check(args.model, shapes, _out_nodes(args))
    write_json(args.check_report, result)
    n = result["unsupported_count"]
    print(f"{args.check_report}: pre-check {result['result']}: {n} unsupported "
          f"(of {result['ops_checked']} ops checked)")
    return 0


def _mode_info(args) -> int:
    from tools.driver.model_info import model_info_text

    _requires(args, "om")
    if not os.path.exists(args.om):
        raise CompileError(f"{args.om}: error: no such file (--om)")
    sys.stdout.write(model_info_text(args.om))
    return 0


def _mode_compile(args) -> int:
    if not args.output:
        raise CompileError("--output is required (the .om to write)")

    def log_step(step: str, dt: float) -> None:
        if args.time:
            print(f"// {step}: {dt:.4f} s", file=sys.stderr)

    # The compiler's modules (dialects, numpy, passes) are imported in the paused region below,
    # where the passes need them: imported before it, the collections their objects trigger
    # cost ~70 ms CPU (tools/driver/gears.py imports the .om writer only to write gears).
    from tools.driver.gears import compile_gears_to_om, parse_gears

    spec = parse_gears(args)
    if spec is not None:
        return compile_gears_to_om(args, spec, compile_model, log_step,
                                   lambda line: log.warning(line), output_path(args.output))
    t_all = time.perf_counter()
    with cycle_collection_paused():
        module, before, after = compile_model(
            args, log_step, print_spec=(lambda s: print(s)) if args.print_pipeline else None)
        out = output_path(args.output)
        if args.dump_graph:
            from compiler.backend.graph_dump import fusion_dot, write_graph

            if before is None or after is None:
                raise CompileError("--dump-graph: the pipeline has no fuse step")
            write_graph(args.dump_graph, fusion_dot(before, after, os.path.basename(out)))
        t0 = time.perf_counter()
        from compiler.backend.offline_model import write_offline_model

        name = args.name or os.path.splitext(os.path.basename(out))[0]
        size = write_offline_model(module, out, name)
        log_step("write .om", time.perf_counter() - t0)
    from compiler.backend.memory_plan import read_plan
    from compiler.ir.entry import main_func

    plan = read_plan(main_func(module))
    print(f"{out}: {size} bytes, {len(plan.collected.launches)} kernels, arena {plan.arena} B "
          f"(live-set bound {plan.live_bound} B, naive {plan.naive} B), "
          f"compiled in {time.perf_counter() - t_all:.2f} s")
    if args.report_shape:  # a range-compiled model: the estimate of the kernels tiled at each shape
        from tools.driver.shape_ranges import shape_reports

        return shape_reports(module, args.report_shape, args.report_json)
    if args.report or args.report_json:
        from compiler.backend.perf_report import perf_report

        rep = perf_report(module)
        if args.report:
            sys.stdout.write(rep.to_text())
        if args.report_json:
            from compiler.ir.ir_io import write_atomically

            write_atomically(args.report_json, lambda: rep.to_json() + "\n")
    return 0


def parse_args(argv: Sequence[str] | None = None):
    return _parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    def body() -> int:
        from tools.driver.atc_options import check_mode, configure_log

        args = parse_args(argv)
        configure_log(args.log, TOOL)
        _rejected(args)
        mode = check_mode(str(args.mode))
        return {"0": _mode_compile, "1": _mode_json, "3": _mode_precheck, "6": _mode_info}[mode](args)

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
