"""Checks of a GraphDef's structure and constants before TensorFlow sees it.

TensorFlow's C++ graph import trusts parts of a NodeDef: an output index past int32, or a Const
whose tensor dtype disagrees with its `dtype` attribute, abort or segfault the process instead of
raising.  Everything TensorFlow would need to trust is checked here first, against the op
registry (OpDefs), and every problem is one line `<file>: error: node '<name>' (<Op>): <why>`:

* an input `node:k` whose k is not an output of `node` (k from the OpDef and the node's attrs);
* a node with a different number of data inputs than its OpDef asks for;
* a Const: `value` must be a tensor of the node's `dtype`, with a valid shape whose size is
  within `MAX_TENSOR_BYTES`, and `tensor_content` (if any) exactly that size;
* a device string TensorFlow cannot parse;
* a cycle that is not a TF1 loop's back edge (the functionalizer's own imports would fail on it
  with a message naming no node).

The counts are also what the TF1 functionalizer indexes with (`input_count`, `output_types`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compiler.frontend.importers.tensor_refs import split_input
from compiler.ir.diagnostics import MAX_TENSOR_BYTES, CompileError

#: Output indices TensorFlow's C++ stores as int (32 bits).
_MAX_INDEX = 2**31 - 1

_FIXED_SIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "int16": 2,
               "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8,
               "bool": 1, "complex64": 8, "complex128": 16, "qint8": 1, "quint8": 1,
               "qint16": 2, "quint16": 2, "qint32": 4, "half": 2, "float": 4, "double": 8}


def _attr(node: Any, key: str, kind: str) -> Any:
    """node.attr[key] if it holds `kind` (never inserting the key), else None."""
    if key not in node.attr or node.attr[key].WhichOneof("value") != kind:
        return None
    return node.attr[key]


def _arg_types(node: Any, args: Sequence[Any]) -> list[int] | None:
    """The dtypes of an OpDef's input or output args for this node (None: attrs missing)."""
    types: list[int] = []
    for arg in args:
        if arg.type_attr:
            t = _attr(node, arg.type_attr, "type")
            if t is None:
                return None
            dtype = t.type
        else:
            dtype = arg.type
        if arg.number_attr:
            n = _attr(node, arg.number_attr, "i")
            if n is None or not 0 <= n.i <= 1 << 20:
                return None
            types += [dtype] * n.i
        elif arg.type_list_attr:
            lst = _attr(node, arg.type_list_attr, "list")
            if lst is None:
                return None
            types += list(lst.list.type)
        else:
            types.append(dtype)
    return types


def output_types(registry: Any, node: Any) -> list[int] | None:
    """The dtypes of a node's outputs by its OpDef, or None (unknown op type or attrs missing)."""
    op_def = registry.get(node.op)
    return None if op_def is None else _arg_types(node, op_def.output_arg)


def _arg_count(node: Any, args: Sequence[Any]) -> int | None:
    """How many tensors an OpDef's args are for this node (None: a count attr is missing)."""
    count = 0
    for arg in args:
        if arg.number_attr:
            n = _attr(node, arg.number_attr, "i")
            if n is None or not 0 <= n.i <= 1 << 20:
                return None
            count += n.i
        elif arg.type_list_attr:
            lst = _attr(node, arg.type_list_attr, "list")
            if lst is None:
                return None
            count += len(lst.list.type)
        else:
            count += 1
    return count


def input_count(registry: Any, node: Any) -> int | None:
    """How many data inputs the node's OpDef asks for, or None (unknown op type or attrs)."""
    op_def = registry.get(node.op)
    return None if op_def is None else _arg_count(node, op_def.input_arg)


def output_count(registry: Any, node: Any) -> int | None:
    """How many outputs the node has by its OpDef, or None (unknown op type or attrs)."""
    op_def = registry.get(node.op)
    return None if op_def is None else _arg_count(node, op_def.output_arg)


def _const_problem(tf: Any, node: Any, content: bytes | None = None) -> str | None:
    value = _attr(node, "value", "tensor")
    if value is None:
        return "a Const needs a tensor attribute 'value'"
    t = value.tensor
    dtype = _attr(node, "dtype", "type")
    if dtype is not None and dtype.type != t.dtype:
        return (f"attribute 'dtype' is {_dtype_name(tf, dtype.type)} but its value is a "
                f"{_dtype_name(tf, t.dtype)} tensor")
    return tensor_problem(tf, t, content)


def tensor_problem(tf: Any, t: Any, content: bytes | None = None) -> str | None:
    """What is wrong with a TensorProto TensorFlow would trust (shape, size, content length).
    `content`: its tensor_content when it was detached from the proto."""
    if t.tensor_shape.unknown_rank:
        return "a constant tensor needs a known shape"
    count = 1
    for d in t.tensor_shape.dim:
        if d.size < 0:
            return f"a constant tensor has a negative dimension ({d.size})"
        count *= d.size
    name = _dtype_name(tf, t.dtype)
    size = _FIXED_SIZE.get(name.removesuffix("_ref"))
    if size is not None and count * size > MAX_TENSOR_BYTES:
        return (f"a constant tensor of {count} {name} elements ({count * size} bytes) is larger "
                f"than the limit of {MAX_TENSOR_BYTES} bytes")
    content = t.tensor_content if content is None else content
    if content:
        if size is None:
            return f"a {name} tensor cannot have tensor_content"
        if len(content) != count * size:
            return (f"tensor_content has {len(content)} bytes, the shape "
                    f"{[d.size for d in t.tensor_shape.dim]} of {name} needs {count * size}")
    return None


def _dtype_name(tf: Any, enum: int) -> str:
    try:
        return tf.dtypes.as_dtype(enum).name
    except TypeError:
        return f"dtype{enum}"


def _device_problem(tf: Any, device: str) -> str | None:
    try:
        tf.DeviceSpec.from_string(device)
    except Exception as e:  # noqa: BLE001 - ValueError and friends
        return f"bad device '{device}': {(str(e).splitlines() or [type(e).__name__])[0]}"
    return None


_BACK_EDGE = ({"NextIteration", "RefNextIteration"}, {"Merge", "RefMerge"})


def cycle_errors(graph_def: Any, filename: str) -> list[str]:
    """A cycle other than a TF1 loop's NextIteration -> Merge back edge, named at a node on it
    (TensorFlow's import says only `4 nodes in a cycle`)."""
    nodes = {n.name: n for n in graph_def.node}
    state: dict[str, int] = {}  # 1 = on the DFS stack, 2 = done
    errors: list[str] = []
    for root in graph_def.node:
        if root.name in state:
            continue
        state[root.name] = 1
        stack = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == len(node.input):
                state[node.name] = 2
                continue
            stack.append((node, i + 1))
            src = nodes.get(split_input(node.input[i])[0])
            if src is None or (src.op in _BACK_EDGE[0] and node.op in _BACK_EDGE[1]):
                continue
            if state.get(src.name) == 1:
                msg = (f"{filename}: error: node '{src.name}' ({src.op}): the graph has a cycle "
                       "through this node")
                if msg not in errors:
                    errors.append(msg)
            elif src.name not in state:
                state[src.name] = 1
                stack.append((src, 0))
    return errors


def check_graph(tf: Any, graph_def: Any, filename: str,
                detached: dict[str, bytes] | None = None) -> None:
    """Raise one CompileError listing every problem TensorFlow's import would trust.
    `detached`: Const tensor contents taken out of `graph_def` (`read_graphdef_file_lean`)."""
    from tensorflow.python.framework import op_def_registry as registry

    errors: list[str] = []
    nodes = {n.name: n for n in graph_def.node}
    outputs: dict[str, int | None] = {}  # node name -> output_count, once per node read
    for node in graph_def.node:
        where = f"{filename}: error: node '{node.name}' ({node.op})"
        for ref in node.input:
            src, index, control = split_input(ref)
            if control or src not in nodes:
                continue  # dangling names: `_check_structure`
            if index > _MAX_INDEX:
                errors.append(f"{where}: input '{ref}': output index {index} is out of range")
                continue
            if src in outputs:
                outs = outputs[src]
            else:
                outs = outputs[src] = output_count(registry, nodes[src])
            if outs is not None and index >= outs:
                errors.append(f"{where}: input '{ref}': '{src}' ({nodes[src].op}) has only "
                              f"{outs} output(s)")
        data = [r for r in node.input if not r.startswith("^")]
        want = input_count(registry, node)
        if want is not None and len(data) != want:
            errors.append(f"{where}: has {len(data)} data input(s); {node.op} takes {want}")
        first_control = next((i for i, r in enumerate(node.input) if r.startswith("^")),
                             len(node.input))
        if any(not r.startswith("^") for r in node.input[first_control:]):
            errors.append(f"{where}: a control input ('^...') comes before a data input")
        problem = None
        if node.op == "Const":
            problem = _const_problem(tf, node, (detached or {}).get(node.name))
        if problem is None and node.device:
            problem = _device_problem(tf, node.device)
        if problem is not None:
            errors.append(f"{where}: {problem}")
    errors += cycle_errors(graph_def, filename)
    for f in graph_def.library.function:
        for node in f.node_def:
            problem = _const_problem(tf, node) if node.op == "Const" else None
            if problem is not None:
                errors.append(f"{filename}: error: node '{node.name}' ({node.op}) in function "
                              f"'{f.signature.name}': {problem}")
    if errors:
        raise CompileError(list(dict.fromkeys(errors)))
