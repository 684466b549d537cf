"""cann-translate: translations between external formats and this project's IR.

    cann-translate --import-graphdef model.pb -o model.mlir
    cann-translate --import-graphdef model.pbtxt --print-debuginfo      # to stdout, with loc(...)
    cat model.pb | cann-translate --import-graphdef -                    # '-' or nothing: stdin

The GraphDef (binary or text protobuf) becomes `func.func @main` in the tf dialect (see
`compiler.importers.graphdef`).  The module is verified before anything is written; on any error
every problem is printed on its own line, the exit code is 1 and no output file is created.
Locations (`loc("node/name")`) are printed only with --print-debuginfo, as in mlir-translate.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from compiler.cli import ToolArgumentParser, run_tool
from compiler.diagnostics import SourceMap, verify_module
from compiler.ir_io import module_to_text, write_atomically

TOOL = "cann-translate"


def build_parser() -> ToolArgumentParser:
    parser = ToolArgumentParser(
        prog=TOOL, description="Translate external model formats to and from cann-mlir IR.")
    translations = parser.add_argument_group("translations (choose one)")
    exclusive = translations.add_mutually_exclusive_group(required=True)
    exclusive.add_argument(
        "--import-graphdef", action="store_true",
        help="TensorFlow GraphDef (binary .pb or text .pbtxt) -> tf dialect")
    parser.add_argument("input_file", nargs="?", default="-",
                        help="input file ('-' or none: standard input)")
    parser.add_argument("-o", "--output-file", default=None,
                        help="output file (default: standard output); never left half-written")
    parser.add_argument("--print-debuginfo", action="store_true",
                        help="print locations: loc(\"<TF node name>\")")
    parser.add_argument("--print-op-generic", action="store_true",
                        help="print ops in the generic format")
    return parser


def _import_graphdef(path: str):
    from compiler.importers.graphdef import import_graphdef_bytes, import_graphdef_file

    if path == "-":
        return import_graphdef_bytes(sys.stdin.buffer.read(), "<stdin>"), "<stdin>"
    return import_graphdef_file(path), path


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        args = build_parser().parse_args(argv)
        module, name = _import_graphdef(args.input_file)  # the only translation so far
        verify_module(module, SourceMap(name))
        text = module_to_text(module, generic=args.print_op_generic, debuginfo=args.print_debuginfo)
        write_atomically(args.output_file, lambda: text)
        return 0

    try:
        return run_tool(TOOL, body)
    except SystemExit as e:  # argparse: --help (0) or a usage error (1, already printed)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)


if __name__ == "__main__":
    sys.exit(main())
