"""Shape arithmetic on `?` dimensions at the tf level (issue 16: symbolic shapes).

A graph imported with a dynamic (ranged) input dimension keeps TensorFlow's `?` in the types.
Keras computes some reshape targets at run time from the tensor's own shape: Dense on a 3-D
input is Tensordot, `Reshape(x, Pack(Prod(Gather(Shape(x), [0, 1])), Prod(Gather(Shape(x), [2]))))`.
TensorFlow's shape inference gives such a Reshape `?x?`, and no CANN operator takes a run-time
shape operand.  `refine_reshapes` evaluates those shape subgraphs symbolically: every `?` of a
`tf.Shape` operand is a symbol, and Gather / Prod / Pack / ConcatV2 / StridedSlice / Cast /
Identity on constants and symbols are computed as products of symbols.  A target with at most
one symbolic entry becomes a constant shape with -1 there (TensorFlow's and numpy's inferred
dimension), and the Reshape's result type gets every other dimension as a number.  `patch_graphdef` writes
the targets back as Const
nodes so that TensorFlow's shape inference (the importer's) propagates them; a target with two
or more symbolic entries cannot be written as one constant shape: it is left alone, and
legalization names the node.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

#: A symbolic integer: (constant factor, sorted symbol names); no symbols = a plain number.
Sym = tuple[int, tuple[str, ...]]


def _num(n: int) -> Sym:
    return (int(n), ())


def _mul(a: Sym, b: Sym) -> Sym:
    return (a[0] * b[0], tuple(sorted(a[1] + b[1])))


def _const_ints(v: SSAValue) -> list[int] | None:
    op = v.owner
    if not isinstance(op, Operation) or op.name != "tf.Const":
        return None
    value = op.properties.get("value", op.attributes.get("value"))
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return None
    t = value.type
    if not isinstance(t.element_type, IntegerType):
        return None
    dtype = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}.get(t.element_type.width.data)
    if dtype is None:
        return None
    data = np.frombuffer(value.data.data, dtype)
    return [int(x) for x in data]


def _int_attr(op: Operation, name: str, default: int = 0) -> int:
    a = op.properties.get(name, op.attributes.get(name))
    if isinstance(a, IntegerAttr):
        return int(a.value.data)
    return default


class _Eval:
    """Symbolic values of integer shape tensors: a list of Sym (rank 1) or one Sym (rank 0)."""

    def __init__(self):
        self.memo: dict[SSAValue, object] = {}

    def __call__(self, v: SSAValue):
        if v not in self.memo:
            self.memo[v] = self._eval(v)
        return self.memo[v]

    def _eval(self, v: SSAValue):
        op = v.owner
        if not isinstance(op, Operation):
            return None
        name = op.name
        consts = _const_ints(v)
        if consts is not None:
            t = v.type
            scalar = isinstance(t, TensorType) and not t.get_shape()
            return _num(consts[0]) if scalar else [_num(c) for c in consts]
        if name == "tf.Shape":
            t = op.operands[0].type
            if not isinstance(t, TensorType):
                return None
            tag = f"%{id(op.operands[0]):x}"
            return [_num(d) if d >= 0 else (1, (f"{tag}.{i}",)) for i, d in enumerate(t.get_shape())]
        if name in ("tf.Identity", "tf.Cast"):
            return self(op.operands[0])
        if name == "tf.GatherV2":
            params, idx, axis = (self(o) for o in op.operands[:3])
            if not isinstance(params, list) or idx is None or axis != _num(0):
                return None
            if isinstance(idx, tuple):
                return params[idx[0]] if not idx[1] and -len(params) <= idx[0] < len(params) else None
            if any(i[1] or not -len(params) <= i[0] < len(params) for i in idx):
                return None
            return [params[i[0]] for i in idx]
        if name == "tf.Prod":
            vals, axes = self(op.operands[0]), self(op.operands[1])
            if not isinstance(vals, list) or axes not in ([_num(0)], _num(0)):
                return None
            kd = op.properties.get("keep_dims", op.attributes.get("keep_dims"))
            if isinstance(kd, IntegerAttr) and kd.value.data:
                return None
            out = _num(1)
            for x in vals:
                out = _mul(out, x)
            return out
        if name == "tf.Pack":
            if _int_attr(op, "axis") != 0:
                return None
            items = [self(o) for o in op.operands]
            return items if all(isinstance(i, tuple) for i in items) else None
        if name == "tf.ConcatV2":
            *parts, axis = [self(o) for o in op.operands]
            if axis not in (_num(0), _num(-1)) or not all(isinstance(p, list) for p in parts):
                return None
            return [x for p in parts for x in p]
        if name == "tf.StridedSlice":
            vals = self(op.operands[0])
            b, e, s = (self(o) for o in op.operands[1:4])
            if not isinstance(vals, list) or not all(isinstance(x, list) and len(x) == 1 and not x[0][1]
                                                     for x in (b, e, s)):
                return None
            if any(_int_attr(op, m) for m in ("ellipsis_mask", "new_axis_mask")):
                return None
            begin, end, stride = b[0][0], e[0][0], s[0][0]
            if _int_attr(op, "shrink_axis_mask") & 1:
                return vals[begin] if -len(vals) <= begin < len(vals) else None
            sl = slice(None if _int_attr(op, "begin_mask") & 1 else begin,
                       None if _int_attr(op, "end_mask") & 1 else end, stride)
            return vals[sl]
        return None


def reshape_targets(module: ModuleOp) -> dict[str, list[int]]:
    """Node name -> the constant shape (one -1 at most) of each tf.Reshape whose shape operand is
    computed from shapes and has at most one symbolic entry."""
    from compiler.ir.diagnostics import node_name

    out: dict[str, list[int]] = {}
    ev = _Eval()
    for op in module.walk():
        if op.name != "tf.Reshape" or len(op.operands) != 2 or _const_ints(op.operands[1]) is not None:
            continue
        target = ev(op.operands[1])
        if not isinstance(target, list) or sum(1 for d in target if d[1]) > 1:
            continue
        if any(d[0] < 0 for d in target if not d[1]):  # a -1 in the graph's own constants
            continue
        name = node_name(op)
        if name:
            out[name] = [-1 if d[1] else d[0] for d in target]
    return out


def patch_graphdef(graph_def, targets: dict[str, list[int]]) -> None:
    """Each named Reshape reads a new Const `<name>/symbolic_shape` holding its target; the
    importer's TensorFlow shape inference then propagates the refined shapes downstream."""
    from compiler.frontend.tf_loader import tensorflow

    tf = tensorflow()
    nodes = {n.name: n for n in graph_def.node}
    for name, dims in targets.items():
        node = nodes[name]
        const = graph_def.node.add()
        const.name = f"{name}/symbolic_shape"
        const.op = "Const"
        tshape = node.attr["Tshape"].type if "Tshape" in node.attr else tf.int32.as_datatype_enum
        const.attr["dtype"].type = tshape
        const.attr["value"].tensor.CopyFrom(
            tf.make_tensor_proto(np.asarray(dims, tf.dtypes.as_dtype(tshape).as_numpy_dtype)))
        node.input[1] = const.name


_SHAPE_OPS = ("tf.Shape", "tf.GatherV2", "tf.Prod", "tf.Pack", "tf.ConcatV2", "tf.StridedSlice")


def erase_dead_shape_ops(module: ModuleOp) -> None:
    """Erase the integer shape computations nothing reads any more."""
    again = True
    while again:
        again = False
        for op in list(module.walk()):
            if op.name in _SHAPE_OPS and all(not r.uses for r in op.results) and \
                    all(isinstance(r.type, TensorType) and "i" in str(r.type.element_type)
                        for r in op.results):
                op.detach()
                op.erase()
                again = True
