"""cann-compile's ATC working modes besides compiling: --mode=1 (a model to JSON), --mode=3
(pre-check only: check_result.json) and --mode=6 (model information of an .om).

Everything here reads what the compiler already produced or checks: the offline model's
sections (compiler/backend/offline_model.py), the importer and tf-to-cann's legalization analysis.
"""

from __future__ import annotations

import json
import os

from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Operation

from compiler.ir.diagnostics import CompileError, node_name
from compiler.ir.typed import block_of


def _value_json(t: Attribute) -> dict:
    """shape / dtype / format of a value's type (the storage shape and the origin's)."""
    from dialects.cann import format_of

    if not isinstance(t, TensorType):
        return {"type": str(t)}
    out: dict = {"shape": list(t.get_shape()), "dtype": str(t.element_type)}
    f = format_of(t)
    if f is not None:
        out["format"] = str(f.fmt.value if hasattr(f.fmt, "value") else f.fmt)
        if f.origin_fmt is not None:
            out["origin_format"] = str(f.origin_fmt.value if hasattr(f.origin_fmt, "value")
                                       else f.origin_fmt)
        if f.origin:
            out["origin_shape"] = list(f.origin)
    else:
        out["format"] = "ND"
    return out


def _attr_text(a: Attribute) -> str:
    text = str(a)
    return text if len(text) <= 2000 else text[:2000] + "..."


def _op_json(op: Operation, index: int) -> dict:
    names = node_name(op)
    out: dict = {"index": index, "op": op.name, "tf_nodes": names.split("+") if names else []}
    kind = op.properties.get("kind")
    if isinstance(kind, StringAttr):
        out["kind"] = kind.data
    out["attributes"] = {k: _attr_text(v) for k, v in (*op.properties.items(), *op.attributes.items())
                         if k not in ("tiling", "buffers")}
    out["inputs"] = [_value_json(v.type) for v in op.operands]
    out["outputs"] = [_value_json(r.type) for r in op.results]
    return out


def offline_model_json(path: str) -> dict:
    """ATC's --mode=1 on an .om: graph (every kernel launch with its TF node names, attributes,
    shapes, formats and tiling), inputs/outputs, memory plan and weights; a multi-gear .om
    adds `gears`: its gear table and each gear's model as JSON."""
    from compiler.backend.offline_model import load_offline_model

    om = load_offline_model(path)
    out = _model_json(om, path)
    if om.gears is not None:  # a multi-gear .om: the gear table, then every gear's model
        out["gears"] = {**om.gears.table,
                        "models": [_model_json(m, path) for m in om.gears.models]}
        out["inputs"], out["outputs"] = om.gears.table["inputs"], om.gears.table["outputs"]
    return out


def _model_json(om, path: str) -> dict:
    from compiler.backend import memory_plan as mp

    tiling = {(t["function"], t["step"]): t for t in om.tiling}
    functions = []
    for f in mp.planned_functions(om.module):
        fname = f.sym_name.data
        ops: list[dict] = []
        step = 0
        for op in block_of(f.body).ops:
            if isinstance(op, func.ReturnOp):
                continue
            entry = _op_json(op, len(ops))
            entry["launch"] = mp.is_kernel(op)
            if mp.is_kernel(op):
                t = tiling.get((fname, step), {})
                for key in ("block_dim", "tiling", "buffers"):
                    if key in t:
                        entry[key] = t[key]
                step += 1
            ops.append(entry)
        functions.append({"name": fname, "ops": ops})
    h = om.header
    return {
        "model": {"name": h.name, "file": os.path.basename(path), "format_version": h.version,
                  "soc_version": h.platform, "kernels": h.op_count, "arena_bytes": h.arena,
                  "weight_bytes": h.weight_bytes,
                  "producer": om.manifest.get("producer"),
                  "module_attributes": {k: _attr_text(v) for k, v in om.module.attributes.items()}},
        "inputs": om.manifest.get("inputs", []),
        "outputs": om.manifest.get("outputs", []),
        "graph": {"functions": functions},
        "memory_plan": om.plan,
        "weights": om.weight_index,
    }


def original_model_json(path: str) -> dict:
    """ATC's --mode=1 on an original TensorFlow model (--framework=3): the GraphDef as JSON
    (nodes, ops, inputs, attributes), as protobuf's JSON mapping writes it."""
    from google.protobuf import json_format

    from compiler.frontend.tf_loader import read_graphdef_file

    graph_def = read_graphdef_file(path)
    return json_format.MessageToDict(graph_def, preserving_proto_field_name=True)


def model_info_text(path: str) -> str:
    """ATC's --mode=6: what an .om needs and holds: inputs, outputs, sizes, chip, arena, weights."""
    from compiler.backend.offline_model import load_offline_model

    om = load_offline_model(path)
    h = om.header
    lines = [f"model: {h.name}", f"file: {path} ({os.path.getsize(path)} bytes)",
             f"format version: {h.version}", f"soc_version: {h.platform}",
             f"producer: {om.manifest.get('producer')}",
             f"kernels: {h.op_count}",
             f"arena: {h.arena} bytes (device memory besides inputs and outputs)",
             f"weights: {len(om.weight_index)} tensors, {h.weight_bytes} bytes"]
    table = om.gears.table if om.gears is not None else None
    if table is not None:  # a multi-gear .om (compiler/backend/gear_model.py)
        lines[5] = f"kernels: {h.op_count} ({' + '.join(map(str, table['launches']))} per gear)"
        lines[6] = f"arena: {h.arena} bytes (the largest gear's)"
        lines[7] = (f"weights: {h.weight_bytes} bytes, stored once for every gear "
                    f"({table.get('weight_bytes_all_gears', '?')} bytes over the gears)")
        lines.append(f"gears: {len(table['gears'])} (--{table['option']}=\"{table['value']}\"; "
                     f"input ascend_mbatch_shape_data selects one)")
        for k, g in enumerate(table["gears"]):
            shapes = ";".join(f"{n}:{','.join(map(str, d))}" for n, d in table["shapes"][k].items())
            lines.append(f"  gear {k}: [{','.join(map(str, g))}] {shapes} "
                         f"({table['launches'][k]} kernels, arena {table['arenas'][k]} bytes)")
    ranges = om.module.attributes.get("cann.shape_ranges")
    if isinstance(ranges, DictionaryAttr):  # range-compiled (tools/driver/shape_ranges.py)
        texts = [getattr(v, "data", str(v)) for v in ranges.data.values()]
        unbounded = any(d.strip() == "-1" for t in texts for d in t.split(","))
        lines[6] = (f"arena: {h.arena} bytes (at the smallest shape; with a -1 each dispatch "
                    "plans the arena its shape needs)" if unbounded else
                    f"arena: {h.arena} bytes (planned at the ranges' maximum)")
        lines.append(f"shape ranges (kernels tiled at dispatch; inputs below at the "
                     f"{'smallest' if unbounded else 'maximum'}): "
                     + ";".join(f"{n}:{t}" for n, t in zip(ranges.data, texts)))
    for what in ("inputs", "outputs"):
        items = table[what] if table is not None else om.manifest.get(what, [])
        lines.append(f"{what}: {len(items)}")
        for i, t in enumerate(items):
            shape = "x".join(str(d) for d in t.get("shape", [])) or "scalar"
            lines.append(f"  [{i}] {t.get('name')}: {shape} {t.get('dtype')}")
    return "\n".join(lines) + "\n"


def pre_check(path: str, shapes: dict | None = None, outputs: list[str] | None = None,
              importer=None) -> dict:
    """ATC's --mode=3: import the model (shape inference included) and legalize a copy; every
    op, dtype or shape the compiler does not take is listed with its node, nothing is compiled.
    Kernel-level checks (cann-to-kernel) are not part of it: they need the layouts of the
    whole compile.  `importer()`: the tf-level module another way (a ranged --input_shape's
    symbolic import, tools/driver/shape_ranges.py).  Returns the check_result.json content."""
    from compiler.conversions.tf_to_cann.legalization import tf_op_type
    from compiler.conversions.tf_to_cann.patterns import analyze_legalization
    from compiler.frontend.importers.graphdef import import_graphdef_file

    unsupported: list[dict] = []
    total = 0
    try:
        module = importer() if importer is not None else \
            import_graphdef_file(path, input_shapes=shapes, outputs=outputs)
    except CompileError as e:  # the importer lists every bad node (dtype, shape, structure)
        module = None
        unsupported = [{"node": _quoted_node(m), "op_type": None, "stage": "import", "reason": m}
                       for m in e.messages]
    if module is not None:
        counts, _, failures = analyze_legalization(module)
        total = sum(counts.values())
        for op, why in failures:
            unsupported.append({"node": node_name(op), "op_type": tf_op_type(op),
                                "stage": "tf-to-cann", "reason": why})
    return {"model": path, "result": "success" if not unsupported else "failed",
            "ops_checked": total, "unsupported_count": len(unsupported),
            "unsupported": unsupported}


def _quoted_node(message: str) -> str | None:
    """The node a diagnostic names (`node 'x'`), if any."""
    import re

    m = re.search(r"node '([^']+)'", message)
    return m.group(1) if m else None


def write_json(path: str, data: dict) -> None:
    from compiler.ir.ir_io import write_atomically

    write_atomically(path, lambda: json.dumps(data, indent=1) + "\n")
