"""THE mapping table from TensorFlow ops to the CANN operator library (cann-facts.md section 4).

This is the one place to edit to support a new TF op (docs/extending.md).  `patterns.py` beside it
is only the engine that applies it.  A row is a `Rule`:

    Rule("MatMul", "MatMulV2", one_to_one(cann.MatMulV2Op, operands=(0, 1), props={
        "transpose_x1": flag("transpose_a"), "transpose_x2": flag("transpose_b")}))

* the TF op type, as TensorFlow spells it (`tf.MatMul` in the IR);
* the CANN op it becomes (a name of `CANN_DTYPES`: its dtype rule is checked on the node's
  `dtype_operand` before anything is built, "MatMulV2 supports float16, float32, bfloat16; got
  float64");
* a builder `(node: TfNode, b: Builder) -> list of result values`, made declaratively with
  `one_to_one(...)` and the attribute converters below, or a Python function for a
  decomposition (one TF op -> several CANN ops, e.g. Einsum, Erfc, Pack);
* `forward=True` rows (Identity, StopGradient, ...) replace the op by its operands.

TF ops are read generically: `TfNode` gives the op type, the node name (from the location),
operands by index, TF attributes by name (from properties or attributes, so typed and generic
tf ops both work) and constant operands as numpy arrays (`node.const(1, "perm")`), which is how
constant inputs become attributes (GE's ConstToAttrPass: TransposeD perm, ReduceMeanD axes,
PadD paddings, ConcatV2D concat_dim).  A builder raises `LegalizationError(why)` for a node it
cannot take; the engine reports every such node in one error.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    UnregisteredOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from compiler.ir.diagnostics import node_name
from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, shape_of
from compiler.target.conv_geometry import same_pads
from dialects import cann
from dialects.common import dense_from_numpy, int_array


class LegalizationError(Exception):
    """A node the table cannot lower as written (the message says why)."""


# --- dtype rules per CANN op (its kernel registrations) ------------------------------------------

F = ("f16", "f32", "bf16")
FI = ("f16", "f32", "bf16", "i32")
ARITH = ("f16", "f32", "bf16", "i8", "ui8", "i32", "i64")
ANY = ("f16", "f32", "bf16", "f64", "i1", "i8", "ui8", "i16", "i32", "i64")  # data movement

#: CANN op name -> element types its kernels accept.
CANN_DTYPES: dict[str, tuple[str, ...]] = {
    "Conv2D": F, "DepthwiseConv2D": F, "BiasAdd": ("f16", "f32", "bf16", "i32"),
    "Relu": ("f16", "f32", "bf16", "i8", "i32"),
    "Relu6": FI, "Sigmoid": F, "Tanh": F, "Elu": F, "LeakyRelu": F, "Gelu": F, "FastGelu": F,
    "Neg": ("f16", "f32", "bf16", "i8", "i32", "i64"), "Sqrt": F, "Rsqrt": F, "Square": FI,
    "Erf": F, "Erfc": F, "Exp": F, "Log": F, "Abs": ("f16", "f32", "bf16", "i32", "i64"),
    "Reciprocal": F, "Softplus": F, "Sin": F, "Cos": F,
    # not in cann-facts.md: the CANN op library's names (ops-math) of these elementwise ops
    "Floor": F, "Ceil": F, "Round": F, "Sign": ("f16", "f32", "bf16", "i32", "i64"), "Log1p": F,
    "Expm1": F, "Atan2": F, "FloorDiv": ARITH, "FloorMod": ("f16", "f32", "bf16", "i32", "i64"),
    "Add": ARITH, "Mul": ARITH, "Sub": ARITH, "RealDiv": F, "Maximum": ARITH, "Minimum": ARITH,
    "Pow": FI, "SquaredDifference": FI, "SelectV2": ANY, "InplaceUpdate": ANY,
    "MatMulV2": F, "BatchMatMulV2": F, "BNInfer": F, "LayerNorm": F, "SoftmaxV2": F,
    "MaxPool": F, "AvgPool": F,
    "ReduceMeanD": F, "ReduceSumD": FI, "ReduceMaxD": FI, "ReduceMinD": FI, "ReduceProdD": FI,
    "ReduceAllD": ("i1",), "ReduceAnyD": ("i1",),
    "TransposeD": ANY, "PadD": ANY, "ConcatV2D": ANY, "Cast": ANY, "GatherV2D": ANY,
    "StridedSliceD": ANY, "Reshape": ANY, "Const": ANY, "BroadcastToD": ANY,
    "Greater": ARITH, "GreaterEqual": ARITH, "Less": ARITH, "LessEqual": ARITH,
    "Equal": ARITH + ("i1",), "NotEqual": ARITH + ("i1",), "LogicalAnd": ("i1",),
    "LogicalOr": ("i1",), "LogicalNot": ("i1",),
    "ResizeBilinearV2": F, "ResizeNearestNeighborV2": ("f16", "f32", "bf16", "i8", "ui8", "i32", "i64"),
    "SplitD": ANY, "SplitVD": ANY, "PadV2D": ARITH, "MirrorPad": ANY,
    # not in cann-facts.md: the types our scan kernel (compiler/conversions/cann_to_kernel/scan.py) computes
    "Cumsum": FI, "Cumprod": FI,
    # not in cann-facts.md: the types our top-k kernel (compiler/conversions/cann_to_kernel/topk.py) sorts
    "TopKV2": FI,
}
DTYPE_NAMES = {"f16": "float16", "f32": "float32", "bf16": "bfloat16", "f64": "float64",
               "i1": "bool", "i8": "int8", "ui8": "uint8", "i16": "int16", "i32": "int32",
               "i64": "int64"}


def dtype_name(element_type: Attribute | str) -> str:
    s = str(element_type)
    return DTYPE_NAMES.get(s, s)


_TYPE_STR: dict[Attribute, str] = {}


def _type_str(element_type: Attribute) -> str:
    # str() of an attribute runs the printer: cached per (immutable, hashable) element type
    s = _TYPE_STR.get(element_type)
    if s is None:
        s = _TYPE_STR[element_type] = str(element_type)
    return s


def check_dtype(cann_name: str, element_type: Attribute) -> None:
    allowed = CANN_DTYPES.get(cann_name)
    if allowed is None or _type_str(element_type) in allowed:
        return
    raise LegalizationError(f"{cann_name} supports {', '.join(dtype_name(a) for a in allowed)}; "
                            f"got {dtype_name(element_type)}")


# --- reading TF ops generically ------------------------------------------------------------------

def tf_op_type(op: Operation) -> str | None:
    """`MatMul` for a `tf.MatMul` op (typed, generic or unregistered); None for other dialects."""
    name = op.name
    if name.startswith("tf."):  # a typed tf op (UnregisteredOp.name is builtin.unregistered)
        return name[3:]
    if name == "builtin.unregistered" and isinstance(op, UnregisteredOp):
        name = op.op_name.data
        return name[3:] if name.startswith("tf.") else None
    return None


def tf_attributes(op: Operation) -> dict[str, Attribute]:
    """Every TF attribute of the op by TF name (properties and attributes, internal ones dropped)."""
    out = {k: v for k, v in op.attributes.items() if k != "op_name__" and not k.startswith("tf.")}
    out.update(op.properties)
    return out


_MISSING = object()


class TfNode:
    """One TF op read generically (what builders see)."""

    def __init__(self, op: Operation):
        self.op = op
        self.type = tf_op_type(op) or op.name
        self.name = node_name(op) or ""

    def __repr__(self) -> str:
        return f"TfNode({self.type} '{self.name}')"

    # operands and results
    def operand(self, i: int) -> SSAValue:
        if i >= len(self.op.operands):
            raise LegalizationError(f"expects at least {i + 1} inputs, got {len(self.op.operands)}")
        v = self.op.operands[i]
        if isinstance(v.type, UnrankedTensorType):  # the one rank check (generic ops' results)
            src = node_name(v.owner) if isinstance(v.owner, Operation) else None
            raise LegalizationError(f"input #{i} has unknown rank (tensor<*x...>)"
                                    + (f", from node '{src}'" if src else "")
                                    + "; CANN operators need ranked tensors")
        return v

    def operand_type(self, i: int) -> TensorType:
        t = self.operand(i).type
        if not isinstance(t, TensorType):
            raise LegalizationError(f"input #{i} must be a tensor, got {t}")
        return t

    def result_type(self, i: int = 0) -> TensorType:
        t = self.op.results[i].type
        if not isinstance(t, TensorType):
            raise LegalizationError(f"result #{i} must be a tensor, got {t}")
        return t

    def static_result_shape(self, i: int = 0) -> tuple[int, ...]:
        t = self.result_type(i)
        shape = tuple(t.get_shape())
        if any(d < 0 for d in shape):
            raise LegalizationError(f"needs a static result shape; got "
                                    f"{'x'.join('?' if d < 0 else str(d) for d in shape)}")
        return shape

    def rank(self, i: int = 0) -> int:
        return len(self.operand_type(i).get_shape())

    # attributes
    def attr(self, name: str, default: Any = _MISSING) -> Attribute | Any:
        a = self.op.properties.get(name)
        if a is None:
            a = self.op.attributes.get(name)
        if a is None:
            if default is _MISSING:
                raise LegalizationError(f"attribute '{name}' is missing")
            return default
        return a

    def flag(self, name: str, default: bool = False) -> bool:
        a = self.attr(name, None)
        if a is None:
            return default
        if isinstance(a, UnitAttr):
            return True
        if isinstance(a, IntegerAttr):
            return bool(a.value.data)
        if isinstance(a, StringAttr):
            return a.data.lower() == "true"
        raise LegalizationError(f"attribute '{name}' must be a bool, got {a}")

    def int(self, name: str, default: int | None = None) -> int:
        a = self.attr(name, None)
        if a is None:
            if default is None:
                raise LegalizationError(f"attribute '{name}' is missing")
            return default
        if isinstance(a, IntegerAttr):
            return int(a.value.data)
        raise LegalizationError(f"attribute '{name}' must be an integer, got {a}")

    def float(self, name: str, default: float | None = None) -> float:
        a = self.attr(name, None)
        if a is None:
            if default is None:
                raise LegalizationError(f"attribute '{name}' is missing")
            return default
        if isinstance(a, (FloatAttr, IntegerAttr)):
            return float(a.value.data)
        raise LegalizationError(f"attribute '{name}' must be a float, got {a}")

    def str(self, name: str, default: str | None = None) -> str:
        a = self.attr(name, None)
        if a is None:
            if default is None:
                raise LegalizationError(f"attribute '{name}' is missing")
            return default
        if isinstance(a, StringAttr):
            return a.data
        raise LegalizationError(f"attribute '{name}' must be a string, got {a}")

    def ints(self, name: builtins.str, default: Sequence[builtins.int] | None = None) -> list[builtins.int]:
        a = self.attr(name, None)
        if a is None:
            if default is None:
                raise LegalizationError(f"attribute '{name}' is missing")
            return list(default)
        if isinstance(a, DenseArrayBase):
            return [int(v) for v in a.get_values()]
        if isinstance(a, ArrayAttr):
            return [int(v.value.data) for v in a.data]
        raise LegalizationError(f"attribute '{name}' must be a list of integers, got {a}")

    # constant operands -> attributes
    def const(self, i: builtins.int, what: builtins.str) -> np.ndarray:
        """Operand i as a numpy array: it must be a constant (or computed from constants)."""
        from compiler.interpreters.constant_eval import constant_value

        v = constant_value(self.operand(i))
        if v is None:
            raise LegalizationError(f"input {i} ({what}) must be a constant")
        return v

    def const_ints(self, i: builtins.int, what: builtins.str) -> list[builtins.int]:
        return [int(v) for v in np.asarray(self.const(i, what)).reshape(-1)]


_OpT = TypeVar("_OpT", bound=Operation)


class Builder:
    """Collects the CANN ops a builder creates, each located at the TF node."""

    def __init__(self, node: TfNode):
        self.node = node
        self.ops: list[Operation] = []

    def add(self, op: _OpT) -> _OpT:
        with_loc(op, self.node.op)
        self.ops.append(op)
        return op

    def create(self, cls: type[IRDLOperation], operands: Sequence[SSAValue | Sequence[SSAValue]],
               result_type: Attribute, **props: Attribute) -> SSAValue:
        operands = list(operands)
        plain = [v for v in operands if isinstance(v, SSAValue)]
        if (len(operands) == _plain_arity(cls) and len(plain) == len(operands)
                and all(v is not None for v in props.values())):
            # what the IRDL builder would do, without its generic argument handling
            return self.add(cls.create(operands=plain, result_types=[result_type],
                                       properties=props)).results[0]
        return self.add(cls(operands=operands, result_types=[result_type],
                            properties=props)).results[0]

    def const(self, array: np.ndarray) -> SSAValue:
        return self.add(_const_op(dense_from_numpy(np.asarray(array)))).results[0]

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        shape = [int(d) for d in shape]
        if shape_of(x) == tuple(shape):
            return x
        return self.create(cann.ReshapeOp, [x], TensorType(elem_of(x), shape),
                           shape=int_array([-1 if d < 0 else d for d in shape]))

    def transpose(self, x: SSAValue, perm: Sequence[int]) -> SSAValue:
        perm = [int(p) for p in perm]
        if perm == sorted(perm):
            return x
        xs = shape_of(x)
        return self.create(cann.TransposeDOp, [x],
                           TensorType(elem_of(x), [xs[p] for p in perm]),
                           perm=int_array(perm))


_PLAIN_ARITY: dict[type, int | None] = {}


def _plain_arity(cls: type[Operation]) -> int | None:
    """The operand count of an op class whose IRDL builder only passes its arguments through
    (the default __init__, single operands, one single result, no segments, regions or
    successors): `cls.create` then builds the very same op.  None for any other class."""
    try:
        return _PLAIN_ARITY[cls]
    except KeyError:
        pass
    from xdsl.irdl import IRDLOperation
    from xdsl.irdl.operations import AttrSizedSegments, OperandDef, ResultDef, SameVariadicSize

    n = None
    if issubclass(cls, IRDLOperation) and cls.__init__ is IRDLOperation.__init__:
        d = cls.get_irdl_definition()
        if (not any(isinstance(o, (AttrSizedSegments, SameVariadicSize)) for o in d.options)
                and not d.regions and not d.successors and len(d.results) == 1
                and type(d.results[0][1]) is ResultDef
                and all(type(od) is OperandDef for _, od in d.operands)):
            n = len(d.operands)
    _PLAIN_ARITY[cls] = n
    return n


def _const_op(value: DenseIntOrFPElementsAttr) -> Operation:
    """`cann.ConstOp(value)` (no operands, one property, result type = the value's type),
    without the IRDL builder's generic argument handling."""
    return cann.ConstOp.create(properties={"value": value}, result_types=[value.type])


# --- attribute converters (node -> CANN attribute) -----------------------------------------------

Converter = Callable[[TfNode], Attribute]


def copy(name: str, default: Attribute | None = None) -> Converter:
    """The TF attribute as it is (e.g. data_format)."""
    return lambda n: n.attr(name, default) if default is not None else n.attr(name)


_BOOLS = {False: IntegerAttr(0, 1), True: IntegerAttr(1, 1)}  # immutable: built once


def flag(name: str, default: bool = False) -> Converter:
    """A TF bool -> a CANN bool (transpose_a -> transpose_x1, adj_x -> adj_x1)."""
    return lambda n: _BOOLS[n.flag(name, default)]


def f32_attr(name: str, default: float) -> Converter:
    """A TF float -> an f32 attribute (LeakyRelu alpha -> negative_slope)."""
    return lambda n: FloatAttr(n.float(name, default), f32)


def ints_attr(name: str, default: Sequence[int] | None = None) -> Converter:
    return lambda n: int_array(n.ints(name, default))


def const_ints(i: int, what: str) -> Converter:
    """A constant input -> an i64 array attribute (TransposeD perm, ReduceMeanD axes)."""
    return lambda n: int_array(n.const_ints(i, what))


def const_int(i: int, what: str) -> Converter:
    """A constant scalar input -> an i64 attribute (ConcatV2D concat_dim, GatherV2D axis)."""
    def conv(n: TfNode) -> Attribute:
        v = n.const_ints(i, what)
        if len(v) != 1:
            raise LegalizationError(f"input {i} ({what}) must be a scalar")
        return IntegerAttr(v[0], i64)
    return conv


def fixed(value: Attribute) -> Converter:
    return lambda n: value


def result_shape(n: TfNode) -> Attribute:
    """Reshape's shape from the result type that shape inference gave the node; one `?` (a
    ranged input's dimension) is the inferred -1 (compiler/frontend/symbolic_shapes.py)."""
    shape = tuple(n.result_type().get_shape())
    if sum(d < 0 for d in shape) == 1:
        return int_array([-1 if d < 0 else d for d in shape])
    return int_array(n.static_result_shape())


def conv_pads(n: TfNode) -> Attribute:
    """SAME/VALID/EXPLICIT -> pads [top, bottom, left, right] (GetPadConv2D, conv_geometry)."""
    fmt = n.str("data_format", "NHWC")
    h_ax, w_ax = (1, 2) if fmt == "NHWC" else (2, 3)
    padding = n.str("padding")
    if padding == "VALID":
        return int_array([0, 0, 0, 0])
    if padding == "EXPLICIT":
        e = n.ints("explicit_paddings")
        return int_array([e[2 * h_ax], e[2 * h_ax + 1], e[2 * w_ax], e[2 * w_ax + 1]])
    if padding != "SAME":
        raise LegalizationError(f"unknown padding '{padding}'")
    xs = n.operand_type(0).get_shape()
    ks = n.operand_type(1).get_shape()
    s, d = n.ints("strides", [1, 1, 1, 1]), n.ints("dilations", [1, 1, 1, 1])
    if (xs[h_ax] < 0 and s[h_ax] != 1) or (xs[w_ax] < 0 and s[w_ax] != 1):
        # with stride 1 the SAME pads do not depend on the size (size % 1 == 0): a ranged
        # (?) spatial dimension is fine; with a larger stride they do
        raise LegalizationError("SAME padding with a stride > 1 needs static spatial dimensions; "
                                f"got {'x'.join('?' if v < 0 else str(v) for v in xs)}")
    top, bottom = same_pads(xs[h_ax], ks[0], s[h_ax], d[h_ax])
    left, right = same_pads(xs[w_ax], ks[1], s[w_ax], d[w_ax])
    return int_array([top, bottom, left, right])


def pad_pairs(n: TfNode) -> Attribute:
    p = np.asarray(n.const(1, "paddings")).reshape(-1, 2)
    return int_array([int(v) for v in p.reshape(-1)])


# --- builders -----------------------------------------------------------------------------------

BuildFn = Callable[[TfNode, Builder], Sequence[SSAValue]]


def one_to_one(cls: type[IRDLOperation], operands: Sequence[int] | None = None,
               props: dict[str, Converter] | None = None, optional: Sequence[int] = ()) -> BuildFn:
    """The TF op becomes one CANN op: operands by index (default: all), properties converted.
    `optional` lists operand positions given as an empty list (an absent optional operand)."""
    props = props or {}

    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        idx = range(len(node.op.operands)) if operands is None else operands
        ops: list[Any] = [node.operand(i) for i in idx]
        for _ in optional:
            ops.append([])
        values = {k: conv(node) for k, conv in props.items()}
        return [b.create(cls, ops, node.result_type(), **values)]

    return build


def _const(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    value = node.attr("value")
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise LegalizationError(f"value {value} is not a dense numeric constant")
    return [b.add(_const_op(value)).results[0]]


def _reshape(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    x = node.operand(0)
    return [b.create(cann.ReshapeOp, [x], node.result_type(), shape=result_shape(node))]


def _shape(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Shape of a statically shaped tensor is a constant."""
    shape = tuple(node.operand_type(0).get_shape())
    if any(d < 0 for d in shape):  # resolved at dispatch (compiler/transforms/resolve_shapes.py)
        return [b.create(cann.ShapeOp, [node.operand(0)], node.result_type())]
    from dialects.common import numpy_dtype

    dtype = numpy_dtype(node.result_type().element_type)
    return [b.const(np.asarray(shape, dtype=dtype))]


def _fused_batch_norm(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    if node.flag("is_training", True):
        raise LegalizationError("only inference batch norm (is_training = false) is supported")
    for r in node.op.results[1:]:
        if r.uses:
            raise LegalizationError("BN side outputs (mean/variance) must be unused")
    y = b.create(cann.BNInferOp, [node.operand(i) for i in range(5)], node.result_type(),
                 epsilon=FloatAttr(node.float("epsilon", 1e-4), f32),
                 data_format=StringAttr(node.str("data_format", "NHWC")))
    return [y] + [y] * 0  # side results are unused: the engine drops them


def _softmax(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    return [b.create(cann.SoftmaxV2Op, [node.operand(0)], node.result_type(),
                     axes=int_array([-1]))]


def _erfc(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    return [b.create(cann.ErfcOp, [node.operand(0)], node.result_type())]


def _scalar(b: Builder, value: float, like: SSAValue) -> SSAValue:
    """A constant of `like`'s element type, shaped [1] * rank (it broadcasts against `like`)."""
    from dialects.common import numpy_dtype

    return b.const(np.full([1] * len(shape_of(like)), value, numpy_dtype(elem_of(like))))


def _same(b: Builder, cls: type[IRDLOperation], operands: Sequence[SSAValue], like: SSAValue,
          elem: Attribute | None = None, **props: Attribute) -> SSAValue:
    """A cann op whose result has `like`'s shape (and element type, or `elem`)."""
    return b.create(cls, list(operands), TensorType(elem or elem_of(like), shape_of(like)), **props)


def _softsign(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Softsign(x) = x / (1 + |x|)."""
    x = node.operand(0)
    d = _same(b, cann.AddOp, [_same(b, cann.AbsOp, [x], x), _scalar(b, 1.0, x)], x)
    return [b.create(cann.RealDivOp, [x, d], node.result_type())]


#: SELU's constants (Klambauer et al. 2017; TF's selu kernel)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Selu(x) = scale * Elu(x; alpha): scale * (x > 0 ? x : alpha * (exp(x) - 1))."""
    x = node.operand(0)
    e = _same(b, cann.EluOp, [x], x, alpha=FloatAttr(SELU_ALPHA, f32))
    return [b.create(cann.MulOp, [e, _scalar(b, SELU_SCALE, x)], node.result_type())]


def _lrn(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """LRN(x [N, H, W, C]; depth_radius r, bias, alpha, beta) = x * (bias + alpha * s)^-beta,
    s the sum of x^2 over the channel window [c - r, c + r] (TensorFlow's definition):
    Square, the window sum as a MatMulV2 of the [N*H*W, C] rows by the constant [C, C] band
    |i - j| <= r, Mul + Add, Pow, Mul."""
    from dialects.common import numpy_dtype

    x = node.operand(0)
    xs = _static_shape(node, 0, "input")
    if len(xs) != 4:
        raise LegalizationError(f"input must be 4-D (NHWC), got rank {len(xs)}")
    r = node.int("depth_radius", 5)
    if r < 0:
        raise LegalizationError(f"depth_radius must be non-negative, got {r}")
    c = xs[-1]
    dt = numpy_dtype(elem_of(x))
    band = np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]) <= r
    sq = _same(b, cann.SquareOp, [x], x)
    rows = b.reshape(sq, [int(np.prod(xs[:-1])), c])
    s = b.create(cann.MatMulV2Op, [rows, b.const(band.astype(dt)), []],
                 TensorType(elem_of(x), shape_of(rows)),
                 transpose_x1=IntegerAttr(0, 1), transpose_x2=IntegerAttr(0, 1))
    s = b.reshape(s, xs)
    d = _same(b, cann.AddOp, [_same(b, cann.MulOp, [s, _scalar(b, node.float("alpha", 1.0), x)], x),
                              _scalar(b, node.float("bias", 1.0), x)], x)
    p = _same(b, cann.PowOp, [d, _scalar(b, -node.float("beta", 0.5), x)], x)
    return [b.create(cann.MulOp, [x, p], node.result_type())]


def _div_no_nan(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """DivNoNan(x, y) = y == 0 ? 0 : x / y."""
    x, y = node.operand(0), node.operand(1)
    rt = node.result_type()
    zero = _scalar(b, 0.0, y)
    is0 = b.create(cann.EqualOp, [y, zero], TensorType(i1, shape_of(y)))
    q = b.create(cann.RealDivOp, [x, y], rt)
    return [b.create(cann.SelectV2Op, [is0, _scalar(b, 0.0, q), q], rt)]


def _log_softmax(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """LogSoftmax(x) on the last axis = (x - max) - log(sum(exp(x - max)))."""
    x = node.operand(0)
    xs = list(shape_of(x))
    if not xs:
        raise LegalizationError("logits must have rank at least 1")
    kept = TensorType(elem_of(x), xs[:-1] + [1])
    props = {"axes": int_array([len(xs) - 1]), "keep_dims": IntegerAttr(1, 1)}
    m = b.create(cann.ReduceMaxDOp, [x], kept, **props)
    z = _same(b, cann.SubOp, [x, m], x)
    s = b.create(cann.ReduceSumDOp, [_same(b, cann.ExpOp, [z], x)], kept, **props)
    return [b.create(cann.SubOp, [z, b.create(cann.LogOp, [s], kept)], node.result_type())]


def _clip_by_value(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """ClipByValue(t, lo, hi) = Minimum(Maximum(t, lo), hi)."""
    rt = node.result_type()
    lo = b.create(cann.MaximumOp, [node.operand(0), node.operand(1)], rt)
    return [b.create(cann.MinimumOp, [lo, node.operand(2)], rt)]


def _float_predicate(kind: str) -> BuildFn:
    """IsNan = x != x; IsInf = |x| == inf; IsFinite = |x| < inf (false for NaN)."""
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        x = node.operand(0)
        rt = node.result_type()
        if kind == "IsNan":
            return [b.create(cann.NotEqualOp, [x, x], rt)]
        a = _same(b, cann.AbsOp, [x], x)
        cls = cann.EqualOp if kind == "IsInf" else cann.LessOp
        return [b.create(cls, [a, _scalar(b, np.inf, x)], rt)]
    return build


def _fill_like(value: float) -> BuildFn:
    """ZerosLike / OnesLike: a constant of x's static shape (x itself is not read)."""
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        return _folded(node, b, np.full(node.static_result_shape(), value))
    return build


def _rank(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    return _folded(node, b, np.asarray(node.rank(0)))


def _size(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    return _folded(node, b, np.asarray(int(np.prod(_static_shape(node, 0, "Size")))))


def _unpack(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Unpack(value, axis, num) = SplitD into num parts on axis, each reshaped (axis dropped)."""
    x = node.operand(0)
    xs = list(shape_of(x))
    if not xs:
        raise LegalizationError("cannot unpack a scalar")
    axis = node.int("axis", 0)
    if not -len(xs) <= axis < len(xs):
        raise LegalizationError(f"axis {axis} is out of range for rank {len(xs)}")
    axis %= len(xs)
    n = len(node.op.results)
    if xs[axis] != n:
        raise LegalizationError(f"dimension {axis} has size {xs[axis]}, num is {n}")
    part = TensorType(elem_of(x), xs[:axis] + [1] + xs[axis + 1:])
    if n == 1:
        parts = [x]
    else:
        op = b.add(cann.SplitDOp(operands=[x], result_types=[[part] * n],
                                 properties={"split_dim": IntegerAttr(axis, i64),
                                             "num_split": IntegerAttr(n, i64)}))
        parts = list(op.results)
    return [b.reshape(p, node.result_type(i).get_shape()) for i, p in enumerate(parts)]


def _one_hot(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """OneHot(indices, depth, on, off; axis) = SelectV2(Equal(indices, 0..depth-1), on, off),
    the indices expanded on `axis`; an index outside [0, depth) gives all off values, as TF."""
    idx = node.operand(0)
    ish = list(shape_of(idx))
    depth = node.const_ints(1, "depth")
    if len(depth) != 1 or depth[0] < 0:
        raise LegalizationError("input 1 (depth) must be a non-negative scalar")
    axis = node.int("axis", -1)
    if not -1 <= axis <= len(ish):
        raise LegalizationError(f"axis {axis} is out of range for indices of rank {len(ish)}")
    axis = len(ish) if axis == -1 else axis
    from dialects.common import numpy_dtype

    rt = node.result_type()
    dt = numpy_dtype(elem_of(idx))
    rng = [1] * (len(ish) + 1)
    rng[axis] = depth[0]
    pos = b.const(np.arange(depth[0], dtype=dt).reshape(rng))
    ex = b.reshape(idx, ish[:axis] + [1] + ish[axis:])
    hit = b.create(cann.EqualOp, [ex, pos], TensorType(i1, rt.get_shape()))
    on, off = (b.reshape(node.operand(i), [1] * len(rng)) for i in (2, 3))
    return [b.create(cann.SelectV2Op, [hit, on, off], rt)]


def _arg_reduce(tf_name: str) -> BuildFn:
    """ArgMax / ArgMin(x, axis) as reductions with an index, from existing cann ops: the first
    position of the extreme value (TF's choice on ties) is
    ReduceMinD(SelectV2(Equal(x, ReduceMaxD / ReduceMinD(x)), 0..n-1, n)) on int32, Cast to
    the output type (int64) if needed."""
    find = cann.ReduceMaxDOp if tf_name == "ArgMax" else cann.ReduceMinDOp

    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        x = node.operand(0)
        xs = list(shape_of(x))
        if not xs:
            raise LegalizationError("input must have rank at least 1")
        axis = _axis(node, 1, len(xs))
        n = xs[axis]
        if n < 0:
            raise LegalizationError(f"needs a static dimension {axis}")
        kept = xs[:axis] + [1] + xs[axis + 1:]
        props = {"axes": int_array([axis]), "keep_dims": IntegerAttr(1, 1)}
        m = b.create(find, [x], TensorType(elem_of(x), kept), **props)
        hit = b.create(cann.EqualOp, [x, m], TensorType(i1, xs))
        pos = [1] * len(xs)
        pos[axis] = n
        idx = b.const(np.arange(n, dtype=np.int32).reshape(pos))
        none = b.const(np.full([1] * len(xs), n, np.int32))
        at = b.create(cann.SelectV2Op, [hit, idx, none], TensorType(i32, xs))
        rt = node.result_type()
        first = b.create(cann.ReduceMinDOp, [at], TensorType(i32, rt.get_shape()),
                         axes=int_array([axis]), keep_dims=IntegerAttr(0, 1))
        if rt.element_type == i32:
            return [first]
        return [b.create(cann.CastOp, [first], rt, dst_type=rt.element_type)]
    return build


def _reduce_axes(node: TfNode) -> list[int]:
    """A TF reduction's `reduction_indices`, checked and normalized (sorted, non-negative)."""
    axes = node.const_ints(1, "reduction_indices")
    rank = node.rank(0)
    if any(not -rank <= a < max(rank, 1) for a in axes):
        raise LegalizationError(f"axes {axes} are out of range for rank {rank}")
    return sorted({a % rank for a in axes}) if rank else []


def _reduce(cls: type[IRDLOperation]) -> BuildFn:
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        axes = _reduce_axes(node)
        if not axes and node.operand_type(0) == node.result_type():
            return [node.operand(0)]  # over no axes: the input (Keras RNNs' max_iterations)
        return [b.create(cls, [node.operand(0)], node.result_type(), axes=int_array(axes),
                         keep_dims=IntegerAttr(int(node.flag("keep_dims")), 1))]
    return build


def _bool_reduce(cls: type[IRDLOperation]) -> BuildFn:
    """All / Any (CANN's ReduceAllD / ReduceAnyD) as the min / max of the booleans as int32:
    Cast, ReduceMinD / ReduceMaxD, Cast back (the reductions' kernels take int32)."""
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        axes = _reduce_axes(node)
        if not axes and node.operand_type(0) == node.result_type():
            return [node.operand(0)]
        rt = node.result_type()
        x = b.create(cann.CastOp, [node.operand(0)],
                     TensorType(i32, node.operand_type(0).get_shape()), dst_type=i32)
        y = b.create(cls, [x], TensorType(i32, rt.get_shape()), axes=int_array(axes),
                     keep_dims=IntegerAttr(int(node.flag("keep_dims")), 1))
        return [b.create(cann.CastOp, [y], rt, dst_type=rt.element_type)]
    return build


def _concat(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    n_in = len(node.op.operands) - 1
    axis = node.const_ints(n_in, "axis")
    if len(axis) != 1:
        raise LegalizationError("the concat axis must be a scalar")
    rank = node.rank(0)
    return [b.create(cann.ConcatV2DOp, [[node.operand(i) for i in range(n_in)]],
                     node.result_type(), concat_dim=IntegerAttr(axis[0] % rank, i64),
                     N=IntegerAttr(n_in, i64))]


def _pack(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Pack(values, axis) = ConcatV2D of the values each expanded on `axis`."""
    out = node.static_result_shape()
    axis = node.int("axis", 0) % len(out)
    parts = []
    for i in range(len(node.op.operands)):
        s = list(node.operand_type(i).get_shape())
        s.insert(axis, 1)
        parts.append(b.reshape(node.operand(i), s))
    if len(parts) == 1:
        return [parts[0]]
    return [b.create(cann.ConcatV2DOp, [parts], node.result_type(),
                     concat_dim=IntegerAttr(axis, i64), N=IntegerAttr(len(parts), i64))]


def _strided_slice(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    props: dict[str, Attribute] = {k: int_array(node.const_ints(i, k)) for i, k in
                                   ((1, "begin"), (2, "end"), (3, "strides"))}
    for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
        props[m] = IntegerAttr(node.int(m, 0), i64)
    return [b.create(cann.StridedSliceDOp, [node.operand(0)], node.result_type(), **props)]


def _cast(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    rt = node.result_type()
    return [b.create(cann.CastOp, [node.operand(0)], rt, dst_type=rt.element_type)]


def _einsum(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Two-operand Einsum -> TransposeD / Reshape / BatchMatMulV2 / Reshape / TransposeD.

    Labels in both inputs and the output are batch axes, in both inputs only are contracted,
    in one input and the output are that side's free axes.  Each input is transposed to
    (batch, free, contracted) / (batch, contracted, free) and flattened to 3-D; the product is
    reshaped back and transposed to the output's order.  Transposes and reshapes that would
    do nothing are not emitted."""
    eq = node.str("equation").replace(" ", "")
    if "->" not in eq or "." in eq:
        raise LegalizationError(f"Einsum '{eq}': only explicit equations without ellipsis")
    ins, out = eq.split("->")
    terms = ins.split(",")
    if len(terms) != 2 or len(node.op.operands) != 2:
        raise LegalizationError(f"Einsum '{eq}': only two-operand equations are supported")
    a_lab, b_lab = terms
    a, bv = node.operand(0), node.operand(1)
    a_shape, b_shape = list(shape_of(a)), list(shape_of(bv))
    if len(a_lab) != len(a_shape) or len(b_lab) != len(b_shape):
        raise LegalizationError(f"Einsum '{eq}': labels do not match the input ranks")
    for lab in (a_lab, b_lab, out):
        if len(set(lab)) != len(lab):
            raise LegalizationError(f"Einsum '{eq}': repeated labels (traces) are not supported")
    size = {**dict(zip(a_lab, a_shape)), **dict(zip(b_lab, b_shape))}
    batch = [c for c in out if c in a_lab and c in b_lab]
    contract = [c for c in a_lab if c in b_lab and c not in out]
    free_a = [c for c in a_lab if c not in b_lab and c in out]
    free_b = [c for c in b_lab if c not in a_lab and c in out]
    if set(a_lab) - set(batch + contract + free_a) or set(b_lab) - set(batch + contract + free_b):
        raise LegalizationError(f"Einsum '{eq}': labels summed in one input only are not supported")

    def prod(labels):  # a `?` label (a ranged input's dimension) makes the group `?` (-1)
        if any(size[c] < 0 for c in labels):
            return DYNAMIC_INDEX
        return int(np.prod([size[c] for c in labels])) if labels else 1

    at = b.transpose(a, [a_lab.index(c) for c in batch + free_a + contract])
    bt = b.transpose(bv, [b_lab.index(c) for c in batch + contract + free_b])
    bs = [size[c] for c in batch]
    m, k, n = prod(free_a), prod(contract), prod(free_b)
    def reshape(x, shape, groups):  # a constant reshape infers one `?` (-1) at most
        if all(len(g) == 1 for g in groups):
            return x  # one label per flattened group: x has the shape already
        if sum(d < 0 for d in shape) > 1:
            raise LegalizationError(f"Einsum '{eq}': reshaping to "
                                    f"{'x'.join('?' if d < 0 else str(d) for d in shape)} needs "
                                    "more than one dynamic (?) dimension inferred")
        return b.reshape(x, shape)

    a3 = reshape(at, [*bs, m, k], (free_a, contract))
    b3 = reshape(bt, [*bs, k, n], (contract, free_b))
    elt = elem_of(a)
    y = b.create(cann.BatchMatMulV2Op, [a3, b3, []], TensorType(elt, [*bs, m, n]),
                 adj_x1=IntegerAttr(0, 1), adj_x2=IntegerAttr(0, 1))
    natural = batch + free_a + free_b
    y = reshape(y, [size[c] for c in natural], (free_a, free_b))
    return [b.transpose(y, [natural.index(c) for c in out])]


def _select(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Select (TF1): the condition is a scalar, x's shape, or a vector over x's first axis
    (then reshaped to [n, 1, ...] so SelectV2's numpy broadcasting picks whole rows)."""
    c, x = node.operand(0), node.operand(1)
    cs, xs = list(shape_of(c)), list(shape_of(x))
    if len(cs) == 1 and len(xs) > 1:
        if cs[0] >= 0 and xs[0] >= 0 and cs[0] != xs[0]:
            raise LegalizationError(f"the condition's length {cs[0]} differs from x's first "
                                    f"dimension {xs[0]}")
        c = b.reshape(c, [cs[0]] + [1] * (len(xs) - 1))
    elif cs and len(cs) != len(xs):
        raise LegalizationError("the condition must be a scalar, have x's shape, or be a vector "
                                "over x's first dimension")
    return [b.create(cann.SelectV2Op, [c, x, node.operand(2)], node.result_type())]


def _compare(tf_name: str, cls: type[IRDLOperation]) -> Rule:
    return Rule(tf_name, cls.name.removeprefix("cann."), one_to_one(cls, (0, 1)))


def _pad_v2(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """PadV2 -> PadD when the constant is 0, else PadV2D(paddings, constant_values)."""
    value = np.asarray(node.const(2, "constant_values")).reshape(-1)
    if value.size != 1:
        raise LegalizationError("input 2 (constant_values) must be a scalar")
    if value[0] == 0:
        return [b.create(cann.PadDOp, [node.operand(0)], node.result_type(),
                         paddings=pad_pairs(node))]
    return [b.create(cann.PadV2DOp, [node.operand(0)], node.result_type(),
                     paddings=pad_pairs(node),
                     constant_values=FloatAttr(float(value[0]), f32))]


def _mirror_pad(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    mode = node.str("mode").upper()
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise LegalizationError(f"unknown mode '{mode}'")
    return [b.create(cann.MirrorPadOp, [node.operand(0)], node.result_type(),
                     paddings=pad_pairs(node), mode=StringAttr(mode))]


def _folded(node: TfNode, b: Builder, value: np.ndarray) -> Sequence[SSAValue]:
    from dialects.common import numpy_dtype

    rt = node.result_type()
    value = np.asarray(value).astype(numpy_dtype(rt.element_type))
    shape = tuple(rt.get_shape())
    if len(shape) != value.ndim or any(d >= 0 and d != v for d, v in zip(shape, value.shape)):
        raise LegalizationError(f"the value has shape {list(value.shape)}, the result type "
                                f"{rt}")
    return [b.const(value)]


def _static_result(node: TfNode, shape: Sequence[int]) -> TensorType:
    """The result type of a node whose constant inputs give its shape: the TF result's element
    type in `shape`, which must agree with the TF result's static dimensions."""
    rt = node.result_type()
    want = tuple(rt.get_shape())
    if len(want) != len(shape) or any(d >= 0 and d != v for d, v in zip(want, shape)):
        raise LegalizationError(f"the value has shape {list(shape)}, the result type {rt}")
    return TensorType(rt.element_type, [int(d) for d in shape])


def _fill(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Fill(dims, value) -> FillD(value; dims) with constant inputs (folded to a constant by
    fold-constants; a non-constant Fill has no kernel lowering)."""
    dims = node.const_ints(0, "dims")
    if np.asarray(node.const(1, "value")).size != 1:
        raise LegalizationError("input 1 (value) must be a scalar")
    return [b.create(cann.FillDOp, [node.operand(1)], _static_result(node, dims),
                     dims=int_array(dims))]


def _range(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Range(start, limit, delta) -> Range with constant inputs (folded to a constant by
    fold-constants; a non-constant Range has no kernel lowering)."""
    from dialects.cann.data_movement import range_length

    start, limit, delta = (np.asarray(node.const(i, w)).reshape(()).item() for i, w in
                           ((0, "start"), (1, "limit"), (2, "delta")))
    if delta == 0:
        raise LegalizationError("delta must be non-zero")
    n = range_length(start, limit, delta)
    return [b.create(cann.RangeOp, [node.operand(i) for i in range(3)],
                     _static_result(node, [n]))]


def _band_part(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """MatrixBandPart(x, num_lower, num_upper) -> MatrixBandPart with constant inputs (Keras 3's
    causal attention mask: band_part(ones, -1, 0)), folded to a constant by fold-constants; a
    non-constant one has no kernel lowering."""
    x = np.asarray(node.const(0, "input"))
    for i, w in ((1, "num_lower"), (2, "num_upper")):
        node.const(i, w)
    if x.ndim < 2:
        raise LegalizationError("input 0 must have rank at least 2")
    return [b.create(cann.MatrixBandPartOp, [node.operand(i) for i in range(3)],
                     _static_result(node, x.shape))]


def _axis(node: TfNode, i: int, rank: int) -> int:
    v = node.const_ints(i, "axis")
    if len(v) != 1:
        raise LegalizationError(f"input {i} (axis) must be a scalar")
    if not -rank <= v[0] < rank:
        raise LegalizationError(f"axis {v[0]} is out of range for rank {rank}")
    return v[0] % rank


def _scan(cls: type[IRDLOperation]) -> BuildFn:
    """Cumsum / Cumprod(x, axis; exclusive, reverse) -> Cumsum / Cumprod with the constant axis
    as an attribute; of a constant x (Keras 3's causal mask: cumsum(ones) on both axes) it is a
    constant."""
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        x = node.operand(0)
        axis = _axis(node, 1, len(shape_of(x)))
        return _folded_if_constant(node, b, lambda: b.create(
            cls, [x], node.result_type(), axis=IntegerAttr(axis, i64),
            exclusive=flag("exclusive")(node), reverse=flag("reverse")(node)))
    return build


def _top_k(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """TopKV2(input, k; sorted, index_type) -> TopKV2 along the last axis with the constant k as
    an attribute (largest); int32 indices, Cast to index_type when that is int16 / int64."""
    x = node.operand(0)
    xs = list(shape_of(x))
    if not xs:
        raise LegalizationError("input must have rank at least 1")
    n = xs[-1]
    if n < 0:
        raise LegalizationError("needs a static last dimension (the sorted rows)")
    k = node.const_ints(1, "k")
    if len(k) != 1:
        raise LegalizationError("input 1 (k) must be a scalar")
    if not 0 <= k[0] <= n:
        raise LegalizationError(f"k = {k[0]} is out of range [0, {n}] (the last dimension)")
    shape = xs[:-1] + k
    op = b.add(cann.TopKV2Op(
        operands=[x], result_types=[TensorType(elem_of(x), shape), TensorType(i32, shape)],
        properties={"k": IntegerAttr(k[0], i64), "sorted": IntegerAttr(int(node.flag("sorted", True)), 1),
                    "dim": IntegerAttr(-1, i64), "largest": IntegerAttr(1, 1)}))
    values: SSAValue = op.results[0]
    indices: SSAValue = op.results[1]
    it = node.result_type(1)
    if it.element_type != i32:
        indices = b.create(cann.CastOp, [indices], TensorType(it.element_type, shape),
                           dst_type=it.element_type)
    return [values, indices]


def _split(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Split(axis, value) -> SplitD(split_dim, num_split)."""
    x = node.operand(1)
    axis = _axis(node, 0, len(shape_of(x)))
    n = node.int("num_split", len(node.op.results))
    op = b.add(cann.SplitDOp(operands=[x], result_types=[[r.type for r in node.op.results]],
                             properties={"split_dim": IntegerAttr(axis, i64),
                                         "num_split": IntegerAttr(n, i64)}))
    return list(op.results)


def _split_v(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """SplitV(value, size_splits, axis) -> SplitVD(size_splits, split_dim, num_split); one -1
    size is resolved from the static dimension."""
    x = node.operand(0)
    xs = list(shape_of(x))
    axis = _axis(node, 2, len(xs))
    sizes = node.const_ints(1, "size_splits")
    if sizes.count(-1) > 1:
        raise LegalizationError("at most one size_splits value may be -1")
    if -1 in sizes:
        if xs[axis] < 0:
            raise LegalizationError("a -1 in size_splits needs a static split dimension")
        sizes[sizes.index(-1)] = xs[axis] - (sum(sizes) + 1)
    op = b.add(cann.SplitVDOp(operands=[x], result_types=[[r.type for r in node.op.results]],
                              properties={"size_splits": int_array(sizes),
                                          "split_dim": IntegerAttr(axis, i64),
                                          "num_split": IntegerAttr(len(sizes), i64)}))
    return list(op.results)


# --- broadcasting, tiling, slicing, space/batch moves, transposed and grouped convs --------------

def _static_shape(node: TfNode, i: int, what: str) -> list[int]:
    shape = [int(d) for d in node.operand_type(i).get_shape()]
    if any(d < 0 for d in shape):
        raise LegalizationError(f"{what} needs a static shape; got "
                                f"{'x'.join('?' if d < 0 else str(d) for d in shape)}")
    return shape


def _folded_if_constant(node: TfNode, b: Builder, build: Callable[[], SSAValue]
                        ) -> Sequence[SSAValue]:
    """The cann ops `build` adds to b for the node's input 0; when that input is a constant,
    their value instead, computed at compile time by the one constant evaluator
    (compiler/interpreters/constant_eval.py: the cann semantics `cann-run` executes) and
    emitted as a constant (GE's constant folding: no kernel launch)."""
    from compiler.interpreters.constant_eval import constant_value

    start = len(b.ops)
    y = build()
    memo: dict = {}
    if constant_value(node.operand(0), memo) is None:
        return [y]
    value = constant_value(y, memo, limit=None)  # stored either way: no size limit
    if value is None:
        return [y]
    built = b.ops[start:]
    del b.ops[start:]
    for op in reversed(built):  # (detached: erasing drops their uses of the input)
        op.erase()
    return _folded(node, b, value)


def _tensor_form(node: TfNode, b: Builder, cls, operands: Sequence[int]) -> Sequence[SSAValue] | None:
    """The tensor form of Slice / BroadcastTo (Ascend IR's, sizes as operands) when a size
    operand is no constant but is computed from the shapes of `?` tensors: resolved at dispatch
    (compiler/transforms/resolve_shapes.py).  None: the attribute form applies."""
    from compiler.interpreters.constant_eval import constant_value
    from compiler.transforms.resolve_shapes import shape_derived

    sizes = [node.operand(i) for i in operands[1:]]
    if all(constant_value(v) is not None for v in sizes) or \
            not all(constant_value(v) is not None or shape_derived(v) for v in sizes):
        return None
    return [b.create(cls, [node.operand(i) for i in operands], node.result_type())]


def broadcast_to(b: Builder, x: SSAValue, shape: Sequence[int]) -> SSAValue:
    shape = [int(d) for d in shape]
    if list(shape_of(x)) == shape:
        return x
    return b.create(cann.BroadcastToDOp, [x], TensorType(elem_of(x), shape),
                    shape=int_array(shape))


def _broadcast_to(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """BroadcastTo(x, shape) -> BroadcastToD(x; shape) once shape is constant (ConstToAttr); of a
    constant x it is a constant."""
    tensor_form = _tensor_form(node, b, cann.BroadcastToOp, (0, 1))
    if tensor_form is not None:
        return tensor_form
    shape = node.const_ints(1, "shape")
    xs = _static_shape(node, 0, "x")
    if len(xs) > len(shape) or any(d not in (1, s) for d, s in zip(reversed(xs), reversed(shape))):
        raise LegalizationError(f"x {xs} does not broadcast to {shape}")
    return _folded_if_constant(node, b, lambda: broadcast_to(b, node.operand(0), shape))


def _tile(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Tile(x, multiples) = Reshape(BroadcastToD(Reshape(x, [.., 1, d_i, ..]), [.., m_i, d_i, ..]),
    [.., m_i * d_i, ..]): each tiled axis gets a new outer axis of size 1 that is broadcast to its
    multiple (UpSampling2D's nearest repeat).  Of a constant x it is a constant."""
    xs = _static_shape(node, 0, "x")
    mult = node.const_ints(1, "multiples")
    if len(mult) != len(xs) or any(m < 0 for m in mult):
        raise LegalizationError(f"multiples {mult} must be {len(xs)} values >= 0")
    return _folded_if_constant(node, b, lambda: _tiled(b, node.operand(0), xs, mult))


def _tiled(b: Builder, x: SSAValue, xs: Sequence[int], mult: Sequence[int]) -> SSAValue:
    if all(m == 1 for m in mult):
        return x
    split: list[int] = []
    wide: list[int] = []
    for d, m in zip(xs, mult):
        if m == 1 or d == 1:
            split.append(d)
            wide.append(d * m)
        else:
            split += [1, d]
            wide += [m, d]
    y = broadcast_to(b, b.reshape(x, split), wide)
    return b.reshape(y, [d * m for d, m in zip(xs, mult)])


def strided_slice(b: Builder, x: SSAValue, begin, end, strides, shape, begin_mask: int = 0,
                  end_mask: int = 0) -> SSAValue:
    zero = IntegerAttr(0, i64)
    return b.create(cann.StridedSliceDOp, [x], TensorType(elem_of(x), list(shape)),
                    begin=int_array(list(begin)), end=int_array(list(end)),
                    strides=int_array(list(strides)), begin_mask=IntegerAttr(begin_mask, i64),
                    end_mask=IntegerAttr(end_mask, i64), ellipsis_mask=zero, new_axis_mask=zero,
                    shrink_axis_mask=zero)


def _slice(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Slice(x, begin, size) -> StridedSliceD(begin, begin + size, strides 1); size -1 runs to
    the end of the axis."""
    tensor_form = _tensor_form(node, b, cann.SliceOp, (0, 1, 2))
    if tensor_form is not None:
        return tensor_form
    xs = _static_shape(node, 0, "x")
    begin, size = node.const_ints(1, "begin"), node.const_ints(2, "size")
    if len(begin) != len(xs) or len(size) != len(xs):
        raise LegalizationError(f"begin and size must have {len(xs)} values")
    end = [d if n == -1 else o + n for o, n, d in zip(begin, size, xs)]
    if any(not 0 <= o <= e <= d for o, e, d in zip(begin, end, xs)):
        raise LegalizationError(f"begin {begin} / size {size} are out of range for {xs}")
    if begin == [0] * len(xs) and end == xs:
        return [node.operand(0)]
    return [strided_slice(b, node.operand(0), begin, end, [1] * len(xs),
                          [e - o for o, e in zip(begin, end)])]


def _block_args(node: TfNode, xs: list[int], what: str) -> tuple[list[int], list[list[int]]]:
    block = node.const_ints(1, "block_shape")
    pairs = np.asarray(node.const(2, what)).reshape(-1, 2).tolist()
    m = len(block)
    if len(pairs) != m or len(xs) < m + 1 or any(v < 1 for v in block):
        raise LegalizationError(f"block_shape {block} and {what} {pairs} do not fit x {xs}")
    return block, [[int(a), int(c)] for a, c in pairs]


def _space_to_batch(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """SpaceToBatchND(x, block, paddings) = PadD, Reshape [N, s1/b1, b1, .., sM/bM, bM, rest],
    TransposeD (block axes first), Reshape [b1*..*bM*N, s1/b1, .., rest] (TensorFlow's
    definition; how Keras runs a dilated Conv1D)."""
    xs = _static_shape(node, 0, "x")
    block, pads = _block_args(node, xs, "paddings")
    m = len(block)
    x = node.operand(0)
    if any(p != [0, 0] for p in pads):
        padded = [d + p[0] + p[1] for d, p in zip(xs[1:m + 1], pads)]
        x = b.create(cann.PadDOp, [x], TensorType(elem_of(x),
                                                  [xs[0], *padded, *xs[m + 1:]]),
                     paddings=int_array([0, 0, *(v for p in pads for v in p),
                                         *([0, 0] * (len(xs) - m - 1))]))
    else:
        padded = xs[1:m + 1]
    if any(d % k for d, k in zip(padded, block)):
        raise LegalizationError(f"padded spatial dims {padded} are not multiples of {block}")
    split = [xs[0]] + [v for d, k in zip(padded, block) for v in (d // k, k)] + xs[m + 1:]
    rest = list(range(2 * m + 1, len(split)))
    perm = [2 * i + 2 for i in range(m)] + [0] + [2 * i + 1 for i in range(m)] + rest
    y = b.transpose(b.reshape(x, split), perm)
    return [b.reshape(y, [xs[0] * int(np.prod(block))] + [d // k for d, k in zip(padded, block)]
                      + xs[m + 1:])]


def _gather_nd(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """GatherNd(params [P0, .., Pm-1, rest..], indices [.., m]) = GatherV2D(axis 0) of params
    reshaped to [P0*..*Pm-1, rest..] at the flattened index dot(indices, strides) (strides of
    the first m dimensions): Mul + ReduceSumD on int32 (Cast from int64), or a constant when the
    indices are constants."""
    from compiler.interpreters.constant_eval import constant_value

    ps = _static_shape(node, 0, "params")
    idx = node.operand(1)
    ish = _static_shape(node, 1, "indices")
    if not ish or ish[-1] < 1:
        raise LegalizationError("indices must have a last dimension of at least 1")
    m = ish[-1]
    if m > len(ps):
        raise LegalizationError(f"the indices' last dimension {m} exceeds the rank {len(ps)} of params")
    lead = ps[:m]
    strides = [int(np.prod(lead[i + 1:])) for i in range(m)]
    out = ish[:-1]
    const = constant_value(idx)
    if const is not None:
        c = np.asarray(const).astype(np.int64)
        if ((c < 0) | (c >= np.asarray(lead))).any():
            raise LegalizationError(f"a constant index is out of range for params {ps}")
        flat = b.const((c @ np.asarray(strides, np.int64)).astype(np.int32).reshape(out))
    else:
        if elem_of(idx) != i32:
            idx = b.create(cann.CastOp, [idx], TensorType(i32, ish), dst_type=i32)
        if m == 1:
            flat = b.reshape(idx, out)
        else:
            st = b.const(np.asarray(strides, np.int32).reshape([1] * (len(ish) - 1) + [m]))
            scaled = b.create(cann.MulOp, [idx, st], TensorType(i32, ish))
            flat = b.create(cann.ReduceSumDOp, [scaled], TensorType(i32, out),
                            axes=int_array([len(ish) - 1]), keep_dims=IntegerAttr(0, 1))
    x = b.reshape(node.operand(0), [int(np.prod(lead))] + ps[m:])
    return [b.create(cann.GatherV2DOp, [x, flat], TensorType(elem_of(x), out + ps[m:]),
                     axis=IntegerAttr(0, i64))]


def _gather_v2(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """GatherV2 is GatherV2D; with batch_dims k > 0 (tf.gather(batch_dims=k), take_along_axis)
    params [B.., M.., A, R..] (B: the k batch axes, A at `axis`) and indices [B.., I..] give
    out [B.., M.., I.., R..]: the indices broadcast over M, offset by their flat batch row
    times A (an Add of a constant), and one GatherV2D on axis 0 of params reshaped to
    [B*M*A, R..], reshaped back."""
    axis = node.const_ints(2, "axis")
    if len(axis) != 1:
        raise LegalizationError("input 2 (axis) must be a scalar")
    idx = node.operand(1)
    k = node.int("batch_dims", 0)
    if k < 0:
        k += len(shape_of(idx))
    if k == 0:  # dynamic shapes are fine here (a ranged sequence's token ids)
        return [b.create(cann.GatherV2DOp, [node.operand(0), idx], node.result_type(),
                         axis=IntegerAttr(axis[0], i64))]
    ps = _static_shape(node, 0, "params")
    ax = axis[0] + len(ps) if axis[0] < 0 else axis[0]
    ish = _static_shape(node, 1, "indices")
    if not k <= ax < len(ps) or k > len(ish) or ps[:k] != ish[:k]:
        raise LegalizationError(f"batch_dims {k} and axis {ax} do not fit params {ps} and "
                                f"indices {ish}")
    mid, inner = ps[k:ax], ish[k:]
    if elem_of(idx) != i32:
        idx = b.create(cann.CastOp, [idx], TensorType(i32, ish), dst_type=i32)
    full = ps[:ax] + inner
    idx = broadcast_to(b, b.reshape(idx, ps[:k] + [1] * len(mid) + inner), full)
    rows = int(np.prod(ps[:ax]))
    base = (np.arange(rows, dtype=np.int32) * ps[ax]).reshape([rows] + [1] * len(inner))
    flat = b.create(cann.AddOp, [b.reshape(idx, [rows] + inner), b.const(base)],
                    TensorType(i32, [rows] + inner))
    x = b.reshape(node.operand(0), [rows * ps[ax]] + ps[ax + 1:])
    y = b.create(cann.GatherV2DOp, [x, flat], TensorType(elem_of(x), [rows] + inner + ps[ax + 1:]),
                 axis=IntegerAttr(0, i64))
    return [b.reshape(y, full + ps[ax + 1:])]


def _block_nhwc(node: TfNode) -> tuple[list[int], int]:
    """DepthToSpace / SpaceToDepth's static NHWC input shape and block size."""
    fmt = node.str("data_format", "NHWC")
    if fmt != "NHWC":
        raise LegalizationError(f"data_format {fmt} is not supported (only NHWC)")
    xs = _static_shape(node, 0, "input")
    if len(xs) != 4:
        raise LegalizationError(f"input must be 4-D (NHWC), got rank {len(xs)}")
    k = node.int("block_size")
    if k < 2:
        raise LegalizationError(f"block_size must be at least 2, got {k}")
    return xs, k


def _depth_to_space(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """DepthToSpace(x [N, H, W, C]; block_size k, NHWC) = Reshape [N, H, W, k, k, C/k^2],
    TransposeD (0, 1, 3, 2, 4, 5), Reshape [N, H*k, W*k, C/k^2] (TensorFlow's DCR order;
    sub-pixel upsampling)."""
    (n, h, w, c), k = _block_nhwc(node)
    if c % (k * k):
        raise LegalizationError(f"depth {c} is not a multiple of block_size^2 = {k * k}")
    y = b.transpose(b.reshape(node.operand(0), [n, h, w, k, k, c // (k * k)]), [0, 1, 3, 2, 4, 5])
    return [b.reshape(y, [n, h * k, w * k, c // (k * k)])]


def _space_to_depth(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """SpaceToDepth(x [N, H, W, C]; block_size k, NHWC) = Reshape [N, H/k, k, W/k, k, C],
    TransposeD (0, 1, 3, 2, 4, 5), Reshape [N, H/k, W/k, k*k*C] (TensorFlow's definition;
    YOLO's reorg)."""
    (n, h, w, c), k = _block_nhwc(node)
    if h % k or w % k:
        raise LegalizationError(f"spatial dims {[h, w]} are not multiples of block_size {k}")
    y = b.transpose(b.reshape(node.operand(0), [n, h // k, k, w // k, k, c]), [0, 1, 3, 2, 4, 5])
    return [b.reshape(y, [n, h // k, w // k, k * k * c])]


def _batch_to_space(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """BatchToSpaceND(x, block, crops) = Reshape [b1, .., bM, N, d1, .., rest], TransposeD
    (each block axis after its spatial axis), Reshape [N, d1*b1, .., rest], StridedSliceD
    (the crops) (TensorFlow's definition)."""
    xs = _static_shape(node, 0, "x")
    block, crops = _block_args(node, xs, "crops")
    m = len(block)
    nb = int(np.prod(block))
    if xs[0] % nb:
        raise LegalizationError(f"batch {xs[0]} is not a multiple of {nb}")
    n = xs[0] // nb
    split = block + [n] + xs[1:]
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, len(split)))
    full = [n] + [d * k for d, k in zip(xs[1:m + 1], block)] + xs[m + 1:]
    y = b.reshape(b.transpose(b.reshape(node.operand(0), split), perm), full)
    if all(c == [0, 0] for c in crops):
        return [y]
    begin = [0] + [c[0] for c in crops] + [0] * (len(xs) - m - 1)
    end = [full[0]] + [d - c[1] for d, c in zip(full[1:m + 1], crops)] + full[m + 1:]
    if any(e < o for o, e in zip(begin, end)):
        raise LegalizationError(f"crops {crops} exceed the spatial dims {full[1:m + 1]}")
    return [strided_slice(b, y, begin, end, [1] * len(full),
                          [e - o for o, e in zip(begin, end)])]


def _conv(b: Builder, x: SSAValue, w: SSAValue, out_type, strides, pads, dilations,
          fmt: StringAttr) -> SSAValue:
    return b.create(cann.Conv2DOp, [x, w, []], out_type, strides=int_array(list(strides)),
                    pads=int_array(list(pads)), dilations=int_array(list(dilations)),
                    groups=IntegerAttr(1, i64), data_format=fmt)


def _with_groups(props: dict) -> dict:
    """Conv2D's properties in its printed order, groups = 1."""
    return {"strides": props["strides"], "pads": props["pads"],
            "dilations": props["dilations"], "groups": IntegerAttr(1, i64),
            "data_format": props["data_format"]}


def _conv2d(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Conv2D -> Conv2D.  A grouped conv (x has G times the filter's input channels, Keras
    Conv2D(groups=G)) is a DepthwiseConv2D when G is the channel count (ConvNeXt's 7x7 depthwise
    conv: the filter [kh, kw, 1, C*m] reshaped to [kh, kw, C, m], same channel order), else one
    Conv2D with groups = G (CANN's Conv2D `groups` attribute; one cube kernel over the grouped
    FRACTAL_Z filter, whose #cann.format says `groups G conv`)."""
    fmt = node.str("data_format", "NHWC")
    c_axis = 3 if fmt == "NHWC" else 1
    xs, ws = node.operand_type(0).get_shape(), _static_shape(node, 1, "the filter")
    cin, wcin, cout = xs[c_axis], ws[2], ws[3]
    props = dict(strides=ints_attr("strides", [1, 1, 1, 1])(node), pads=conv_pads(node),
                 dilations=ints_attr("dilations", [1, 1, 1, 1])(node),
                 data_format=StringAttr(fmt))
    x, w = node.operand(0), node.operand(1)
    if cin < 0 or cin == wcin:
        return [b.create(cann.Conv2DOp, [x, w, []], node.result_type(),
                         **_with_groups(props))]
    if cin % wcin or cout % (cin // wcin):
        raise LegalizationError(f"x has {cin} channels, the filter {wcin}: not a grouped conv")
    groups = cin // wcin
    if wcin == 1:
        wd = b.reshape(w, [ws[0], ws[1], cin, cout // cin])
        return [b.create(cann.DepthwiseConv2DOp, [x, wd, []], node.result_type(), **props)]
    return [b.create(cann.Conv2DOp, [x, w, []], node.result_type(),  # one cube kernel
                     **{**_with_groups(props), "groups": IntegerAttr(groups, i64)})]


def _conv_backprop_input(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Conv2DBackpropInput(input_sizes, filter, out_backprop) (Keras Conv2DTranspose), NHWC.

    CANN's op for it is Conv2DTransposeD(x, filter, bias?; input_size, strides, pads, dilations,
    groups, data_format, output_padding) (REG_OP(Conv2DTransposeD) in graphengine's
    third_party/fwkacllib/inc/ops/nn_calculation_ops.h), pads being those of the forward conv.
    It is computed here as what it is, a stride-1 Conv2D over x with zeros inserted: x is
    Reshaped to [N, H, 1, W, 1, C], PadD'ed to [N, H, s, W, s, C] and Reshaped to [N, H*s, W*s, C]
    (the last s - 1 zeros of each axis count against the bottom / right pad); the filter is
    flipped in H and W and its in/out channels swapped (StridedSliceD stride -1, TransposeD: both
    fold on a constant filter); the conv's pads are d*(k-1) - pad_begin and d*(k-1) - pad_end + r,
    r the rows the forward conv's stride left unread (negative pads crop x by StridedSliceD)."""
    if node.str("data_format", "NHWC") != "NHWC":
        raise LegalizationError("only data_format NHWC is supported")
    sizes = node.const_ints(0, "input_sizes")
    ws = _static_shape(node, 1, "the filter")
    dys = _static_shape(node, 2, "out_backprop")
    if len(sizes) != 4 or ws[2] != sizes[3] or ws[3] != dys[3]:
        raise LegalizationError(f"filter {ws} does not fit input_sizes {sizes} and "
                                f"out_backprop {dys} (grouped transposed convs are not supported)")
    s = node.ints("strides", [1, 1, 1, 1])
    d = node.ints("dilations", [1, 1, 1, 1])
    padding = node.str("padding")
    fwd = []  # forward pads (begin, end) per spatial axis
    for ax, k in ((1, ws[0]), (2, ws[1])):
        if padding == "SAME":
            fwd.append(same_pads(sizes[ax], k, s[ax], d[ax]))
        elif padding == "VALID":
            fwd.append((0, 0))
        elif padding == "EXPLICIT":
            e = node.ints("explicit_paddings")
            fwd.append((e[2 * ax], e[2 * ax + 1]))
        else:
            raise LegalizationError(f"unknown padding '{padding}'")
    et = node.operand_type(2).element_type
    x = node.operand(2)
    if s[1] > 1 or s[2] > 1:
        n, h, w, c = dys
        x = b.reshape(x, [n, h, 1, w, 1, c])
        x = b.create(cann.PadDOp, [x], TensorType(et, [n, h, s[1], w, s[2], c]),
                     paddings=int_array([0, 0, 0, 0, 0, s[1] - 1, 0, 0, 0, s[2] - 1, 0, 0]))
        x = b.reshape(x, [n, h * s[1], w * s[2], c])
    xz = list(shape_of(x))
    pads, crop_lo, crop_hi = [], [0, 0, 0, 0], list(xz)
    for i, (ax, k) in enumerate(((1, ws[0]), (2, ws[1]))):
        full = d[ax] * (k - 1)
        rest = sizes[ax] - ((dys[ax] - 1) * s[ax] + full + 1 - fwd[i][0] - fwd[i][1])
        if not 0 <= rest < s[ax]:
            raise LegalizationError(f"input_sizes {sizes} do not fit out_backprop {dys} with "
                                    f"strides {s} and padding {padding}")
        lo, hi = full - fwd[i][0], full - fwd[i][1] + rest - (s[ax] - 1)
        crop_lo[ax], crop_hi[ax] = max(0, -lo), xz[ax] - max(0, -hi)
        pads += [max(0, lo), max(0, hi)]
    if crop_lo != [0, 0, 0, 0] or crop_hi != xz:
        x = strided_slice(b, x, crop_lo, crop_hi, [1, 1, 1, 1],
                          [e - o for o, e in zip(crop_lo, crop_hi)])
    wr = strided_slice(b, node.operand(1), [0] * 4, [0] * 4, [-1, -1, 1, 1], ws, 15, 15)
    wr = b.transpose(wr, [0, 1, 3, 2])
    rt = TensorType(et, sizes)
    return [_conv(b, x, wr, rt, [1, 1, 1, 1], pads, [1, d[1], d[2], 1], StringAttr("NHWC"))]


# --- functional control flow and calls (functions referenced by symbol) -------------------------

def func_symbol(node: TfNode, name: str, value: Attribute | None = None) -> Any:
    """A func attribute (`@f` or `#tf.func<@f, {...}>`; the node's attribute `name`, or
    `value`) as a SymbolRefAttr naming a func.func of the module."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import SymbolRefAttr
    from xdsl.traits import SymbolTable

    a = node.attr(name) if value is None else value
    sym = a if isinstance(a, SymbolRefAttr) else getattr(a, "func", None)
    if not isinstance(sym, SymbolRefAttr):
        raise LegalizationError(f"attribute '{name}' must name a function, got {a}")
    if not isinstance(SymbolTable.lookup_symbol(node.op, sym), func.FuncOp):
        raise LegalizationError(f"{name} @{sym.string_value()} is not a function of the module")
    return SymbolRefAttr(sym.root_reference)


def _control(cls: type[IRDLOperation], first: list[SSAValue], node: TfNode, b: Builder,
             **props: Attribute) -> Sequence[SSAValue]:
    n_first = len(first)
    op = b.add(cls(operands=[*first, list(node.op.operands[n_first:])],
                   result_types=[[r.type for r in node.op.results]], properties=props))
    return list(op.results)


def _if(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    return _control(cann.IfOp, [node.operand(0)], node, b,
                    then_branch=func_symbol(node, "then_branch"),
                    else_branch=func_symbol(node, "else_branch"))


def _case(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    a = node.attr("branches")
    if not isinstance(a, ArrayAttr) or not a.data:
        raise LegalizationError("attribute 'branches' must be a non-empty list of functions")
    syms = [func_symbol(node, f"branches[{i}]", f) for i, f in enumerate(a.data)]
    return _control(cann.CaseOp, [node.operand(0)], node, b, branches=ArrayAttr(syms))


def _while(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    props = {"cond": func_symbol(node, "cond"), "body": func_symbol(node, "body")}
    if node.attr("parallel_iterations", None) is not None:
        props["parallel_iterations"] = IntegerAttr(node.int("parallel_iterations"), i64)
    op = b.add(cann.WhileOp(operands=[list(node.op.operands)],
                            result_types=[[r.type for r in node.op.results]], properties=props))
    return list(op.results)


def _reverse(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """ReverseV2(x, axes) of constant axes: one GatherV2D per axis with the indices n-1 .. 0
    (Keras's Bidirectional reverses the time axis before and after the backward layer)."""
    x = node.operand(0)
    shape = list(shape_of(x))
    axes = sorted({a % len(shape) for a in node.const_ints(1, "axis")}) if shape else []
    for a in axes:
        x = _gather_axis(b, x, a, lambda n: np.arange(n - 1, -1, -1))
    return [x]


def _gather_axis(b: Builder, x: SSAValue, a: int, order: Callable[[int], np.ndarray]) -> SSAValue:
    """x with axis a reordered: one GatherV2D of the constant indices order(n) (none when they
    are 0 .. n-1)."""
    shape = list(shape_of(x))
    if shape[a] < 0:
        raise LegalizationError(f"axis {a} has a dynamic size")
    idx = np.asarray(order(shape[a]), np.int32)
    if (idx == np.arange(shape[a])).all():
        return x
    return b.create(cann.GatherV2DOp, [x, b.const(idx)], TensorType(elem_of(x), shape),
                    axis=IntegerAttr(a, i64))


def _roll(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """Roll(x, shift, axis) of constant shifts and axes (Swin's cyclic window shift): per axis
    (shifts on one axis add up) one GatherV2D of the indices (i - shift) mod n."""
    x = node.operand(0)
    rank = len(shape_of(x))
    shifts, axes = node.const_ints(1, "shift"), node.const_ints(2, "axis")
    if len(shifts) != len(axes):
        raise LegalizationError(f"{len(shifts)} shifts for {len(axes)} axes")
    total: dict[int, int] = {}
    for s, a in zip(shifts, axes, strict=True):
        if not -rank <= a < rank:
            raise LegalizationError(f"axis {a} is out of range for rank {rank}")
        total[a % rank] = total.get(a % rank, 0) + s
    for a, s in sorted(total.items()):
        x = _gather_axis(b, x, a, functools.partial(_rolled, s))
    return [x]


def _rolled(shift: int, n: int) -> np.ndarray:
    return (np.arange(n) - shift) % n


def _row_in(module: str, tf_type: str) -> BuildFn:
    """The builder of `tf_type` in the ROWS of compiler.conversions.tf_to_cann.<module> (a module
    that imports this one: looked up when the row first runs)."""
    def build(node: TfNode, b: Builder) -> Sequence[SSAValue]:
        import importlib

        rows = importlib.import_module(f"compiler.conversions.tf_to_cann.{module}").ROWS
        return rows[tf_type](node, b)
    return build


def _inline_call(node: TfNode, b: Builder) -> Sequence[SSAValue]:
    """PartitionedCall / StatefulPartitionedCall: the callee's body (tf ops) is cloned in place
    of the call, its arguments replaced by the call's operands; the copies keep their own
    locations (node names).  The engine legalizes them afterwards."""
    from xdsl.dialects import func
    from xdsl.traits import SymbolTable

    sym = func_symbol(node, "f")
    callee = SymbolTable.lookup_symbol(node.op, sym)
    if not isinstance(callee, func.FuncOp):
        raise LegalizationError(f"f @{sym.string_value()} is not a function of the module")
    block = callee.body.blocks.first if callee.body.blocks else None
    if block is None:
        raise LegalizationError(f"f @{callee.sym_name.data} has no body")
    if len(block.args) != len(node.op.operands):
        raise LegalizationError(f"f @{callee.sym_name.data} takes {len(block.args)} arguments, "
                                f"the call passes {len(node.op.operands)}")
    mapper: dict[SSAValue, SSAValue] = dict(zip(block.args, node.op.operands))
    results: list[SSAValue] = []
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            results = [mapper.get(v, v) for v in op.operands]
            break
        b.ops.append(op.clone(value_mapper=mapper))
    if len(results) != len(node.op.results):
        raise LegalizationError(f"f @{callee.sym_name.data} returns {len(results)} values, the "
                                f"call has {len(node.op.results)} results")
    return results


# --- the table ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    tf: str
    cann: str
    build: BuildFn | None = None
    dtype_operand: int | None = 0  # whose element type the CANN dtype rule checks (None: result)
    forward: bool = False
    note: str = ""
    #: the builder returns tf ops (an inlined function body): such rows run first, to a fixpoint,
    #: and what they produce is legalized by the other rows
    inline: bool = False
    extra: dict = field(default_factory=dict)


def _conv_props() -> dict[str, Converter]:
    return {"strides": ints_attr("strides", [1, 1, 1, 1]), "pads": conv_pads,
            "dilations": ints_attr("dilations", [1, 1, 1, 1]),
            "data_format": copy("data_format", StringAttr("NHWC"))}


def _unary(tf_name: str, cls: type[IRDLOperation], cann_name: str | None = None, **props) -> Rule:
    return Rule(tf_name, cann_name or cls.name.removeprefix("cann."),
                one_to_one(cls, (0,), props or None))


def _binary(tf_name: str, cls: type[IRDLOperation]) -> Rule:
    return Rule(tf_name, cls.name.removeprefix("cann."), one_to_one(cls, (0, 1)))


RULES: list[Rule] = [
    # graph plumbing: GE built-ins that run no kernel
    Rule("Placeholder", "(argument)", forward=True, dtype_operand=None),
    Rule("Identity", "(removed)", forward=True, dtype_operand=None),
    Rule("IdentityN", "(removed)", forward=True, dtype_operand=None),
    Rule("StopGradient", "(removed)", forward=True, dtype_operand=None),
    Rule("PreventGradient", "(removed)", forward=True, dtype_operand=None),
    Rule("Snapshot", "(removed)", forward=True, dtype_operand=None),
    Rule("NoOp", "(removed)", forward=True, dtype_operand=None, note="orders side effects only"),
    Rule("Const", "Const", _const, dtype_operand=None),
    Rule("Shape", "Const", _shape, dtype_operand=None,
         note="of a `?` tensor: Shape, resolved at dispatch (resolve-shapes)"),
    # convolution family
    Rule("Conv2D", "Conv2D", _conv2d,
         note="grouped: DepthwiseConv2D (groups = channels), else Conv2D(groups = G)"),
    Rule("Conv2DBackpropInput", "Conv2D", _conv_backprop_input, dtype_operand=2,
         note="CANN Conv2DTransposeD (graphengine nn_calculation_ops.h) computed as Reshape + "
              "PadD (zeros inserted) + Conv2D with the flipped, transposed filter"),
    # 3-D (NDHWC) convolution and pooling on the 2-D operators (conv3d.py)
    Rule("Conv3D", "Conv2D", _row_in("conv3d", "Conv3D"),
         note="decomposed: PadD (SAME on D) + StridedSliceD per depth tap + ConcatV2D (depth "
              "im2col) + Reshape + Conv2D with the filter [kh, kw, kd*C, O] + Reshape"),
    Rule("Conv3DBackpropInputV2", "Conv2D", _row_in("conv3d", "Conv3DBackpropInputV2"),
         dtype_operand=2,
         note="zeros inserted (Reshape + PadD) + the Conv3D decomposition with the flipped filter"),
    Rule("MaxPool3D", "MaxPool", _row_in("conv3d", "MaxPool3D"),
         note="separable: StridedSliceD per depth tap + Maximum, MaxPool on the (N*D) batch"),
    Rule("AvgPool3D", "AvgPool", _row_in("conv3d", "AvgPool3D"),
         note="separable: StridedSliceD per depth tap + Add + Mul (1 / valid count), AvgPool on "
              "the (N*D) batch"),
    Rule("LRN", "MatMulV2", _lrn,
         note="decomposed: Square + MatMulV2 by the [C, C] channel-window band + Mul + Add + "
              "Pow(-beta) + Mul"),
    Rule("DepthwiseConv2dNative", "DepthwiseConv2D",
         one_to_one(cann.DepthwiseConv2DOp, (0, 1), _conv_props(), optional=(2,))),
    Rule("BiasAdd", "BiasAdd", one_to_one(cann.BiasAddOp, (0, 1), {
        "data_format": copy("data_format", StringAttr("NHWC"))})),
    Rule("FusedBatchNorm", "BNInfer", _fused_batch_norm),
    Rule("FusedBatchNormV2", "BNInfer", _fused_batch_norm),
    Rule("FusedBatchNormV3", "BNInfer", _fused_batch_norm),
    Rule("MaxPool", "MaxPool", one_to_one(cann.MaxPoolOp, (0,), {
        "ksize": ints_attr("ksize"), "strides": ints_attr("strides"), "padding": copy("padding"),
        "data_format": copy("data_format", StringAttr("NHWC"))})),
    Rule("AvgPool", "AvgPool", one_to_one(cann.AvgPoolOp, (0,), {
        "ksize": ints_attr("ksize"), "strides": ints_attr("strides"), "padding": copy("padding"),
        "data_format": copy("data_format", StringAttr("NHWC"))})),
    # matmuls
    Rule("MatMul", "MatMulV2", one_to_one(cann.MatMulV2Op, (0, 1), {
        "transpose_x1": flag("transpose_a"), "transpose_x2": flag("transpose_b")},
        optional=(2,))),
    Rule("BatchMatMul", "BatchMatMulV2", one_to_one(cann.BatchMatMulV2Op, (0, 1), {
        "adj_x1": flag("adj_x"), "adj_x2": flag("adj_y")}, optional=(2,))),
    Rule("BatchMatMulV2", "BatchMatMulV2", one_to_one(cann.BatchMatMulV2Op, (0, 1), {
        "adj_x1": flag("adj_x"), "adj_x2": flag("adj_y")}, optional=(2,))),
    Rule("BatchMatMulV3", "BatchMatMulV2", one_to_one(cann.BatchMatMulV2Op, (0, 1), {
        "adj_x1": flag("adj_x"), "adj_x2": flag("adj_y")}, optional=(2,))),
    Rule("Einsum", "BatchMatMulV2", _einsum,
         note="decomposed: TransposeD + Reshape + BatchMatMulV2 + Reshape + TransposeD"),
    # activations and unary math
    _unary("Relu", cann.ReluOp),
    _unary("Relu6", cann.Relu6Op),
    _unary("Sigmoid", cann.SigmoidOp),
    _unary("Tanh", cann.TanhOp),
    _unary("Sin", cann.SinOp),
    _unary("Cos", cann.CosOp),
    _unary("Elu", cann.EluOp, alpha=fixed(FloatAttr(1.0, f32))),
    _unary("LeakyRelu", cann.LeakyReluOp, negative_slope=f32_attr("alpha", 0.2)),
    _unary("Neg", cann.NegOp),
    _unary("Sqrt", cann.SqrtOp),
    _unary("Rsqrt", cann.RsqrtOp),
    _unary("Square", cann.SquareOp),
    _unary("Erf", cann.ErfOp),
    Rule("Erfc", "Erfc", _erfc),
    _unary("Exp", cann.ExpOp),
    _unary("Log", cann.LogOp),
    _unary("Abs", cann.AbsOp),
    _unary("Reciprocal", cann.ReciprocalOp),
    _unary("Inv", cann.ReciprocalOp),
    Rule("Softmax", "SoftmaxV2", _softmax),
    _unary("Floor", cann.FloorOp),
    _unary("Ceil", cann.CeilOp),
    _unary("Round", cann.RoundOp),
    _unary("Rint", cann.RoundOp),
    _unary("Sign", cann.SignOp),
    _unary("Log1p", cann.Log1pOp),
    _unary("Expm1", cann.Expm1Op),
    Rule("Softsign", "RealDiv", _softsign, note="decomposed: x / (Abs(x) + 1)"),
    Rule("Selu", "Elu", _selu, note="decomposed: Elu(alpha 1.6733) * 1.0507"),
    Rule("LogSoftmax", "ReduceMaxD", _log_softmax,
         note="decomposed: (x - ReduceMaxD) - Log(ReduceSumD(Exp(x - ReduceMaxD)))"),
    Rule("ClipByValue", "Maximum", _clip_by_value, note="decomposed: Minimum(Maximum(t, lo), hi)"),
    *[Rule(k, "NotEqual" if k == "IsNan" else "Equal" if k == "IsInf" else "Less",
           _float_predicate(k), note=note) for k, note in (
        ("IsNan", "decomposed: NotEqual(x, x)"), ("IsInf", "decomposed: Equal(Abs(x), inf)"),
        ("IsFinite", "decomposed: Less(Abs(x), inf)"))],
    Rule("ZerosLike", "Const", _fill_like(0), dtype_operand=None, note="static shapes: a constant"),
    Rule("OnesLike", "Const", _fill_like(1), dtype_operand=None, note="static shapes: a constant"),
    Rule("Rank", "Const", _rank, dtype_operand=None, note="a constant"),
    Rule("Size", "Const", _size, dtype_operand=None, note="static shapes: a constant"),
    Rule("Unpack", "SplitD", _unpack, note="decomposed: SplitD + Reshape each part"),
    Rule("OneHot", "SelectV2", _one_hot, dtype_operand=2,
         note="decomposed: SelectV2(Equal(indices, Range(depth)), on, off)"),
    _unary("Softplus", cann.SoftplusOp),  # docs/extending.md's worked example
    # binary elementwise (broadcasting)
    _binary("Add", cann.AddOp),
    _binary("AddV2", cann.AddOp),
    _binary("Mul", cann.MulOp),
    _binary("Sub", cann.SubOp),
    _binary("RealDiv", cann.RealDivOp),
    _binary("Maximum", cann.MaximumOp),
    _binary("Minimum", cann.MinimumOp),
    _binary("Pow", cann.PowOp),
    _binary("SquaredDifference", cann.SquaredDifferenceOp),
    _binary("FloorDiv", cann.FloorDivOp),
    _binary("FloorMod", cann.FloorModOp),
    _binary("Atan2", cann.Atan2Op),
    Rule("DivNoNan", "RealDiv", _div_no_nan, note="decomposed: SelectV2(Equal(y, 0), 0, x / y)"),
    Rule("SelectV2", "SelectV2", one_to_one(cann.SelectV2Op, (0, 1, 2)), dtype_operand=1),
    Rule("Select", "SelectV2", _select, dtype_operand=1,
         note="a vector condition is reshaped to [n, 1, ...]"),
    _compare("Greater", cann.GreaterOp),
    _compare("GreaterEqual", cann.GreaterEqualOp),
    _compare("Less", cann.LessOp),
    _compare("LessEqual", cann.LessEqualOp),
    _compare("Equal", cann.EqualOp),
    _compare("NotEqual", cann.NotEqualOp),
    _compare("LogicalAnd", cann.LogicalAndOp),
    _compare("LogicalOr", cann.LogicalOrOp),
    Rule("LogicalNot", "LogicalNot", one_to_one(cann.LogicalNotOp, (0,))),
    # reductions: constant axes become attributes
    Rule("Mean", "ReduceMeanD", _reduce(cann.ReduceMeanDOp)),
    Rule("Sum", "ReduceSumD", _reduce(cann.ReduceSumDOp)),
    Rule("Max", "ReduceMaxD", _reduce(cann.ReduceMaxDOp)),
    Rule("Min", "ReduceMinD", _reduce(cann.ReduceMinDOp)),
    Rule("Prod", "ReduceProdD", _reduce(cann.ReduceProdDOp)),
    Rule("All", "ReduceAllD", _bool_reduce(cann.ReduceMinDOp),
         note="decomposed: Cast to int32 + ReduceMinD + Cast to bool"),
    Rule("Any", "ReduceAnyD", _bool_reduce(cann.ReduceMaxDOp),
         note="decomposed: Cast to int32 + ReduceMaxD + Cast to bool"),
    # scans: the constant axis becomes an attribute.  The op is CANN's Cumsum(x, axis; exclusive,
    # reverse) as the CANN op library names it (Cumprod by analogy, unverified); cann-facts.md's
    # table lists neither.
    *[Rule(k, "ReduceMinD", _arg_reduce(k), note=f"decomposed: first index of the {w}: "
           f"{r} + Equal + SelectV2(0..n-1, n) + ReduceMinD (int32)")
      for k, w, r in (("ArgMax", "max", "ReduceMaxD"), ("ArgMin", "min", "ReduceMinD"))],
    Rule("Cumsum", "Cumsum", _scan(cann.CumsumOp)),
    Rule("Cumprod", "Cumprod", _scan(cann.CumprodOp)),
    # sorting: CANN's TopKV2 (ops-math math/top_k_v2), k a constant attribute; not in cann-facts.md
    Rule("TopKV2", "TopKV2", _top_k, note="last axis, largest, sorted; int32 indices (Cast to "
         "index_type)"),
    # data movement: constant inputs become attributes
    Rule("Transpose", "TransposeD", one_to_one(cann.TransposeDOp, (0,), {
        "perm": const_ints(1, "perm")})),
    Rule("Pad", "PadD", one_to_one(cann.PadDOp, (0,), {"paddings": pad_pairs})),
    Rule("PadV2", "PadV2D", _pad_v2, note="PadD when the constant is 0"),
    Rule("MirrorPad", "MirrorPad", _mirror_pad),
    Rule("Split", "SplitD", _split, dtype_operand=1),
    Rule("SplitV", "SplitVD", _split_v),
    Rule("Fill", "FillD", _fill, dtype_operand=None,
         note="constant inputs only (dims an attribute); always folded"),
    Rule("Range", "Range", _range, dtype_operand=None, note="constant inputs only; always folded"),
    Rule("MatrixBandPart", "MatrixBandPart", _band_part, dtype_operand=None,
         note="constant inputs only; always folded"),
    # images
    Rule("ResizeBilinear", "ResizeBilinearV2", one_to_one(cann.ResizeBilinearV2Op, (0, 1), {
        "align_corners": flag("align_corners"),
        "half_pixel_centers": flag("half_pixel_centers")})),
    Rule("ResizeNearestNeighbor", "ResizeNearestNeighborV2", one_to_one(
        cann.ResizeNearestNeighborV2Op, (0, 1), {
            "align_corners": flag("align_corners"),
            "half_pixel_centers": flag("half_pixel_centers")})),
    Rule("ConcatV2", "ConcatV2D", _concat),
    Rule("Pack", "ConcatV2D", _pack, note="decomposed: Reshape each value + ConcatV2D"),
    Rule("Cast", "Cast", _cast),
    Rule("BroadcastTo", "BroadcastToD", _broadcast_to,
         note="graphengine pad_ops.h REG_OP(BroadcastToD): shape as an attribute; a shape "
              "computed from a `?` tensor's Shape: BroadcastTo, resolved at dispatch"),
    Rule("Tile", "BroadcastToD", _tile, note="decomposed: Reshape + BroadcastToD + Reshape"),
    Rule("Slice", "StridedSliceD", _slice,
         note="a size computed from a `?` tensor's Shape: Slice, resolved at dispatch"),
    Rule("SpaceToBatchND", "TransposeD", _space_to_batch,
         note="decomposed: PadD + Reshape + TransposeD + Reshape"),
    Rule("BatchToSpaceND", "TransposeD", _batch_to_space,
         note="decomposed: Reshape + TransposeD + Reshape + StridedSliceD"),
    Rule("DepthToSpace", "TransposeD", _depth_to_space,
         note="decomposed: Reshape + TransposeD + Reshape (NHWC)"),
    Rule("SpaceToDepth", "TransposeD", _space_to_depth,
         note="decomposed: Reshape + TransposeD + Reshape (NHWC)"),
    Rule("GatherV2", "GatherV2D", _gather_v2,
         note="batch_dims > 0: Add of the flat batch offsets + GatherV2D on axis 0 + Reshape"),
    Rule("GatherNd", "GatherV2D", _gather_nd,
         note="decomposed: Reshape + GatherV2D at dot(indices, strides) (Mul + ReduceSumD)"),
    Rule("StridedSlice", "StridedSliceD", _strided_slice),
    Rule("Reshape", "Reshape", _reshape, note="shape from the static result type"),
    Rule("Squeeze", "Reshape", _reshape),
    Rule("ExpandDims", "Reshape", _reshape),
    # functional control flow: bodies stay func.func symbols, legalized like @main
    Rule("If", "If", _if, dtype_operand=None),
    Rule("StatelessIf", "If", _if, dtype_operand=None),
    Rule("Case", "Case", _case, dtype_operand=None),
    Rule("StatelessCase", "Case", _case, dtype_operand=None),
    Rule("While", "While", _while, dtype_operand=None),
    Rule("StatelessWhile", "While", _while, dtype_operand=None),
    Rule("PartitionedCall", "(inlined)", _inline_call, dtype_operand=None, inline=True),
    Rule("StatefulPartitionedCall", "(inlined)", _inline_call, dtype_operand=None, inline=True),
    Rule("ReverseV2", "GatherV2D", _reverse, note="one GatherV2D of n-1..0 per axis"),
    Rule("Roll", "GatherV2D", _roll, note="one GatherV2D of (i - shift) mod n per axis"),
    # TensorLists are buffers (compiler/conversions/tf_to_cann/tensor_list_types.py types the handles first)
    *[Rule(t, cann_op, _row_in("tensor_list_types", t), dtype_operand=k, note=note)  # k: the element's
      for t, cann_op, k, note in (                                     # dtype, or the result's
          ("TensorListReserve", "Const", 0, "a buffer of zeros"),
          ("TensorListFromTensor", "(the tensor)", None, "the tensor is the buffer"),
          ("TensorListGetItem", "GatherV2D", None, "row i: GatherV2D on axis 0 + Reshape"),
          ("TensorListSetItem", "InplaceUpdate", 2, "row i written in place"),
          ("TensorListStack", "(the buffer)", None, "the buffer, reshaped"),
          ("TensorListLength", "Const", None, "the buffer's first dimension"),
          ("TensorListElementShape", "Const", None, "the buffer's other dimensions"))],
    # TF1 TensorArrays (compiler/conversions/tf_to_cann/tensor_array_v3.py retypes their flows)
    *[Rule(t, cann_op, _row_in("tensor_array_v3", t), dtype_operand=None, note=note)
      for t, cann_op, note in (
          ("TensorArrayV3", "Const", "a buffer of zeros (the flow)"),
          ("TensorArrayWriteV3", "InplaceUpdate", "row i written in place"),
          ("TensorArrayScatterV3", "InplaceUpdate", "rows written in place"),
          ("TensorArrayReadV3", "GatherV2D", "row i"),
          ("TensorArrayGatherV3", "GatherV2D", "the rows at the indices"),
          ("TensorArraySizeV3", "Const", "the buffer's first dimension"))],
]

TABLE: dict[str, Rule] = {r.tf: r for r in RULES}
