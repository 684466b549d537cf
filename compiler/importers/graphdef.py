"""TensorFlow GraphDef (binary `.pb` or text `.pbtxt`) -> `func.func @main` in the tf dialect.

One op per node, in a topological order that keeps the GraphDef's order where it can:

* each Placeholder becomes a function argument plus a `tf.Placeholder` op forwarding it;
* Const -> `tf.Const` holding the weights as a dense elements attribute (O(1): the bytes);
* Conv2D, BiasAdd, Relu, Identity -> the typed ops of `dialects.tf`;
* NoOp nodes and control edges (`^name`) are dropped: they carry no values;
* the function returns every output of every sink node (a node none of whose outputs is read by
  another node; Const and Placeholder sinks are dead and not returned), in graph order.

Every op carries `loc("<node name>")`.  The function has
`tf.entry_function = {inputs = "x,y", outputs = "Relu,split:1"}`: the TF tensor names of its
arguments and results, comma-separated.

Static shapes and dtypes come from TensorFlow's own shape inference (the GraphDef is imported
into a `tf.Graph`).  TensorFlow is imported lazily, inside these functions, never at module
import time.  Every problem found is collected and raised as one `CompileError`, one line each:
`<file>: error: node '<name>' (<OpType>): <why>`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from compiler.diagnostics import CompileError
from compiler.tf_loader import parse_graphdef, read_graphdef_file, tensorflow
from dialects.common import dense_from_numpy, element_type_of, int_array, numpy_dtype


# --- reading -------------------------------------------------------------------------------


def import_graphdef_file(path: str) -> ModuleOp:
    """Read a binary or text GraphDef file and import it (see `import_graphdef`)."""
    return import_graphdef(read_graphdef_file(path), path)


def import_graphdef_bytes(data: bytes, filename: str) -> ModuleOp:
    """Parse `data` as a binary or text GraphDef (text first if `filename` ends in .pbtxt)."""
    return import_graphdef(parse_graphdef(data, filename), filename)


# --- the import ----------------------------------------------------------------------------


def _split_input(ref: str) -> tuple[str, int, bool]:
    """`"^a"` -> ("a", -1, True); `"a:2"` -> ("a", 2, False); `"a"` -> ("a", 0, False)."""
    if ref.startswith("^"):
        return ref[1:], -1, True
    name, colon, index = ref.rpartition(":")
    if colon and index.isdigit():
        return name, int(index), False
    return ref, 0, False


def tensor_name(node: str, index: int) -> str:
    return node if index == 0 else f"{node}:{index}"


def _location(name: str) -> NameLoc:
    return NameLoc(StringAttr(name), NoneAttr())


def _tensor_type(tf_tensor: Any) -> TensorType | str:
    """The xDSL type of a tf.Tensor from shape inference, or why there is none."""
    shape = tf_tensor.shape
    if shape.rank is None:
        return "output has unknown rank (give the graph's Placeholders a shape)"
    try:
        elt = element_type_of(tf_tensor.dtype.as_numpy_dtype)
        numpy_dtype(elt)
    except (ValueError, TypeError):
        return f"dtype {tf_tensor.dtype.name} is not supported"
    dims = [DYNAMIC_INDEX if d is None else int(d) for d in shape.as_list()]
    return TensorType(elt, dims)


def _attr(tf_op: Any, name: str, default: Any = None) -> Any:
    try:
        return tf_op.get_attr(name)
    except ValueError:
        return default


def _str(value: Any) -> StringAttr:
    return StringAttr(value.decode() if isinstance(value, bytes) else str(value))


def _build_placeholder(node, tf_op, operands, result_types):
    from dialects.tf import PlaceholderOp

    props: dict[str, Attribute] = {}
    shape = node.attr["shape"].shape if "shape" in node.attr else None
    if shape is not None and not shape.unknown_rank:
        props["shape"] = StringAttr(",".join("?" if d.size < 0 else str(d.size) for d in shape.dim))
    return PlaceholderOp(operands=operands, result_types=result_types, properties=props)


def _build_const(node, tf_op, operands, result_types):
    from dialects.tf import ConstOp

    tf = sys.modules["tensorflow"]
    array = tf.make_ndarray(node.attr["value"].tensor)
    return ConstOp(dense_from_numpy(np.ascontiguousarray(array)))


def _build_conv2d(node, tf_op, operands, result_types):
    from dialects.tf import Conv2DOp

    props: dict[str, Attribute] = {
        "strides": int_array(_attr(tf_op, "strides", [1, 1, 1, 1])),
        "padding": _str(_attr(tf_op, "padding", b"VALID")),
        "data_format": _str(_attr(tf_op, "data_format", b"NHWC")),
        "dilations": int_array(_attr(tf_op, "dilations", [1, 1, 1, 1])),
    }
    explicit = list(_attr(tf_op, "explicit_paddings", []) or [])
    if explicit:
        props["explicit_paddings"] = int_array(explicit)
    return Conv2DOp(operands=operands, result_types=result_types, properties=props)


def _build_bias_add(node, tf_op, operands, result_types):
    from dialects.tf import BiasAddOp

    props = {"data_format": _str(_attr(tf_op, "data_format", b"NHWC"))}
    return BiasAddOp(operands=operands, result_types=result_types, properties=props)


def _build_simple(op_class_name: str):
    def build(node, tf_op, operands, result_types):
        import dialects.tf as tfd

        return getattr(tfd, op_class_name)(operands=operands, result_types=result_types)

    return build


Builder = Callable[[Any, Any, Sequence[SSAValue], Sequence[Attribute]], Operation]

#: TF op type -> builder(node_def, tf.Operation, operands, result types).
BUILDERS: dict[str, Builder] = {
    "Placeholder": _build_placeholder,
    "Const": _build_const,
    "Conv2D": _build_conv2d,
    "BiasAdd": _build_bias_add,
    "Relu": _build_simple("ReluOp"),
    "Identity": _build_simple("IdentityOp"),
}

#: Nodes without data outputs that only order side effects through control edges (frozen
#: tf.functions end in `NoOp` + `Identity(..., ^NoOp)`).  Control edges carry no values in a
#: pure dataflow function, so these nodes produce no op.
SKIPPED = ("NoOp",)

#: Sinks of these op types are dead values, not results.
NOT_RESULTS = ("Const", "Placeholder", "NoOp")


def _check_structure(graph_def: Any, filename: str) -> tuple[list[str], dict[str, Any]]:
    """Duplicate names, dangling inputs, unsupported op types and dtypes, every one of them."""
    errors: list[str] = []
    nodes: dict[str, Any] = {}
    for node in graph_def.node:
        nodes.setdefault(node.name, node)
    tf = sys.modules["tensorflow"]
    for node in graph_def.node:
        where = f"{filename}: error: node '{node.name}' ({node.op})"
        if nodes[node.name] is not node:
            errors.append(f"{where}: duplicate node name (first defined as a {nodes[node.name].op})")
        if node.op not in BUILDERS and node.op not in SKIPPED:
            errors.append(f"{where}: unsupported op type '{node.op}' "
                          f"(supported: {', '.join(sorted(BUILDERS))})")
        for ref in node.input:
            src, _, _ = _split_input(ref)
            if src not in nodes:
                errors.append(f"{where}: input '{ref}' names no node of the graph")
        for key in ("T", "dtype"):
            if key in node.attr and node.attr[key].WhichOneof("value") == "type":
                dt_name = f"enum {node.attr[key].type}"
                try:
                    dt = tf.dtypes.as_dtype(node.attr[key].type)
                    dt_name = dt.name
                    numpy_dtype(element_type_of(dt.as_numpy_dtype))
                except (ValueError, TypeError):
                    errors.append(f"{where}: dtype {dt_name} is not supported")
    return errors, nodes


_TF_NODE = re.compile(r"\{\{node ([^}]+)\}\}|node '?([^\s':]+)'?", re.IGNORECASE)


def _tf_import_error(e: Exception, filename: str, nodes: dict[str, Any]) -> str:
    message = getattr(e, "message", None) or str(e)
    first = next((line.strip() for line in message.splitlines() if line.strip()), type(e).__name__)
    for m in _TF_NODE.finditer(message):
        name = m.group(1) or m.group(2)
        if name in nodes:
            first = re.sub(rf"^Node '?{re.escape(name)}'?: ", "", first)
            return f"{filename}: error: node '{name}' ({nodes[name].op}): {first}"
    return f"{filename}: error: TensorFlow rejected the graph: {first}"


def _topological_order(graph_def: Any, nodes: dict[str, Any], filename: str) -> list[Any]:
    """Inputs before users; otherwise the GraphDef's order.  Iterative (graphs are deep)."""
    order: list[Any] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = emitted
    for root in graph_def.node:
        if state.get(root.name):
            continue
        stack = [(root, 0)]
        state[root.name] = 1
        while stack:
            node, i = stack.pop()
            if i < len(node.input):
                stack.append((node, i + 1))
                src = nodes[_split_input(node.input[i])[0]]
                s = state.get(src.name)
                if s == 1:
                    raise CompileError(
                        f"{filename}: error: node '{src.name}' ({src.op}): the graph has a cycle "
                        f"through this node (control flow loops are not supported)")
                if s is None:
                    state[src.name] = 1
                    stack.append((src, 0))
            else:
                state[node.name] = 2
                order.append(node)
    return order


def import_graphdef(graph_def: Any, filename: str) -> ModuleOp:
    """Import a `tf.compat.v1.GraphDef`; `filename` names it in diagnostics."""
    tf = tensorflow()
    errors, nodes = _check_structure(graph_def, filename)
    if errors:
        raise CompileError(errors)
    order = _topological_order(graph_def, nodes, filename)

    graph = tf.Graph()
    try:
        with graph.as_default():
            tf.graph_util.import_graph_def(graph_def, name="")
    except Exception as e:  # noqa: BLE001 - ValueError, InvalidArgumentError, ...
        raise CompileError(_tf_import_error(e, filename, nodes)) from None

    # Types of every output, from TensorFlow's shape inference.
    # Only root causes are reported: a node fed by an untyped value is skipped quietly.
    types: dict[str, list[TensorType]] = {}
    untyped: set[str] = set()
    for node in order:
        where = f"{filename}: error: node '{node.name}' ({node.op})"
        if any(_split_input(ref)[0] in untyped for ref in node.input if not ref.startswith("^")):
            untyped.add(node.name)
            continue
        node_types = []
        outputs = graph.get_operation_by_name(node.name).outputs
        for i, t in enumerate(outputs):
            typ = _tensor_type(t)
            if isinstance(typ, str):
                errors.append(f"{where}: {typ}" if len(outputs) == 1 else f"{where}: output {i}: {typ}")
                untyped.add(node.name)
            else:
                node_types.append(typ)
        types[node.name] = node_types
    if errors:
        raise CompileError(errors)

    # Which outputs are read by whom: sinks become the function's results.
    consumed: set[str] = set()  # data edges only: a control edge reads no output
    for node in graph_def.node:
        for ref in node.input:
            src, _, control = _split_input(ref)
            if not control:
                consumed.add(src)
    placeholders = [n for n in graph_def.node if n.op == "Placeholder"]
    sinks = [n for n in graph_def.node if n.name not in consumed and n.op not in NOT_RESULTS]

    block = Block(arg_types=[types[n.name][0] for n in placeholders])
    for i, arg in enumerate(block.args):
        arg.name_hint = f"arg{i}"
    args = {n.name: block.args[i] for i, n in enumerate(placeholders)}
    values: dict[str, list[SSAValue]] = {}
    for node in order:
        if node.op in SKIPPED:
            continue
        tf_op = graph.get_operation_by_name(node.name)
        operands: list[SSAValue] = []
        for ref in node.input:
            src, index, control = _split_input(ref)
            if control:
                continue
            produced = values[src]
            if index >= len(produced):
                errors.append(f"{filename}: error: node '{node.name}' ({node.op}): input '{ref}': "
                              f"'{src}' has only {len(produced)} output(s)")
                operands = []
                break
            operands.append(produced[index])
        else:
            if node.op == "Placeholder":
                operands = [args[node.name]]
            try:
                op = BUILDERS[node.op](node, tf_op, operands, types[node.name])
            except Exception as e:  # noqa: BLE001 - a malformed attribute or tensor
                errors.append(f"{filename}: error: node '{node.name}' ({node.op}): {e}")
                continue
            op.location = _location(node.name)
            block.add_op(op)
            values[node.name] = list(op.results)
    if errors:
        raise CompileError(errors)

    results: list[SSAValue] = []
    output_names: list[str] = []
    for node in sinks:
        for i, value in enumerate(values[node.name]):
            results.append(value)
            output_names.append(tensor_name(node.name, i))
    block.add_op(ReturnOp(*results))

    func = FuncOp("main", FunctionType.from_lists(block.arg_types, [r.type for r in results]),
                  Region(block))
    func.attributes["tf.entry_function"] = DictionaryAttr({
        "inputs": StringAttr(",".join(n.name for n in placeholders)),
        "outputs": StringAttr(",".join(output_names)),
    })
    return ModuleOp([func])
