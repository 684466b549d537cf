"""tf-level IR -> TensorFlow GraphDef (the inverse of `compiler.frontend.importers.graphdef`).

`func.func @main` becomes the graph, every other `func.func` a FunctionDef of its library.
Node names are the ops' `loc("name")` (an op without one gets a fresh `<type>_<n>` name), so
IR meant for export should keep its locations (`--print-debuginfo`).  Attributes are converted
back exactly; type attributes (`T`, `N`, `Tin`, ...) that hand-written IR leaves out are derived
from the operand and result types.  `tf.control_inputs` become `^node` inputs.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue, TypeAttribute

from compiler.frontend.tf_loader import tensorflow
from compiler.ir.diagnostics import CompileError
from compiler.ir.typed import dict_of, int_of, str_of
from dialects.common import numpy_from_dense

SKIP_ATTRS = {"operandSegmentSizes", "resultSegmentSizes"}


def _dtype_enum(tf: Any, t: Attribute) -> int:
    from dialects.tf import dtype_of_element_type, element_type

    name = dtype_of_element_type(element_type(t))
    if name is None:
        raise ValueError(f"type {t} is no TensorFlow dtype")
    return tf.dtypes.as_dtype(name).as_datatype_enum


def _shape_proto(tf: Any, dims) -> Any:
    from tensorflow.core.framework import tensor_shape_pb2

    s = tensor_shape_pb2.TensorShapeProto()
    if dims is None:
        s.unknown_rank = True
    else:
        for d in dims:
            s.dim.add().size = d
    return s


def tensor_proto(tf: Any, attr: Attribute) -> Any:
    from tensorflow.core.framework import tensor_pb2

    from dialects.tf import StringsAttr, TensorProtoAttr

    if isinstance(attr, DenseIntOrFPElementsAttr):
        return tf.make_tensor_proto(numpy_from_dense(attr))
    if isinstance(attr, StringsAttr):
        p = tensor_pb2.TensorProto(dtype=tf.string.as_datatype_enum)
        for d in attr.type.get_shape():
            p.tensor_shape.dim.add().size = d
        p.string_val.extend(attr.bytes_values)
        return p
    if isinstance(attr, TensorProtoAttr):
        p = tensor_pb2.TensorProto()
        p.ParseFromString(attr.data)
        return p
    raise ValueError(f"{attr} is not a tensor")


def _fill(tf: Any, out: Any, attr: Attribute) -> None:
    """Write `attr` into the AttrValue `out`."""
    from dialects.tf import (
        AttrValueAttr,
        BytesStringAttr,
        FuncAttr,
        ShapeAttr,
        StringsAttr,
        TensorProtoAttr,
    )

    if isinstance(attr, AttrValueAttr):
        out.ParseFromString(attr.data)
    elif isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
        out.b = bool(attr.value.data)
    elif isinstance(attr, IntegerAttr):
        out.i = attr.value.data
    elif isinstance(attr, FloatAttr):
        out.f = attr.value.data
    elif isinstance(attr, StringAttr):
        out.s = attr.data.encode("utf-8")
    elif isinstance(attr, BytesStringAttr):
        out.s = attr.value.data.encode("latin-1")
    elif isinstance(attr, ShapeAttr):
        out.shape.CopyFrom(_shape_proto(tf, attr.shape))
    elif isinstance(attr, (DenseIntOrFPElementsAttr, StringsAttr, TensorProtoAttr)):
        out.tensor.CopyFrom(tensor_proto(tf, attr))
    elif isinstance(attr, SymbolRefAttr):
        out.func.name = attr.root_reference.data
    elif isinstance(attr, FuncAttr):
        out.func.name = attr.func.root_reference.data
        for k, v in attr.attrs.data.items():
            _fill(tf, out.func.attr[k], v)
    elif isinstance(attr, TypeAttribute):
        out.type = _dtype_enum(tf, attr)
    elif isinstance(attr, DenseArrayBase):
        out.list.i.extend(int(v) for v in attr.get_values())
    elif isinstance(attr, ArrayAttr):
        out.list.SetInParent()
        for x in attr.data:
            tmp = type(out)()
            _fill(tf, tmp, x)
            kind = tmp.WhichOneof("value")
            target = {"func": "func", "tensor": "tensor", "shape": "shape"}.get(kind)
            if target:
                getattr(out.list, target).add().CopyFrom(getattr(tmp, kind))
            elif kind == "type":
                out.list.type.append(tmp.type)
            else:
                getattr(out.list, kind).append(getattr(tmp, kind))
    else:
        raise ValueError(f"attribute {attr} has no TensorFlow form")


class _Names:
    def __init__(self):
        self.used: set[str] = set()
        self.count = 0

    def name_of(self, op: Operation) -> str:
        loc = op.location
        if isinstance(loc, NameLoc) and loc.desc.data not in self.used:
            name = loc.desc.data
        else:
            while True:
                self.count += 1
                name = f"{op.name.removeprefix('tf.')}_{self.count}"
                if name not in self.used:
                    break
        self.used.add(name)
        return name


def _derive_attrs(tf: Any, op: Operation, node: Any) -> None:
    """Fill `T`, `N`, `Tin`, ... of a typed op from its operand/result types when missing."""
    from dialects.tf import GeneratedTFOp

    if not isinstance(op, GeneratedTFOp) or not op.SPEC:
        return
    spec = op.SPEC
    for args, values in ((spec["inputs"], op._tf_operand_groups()),
                         (spec["outputs"], op._tf_result_groups())):
        for arg, vals in zip(args, values):
            if "number_attr" in arg and arg["number_attr"] not in node.attr:
                node.attr[arg["number_attr"]].i = len(vals)
            if "type_attr" in arg and arg["type_attr"] not in node.attr and vals:
                node.attr[arg["type_attr"]].type = _dtype_enum(tf, vals[0].type)
            if "type_list_attr" in arg and arg["type_list_attr"] not in node.attr:
                node.attr[arg["type_list_attr"]].list.type.extend(_dtype_enum(tf, v.type) for v in vals)


def _graph_nodes(tf: Any, func: FuncOp, nodes_out: Any, arg_refs: list[str] | None,
                 in_function: bool) -> list[str]:
    """Emit the nodes of `func`'s body; return the tensor names of its results."""
    from tensorflow.python.framework import op_def_registry

    from dialects.tf import CONTROL_INPUTS, ConstOp, PlaceholderOp

    names = _Names()
    tensor_of: dict[SSAValue, str] = {}
    block = func.body.block
    if arg_refs is not None:
        for a, ref in zip(block.args, arg_refs):
            tensor_of[a] = ref
    results: list[str] = []
    for op in block.ops:
        if isinstance(op, ReturnOp):
            results = [tensor_of[v] for v in op.operands]
            continue
        if isinstance(op, PlaceholderOp) and not in_function:
            name = names.name_of(op)
            node = nodes_out.add(name=name, op="Placeholder")
            node.attr["dtype"].type = _dtype_enum(tf, op.output.type)
            shape = op.shape
            from dialects.tf import ShapeAttr

            if isinstance(shape, ShapeAttr):
                node.attr["shape"].shape.CopyFrom(_shape_proto(tf, shape.shape))
            elif isinstance(shape, StringAttr):
                dims = [-1 if d == "?" else int(d) for d in shape.data.split(",") if d]
                node.attr["shape"].shape.CopyFrom(_shape_proto(tf, dims))
            for k, v in op.attributes.items():
                if k != CONTROL_INPUTS and not k.startswith("tf."):
                    _fill(tf, node.attr[k], v)
            tensor_of[op.output] = name
            continue
        op_type = op.name.removeprefix("tf.")
        name = names.name_of(op)
        node = nodes_out.add(name=name, op=op_type)
        for v in op.operands:
            node.input.append(tensor_of[v])
        ctrl = op.attributes.get(CONTROL_INPUTS)
        if isinstance(ctrl, ArrayAttr):
            node.input.extend(f"^{c.data}" for c in ctrl.data)
        device = op.attributes.get("tf.device")
        if isinstance(device, StringAttr):
            node.device = device.data
        if isinstance(op, ConstOp):
            node.attr["value"].tensor.CopyFrom(tensor_proto(tf, op.value))
            node.attr["dtype"].type = node.attr["value"].tensor.dtype
        for k, v in list(op.properties.items()) + list(op.attributes.items()):
            if k in SKIP_ATTRS or k.startswith("tf.") or (isinstance(op, ConstOp) and k == "value"):
                continue
            _fill(tf, node.attr[k], v)
        _derive_attrs(tf, op, node)
        # output tensor names
        if in_function:
            op_def = op_def_registry.get(op_type)
            refs = []
            if op_def is not None:
                for out in op_def.output_arg:
                    n = 1
                    if out.number_attr:
                        n = node.attr[out.number_attr].i
                    elif out.type_list_attr:
                        n = len(node.attr[out.type_list_attr].list.type)
                    refs += [f"{name}:{out.name}:{i}" for i in range(n)]
            for i, r in enumerate(op.results):
                tensor_of[r] = refs[i] if i < len(refs) else f"{name}:output:{i}"
        else:
            for i, r in enumerate(op.results):
                tensor_of[r] = name if i == 0 else f"{name}:{i}"
    if in_function:  # a function's inputs in node_def refer to other nodes as name:arg:i
        pass
    return results


def _function_def(tf: Any, func: FuncOp) -> Any:
    from tensorflow.core.framework import function_pb2

    fdef = function_pb2.FunctionDef()
    fdef.signature.name = func.sym_name.data
    sig = func.attributes.get("tf.signature")
    d = sig.data if isinstance(sig, DictionaryAttr) else {}
    ins = str_of(d["inputs"]).split(",") if "inputs" in d and str_of(d["inputs"]) else []
    outs = str_of(d["outputs"]).split(",") if "outputs" in d and str_of(d["outputs"]) else []
    block = func.body.block
    ins = ins if len(ins) == len(block.args) else [f"arg{i}" for i in range(len(block.args))]
    for n, a in zip(ins, block.args):
        arg = fdef.signature.input_arg.add(name=n)
        arg.type = _dtype_enum(tf, a.type)
    results = _graph_nodes(tf, func, fdef.node_def, ins, in_function=True)
    outs = outs if len(outs) == len(results) else [f"output_{i}" for i in range(len(results))]
    ret = func.function_type.outputs.data
    for n, r, t in zip(outs, results, ret):
        arg = fdef.signature.output_arg.add(name=n)
        arg.type = _dtype_enum(tf, t)
        fdef.ret[n] = r
    if "tf.stateful" in func.attributes:
        fdef.signature.is_stateful = True
    cr = func.attributes.get("tf.control_ret")
    if isinstance(cr, DictionaryAttr):
        for k, v in cr.data.items():
            fdef.control_ret[k] = str_of(v)
            fdef.signature.control_output.append(k)
    attrs = func.attributes.get("tf.attrs")
    if isinstance(attrs, DictionaryAttr):
        for k, v in attrs.data.items():
            _fill(tf, fdef.attr[k], v)
    arg_attrs = func.attributes.get("tf.arg_attrs")
    if isinstance(arg_attrs, DictionaryAttr):
        for i, dd in arg_attrs.data.items():
            for k, v in dict_of(dd).items():
                _fill(tf, fdef.arg_attr[int(i)].attr[k], v)
    return fdef


def export_graphdef(module: ModuleOp, filename: str = "<module>") -> Any:
    """The GraphDef of a tf-level module (see the module docstring)."""
    tf = tensorflow()
    funcs = [op for op in module.ops if isinstance(op, FuncOp)]
    main = next((f for f in funcs if f.sym_name.data == "main"), None)
    if main is None:
        raise CompileError(f"{filename}: error: no func.func @main to export")
    errors = [f"{filename}: error: op '{op.name}' is not a tf op and has no GraphDef form"
              for f in funcs for op in f.body.walk()
              if op.dialect_name() != "tf" and not isinstance(op, (ReturnOp, FuncOp))]
    if errors:
        raise CompileError(errors)
    gd = tf.compat.v1.GraphDef()
    versions = main.attributes.get("tf.versions")
    if isinstance(versions, DictionaryAttr):
        gd.versions.producer = int_of(versions.data["producer"])
        gd.versions.min_consumer = int_of(versions.data["min_consumer"])
    try:
        # @main's arguments feed their Placeholder ops; a bare argument becomes a Placeholder
        for i, a in enumerate(main.body.block.args):
            if not any(isinstance(u.operation, Operation) and u.operation.name == "tf.Placeholder"
                       for u in a.uses):
                raise CompileError(f"{filename}: error: argument {i} of @main feeds no tf.Placeholder")
        _graph_nodes(tf, main, gd.node, [f"__arg{i}" for i in range(len(main.body.block.args))], False)
        for f in funcs:
            if f is not main:
                gd.library.function.add().CopyFrom(_function_def(tf, f))
    except (ValueError, KeyError) as e:
        raise CompileError(f"{filename}: error: cannot export: {e}") from None
    return gd


_ = BlockArgument


def graphdef_of_tf_mlir(path: str, why: str) -> tuple[Any, list[str] | None]:
    """(GraphDef, @main's output names from its `tf.entry_function`, else None) of a tf-level
    `.mlir` file, for what needs TensorFlow's shape inference on new input shapes (`why`: the
    option, e.g. "--input_shape with a range"): the importer then runs on it as on a .pb.
    IR below the tf level is one error."""
    from compiler.ir.entry import ENTRY_ATTR, io_names
    from compiler.ir.ir_io import load_module

    module, _ = load_module(path)
    main = next((f for f in module.ops if isinstance(f, FuncOp) and f.sym_name.data == "main"), None)
    low = next((op for op in (main.body.walk() if main is not None else ())
                if op.dialect_name() in ("cann", "kernel")), None)
    if low is not None:
        raise CompileError(f"{path}: error: {why} needs tf-level IR (shape inference reruns on "
                           f"the new shapes); this IR is at the {low.dialect_name()} level")
    outs = io_names(main)[1] if main is not None and ENTRY_ATTR in main.attributes else None
    return export_graphdef(module, path), outs

