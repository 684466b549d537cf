"""cann-opt: the modular optimizer driver (xDSL's opt driver with this project's dialects/passes).

    cann-opt --tf-to-cann --fuse input.mlir
    cann-opt -p 'tf-to-cann,fuse' input.mlir
    cann-opt --fuse='disable=ConvBiasRelu' --cann-to-kernel='soc-version=Ascend910A' in.mlir

MLIR-style one-flag-per-pass options are pulled out of argv before argparse sees them and
appended, in order, to the `-p` pipeline.  TensorFlow is never imported for a .mlir input.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException
from xdsl.xdsl_opt_main import xDSLOptMain

from compiler.chips import UnknownChipError, get_chip
from compiler.cli import run_tool
from compiler.diagnostics import CompileError, SourceMap, verify_module
from compiler.ir_io import make_context, module_to_text, parse_module, read_text, write_atomically
from passes import ALL_PASSES

#: xDSL's own passes that are useful on this project's IR.
XDSL_PASSES = ("dce", "cse", "canonicalize")


def split_pass_flags(argv: Sequence[str], pass_names: Sequence[str]) -> tuple[list[str], list[str]]:
    """`--fuse` / `--fuse=opts` / `--fuse='a=1 b=2'` -> pipeline entries `fuse` / `fuse{opts}`."""
    rest: list[str] = []
    pipeline: list[str] = []
    for arg in argv:
        if arg.startswith("--"):
            name, eq, opts = arg[2:].partition("=")
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
            "--soc-version", default=None,
            help="chip to compile for (sets the module's cann.soc_version; default Ascend910B3)")
        arg_parser.add_argument(
            "--tiling-stats", action="store_true",
            help="print the tiling cache's hit and miss counts to stderr (also with --time-passes)")

    def setup_pipeline(self):
        spec = ",".join(p for p in [self.args.passes, *self._extra_pipeline] if p)
        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, spec, self._after_pass)
        except ValueError as e:
            known = ", ".join(self.available_passes)
            raise CompileError(f"cann-opt: error: {e}; known passes: {known}") from None
        except BaseException as e:  # xDSL's ArgSpecParseError derives from BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            msg = " ".join(str(e).split())
            raise CompileError(f"cann-opt: error: bad pass pipeline '{spec}': {msg}") from None
        if self.args.soc_version is not None:
            try:
                get_chip(self.args.soc_version)
            except UnknownChipError as e:
                raise CompileError(f"cann-opt: error: {e}") from None

    def _after_pass(self, previous, module, next_pass):
        if self.args.time_passes and previous is not None:
            import time

            print(f"// pass {previous.name}: {time.perf_counter() - self._t0:.4f} s", file=sys.stderr)
        if previous is not None and not self.args.disable_verify:
            verify_module(module, self.source or SourceMap(self.get_input_name()))
        if previous and next_pass and self.args.print_between_passes:
            print(f"// -----// IR after {previous.name} //----- //")
            print(module_to_text(module, self.args.print_op_generic, self.args.print_debuginfo))
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
            from compiler.importers.graphdef import import_graphdef_file

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
            from compiler.tiling import cache_stats

            stats = ", ".join(f"{k} hits={h} misses={m}" for k, (h, m) in cache_stats().items())
            print(f"// tiling cache: {stats}", file=sys.stderr)

    def _process(self, chunk, name: str, offset: int) -> str:
        from compiler.diagnostics import OpError

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
        except DiagnosticException as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise CompileError(f"{name}: error: {first}") from None
        return module_to_text(module, self.args.print_op_generic, self.args.print_debuginfo)


def _fusion_flags(argv: list[str]) -> list[str]:
    """ATC-style `--fusion-switch-file=F` and `--fusion-report=F`: defaults of the fuse pass."""
    from passes import fuse

    fuse.CLI_DEFAULTS.clear()
    rest = []
    for arg in argv:
        for flag, key in (("--fusion-switch-file=", "switch_file"), ("--fusion-report=", "report")):
            if arg.startswith(flag):
                fuse.CLI_DEFAULTS[key] = arg[len(flag):]
                break
        else:
            rest.append(arg)
    return rest


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = _fusion_flags(argv)
    from passes.tf_to_cann import add_tf_to_cann_options, driver_flags

    argv, tf_to_cann_options = driver_flags(argv)  # --allow-host-fallback, --precision-mode, ...
    rest, pipeline = split_pass_flags(argv, [*ALL_PASSES, *XDSL_PASSES])
    pipeline = [add_tf_to_cann_options(p, tf_to_cann_options) for p in pipeline]
    rest = [add_tf_to_cann_options(a, tf_to_cann_options) if i and rest[i - 1] in ("-p", "--passes")
            else a for i, a in enumerate(rest)]
    if "report=true" in tf_to_cann_options and not any(
            "tf-to-cann" in a for a in [*pipeline, *rest[1:]]):
        # --legalization-report alone: the report of a legalization of a copy, IR unchanged
        fallback = " allow_host_fallback=true" if "allow_host_fallback=true" in tf_to_cann_options else ""
        pipeline.insert(0, "legalization-report" + ("{" + fallback.strip() + "}" if fallback else ""))
    holder: dict[str, CannOptMain] = {}

    def body():
        holder["main"] = CannOptMain(rest, pipeline)
        holder["main"].run()

    return run_tool("cann-opt", body, lambda: holder["main"].source if "main" in holder else None)


if __name__ == "__main__":
    sys.exit(main())
