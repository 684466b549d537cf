"""TensorFlow, imported lazily and quietly, and GraphDef files read (binary or text).

The single place the tools load TensorFlow and parse GraphDef protobufs: the importer, the
runner (`--compare-with`) and the tf-level interpreter all use it, so they read files and word
errors the same way.  `cann-opt` on a .mlir file never reaches this module.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

from compiler.ir.diagnostics import CompileError, read_bytes

NOT_A_GRAPHDEF = "not a GraphDef (binary or text protobuf)"


def tensorflow() -> Any:
    """Import TensorFlow quietly (its C++ start-up chatter would pollute one-line diagnostics),
    with the cyclic collector paused, then every object moved to the oldest generation without
    a scan (gc.freeze, then gc.unfreeze).  Its ~3*10^5 objects live as long as the process:
    with the collector running, the collections during its import cost ~0.8 s CPU; imported in
    a paused compile (`tools/cann_compile.py`), they would stay in the youngest generation, which
    the first collection after the compile scans (~0.27 s).  They are only moved: the next full
    collection scans them, as any."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _import_quietly()
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def _import_quietly() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    saved = None
    try:
        sys.stderr.flush()
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    except OSError:  # no real fd 2 (embedded interpreters): import with the noise
        saved = None
    try:
        import tensorflow as tf
    except Exception as e:  # noqa: BLE001 - any import failure becomes one line
        raise CompileError(f"cannot import TensorFlow (needed to read a GraphDef): {e}") from None
    finally:
        if saved is not None:
            os.dup2(saved, 2)
            os.close(saved)
    return tf


# --- reading -------------------------------------------------------------------------------


def read_graphdef_file(path: str) -> Any:
    """Read and parse a binary or text GraphDef file."""
    return parse_graphdef(read_bytes(path, "a GraphDef file"), path)


#: Const tensors at least this large are detached by `read_graphdef_file_lean`.
DETACH_BYTES = 1 << 16


def _varint(f: Any) -> int | None:
    shift = result = 0
    while True:
        b = f.read(1)
        if not b:
            return None if shift == 0 else -1
        result |= (b[0] & 0x7F) << shift
        if not b[0] & 0x80:
            return result
        shift += 7
        if shift > 63:
            return -1


def read_graphdef_file_lean(path: str) -> tuple[Any, dict[str, bytes]]:
    """A binary GraphDef read node by node (no whole-file copy next to the parsed message) with
    the contents of its large Const tensors detached: `(graph_def, {node name: tensor_content})`,
    the nodes' `tensor_content` left empty.  The importer wraps those bytes in the IR as they are,
    so the weights exist once in memory.  Anything else (text, not a GraphDef): as
    `read_graphdef_file`, with no weights detached."""
    if path.endswith((".pbtxt", ".txt")):
        return read_graphdef_file(path), {}
    tf = tensorflow()
    try:
        f = open(path, "rb")
    except OSError:
        return read_graphdef_file(path), {}
    from tensorflow.core.framework import node_def_pb2

    graph_def = tf.compat.v1.GraphDef()
    weights: dict[str, bytes] = {}
    rest = bytearray()
    ok = True
    with f:
        while True:
            start = f.tell()
            tag = _varint(f)
            if tag is None:
                break
            length = _varint(f) if tag >= 0 and tag & 7 == 2 else -1
            if tag < 0 or length is None or length < 0:
                ok = False
                break
            payload = f.read(length)
            if len(payload) != length:
                ok = False
                break
            if tag >> 3 != 1:  # versions, library, ...: parsed at the end
                end = f.tell()
                f.seek(start)
                rest += f.read(end - start)
                continue
            node = node_def_pb2.NodeDef()
            try:
                node.ParseFromString(payload)
            except Exception:  # noqa: BLE001
                ok = False
                break
            del payload
            if node.op == "Const" and node.name not in weights and "value" in node.attr:
                t = node.attr["value"].tensor
                if len(t.tensor_content) >= DETACH_BYTES:
                    weights[node.name] = t.tensor_content
                    t.ClearField("tensor_content")
            graph_def.node.append(node)
    if ok:
        try:
            graph_def.MergeFromString(bytes(rest))
            from google.protobuf.unknown_fields import UnknownFieldSet

            if len(UnknownFieldSet(graph_def)) or any(len(UnknownFieldSet(n)) for n in graph_def.node):
                ok = False
        except Exception:  # noqa: BLE001
            ok = False
    if not ok or not graph_def.node:
        return read_graphdef_file(path), {}
    return graph_def, weights


def parse_graphdef(data: bytes, filename: str) -> Any:
    tf = tensorflow()
    binary = (_parse_binary, _parse_text)
    order = binary[::-1] if filename.endswith((".pbtxt", ".txt")) else binary
    for parse in order:
        graph_def = parse(tf, data)
        if graph_def is not None:
            if not graph_def.node:
                raise CompileError(f"{filename}: error: the GraphDef has no nodes")
            return graph_def
    raise CompileError(f"{filename}: error: {NOT_A_GRAPHDEF}")


def _parse_binary(tf: Any, data: bytes) -> Any:
    graph_def = tf.compat.v1.GraphDef()
    try:
        graph_def.ParseFromString(data)
    except Exception:  # noqa: BLE001 - DecodeError, or RuntimeWarning-turned-error
        return None
    if data and not graph_def.node:
        return None  # parsed as *something*, but nothing of a graph: let text have a try
    try:
        from google.protobuf.unknown_fields import UnknownFieldSet

        if len(UnknownFieldSet(graph_def)) or any(len(UnknownFieldSet(n)) for n in graph_def.node):
            return None  # another message type that happens to be valid binary protobuf
    except Exception:  # noqa: BLE001 - older protobuf: no check
        pass
    return graph_def


def _parse_text(tf: Any, data: bytes) -> Any:
    from google.protobuf import text_format

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    graph_def = tf.compat.v1.GraphDef()
    try:
        text_format.Parse(text, graph_def)
    except Exception:  # noqa: BLE001 - text_format.ParseError and friends
        return None
    return graph_def


# --- SavedModel and Keras: frozen to a GraphDef (variables become constants) ------------------


def _freeze(concrete: Any, where: str) -> Any:
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    try:
        return convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    except Exception as e:  # noqa: BLE001
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise CompileError(f"{where}: error: cannot freeze the variables: {first}") from None


def load_saved_model_graphdef(path: str, signature: str | None = None) -> Any:
    """A SavedModel directory's signature (default `serving_default`), frozen.  Loading runs no
    Python code from the directory: `tf.saved_model.load` rebuilds graphs from protobufs (a
    Keras Lambda layer is its traced ops); Keras's own metadata is not read."""
    tf = tensorflow()
    signature = signature or "serving_default"
    if not os.path.exists(os.path.join(path, "saved_model.pb")) and \
            not os.path.exists(os.path.join(path, "saved_model.pbtxt")):
        raise CompileError(f"{path}: error: a directory without saved_model.pb, not a SavedModel")
    try:
        loaded = tf.saved_model.load(path)
    except Exception as e:  # noqa: BLE001 - custom objects, corrupt files, ...
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise CompileError(f"{path}: error: cannot load the SavedModel: {first}") from None
    signatures = getattr(loaded, "signatures", {}) or {}
    if signature not in signatures:
        have = ", ".join(sorted(signatures)) or "none"
        raise CompileError(f"{path}: error: the SavedModel has no signature '{signature}' "
                           f"(it has: {have}); choose one with --signature")
    return _freeze(signatures[signature], path)


def load_keras_graphdef(path: str) -> Any:
    """A `.keras` model file, frozen with a batch-1 static input signature.  Untrusted files are
    safe to read: Keras's safe mode refuses a Lambda layer's code (nothing else in a .keras file
    is executable: JSON config and HDF5 weights, no pickle)."""
    tf = tensorflow()
    if not os.path.exists(path):
        raise CompileError(f"{path}: error: no such file")
    try:  # safe_mode: never deserialize Python code (a Lambda layer's function) from the file
        model = tf.keras.models.load_model(path, compile=False, safe_mode=True)
    except Exception as e:  # noqa: BLE001 - unknown custom objects, bad zip, ...
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise CompileError(f"{path}: error: cannot load the Keras model: {first}") from None
    specs = [tf.TensorSpec((1, *inp.shape[1:]), inp.dtype, name=inp.name.split(":")[0])
             for inp in model.inputs]
    fn = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0], training=False))
    return _freeze(fn.get_concrete_function(*specs), path)
