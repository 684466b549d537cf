"""The `tf` dialect: one op per TensorFlow graph node, attributes under TensorFlow's own names.

Op names are the TF op type (`tf.Conv2D`), like TensorFlow's MLIR tf dialect.  The importer
sets `loc("node/name")` on every op.  Graph inputs are function arguments; each Placeholder node
stays as a `tf.Placeholder` op forwarding its argument so that the node, its name and its
attributes are kept ("one op per node").

Typed ops.  Every op type of `dialects.tf_opdefs.OPDEFS` (generated from TensorFlow's op
registry by `tools/gen_tf_opdefs.py`) gets an IRDL op class built here the first time it is
looked up (`OP_CLASSES`, `TFContext`, `dialects.tf.Conv2DOp`), with no TensorFlow needed: operands and
results named after the OpDef's arguments (variadic where the
OpDef has `number_attr`/`type_list_attr`), and one optional property per OpDef attribute.  The
verifier checks that required attributes are present (type attributes and `number_attr`s are
derivable from the operands, so they may be omitted, as in TensorFlow's MLIR), that every
attribute has the right kind and an allowed value, and that operands/results sharing a type
attribute agree with each other, with the attribute, and with its allowed dtypes.  Ops with at
most one variadic operand group print as `tf.Op %a, %b {attrs} : (types) -> types`; the others
(none among the generated ones today) print generically.  Python names that clash with
`IRDLOperation` members or keywords get a trailing `_` (`name` -> `name_`); IR names never
change.  `tf.Placeholder` (which forwards its function argument) and `tf.Const` (whose value is
printed first) are written by hand.  Accessors kept from the hand-written ops: `tf.Relu` has
`x`/`y` as aliases of `features`/`activations`.

Any other op type (`tf.FooBar`) is a `GenericTFOp`: a class made on demand, with any operands,
results and attributes, printed in generic form and parsed back by `TFContext` (the context of
`compiler.ir.ir_io.make_context`).  Nothing is dropped.

Attribute kinds (TensorFlow AttrValue -> IR):
  int -> `3 : i64`; float -> `1.0 : f32`; bool -> `true`; string -> `"SAME"` (bytes that are not
  UTF-8: `#tf.bytes<"\\FF...">`); type -> the element type (`f32`, `i1`, `!tf.string`,
  `!tf.resource`, `!tf.variant`, other dtypes `!tf.dtype<"qint8">`); shape -> `#tf.shape<1x?x3>`
  (`#tf.shape<*>` unknown rank, `#tf.shape<>` scalar); tensor -> `dense<...> : tensor<...>`,
  string tensors `#tf.strings<["a", "b"] : tensor<2x!tf.string>>`, any other tensor (e.g.
  complex, quantized) the serialized TensorProto `#tf.tensor_proto<"0A0B...">`; func ->
  `@name` or `#tf.func<@name, {attrs}>`; list(int) -> `array<i64: ...>`; other lists ->
  `[...]` of the above.  Control inputs (`^node`) are the discardable attribute
  `tf.control_inputs = ["node", ...]` (node names; the producing ops carry them as loc).
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from compiler.ir.build import FastBuilt
from compiler.ir.typed import int_of
from dialects.common import (
    check_len,
    check_one_of,
    check_rank,
    check_same_element_type,
    dims_compatible,
)
from dialects.tf_opdefs import OPDEFS

#: The tf dialect's closed sets stay TensorFlow's strings (checked with check_one_of, not
#: EnumAttributes): its attributes mirror the GraphDef's AttrValues one for one.
PADDINGS = ("SAME", "VALID", "EXPLICIT")
DATA_FORMATS_2D = ("NHWC", "NCHW")


# --- types ---------------------------------------------------------------------------------


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """`!tf.string`: the element type of TensorFlow string tensors."""
    name = "tf.string"


@irdl_attr_definition
class ResourceType(ParametrizedAttribute, TypeAttribute):
    name = "tf.resource"


@irdl_attr_definition
class VariantType(ParametrizedAttribute, TypeAttribute):
    name = "tf.variant"


def is_variant(t: Attribute) -> bool:
    """A tensor of `!tf.variant` (a TensorList handle)."""
    elt = getattr(t, "element_type", None)
    return elt is not None and elt.name == "tf.variant"


@irdl_attr_definition
class DTypeType(ParametrizedAttribute, TypeAttribute):
    """`!tf.dtype<"qint8">`: any other TensorFlow dtype, by its name."""
    name = "tf.dtype"
    dtype: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        s = parser.parse_str_literal()
        parser.parse_punctuation(">")
        return [StringAttr(s)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.dtype.data)
        printer.print_string(">")


#: TensorFlow dtype name -> element type.
_SIMPLE_DTYPES: dict[str, Attribute] = {
    "float16": Float16Type(), "bfloat16": BFloat16Type(), "float32": Float32Type(),
    "float64": Float64Type(), "bool": IntegerType(1),
    "int8": IntegerType(8), "int16": IntegerType(16), "int32": IntegerType(32),
    "int64": IntegerType(64),
    "uint8": IntegerType(8, Signedness.UNSIGNED), "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED), "uint64": IntegerType(64, Signedness.UNSIGNED),
    "complex64": ComplexType(Float32Type()), "complex128": ComplexType(Float64Type()),
    "string": StringType(), "resource": ResourceType(), "variant": VariantType(),
}
_DTYPE_OF: dict[str, str] = {str(t): n for n, t in _SIMPLE_DTYPES.items()}


def element_type_of_dtype(name: str) -> Attribute:
    """TensorFlow dtype name (`float32`, `qint8`, ...) -> IR element type."""
    return _SIMPLE_DTYPES.get(name) or DTypeType(StringAttr(name))


def dtype_of_element_type(t: Attribute) -> str | None:
    """IR element type -> TensorFlow dtype name (None if it is no TensorFlow dtype)."""
    if isinstance(t, DTypeType):
        return t.dtype.data
    return _DTYPE_OF.get(str(t))


def element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, (TensorType, UnrankedTensorType)) else t


# --- attributes ----------------------------------------------------------------------------


@irdl_attr_definition
class ShapeAttr(ParametrizedAttribute):
    """`#tf.shape<1x?x3>`, `#tf.shape<>` (scalar), `#tf.shape<*>` (unknown rank)."""
    name = "tf.shape"
    dims: ArrayAttr[IntAttr]
    unranked: IntAttr

    def __init__(self, dims: Sequence[int] | None):
        super().__init__(ArrayAttr([IntAttr(max(int(d), -1)) for d in (dims or ())]),
                         IntAttr(1 if dims is None else 0))

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The dims (-1 unknown), or None for an unknown rank."""
        return None if self.unranked.data else tuple(d.data for d in self.dims.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            parser.parse_punctuation(">")
            return [ArrayAttr([]), IntAttr(1)]
        dims: list[int] = []
        if parser.parse_optional_punctuation(">") is None:
            dims.append(parser.parse_shape_dimension())
            while parser.parse_optional_punctuation(">") is None:
                parser.parse_shape_delimiter()
                dims.append(parser.parse_shape_dimension())
        return [ArrayAttr([IntAttr(max(d, -1)) for d in dims]), IntAttr(0)]

    def print_parameters(self, printer: Printer) -> None:
        shape = self.shape
        body = "*" if shape is None else "x".join("?" if d < 0 else str(d) for d in shape)
        printer.print_string(f"<{body}>")


@irdl_attr_definition
class StringsAttr(ParametrizedAttribute):
    """A string tensor: `#tf.strings<["a", "b\\00"] : tensor<2x!tf.string>>` (bytes, row-major)."""
    name = "tf.strings"
    values: ArrayAttr[StringAttr]  # each element's bytes, latin-1 decoded (lossless)
    type: TensorType

    def __init__(self, values: Sequence[bytes], shape: Sequence[int]):
        super().__init__(ArrayAttr([StringAttr(v.decode("latin-1")) for v in values]),
                         TensorType(StringType(), list(shape)))

    @property
    def bytes_values(self) -> list[bytes]:
        return [v.data.encode("latin-1") for v in self.values.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        items = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: _parse_bytes(parser))
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        parser.parse_punctuation(">")
        return [ArrayAttr([StringAttr(b.decode("latin-1")) for b in items]), typ]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<[")
        for i, v in enumerate(self.bytes_values):
            if i:
                printer.print_string(", ")
            printer.print_bytes_literal(v)
        printer.print_string("] : ")
        printer.print_attribute(self.type)
        printer.print_string(">")

    def verify(self) -> None:
        n = 1
        for d in self.type.get_shape():
            n *= d
        if len(self.values.data) != n:
            raise VerifyException(f"#tf.strings: {len(self.values.data)} values for a tensor of {n}")


@irdl_attr_definition
class BytesStringAttr(ParametrizedAttribute):
    """`#tf.bytes<"\\FF\\00">`: a string attribute whose bytes are not UTF-8."""
    name = "tf.bytes"
    value: StringAttr  # latin-1 decoded

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        b = _parse_bytes(parser)
        parser.parse_punctuation(">")
        return [StringAttr(b.decode("latin-1"))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_bytes_literal(self.value.data.encode("latin-1"))
        printer.print_string(">")


def _parse_bytes(parser: AttrParser) -> bytes:
    """A `"..."` literal as bytes, whether it lexes as a string or a bytes literal."""
    from xdsl.utils.mlir_lexer import StringLiteral

    tok = parser._current_token
    if tok.kind.name in ("STRING_LIT", "BYTES_LIT"):
        parser._consume_token()
        return StringLiteral.from_span(tok.span).bytes_contents
    parser.raise_error("string literal expected")


class _HexAttr(ParametrizedAttribute):
    hex: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        s = parser.parse_str_literal()
        parser.parse_punctuation(">")
        return [StringAttr(s)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.hex.data}">')

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.hex.data)


@irdl_attr_definition
class TensorProtoAttr(_HexAttr):
    """`#tf.tensor_proto<"08011204...">`: a serialized TensorProto (tensors of other dtypes)."""
    name = "tf.tensor_proto"


@irdl_attr_definition
class AttrValueAttr(_HexAttr):
    """`#tf.attr_value<"...">`: a serialized AttrValue of a kind without its own form
    (function-body `placeholder` attributes)."""
    name = "tf.attr_value"


@irdl_attr_definition
class FuncAttr(ParametrizedAttribute):
    """`#tf.func<@name, {attrs}>`: a func attribute with attributes (without: plain `@name`)."""
    name = "tf.func"
    func: SymbolRefAttr
    attrs: DictionaryAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        sym = parser.parse_attribute()
        parser.parse_punctuation(",")
        attrs = parser.parse_attribute()
        parser.parse_punctuation(">")
        return [sym, attrs]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.func)
        printer.print_string(", ")
        printer.print_attribute(self.attrs)
        printer.print_string(">")


TENSOR_ATTRS = (DenseIntOrFPElementsAttr, StringsAttr, TensorProtoAttr)
CONTROL_INPUTS = "tf.control_inputs"


def _is_bool(a: Attribute) -> bool:
    return isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType) and a.type.width.data == 1


def _kind_ok(kind: str, a: Attribute) -> bool:
    if kind.startswith("list("):
        inner = kind[5:-1]
        if inner == "int" and isinstance(a, DenseArrayBase):
            return True
        return isinstance(a, ArrayAttr) and all(_kind_ok(inner, x) for x in a.data)
    if isinstance(a, AttrValueAttr):
        return True
    if kind == "int":
        return isinstance(a, IntegerAttr) and not _is_bool(a)
    if kind == "float":
        return isinstance(a, FloatAttr)
    if kind == "bool":
        return _is_bool(a)
    if kind == "string":
        return isinstance(a, (StringAttr, BytesStringAttr))
    if kind == "type":
        return isinstance(a, TypeAttribute)
    if kind == "shape":
        return isinstance(a, ShapeAttr)
    if kind == "tensor":
        return isinstance(a, TENSOR_ATTRS)
    if kind == "func":
        return isinstance(a, (SymbolRefAttr, FuncAttr))
    return True


# --- hand-written ops ----------------------------------------------------------------------


class TFOp(FastBuilt):
    """Base of tf ops: operands, then a `{...}` attribute dictionary, then the function type."""

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class PlaceholderOp(TFOp):
    """A graph input.  Its operand is the function argument that feeds it.  `shape` is the
    node's shape attribute (`#tf.shape<...>`; the older `"1,?,3"` string is still accepted)."""

    name = "tf.Placeholder"
    input = operand_def()
    output = result_def()
    shape = opt_prop_def(base(StringAttr) | base(ShapeAttr))
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.input.type != self.output.type:
            raise VerifyException("tf.Placeholder: result type must equal the argument type")


@irdl_op_definition
class ConstOp(IRDLOperation):
    """`%w = tf.Const dense<...> : tensor<3x3x3x8xf32>` (hex for more than 100 elements);
    string tensors `tf.Const #tf.strings<[...] : tensor<...>>`."""

    name = "tf.Const"
    value = prop_def(DenseIntOrFPElementsAttr | StringsAttr | TensorProtoAttr)
    output = result_def()
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr | StringsAttr | TensorProtoAttr,
                 result_type: Attribute | None = None):
        if result_type is None:
            if isinstance(value, TensorProtoAttr):
                raise ValueError("tf.Const: a serialized TensorProto value needs its result type")
            result_type = value.type
        super().__init__(properties={"value": value}, result_types=[result_type])

    def verify_(self) -> None:
        if not isinstance(self.value, TensorProtoAttr) and self.value.type != self.output.type:
            raise VerifyException(
                f"tf.Const: value type {self.value.type} differs from result type {self.output.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if isinstance(self.value, TensorProtoAttr):
            printer.print_string(" : ")
            printer.print_attribute(self.output.type)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, (DenseIntOrFPElementsAttr, StringsAttr, TensorProtoAttr)):
            parser.raise_error("tf.Const expects a dense elements attribute", pos, parser.pos)
        typ = None
        if isinstance(value, TensorProtoAttr):
            parser.parse_punctuation(":")
            typ = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(value, typ)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


# --- extra checks of some ops (kept from the hand-written dialect, with their messages) ------


def _verify_conv2d(self) -> None:
    n = self.name
    if self.strides is None or self.padding is None:
        return
    check_len(n, "strides", self.strides, 4)
    if self.dilations is not None:
        check_len(n, "dilations", self.dilations, 4)
    padding = check_one_of(n, "padding", self.padding, PADDINGS)
    fmt = self.data_format.data if self.data_format is not None else "NHWC"
    if padding == "EXPLICIT":
        if self.explicit_paddings is None:
            raise VerifyException(f"{n}: padding EXPLICIT needs 'explicit_paddings'")
        check_len(n, "explicit_paddings", self.explicit_paddings, 8)
    x, w, y = self.input.type, self.filter.type, self.output.type
    if not all(isinstance(t, TensorType) for t in (x, w, y)):
        return
    for what, t in (("input", x), ("filter", w), ("result", y)):
        check_rank(n, what, t.get_shape(), (4,))
    check_same_element_type(n, x, w, y)
    if fmt in DATA_FORMATS_2D:
        cin = x.get_shape()[3 if fmt == "NHWC" else 1]
        wc = w.get_shape()[2]
        # a grouped conv (Keras Conv2D(groups=G)) has G times the filter's input channels
        if not (dims_compatible(cin, wc) or (cin > 0 and wc > 0 and cin % wc == 0)):
            raise VerifyException(
                f"{n}: input has {cin} channels but the filter (HWCN) expects {wc} "
                "(or a multiple of it, for a grouped conv)")


def _verify_bias_add(self) -> None:
    n = self.name
    fmt = self.data_format.data if self.data_format is not None else "NHWC"
    x, b, y = self.value.type, self.bias.type, self.output.type
    if not all(isinstance(t, TensorType) for t in (x, b, y)):
        return
    check_rank(n, "bias", b.get_shape(), (1,))
    check_same_element_type(n, x, b, y)
    if x.get_num_dims() < 2:
        raise VerifyException(f"{n}: value must have rank at least 2")
    if fmt in DATA_FORMATS_2D:
        c = x.get_shape()[-1 if fmt == "NHWC" else 1]
        if not dims_compatible(c, b.get_shape()[0]):
            raise VerifyException(f"{n}: bias has {b.get_shape()[0]} elements, channels are {c}")


def _same_type(self) -> None:
    if self.operands[0].type != self.results[0].type:
        raise VerifyException(f"{self.name}: result type must equal the operand type")


EXTRA_VERIFY = {"Conv2D": _verify_conv2d, "BiasAdd": _verify_bias_add,
                "Relu": _same_type, "Identity": _same_type}

#: Accessors kept from the hand-written ops: op type -> {alias: OpDef name}.
ALIASES = {"Relu": {"x": "features", "y": "activations"}}


# --- the generated ops ---------------------------------------------------------------------

_RESERVED = set(dir(IRDLOperation)) | {"name", "traits", "irdl_options", "assembly_format",
                                       "SPEC", "OP_TYPE"}


def py_name(name: str) -> str:
    """The Python field name of an OpDef argument or attribute (IR names never change)."""
    if keyword.iskeyword(name) or name in _RESERVED or name.startswith("_"):
        return name + "_"
    return name


def _is_variadic(arg: dict) -> bool:
    return "number_attr" in arg or "type_list_attr" in arg


def _check_attrs(op: IRDLOperation, spec: dict) -> None:
    n = op.name
    derived = {a.get("type_attr") for a in spec["inputs"] + spec["outputs"]} | \
              {a.get("type_list_attr") for a in spec["inputs"] + spec["outputs"]} | \
              {a.get("number_attr") for a in spec["inputs"] + spec["outputs"]}
    for a in spec["attrs"]:
        value = op.properties.get(a["name"])
        if value is None:
            if not a.get("has_default") and a["name"] not in derived:
                raise VerifyException(f"{n}: missing required attribute '{a['name']}' ({a['type']})")
            continue
        if not _kind_ok(a["type"], value):
            raise VerifyException(f"{n}: attribute '{a['name']}' must be a TensorFlow {a['type']}, "
                                  f"got {value}")
        allowed = a.get("allowed")
        if allowed and a["type"] == "string" and isinstance(value, StringAttr):
            check_one_of(n, a["name"], value, allowed)
        if allowed and a["type"] == "type":
            dt = dtype_of_element_type(value)
            if dt not in allowed:
                raise VerifyException(f"{n}: '{a['name']}' must be one of {', '.join(allowed)}; "
                                      f"got {dt or value}")
        if "minimum" in a and a["type"] == "int" and int_of(value) < a["minimum"]:
            raise VerifyException(f"{n}: '{a['name']}' must be at least {a['minimum']}")


def _check_types(op: GeneratedTFOp, spec: dict) -> None:
    n = op.name
    attr_kind = {a["name"]: a for a in spec["attrs"]}
    seen: dict[str, tuple[str, Attribute]] = {}
    for args, values, what in ((spec["inputs"], op._tf_operand_groups(), "operand"),
                               (spec["outputs"], op._tf_result_groups(), "result")):
        for arg, vals in zip(args, values):
            types = [element_type(v.type) for v in vals]
            if "number_attr" in arg:
                num = op.properties.get(arg["number_attr"])
                if isinstance(num, IntegerAttr) and num.value.data != len(vals):
                    raise VerifyException(f"{n}: {what} '{arg['name']}' has {len(vals)} values, "
                                          f"'{arg['number_attr']}' is {num.value.data}")
            if "type" in arg:
                for t in types:
                    if arg["type"] != "resource" and dtype_of_element_type(t) not in (arg["type"], None) \
                            and not arg.get("is_ref"):
                        raise VerifyException(f"{n}: {what} '{arg['name']}' must be {arg['type']}, "
                                              f"got {dtype_of_element_type(t)}")
            elif "type_attr" in arg:
                key = arg["type_attr"]
                for t in types:
                    if key in seen and seen[key][1] != t:
                        raise VerifyException(
                            f"{n}: {what} '{arg['name']}' has element type {t}, but "
                            f"'{seen[key][0]}' has {seen[key][1]} (both are '{key}')")
                    seen.setdefault(key, (arg["name"], t))
                    declared = op.properties.get(key)
                    if isinstance(declared, TypeAttribute) and declared != t:
                        raise VerifyException(f"{n}: {what} '{arg['name']}' has element type {t}, "
                                              f"but '{key}' = {declared}")
                    allowed = attr_kind.get(key, {}).get("allowed")
                    dt = dtype_of_element_type(t)
                    if allowed and dt not in allowed:
                        raise VerifyException(f"{n}: {what} '{arg['name']}': '{key}' must be one of "
                                              f"{', '.join(allowed)}; got {dt or t}")
            elif "type_list_attr" in arg:
                declared = op.properties.get(arg["type_list_attr"])
                if isinstance(declared, ArrayAttr):
                    if len(declared.data) != len(types) or any(
                            d != t for d, t in zip(declared.data, types)):
                        want = ", ".join(str(d) for d in declared.data)
                        got = ", ".join(str(t) for t in types)
                        raise VerifyException(f"{n}: {what} '{arg['name']}' has types ({got}), "
                                              f"'{arg['type_list_attr']}' says ({want})")


class GeneratedTFOp(TFOp):
    """Base of the ops built from `OPDEFS` (see the module docstring)."""

    OP_TYPE: ClassVar[str] = ""
    SPEC: ClassVar[dict] = {}

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any:
            """The operand, result and attribute fields `_make_op_class` generates from the OpDef."""

    def _tf_operand_groups(self) -> list[list]:
        return [list(v) if isinstance(v, Sequence) else [v] for v in
                (getattr(self, py_name(a["name"])) for a in self.SPEC["inputs"])]

    def _tf_result_groups(self) -> list[list]:
        return [list(v) if isinstance(v, Sequence) else [v] for v in
                (getattr(self, py_name(a["name"])) for a in self.SPEC["outputs"])]

    def verify_(self) -> None:
        _check_attrs(self, self.SPEC)
        extra = EXTRA_VERIFY.get(self.OP_TYPE)
        if extra is not None:
            extra(self)
        _check_types(self, self.SPEC)


def _make_op_class(op_type: str, spec: dict) -> type[IRDLOperation]:
    fields: dict = {"name": f"tf.{op_type}", "OP_TYPE": op_type, "SPEC": spec,
                    "__qualname__": f"{op_type}Op", "__module__": __name__}
    n_var_in = sum(_is_variadic(a) for a in spec["inputs"])
    n_var_out = sum(_is_variadic(a) for a in spec["outputs"])
    for a in spec["inputs"]:
        fields[py_name(a["name"])] = var_operand_def() if _is_variadic(a) else operand_def()
    for a in spec["outputs"]:
        fields[py_name(a["name"])] = var_result_def() if _is_variadic(a) else result_def()
    for a in spec["attrs"]:
        fields[py_name(a["name"])] = opt_prop_def(Attribute, prop_name=a["name"])
    options: list = [ParsePropInAttrDict()]
    if n_var_in > 1:
        options.append(AttrSizedOperandSegments(as_property=True))
    if n_var_out > 1:
        options.append(AttrSizedResultSegments(as_property=True))
    fields["irdl_options"] = tuple(options)
    if n_var_in > 1 or n_var_out > 1 or not spec["inputs"] or not spec["outputs"]:
        fields["assembly_format"] = None  # generic form
    if not spec["stateful"] and op_type not in ("NoOp",):
        fields["traits"] = traits_def(Pure())
    else:
        fields["traits"] = traits_def()
    fields["__annotations__"] = {"OP_TYPE": ClassVar[str], "SPEC": ClassVar[dict]}
    cls = type(f"{op_type}Op", (GeneratedTFOp,), fields)
    cls = irdl_op_definition(cls)
    for alias, target in ALIASES.get(op_type, {}).items():
        setattr(cls, alias, property(attrgetter(target)))
    return cls


class _OpClasses(Mapping[str, type[Operation]]):
    """op type -> op class, for every typed op.  A generated class is built the first time it is
    looked up (the 148 classes cost ~0.1 s of start-up, and a model uses a dozen of them)."""

    def __init__(self, hand_written: dict[str, type[Operation]]):
        self._built = dict(hand_written)
        self._types = [t for t in OPDEFS if t not in hand_written] + list(hand_written)

    def __getitem__(self, op_type: str) -> type[Operation]:
        cls = self._built.get(op_type)
        if cls is None:
            if op_type not in OPDEFS:
                raise KeyError(op_type)
            cls = self._built[op_type] = _make_op_class(op_type, OPDEFS[op_type])
        return cls

    def __contains__(self, op_type: object) -> bool:
        return op_type in self._built or op_type in OPDEFS

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)


#: op type -> op class, for every typed op (generated classes built on first use).
OP_CLASSES: Mapping[str, type[Operation]] = _OpClasses({"Const": ConstOp, "Placeholder": PlaceholderOp})


def __getattr__(name: str) -> type[GeneratedTFOp]:
    """`dialects.tf.Conv2DOp`: a generated class, built on first use."""
    if name.endswith("Op") and name[:-2] in OPDEFS:
        cls = OP_CLASSES[name[:-2]]
        if issubclass(cls, GeneratedTFOp):
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- any other op --------------------------------------------------------------------------


class GenericTFOp(Operation):
    """A TensorFlow op type without a typed class: any operands, results and attributes."""

    name = "tf.generic"
    traits = traits_def()

    def verify_(self) -> None:
        pass


_GENERIC: dict[str, type[Operation]] = {}


def generic_op_class(op_type: str) -> type[Operation]:
    """The class of `tf.<op_type>` for an op type the dialect does not define (made once)."""
    if op_type in OP_CLASSES:
        return OP_CLASSES[op_type]
    cls = _GENERIC.get(op_type)
    if cls is None:
        cls = type(f"Generic_{op_type}", (GenericTFOp,), {"name": f"tf.{op_type}"})
        _GENERIC[op_type] = cls
    return cls


class TFContext(Context):
    """A context in which any `tf.<Name>` op parses: typed if the dialect defines it, else a
    `GenericTFOp` class made on demand."""

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()):
        known = self._get_known_op(name)
        if known is None and name.startswith("tf.") and "tf" in self._loaded_dialects:
            known = generic_op_class(name[3:])  # typed (built now) or generic
            self._loaded_ops[name] = known
            return known
        return super().get_optional_op(name, dialect_stack=dialect_stack)


#: The generated op classes are not listed: `TFContext` resolves every `tf.<Name>` on demand.
TF = Dialect(
    "tf",
    [ConstOp, PlaceholderOp],
    [StringType, ResourceType, VariantType, DTypeType, ShapeAttr, StringsAttr, BytesStringAttr,
     TensorProtoAttr, AttrValueAttr, FuncAttr],
)
