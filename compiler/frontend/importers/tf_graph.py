"""TensorFlow's side of importing a GraphDef: the stand-in graph its shape inference runs on,
and its import errors as one line naming the node (used by graphdef.py and functionalize.py)."""

from __future__ import annotations

import re
from typing import Any

from compiler.frontend.importers.tensor_refs import split_input

TF_NODE = re.compile(r"\{\{node ([^}]+)\}\}|node '?([^\s':]+)'?", re.IGNORECASE)


def tf_import_error(e: Exception, filename: str, nodes: dict[str, Any]) -> str:
    message = getattr(e, "message", None) or str(e)
    first = next((line.strip() for line in message.splitlines() if line.strip()), type(e).__name__)
    for m in TF_NODE.finditer(message):
        name = m.group(1) or m.group(2)
        if name in nodes:
            first = re.sub(rf"^Node '?{re.escape(name)}'?: ", "", first)
            return f"{filename}: error: node '{name}' ({nodes[name].op}): {first}"
    return f"{filename}: error: TensorFlow rejected the graph: {first}"


def stub_unregistered(tf: Any, graph_def: Any, detached: Any = ()) -> Any:
    """For shape inference only: large Consts become Placeholders of their shape (no 100 MB
    copy through TensorFlow), and nodes of op types TensorFlow does not know become an IdentityN
    of Placeholders (unknown shape; dtype from T/dtype/out_type, else float32), as many outputs
    as the graph reads from them."""
    from tensorflow.python.framework import op_def_registry

    unknown = {n.name for n in graph_def.node if op_def_registry.get(n.op) is None}
    big = {n.name for n in graph_def.node if n.op == "Const" and
           (n.name in detached or n.attr["value"].tensor.ByteSize() > 4096)}
    if not unknown and not big:
        return graph_def
    used: dict[str, int] = {}
    for n in graph_def.node:
        for ref in n.input:
            src, i, control = split_input(ref)
            if src in unknown and not control:
                used[src] = max(used.get(src, 0), i + 1)
    copy = tf.compat.v1.GraphDef()
    copy.versions.CopyFrom(graph_def.versions)
    copy.library.CopyFrom(graph_def.library)
    for n in graph_def.node:
        if n.name in big:  # weights: shape inference needs their shape, not their bytes
            ph = copy.node.add(name=n.name, op="Placeholder")
            ph.attr["dtype"].type = n.attr["value"].tensor.dtype
            ph.attr["shape"].shape.CopyFrom(n.attr["value"].tensor.tensor_shape)
            continue
        if n.name not in unknown:
            copy.node.add().CopyFrom(n)
            continue
        dtype = tf.float32.as_datatype_enum
        for key in ("T", "dtype", "out_type"):
            if key in n.attr and n.attr[key].WhichOneof("value") == "type":
                dtype = n.attr[key].type
                break
        k = max(used.get(n.name, 1), 1)
        stub = copy.node.add(name=n.name, op="IdentityN")
        for i in range(k):
            ph = copy.node.add(name=f"{n.name}/__stub_{i}", op="Placeholder")
            ph.attr["dtype"].type = dtype
            stub.input.append(ph.name)
            stub.attr["T"].list.type.append(dtype)
    return copy
