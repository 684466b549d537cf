"""cann-opt: the modular optimizer driver (xDSL's opt driver with this project's dialects/passes).

    cann-opt --tf-to-cann --fuse input.mlir
    cann-opt -p 'tf-to-cann,fuse' input.mlir
    cann-opt --fuse='disable=ConvBiasRelu' --cann-to-kernel='soc-version=Ascend910A' in.mlir
    cann-opt --to-level=kernel --precision-mode=force_fp16 --print-pipeline in.mlir

MLIR-style one-flag-per-pass options are pulled out of argv before argparse sees them and
appended, in order, to the `-p` pipeline (`--precision-mode=M` is the pass flag of
set-precision{mode=M}).  `--to-level=L` runs cann-compile's default pipeline up to level L, built
by tools/driver/pipelines.py from the driver's options (--soc-version, --precision-mode,
--allow-host-fallback, --legalization-report, --fusion-switch-file, --fusion-report); with a
hand-written pipeline those options go to the tf-to-cann / fuse passes in it.
`--print-pipeline` prints the `-p` spec that runs.  TensorFlow is never imported for a .mlir input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

from compiler.ir.diagnostics import CompileError, SourceMap, verify_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module, read_text, write_atomically
from passes import ALL_PASSES
from tools.driver.cli import run_tool
from tools.driver.pipelines import (
    LEVEL_ORDER,
    PipelineOptions,
    build_pipeline,
    pipeline_spec,
    resolve_chip,
    with_driver_options,
)

#: xDSL's own passes that are useful on this project's IR.
XDSL_PASSES = ("dce", "cse", "canonicalize")


#: Driver flags that are the pass flag of one pass option: flag -> (pass, option).
PASS_FLAG_ALIASES = {"precision-mode": ("set-precision", "mode")}


def split_pass_flags(argv: Sequence[str], pass_names: Sequence[str]) -> tuple[list[str], list[str]]:
    """`--fuse` / `--fuse=opts` / `--fuse='a=1 b=2'` -> pipeline entries `fuse` / `fuse{opts}`;
    `--precision-mode=M` (PASS_FLAG_ALIASES) -> `set-precision{mode=M}`."""
    rest: list[str] = []
    pipeline: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg.startswith("--"):
            name, eq, opts = arg[2:].partition("=")
            if name in PASS_FLAG_ALIASES:
                if not eq:
                    opts = next(it, "")
                pass_name, option = PASS_FLAG_ALIASES[name]
                pipeline.append(f"{pass_name}{{{option}={opts}}}")
                continue
            if name in pass_names:
                if eq and opts.strip():
                    pipeline.append(f"{name}{{{_options(opts)}}}")
                else:
                    pipeline.append(name)
                continue
        rest.append(arg)
    return rest, pipeline


def _options(opts: str) -> str:
    """MLIR spells options `soc-version=X`; xDSL pass fields are `soc_version`."""
    out = []
    for item in opts.strip().strip("{}").split():
        key, eq, value = item.partition("=")
        if eq and value:
            value = ",".join(_quote_path(v) for v in value.split(","))
        out.append(key.replace("-", "_") + eq + value)
    return " ".join(out)


def _quote_path(v: str) -> str:
    """File names (`a/b.rules`, `-`) are not pipeline tokens: quote them."""
    import re

    if v.startswith('"') or not (v == "-" or re.search(r"[/\\~:]|\.[A-Za-z]+$", v)):
        return v
    return '"' + v.replace('"', '\\"') + '"'


class CannOptMain(xDSLOptMain):
    version_format = "cann-opt (xDSL {xdsl_version})"

    def __init__(self, args: Sequence[str], extra_pipeline: Sequence[str]):
        self._extra_pipeline = list(extra_pipeline)
        self.source: SourceMap | None = None
        super().__init__(description="cann-opt: TensorFlow -> CANN -> kernel optimizer driver", args=args)

    def register_all_dialects(self):
        self.ctx = make_context()

    def register_all_passes(self):
        for name, factory in ALL_PASSES.items():
            self.register_pass(name, factory)
        from xdsl.transforms import get_all_passes

        xdsl_passes = get_all_passes()
        for name in XDSL_PASSES:
            self.register_pass(name, xdsl_passes[name])

    def register_all_arguments(self, arg_parser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--strip-debuginfo", action="store_true",
            help="print no locations (by default those naming TF nodes are printed)")
        arg_parser.add_argument(
            "--soc-version", default=None,
            help="chip to compile for (sets the module's cann.soc_version; default Ascend910B3)")
        arg_parser.add_argument(
            "--to-level", default=None, choices=[lvl for lvl in LEVEL_ORDER if lvl != "tf"],
            help="run cann-compile's default pipeline up to this level (before any other passes)")
        arg_parser.add_argument(
            "--print-pipeline", action="store_true",
            help="print the -p spec of the pipeline that runs (on stderr)")
        arg_parser.add_argument(
            "--allow-host-fallback", action="store_true",
            help="tf-to-cann: unsupported tf ops run on the host as cann.HostCall")
        arg_parser.add_argument(
            "--legalization-report", action="store_true",
            help="tf-to-cann: print per TF op type its count, CANN op and fallbacks")
        arg_parser.add_argument(
            "--fusion-switch-file", default="", metavar="FILE",
            help="fuse: ATC fusion switch file ('Name:off' lines or JSON)")
        arg_parser.add_argument(
            "--fusion-report", default="", metavar="FILE",
            help="fuse: write the fusion report (x.json, x.txt, - for stderr)")
        arg_parser.add_argument(
            "--tiling-stats", action="store_true",
            help="print the tiling cache's hit and miss counts to stderr (also with --time-passes)")

    def setup_pipeline(self):
        from xdsl.utils.arg_spec import parse_pipeline

        spec = ",".join(p for p in [self.args.passes, *self._extra_pipeline] if p)
        try:
            specs = list(parse_pipeline(spec))
            unknown = [p.name for p in specs if p.name not in self.available_passes]
            if unknown:
                raise ValueError(f"Unrecognized passes: {unknown}")
            passes = [self.available_passes[p.name]().from_pass_spec(p) for p in specs]
        except ValueError as e:
            known = ", ".join(self.available_passes)
            raise CompileError(f"cann-opt: error: {e}; known passes: {known}") from None
        except BaseException as e:  # xDSL's ArgSpecParseError derives from BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            msg = " ".join(str(e).split())
            raise CompileError(f"cann-opt: error: bad pass pipeline '{spec}': {msg}") from None
        a = self.args
        chip = resolve_chip(a.soc_version, "--soc-version") if a.soc_version is not None else None
        options = PipelineOptions(
            **({"chip": chip} if chip else {}), level=a.to_level or "kernel",
            allow_host_fallback=a.allow_host_fallback, legalization_report=a.legalization_report,
            fusion_switch_file=a.fusion_switch_file, fusion_report=a.fusion_report)
        if a.to_level:
            # the level pipeline takes --precision-mode itself (not as a pass of its own)
            modes = [p.mode for p in passes if p.name == "set-precision" and not p.keep
                     and not p.customize and not p.outputs]
            passes = [p for p in passes if not (p.name == "set-precision" and p.mode in modes)]
            level = build_pipeline(replace(options, precision_mode=modes[-1] if modes else None))
            passes = [*level, *with_driver_options(passes, options)]
        else:
            passes = with_driver_options(passes, options)
        if a.print_pipeline:
            print(pipeline_spec(passes), file=sys.stderr)
        self.pipeline = PassPipeline(tuple(passes), self._after_pass)

    def _after_pass(self, previous, module, next_pass):
        if self.args.time_passes and previous is not None:
            import time

            print(f"// pass {previous.name}: {time.perf_counter() - self._t0:.4f} s", file=sys.stderr)
        if previous is not None and not self.args.disable_verify:
            verify_module(module, self.source or SourceMap(self.get_input_name()))
        if previous and next_pass and self.args.print_between_passes:
            print(f"// -----// IR after {previous.name} //----- //")
            print(module_to_text(module, self.args.print_op_generic, self.args.print_debuginfo,
                              self.args.strip_debuginfo))
        import time

        self._t0 = time.perf_counter()

    def run(self):
        name = self.get_input_name()
        if self.args.input_file is None:
            text = sys.stdin.read()
        elif self.args.input_file.endswith((".pb", ".pbtxt", ".keras")) or \
                os.path.isdir(self.args.input_file):  # a GraphDef, .keras or SavedModel: import it
            text = None
        else:
            text = read_text(self.args.input_file)
        outputs: list[str] = []
        if text is None:
            from compiler.frontend.importers.graphdef import import_graphdef_file

            chunks = [(import_graphdef_file(self.args.input_file), 0)]
        elif self.args.split_input_file:
            pieces = text.split("// -----")
            offsets = [0]
            for p in pieces[:-1]:
                offsets.append(offsets[-1] + p.count("\n"))
            chunks = list(zip(pieces, offsets))
        else:
            chunks = [(text, 0)]
        errors: list[str] = []
        for chunk, offset in chunks:
            try:
                outputs.append(self._process(chunk, name, offset))
            except CompileError as e:
                if not self.args.split_input_file:
                    raise
                errors.extend(e.messages)
                outputs.append(None)
        if errors:
            raise CompileError(errors)
        write_atomically(self.args.output_file, lambda: "// -----\n".join(outputs))
        if self.args.tiling_stats or self.args.time_passes:
            from compiler.target.tiling import cache_stats

            stats = ", ".join(f"{k} hits={h} misses={m}" for k, (h, m) in cache_stats().items())
            print(f"// tiling cache: {stats}", file=sys.stderr)

    def _process(self, chunk, name: str, offset: int) -> str:
        from compiler.ir.diagnostics import OpError

        if isinstance(chunk, ModuleOp):
            module, self.source = chunk, SourceMap(name)
            verify_module(module, self.source)
        else:
            module, self.source = parse_module(self.ctx, chunk, name, offset,
                                               verify=not self.args.disable_verify)
        if self.args.soc_version is not None:
            module.attributes["cann.soc_version"] = StringAttr(self.args.soc_version)
        try:
            self.pipeline.apply(self.ctx, module)
        except OpError as e:
            raise CompileError([self.source.describe(op, msg) for op, msg in e.items]) from None
        except CompileError as e:  # `pass-name: error: ...`: about this input file
            raise CompileError([_name_file(m, name, self.available_passes) for m in e.messages]) from None
        except DiagnosticException as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise CompileError(f"{name}: error: {first}") from None
        return module_to_text(module, self.args.print_op_generic, self.args.print_debuginfo,
                              self.args.strip_debuginfo)


def _name_file(message: str, filename: str, passes) -> str:
    """`plan-memory: error: @main: ...` -> `FILE: error: plan-memory: @main: ...`."""
    who, sep, rest = message.partition(": error: ")
    return f"{filename}: error: {who}: {rest}" if sep and who in passes else message


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # --legalization-report is a driver flag (an option of tf-to-cann, or the pass of that name
    # when the pipeline has no tf-to-cann: tools/driver/pipelines.with_driver_options)
    pass_flags = [n for n in [*ALL_PASSES, *XDSL_PASSES] if n != "legalization-report"]
    rest, pipeline = split_pass_flags(argv, pass_flags)
    holder: dict[str, CannOptMain] = {}

    def body():
        holder["main"] = CannOptMain(rest, pipeline)
        holder["main"].run()

    return run_tool("cann-opt", body, lambda: holder["main"].source if "main" in holder else None)


if __name__ == "__main__":
    sys.exit(main())
