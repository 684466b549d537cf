"""cann-run: execute a module at any level (tf, cann, kernel) and optionally check it against
the original TensorFlow graph.

    cann-run model.mlir|model.om --input x=x.npy [--input y=y.npy] [--seed 0] [--output-dir DIR]
             [--compare-with model.pb|model.pbtxt] [--atol 1e-5] [--rtol 1e-5]

Inputs not given are drawn from normal(0, 1) with --seed.  A multi-gear .om (cann-compile
--dynamic_batch_size / --dynamic_image_size / --dynamic_dims) runs the gear the given inputs'
shapes are, or the one an `ascend_mbatch_shape_data` input names; with no input, the first.  An
--input given more than once runs once per value, each in its gear.  Without --compare-with each output is
summarised; with it, one line per output `name: max_abs=.. max_rel=.. (atol=.., rtol=..) OK|FAIL`
and exit code 1 if any output fails.  --output-dir writes NAME.npy per output ('/' and ':' in a
name become '_').  TensorFlow is imported only for tf-level ops or --compare-with.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

import numpy as np

from compiler.ir.diagnostics import CompileError, SourceMap
from tools.driver.cli import ToolArgumentParser, run_tool

TOOL = "cann-run"


def _parser() -> ToolArgumentParser:
    p = ToolArgumentParser(prog=TOOL, description="Run a module and compare with TensorFlow.")
    p.add_argument("model", help="textual IR (.mlir) at any level, or an offline model (.om)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input value (repeatable); missing inputs are random")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--output-dir", metavar="DIR", help="write each output as DIR/NAME.npy")
    p.add_argument("--compare-with", metavar="GRAPH", help="the original .pb / .pbtxt GraphDef")
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--rtol", type=float, default=1e-5)
    return p


def load_npy(path: str, name: str) -> np.ndarray:
    """An .npy file, its header checked against the file's size before anything is allocated."""
    from compiler.ir.diagnostics import tensor_too_large

    fmt = np.lib.format
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise CompileError(f"{path}: error: not a .npy file (input '{name}')")
            f.seek(0)
            version = fmt.read_magic(f)
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(f)
            data_bytes = os.fstat(f.fileno()).st_size - f.tell()
        if dtype.hasobject:
            raise CompileError(f"{path}: error: an .npy of Python objects (pickled) is not "
                               f"accepted (input '{name}')")
        too_large = tensor_too_large(shape, dtype.itemsize)
        if too_large is not None:
            raise CompileError(f"{path}: error: input '{name}': {too_large}")
        need = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if data_bytes != need:
            raise CompileError(f"{path}: error: the data does not match the .npy header: shape "
                               f"{list(shape)} of {dtype} needs {need} bytes, the file has "
                               f"{data_bytes} (input '{name}')")
        value = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise CompileError(f"{path}: error: no such file (input '{name}')") from None
    except IsADirectoryError:
        raise CompileError(f"{path}: error: is a directory, expected a .npy file") from None
    except CompileError:
        raise
    except Exception as e:  # noqa: BLE001 - numpy's header parser raises many kinds on bad bytes
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        first = re.sub(r"<([\w.]+) object at 0x[0-9a-fA-F]+>", r"<\1>", first)  # no address
        raise CompileError(f"{path}: error: not a valid .npy file: {first}") from None
    if not isinstance(value, np.ndarray):
        raise CompileError(f"{path}: error: expected one array (.npy), got an archive")
    return value


def parse_inputs(specs: Sequence[str], files: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """`NAME=FILE.npy` each; `files` receives each input's file name."""
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        name, eq, path = spec.partition("=")
        if not eq or not name or not path:
            raise CompileError(f"{TOOL}: error: --input expects NAME=FILE.npy, got '{spec}'")
        if name in out:
            raise CompileError(f"{TOOL}: error: input '{name}' given twice")
        out[name] = load_npy(path, name)
        if files is not None:
            files[name] = path
    return out



def main(argv: Sequence[str] | None = None) -> int:
    source: list[SourceMap] = []

    def body() -> int:
        args = _parser().parse_args(argv)
        from compiler.backend.offline_model import is_offline_model, load_offline_model, run_planned
        from compiler.interpreters.execute import check_inputs, random_inputs, run_module
        from compiler.ir.entry import ENTRY_ATTR, input_specs, main_func
        from compiler.ir.ir_io import load_module
        from tools.driver.runner import report_run

        om = is_offline_model(args.model)
        source.append(SourceMap(args.model))  # a message naming no file is about the model
        if om:  # an offline model: its planned kernel IR runs on one arena, without TensorFlow
            om_model = load_offline_model(args.model)
            module = om_model.module
            source[0] = om_model.source or source[0]
            from tools.driver.shape_ranges import recorded, run_ranged

            if recorded(module):  # range-compiled: tiled at dispatch, one run per --input value
                return run_ranged(args, module, args.model, load_npy)
        else:
            module, source[0] = load_module(args.model)
        names = [spec.partition("=")[0] for spec in args.input]
        if om and om_model.gears is not None and len(set(names)) < len(names):
            from tools.driver.gears import run_gears  # one run per value, each in its gear

            return run_gears(args, om_model.gears, load_npy)
        files: dict[str, str] = {}
        given = parse_inputs(args.input, files)
        if om and om_model.gears is not None:  # a multi-gear .om: the gear the inputs are in
            from compiler.backend.gear_model import MBATCH_INPUT

            om_model = om_model.gears.models[om_model.gears.select(given, files)]
            module = om_model.module
            source[0] = om_model.source or source[0]
            given.pop(MBATCH_INPUT, None)
        known = [n for n, _, _ in input_specs(module)]
        for n in given:
            if n not in known:
                raise CompileError(f"{TOOL}: error: unknown input '{n}'; the model's inputs are "
                                   f"{', '.join(known) or '(none)'}")
        check_inputs(module, given, files)
        inputs = random_inputs(module, args.seed)
        inputs.update(given)
        outputs = run_planned(module, inputs) if om else run_module(module, inputs)

        if args.compare_with and ENTRY_ATTR not in main_func(module).attributes:
            raise CompileError(
                f"{args.model}: error: @main has no '{ENTRY_ATTR}' attribute naming its inputs "
                "and outputs; cannot match them with the GraphDef's tensors")
        from compiler.interpreters.aipp_impl import framework_inputs  # AIPP'd raw images

        return 1 if report_run(args, outputs, framework_inputs(module, inputs)) else 0

    return run_tool(TOOL, body, source=lambda: source[0] if source else None)


if __name__ == "__main__":
    sys.exit(main())
