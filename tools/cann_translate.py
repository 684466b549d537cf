"""cann-translate: translations between external formats and this project's IR.

    cann-translate --import-graphdef model.pb -o model.mlir
    cann-translate --import-graphdef model.pbtxt --strip-debuginfo      # to stdout, without loc(...)
    cat model.pb | cann-translate --import-graphdef -                    # '-' or nothing: stdin

The GraphDef (binary or text protobuf) becomes `func.func @main` in the tf dialect (see
`compiler.frontend.importers.graphdef`).  The module is verified before anything is written; on any error
every problem is printed on its own line, the exit code is 1 and no output file is created.
Locations naming TF nodes (`loc("node/name")`) are printed by default, so the node names survive
the text (cann-opt keeps them, --export-graphdef reads them back); --strip-debuginfo drops them,
--print-debuginfo prints every location.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from compiler.ir.diagnostics import SourceMap, verify_module
from compiler.ir.ir_io import module_to_text, write_atomically
from tools.driver.cli import ToolArgumentParser, run_tool

TOOL = "cann-translate"


def build_parser() -> ToolArgumentParser:
    parser = ToolArgumentParser(
        prog=TOOL, description="Translate external model formats to and from cann-mlir IR.")
    translations = parser.add_argument_group("translations (choose one)")
    exclusive = translations.add_mutually_exclusive_group(required=True)
    exclusive.add_argument(
        "--import-graphdef", action="store_true",
        help="TensorFlow GraphDef (binary .pb or text .pbtxt), SavedModel directory or .keras "
             "file -> tf dialect")
    exclusive.add_argument(
        "--export-graphdef", action="store_true",
        help="tf dialect (.mlir; keep locations: they are the node names) -> binary GraphDef "
             "(text with -o name.pbtxt)")
    parser.add_argument("--input-shape", default=None, metavar='"x:1,224,224,3;y:-1,3"',
                        help="override Placeholder shapes (ATC syntax; -1 or ? = dynamic)")
    parser.add_argument("--outputs", default=None, metavar="a,b:1",
                        help="the graph's outputs; nodes they do not need are pruned")
    parser.add_argument("--signature", default=None,
                        help="SavedModel signature to import (default serving_default)")
    parser.add_argument("input_file", nargs="?", default="-",
                        help="input file ('-' or none: standard input)")
    parser.add_argument("-o", "--output-file", default=None,
                        help="output file (default: standard output); never left half-written")
    parser.add_argument("--print-debuginfo", action="store_true",
                        help="print every location, loc(unknown) included (the TF node names, "
                             "loc(\"<node name>\"), are printed by default)")
    parser.add_argument("--strip-debuginfo", action="store_true",
                        help="print no locations (the TF node names are lost)")
    parser.add_argument("--print-op-generic", action="store_true",
                        help="print ops in the generic format")
    return parser


def _import_graphdef(path: str, args=None):
    from compiler.frontend.importers.graphdef import import_graphdef_bytes, import_graphdef_file

    opts = {}
    if args is not None:
        opts = {"input_shapes": args.input_shape, "outputs": args.outputs}
    if path == "-":
        return import_graphdef_bytes(sys.stdin.buffer.read(), "<stdin>", **opts), "<stdin>"
    if args is not None and args.signature:
        opts["signature"] = args.signature
    return import_graphdef_file(path, **opts), path


def _export_graphdef(args) -> None:
    from compiler.frontend.exporters.graphdef import export_graphdef
    from compiler.ir.ir_io import load_module, make_context, parse_module

    if args.input_file == "-":
        module, _ = parse_module(make_context(), sys.stdin.read(), "<stdin>")
        name = "<stdin>"
    else:
        module, _ = load_module(args.input_file)
        name = args.input_file
    graph_def = export_graphdef(module, name)
    out = args.output_file
    if out and out.endswith((".pbtxt", ".txt")):
        from google.protobuf import text_format

        data: bytes = text_format.MessageToString(graph_def).encode()
    else:
        data = graph_def.SerializeToString()
    write_atomically(out, lambda: data)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        args = build_parser().parse_args(argv)
        if args.export_graphdef:
            _export_graphdef(args)
            return 0
        module, name = _import_graphdef(args.input_file, args)
        verify_module(module, SourceMap(name))
        text = module_to_text(module, generic=args.print_op_generic, debuginfo=args.print_debuginfo,
                              strip=args.strip_debuginfo)
        write_atomically(args.output_file, lambda: text)
        return 0

    try:
        return run_tool(TOOL, body)
    except SystemExit as e:  # argparse: --help (0) or a usage error (1, already printed)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)


if __name__ == "__main__":
    sys.exit(main())
