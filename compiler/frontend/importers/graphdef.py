"""TensorFlow GraphDef (binary `.pb` or text `.pbtxt`), SavedModel or `.keras` -> tf dialect.

The graph becomes `func.func @main`, every FunctionDef of its library a `func.func @<name>`.
One op per node (nothing is dropped: NoOp, IdentityN, StopGradient stay), in a topological
order that keeps the GraphDef's order where it can:

* each Placeholder becomes a function argument plus a `tf.Placeholder` op forwarding it;
* Const -> `tf.Const` holding the weights as a dense elements attribute (O(1): the bytes);
* op types of `dialects.tf_opdefs` -> their typed op, attributes of the OpDef as properties,
  the others (`_class`, `_output_shapes`, ...) as discardable attributes;
* any other op type -> a generic `tf.<Type>` op with all its attributes (reported as a warning);
* control inputs (`^node`) -> the attribute `tf.control_inputs = ["node", ...]`;
* func attributes (If/While branches, PartitionedCall's `f`) -> symbol references to the
  imported functions (`@name`, or `#tf.func<@name, {attrs}>` with attributes);
* @main returns the `--outputs` tensors if given (unreachable nodes are pruned and counted),
  else every output of every sink node (a node none of whose outputs is read by another node;
  Const, Placeholder, NoOp and output-less sinks are not results), in graph order.

Every op carries `loc("<node name>")`.  The function has
`tf.entry_function = {inputs = "x,y", outputs = "Relu,split:1"}`.  A library function has
`tf.signature = {inputs = "a,b", outputs = "out_a,out_b"}` (its argument names) and, if any,
`tf.control_ret = [...]`, `tf.attrs = {...}`.

Static shapes and dtypes come from TensorFlow's own shape inference; unknown dims are `?`,
unknown ranks `tensor<*x...>` (except on @main's inputs: give them a shape with --input-shape).
TensorFlow is imported lazily, inside these functions.  Every problem found is collected and
raised as one `CompileError`, one line each: `<file>: error: node '<name>' (<OpType>): <why>`.
TF1 control flow (Switch/Merge conditionals, Enter/Exit/NextIteration/LoopCond loops) is first
functionalized into If/While nodes with new library functions (`compiler.frontend.importers.functionalize`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
    f32,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from compiler.frontend.importers.tensor_refs import split_input as _split_input
from compiler.frontend.importers.tensor_refs import tensor_name
from compiler.frontend.importers.tf_graph import import_graph, stub_unregistered, tf_import_error
from compiler.frontend.tf_loader import parse_graphdef, tensorflow
from compiler.ir.diagnostics import CompileError
from dialects.common import dense_from_numpy, element_type_of, int_array
from dialects.tf import (
    CONTROL_INPUTS,
    OP_CLASSES,
    AttrValueAttr,
    BytesStringAttr,
    ConstOp,
    FuncAttr,
    GeneratedTFOp,
    PlaceholderOp,
    ShapeAttr,
    StringsAttr,
    TensorProtoAttr,
    _is_variadic,
    element_type_of_dtype,
    generic_op_class,
)

Warn = Callable[[str], None]


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


# --- reading -------------------------------------------------------------------------------


def import_graphdef_file(path: str, **options: Any) -> ModuleOp:
    """Read a binary or text GraphDef file, a SavedModel directory or a .keras file, and import
    it (see `import_graphdef` for the options)."""
    import os

    from compiler.frontend.tf_loader import (
        load_keras_graphdef,
        load_saved_model_graphdef,
        read_graphdef_file_lean,
    )

    signature = options.pop("signature", None)
    if os.path.isdir(path):
        return import_graphdef(load_saved_model_graphdef(path, signature), path, **options)
    if path.endswith(".keras"):
        return import_graphdef(load_keras_graphdef(path), path, **options)
    graph_def, weights = read_graphdef_file_lean(path)  # weights once in memory: see there
    return import_graphdef(graph_def, path, weights=weights, **options)


def import_graphdef_bytes(data: bytes, filename: str, **options: Any) -> ModuleOp:
    """Parse `data` as a binary or text GraphDef (text first if `filename` ends in .pbtxt)."""
    return import_graphdef(parse_graphdef(data, filename), filename, **options)


# --- helpers -------------------------------------------------------------------------------


_NO_CHILD = NoneAttr()  # attributes are immutable: one instance serves every location


def _location(name: str) -> NameLoc:
    """`NameLoc(StringAttr(name), NoneAttr())`, without its constructor's check of the two
    parameters against their constraints (a StringAttr and a location: true by construction),
    which is 3/4 of its cost and runs once per node."""
    loc = NameLoc.__new__(NameLoc)
    object.__setattr__(loc, "desc", StringAttr(name))
    object.__setattr__(loc, "location", _NO_CHILD)
    return loc


def _dtype_name(tf: Any, enum: int) -> str:
    name = _DTYPE_NAMES.get(enum)
    if name is None:
        try:
            name = tf.dtypes.as_dtype(enum).name
        except TypeError:
            name = f"dtype{enum}"
        if len(_DTYPE_NAMES) < 4096:
            _DTYPE_NAMES[enum] = name
    return name


_DTYPE_NAMES: dict[int, str] = {}  # DataType enum -> TensorFlow's name for it


def _tensor_type(tf: Any, tf_tensor: Any) -> Attribute:
    """The IR type of a tf.Tensor from shape inference (unranked if the rank is unknown)."""
    try:  # (dims, unknown rank) straight from the C API: `.shape` wraps it in a TensorShape
        raw, unknown_rank = tf_tensor._shape
    except AttributeError:
        shape = tf_tensor.shape
        raw, unknown_rank = (None, True) if shape.rank is None else (shape.as_list(), False)
    dtype = getattr(tf_tensor, "_dtype", None)  # a tf.DType (`.dtype` converts it again)
    if dtype is None:
        dtype = tf_tensor.dtype
    key = (dtype, None if unknown_rank else tuple(raw))  # dims: ints, None if unknown
    typ = _TYPES.get(key)
    if typ is None:
        dims = None if unknown_rank else [DYNAMIC_INDEX if d is None else int(d) for d in raw]
        elt = element_type_of_dtype(dtype.base_dtype.name)
        typ = UnrankedTensorType(elt) if dims is None else TensorType(elt, dims)
        _TYPES[key] = typ
    return typ


#: (tf.DType, dims) -> type: attributes are immutable, building them is not free
_TYPES: dict = {}


# --- attributes ----------------------------------------------------------------------------


def _string(b: bytes) -> Attribute:
    try:
        return StringAttr(b.decode("utf-8"))
    except UnicodeDecodeError:
        return BytesStringAttr(StringAttr(b.decode("latin-1")))


def _shape(s: Any) -> Attribute:
    return ShapeAttr(None if s.unknown_rank else [d.size for d in s.dim])


_NUMERIC = {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
            "uint8", "bool"}


def _dense_from_content(tf: Any, proto: Any, content: bytes) -> Attribute | None:
    """Dense elements wrapping `content` (a tensor's little-endian bytes) without a copy."""
    if sys.byteorder != "little":
        return None
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    key = (proto.dtype, shape)
    known = _CONTENT_TYPES.get(key)
    if known is None:
        dtype = np.dtype(tf.dtypes.as_dtype(proto.dtype).as_numpy_dtype)
        elt = IntegerType(1) if dtype == np.bool_ else element_type_of(dtype)
        known = (int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, TensorType(elt, shape))
        if len(_CONTENT_TYPES) < 65536:
            _CONTENT_TYPES[key] = known
    if len(content) != known[0] or not content:
        return None
    return DenseIntOrFPElementsAttr(known[1], BytesAttr(content))


#: (dtype enum, shape) -> (bytes of such a tensor, its type): types are immutable
_CONTENT_TYPES: dict[tuple[int, tuple[int, ...]], tuple[int, Any]] = {}


def convert_tensor(tf: Any, proto: Any, content: bytes | None = None) -> Attribute:
    """TensorProto -> dense elements, `#tf.strings`, or (other dtypes) `#tf.tensor_proto`.
    `content`: the tensor's bytes when they were detached from `proto` (see
    `tf_loader.read_graphdef_file_lean`)."""
    name = _dtype_name(tf, proto.dtype)
    if name in _NUMERIC:
        if content is None and proto.tensor_content and (
                name != "bool" or len(proto.tensor_content) > 4096):
            content = proto.tensor_content  # as it is, not through make_ndarray's copies
        if content is not None:
            dense = _dense_from_content(tf, proto, content)
            if dense is not None:
                return dense
            proto = type(proto).FromString(proto.SerializeToString())
            proto.tensor_content = content
        return dense_from_numpy(np.asarray(tf.make_ndarray(proto), order="C"))
    if name == "string":  # from string_val: numpy's bytes dtype would drop trailing NULs
        shape = [d.size for d in proto.tensor_shape.dim]
        count = int(np.prod(shape)) if shape else 1
        vals = [bytes(v) for v in proto.string_val]
        if len(vals) < count:
            vals += [vals[-1] if vals else b""] * (count - len(vals))
        return StringsAttr(vals[:count], shape)
    return TensorProtoAttr(StringAttr(proto.SerializeToString().hex().upper()))


def _func(tf: Any, f: Any) -> Attribute:
    sym = SymbolRefAttr(f.name)
    if not f.attr:
        return sym
    return FuncAttr(sym, DictionaryAttr({k: convert_attr(tf, v) for k, v in sorted(f.attr.items())}))


#: attributes are immutable: one instance per value (building them verifies, which is not free)
_I64_ATTRS: dict[int, Attribute] = {}
_TRUE, _FALSE = IntegerAttr(1, 1), IntegerAttr(0, 1)


def convert_attr(tf: Any, value: Any) -> Attribute:
    """AttrValue -> IR attribute, losslessly (see dialects/tf.py for the forms)."""
    kind = value.WhichOneof("value")
    if kind == "i":
        a = _I64_ATTRS.get(value.i)
        if a is None:
            a = IntegerAttr(value.i, i64)
            if len(_I64_ATTRS) < 65536:
                _I64_ATTRS[value.i] = a
        return a
    if kind == "f":
        return FloatAttr(value.f, f32)
    if kind == "b":
        return _TRUE if value.b else _FALSE
    if kind == "s":
        return _string(value.s)
    if kind == "type":
        return element_type_of_dtype(_dtype_name(tf, value.type))
    if kind == "shape":
        return _shape(value.shape)
    if kind == "tensor":
        return convert_tensor(tf, value.tensor)
    if kind == "func":
        return _func(tf, value.func)
    if kind == "list":
        lst = value.list
        if lst.i:
            return int_array(list(lst.i))
        if lst.s:
            return ArrayAttr([_string(s) for s in lst.s])
        if lst.f:
            return ArrayAttr([FloatAttr(x, f32) for x in lst.f])
        if lst.b:
            return ArrayAttr([IntegerAttr(int(x), 1) for x in lst.b])
        if lst.type:
            return ArrayAttr([element_type_of_dtype(_dtype_name(tf, t)) for t in lst.type])
        if lst.shape:
            return ArrayAttr([_shape(s) for s in lst.shape])
        if lst.tensor:
            return ArrayAttr([convert_tensor(tf, t) for t in lst.tensor])
        if lst.func:
            return ArrayAttr([_func(tf, f) for f in lst.func])
        return ArrayAttr([])
    # `placeholder` (function bodies) or an empty AttrValue: kept as its bytes
    return AttrValueAttr(StringAttr(value.SerializeToString().hex().upper()))


# --- graph checks --------------------------------------------------------------------------


_KNOWN_ATTR_KINDS = {"s", "i", "f", "b", "type", "shape", "tensor", "list", "func", "placeholder"}
_KNOWN_OR_EMPTY = frozenset(_KNOWN_ATTR_KINDS | {None})  # None: an empty AttrValue


def _check_structure(nodes_list: Sequence[Any], filename: str, args: Sequence[str] = (),
                     in_function: str | None = None) -> tuple[list[str], dict[str, Any]]:
    """Duplicate names, dangling inputs, attributes of an unknown kind: every one of them."""
    errors: list[str] = []
    nodes: dict[str, Any] = {}
    fn = f" in function '{in_function}'" if in_function else ""
    for node in nodes_list:
        nodes.setdefault(node.name, node)
    for node in nodes_list:
        where = f"{filename}: error: node '{node.name}' ({node.op}){fn}"
        if nodes[node.name] is not node:
            errors.append(f"{where}: duplicate node name (first defined as a {nodes[node.name].op})")
        if not node.op:
            errors.append(f"{where}: the node has no op type")
        for ref in node.input:
            src = ref.lstrip("^").split(":")[0] if in_function else _split_input(ref)[0]
            if src not in nodes and src not in args:
                errors.append(f"{where}: input '{ref}' names no node of the graph")
        for key, value in node.attr.items():
            if value.WhichOneof("value") not in _KNOWN_OR_EMPTY or _unknown_fields(value):
                errors.append(f"{where}: attribute '{key}' has an unknown kind")
    return errors, nodes


def _unknown_fields(message: Any) -> bool:
    """Fields this protobuf does not know (an AttrValue kind from a newer TensorFlow)."""
    global _UNKNOWN_FIELD_SET
    if _UNKNOWN_FIELD_SET is None:
        try:
            from google.protobuf.unknown_fields import UnknownFieldSet
        except ImportError:  # older protobuf
            UnknownFieldSet = False
        _UNKNOWN_FIELD_SET = UnknownFieldSet
    return bool(_UNKNOWN_FIELD_SET) and len(_UNKNOWN_FIELD_SET(message)) > 0


_UNKNOWN_FIELD_SET: Any = None  # protobuf's UnknownFieldSet (False: this protobuf has none)


def _topological_order(nodes_list: Sequence[Any], nodes: dict[str, Any], filename: str,
                       in_function: str | None = None) -> list[Any]:
    """Inputs (data and control) before users; otherwise the GraphDef's order.  Iterative."""
    order: list[Any] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = emitted
    errors: list[str] = []
    fn = f" in function '{in_function}'" if in_function else ""
    for root in nodes_list:
        if state.get(root.name):
            continue
        stack = [(root, 0)]
        state[root.name] = 1
        while stack:
            node, i = stack.pop()
            if i < len(node.input):
                stack.append((node, i + 1))
                src = nodes.get(_split_input(node.input[i])[0])
                if src is None:  # a function argument
                    continue
                s = state.get(src.name)
                if s == 1:
                    loop = "NextIteration" in {node.op, src.op} or src.op == "Merge" or node.op == "Merge"
                    why = ("a TF1 while loop (NextIteration -> Merge): functionalizing TF1 loops "
                           "is not supported; export the model with tf.function (functional While)"
                           if loop else "the graph has a cycle through this node")
                    msg = f"{filename}: error: node '{src.name}' ({src.op}){fn}: {why}"
                    if msg not in errors:
                        errors.append(msg)
                    continue
                if s is None:
                    state[src.name] = 1
                    stack.append((src, 0))
            else:
                state[node.name] = 2
                order.append(node)
    if errors:
        raise CompileError(errors)
    return order


# --- options: input shapes and outputs -------------------------------------------------------


def parse_input_shapes(spec: str | None) -> dict[str, list[int]]:
    """ATC syntax: `"x:1,224,224,3;y:-1,128"` (-1 or ? = dynamic; `x:` = a scalar)."""
    from compiler.frontend.shape_spec import parse_named_shapes

    def bad(why: str) -> CompileError:
        return CompileError(f"--input-shape: error: {why}")

    def dim(part: str, d: str) -> int:
        if d in ("?", "-1"):
            return -1
        if not d.isdigit():
            raise bad(f"'{part}': dimensions must be integers, -1 or ?")
        return int(d)

    return parse_named_shapes(spec or "", bad, dim, scalars=True, required=False)


def _apply_input_shapes(graph_def: Any, shapes: dict[str, list[int]], filename: str) -> None:
    placeholders = {n.name: n for n in graph_def.node if n.op == "Placeholder"}
    errors = []
    for name, dims in shapes.items():
        node = placeholders.get(name)
        if node is None:
            errors.append(f"{filename}: error: --input-shape names '{name}', which is no "
                          f"Placeholder of the graph (they are: {', '.join(placeholders) or 'none'})")
            continue
        shape = node.attr["shape"].shape
        shape.Clear()
        for d in dims:
            shape.dim.add().size = d
    if errors:
        raise CompileError(errors)


def _prune(graph_def: Any, outputs: list[tuple[str, int]], warn: Warn) -> None:
    """Keep only the nodes the outputs depend on (data or control); report how many went."""
    nodes = {n.name: n for n in graph_def.node}
    keep: set[str] = set()
    stack = [name for name, _ in outputs]
    while stack:
        name = stack.pop()
        if name in keep or name not in nodes:
            continue
        keep.add(name)
        stack.extend(_split_input(ref)[0] for ref in nodes[name].input)
    kept = [n for n in graph_def.node if n.name in keep]
    pruned = len(graph_def.node) - len(kept)
    if pruned:
        del graph_def.node[:]
        graph_def.node.extend(kept)
        warn(f"note: --outputs: pruned {pruned} unreachable node(s)")


# --- building ops --------------------------------------------------------------------------


#: generated op class -> (attribute name -> OpDef kind, whether it records operand segment
#: sizes (more than one variadic input)): read from its SPEC once per class, not per node
_SPEC_INFO: dict[type, tuple[dict[str, str], bool]] = {}


def _spec_info(cls: type[GeneratedTFOp]) -> tuple[dict[str, str], bool]:
    info = _SPEC_INFO.get(cls)
    if info is None:
        spec = cls.SPEC
        info = _SPEC_INFO[cls] = ({a["name"]: a["type"] for a in spec["attrs"]},
                                  sum(_is_variadic(a) for a in spec["inputs"]) > 1)
    return info


def _segments(spec: dict, node: Any) -> DenseArrayBase:
    """The operand segment sizes of an op with more than one variadic input."""
    args = spec["inputs"]
    sizes = []
    for a in args:
        if "number_attr" in a:
            sizes.append(node.attr[a["number_attr"]].i)
        elif "type_list_attr" in a:
            sizes.append(len(node.attr[a["type_list_attr"]].list.type))
        else:
            sizes.append(1)
    return DenseArrayBase.from_list(i32, sizes)


def build_op(tf: Any, node: Any, operands: Sequence[SSAValue], result_types: Sequence[Attribute],
             unknown: set[str], weights: dict[str, bytes] | None = None) -> Operation:
    controls = [_split_input(r)[0] for r in node.input if r.startswith("^")]
    attributes: dict[str, Attribute] = {}
    properties: dict[str, Attribute] = {}
    cls = OP_CLASSES.get(node.op)
    if node.op == "Const":
        value = convert_tensor(tf, node.attr["value"].tensor,
                               weights.pop(node.name, None) if weights else None)
        # ConstOp(value, result_types[0]), without the IRDL builder's generic argument handling
        op = ConstOp.create(properties={"value": value}, result_types=[result_types[0]])
        for k, v in node.attr.items():
            if k not in ("value", "dtype"):
                op.attributes[k] = convert_attr(tf, v)
    elif node.op == "Placeholder":
        for k, v in node.attr.items():
            if k == "shape":
                properties["shape"] = _shape(v.shape)
            elif k != "dtype":
                attributes[k] = convert_attr(tf, v)
        op = PlaceholderOp(operands=operands, result_types=result_types, properties=properties,
                           attributes=attributes)
    elif cls is not None and issubclass(cls, GeneratedTFOp):
        kinds, segmented = _spec_info(cls)
        for k in sorted(node.attr, key=lambda k: (k not in kinds, k)):
            v = node.attr[k]
            if kinds.get(k) == "list(int)" and v.WhichOneof("value") == "list" and not v.list.i:
                properties[k] = int_array([])  # an empty list keeps its kind
            else:
                (properties if k in kinds else attributes)[k] = convert_attr(tf, v)
        if segmented:
            properties["operandSegmentSizes"] = _segments(cls.SPEC, node)
        op = cls.create(operands=operands, result_types=result_types, properties=properties,
                        attributes=attributes)
    else:
        unknown.add(node.op)
        for k in sorted(node.attr):
            attributes[k] = convert_attr(tf, node.attr[k])
        op = generic_op_class(node.op).create(operands=operands, result_types=result_types,
                                              attributes=attributes)
    if controls:
        op.attributes[CONTROL_INPUTS] = ArrayAttr([StringAttr(c) for c in controls])
    if node.device:
        op.attributes["tf.device"] = StringAttr(node.device)
    op.location = _location(node.name)
    return op


class _Body:
    """The ops of one graph (the main graph or a function body) in one block."""

    def __init__(self, tf: Any, filename: str, unknown: set[str], in_function: str | None = None,
                 weights: dict[str, bytes] | None = None):
        self.tf, self.filename, self.unknown, self.fn = tf, filename, unknown, in_function
        self.weights = weights
        self.errors: list[str] = []

    def where(self, node: Any) -> str:
        fn = f" in function '{self.fn}'" if self.fn else ""
        return f"{self.filename}: error: node '{node.name}' ({node.op}){fn}"

    def build(self, order: Sequence[Any], tf_graph: Any, arg_nodes: Sequence[Any],
              arg_types: Sequence[Attribute], arg_ops: bool = True
              ) -> tuple[Block, dict[str, list[SSAValue]]]:
        block = Block(arg_types=arg_types)
        args = {n.name: block.args[i] for i, n in enumerate(arg_nodes)}
        values: dict[str, list[SSAValue]] = {} if arg_ops else {k: [v] for k, v in args.items()}
        broken: set[str] = set()
        for node in order:
            operands: list[SSAValue] = []
            ok = True
            for ref in node.input:
                src, index, control = _split_input(ref)
                if control:
                    continue
                if src in broken:
                    ok = False
                    break
                produced = values.get(src)
                if produced is None:
                    self.errors.append(f"{self.where(node)}: input '{ref}' names no node of the graph")
                    ok = False
                    break
                if index >= len(produced):
                    self.errors.append(f"{self.where(node)}: input '{ref}': '{src}' has only "
                                       f"{len(produced)} output(s)")
                    ok = False
                    break
                operands.append(produced[index])
            if not ok:
                broken.add(node.name)
                continue
            if node.name in args:
                operands = [args[node.name]]
            try:
                outputs = _tf_outputs(tf_graph, node.name)
                result_types = [_tensor_type(self.tf, t) for t in outputs]
                op = build_op(self.tf, node, operands, result_types, self.unknown, self.weights)
            except Exception as e:  # noqa: BLE001 - a malformed attribute or tensor
                self.errors.append(f"{self.where(node)}: {e}")
                broken.add(node.name)
                continue
            block.add_op(op)
            values[node.name] = list(op.results)
        return block, values


def _tf_outputs(tf_graph: Any, name: str) -> Any:
    """`tf_graph.get_operation_by_name(name).outputs`, without its name checks and lock on the
    common path (a name not in the graph still raises get_operation_by_name's error)."""
    try:
        return tf_graph._get_operation_by_name(name).outputs
    except (AttributeError, KeyError):
        return tf_graph.get_operation_by_name(name).outputs


def _import_tf_graph(tf: Any, graph_def: Any, filename: str, detached: Any = (),
                     order: Sequence[Any] = ()) -> Any:
    graph_def = stub_unregistered(tf, graph_def, detached)
    try:
        return _tf_graph(tf, graph_def)
    except Exception as e:  # noqa: BLE001 - ValueError, InvalidArgumentError, ...
        nodes = {n.name: n for n in graph_def.node}
        message = tf_import_error(e, filename, nodes)
    if "TensorFlow rejected the graph" in message and order:
        culprit = _first_rejected(tf, graph_def, [n.name for n in order])
        if culprit is not None:
            node = nodes[culprit]
            message = message.replace("TensorFlow rejected the graph",
                                      f"node '{node.name}' ({node.op}): TensorFlow rejects it", 1)
    raise CompileError(message)


def _tf_graph(tf: Any, graph_def: Any) -> Any:
    return import_graph(tf, graph_def)


def _first_rejected(tf: Any, graph_def: Any, order: Sequence[str]) -> str | None:
    """The node TensorFlow's import fails at, when its message names none: the shortest prefix
    of a topological order that fails to import ends with it (a binary search, on the error
    path only)."""
    by_name = {n.name: n for n in graph_def.node}
    stubs: dict[str, list[Any]] = {}  # an unregistered op's stub Placeholders go with it
    for n in graph_def.node:
        base, sep, _ = n.name.rpartition("/__stub_")
        if sep and base in by_name:
            stubs.setdefault(base, []).append(n)

    def fails(k: int) -> bool:
        prefix = tf.compat.v1.GraphDef()
        prefix.versions.CopyFrom(graph_def.versions)
        prefix.library.CopyFrom(graph_def.library)
        for name in order[:k]:
            prefix.node.extend(stubs.get(name, []))
            prefix.node.append(by_name[name])
        try:
            _tf_graph(tf, prefix)
        except Exception:  # noqa: BLE001
            return True
        return False

    order = [n for n in order if n in by_name]
    lo, hi = 0, len(order)  # fails(hi); the answer is the smallest k with fails(k)
    if not fails(hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid
    return order[hi - 1]


def _reattach(tf: Any, graph_def: Any, weights: dict[str, bytes]) -> Any:
    """A copy of `graph_def` with the detached tensor contents put back."""
    copy = tf.compat.v1.GraphDef()
    copy.CopyFrom(graph_def)
    for n in copy.node:
        if n.op == "Const" and n.name in weights:
            n.attr["value"].tensor.tensor_content = weights[n.name]
    return copy


#: Sinks of these op types are dead values or side effects, not results (an unread
#: TensorListReserve: `tf.TensorArray(...).unstack(x)` makes a new list and leaves the first).
NOT_RESULTS = ("Const", "Placeholder", "NoOp", "TensorListReserve")


def import_graphdef(graph_def: Any, filename: str, input_shapes: str | dict | None = None,
                    outputs: str | Sequence[str] | None = None, warn: Warn = _stderr,
                    weights: dict[str, bytes] | None = None) -> ModuleOp:
    """Import a `tf.compat.v1.GraphDef`; `filename` names it in diagnostics.

    input_shapes: ATC-style `"x:1,224,224,3;y:-1,3"` (or a dict) overriding Placeholder shapes.
    outputs: `"a,b:1"` (or a list): @main's results; nodes they do not need are pruned.
    warn: receives one-line notes (unknown op types, the pruned-node count).
    weights: Const tensor contents detached from `graph_def` (`read_graphdef_file_lean`); they
    are wrapped in the IR without a copy, and the dict is emptied as they are."""
    tf = tensorflow()
    weights = dict(weights) if weights else {}
    if input_shapes or outputs:
        copy = tf.compat.v1.GraphDef()
        copy.CopyFrom(graph_def)
        graph_def = copy
    errors, nodes = _check_structure(graph_def.node, filename)
    for f in graph_def.library.function:
        args = [a.name for a in f.signature.input_arg]
        errors += _check_structure(f.node_def, filename, args, f.signature.name)[0]
    if errors:
        raise CompileError(errors)
    from compiler.frontend.importers.validate import check_graph

    check_graph(tf, graph_def, filename, weights)
    if input_shapes:
        shapes = input_shapes if isinstance(input_shapes, dict) else parse_input_shapes(input_shapes)
        _apply_input_shapes(graph_def, shapes, filename)
    selected: list[tuple[str, int]] | None = None
    if outputs:
        names = outputs.split(",") if isinstance(outputs, str) else list(outputs)
        selected = []
        for name in (n.strip() for n in names if n.strip()):
            node, index, control = _split_input(name)
            if control or node not in nodes:
                errors.append(f"{filename}: error: --outputs names '{name}', which is no node of the graph")
            else:
                selected.append((node, index))
        if errors:
            raise CompileError(errors)
        _prune(graph_def, selected, warn)
        nodes = {n.name: n for n in graph_def.node}
    from compiler.frontend.importers.tf1_control_flow import has_tf1_control_flow, needs_functionalize

    if weights and has_tf1_control_flow(graph_def):  # functions get whole Const nodes
        graph_def = _reattach(tf, graph_def, weights)
        weights = {}
    if needs_functionalize(graph_def):  # TF1 Switch/Merge/Enter/... -> If/While
        from compiler.frontend.importers.functionalize import functionalize

        graph_def = functionalize(tf, graph_def, filename, warn)
        nodes = {n.name: n for n in graph_def.node}
    order = _topological_order(graph_def.node, nodes, filename)
    weight_names = weights.keys()
    graph = _import_tf_graph(tf, graph_def, filename, weight_names, order)
    from compiler.frontend.importers.function_shapes import refine_function_shapes

    refined = refine_function_shapes(  # shapes inside If/While/Case functions, from call sites
        tf, graph_def, graph, lambda gd: _import_tf_graph(tf, gd, filename, weight_names))
    if refined is not None:
        graph_def, graph = refined
        nodes = {n.name: n for n in graph_def.node}
        order = _topological_order(graph_def.node, nodes, filename)

    unknown: set[str] = set()
    placeholders = [n for n in graph_def.node if n.op == "Placeholder"]
    arg_types = []
    for n in placeholders:
        t = _tensor_type(tf, graph.get_operation_by_name(n.name).outputs[0])
        if isinstance(t, UnrankedTensorType):
            errors.append(f"{filename}: error: node '{n.name}' (Placeholder): output has unknown "
                          "rank (give the graph's Placeholders a shape)")
        arg_types.append(t)
    if errors:
        raise CompileError(errors)
    body = _Body(tf, filename, unknown, weights=weights)
    block, values = body.build(order, graph, placeholders, arg_types)
    del weights  # now held by the IR only
    for i, arg in enumerate(block.args):
        arg.name_hint = f"arg{i}"
    errors += body.errors

    funcs = [_import_function(tf, f, graph, filename, unknown, errors)
             for f in graph_def.library.function]
    if errors:
        raise CompileError(errors)

    results: list[SSAValue] = []
    output_names: list[str] = []
    if selected is not None:
        for name, index in selected:
            produced = values[name]
            if index >= len(produced):
                errors.append(f"{filename}: error: --outputs: '{tensor_name(name, index)}': "
                              f"'{name}' has only {len(produced)} output(s)")
                continue
            results.append(produced[index])
            output_names.append(tensor_name(name, index))
        if errors:
            raise CompileError(errors)
    else:
        consumed: set[str] = set()  # data edges only: a control edge reads no output
        for node in graph_def.node:
            for ref in node.input:
                src, _, control = _split_input(ref)
                if not control:
                    consumed.add(src)
        for node in graph_def.node:
            if node.name in consumed or node.op in NOT_RESULTS:
                continue
            for i, value in enumerate(values.get(node.name, ())):
                results.append(value)
                output_names.append(tensor_name(node.name, i))
    block.add_op(ReturnOp(*results))

    func = FuncOp("main", FunctionType.from_lists(block.arg_types, [r.type for r in results]),
                  Region(block))
    func.attributes["tf.entry_function"] = DictionaryAttr({
        "inputs": StringAttr(",".join(n.name for n in placeholders)),
        "outputs": StringAttr(",".join(output_names)),
    })
    # graph versions are not kept (TensorFlow fills its own on export)
    if unknown:
        warn(f"{filename}: warning: op types without a typed tf op, imported generically: "
             f"{', '.join(sorted(unknown))}")
    return ModuleOp([func, *funcs])


# --- the function library ------------------------------------------------------------------


def _import_function(tf: Any, fdef: Any, outer: Any, filename: str, unknown: set[str],
                     errors: list[str]) -> FuncOp:
    """One FunctionDef -> `func.func @<name>` (arguments in signature order)."""
    from tensorflow.python.framework.function_def_to_graph import (
        function_def_to_graph,
        function_def_to_graph_def,
    )

    name = fdef.signature.name
    where = f"{filename}: error: function '{name}'"
    try:
        with outer.as_default():
            gdef, flat = function_def_to_graph_def(fdef)
            fgraph = function_def_to_graph(fdef)
    except Exception as e:  # noqa: BLE001
        msg = (getattr(e, "message", None) or str(e)).strip().splitlines()
        errors.append(f"{where}: {msg[0] if msg else type(e).__name__}")
        return FuncOp(name, FunctionType.from_lists([], []), Region(Block([ReturnOp()])))
    nodes = {n.name: n for n in gdef.node}
    try:
        order = _topological_order(gdef.node, nodes, filename, name)
    except CompileError as e:
        errors.extend(e.messages)
        return FuncOp(name, FunctionType.from_lists([], []), Region(Block([ReturnOp()])))
    arg_names = [a.name for a in fdef.signature.input_arg]
    arg_nodes = [nodes[a] for a in arg_names]
    arg_types = [_tensor_type(tf, fgraph.get_operation_by_name(a).outputs[0]) for a in arg_names]
    body = _Body(tf, filename, unknown, name)
    # the arguments' Placeholder nodes are the block arguments themselves
    block, values = body.build([n for n in order if n.name not in arg_names], fgraph, arg_nodes,
                               arg_types, arg_ops=False)
    for a, arg in zip(arg_names, block.args):
        arg.name_hint = re.sub(r"[^A-Za-z0-9_$.]", "_", a) if re.match(r"[A-Za-z_]", a) else None
    errors.extend(body.errors)
    results: list[SSAValue] = []
    out_names = []
    for out in fdef.signature.output_arg:
        ref = flat.get(fdef.ret[out.name], fdef.ret[out.name])
        src, index, _ = _split_input(ref)
        produced = values.get(src)
        if produced is None or index >= len(produced):
            if not body.errors:
                errors.append(f"{where}: output '{out.name}' = '{fdef.ret[out.name]}' is not produced")
            continue
        results.append(produced[index])
        out_names.append(out.name)
    block.add_op(ReturnOp(*results))
    func = FuncOp(name, FunctionType.from_lists(block.arg_types, [r.type for r in results]),
                  Region(block), visibility="private")
    func.attributes["tf.signature"] = DictionaryAttr({
        "inputs": StringAttr(",".join(arg_names)), "outputs": StringAttr(",".join(out_names))})
    if fdef.signature.is_stateful:
        func.attributes["tf.stateful"] = IntegerAttr(1, 1)
    if fdef.control_ret:
        func.attributes["tf.control_ret"] = DictionaryAttr(
            {k: StringAttr(v) for k, v in sorted(fdef.control_ret.items())})
    if fdef.attr:
        func.attributes["tf.attrs"] = DictionaryAttr(
            {k: convert_attr(tf, v) for k, v in sorted(fdef.attr.items())})
    if fdef.arg_attr:
        func.attributes["tf.arg_attrs"] = DictionaryAttr({
            str(i): DictionaryAttr({k: convert_attr(tf, v) for k, v in sorted(a.attr.items())})
            for i, a in sorted(fdef.arg_attr.items())})
    return func
