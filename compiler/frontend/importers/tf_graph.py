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


def import_graph(tf: Any, graph_def: Any) -> Any:
    """A tf.Graph of `graph_def` for shape inference: `tf.graph_util.import_graph_def(graph_def,
    name="")` (its argument checks, the in-place default attrs it writes on `graph_def`, its C++
    import and errors, the library's functions) with one Python `Operation` per node, without
    the per-op bookkeeping `_ProcessNewOps` adds (device functions, colocation attributes read
    back, control-flow contexts), which no shape or dtype read uses and which costs 3/4 of the
    import."""
    from tensorflow.python.client import pywrap_tf_session as c_api
    from tensorflow.python.framework import c_api_util, errors, function, importer, ops

    graph_def = importer._ProcessGraphDefParam(graph_def)
    graph = tf.Graph()
    scoped = c_api_util.ScopedTFImportGraphDefOptions()
    importer._PopulateTFImportGraphDefOptions(scoped.options, "", {}, [], True, False)
    with graph._mutation_lock():
        buffer = c_api.TF_NewBufferFromString(graph_def.SerializeToString())
        try:
            with graph._c_graph.get() as c_graph:
                results = c_api.TF_GraphImportGraphDefWithResults(c_graph, buffer, scoped.options)
            c_api_util.ScopedTFImportGraphDefResults(results)
        except errors.InvalidArgumentError as e:
            raise ValueError(str(e)) from None  # as import_graph_def
        finally:
            c_api.TF_DeleteBuffer(buffer)
        for c_op in graph.new_operations():
            ops.Operation._from_c_op(c_op, graph)
    if graph_def.library and graph_def.library.function:
        with graph.as_default():  # (not eagerly: into the graph's own library)
            for f in function.from_library(graph_def.library):
                f.add_to_graph(graph)
    return graph
