"""The `cann` dialect: the CANN operator library (names as CANN spells them).

A tensor's storage layout rides on its type as `#cann.format<...>`:
  tensor<1x1x8x8x16xf32, #cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>>
is an NHWC tensor of origin shape 1x8x8x3 stored as NC1HWC0 (C padded to C0 = 16).  A type
without the attribute is in its origin format (the data_format attribute of the op says which).
Both descriptors are kept because the origin cannot be recovered from the storage shape
(cann-facts.md section 1).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from compiler.formats import FORMAT_NAMES, Format, storage_shape
from dialects.common import (
    I64Array,
    check_len,
    check_one_of,
    check_rank,
    check_same_element_type,
    dims_compatible,
    numpy_dtype,
)


@irdl_attr_definition
class FormatAttr(ParametrizedAttribute):
    """`#cann.format<NC1HWC0>` or `#cann.format<NC1HWC0, origin NHWC [1, 8, 8, 3]>`."""

    name = "cann.format"

    format: StringAttr
    origin_format: StringAttr
    origin_shape: ArrayAttr[IntAttr]

    def __init__(self, fmt: Format | str, origin_format: Format | str | None = None,
                 origin_shape: Sequence[int] = ()):
        fmt = Format(fmt).value
        ofmt = Format(origin_format).value if origin_format is not None else ""
        super().__init__(StringAttr(fmt), StringAttr(ofmt),
                         ArrayAttr([IntAttr(int(d)) for d in origin_shape]))

    @property
    def fmt(self) -> Format:
        return Format(self.format.data)

    @property
    def origin_fmt(self) -> Format | None:
        return Format(self.origin_format.data) if self.origin_format.data else None

    @property
    def origin(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.origin_shape.data)

    def verify(self) -> None:
        if self.format.data not in FORMAT_NAMES:
            raise VerifyException(
                f"unknown format '{self.format.data}'; known: {', '.join(FORMAT_NAMES)}")
        if self.origin_format.data and self.origin_format.data not in FORMAT_NAMES:
            raise VerifyException(f"unknown origin format '{self.origin_format.data}'")
        if bool(self.origin_format.data) != bool(self.origin_shape.data):
            raise VerifyException("#cann.format: origin format and origin shape go together")
        if self.origin_format.data:
            try:  # the element type only changes C0, not whether the rule exists
                storage_shape(self.fmt, Format(self.origin_format.data), self.origin, "float32")
            except ValueError as e:
                raise VerifyException(f"#cann.format<{self.format.data}, origin "
                                      f"{self.origin_format.data} {list(self.origin)}>: {e}") from None

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.format.data)
            if self.origin_format.data:
                printer.print_string(f", origin {self.origin_format.data} [")
                printer.print_string(", ".join(str(d) for d in self.origin))
                printer.print_string("]")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def parse_format() -> str:
            pos = parser.pos
            name = parser.parse_identifier()
            if name not in FORMAT_NAMES:
                parser.raise_error(
                    f"unknown format '{name}'; known: {', '.join(FORMAT_NAMES)}", pos, parser.pos)
            return name

        with parser.in_angle_brackets():
            fmt = parse_format()
            ofmt, oshape = "", []
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("origin")
                ofmt = parse_format()
                oshape = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_integer)
        return (StringAttr(fmt), StringAttr(ofmt), ArrayAttr([IntAttr(d) for d in oshape]))


def format_of(t: Attribute) -> FormatAttr | None:
    if isinstance(t, TensorType) and isinstance(t.encoding, FormatAttr):
        return t.encoding
    return None


def origin_shape(t: TensorType) -> tuple[int, ...]:
    """The framework-visible shape (the origin shape when the type carries a storage format)."""
    f = format_of(t)
    if f is not None and f.origin:
        return f.origin
    return tuple(t.get_shape())


def storage_type(t: TensorType, fmt: Format, origin_format: Format) -> TensorType:
    """The type of `t` (origin shape, origin_format) stored as `fmt`."""
    shape = tuple(t.get_shape())
    sshape = storage_shape(fmt, origin_format, shape, numpy_dtype(t.element_type))
    return TensorType(t.element_type, sshape, FormatAttr(fmt, origin_format, shape))


def verify_format_shape(op_name: str, what: str, t: TensorType) -> None:
    """A formatted type's storage shape must be the one the format rule gives for its origin."""
    f = format_of(t)
    if f is None or f.origin_fmt is None:
        return
    want = storage_shape(f.fmt, f.origin_fmt, f.origin, numpy_dtype(t.element_type))
    if tuple(t.get_shape()) != tuple(want):
        raise VerifyException(
            f"{op_name}: {what} stored as {f.fmt.value} from {f.origin_fmt.value} "
            f"{list(f.origin)} must have shape {list(want)}, got {list(t.get_shape())}")


class CannOp(IRDLOperation):
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        for i, v in enumerate(self.operands):
            if isinstance(v.type, TensorType):
                verify_format_shape(self.name, f"operand #{i}", v.type)
        for i, r in enumerate(self.results):
            if isinstance(r.type, TensorType):
                verify_format_shape(self.name, f"result #{i}", r.type)
        self.verify_op()

    def verify_op(self) -> None:
        pass


@irdl_op_definition
class ConstOp(IRDLOperation):
    """`%w = cann.Const dense<...> : tensor<...> -> tensor<..., #cann.format<FRACTAL_Z, ...>>`.

    The value holds the storage data (already in its device layout); the result type may carry
    the format.  Without a format the second type is omitted.
    """

    name = "cann.Const"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr, result_type: TensorType | None = None):
        super().__init__(properties={"value": value},
                         result_types=[result_type or value.type])

    def verify_(self) -> None:
        vt, rt = self.value.type, self.output.type
        if tuple(vt.get_shape()) != tuple(rt.get_shape()) or vt.element_type != rt.element_type:
            raise VerifyException(
                f"cann.Const: value type {vt} does not match result type {rt}")
        verify_format_shape(self.name, "result", rt)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if self.output.type != self.value.type:
            printer.print_string(" -> ")
            printer.print_attribute(self.output.type)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("cann.Const expects a dense elements attribute", pos, parser.pos)
        rtype = None
        if parser.parse_optional_punctuation("->"):
            rtype = parser.parse_type()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(value, rtype)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


class ConvLike(CannOp):
    """Conv2D attributes as CANN takes them: 4-tuples in data_format order, explicit pads."""

    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    groups = prop_def(IntegerAttr)
    data_format = prop_def(StringAttr)
    traits = traits_def(Pure())

    def geometry(self):
        """(strides_hw, dilations_hw, pads [t, b, l, r]) independent of data_format."""
        from dialects.common import ints

        s, d = ints(self.strides), ints(self.dilations)
        if self.data_format.data == "NHWC":
            return (s[1], s[2]), (d[1], d[2]), ints(self.pads)
        return (s[2], s[3]), (d[2], d[3]), ints(self.pads)

    def verify_op(self) -> None:
        n = self.name
        fmt = check_one_of(n, "data_format", self.data_format, ("NHWC", "NCHW"))
        s = check_len(n, "strides", self.strides, 4)
        d = check_len(n, "dilations", self.dilations, 4)
        pads = check_len(n, "pads", self.pads, 4)
        nc = (0, 3) if fmt == "NHWC" else (0, 1)
        if any(s[i] != 1 for i in nc) or any(d[i] != 1 for i in nc):
            raise VerifyException(f"{n}: strides and dilations on N and C must be 1")
        if any(v < 1 for v in s + d) or any(p < 0 for p in pads):
            raise VerifyException(f"{n}: strides and dilations must be >= 1, pads >= 0")
        if self.groups.value.data != 1:
            raise VerifyException(f"{n}: only groups = 1 is supported here")
        x, w, y = self.x.type, self.filter.type, self.y.type
        xs, ws, ys = origin_shape(x), origin_shape(w), origin_shape(y)
        check_rank(n, "x", xs, (4,))
        check_rank(n, "filter", ws, (4,))
        check_rank(n, "y", ys, (4,))
        check_same_element_type(n, x, w, y)
        cin = xs[3] if fmt == "NHWC" else xs[1]
        if not dims_compatible(cin, ws[2]):
            raise VerifyException(f"{n}: x has {cin} channels, the filter (HWCN) expects {ws[2]}")
        cout = ys[3] if fmt == "NHWC" else ys[1]
        if not dims_compatible(cout, ws[3]):
            raise VerifyException(f"{n}: y has {cout} channels, the filter has {ws[3]} outputs")
        if self.bias is not None:
            bs = origin_shape(self.bias.type)
            if len(bs) != 1 or not dims_compatible(bs[0], ws[3]):
                raise VerifyException(f"{n}: bias must be 1-D of length {ws[3]}, got {list(bs)}")


@irdl_op_definition
class Conv2DOp(ConvLike):
    name = "cann.Conv2D"


ACTIVATIONS = ("none", "Relu")


@irdl_op_definition
class FusedConv2DOp(ConvLike):
    """Conv2D with bias and an activation epilogue, run as one kernel (UB fusion)."""

    name = "cann.FusedConv2D"
    activation = prop_def(StringAttr)

    def verify_op(self) -> None:
        super().verify_op()
        check_one_of(self.name, "activation", self.activation, ACTIVATIONS)


@irdl_op_definition
class BiasAddOp(CannOp):
    name = "cann.BiasAdd"
    x = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = prop_def(StringAttr)
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        n = self.name
        fmt = check_one_of(n, "data_format", self.data_format, ("NHWC", "NCHW", "ND"))
        xs, bs = origin_shape(self.x.type), origin_shape(self.bias.type)
        check_rank(n, "bias", bs, (1,))
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got rank {len(xs)}")
        check_same_element_type(n, self.x.type, self.bias.type, self.y.type)
        if self.x.type != self.y.type:
            raise VerifyException(f"{n}: result type must equal the type of x")
        c = xs[1] if fmt == "NCHW" else xs[-1]
        if not dims_compatible(c, bs[0]):
            raise VerifyException(f"{n}: bias has {bs[0]} elements, channels are {c}")


@irdl_op_definition
class ReluOp(CannOp):
    name = "cann.Relu"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        if self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: result type must equal the operand type")


@irdl_op_definition
class TransDataOp(CannOp):
    """`TransData(src) -> dst` with src_format, dst_format, groups (transformation_ops.h)."""

    name = "cann.TransData"
    src = operand_def(TensorType)
    dst = result_def(TensorType)
    src_format = prop_def(StringAttr)
    dst_format = prop_def(StringAttr)
    groups = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        n = self.name
        sf = check_one_of(n, "src_format", self.src_format, FORMAT_NAMES)
        df = check_one_of(n, "dst_format", self.dst_format, FORMAT_NAMES)
        st, dt = self.src.type, self.dst.type
        check_same_element_type(n, st, dt)
        for what, t, f in (("source", st, sf), ("result", dt, df)):
            tf = format_of(t)
            actual = tf.fmt.value if tf is not None else None
            if actual is not None and actual != f:
                raise VerifyException(f"{n}: {what} type is stored as {actual}, attribute says {f}")
        if origin_shape(st) != origin_shape(dt):
            raise VerifyException(
                f"{n}: source and result must have one origin shape, got "
                f"{list(origin_shape(st))} and {list(origin_shape(dt))}")


CANN = Dialect(
    "cann",
    [ConstOp, Conv2DOp, FusedConv2DOp, BiasAddOp, ReluOp, TransDataOp],
    [FormatAttr],
)
