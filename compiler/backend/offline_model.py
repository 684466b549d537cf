"""The offline model file (.om): a planned kernel-level module, its weights in their device
layouts, tiling data and memory plan, in one checksummed binary that runs without TensorFlow.

Layout (all integers little-endian):

    header, 256 bytes (after GE's ModelFileHeader: magic, head size, version, checksum, length,
    name, op count, platform):
      0   u32   magic 0x444F4D49 ("DOMI"; stored little-endian like GE's, so the file starts "IMOD")
      4   u32   header size = 256
      8   u32   format version (FORMAT_VERSION)
      12  u32   number of sections
      16  u64   payload length (bytes after the header)
      24  32 B  SHA-256 of the payload
      56  32 B  model name (UTF-8, NUL padded)
      88  u32   op count (kernel launches, of every function)
      92  20 B  platform: the soc_version (NUL padded)
      112 u64   arena bytes (device memory the caller must provide besides inputs/outputs)
      120 u64   weight bytes
      128 ...   zero
      252 u32   CRC-32 of bytes 0..251
    section table, 24 bytes per section: u32 kind, u32 0, u64 offset (from file start), u64 length
    sections, each starting 512-byte aligned:
      1 MODEL_DEF    kernel IR text (UTF-8); every constant of @main became a trailing function
                     argument (`om.weight_args = N` on @main) bound to the WEIGHTS section
      2 WEIGHTS      raw bytes of each weight in its storage layout (FRACTAL_Z, ...), 512-aligned
      3 WEIGHT_INDEX JSON: per weight argument: name, offset, bytes, dtype, storage shape
      4 TILING       JSON: per kernel launch (of every function): function, op, node, block_dim,
                     tiling fields, buffers
      5 MEMORY_PLAN  JSON: arena, alignment, bounds, per tensor offset and bytes; `functions`:
                     the same for each function a control op names
      6 MANIFEST     JSON: model name, chip, inputs and outputs (name, shape, dtype), producer

`load_offline_model` rebuilds the kernel-level module exactly (constants restored from the raw
bytes), checks that the tiling and memory-plan sections agree with the IR, and re-checks the
plan.  `run_offline_model` executes the launches in order on one real arena (a byte buffer):
every intermediate is written at its planned offset and read back from there, so an unsound
plan would corrupt the result.  Every defect of a file is one `OmError` line.

Control flow (kernel.if / case / while): the functions they name are planned by themselves
(compiler/backend/memory_plan.py) and run at the base of their control op's workspace, reading their
arguments from and writing their results to the buffers the caller binds (a while's loop
variables alternate between two sets there).  Their constants stay in MODEL_DEF (only @main's
go to WEIGHTS).
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from dataclasses import dataclass
from io import StringIO
from typing import TYPE_CHECKING, NoReturn

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyDenseElement,
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FusedLoc,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import BlockArgument, Operation

from compiler.backend import memory_plan as mp
from compiler.ir.diagnostics import CompileError, SourceMap, read_bytes
from compiler.ir.typed import block_of, elem_of

if TYPE_CHECKING:
    from compiler.backend.gear_model import GearModel

MAGIC = 0x444F4D49
HEADER_SIZE = 256
FORMAT_VERSION = 1
GEARS_FORMAT_VERSION = 2  #: a multi-gear .om (compiler/backend/gear_model.py)
SECTION_ALIGN = 512
WEIGHT_ALIGN = 512
WEIGHT_ARGS_ATTR = "om.weight_args"
PRODUCER = "cann-compile 0.1.0"

MODEL_DEF, WEIGHTS, WEIGHT_INDEX, TILING, MEMORY_PLAN, MANIFEST = 1, 2, 3, 4, 5, 6
SECTION_NAMES = {MODEL_DEF: "MODEL_DEF", WEIGHTS: "WEIGHTS", WEIGHT_INDEX: "WEIGHT_INDEX",
                 TILING: "TILING", MEMORY_PLAN: "MEMORY_PLAN", MANIFEST: "MANIFEST"}

_HEAD = struct.Struct("<IIII Q 32s 32s I 20s Q Q")  # up to byte 128
_SECTION = struct.Struct("<IIQQ")


class OmError(CompileError):
    pass


def _pad(data: bytes, n: int) -> bytes:
    return data[:n].ljust(n, b"\0")


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


# --- writing --------------------------------------------------------------------------------

def _main(module: ModuleOp) -> func.FuncOp:
    from compiler.ir.entry import main_func

    return main_func(module)


def _launches(module: ModuleOp) -> list[tuple[str, Operation]]:
    """(function name, launch) of every function, in module order."""
    out = []
    for f in mp.planned_functions(module):
        out += [(f.sym_name.data, op) for op in block_of(f.body).ops if mp.is_kernel(op)]
    return out


def _op_json(op: Operation, step: int, function: str = "main") -> dict:
    from compiler.ir.diagnostics import node_name

    out: dict = {"step": step, "function": function, "op": op.name, "node": node_name(op)}
    bd = op.properties.get("block_dim")
    if isinstance(bd, IntegerAttr):
        out["block_dim"] = bd.value.data
    t = op.properties.get("tiling")
    if t is not None and hasattr(t, "as_dict"):
        out["tiling"] = t.as_dict()
    bufs = op.properties.get("buffers")
    if bufs is not None and hasattr(bufs, "data"):
        out["buffers"] = [[b.space.data, b.size.data, b.role.data] for b in bufs.data
                          if hasattr(b, "space")]
    return out


def _model_text(module: ModuleOp) -> bytes:
    """module_to_text(module, debuginfo=True), encoded."""
    from compiler.ir.fast_printer import FastPrinter

    out: list[str] = []
    printer = FastPrinter(stream=StringIO(), print_generic_format=False, print_debuginfo=True)
    printer._write = out.append  # type: ignore[method-assign, assignment]
    printer.print_op(module)
    out.append("\n")
    return "".join(out).encode()


def _weights_as_arguments(fn: func.FuncOp):
    """Turn @main's constants into trailing arguments, in place; returns (consts, undo) where
    undo() puts the module back exactly as it was (same ops, same use order, same types)."""
    block = block_of(fn.body)
    consts = [(k, op) for k, op in enumerate(block.ops) if mp.is_constant(op)]
    old_type = fn.function_type
    old_attr = fn.attributes.get(WEIGHT_ARGS_ATTR)
    n_args = len(block.args)
    done: list[tuple[Operation, Operation | None, BlockArgument, str | None]] = []

    def undo() -> None:
        for op, nxt, arg, hint in reversed(done):
            if nxt is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, nxt)
            arg.replace_all_uses_with(op.results[0])
            op.results[0].name_hint = hint
        while len(block.args) > n_args:
            block.erase_arg(block.args[-1])
        fn.function_type = old_type
        if old_attr is not None:
            fn.attributes[WEIGHT_ARGS_ATTR] = old_attr
        else:
            fn.attributes.pop(WEIGHT_ARGS_ATTR, None)

    try:
        for _, op in consts:
            res = op.results[0]
            arg = block.insert_arg(res.type, len(block.args))
            hint = res.name_hint
            nxt = op.next_op
            res.replace_all_uses_with(arg)
            op.detach()
            done.append((op, nxt, arg, hint))
    except BaseException:
        undo()
        raise
    fn.function_type = func.FunctionType.from_lists(
        [a.type for a in block.args], list(fn.function_type.outputs))
    fn.attributes[WEIGHT_ARGS_ATTR] = IntegerAttr(len(consts), i64)
    return consts, undo


class WeightSink:
    """The WEIGHTS section being built: each weight's raw bytes at a 512-aligned offset.  With
    `dedupe`, bytes equal to a weight already placed (same SHA-256 and length) are not stored
    again: the second weight gets the first one's offset (a multi-gear .om's gears share them)."""

    def __init__(self, dedupe: bool = False):
        self.chunks: list = []
        self.length = 0
        self.dedupe = dedupe
        self._seen: dict[tuple[bytes, int], int] = {}
        self.requested = 0  #: bytes of every weight placed, stored or deduplicated

    def place(self, raw) -> int:
        self.requested += len(raw)
        key = (hashlib.sha256(raw).digest(), len(raw)) if self.dedupe else None
        if key is not None and key in self._seen:
            return self._seen[key]
        off = _align(self.length, WEIGHT_ALIGN)
        if off > self.length:
            self.chunks.append(bytes(off - self.length))
        self.chunks.append(raw)
        self.length = off + len(raw)
        if key is not None:
            self._seen[key] = off
        return off


@dataclass
class ModelParts:
    """The sections of one planned kernel module (WEIGHTS aside: its weights went to a sink)."""

    sections: list  #: (kind, chunks) of MODEL_DEF, WEIGHT_INDEX, TILING, MEMORY_PLAN, MANIFEST
    launches: int
    arena: int
    soc: str
    manifest: dict


def model_parts(module: ModuleOp, name: str, sink: WeightSink) -> ModelParts:
    """Everything of the .om of a kernel-level module but the WEIGHTS section, whose bytes go
    to `sink` (the WEIGHT_INDEX offsets are the sink's)."""
    from compiler.ir.entry import input_specs, io_names
    from dialects.common import numpy_dtype

    fn = _main(module)
    if not all(mp.has_plan(f) for f in mp.planned_functions(module)):
        module = module.clone()  # planning writes to the module: never to the caller's
        fn = _main(module)
        mp.plan_module(module)
    problems = mp.check_module(module)
    if problems:
        raise OmError(f"internal error: the memory plan is unsound: {problems[0]}")
    in_names, out_names = io_names(fn)
    inputs = [{"name": n, "shape": list(s), "dtype": str(d)} for n, s, d in input_specs(module)]
    outputs = []
    for n, t in zip(out_names, fn.function_type.outputs, strict=True):
        from compiler.ir.entry import framework_shape

        outputs.append({"name": n, "shape": list(framework_shape(t)),
                        "dtype": str(numpy_dtype(elem_of(t)))})

    # Constants -> trailing arguments bound to raw weight bytes.  The weights are never printed
    # nor copied: their bytes go to the WEIGHTS section as they are.  The module is changed in
    # place (no clone) and put back exactly once printed.
    from compiler.ir.diagnostics import loc_names, node_name

    for op in block_of(fn.body).ops:
        if not mp.is_constant(op):
            continue
        value = op.properties.get("value", op.attributes.get("value"))
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise OmError(f"internal error: constant {op.name} has no dense value")
    index = []
    consts, undo = _weights_as_arguments(fn)
    try:
        for position, op in consts:
            value = op.properties.get("value", op.attributes.get("value"))
            raw = value.data.data
            dtype = numpy_dtype(value.type.element_type)
            off = sink.place(raw)
            entry = {"name": node_name(op), "offset": off, "bytes": len(raw),
                     "dtype": str(dtype), "shape": list(value.type.get_shape()),
                     "op": op.name, "position": position}
            names = loc_names(op)
            if isinstance(op.location, FusedLoc) and names:  # a folded constant: every node
                entry["names"] = names
            index.append(entry)

        launches = _launches(module)
        plan = mp.read_plan(fn)
        soc_attr = module.attributes.get("cann.soc_version")
        soc = soc_attr.data if isinstance(soc_attr, StringAttr) else ""
        text = _model_text(module)
        plan_json = {
            "alignment": plan.alignment, "arena": plan.arena, "live_bound": plan.live_bound,
            "naive": plan.naive, "info": plan.info,
            "tensors": [{"name": r.name, "kind": r.kind, "offset": o, "bytes": r.size,
                         "live": [r.start, r.end]}
                        for r, o in zip(plan.collected.reqs, plan.offsets)],
            "functions": {f.sym_name.data: _plan_json(mp.read_plan(f))
                          for f in mp.planned_functions(module) if f is not fn},
        }
        tiling = json.dumps([_op_json(op, k, f) for k, (f, op) in enumerate(launches)]).encode()
    finally:
        undo()
    manifest = {"name": name, "soc_version": soc, "inputs": inputs, "outputs": outputs,
                "weights": len(consts), "launches": len(launches), "producer": PRODUCER,
                "format_version": FORMAT_VERSION}
    sections = [
        (MODEL_DEF, [text]),
        (WEIGHT_INDEX, [json.dumps(index).encode()]),
        (TILING, [tiling]),
        (MEMORY_PLAN, [json.dumps(plan_json).encode()]),
        (MANIFEST, [json.dumps(manifest).encode()]),
    ]
    return ModelParts(sections, len(launches), plan.arena, soc, manifest)


def assemble(sections: list, name: str, op_count: int, soc: str, arena: int, weight_bytes: int,
             version: int = FORMAT_VERSION) -> tuple[list, list]:
    """(header fields but the digest, payload chunks) of sections given as (kind, gear, chunks);
    `gear` goes to the section table's second word (0 in a single-gear file)."""
    table_end = HEADER_SIZE + _SECTION.size * len(sections)
    offset = _align(table_end, SECTION_ALIGN)
    table = bytearray()
    body: list = []  # chunks: the weights are never joined into one buffer
    for kind, gear, chunks in sections:
        n = sum(len(c) for c in chunks)
        table += _SECTION.pack(kind, gear, offset, n)
        body.extend(chunks)
        pad = _align(offset + n, SECTION_ALIGN) - (offset + n)
        body.append(bytes(pad))
        offset += n + pad
    payload = [bytes(table), bytes(_align(table_end, SECTION_ALIGN) - table_end), *body]
    length = sum(len(c) for c in payload)
    fields = [MAGIC, HEADER_SIZE, version, len(sections), length, None,
              _pad(name.encode(), 32), op_count, _pad(soc.encode(), 20), arena, weight_bytes]
    return fields, payload


def _offline_model_chunks(module: ModuleOp, name: str) -> tuple[list, list]:
    """(header fields but the digest, payload chunks) of the .om of a kernel-level module."""
    sink = WeightSink()
    parts = model_parts(module, name, sink)
    first, *rest = parts.sections
    sections = [(first[0], 0, first[1]), (WEIGHTS, 0, sink.chunks),
                *((kind, 0, chunks) for kind, chunks in rest)]
    return assemble(sections, name, parts.launches, parts.soc, parts.arena, sink.length)


def _header(fields: list, digest: bytes) -> bytes:
    head = _HEAD.pack(*fields[:5], digest, *fields[6:])
    head = head.ljust(252, b"\0")
    head += struct.pack("<I", zlib.crc32(head))
    assert len(head) == HEADER_SIZE
    return head


def _sha256(chunks: list) -> bytes:
    digest = hashlib.sha256()
    for c in chunks:
        digest.update(c)
    return digest.digest()


def build_offline_model(module: ModuleOp, name: str = "model") -> bytes:
    """The .om bytes of a kernel-level module (planned here if it was not yet)."""
    fields, payload = _offline_model_chunks(module, name)
    return b"".join([_header(fields, _sha256(payload)), *payload])


def _plan_json(plan: mp.RecordedPlan) -> dict:
    return {"arena": plan.arena, "tensors": [
        {"name": r.name, "kind": r.kind, "offset": o, "bytes": r.size, "live": [r.start, r.end]}
        for r, o in zip(plan.collected.reqs, plan.offsets)]}


def write_offline_model(module: ModuleOp, path: str, name: str | None = None) -> int:
    """Write atomically (no half-written file on error); returns the file size.  The payload is
    written chunk by chunk while another thread hashes it (both release the GIL), then the
    header with the checksum goes in front."""
    import os

    fields, payload = _offline_model_chunks(
        module, name or os.path.splitext(os.path.basename(path))[0])
    return write_chunks(path, fields, payload)


def write_chunks(path: str, fields: list, payload: list) -> int:
    """Write an assembled .om (`assemble`) atomically; returns the file size."""
    import os
    import tempfile
    import threading

    size = HEADER_SIZE + fields[4]
    if path is None or path == "-":
        from compiler.ir.ir_io import write_atomically

        write_atomically(path, lambda: b"".join([_header(fields, _sha256(payload)), *payload]))
        return size
    digest: list = []
    hasher = threading.Thread(target=lambda: digest.append(_sha256(payload)), daemon=True)
    hasher.start()
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    except OSError as e:
        hasher.join()
        raise CompileError(f"{path}: error: cannot write: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.seek(HEADER_SIZE)
            for c in payload:
                f.write(c)
            hasher.join()
            f.seek(0)
            f.write(_header(fields, digest[0]))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600: give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        hasher.join()
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return size


# --- reading --------------------------------------------------------------------------------

@dataclass
class Header:
    version: int
    sections: int
    length: int
    name: str
    op_count: int
    platform: str
    arena: int
    weight_bytes: int


@dataclass
class OfflineModel:
    path: str
    header: Header
    module: ModuleOp
    manifest: dict
    tiling: list
    plan: dict
    weight_index: list
    source: SourceMap | None = None  #: where MODEL_DEF's ops stand, for diagnostics
    gears: GearModel | None = None  #: a multi-gear file's GearModel (this is its first gear)


def _fail(path: str, msg: str) -> NoReturn:
    raise OmError(f"{path}: error: {msg}")


def is_offline_model(path: str) -> bool:
    if path.endswith(".om"):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(4) == struct.pack("<I", MAGIC)
    except OSError:
        return False


def parse_header(data: bytes, path: str) -> Header:
    if len(data) < HEADER_SIZE:
        _fail(path, f"truncated offline model: {len(data)} bytes, the header alone is {HEADER_SIZE}")
    (magic, head_size, version, n_sections, length, digest, name, ops, platform, arena,
     wbytes) = _HEAD.unpack_from(data, 0)
    if magic != MAGIC:
        _fail(path, f"not an offline model: magic 0x{magic:08X}, expected 0x{MAGIC:08X} ('DOMI')")
    if version not in (FORMAT_VERSION, GEARS_FORMAT_VERSION):
        _fail(path, f"unsupported offline model format version {version}; "
                    f"this tool reads versions {FORMAT_VERSION} and {GEARS_FORMAT_VERSION} "
                    "(multi-gear)")
    (crc,) = struct.unpack_from("<I", data, 252)
    if head_size != HEADER_SIZE or crc != zlib.crc32(data[:252]):
        _fail(path, "corrupted offline model: header checksum mismatch")
    if len(data) - HEADER_SIZE < length:
        _fail(path, f"truncated offline model: {len(data)} bytes, the header says "
                    f"{HEADER_SIZE + length}")
    if len(data) - HEADER_SIZE > length:
        _fail(path, f"corrupted offline model: {len(data) - HEADER_SIZE - length} bytes after "
                    "the end the header gives")
    if hashlib.sha256(data[HEADER_SIZE:]).digest() != digest:
        _fail(path, "corrupted offline model: payload checksum mismatch")
    return Header(version, n_sections, length, name.rstrip(b"\0").decode("utf-8", "replace"), ops,
                  platform.rstrip(b"\0").decode("utf-8", "replace"), arena, wbytes)


def read_section_table(data: bytes, header: Header, path: str) -> dict[tuple[int, int], memoryview]:
    """(kind, gear) -> section bytes; gear is the table entry's second word (0 but in a
    multi-gear file, compiler/backend/gear_model.py)."""
    out: dict[tuple[int, int], memoryview] = {}
    view = memoryview(data)
    for i in range(header.sections):
        pos = HEADER_SIZE + i * _SECTION.size
        if pos + _SECTION.size > len(data):
            _fail(path, "corrupted offline model: section table runs past the end")
        kind, gear, off, n = _SECTION.unpack_from(data, pos)
        if off < HEADER_SIZE or off + n > len(data):
            _fail(path, f"corrupted offline model: section {SECTION_NAMES.get(kind, kind)} "
                        f"[{off}, {off + n}) lies outside the file")
        out[(kind, gear)] = view[off:off + n]
    return out


def read_sections(data: bytes, header: Header, path: str) -> dict[int, memoryview]:
    out = {kind: v for (kind, _), v in read_section_table(data, header, path).items()}
    for kind in SECTION_NAMES:
        if kind not in out:
            _fail(path, f"corrupted offline model: no {SECTION_NAMES[kind]} section")
    return out


def _json(sec: memoryview, what: str, path: str):
    try:
        return json.loads(bytes(sec).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        _fail(path, f"corrupted offline model: {what} section is not valid JSON ({e})")


def _schema(value, schema, what: str, path: str) -> None:
    """`value` (parsed JSON) has the shape `schema`: a type, `[item schema]` (a list of them) or
    `{key: schema}` (an object with at least those keys; a key ending in `?` is optional)."""
    if isinstance(schema, list):
        if not isinstance(value, list):
            _fail(path, f"corrupted offline model: {what} must be a list, got {_kind(value)}")
        for k, item in enumerate(value):
            _schema(item, schema[0], f"{what}[{k}]", path)
    elif isinstance(schema, dict):
        if not isinstance(value, dict):
            _fail(path, f"corrupted offline model: {what} must be an object, got {_kind(value)}")
        for key, sub in schema.items():
            name = key.rstrip("?")
            if name in value:
                _schema(value[name], sub, f"{what}.{name}", path)
            elif not key.endswith("?"):
                _fail(path, f"corrupted offline model: {what} has no '{name}'")
    elif schema is _NAT:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            _fail(path, f"corrupted offline model: {what} must be a non-negative integer, "
                        f"got {json.dumps(value)[:40]}")
    elif not isinstance(value, schema) or (schema is int and isinstance(value, bool)):
        _fail(path, f"corrupted offline model: {what} must be {_kind_name(schema)}, "
                    f"got {_kind(value)}")


_NAT = object()  # a non-negative integer


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value), "?")


def _kind_name(t) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "an integer",
            bool: "a boolean"}.get(t, getattr(t, "__name__", str(t)))


#: What the loader reads of each JSON section (what `_offline_model_chunks` writes).
_WEIGHT_INDEX = [{"name?": (str, type(None)), "offset": _NAT, "bytes": _NAT, "op?": str,
                  "position?": _NAT}]
_TILING = [{"function": str, "op": str, "block_dim?": (int, type(None)), "tiling?": (dict, type(None)),
            "buffers?": (list, dict, type(None))}]
_MEMORY_PLAN = {"arena": _NAT}
_MANIFEST = {"inputs?": list, "outputs?": list}


def load_offline_model(path: str) -> OfflineModel:
    """Read, check and rebuild the kernel-level module; never imports TensorFlow.  A
    multi-gear file gives its first gear, with `.gears` holding them all."""
    data = read_bytes(path, "an offline model (.om)", OmError)
    header = parse_header(data, path)
    if header.version == GEARS_FORMAT_VERSION:
        from compiler.backend.gear_model import load_gears

        return load_gears(path, data, header)
    return rebuild(path, header, read_sections(data, header, path), header.op_count, header.arena)


def rebuild(path: str, header: Header, secs: dict, op_count: int, arena: int) -> OfflineModel:
    """The OfflineModel of one planned module's sections (`op_count` launches, `arena` bytes:
    the header's, or in a multi-gear file the gear table's)."""
    from compiler.ir.ir_io import make_context, parse_module

    manifest = _json(secs[MANIFEST], "MANIFEST", path)
    index = _json(secs[WEIGHT_INDEX], "WEIGHT_INDEX", path)
    tiling = _json(secs[TILING], "TILING", path)
    plan = _json(secs[MEMORY_PLAN], "MEMORY_PLAN", path)
    for value, schema, what in ((manifest, _MANIFEST, "MANIFEST"), (index, _WEIGHT_INDEX, "WEIGHT_INDEX"),
                                (tiling, _TILING, "TILING"), (plan, _MEMORY_PLAN, "MEMORY_PLAN")):
        _schema(value, schema, what, path)
    try:
        text = bytes(secs[MODEL_DEF]).decode("utf-8")
    except UnicodeDecodeError:
        _fail(path, "corrupted offline model: MODEL_DEF is not UTF-8 text")
    try:
        module, source = parse_module(make_context(), text, f"{path}(MODEL_DEF)")
    except CompileError as e:
        raise OmError(e.messages[0]) from None
    try:
        fn = _main(module)
    except CompileError as e:
        _fail(path, f"invalid model: MODEL_DEF: {e.messages[0]}")
    block = block_of(fn.body)
    n_w_attr = fn.attributes.get(WEIGHT_ARGS_ATTR)
    n_w = n_w_attr.value.data if isinstance(n_w_attr, IntegerAttr) else -1
    if n_w != len(index) or n_w > len(block.args):
        _fail(path, f"corrupted offline model: {len(index)} weights for {n_w} weight arguments")

    # Weight arguments -> constants holding the raw bytes (O(1) per weight).
    from xdsl.rewriter import InsertPoint, Rewriter

    from dialects.cann import ConstOp

    wsec = secs[WEIGHTS]
    first = len(block.args) - n_w
    new_consts = []
    for k, w in enumerate(index):
        arg = block.args[first + k]
        t = arg.type
        if not isinstance(t, TensorType):
            _fail(path, f"corrupted offline model: weight {k} is not a tensor")
        et = t.element_type
        if not isinstance(et, AnyDenseElement):
            _fail(path, f"corrupted offline model: weight {k} has element type {et}")
        vtype = TensorType(et, t.get_shape())
        want = mp.tensor_bytes(vtype)
        if w.get("bytes") != want or w["offset"] + want > len(wsec):
            _fail(path, f"corrupted offline model: weight {k} ('{w.get('name')}') has "
                        f"{w.get('bytes')} bytes at {w.get('offset')}, its type needs {want}")
        raw = bytes(wsec[w["offset"]:w["offset"] + want])
        const = ConstOp(DenseIntOrFPElementsAttr(vtype, BytesAttr(raw)), t)
        names = w.get("names")
        if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
            const.location = FusedLoc(ArrayAttr([NameLoc(StringAttr(n), NoneAttr())
                                                  for n in names]), NoneAttr())
        elif w.get("name"):
            const.location = NameLoc(StringAttr(w["name"]), NoneAttr())
        new_consts.append((arg, const))
    for k, (_arg, const) in enumerate(new_consts):  # back where they stood (exact round trip)
        pos = index[k].get("position", 0)
        ops = list(block.ops)
        where = InsertPoint.before(ops[pos]) if isinstance(pos, int) and 0 <= pos < len(ops) \
            else InsertPoint.at_end(block)
        Rewriter.insert_op(const, where)
    for arg, const in new_consts:
        arg.replace_all_uses_with(const.results[0])
    from compiler.ir.diagnostics import dominance_errors

    for op, _ in dominance_errors(module)[:1]:  # a position puts a weight after its use
        k = next(k for k, (_, c) in enumerate(new_consts) if c.results[0] in op.operands)
        _fail(path, f"corrupted offline model: WEIGHT_INDEX[{k}] ('{index[k].get('name')}'): "
                    f"position {index[k].get('position')} puts the weight after its use by "
                    f"{op.name}")
    for arg, _ in reversed(new_consts):
        block.erase_arg(arg)
    fn.function_type = func.FunctionType.from_lists([a.type for a in block.args],
                                                    list(fn.function_type.outputs))
    del fn.attributes[WEIGHT_ARGS_ATTR]

    try:
        launches = _launches(module)
    except mp.PlanError as e:
        _fail(path, f"invalid model: {e}")
    if len(launches) != op_count or len(tiling) != len(launches):
        _fail(path, f"corrupted offline model: {len(launches)} kernel launches in MODEL_DEF, "
                    f"header says {op_count}, TILING has {len(tiling)}")
    for k, (f, op) in enumerate(launches):
        expect = _op_json(op, k, f)
        got = tiling[k]
        for key in ("function", "op", "block_dim", "tiling", "buffers"):
            if expect.get(key) != got.get(key):
                _fail(path, f"corrupted offline model: TILING of launch #{k} ({op.name}) "
                            f"disagrees with MODEL_DEF on '{key}'")
    problems = mp.check_module(module)
    if problems:
        _fail(path, f"invalid memory plan: {problems[0]}")
    if mp.read_plan(fn).arena != arena or plan.get("arena") != arena:
        _fail(path, "corrupted offline model: arena size disagrees between header, "
                    "MEMORY_PLAN and MODEL_DEF")
    return OfflineModel(path, header, module, manifest, tiling, plan, index, source)


# --- running ----------------------------------------------------------------------------------

def run_planned(module: ModuleOp, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run @main's launches in order on one arena at the planned offsets."""
    from compiler.interpreters.execute import check_input_names, finish_output, prepare_input
    from compiler.ir.entry import io_names

    fn = _main(module)
    in_names, out_names = io_names(fn)
    check_input_names(in_names, inputs)
    args = [prepare_input(n, inputs[n], a.type)
            for n, a in zip(in_names, block_of(fn.body).args, strict=True)]
    run = _ArenaRun(module, mp.read_plan(fn).arena)
    results = run.function(fn, args, 0)
    return {name: finish_output(v, t)
            for name, v, t in zip(out_names, results, fn.function_type.outputs, strict=True)}


class _ArenaRun:
    """One execution on one arena.  A value in the arena is (absolute offset, dtype, shape)."""

    def __init__(self, module: ModuleOp, arena_bytes: int):
        from compiler.interpreters.execute import make_interpreter

        self.arena = np.zeros(arena_bytes, np.uint8)
        self.interp = make_interpreter(module)
        self.plans: dict = {}

    def read(self, loc) -> np.ndarray:
        off, dtype, shape = loc
        n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return self.arena[off:off + n].view(dtype).reshape(shape).copy()

    def write(self, loc, value) -> None:
        off, dtype, shape = loc
        val = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=dtype), shape))
        self.arena[off:off + val.nbytes] = val.reshape(-1).view(np.uint8)

    @staticmethod
    def loc(off: int, t):
        from dialects.common import numpy_dtype

        return off, np.dtype(numpy_dtype(t.element_type)), tuple(t.get_shape())

    def function(self, fn: func.FuncOp, args, base: int, arg_locs=None, out_locs=None):
        """Run @fn with its arena at `base`.  Arguments are values, or (arg_locs) buffers in
        the arena; with out_locs, each result is written to its buffer (None: a value)."""
        from compiler.interpreters.common import SemanticsError
        from compiler.ir.diagnostics import OpError

        rec = self.plans.get(fn)
        if rec is None:
            rec = self.plans[fn] = mp.read_plan(fn)
        c = rec.collected
        step_of = {op: k for k, op in enumerate(c.launches)}
        block = block_of(fn.body)
        env: dict = {}
        placed: dict = {}
        for k, a in enumerate(block.args):
            if arg_locs is not None:
                placed[a] = arg_locs[k]
            else:
                env[a] = args[k]
        bound: dict = {}  # returned value -> its caller buffers
        ret = next((op for op in block.ops if isinstance(op, func.ReturnOp)), None)
        if ret is None:
            raise CompileError(f"@{fn.sym_name.data} has no func.return")
        if out_locs is not None:
            for v, loc in zip(ret.operands, out_locs, strict=True):
                if loc is not None:
                    bound.setdefault(v, []).append(loc)

        def value(v):
            return self.read(placed[v]) if v in placed else env[v]

        for op in block.ops:
            if mp.is_constant(op):
                env[op.results[0]] = self.interp.run_op(op, ())[0]
                continue
            if op is ret:
                break
            k = step_of[op]
            ins = tuple(value(v) for v in op.operands)
            try:
                if mp.is_control(op):
                    ws = c.workspace_tensor.get(k)
                    outs = self.control(op, ins, base + rec.offsets[ws] if ws is not None else 0)
                else:
                    outs = self.interp.run_op(op, ins)
            except SemanticsError as e:
                raise OpError([(e.op, e.message)]) from None
            except (OpError, CompileError):
                raise
            except Exception as e:  # noqa: BLE001 - as run_module: the launch cannot execute
                msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise OpError([(op, f"{op.name}: cannot execute: {msg}")]) from None
            for r, (res, val) in enumerate(zip(op.results, outs, strict=True)):
                t = c.result_tensor.get((k, r))
                if t is not None:
                    placed[res] = self.loc(base + rec.offsets[t], res.type)
                elif res in bound:
                    placed[res] = bound[res][0]
                else:
                    env[res] = np.asarray(val)
                    continue
                self.write(placed[res], val)
        results = [value(v) for v in ret.operands]
        for v, val in zip(ret.operands, results):
            for loc in bound.get(v, []):  # arguments, constants, a value returned twice: copies
                if placed.get(v) != loc:
                    self.write(loc, val)
        return results

    def control(self, op: Operation, args, ws: int):
        """kernel.if / case / while: the host reads the predicate or index and runs functions
        at the workspace's arena base; a while's loop variables alternate between two sets."""
        from compiler.interpreters.cann_impl import MAX_WHILE_ITERATIONS, predicate
        from compiler.interpreters.common import SemanticsError

        lay = mp.control_layout(op)
        base = ws + lay.base
        outs = [self.loc(-1, r.type) for r in op.results]  # shapes only
        if mp.op_name(op) == "kernel.if":
            f = lay.functions[0] if predicate(args[0]) else lay.functions[1]
            return self.function(f, args[1:], base)
        if mp.op_name(op) == "kernel.case":
            i = int(np.asarray(args[0]).reshape(()))
            f = lay.functions[i] if 0 <= i < len(lay.functions) else lay.functions[-1]
            return self.function(f, args[1:], base)
        cond, body = lay.functions
        sets = [[(ws + o, d, s) for o, (_, d, s) in zip(offs, outs)] for offs in lay.sets]
        pred = self.loc(ws + lay.pred, cond.function_type.outputs.data[0])
        for loc, v in zip(sets[0], args):
            self.write(loc, v)
        cur = 0
        for _ in range(MAX_WHILE_ITERATIONS):
            self.function(cond, None, base, sets[cur], [pred])
            if not predicate(self.read(pred)):
                return [self.read(loc) for loc in sets[cur]]
            self.function(body, None, base, sets[cur], sets[1 - cur])
            cur = 1 - cur
        raise SemanticsError(op, f"{op.name}: more than {MAX_WHILE_ITERATIONS} iterations "
                                 "(the limit CANN_MAX_WHILE_ITERATIONS sets)")


def run_offline_model(om: OfflineModel, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run_planned(om.module, inputs)
