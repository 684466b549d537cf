"""ATC's option values and configuration files, parsed and checked for cann-compile.

Each parser takes the option's text (or a file) and returns plain data for the pipeline builder
(tools/driver/pipelines.py) or the importer; a bad value is one CompileError line naming the option
and the value (and for a file, the file and line).  The syntax is ATC's (docs/atc-options.md
cites the pages relied on).
"""

from __future__ import annotations

import logging
import os
import sys
import time

from compiler.frontend.shape_spec import parse_named_shapes
from compiler.ir.diagnostics import CompileError, read_option_file

#: ATC's --mode values this tool implements: 0 compile, 1 model -> JSON, 3 pre-check only,
#: 6 model information.  (5, GE dump graph -> JSON, has no counterpart: there are no GE dumps.)
MODES = {"0": "compile", "1": "model to JSON", "3": "pre-check", "6": "model information"}
UNSUPPORTED_MODES = {"5": "GE dump graph to JSON (this compiler writes no GE dump graphs)"}

#: ATC options that are recognised and rejected by name: passing one is an error, never ignored.
NOT_IMPLEMENTED = (
    "input_fp16_nodes", "is_output_adjust_hw_layout",
    "is_input_adjust_hw_layout", "compression_optimize_conf",
    "op_debug_level", "buffer_optimize", "precision_mode_v2", "modify_mixlist",
    "op_precision_mode", "sparsity", "enable_compress_weight", "compress_weight_conf",
    "op_name_map", "singleop", "auto_tune_mode", "op_bank_path", "op_compiler_cache_mode",
    "op_compiler_cache_dir", "display_model_info", "shape_generalized_build_mode",
    "external_weight", "status_check", "allow_hf32", "virtual_type", "input_hint_shape",
    "dump_mode", "host_env_os", "host_env_cpu", "atomic_clean_policy", "deterministic",
    "oo_level", "enable_single_stream", "ac_parallel_enable", "tiling_schedule_optimize",
)
#: Pairs ATC forbids together (checked before "not implemented", so the message says why).
EXCLUSIVE = (("dynamic_batch_size", "dynamic_image_size"), ("dynamic_batch_size", "dynamic_dims"),
             ("dynamic_image_size", "dynamic_dims"), ("precision_mode", "precision_mode_v2"))

#: --output_type values (ATC's names) -> the dtype names set-precision takes.  The others ATC
#: lists (UINT16 ... DOUBLE, HIF8, FP8*) have no kernel Cast here and are rejected by name.
OUTPUT_TYPES = {"FP32": "float32", "FP16": "float16", "INT8": "int8", "UINT8": "uint8",
                "INT32": "int32"}

#: cfg dtype names (ATC's) accepted by --customize_dtypes.
CFG_DTYPES = ("float16", "float32")

LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "error": logging.ERROR, "null": logging.CRITICAL + 1}


def option_error(option: str, value: str, why: str) -> CompileError:
    """`--option=value: why`: how every bad ATC option value is worded."""
    return CompileError(f"--{option}={value}: {why}")


def check_mode(mode: str) -> str:
    if mode in MODES:
        return mode
    if mode in UNSUPPORTED_MODES:
        raise option_error("mode", mode, f"{UNSUPPORTED_MODES[mode]} is not supported")
    raise option_error("mode", mode, "unknown mode; known: " +
               ", ".join(f"{k} ({v})" for k, v in MODES.items()))


def is_range_spec(spec: str | None) -> bool:
    """Whether an --input_shape gives a range (`lo~hi`) anywhere (a spec with -1s and no range
    is the gears' (tools/driver/gears.py), which need a gear option); a range is compiled by
    tools/driver/shape_ranges.py."""
    return spec is not None and "~" in spec


def parse_input_shape(spec: str) -> dict[str, list[int]]:
    """`"x:1,224,224,3;y:1,128"` -> {name: dims}: static shapes.  A -1 is parsed with a gear
    option (tools/driver/gears.py), a range by tools/driver/shape_ranges.py; reaching here,
    either is an error naming it."""
    def bad(why: str) -> CompileError:
        return option_error("input_shape", spec, why)

    def dim(part: str, d: str) -> int:
        if d in ("-1", "?") or "~" in d:
            raise bad(f"'{part}': dynamic dimension '{d}' needs one of ATC's gear options "
                      "(--dynamic_batch_size, --dynamic_image_size, --dynamic_dims) or a range "
                      "lo~hi")
        if not d.isdigit() or int(d) == 0:
            raise bad(f"'{part}': dimension '{d}' is not a positive integer")
        return int(d)

    return parse_named_shapes(spec, bad, dim)


def parse_out_nodes(spec: str) -> list[str]:
    """`"a:0;b:1"` -> ["a:0", "b:1"] (the importer's `outputs`)."""
    outs = []
    for part in (p.strip() for p in spec.split(";")):
        if not part:
            continue
        name, colon, index = part.rpartition(":")
        if not colon or not name or not index.isdigit():
            raise option_error("out_nodes", spec, f"'{part}' is not node:index")
        outs.append(part)
    if not outs:
        raise option_error("out_nodes", spec, "no node given")
    return outs


def parse_output_type(spec: str, out_nodes: list[str] | None) -> tuple[str, ...]:
    """`FP16` (every output) or `"node:0:FP16;node2:0:FP32"` (per output, which must be among
    --out_nodes, as ATC requires) -> set-precision's `outputs` entries."""
    def dtype(t: str) -> str:
        if t.upper() not in OUTPUT_TYPES:
            raise option_error("output_type", spec, f"'{t}' is not one of {', '.join(OUTPUT_TYPES)}")
        return OUTPUT_TYPES[t.upper()]

    if ":" not in spec:
        return (f"*={dtype(spec.strip())}",)
    entries = []
    for part in (p.strip() for p in spec.split(";")):
        if not part:
            continue
        bits = part.rsplit(":", 2)
        if len(bits) != 3 or not bits[0] or not bits[1].isdigit():
            raise option_error("output_type", spec, f"'{part}' is not node:index:TYPE")
        node, index, t = bits
        ref = f"{node}:{index}"
        if out_nodes is None:
            raise option_error("output_type", spec, "a per-node output type needs --out_nodes naming "
                       f"'{ref}' (as in ATC)")
        if ref not in out_nodes:
            raise option_error("output_type", spec, f"'{ref}' is not among --out_nodes "
                       f"({';'.join(out_nodes)})")
        entries.append(f"{node if index == '0' else ref}={dtype(t)}")
    return tuple(entries)


def parse_implmode(mode: str | None, op_types: str | None) -> tuple[str, tuple[str, ...]]:
    """--op_select_implmode and --optypelist_for_implmode -> cann-to-kernel's (implmode,
    implmode_ops).  The list needs the mode (ATC: the listed ops take the mode given), and
    each entry must be an Ascend IR op type (a cann op name)."""
    from compiler.conversions.cann_to_kernel.implmode import MODES
    from dialects.cann import CANN

    if mode is None:
        if op_types is not None:
            raise option_error("optypelist_for_implmode", op_types, "needs --op_select_implmode "
                       "(the mode the listed ops take)")
        return "", ()
    if mode not in MODES:
        raise option_error("op_select_implmode", mode, f"not one of {', '.join(MODES)}")
    if op_types is None:
        return mode, ()
    known = {c.name.removeprefix("cann.") for c in CANN.operations}
    types = tuple(t.strip() for t in op_types.split(","))
    for t in types:
        if not t:
            raise option_error("optypelist_for_implmode", op_types, "an empty op type")
        if t not in known:
            raise option_error("optypelist_for_implmode", op_types, f"'{t}' is not an Ascend IR op type "
                       "of this compiler (e.g. GeluErf, SoftmaxV2, LayerNorm)")
    return mode, types


def _cfg_lines(path: str, option: str) -> list[tuple[int, str]]:
    text = read_option_file(path, option)
    return [(i, ln.strip()) for i, ln in enumerate(text.splitlines(), 1)
            if ln.strip() and not ln.strip().startswith("#")]


def parse_keep_dtype(path: str) -> list[tuple[int, str]]:
    """ATC's --keep_dtype file: one op name or `OpType::TypeName` per line."""
    out = []
    for n, line in _cfg_lines(path, "keep_dtype"):
        if line.startswith("OpType::") and not line[len("OpType::"):]:
            raise CompileError(f"{path}:{n}: error: --keep_dtype: 'OpType::' names no type")
        out.append((n, line))
    return out


def parse_customize_dtypes(path: str) -> list[tuple[int, str, str]]:
    """ATC's --customize_dtypes file: `Opname::InputDtype:d1,...,OutputDtype:d1,...` or
    `OpType::TypeName:InputDtype:...,OutputDtype:...` -> (line, name or OpType::T, dtype).
    The op computes in one dtype here: every listed dtype must be the same float type."""
    out = []
    for n, line in _cfg_lines(path, "customize_dtypes"):
        where = f"{path}:{n}: error: --customize_dtypes"
        if line.startswith("OpType::"):
            rest = line[len("OpType::"):]
            key_name, colon, spec = rest.partition(":")
            key = "OpType::" + key_name
        else:
            key_name, sep, spec = line.partition("::")
            colon = sep
            key = key_name
        if not key_name or not colon or "InputDtype:" not in spec and "OutputDtype:" not in spec:
            raise CompileError(f"{where}: '{line}' is not Opname::InputDtype:...,OutputDtype:... "
                               "or OpType::Type:InputDtype:...,OutputDtype:...")
        dtypes = []
        for item in spec.replace("InputDtype:", "").replace("OutputDtype:", "").split(","):
            if item.strip():
                dtypes.append(item.strip().lower())
        bad = [d for d in dtypes if d not in CFG_DTYPES]
        if bad or not dtypes:
            raise CompileError(f"{where}: dtype '{(bad or [''])[0]}' is not one of "
                               f"{', '.join(CFG_DTYPES)}")
        if len(set(dtypes)) != 1:
            raise CompileError(f"{where}: '{line}': mixed dtypes ({', '.join(dict.fromkeys(dtypes))}) "
                               "are not supported: an op computes in one dtype")
        out.append((n, key, dtypes[0]))
    return out


# --- --log: ATC's line format on stderr ------------------------------------------------------

class AtcFormatter(logging.Formatter):
    """`[Level] ModuleName(PID,PName):yyyy-mm-dd-hh:mm:ss.mmm.uuu [File:Line]Content`."""

    def __init__(self, pname: str):
        super().__init__()
        self.pname = pname

    def format(self, record: logging.LogRecord) -> str:
        t = time.localtime(record.created)
        us = int((record.created % 1) * 1_000_000)
        stamp = time.strftime("%Y-%m-%d-%H:%M:%S", t) + f".{us // 1000:03d}.{us % 1000:03d}"
        module = record.name.split(".")[-1].upper() if "." in record.name else "CANN"
        return (f"[{record.levelname}] {module}({record.process},{self.pname}):{stamp} "
                f"[{os.path.basename(record.pathname)}:{record.lineno}]{record.getMessage()}")


class _PlainWarnings(logging.Formatter):
    def __init__(self, tool: str):
        super().__init__()
        self.tool = tool

    def format(self, record: logging.LogRecord) -> str:
        return f"{self.tool}: {record.levelname.lower()}: {record.getMessage()}"


def configure_log(level: str | None, tool: str) -> None:
    """--log=debug|info|warning|error|null: the `cann` loggers print in ATC's format at that
    level; without --log, warnings and errors print as plain `tool: warning: ...` lines."""
    if level is not None and level not in LOG_LEVELS:
        raise option_error("log", level, f"unknown log level; known: {', '.join(LOG_LEVELS)}")
    logger = logging.getLogger("cann")
    for h in list(logger.handlers):
        logger.removeHandler(h)
    logger.propagate = False
    if level == "null":
        logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.CRITICAL + 1)
        return
    handler = logging.StreamHandler(sys.stderr)
    if level is None:
        handler.setFormatter(_PlainWarnings(tool))
        logger.setLevel(logging.WARNING)
    else:
        handler.setFormatter(AtcFormatter(tool))
        logger.setLevel(LOG_LEVELS[level])
    logger.addHandler(handler)
