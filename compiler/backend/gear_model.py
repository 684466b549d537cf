"""The multi-gear offline model: one planned kernel module per gear of --dynamic_batch_size /
--dynamic_image_size / --dynamic_dims (tools/driver/gears.py), one copy of the weights.

The file is an .om of format version 2 (GEARS_FORMAT_VERSION; a single-gear .om stays
version 1, and loads as before).  Header and section table are those of
compiler/backend/offline_model.py; a section's table entry carries its gear in the second word:

    GEARS (7), gear 0   JSON: the option and its value, the --input_shape template (-1s), each
                        gear's values and input shapes, the model's inputs and outputs with -1
                        where the gears differ and the extra input `ascend_mbatch_shape_data`
                        (int64, [values per gear]) last, and per gear its launches and arena
    WEIGHTS, gear 0     every gear's weights, each distinct one once: a weight whose bytes (by
                        SHA-256 and length) are already stored points at them (weights in
                        device layout do not depend on the batch or the image size)
    per gear k: MODEL_DEF, WEIGHT_INDEX (offsets into the one WEIGHTS), TILING, MEMORY_PLAN,
                        MANIFEST, each with gear k, each a zlib stream (GEARS says
                        "compression": "zlib")

The header's op count is the sum of the gears' launches, its arena the largest gear's (the
device memory one loaded model needs), its weight bytes the WEIGHTS section's.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

from compiler.backend import offline_model as om
from compiler.ir.diagnostics import CompileError

GEARS = 7
GEAR_SECTIONS = (om.MODEL_DEF, om.WEIGHT_INDEX, om.TILING, om.MEMORY_PLAN, om.MANIFEST)
#: The per-gear sections are zlib streams (the kernel IR text and its JSON compress ~10x; the
#: gears' IR would otherwise outweigh the shared weights of a small model).
COMPRESSION = "zlib"
ZLIB_LEVEL = 6


#: The extra input ATC adds (acl's ACL_DYNAMIC_TENSOR_NAME): int64 (aclDataType 9), ND, one
#: element per gear value: [1] for a batch, [2] for (h, w), [n] for n dynamic dims (what
#: aclmdlGetInputDims reports in the ACL samples' dynamic-batch/-hw logs).
MBATCH_INPUT = "ascend_mbatch_shape_data"
MBATCH_DTYPE = "int64"


def select_gear(table: dict, inputs: dict, files: dict[str, str] | None = None) -> int:
    """The gear (index) of a multi-gear .om's table that `inputs` (name -> array) run in.  An
    explicit `ascend_mbatch_shape_data` names it by its values; otherwise the given inputs'
    shapes must be one gear's; no input given: the first gear.  A mismatch is one error naming
    the input, its shape and the allowed ones."""
    import numpy as np

    files = files or {}
    shapes = table["shapes"]
    gears = [tuple(g) for g in table["gears"]]
    if MBATCH_INPUT in inputs:
        v = np.asarray(inputs[MBATCH_INPUT])
        where = files.get(MBATCH_INPUT, MBATCH_INPUT)
        if v.ndim != 1 or v.shape[0] != len(gears[0]) or not np.issubdtype(v.dtype, np.integer):
            raise CompileError(f"{where}: error: input '{MBATCH_INPUT}' must be {len(gears[0])} "
                               f"integer(s) (shape [{len(gears[0])}], int64), got shape "
                               f"{list(v.shape)} {v.dtype}")
        key = tuple(int(x) for x in v)
        if key not in gears:
            raise CompileError(f"{where}: error: input '{MBATCH_INPUT}' = {list(key)} is no gear "
                               f"of --{table['option']}; the gears are "
                               f"{'; '.join(','.join(map(str, g)) for g in gears)}")
        k = gears.index(key)
        for name, value in inputs.items():
            want = shapes[k].get(name)
            if name != MBATCH_INPUT and want is not None and list(np.shape(value)) != want:
                raise CompileError(f"{files.get(name, name)}: error: input '{name}' has shape "
                                   f"{list(np.shape(value))}, gear {k} ({MBATCH_INPUT} = "
                                   f"{list(key)}) takes {want}")
        return k
    given = {n: list(np.shape(v)) for n, v in inputs.items() if n in shapes[0]}
    if not given:
        return 0
    for k, s in enumerate(shapes):
        if all(s[n] == shape for n, shape in given.items()):
            return k
    # Name the first input whose shape is in no gear (or, when each is in some gear but not
    # together, the first one).
    name = next((n for n, shape in given.items() if all(s[n] != shape for s in shapes)),
                next(iter(given)))
    allowed = " | ".join(",".join(map(str, s[name])) for s in shapes)
    return _no_gear(files.get(name, name), name, given[name], allowed, table["option"])


def _no_gear(where: str, name: str, shape, allowed: str, option: str) -> int:
    raise CompileError(f"{where}: error: input '{name}' has shape {shape}, which matches no gear "
                       f"(--{option}); the gears allow {name}: {allowed}")


@dataclass
class GearModel:
    """A loaded multi-gear .om: the gear table and one OfflineModel per gear."""

    path: str
    header: om.Header
    table: dict
    models: list = field(default_factory=list)

    def select(self, inputs: dict, files: dict[str, str] | None = None) -> int:
        return select_gear(self.table, inputs, files)


def _io_table(manifests: list[dict], what: str) -> list[dict]:
    """The inputs or outputs of every gear as one list: -1 where the gears' shapes differ."""
    out = []
    for k, item in enumerate(manifests[0][what]):
        shapes = [m[what][k]["shape"] for m in manifests]
        shape = [d if all(s[i] == d for s in shapes) else -1 for i, d in enumerate(shapes[0])]
        out.append({**item, "shape": shape})
    return out


def _input_shapes(shapes: dict, manifest: dict) -> dict:
    """The gear's shapes of the gear inputs as the .om takes them (an AIPP input: the image)."""
    given = {i["name"]: list(i["shape"]) for i in manifest["inputs"]}
    return {n: given.get(n, s) for n, s in shapes.items()}


def build_gears(modules: list, spec, name: str) -> tuple[list, list, dict]:
    """(header fields, payload, stats) of the multi-gear .om of the gears' planned modules."""
    sink = om.WeightSink(dedupe=True)
    parts = [om.model_parts(m, name, sink) for m in modules]
    manifests = [p.manifest for p in parts]
    for k, m in enumerate(manifests):
        if [i["name"] for i in m["inputs"]] != [i["name"] for i in manifests[0]["inputs"]] or \
                [o["name"] for o in m["outputs"]] != [o["name"] for o in manifests[0]["outputs"]]:
            raise om.OmError(f"internal error: gear {k} has other inputs or outputs than gear 0")
    n_values = len(spec.gears[0])
    table = {
        "option": spec.option, "value": spec.value, "input_shape": spec.template,
        "gears": [list(g) for g in spec.gears],
        # each gear's shapes of the .om's inputs (with AIPP, an input is the raw image)
        "shapes": [_input_shapes(spec.shapes(k), manifests[k]) for k in range(len(spec.gears))],
        "inputs": [*_io_table(manifests, "inputs"),
                   {"name": MBATCH_INPUT, "shape": [n_values], "dtype": MBATCH_DTYPE}],
        "outputs": _io_table(manifests, "outputs"),
        "mbatch_input": {"name": MBATCH_INPUT, "shape": [n_values], "dtype": MBATCH_DTYPE},
        "launches": [p.launches for p in parts],
        "arenas": [p.arena for p in parts],
        "weight_bytes_all_gears": sink.requested,
    }
    table["compression"] = COMPRESSION
    sections = [(GEARS, 0, [json.dumps(table).encode()]), (om.WEIGHTS, 0, sink.chunks)]
    for k, p in enumerate(parts):
        sections += [(kind, k, [zlib.compress(b"".join(chunks), ZLIB_LEVEL)])
                     for kind, chunks in p.sections]
    fields, payload = om.assemble(sections, name, sum(table["launches"]), parts[0].soc,
                                  max(table["arenas"]), sink.length,
                                  version=om.GEARS_FORMAT_VERSION)
    return fields, payload, {"weight_bytes": sink.length, "weight_bytes_all_gears": sink.requested}


def write_gears(modules: list, spec, path: str, name: str | None = None) -> tuple[int, dict]:
    """Write the multi-gear .om atomically; returns (file size, stats)."""
    import os

    fields, payload, stats = build_gears(
        modules, spec, name or os.path.splitext(os.path.basename(path))[0])
    return om.write_chunks(path, fields, payload), stats


#: What the loader reads of the GEARS section.
_TABLE = {"option": str, "value": str, "gears": [list], "shapes": [dict], "inputs": list,
          "outputs": list, "launches": [int], "arenas": [int]}


def load_gears(path: str, data: bytes, header: om.Header) -> om.OfflineModel:
    """The first gear's OfflineModel, `.gears` holding the GearModel of every gear."""
    secs = om.read_section_table(data, header, path)
    if (GEARS, 0) not in secs:
        om._fail(path, "corrupted offline model: a multi-gear model without its GEARS section")
    table = om._json(secs[(GEARS, 0)], "GEARS", path)
    om._schema(table, _TABLE, "GEARS", path)
    n = len(table["gears"])
    if not (n == len(table["shapes"]) == len(table["launches"]) == len(table["arenas"])) or n < 1:
        om._fail(path, "corrupted offline model: GEARS lists different numbers of gears")
    compressed = table.get("compression") is not None  # none: 205da9d's uncompressed form
    if compressed and table.get("compression") != COMPRESSION:
        om._fail(path, f"corrupted offline model: GEARS: unknown compression "
                       f"{json.dumps(table.get('compression'))[:40]} (expected \"{COMPRESSION}\")")
    if (om.WEIGHTS, 0) not in secs:
        om._fail(path, "corrupted offline model: no WEIGHTS section")
    if sum(table["launches"]) != header.op_count or max(table["arenas"]) != header.arena:
        om._fail(path, "corrupted offline model: the header's op count or arena disagrees with "
                       "the gear table")
    model = GearModel(path, header, table)
    for k in range(n):
        gear_secs = {om.WEIGHTS: secs[(om.WEIGHTS, 0)]}
        for kind in GEAR_SECTIONS:
            if (kind, k) not in secs:
                om._fail(path, f"corrupted offline model: gear {k} has no "
                               f"{om.SECTION_NAMES[kind]} section")
            gear_secs[kind] = _inflate(path, secs[(kind, k)], f"gear {k} "
                                       f"{om.SECTION_NAMES[kind]}") if compressed else secs[(kind, k)]
        model.models.append(om.rebuild(path, header, gear_secs, table["launches"][k],
                                       table["arenas"][k]))
    for m in model.models:
        m.gears = model
    return model.models[0]


def _inflate(path: str, data: memoryview, what: str) -> memoryview:
    """A per-gear section's bytes, decompressed; at most CANN_MAX_TENSOR_BYTES of output (a
    hostile stream cannot make the loader allocate more)."""
    from compiler.ir.diagnostics import MAX_TENSOR_BYTES

    d = zlib.decompressobj()
    try:
        out = d.decompress(bytes(data), MAX_TENSOR_BYTES)
    except zlib.error as e:
        om._fail(path, f"corrupted offline model: {what} is not a zlib stream ({e})")
    if d.unconsumed_tail:
        om._fail(path, f"corrupted offline model: {what} inflates to more than {MAX_TENSOR_BYTES} "
                       "bytes (CANN_MAX_TENSOR_BYTES)")
    if not d.eof:
        om._fail(path, f"corrupted offline model: {what}: the zlib stream is truncated")
    return memoryview(out)
