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
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (Commutative, ConstantLike, HasCanonicalizationPatternsTrait, HasParent,
                         IsolatedFromAbove, IsTerminator, Pure, SymbolTable)

from dialects.op_kinds import (Broadcast, Constant, Cube, Elementwise, Injective, Opaque,
                               OutputFusable, Reduction, View)
from dialects.layouts import RunsOn
from xdsl.utils.exceptions import VerifyException

from compiler.ir.typed import elem_of, shape_of, tensor_of
from compiler.target.formats import FORMAT_NAMES, Format, storage_shape
from xdsl.dialects.utils import EnumAttribute
from xdsl.utils.str_enum import StrEnum

from dialects.common import (
    EnumProperties,
    enum_prop,
    StringLiteralEnum,
    ints,
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
    groups: IntAttr  # FRACTAL_Z of a grouped / depthwise filter (enlargement rule); else 1
    #: 1: a grouped Conv2D's filter (kh, kw, Cin/G, Cout), printed `groups G conv`; 0: a HWCN
    #: origin (kh, kw, a, b) with a == groups is TF's depthwise filter (formats.storage_shape)
    grouped_conv: IntAttr

    def __init__(self, fmt: Format | str, origin_format: Format | str | None = None,
                 origin_shape: Sequence[int] = (), groups: int = 1, grouped_conv: bool = False):
        fmt = Format(fmt).value
        ofmt = Format(origin_format).value if origin_format is not None else ""
        super().__init__(StringAttr(fmt), StringAttr(ofmt),
                         ArrayAttr([IntAttr(int(d)) for d in origin_shape]), IntAttr(int(groups)),
                         IntAttr(int(bool(grouped_conv))))

    @property
    def groups_value(self) -> int:
        return self.groups.data

    @property
    def is_grouped_conv(self) -> bool:
        return bool(self.grouped_conv.data)

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
                storage_shape(self.fmt, Format(self.origin_format.data), self.origin, "float32",
                              self.groups.data, self.is_grouped_conv)
            except ValueError as e:
                raise VerifyException(f"#cann.format<{self.format.data}, origin "
                                      f"{self.origin_format.data} {list(self.origin)}>: {e}") from None

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.format.data)
            if self.origin_format.data:
                printer.print_string(f", origin {self.origin_format.data} [")
                printer.print_string(", ".join("?" if d < 0 else str(d) for d in self.origin))
                printer.print_string("]")
            if self.groups.data != 1:
                printer.print_string(f", groups {self.groups.data}")
                if self.grouped_conv.data:
                    printer.print_string(" conv")

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
            ofmt, oshape, groups, gconv = "", [], 1, 0
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("origin")
                ofmt = parse_format()
                oshape = parser.parse_comma_separated_list(  # `?`: a dynamic dimension
                    parser.Delimiter.SQUARE,
                    lambda: -1 if parser.parse_optional_punctuation("?") else parser.parse_integer())
                if parser.parse_optional_punctuation(","):
                    parser.parse_keyword("groups")
                    groups = parser.parse_integer()
                    gconv = int(parser.parse_optional_keyword("conv") is not None)
        return (StringAttr(fmt), StringAttr(ofmt), ArrayAttr([IntAttr(d) for d in oshape]),
                IntAttr(groups), IntAttr(gconv))


def format_of(t: Attribute) -> FormatAttr | None:
    if isinstance(t, TensorType) and isinstance(t.encoding, FormatAttr):
        return t.encoding
    return None


def origin_shape(t: Attribute) -> tuple[int, ...]:
    """The framework-visible shape (the origin shape when the type carries a storage format)."""
    f = format_of(t)
    if f is not None and f.origin:
        return f.origin
    return shape_of(t)


def storage_type(t: Attribute, fmt: Format, origin_format: Format, groups: int = 1,
                 grouped_conv: bool = False) -> TensorType:
    """The type of `t` (origin shape, origin_format) stored as `fmt` (`groups`: grouped FRACTAL_Z;
    `grouped_conv`: of a grouped Conv2D's filter, never read as a depthwise one)."""
    t = tensor_of(t)
    shape = tuple(t.get_shape())
    sshape = storage_shape(fmt, origin_format, shape, numpy_dtype(t.element_type), groups,
                           grouped_conv)
    return TensorType(t.element_type, sshape, FormatAttr(fmt, origin_format, shape, groups,
                                                         grouped_conv))


#: id -> formatted type found consistent (types are immutable; the entry keeps its id taken).
_CONSISTENT: dict[int, TensorType] = {}


def verify_format_shape(op_name: str, what: str, t: TensorType) -> None:
    """A formatted type's storage shape must be the one the format rule gives for its origin."""
    f = format_of(t)
    if f is None or f.origin_fmt is None or _CONSISTENT.get(id(t)) is t:
        return
    want = storage_shape(f.fmt, f.origin_fmt, f.origin, numpy_dtype(t.element_type), f.groups.data,
                         f.is_grouped_conv)
    if tuple(-1 if d < 0 else d for d in t.get_shape()) != tuple(want):
        raise VerifyException(
            f"{op_name}: {what} stored as {f.fmt.value} from {f.origin_fmt.value} "
            f"{list(f.origin)} must have shape {list(want)}, got {list(t.get_shape())}")
    if len(_CONSISTENT) > 100_000:
        _CONSISTENT.clear()
    _CONSISTENT[id(t)] = t


class DataFormat(StrEnum):
    """The origin layout an op's 4-D operands are read in (each op allows its subset)."""

    NHWC = "NHWC"
    NCHW = "NCHW"
    ND = "ND"


@irdl_attr_definition
class DataFormatAttr(EnumAttribute[DataFormat], StringLiteralEnum):
    """`data_format = "NHWC"` (dialects/common.py: closed sets)."""

    name = "cann.data_format"


class Activation(StrEnum):
    """Epilogue activations of the fused ops (numpy semantics: compiler/interpreters/fused_impl.py).
    Gelu is the tanh approximation (CANN's Gelu), GeluErf the exact erf form, Swish x*sigmoid(x),
    HardSwish x*relu6(x+3)/6, LeakyRelu uses the op's `alpha`."""

    none = "none"
    Relu = "Relu"
    Relu6 = "Relu6"
    Sigmoid = "Sigmoid"
    Tanh = "Tanh"
    Swish = "Swish"
    Gelu = "Gelu"
    GeluErf = "GeluErf"
    FastGelu = "FastGelu"
    LeakyRelu = "LeakyRelu"
    HardSwish = "HardSwish"
    Elu = "Elu"


@irdl_attr_definition
class ActivationAttr(EnumAttribute[Activation], StringLiteralEnum):
    """`activation = "Relu"` (dialects/common.py: closed sets)."""

    name = "cann.activation"


class CannOp(EnumProperties):
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


class ReshapeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from compiler.transforms.canonicalization import ReshapeNoop

        return (ReshapeNoop(),)


class TransposeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from compiler.transforms.canonicalization import ScalarMulThroughTranspose, TransposeNoop

        return (TransposeNoop(), ScalarMulThroughTranspose())


class BatchMatMulCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from compiler.transforms.canonicalization import BatchMatMulTransposes, ScalarMulOutOfMatMul

        return (BatchMatMulTransposes(), ScalarMulOutOfMatMul())


class CastCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from compiler.transforms.canonicalization import CastNoop

        return (CastNoop(),)


class TransDataCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from compiler.transforms.canonicalization import TransDataInverse

        return (TransDataInverse(),)


@irdl_op_definition
class ConstOp(IRDLOperation):
    """`%w = cann.Const dense<...> : tensor<...> -> tensor<..., #cann.format<FRACTAL_Z, ...>>`.

    The value holds the storage data (already in its device layout); the result type may carry
    the format.  Without a format the second type is omitted.
    """

    name = "cann.Const"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), Constant(), ConstantLike())

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
        if rtype is not None and not isinstance(rtype, TensorType):
            parser.raise_error("cann.Const expects a tensor result type", pos, parser.pos)
        op = cls(value, rtype)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


def conv_geometry(op) -> tuple[tuple[int, int], tuple[int, int], tuple[int, ...]]:
    """(strides_hw, dilations_hw, pads [t, b, l, r]) of a conv-like op, whatever its data_format."""
    from dialects.common import ints

    s, d = ints(op.strides), ints(op.dilations)
    if op.data_format.data == DataFormat.NHWC:
        return (s[1], s[2]), (d[1], d[2]), ints(op.pads)
    return (s[2], s[3]), (d[2], d[3]), ints(op.pads)


def verify_conv_attributes(op) -> str:
    """CANN's conv attribute rules: 4-tuples in data_format order (N, C = 1), explicit pads."""
    n = op.name
    fmt = check_one_of(n, "data_format", op.data_format, (DataFormat.NHWC, DataFormat.NCHW))
    s = check_len(n, "strides", op.strides, 4)
    d = check_len(n, "dilations", op.dilations, 4)
    pads = check_len(n, "pads", op.pads, 4)
    nc = (0, 3) if fmt == DataFormat.NHWC else (0, 1)
    if any(s[i] != 1 for i in nc) or any(d[i] != 1 for i in nc):
        raise VerifyException(f"{n}: strides and dilations on N and C must be 1")
    if any(v < 1 for v in s + d) or any(p < 0 for p in pads):
        raise VerifyException(f"{n}: strides and dilations must be >= 1, pads >= 0")
    return fmt


def check_conv_result_shape(op, fmt: str, xs, ws, cout: int, ys) -> None:
    """The result shape of a conv-like op (HWCN filter `ws`, `cout` output channels)."""
    (sh, sw), (dh, dw), (pt, pb, pl, pr) = conv_geometry(op)
    h, w = (xs[1], xs[2]) if fmt == "NHWC" else (xs[2], xs[3])
    ho = (h + pt + pb - dh * (ws[0] - 1) - 1) // sh + 1 if h >= 0 and ws[0] >= 0 else -1
    wo = (w + pl + pr - dw * (ws[1] - 1) - 1) // sw + 1 if w >= 0 and ws[1] >= 0 else -1
    _check_result_shape(op.name, (xs[0], ho, wo, cout) if fmt == "NHWC" else (xs[0], cout, ho, wo),
                        ys)


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
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = conv_geometry

    def verify_op(self) -> None:
        n = self.name
        fmt = verify_conv_attributes(self)
        g = self.groups.value.data
        if g < 1:
            raise VerifyException(f"{n}: groups must be >= 1, got {g}")
        x, w, y = self.x.type, self.filter.type, self.y.type
        xs, ws, ys = origin_shape(x), origin_shape(w), origin_shape(y)
        check_rank(n, "x", xs, (4,))
        check_rank(n, "filter", ws, (4,))
        check_rank(n, "y", ys, (4,))
        check_same_element_type(n, x, w, y)
        cin = xs[3] if fmt == DataFormat.NHWC else xs[1]
        # grouped (groups = G): the filter (HWCN) is (kh, kw, Cin/G, Cout), group g reads input
        # channels [g*Cin/G, (g+1)*Cin/G) and writes outputs [g*Cout/G, (g+1)*Cout/G)
        if not dims_compatible(cin, ws[2] * g if ws[2] >= 0 else -1):
            raise VerifyException(f"{n}: x has {cin} channels, the filter (HWCN) expects "
                                  f"{ws[2]}" + (f" x {g} groups" if g != 1 else ""))
        cout = ys[3] if fmt == DataFormat.NHWC else ys[1]
        if not dims_compatible(cout, ws[3]):
            raise VerifyException(f"{n}: y has {cout} channels, the filter has {ws[3]} outputs")
        if g != 1 and ws[3] >= 0 and ws[3] % g:
            raise VerifyException(f"{n}: the filter's {ws[3]} outputs are not a multiple of {g} groups")
        if self.bias is not None:
            bs = origin_shape(self.bias.type)
            if len(bs) != 1 or not dims_compatible(bs[0], ws[3]):
                raise VerifyException(f"{n}: bias must be 1-D of length {ws[3]}, got {list(bs)}")
        check_conv_result_shape(self, fmt, xs, ws, ws[3], ys)  # last: the rules above say more


@irdl_op_definition
class Conv2DOp(ConvLike):
    name = "cann.Conv2D"


@irdl_op_definition
class FusedConv2DOp(ConvLike):
    """Conv2D with bias and an activation epilogue, run as one kernel (UB fusion)."""

    name = "cann.FusedConv2D"
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)  # LeakyRelu's negative slope

    def verify_op(self) -> None:
        super().verify_op()


@irdl_op_definition
class BiasAddOp(CannOp):
    name = "cann.BiasAdd"
    x = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", params=("bias",)))

    def verify_op(self) -> None:
        n = self.name
        fmt = self.data_format.data
        xs, bs = origin_shape(self.x.type), origin_shape(self.bias.type)
        check_rank(n, "bias", bs, (1,))
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got rank {len(xs)}")
        check_same_element_type(n, self.x.type, self.bias.type, self.y.type)
        if self.x.type != self.y.type:
            raise VerifyException(f"{n}: result type must equal the type of x")
        c = xs[1] if fmt == DataFormat.NCHW else xs[-1]
        if not dims_compatible(c, bs[0]):
            raise VerifyException(f"{n}: bias has {bs[0]} elements, channels are {c}")


@irdl_op_definition
class ReluOp(CannOp):
    name = "cann.Relu"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_op(self) -> None:
        if _INFERRING is not None:  # the rule: y has x's shape
            _check_result_shape(self.name, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
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
    traits = traits_def(Pure(), Injective(), TransDataCanonicalization())

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
        if _INFERRING is not None:  # the rule: the result has the source's origin shape
            _check_result_shape(n, origin_shape(st), origin_shape(dt))
        elif not _shapes_match(tuple(origin_shape(st)), tuple(origin_shape(dt))):
            raise VerifyException(
                f"{n}: source and result must have one origin shape, got "
                f"{list(origin_shape(st))} and {list(origin_shape(dt))}")


# --- The CANN operator library beyond conv (cann-facts.md section 4) ----------------------------
# Every op below: a verifier (operand ranks/shapes/element types, attribute values, the result
# shape its attributes imply) and the generic custom form
# `cann.X operands {attrs} : (operand types) -> result types`.  Shapes are checked on ORIGIN shapes
# (an operand may carry a #cann.format storage encoding).  Dynamic dims (-1) match anything.

from xdsl.dialects.builtin import FloatAttr, DictionaryAttr  # noqa: E402
from xdsl.irdl import opt_prop_def  # noqa: E402


def _oshape(v) -> tuple[int, ...]:
    return tuple(origin_shape(v.type))


def _flag(attr) -> bool:
    return bool(attr.value.data) if attr is not None else False


def _fval(attr, default: float = 0.0) -> float:
    return float(attr.value.data) if attr is not None else default


def _shapes_match(a, b) -> bool:
    return len(a) == len(b) and all(dims_compatible(x, y) for x, y in zip(a, b))


def _fmt_shape(s) -> str:
    return "x".join("?" if d < 0 else str(d) for d in s) or "scalar"


#: While `inferred_result_shapes` runs a verifier: the result shapes its rules compute.
_INFERRING: list | None = None


def _check_result_shape(op_name: str, want, got) -> None:
    if _INFERRING is not None:
        _INFERRING.append(tuple(int(d) for d in want))
        return
    if not _shapes_match(tuple(want), tuple(got)):
        raise VerifyException(
            f"{op_name}: result shape must be {_fmt_shape(want)}, got {_fmt_shape(got)}")


def inferred_result_shapes(op) -> list[tuple[int, ...]] | None:
    """The (origin) result shapes of `op` its verifier's shape rules compute from its operands:
    the shape inference of a kernel tiled at dispatch (compiler/backend/runtime_tiling.py).
    None when the verifier states no rule for each result or fails on these operands."""
    global _INFERRING
    verify = getattr(op, "verify_", None)
    if verify is None:
        return None
    _INFERRING = []
    try:
        verify()
        got = _INFERRING
    except VerifyException:
        got = None
    finally:
        _INFERRING = None
    if got is None or len(got) != len(op.results):
        return None
    return got


def broadcast_shapes(op_name: str, *shapes) -> tuple[int, ...]:
    """numpy broadcasting of (origin) shapes; -1 is a dynamic dimension."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0}
        dims.discard(1)
        static = {d for d in dims if d >= 0}
        if len(static) > 1:
            raise VerifyException(
                f"{op_name}: shapes {', '.join(_fmt_shape(s) for s in shapes)} do not broadcast")
        out.append(static.pop() if static else (-1 if -1 in dims else 1))
    return tuple(out)


def _norm_axes(op_name: str, axes, rank: int) -> list[int]:
    out = []
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise VerifyException(f"{op_name}: axis {a} is out of range for rank {rank}")
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        raise VerifyException(f"{op_name}: repeated axis in {list(axes)}")
    return out


class UnaryCannOp(CannOp):
    """y = f(x) elementwise; y has x's type (its storage format too)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_op(self) -> None:
        if _INFERRING is not None:  # the rule: y has x's shape
            _check_result_shape(self.name, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: result type must equal the operand type")


@irdl_op_definition
class Relu6Op(UnaryCannOp):
    name = "cann.Relu6"


@irdl_op_definition
class SigmoidOp(UnaryCannOp):
    name = "cann.Sigmoid"


@irdl_op_definition
class TanhOp(UnaryCannOp):
    name = "cann.Tanh"


@irdl_op_definition
class EluOp(UnaryCannOp):
    name = "cann.Elu"
    alpha = opt_prop_def(FloatAttr)


@irdl_op_definition
class LeakyReluOp(UnaryCannOp):
    name = "cann.LeakyRelu"
    negative_slope = prop_def(FloatAttr)


@irdl_op_definition
class NegOp(UnaryCannOp):
    name = "cann.Neg"


@irdl_op_definition
class SqrtOp(UnaryCannOp):
    name = "cann.Sqrt"


@irdl_op_definition
class RsqrtOp(UnaryCannOp):
    name = "cann.Rsqrt"


@irdl_op_definition
class SquareOp(UnaryCannOp):
    name = "cann.Square"


@irdl_op_definition
class ErfOp(UnaryCannOp):
    name = "cann.Erf"


@irdl_op_definition
class ErfcOp(UnaryCannOp):
    name = "cann.Erfc"


@irdl_op_definition
class ExpOp(UnaryCannOp):
    name = "cann.Exp"


@irdl_op_definition
class LogOp(UnaryCannOp):
    name = "cann.Log"


@irdl_op_definition
class AbsOp(UnaryCannOp):
    name = "cann.Abs"


@irdl_op_definition
class ReciprocalOp(UnaryCannOp):
    name = "cann.Reciprocal"


@irdl_op_definition
class GeluOp(UnaryCannOp):
    """GELU, tanh approximation (CANN's Gelu)."""

    name = "cann.Gelu"


@irdl_op_definition
class GeluErfOp(UnaryCannOp):
    """GELU, exact: 0.5 x (1 + erf(x / sqrt 2)) (what the GELU recomposition rules build from
    tf.nn.gelu(approximate=False); the activation GeluErf of the fused ops)."""

    name = "cann.GeluErf"


@irdl_op_definition
class SoftplusOp(UnaryCannOp):
    """log(1 + exp(x)) (docs/extending.md's worked example)."""

    name = "cann.Softplus"


@irdl_op_definition
class FastGeluOp(UnaryCannOp):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))  (CANN's FastGelu)."""

    name = "cann.FastGelu"


class BinaryCannOp(CannOp):
    """y = f(x1, x2) elementwise with numpy broadcasting on the origin shapes."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast())

    def verify_op(self) -> None:
        n = self.name
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        want = broadcast_shapes(n, _oshape(self.x1), _oshape(self.x2))
        _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class AddOp(BinaryCannOp):
    name = "cann.Add"
    traits = traits_def(Commutative())


@irdl_op_definition
class MulOp(BinaryCannOp):
    name = "cann.Mul"
    traits = traits_def(Commutative())


@irdl_op_definition
class SubOp(BinaryCannOp):
    name = "cann.Sub"


@irdl_op_definition
class RealDivOp(BinaryCannOp):
    name = "cann.RealDiv"


@irdl_op_definition
class MaximumOp(BinaryCannOp):
    name = "cann.Maximum"
    traits = traits_def(Commutative())


@irdl_op_definition
class MinimumOp(BinaryCannOp):
    name = "cann.Minimum"
    traits = traits_def(Commutative())


@irdl_op_definition
class PowOp(BinaryCannOp):
    name = "cann.Pow"


@irdl_op_definition
class SquaredDifferenceOp(BinaryCannOp):
    name = "cann.SquaredDifference"


@irdl_op_definition
class SelectV2Op(CannOp):
    """y = condition ? then : else, broadcasting all three."""

    name = "cann.SelectV2"
    condition = operand_def(TensorType)
    then_value = operand_def(TensorType)
    else_value = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", fractal_nz="same"))

    def verify_op(self) -> None:
        n = self.name
        if str(elem_of(self.condition)) != "i1":
            raise VerifyException(f"{n}: condition must be a tensor of i1")
        check_same_element_type(n, self.then_value.type, self.else_value.type, self.y.type)
        want = broadcast_shapes(n, _oshape(self.condition), _oshape(self.then_value),
                                _oshape(self.else_value))
        _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class BNInferOp(CannOp):
    """Inference batch norm: y = (x - mean) / sqrt(variance + epsilon) * scale + offset,
    per channel (axis 1 for NCHW, the last axis for NHWC / ND)."""

    name = "cann.BNInfer"
    x = operand_def(TensorType)
    scale = operand_def(TensorType)
    offset = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    y = result_def(TensorType)
    epsilon = prop_def(FloatAttr)
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", params=("scale", "offset", "mean", "variance")))

    def verify_op(self) -> None:
        n = self.name
        fmt = self.data_format.data
        xs = _oshape(self.x)
        if len(xs) < 2:
            raise VerifyException(f"{n}: x must have rank at least 2, got rank {len(xs)}")
        c = xs[1] if fmt == DataFormat.NCHW else xs[-1]
        for what in ("scale", "offset", "mean", "variance"):
            s = _oshape(getattr(self, what))
            if len(s) != 1 or not dims_compatible(s[0], c):
                raise VerifyException(f"{n}: {what} must be 1-D of length {c}, got {_fmt_shape(s)}")
        if _fval(self.epsilon) < 0:
            raise VerifyException(f"{n}: epsilon must be >= 0")
        _check_result_shape(n, xs, _oshape(self.y))


@irdl_op_definition
class LayerNormOp(CannOp):
    """y = (x - mean) / sqrt(var + epsilon) * gamma + beta over axes >= begin_norm_axis
    (CANN's LayerNorm; its mean/variance side outputs are not materialised here)."""

    name = "cann.LayerNorm"
    x = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    begin_norm_axis = prop_def(IntegerAttr)
    begin_params_axis = prop_def(IntegerAttr)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), Reduction(), RunsOn(nc1hwc0="rows", fractal_nz="rows", params=("gamma", "beta")))

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        a = _norm_axes(n, [self.begin_norm_axis.value.data], len(xs))[0]
        p = _norm_axes(n, [self.begin_params_axis.value.data], len(xs))[0]
        for what in ("gamma", "beta"):
            s = _oshape(getattr(self, what))
            if not _shapes_match(s, xs[p:]):
                raise VerifyException(f"{n}: {what} must have shape {_fmt_shape(xs[p:])}, "
                                      f"got {_fmt_shape(s)}")
        del a
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))


def _matmul_dims(n: str, a, b, ta: bool, tb: bool):
    m, k = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    k2, nn = (b[-1], b[-2]) if tb else (b[-2], b[-1])
    if not dims_compatible(k, k2):
        raise VerifyException(f"{n}: contraction sizes differ: x1 gives {k}, x2 gives {k2}")
    return m, nn


@irdl_op_definition
class MatMulV2Op(CannOp):
    """y[M, N] = op(x1)[M, K] @ op(x2)[K, N] (+ bias[N]); op = transpose when transpose_x* is set."""

    name = "cann.MatMulV2"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    transpose_x1 = prop_def(IntegerAttr)
    transpose_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False, params=("bias",)))

    def verify_op(self) -> None:
        n = self.name
        a, b = _oshape(self.x1), _oshape(self.x2)
        check_rank(n, "x1", a, (2,))
        check_rank(n, "x2", b, (2,))
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        m, nn = _matmul_dims(n, a, b, _flag(self.transpose_x1), _flag(self.transpose_x2))
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], nn):
                raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (m, nn), _oshape(self.y))


@irdl_op_definition
class BatchMatMulV2Op(CannOp):
    """Batched matmul over the last two axes, batch axes broadcast; adj_x1/adj_x2 transpose."""

    name = "cann.BatchMatMulV2"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    adj_x1 = prop_def(IntegerAttr)
    adj_x2 = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False),
                        BatchMatMulCanonicalization())

    def verify_op(self) -> None:
        n = self.name
        a, b = _oshape(self.x1), _oshape(self.x2)
        if len(a) < 2 or len(b) < 2:
            raise VerifyException(f"{n}: operands must have rank at least 2")
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        m, nn = _matmul_dims(n, a, b, _flag(self.adj_x1), _flag(self.adj_x2))
        batch = broadcast_shapes(n, a[:-2], b[:-2])
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], nn):
                raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (*batch, m, nn), _oshape(self.y))


@irdl_op_definition
class DepthwiseConv2DOp(CannOp):
    """Depthwise conv: filter (kh, kw, Cin, multiplier), Cout = Cin * multiplier; explicit pads."""

    name = "cann.DepthwiseConv2D"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    data_format = enum_prop(DataFormatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = conv_geometry

    def verify_op(self) -> None:
        n = self.name
        fmt = verify_conv_attributes(self)
        xs, ws, ys = _oshape(self.x), _oshape(self.filter), _oshape(self.y)
        check_rank(n, "x", xs, (4,))
        check_rank(n, "filter", ws, (4,))
        check_rank(n, "y", ys, (4,))
        check_same_element_type(n, self.x.type, self.filter.type, self.y.type)
        ci = 3 if fmt == DataFormat.NHWC else 1
        if not dims_compatible(xs[ci], ws[2]):
            raise VerifyException(f"{n}: x has {xs[ci]} channels, the filter expects {ws[2]}")
        cout = ws[2] * ws[3] if ws[2] >= 0 and ws[3] >= 0 else -1
        if not dims_compatible(ys[ci], cout):
            raise VerifyException(f"{n}: y must have {cout} channels (Cin x multiplier), got {ys[ci]}")
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], cout):
                raise VerifyException(f"{n}: bias must be 1-D of length {cout}, got {_fmt_shape(bs)}")
        check_conv_result_shape(self, fmt, xs, ws, cout, ys)


@irdl_op_definition
class SoftmaxV2Op(CannOp):
    name = "cann.SoftmaxV2"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = prop_def(I64Array)
    traits = traits_def(Pure(), Reduction(), RunsOn(nc1hwc0="rows", fractal_nz="rows"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        _norm_axes(n, ints(self.axes), len(_oshape(self.x)))
        if _INFERRING is not None:  # the rule: y has x's shape
            _check_result_shape(n, _oshape(self.x), _oshape(self.y))
        elif self.x.type != self.y.type:
            raise VerifyException(f"{n}: result type must equal the operand type")


class PoolOp(CannOp):
    """MaxPool / AvgPool: ksize and strides are 4-tuples in data_format order, padding a string
    (SAME: TensorFlow's pads, the average counting only the elements inside the input)."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    ksize = prop_def(I64Array)
    strides = prop_def(I64Array)
    padding = prop_def(StringAttr)
    data_format = enum_prop(DataFormatAttr)
    # OutputFusable: the pool kernel runs a pointwise epilogue on its output rows in UB
    # (compiler/conversions/cann_to_kernel/vector.py PoolToVectorBody)
    traits = traits_def(Pure(), Opaque(), OutputFusable(), RunsOn(nc1hwc0="spatial", nd=False))

    def window(self):
        """((kh, kw), (sh, sw)) whatever the data_format."""
        from dialects.common import ints

        k, s = ints(self.ksize), ints(self.strides)
        if self.data_format.data == DataFormat.NCHW:
            return (k[2], k[3]), (s[2], s[3])
        return (k[1], k[2]), (s[1], s[2])

    def verify_op(self) -> None:
        from compiler.target.conv_geometry import out_size, same_pads

        n = self.name
        fmt = check_one_of(n, "data_format", self.data_format, (DataFormat.NHWC, DataFormat.NCHW))
        padding = check_one_of(n, "padding", self.padding, ("SAME", "VALID"))
        k = check_len(n, "ksize", self.ksize, 4)
        s = check_len(n, "strides", self.strides, 4)
        nc = (0, 3) if fmt == DataFormat.NHWC else (0, 1)
        if any(k[i] != 1 or s[i] != 1 for i in nc):
            raise VerifyException(f"{n}: ksize and strides on N and C must be 1")
        if any(v < 1 for v in k + s):
            raise VerifyException(f"{n}: ksize and strides must be >= 1")
        xs, ys = _oshape(self.x), _oshape(self.y)
        check_rank(n, "x", xs, (4,))
        check_same_element_type(n, self.x.type, self.y.type)
        hw = (1, 2) if fmt == DataFormat.NHWC else (2, 3)
        want = list(xs)
        for ax in hw:
            if xs[ax] < 0:
                want[ax] = -1
                continue
            pb, pe = same_pads(xs[ax], k[ax], s[ax], 1) if padding == "SAME" else (0, 0)
            if padding == "VALID" and k[ax] > xs[ax]:
                raise VerifyException(f"{n}: window {k[ax]} is larger than the input ({xs[ax]})")
            want[ax] = out_size(xs[ax], k[ax], s[ax], 1, pb, pe)
        _check_result_shape(n, want, ys)


@irdl_op_definition
class MaxPoolOp(PoolOp):
    name = "cann.MaxPool"


@irdl_op_definition
class AvgPoolOp(PoolOp):
    name = "cann.AvgPool"


class ReduceDOp(CannOp):
    """Reduction over constant `axes` (the "D" form: GE's ConstToAttrPass), keep_dims."""

    x = operand_def(TensorType)
    y = result_def(TensorType)
    axes = prop_def(I64Array)
    keep_dims = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Reduction(), RunsOn(nc1hwc0="reduce-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs = _oshape(self.x)
        axes = _norm_axes(n, ints(self.axes), len(xs))
        check_same_element_type(n, self.x.type, self.y.type)
        if _flag(self.keep_dims):
            want = [1 if i in axes else d for i, d in enumerate(xs)]
        else:
            want = [d for i, d in enumerate(xs) if i not in axes]
        _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class ReduceMeanDOp(ReduceDOp):
    name = "cann.ReduceMeanD"


@irdl_op_definition
class ReduceSumDOp(ReduceDOp):
    name = "cann.ReduceSumD"


@irdl_op_definition
class ReduceMaxDOp(ReduceDOp):
    name = "cann.ReduceMaxD"


@irdl_op_definition
class ReduceMinDOp(ReduceDOp):
    name = "cann.ReduceMinD"


@irdl_op_definition
class ReduceProdDOp(ReduceDOp):
    name = "cann.ReduceProdD"


@irdl_op_definition
class TransposeDOp(CannOp):
    name = "cann.TransposeD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    perm = prop_def(I64Array)
    traits = traits_def(Pure(), Injective(), TransposeCanonicalization())

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, perm = _oshape(self.x), ints(self.perm)
        if sorted(perm) != list(range(len(xs))):
            raise VerifyException(f"{n}: perm {list(perm)} is not a permutation of rank {len(xs)}")
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, [xs[p] for p in perm], _oshape(self.y))


@irdl_op_definition
class PadDOp(CannOp):
    """Zero padding; paddings = [before0, after0, before1, after1, ...] (one pair per axis)."""

    name = "cann.PadD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="pad-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, p = _oshape(self.x), ints(self.paddings)
        if len(p) != 2 * len(xs):
            raise VerifyException(f"{n}: 'paddings' must have {2 * len(xs)} values (a pair per "
                                  f"axis), got {len(p)}")
        if any(v < 0 for v in p):
            raise VerifyException(f"{n}: paddings must be >= 0")
        check_same_element_type(n, self.x.type, self.y.type)
        want = [d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(xs)]
        _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class ConcatV2DOp(CannOp):
    name = "cann.ConcatV2D"
    x = var_operand_def(TensorType)
    y = result_def(TensorType)
    concat_dim = prop_def(IntegerAttr)
    N = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="concat", fractal_nz="concat-nz"))

    def verify_op(self) -> None:
        n = self.name
        shapes = [_oshape(v) for v in self.x]
        if not shapes:
            raise VerifyException(f"{n}: needs at least one input")
        if self.N.value.data != len(shapes):
            raise VerifyException(f"{n}: N = {self.N.value.data} but there are {len(shapes)} inputs")
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise VerifyException(f"{n}: all inputs must have rank {rank}")
        axis = _norm_axes(n, [self.concat_dim.value.data], rank)[0]
        check_same_element_type(n, *[v.type for v in self.x], self.y.type)
        want = list(shapes[0])
        for s in shapes[1:]:
            for i in range(rank):
                if i != axis and not dims_compatible(s[i], want[i]):
                    raise VerifyException(f"{n}: inputs differ on axis {i} ({want[i]} vs {s[i]})")
        want[axis] = -1 if any(s[axis] < 0 for s in shapes) else sum(s[axis] for s in shapes)
        _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class CastOp(CannOp):
    """Element type conversion; dst_type is the result's element type."""

    name = "cann.Cast"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    dst_type = prop_def(Attribute)
    traits = traits_def(Pure(), Elementwise(), CastCanonicalization())

    def verify_op(self) -> None:
        n = self.name
        if self.dst_type != self.y.type.element_type:
            raise VerifyException(f"{n}: dst_type {self.dst_type} differs from the result's "
                                  f"element type {self.y.type.element_type}")
        _check_result_shape(n, _oshape(self.x), _oshape(self.y))
        if format_of(self.x.type) != format_of(self.y.type):
            raise VerifyException(f"{n}: operand and result must have one storage format")


@irdl_op_definition
class GatherV2DOp(CannOp):
    """y = take(x, indices, axis): the GatherV2 of a constant axis (GatherV2D)."""

    name = "cann.GatherV2D"
    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    y = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(fractal_nz="gather-rows", params=("x", "indices")))

    def verify_op(self) -> None:
        n = self.name
        xs, idx = _oshape(self.x), _oshape(self.indices)
        if str(elem_of(self.indices)) not in ("i32", "i64"):
            raise VerifyException(f"{n}: indices must be i32 or i64")
        axis = _norm_axes(n, [self.axis.value.data], len(xs))[0]
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, (*xs[:axis], *idx, *xs[axis + 1:]), _oshape(self.y))


@irdl_op_definition
class StridedSliceDOp(CannOp):
    """TensorFlow's StridedSlice with constant begin/end/strides and its five masks."""

    name = "cann.StridedSliceD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    begin = prop_def(I64Array)
    end = prop_def(I64Array)
    strides = prop_def(I64Array)
    begin_mask = prop_def(IntegerAttr)
    end_mask = prop_def(IntegerAttr)
    ellipsis_mask = prop_def(IntegerAttr)
    new_axis_mask = prop_def(IntegerAttr)
    shrink_axis_mask = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="slice-hw"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        b, e, s = ints(self.begin), ints(self.end), ints(self.strides)
        if not len(b) == len(e) == len(s):
            raise VerifyException(f"{n}: begin, end and strides must have one length")
        if any(v == 0 for v in s):
            raise VerifyException(f"{n}: strides must be non-zero")
        check_same_element_type(n, self.x.type, self.y.type)
        xs = _oshape(self.x)
        if all(d >= 0 for d in xs):
            import numpy as np

            from compiler.interpreters.slicing import strided_slice_index
            probe = np.zeros(xs, dtype=np.int8)
            try:
                want = probe[strided_slice_index(self, len(xs))].shape
            except (IndexError, ValueError) as ex:
                raise VerifyException(f"{n}: {ex}") from None
            _check_result_shape(n, want, _oshape(self.y))


@irdl_op_definition
class ReshapeOp(CannOp):
    """A view: the same elements in row-major order with a new shape (also Squeeze/ExpandDims)."""

    name = "cann.Reshape"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    shape = prop_def(I64Array)
    traits = traits_def(Pure(), View(), RunsOn(nc1hwc0="reshape-c", fractal_nz="batch-view"), ReshapeCanonicalization())

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, ys, shape = _oshape(self.x), _oshape(self.y), list(ints(self.shape))
        if shape.count(-1) == 1 and all(d >= 0 for d in xs):  # numpy's inferred dimension
            import math

            rest = math.prod(d for d in shape if d != -1)
            if rest and math.prod(xs) % rest == 0:
                shape[shape.index(-1)] = math.prod(xs) // rest
        _check_result_shape(n, shape, ys)
        check_same_element_type(n, self.x.type, self.y.type)
        if all(d >= 0 for d in xs + ys):
            import math

            if math.prod(xs) != math.prod(ys):
                raise VerifyException(f"{n}: cannot reshape {_fmt_shape(xs)} "
                                      f"({math.prod(xs)} elements) to {_fmt_shape(ys)}")


@irdl_op_definition
class HostCallOp(CannOp):
    """A TensorFlow op the device cannot run, executed on the host CPU (--allow-host-fallback).

    `op_type` is the TF op type, `tf_attrs` its TensorFlow attributes (under TF's names)."""

    name = "cann.HostCall"
    traits = traits_def(Opaque())
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    op_type = prop_def(StringAttr)
    tf_attrs = prop_def(DictionaryAttr)

    def verify_op(self) -> None:
        if not self.op_type.data:
            raise VerifyException(f"{self.name}: op_type must name a TensorFlow op")


# --- fused operators made by the fuse pass (compiler/transforms/fusion; semantics in fused_impl.py) ---------

@irdl_op_definition
class FusedConv2DAddOp(CannOp):
    """y = post_activation(activation(conv(x, filter) + bias) + residual): a conv with a
    residual-add epilogue (TbeConv2DEltwisePass's UB fusion)."""

    name = "cann.FusedConv2DAdd"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    residual = operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    groups = prop_def(IntegerAttr)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    post_activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = ConvLike.geometry

    def verify_op(self) -> None:
        ConvLike.verify_op(cast(ConvLike, self))  # the same fields: verified alike
        if _oshape(self.residual) != _oshape(self.y):
            raise VerifyException(f"{self.name}: residual must have the result's shape")


@irdl_op_definition
class FusedDepthwiseConv2DOp(CannOp):
    """DepthwiseConv2D (+ bias) with an activation epilogue."""

    name = "cann.FusedDepthwiseConv2D"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = DepthwiseConv2DOp.geometry

    def verify_op(self) -> None:
        DepthwiseConv2DOp.verify_op(cast(DepthwiseConv2DOp, self))  # the same fields: verified alike


@irdl_op_definition
class FusedMatMulOp(CannOp):
    """y = activation(op(x1) @ op(x2) + bias) (+ residual when present), batch axes broadcast;
    op = transpose of the last two axes when transpose_x1 / transpose_x2 is set
    (MatMulBiasAddFusionPass, BatchMatMulFusionPass, ATbeMatmulElemwiseFusionPass)."""

    name = "cann.FusedMatMul"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    transpose_x1 = prop_def(IntegerAttr)
    transpose_x2 = prop_def(IntegerAttr)
    activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(fractal_nz="matmul", nd=False, params=("bias",)))

    def verify_op(self) -> None:
        n = self.name
        a, b = _oshape(self.x1), _oshape(self.x2)
        if len(a) < 2 or len(b) < 2:
            raise VerifyException(f"{n}: operands must have rank at least 2")
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        m, nn = _matmul_dims(n, a, b, _flag(self.transpose_x1), _flag(self.transpose_x2))
        batch = broadcast_shapes(n, a[:-2], b[:-2])
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], nn):
                raise VerifyException(f"{n}: bias must be 1-D of length {nn}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (*batch, m, nn), _oshape(self.y))


#: How FusedAttention / FusedMultiHeadAttention apply their mask to the scores s:
#:   add      s + mask                                     (Keras' additive Softmax mask)
#:   select   where(mask != 0, s, mask_value)              (tf.where(mask, s, -large): SelectV2)
#:   greater  where(mask > mask_threshold, s, mask_value)  (tf.where(mask > t, s, -large))
#: zero_masked (select / greater): the probabilities of the dropped keys set to 0 after the softmax
#: (Keras 3's Softmax(mask): where(mask, softmax(..), 0), a row with every key dropped is 0).
MASK_KINDS = ("add", "select", "greater")


def _check_mask_kind(op) -> None:
    """mask_kind / mask_value / mask_threshold of an attention op: consistent with each other
    and with the mask operand."""
    n, kind = op.name, op.mask_kind
    k = "add" if kind is None else check_one_of(n, "mask_kind", kind, MASK_KINDS)
    if kind is not None and op.mask is None:
        raise VerifyException(f"{n}: mask_kind needs a mask operand")
    if (op.mask_value is not None) != (k in ("select", "greater")):
        raise VerifyException(f"{n}: mask_value is required by mask_kind select and greater "
                              "and allowed only there")
    if (op.mask_threshold is not None) != (k == "greater"):
        raise VerifyException(f"{n}: mask_threshold is required by mask_kind greater and "
                              "allowed only there")
    if op.mask is not None and k != "select" and str(op.mask.type.element_type) == "i1":
        raise VerifyException(f"{n}: a boolean mask needs mask_kind = \"select\"")
    if _flag(op.zero_masked) and k not in ("select", "greater"):
        raise VerifyException(f"{n}: zero_masked needs mask_kind select or greater")


@irdl_op_definition
class FusedAttentionOp(CannOp):
    """y = softmax(scale * q @ k^T (adj_k: k is given transposed) + mask) @ v, mask optional
    (added, broadcast).  Batch axes broadcast; one kernel (flash-attention style).
    `layout` (CANN FlashAttentionScore's input_layout): "BNSD" (default; q, k, v, y are
    [.., N, S, D]) or "BSND" (4-D q, k, v, y as [B, S, N, D], Keras' head split; the heads
    transpose happens inside the kernel).  The mask always applies to the [B, N, Sq, Sk] scores,
    as `mask_kind` says (MASK_KINDS; absent: "add")."""

    name = "cann.FusedAttention"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    y = result_def(TensorType)
    scale = prop_def(FloatAttr)
    adj_k = prop_def(IntegerAttr)
    layout = opt_prop_def(StringAttr)
    mask_kind = opt_prop_def(StringAttr)
    mask_value = opt_prop_def(FloatAttr)
    mask_threshold = opt_prop_def(FloatAttr)
    zero_masked = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube())

    def verify_op(self) -> None:
        n = self.name
        _check_mask_kind(self)
        q, k, v = _oshape(self.q), _oshape(self.k), _oshape(self.v)
        if min(len(q), len(k), len(v)) < 2:
            raise VerifyException(f"{n}: q, k, v must have rank at least 2")
        check_same_element_type(n, self.q.type, self.k.type, self.v.type, self.y.type)
        if self.layout is not None:
            lay = check_one_of(n, "layout", self.layout, ("BNSD", "BSND"))
            if lay == "BSND" and any(len(s) != 4 for s in (q, k, v, _oshape(self.y))):
                raise VerifyException(f"{n}: layout BSND needs 4-D q, k, v and result")
        _check_result_shape(n, (*q[:-1], v[-1]), _oshape(self.y))  # softmax(q k^T) v


@irdl_op_definition
class FusedMultiHeadAttentionOp(CannOp):
    """Self-attention with its Q/K/V projections merged into one GEMM (CANN's
    MultiHeadAttention without the output projection; ONNX Runtime's Attention):
    qkv = x @ qkv_weight + qkv_bias, split on the last axis into q, k, v ([B, S, N*D] each,
    in that order), viewed as [B, S, N, D] with N = num_heads; then FusedAttention (layout
    BSND) with `scale` and the optional mask (`mask_kind` as FusedAttention's).  y is [B, S, N, D]."""

    name = "cann.FusedMultiHeadAttention"
    x = operand_def(TensorType)
    qkv_weight = operand_def(TensorType)
    qkv_bias = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    y = result_def(TensorType)
    num_heads = prop_def(IntegerAttr)
    scale = prop_def(FloatAttr)
    mask_kind = opt_prop_def(StringAttr)
    mask_value = opt_prop_def(FloatAttr)
    mask_threshold = opt_prop_def(FloatAttr)
    zero_masked = opt_prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube())

    def verify_op(self) -> None:
        n = self.name
        _check_mask_kind(self)
        xs, ws, bs, ys = (_oshape(v) for v in (self.x, self.qkv_weight, self.qkv_bias, self.y))
        heads = self.num_heads.value.data
        check_rank(n, "x", xs, (3,))
        check_rank(n, "qkv_weight", ws, (2,))
        check_rank(n, "y", ys, (4,))
        check_same_element_type(n, self.x.type, self.qkv_weight.type, self.qkv_bias.type, self.y.type)
        if heads < 1 or ys[2] != heads:
            raise VerifyException(f"{n}: y must be [B, S, num_heads, D] with num_heads = {heads}")
        if not dims_compatible(ws[0], xs[-1]) or not dims_compatible(ws[1], 3 * heads * ys[3]):
            raise VerifyException(f"{n}: qkv_weight must be [{xs[-1]}, {3 * heads * ys[3]}], "
                                  f"got {_fmt_shape(ws)}")
        if len(bs) != 1 or not dims_compatible(bs[0], ws[1]):
            raise VerifyException(f"{n}: qkv_bias must be 1-D of length {ws[1]}, got {_fmt_shape(bs)}")
        _check_result_shape(n, (xs[0], xs[1], heads, ys[3]), ys)


@irdl_op_definition
class FusedGatedMatMulOp(CannOp):
    """The gated MLP of Llama-style models (SwiGLU): gate and up projections as one GEMM with
    concatenated weights and a gated epilogue: h = x @ weight + bias, split on the last axis
    into gate | up (F each), y = activation(gate) * up.  weight [K, 2F], bias [2F]."""

    name = "cann.FusedGatedMatMul"
    x = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    y = result_def(TensorType)
    activation = enum_prop(ActivationAttr)
    traits = traits_def(Pure(), Cube())

    def verify_op(self) -> None:
        n = self.name
        xs, ws, bs, ys = (_oshape(v) for v in (self.x, self.weight, self.bias, self.y))
        check_rank(n, "weight", ws, (2,))
        if len(xs) < 2 or not dims_compatible(ws[0], xs[-1]):
            raise VerifyException(f"{n}: weight must be [{xs[-1] if xs else '?'}, 2F], got {_fmt_shape(ws)}")
        if len(bs) != 1 or not dims_compatible(bs[0], ws[1]):
            raise VerifyException(f"{n}: bias must be 1-D of length {ws[1]}, got {_fmt_shape(bs)}")
        check_same_element_type(n, self.x.type, self.weight.type, self.bias.type, self.y.type)
        _check_result_shape(n, (*xs[:-1], ws[1] // 2 if ws[1] >= 0 else -1), ys)


@irdl_op_definition
class AddLayerNormOp(CannOp):
    """y = LayerNorm(x1 + x2) (CANN's AddLayerNorm: the residual add fused into the norm);
    attributes as cann.LayerNorm's."""

    name = "cann.AddLayerNorm"
    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    y = result_def(TensorType)
    begin_norm_axis = prop_def(IntegerAttr)
    begin_params_axis = prop_def(IntegerAttr)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure(), Reduction(), RunsOn(nc1hwc0="rows", fractal_nz="rows", params=("gamma", "beta")))

    def verify_op(self) -> None:
        n = self.name
        xs = broadcast_shapes(n, _oshape(self.x1), _oshape(self.x2))
        p = _norm_axes(n, [self.begin_params_axis.value.data], len(xs))[0]
        _norm_axes(n, [self.begin_norm_axis.value.data], len(xs))
        for what in ("gamma", "beta"):
            s = _oshape(getattr(self, what))
            if not _shapes_match(s, xs[p:]):
                raise VerifyException(f"{n}: {what} must have shape {_fmt_shape(xs[p:])}, "
                                      f"got {_fmt_shape(s)}")
        check_same_element_type(n, self.x1.type, self.x2.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))


def origin_tensor_type(t: Attribute) -> TensorType:
    """t without its storage format: the origin shape, the element type."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    t = tensor_of(t)
    if format_of(t) is None:
        return t
    return TensorType(t.element_type, [DYNAMIC_INDEX if d < 0 else d for d in origin_shape(t)])


#: Fused-kernel bodies compute on origin shapes (a pointwise op is the same on any layout)
#: and may hold these besides pointwise ops: scalar constants and the terminator.
_BODY_EXTRA = ("cann.Const", "cann.Yield")


@irdl_op_definition
class FusedKernelOp(CannOp):
    """Several cann ops run as one kernel: the region is the kernel's body, its block arguments
    the kernel's inputs, `cann.Yield` its result.  The body holds pointwise ops (op kinds
    Elementwise / Broadcast) and scalar cann.Const, on ORIGIN-shaped tensors: the operands and
    the result may be stored in any format (assign-layouts moves the kernel onto stored data;
    the body does not change).  Built by the automatic fusion pass (compiler/transforms/fusion/auto.py);
    lowered to one vector kernel whose tile body is the region's ops, or, when input #0 is a
    cube op's single-use result, to that cube kernel's epilogue (compiler/conversions/cann_to_kernel).

        %y = cann.FusedKernel %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
        ^bb0(%x : tensor<8xf32>, %z : tensor<8xf32>):
          %s = cann.Add %x, %z : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
          %r = cann.Relu %s : (tensor<8xf32>) -> tensor<8xf32>
          cann.Yield %r : tensor<8xf32>
        }
    """

    name = "cann.FusedKernel"
    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(Pure(), Broadcast(), IsolatedFromAbove(), RunsOn(nc1hwc0="kernel", fractal_nz="kernel"))
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $y) $body"

    def __init__(self, inputs: Sequence, result_type: TensorType, body: Region):
        super().__init__(operands=[list(inputs)], result_types=[result_type], regions=[body])

    def verify_op(self) -> None:
        from dialects.op_kinds import is_pointwise

        n = self.name
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(f"{n}: the body has {len(block.args)} arguments, the op "
                                  f"{len(self.inputs)} inputs")
        for i, (a, v) in enumerate(zip(block.args, self.inputs)):
            want = origin_tensor_type(v.type)
            if a.type != want:
                raise VerifyException(f"{n}: body argument #{i} must be {want} (input #{i} "
                                      f"in its origin shape), got {a.type}")
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"{n}: the body must end in cann.Yield")
        if _INFERRING is not None:  # the rule: the result is what the body yields
            _check_result_shape(n, shape_of(last.value), origin_shape(self.y.type))
        elif last.value.type != origin_tensor_type(self.y.type):
            raise VerifyException(f"{n}: the body yields {last.value.type}, the result is "
                                  f"{self.y.type} (origin {origin_tensor_type(self.y.type)})")
        for op in block.ops:
            if op.name in _BODY_EXTRA:
                continue
            if not is_pointwise(op):
                raise VerifyException(f"{n}: {op.name} in the body is not an elementwise or "
                                      "broadcast op")
            for r in op.results:
                if format_of(r.type) is not None:
                    raise VerifyException(f"{n}: {op.name} in the body has a stored (formatted) "
                                          "result; the body computes on origin shapes")

    def body_ops(self) -> list[Operation]:
        """The computing ops of the body in order (no constants, no terminator)."""
        return [o for o in self.body.block.ops if o.name not in _BODY_EXTRA]


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The result of a cann.FusedKernel body."""

    name = "cann.Yield"
    value = operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(FusedKernelOp), Opaque())
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class FusedSqueezeExciteOp(CannOp):
    """The gate of a squeeze-excite block as one kernel (EfficientNet, MobileNetV3):
    gate = act2(act1(mean_HW(x) @ w1 + b1) @ w2 + b2), x [N, H, W, C] (NHWC), w1 / w2 the 1x1
    filters (HWCN) [1, 1, C, Cr] / [1, 1, Cr, C], b1 [Cr], b2 [C]; gate [N, 1, 1, C]."""

    name = "cann.FusedSqueezeExcite"
    x = operand_def(TensorType)
    w1 = operand_def(TensorType)
    b1 = operand_def(TensorType)
    w2 = operand_def(TensorType)
    b2 = operand_def(TensorType)
    y = result_def(TensorType)
    act1 = enum_prop(ActivationAttr)
    act2 = enum_prop(ActivationAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn(nc1hwc0="conv", nd=False, params=("w1", "b1", "w2", "b2")))

    def verify_op(self) -> None:
        n = self.name
        xs, w1, b1, w2, b2, ys = (_oshape(v) for v in (self.x, self.w1, self.b1, self.w2, self.b2, self.y))
        check_rank(n, "x", xs, (4,))
        check_rank(n, "w1", w1, (4,))
        check_rank(n, "w2", w2, (4,))
        check_same_element_type(n, self.x.type, self.w1.type, self.b1.type, self.w2.type,
                                self.b2.type, self.y.type)
        c, cr = xs[3], w1[3]
        if tuple(w1[:2]) != (1, 1) or tuple(w2[:2]) != (1, 1):
            raise VerifyException(f"{n}: w1 and w2 must be 1x1 filters (HWCN)")
        if not dims_compatible(w1[2], c) or not _shapes_match(w2[2:], (cr, c)):
            raise VerifyException(f"{n}: w1 must be [1, 1, {c}, Cr] and w2 [1, 1, Cr, {c}], got "
                                  f"{list(w1)} and {list(w2)}")
        if not _shapes_match(b1, (cr,)) or not _shapes_match(b2, (c,)):
            raise VerifyException(f"{n}: b1 must be [{cr}] and b2 [{c}], got {list(b1)} and "
                                  f"{list(b2)}")
        _check_result_shape(n, (xs[0], 1, 1, c), ys)


@irdl_op_definition
class FusedConv2DScaledOp(CannOp):
    """y = post_activation(activation(conv(x * scale, filter) + bias) + residual), the residual
    optional: a conv whose input is scaled per (batch, input channel) as it is loaded (the
    squeeze-excite gate multiplied into the projection conv).  scale is [N, 1, 1, C] (NHWC;
    [N, C, 1, 1] for NCHW); attributes as cann.FusedConv2DAdd's."""

    name = "cann.FusedConv2DScaled"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = operand_def(TensorType)
    scale = operand_def(TensorType)
    residual = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    pads = prop_def(I64Array)
    dilations = prop_def(I64Array)
    groups = prop_def(IntegerAttr)
    data_format = enum_prop(DataFormatAttr)
    activation = enum_prop(ActivationAttr)
    post_activation = enum_prop(ActivationAttr)
    alpha = opt_prop_def(FloatAttr)
    traits = traits_def(Pure(), Cube(), OutputFusable(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

    geometry = ConvLike.geometry

    def verify_op(self) -> None:
        ConvLike.verify_op(cast(ConvLike, self))  # the same fields: verified alike
        n = self.name
        xs = _oshape(self.x)
        want = (xs[0], 1, 1, xs[3]) if self.data_format.data == DataFormat.NHWC else (xs[0], xs[1], 1, 1)
        if not _shapes_match(_oshape(self.scale), want):
            raise VerifyException(f"{n}: scale must be {list(want)} (per batch and input "
                                  f"channel), got {list(_oshape(self.scale))}")
        if self.residual is not None and _oshape(self.residual) != _oshape(self.y):
            raise VerifyException(f"{n}: residual must have the result's shape")
        if self.residual is None and self.post_activation.data != Activation.none:
            raise VerifyException(f"{n}: post_activation needs a residual")


#: squeeze-excite: the gate kernel and the conv that takes the gate as an input scale
SE_FUSED_OPS = (FusedSqueezeExciteOp, FusedConv2DScaledOp)


FUSED_OPS = (FusedConv2DAddOp, FusedDepthwiseConv2DOp, FusedMatMulOp, FusedAttentionOp,
             FusedKernelOp, YieldOp, FusedMultiHeadAttentionOp, AddLayerNormOp, FusedGatedMatMulOp)


LIBRARY_OPS = (
    Relu6Op, SigmoidOp, TanhOp, EluOp, LeakyReluOp, NegOp, SqrtOp, RsqrtOp, SquareOp, ErfOp,
    ErfcOp, ExpOp, LogOp, AbsOp, ReciprocalOp, GeluOp, GeluErfOp, FastGeluOp, SoftplusOp,
    AddOp, MulOp, SubOp, RealDivOp, MaximumOp, MinimumOp, PowOp, SquaredDifferenceOp, SelectV2Op,
    BNInferOp, LayerNormOp, MatMulV2Op, BatchMatMulV2Op, DepthwiseConv2DOp, SoftmaxV2Op,
    MaxPoolOp, AvgPoolOp, ReduceMeanDOp, ReduceSumDOp, ReduceMaxDOp, ReduceMinDOp, ReduceProdDOp,
    TransposeDOp, PadDOp, ConcatV2DOp, CastOp, GatherV2DOp, StridedSliceDOp, ReshapeOp, HostCallOp,
)


# --- functional control flow, comparisons and logic, resizing, splitting, PadV2D/MirrorPad -----
#
# More operators of the `cann` dialect (re-exported by dialects/cann.py, which lists them in the
# dialect): functional control flow, comparisons and logic, resizing, splitting, PadV2D/MirrorPad.
#
# Control flow (GE's functional ops, as TensorFlow's functional If/While/Case reach GE):
#
#     %y = cann.If %cond, %x {then_branch = @t, else_branch = @e} : (tensor<i1>, tensor<2x3xf32>) -> tensor<2x3xf32>
#     %i, %a = cann.While %i0, %a0 {cond = @c, body = @b} : (...) -> (...)
#     %y = cann.Case %index, %x {branches = [@b0, @b1, @b2]} : (tensor<i32>, ...) -> ...
#
# The bodies are `func.func`s of the module referenced by symbol (not regions): that is how the
# importer represents TensorFlow's function library and how GE keeps subgraphs, every pass that
# walks the module legalizes/optimizes them like @main, and one body can serve several ops.  The
# verifiers check that each symbol names a func.func whose signature matches the op (element types
# equal, origin shapes compatible).  Semantics (compiler/interpreters/cann_impl.py): the
# interpreter calls the referenced functions.  A predicate is TensorFlow's: a scalar is true when
# non-zero, a non-scalar tensor when it is non-empty; a Case index out of range runs the last branch.
# tf.PartitionedCall / StatefulPartitionedCall are inlined by tf-to-cann (no call op here).


# --- control flow -------------------------------------------------------------------------------


def _callee(op, attr: SymbolRefAttr, what: str):
    from xdsl.dialects import func

    f = SymbolTable.lookup_symbol(op, attr)
    if not isinstance(f, func.FuncOp):
        raise VerifyException(f"{op.name}: {what} @{attr.string_value()} is not a func.func of "
                              "the module")
    return f


def _compatible(a, b) -> bool:
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return a == b
    if a.element_type != b.element_type:
        return False
    sa, sb = origin_shape(a), origin_shape(b)
    return len(sa) == len(sb) and all(dims_compatible(x, y) for x, y in zip(sa, sb))




def _types(ts) -> str:
    return "(" + ", ".join(str(t) for t in ts) + ")"


def _check_signature(op, f, what: str, inputs, outputs) -> None:
    ft = f.function_type
    name = f"{what} @{f.sym_name.data}"
    if len(ft.inputs) != len(inputs) or not all(_compatible(a, b) for a, b in
                                                  zip(ft.inputs, inputs)):
        raise VerifyException(f"{op.name}: {name} takes {_types(ft.inputs)}, the op passes "
                              f"{_types(inputs)}")
    if outputs is not None and (len(ft.outputs) != len(outputs) or not all(
            _compatible(a, b) for a, b in zip(ft.outputs, outputs))):
        raise VerifyException(f"{op.name}: {name} returns {_types(ft.outputs)}, the op has "
                              f"{_types(outputs)}")


@irdl_op_definition
class IfOp(CannOp):
    """results = cond ? then_branch(inputs) : else_branch(inputs)."""

    name = "cann.If"
    traits = traits_def(Opaque())
    cond = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    then_branch = prop_def(SymbolRefAttr)
    else_branch = prop_def(SymbolRefAttr)

    def verify_op(self) -> None:
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        for what, sym in (("then_branch", self.then_branch), ("else_branch", self.else_branch)):
            _check_signature(self, _callee(self, sym, what), what, ins, outs)


@irdl_op_definition
class CaseOp(CannOp):
    """results = branches[branch_index](inputs) (out of range: the last branch)."""

    name = "cann.Case"
    traits = traits_def(Opaque())
    branch_index = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    branches = prop_def(ArrayAttr[SymbolRefAttr])

    def verify_op(self) -> None:
        if str(elem_of(self.branch_index)) not in ("i32", "i64") or \
                _oshape(self.branch_index) != ():
            raise VerifyException(f"{self.name}: branch_index must be a scalar i32, got "
                                  f"{self.branch_index.type}")
        if not self.branches.data:
            raise VerifyException(f"{self.name}: needs at least one branch")
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        for i, sym in enumerate(self.branches.data):
            _check_signature(self, _callee(self, sym, f"branch #{i}"), f"branch #{i}", ins, outs)


@irdl_op_definition
class WhileOp(CannOp):
    """vals = inputs; while cond(vals): vals = body(vals); results = vals."""

    name = "cann.While"
    traits = traits_def(Opaque())
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    cond = prop_def(SymbolRefAttr)
    body = prop_def(SymbolRefAttr)
    parallel_iterations = opt_prop_def(IntegerAttr)

    def verify_op(self) -> None:
        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        if len(ins) != len(outs) or not all(_compatible(a, b) for a, b in zip(ins, outs)):
            raise VerifyException(f"{self.name}: results {_types(outs)} must match the loop "
                                  f"variables {_types(ins)}")
        c = _callee(self, self.cond, "cond")
        _check_signature(self, c, "cond", ins, None)
        if len(c.function_type.outputs) != 1:
            raise VerifyException(f"{self.name}: cond @{c.sym_name.data} must return one "
                                  f"predicate, returns {len(c.function_type.outputs)} values")
        _check_signature(self, _callee(self, self.body, "body"), "body", ins, ins)


CONTROL_OPS = (IfOp, CaseOp, WhileOp)


# --- comparisons and logic (bool results, broadcasting) -------------------------------------------


class CompareCannOp(CannOp):
    """y = x1 <op> x2 elementwise (numpy broadcasting); y is bool (i1)."""

    x1 = operand_def(TensorType)
    x2 = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="same", fractal_nz="same"))

    def verify_op(self) -> None:
        n = self.name
        check_same_element_type(n, self.x1.type, self.x2.type)
        if str(elem_of(self.y)) != "i1":
            raise VerifyException(f"{n}: result must be a tensor of i1")
        _check_result_shape(n, broadcast_shapes(n, _oshape(self.x1), _oshape(self.x2)),
                            _oshape(self.y))


@irdl_op_definition
class GreaterOp(CompareCannOp):
    name = "cann.Greater"


@irdl_op_definition
class GreaterEqualOp(CompareCannOp):
    name = "cann.GreaterEqual"


@irdl_op_definition
class LessOp(CompareCannOp):
    name = "cann.Less"


@irdl_op_definition
class LessEqualOp(CompareCannOp):
    name = "cann.LessEqual"


@irdl_op_definition
class EqualOp(CompareCannOp):
    name = "cann.Equal"
    traits = traits_def(Commutative())


@irdl_op_definition
class NotEqualOp(CompareCannOp):
    name = "cann.NotEqual"
    traits = traits_def(Commutative())


class LogicalBinaryOp(CompareCannOp):
    def verify_op(self) -> None:
        if str(elem_of(self.x1)) != "i1":
            raise VerifyException(f"{self.name}: operands must be tensors of i1")
        super().verify_op()


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    name = "cann.LogicalAnd"
    traits = traits_def(Commutative())


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    name = "cann.LogicalOr"
    traits = traits_def(Commutative())


@irdl_op_definition
class LogicalNotOp(CannOp):
    name = "cann.LogicalNot"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Elementwise())

    def verify_op(self) -> None:
        if str(elem_of(self.x)) != "i1" or self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: operand and result must be one tensor type of i1")


# --- resizing -------------------------------------------------------------------------------------


class ResizeOp(CannOp):
    """NHWC resize to `size` = [new_height, new_width] (an i32 input, as CANN takes it);
    align_corners / half_pixel_centers as TensorFlow defines them."""

    x = operand_def(TensorType)
    size = operand_def(TensorType)
    y = result_def(TensorType)
    align_corners = prop_def(IntegerAttr)
    half_pixel_centers = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn(nc1hwc0="spatial", params=("size",)))

    def verify_op(self) -> None:
        n = self.name
        xs, ys = _oshape(self.x), _oshape(self.y)
        if len(xs) != 4 or len(ys) != 4:
            raise VerifyException(f"{n}: x and y must be 4-D (NHWC), got {_fmt_shape(xs)} and "
                                  f"{_fmt_shape(ys)}")
        if _oshape(self.size) not in ((2,), (-1,)) or str(elem_of(self.size)) != "i32":
            raise VerifyException(f"{n}: size must be a tensor<2xi32>, got {self.size.type}")
        if self.align_corners.value.data and self.half_pixel_centers.value.data:
            raise VerifyException(f"{n}: align_corners and half_pixel_centers cannot both be set")
        _check_result_shape(n, (xs[0], -1, -1, xs[3]), ys)


@irdl_op_definition
class ResizeBilinearV2Op(ResizeOp):
    name = "cann.ResizeBilinearV2"


@irdl_op_definition
class ResizeNearestNeighborV2Op(ResizeOp):
    name = "cann.ResizeNearestNeighborV2"

    def verify_op(self) -> None:
        super().verify_op()
        check_same_element_type(self.name, self.x.type, self.y.type)


# --- splitting ------------------------------------------------------------------------------------


@irdl_op_definition
class SplitDOp(CannOp):
    """x split into num_split equal parts along split_dim (TF Split, constant axis)."""

    name = "cann.SplitD"
    x = operand_def(TensorType)
    y = var_result_def(TensorType)
    split_dim = prop_def(IntegerAttr)
    num_split = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="split"))

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        k = self.num_split.value.data
        if k < 1 or len(self.y) != k:
            raise VerifyException(f"{n}: num_split = {k} but there are {len(self.y)} results")
        axis = _norm_axes(n, [self.split_dim.value.data], len(xs))[0]
        if xs[axis] >= 0 and xs[axis] % k:
            raise VerifyException(f"{n}: dimension {axis} ({xs[axis]}) is not divisible by {k}")
        want = list(xs)
        want[axis] = xs[axis] // k if xs[axis] >= 0 else -1
        for r in self.y:
            check_same_element_type(n, self.x.type, r.type)
            _check_result_shape(n, want, _oshape(r))


@irdl_op_definition
class SplitVDOp(CannOp):
    """x split along split_dim into parts of size_splits (TF SplitV, constant sizes and axis)."""

    name = "cann.SplitVD"
    x = operand_def(TensorType)
    y = var_result_def(TensorType)
    size_splits = prop_def(I64Array)
    split_dim = prop_def(IntegerAttr)
    num_split = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Injective(), RunsOn(nc1hwc0="split"))

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        sizes = ints(self.size_splits)
        k = self.num_split.value.data
        if len(sizes) != k or len(self.y) != k:
            raise VerifyException(f"{n}: num_split = {k}, {len(sizes)} size_splits, "
                                  f"{len(self.y)} results")
        if any(s < 0 for s in sizes):
            raise VerifyException(f"{n}: size_splits must be >= 0 (resolved), got {list(sizes)}")
        axis = _norm_axes(n, [self.split_dim.value.data], len(xs))[0]
        if xs[axis] >= 0 and sum(sizes) != xs[axis]:
            raise VerifyException(f"{n}: size_splits {list(sizes)} do not sum to dimension "
                                  f"{axis} ({xs[axis]})")
        for r, s in zip(self.y, sizes):
            check_same_element_type(n, self.x.type, r.type)
            want = list(xs)
            want[axis] = s
            _check_result_shape(n, want, _oshape(r))


# --- padding with a value / mirrored --------------------------------------------------------------


def _check_pad(op, p) -> None:
    n = op.name
    xs = _oshape(op.x)
    if len(p) != 2 * len(xs):
        raise VerifyException(f"{n}: 'paddings' must have {2 * len(xs)} values (a pair per "
                              f"axis), got {len(p)}")
    if any(v < 0 for v in p):
        raise VerifyException(f"{n}: paddings must be >= 0")
    check_same_element_type(n, op.x.type, op.y.type)
    want = [d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(xs)]
    _check_result_shape(n, want, _oshape(op.y))


@irdl_op_definition
class PadV2DOp(CannOp):
    """Padding with constant_values (TF PadV2 / Pad with a non-zero constant);
    paddings = [before0, after0, ...]."""

    name = "cann.PadV2D"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    constant_values = prop_def(FloatAttr)
    traits = traits_def(Pure(), Injective())

    def verify_op(self) -> None:
        _check_pad(self, ints(self.paddings))


@irdl_op_definition
class MirrorPadOp(CannOp):
    """TF MirrorPad with constant paddings: mode REFLECT (edge not repeated) or SYMMETRIC."""

    name = "cann.MirrorPad"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    paddings = prop_def(I64Array)
    mode = prop_def(StringAttr)
    traits = traits_def(Pure(), Injective())

    def verify_op(self) -> None:
        n = self.name
        p = ints(self.paddings)
        _check_pad(self, p)
        mode = self.mode.data
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise VerifyException(f"{n}: mode must be REFLECT or SYMMETRIC, got '{mode}'")
        limit = 0 if mode == "REFLECT" else 1
        for i, d in enumerate(_oshape(self.x)):
            if d >= 0 and max(p[2 * i], p[2 * i + 1]) > d - 1 + limit:
                raise VerifyException(f"{n}: paddings of axis {i} must be at most "
                                      f"{d - 1 + limit} in {mode} mode, got {p[2 * i]}, {p[2 * i + 1]}")


@irdl_op_definition
class CumsumOp(CannOp):
    """CANN's Cumsum(x, axis; exclusive, reverse) with a constant axis (an attribute): the running
    sum of x along `axis`; `exclusive` leaves the element itself out (the first sum is 0),
    `reverse` sums from the end.  TensorFlow's Cumsum."""

    name = "cann.Cumsum"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    exclusive = prop_def(IntegerAttr)
    reverse = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        n = self.name
        xs = _oshape(self.x)
        if not xs:
            raise VerifyException(f"{n}: x must have rank >= 1")
        _norm_axes(n, [self.axis.value.data], len(xs))
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))


@irdl_op_definition
class BroadcastToDOp(CannOp):
    """CANN's BroadcastToD(x; shape): x broadcast to `shape` by numpy's (TensorFlow's) rule,
    trailing dimensions first, each equal or 1 in x (REG_OP(BroadcastToD) in graphengine's
    third_party/fwkacllib/inc/ops/pad_ops.h: input x, required ListInt attr shape).  Kind
    Broadcast: y[i] = x[bcast(i)], pointwise with a broadcast operand."""

    name = "cann.BroadcastToD"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    shape = prop_def(I64Array)
    traits = traits_def(Pure(), Broadcast(), RunsOn(nc1hwc0="broadcast-c"))

    def verify_op(self) -> None:
        from dialects.common import ints

        n = self.name
        xs, shape = _oshape(self.x), list(ints(self.shape))
        if len(xs) > len(shape) or any(d < 0 for d in shape):
            raise VerifyException(f"{n}: shape {shape} must be static and of rank >= x's "
                                  f"({_fmt_shape(xs)})")
        for d, s in zip(reversed(xs), reversed(shape)):
            if d >= 0 and d != 1 and d != s:
                raise VerifyException(f"{n}: x {_fmt_shape(xs)} does not broadcast to {shape}")
        check_same_element_type(n, self.x.type, self.y.type)
        _check_result_shape(n, shape, _oshape(self.y))



# --- AIPP (ATC's --insert_op_conf, static) ---------------------------------------------------

from xdsl.dialects.builtin import DenseArrayBase, f16, f32, f64  # noqa: E402

F64Array = DenseArrayBase.constr(f64)
AIPP_FORMATS = ("YUV420SP_U8", "RGB888_U8", "YUV400_U8")


@irdl_op_definition
class AippOp(CannOp):
    """Static AIPP (compiler/driver/aipp_config.py): the raw uint8 image x (RGB888 [N, H, W, 3],
    YUV400 [N, H, W, 1], YUV420SP/NV12 [N, H*3/2, W, 1]) -> the model input y (NHWC float,
    written NC1HWC0 by its kernel): channel swap, crop [start h, start w, size h, size w], CSC
    (matrix row-major, >> 8, input_bias for YUV inputs, output_bias for RGB), then
    (p - mean - min) * var_reci per channel, then pads [top, bottom, left, right] of
    padding_value."""

    name = "cann.Aipp"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    input_format = prop_def(StringAttr)
    src_hw = prop_def(I64Array)
    crop = prop_def(I64Array)
    pads = prop_def(I64Array)
    rbuv_swap = prop_def(IntegerAttr)
    csc = prop_def(IntegerAttr)
    matrix = prop_def(I64Array)
    input_bias = prop_def(I64Array)
    output_bias = prop_def(I64Array)
    mean = prop_def(I64Array)
    min_chn = prop_def(F64Array)
    var_reci = prop_def(F64Array)
    padding_value = prop_def(FloatAttr)
    traits = traits_def(Pure(), Opaque(), RunsOn(nc1hwc0="aipp", nd=False, params=("x",)))

    def verify_op(self) -> None:
        n = self.name
        fmt = check_one_of(n, "input_format", self.input_format, AIPP_FORMATS)
        h, w = check_len(n, "src_hw", self.src_hw, 2)
        sh, sw, ch_, cw = check_len(n, "crop", self.crop, 4)
        pt, pb, pl, pr = check_len(n, "pads", self.pads, 4)
        check_len(n, "matrix", self.matrix, 9)
        check_len(n, "input_bias", self.input_bias, 3)
        check_len(n, "output_bias", self.output_bias, 3)
        if min(h, w, ch_, cw) < 1 or min(sh, sw, pt, pb, pl, pr) < 0 or sh + ch_ > h or sw + cw > w:
            raise VerifyException(f"{n}: crop {[sh, sw, ch_, cw]} / pads {[pt, pb, pl, pr]} do "
                                  f"not fit the {h}x{w} source image")
        if str(elem_of(self.x)) != "ui8":
            raise VerifyException(f"{n}: x must be a ui8 image, got {self.x.type}")
        if self.y.type.element_type not in (f16, f32):
            raise VerifyException(f"{n}: y must be float16 or float32, got {self.y.type}")
        c = 1 if fmt == "YUV400_U8" else 3
        xs = (-1, h * 3 // 2, w, 1) if fmt == "YUV420SP_U8" else (-1, h, w, c)
        got = _oshape(self.x)
        if len(got) != 4 or tuple(got[1:]) != xs[1:]:
            raise VerifyException(f"{n}: x must be [N, {', '.join(map(str, xs[1:]))}] for "
                                  f"{fmt} of {h}x{w}, got {_fmt_shape(got)}")
        _check_result_shape(n, (got[0], ch_ + pt + pb, cw + pl + pr, c), _oshape(self.y))
        for attr in ("mean", "min_chn", "var_reci"):
            if len(getattr(self, attr).get_values()) != c:
                raise VerifyException(f"{n}: '{attr}' must have {c} values (one per channel)")


# --- shape operators with run-time shape operands (issue 16: shapes computed from `?` dims) ---
# Ascend IR has both forms: Slice / BroadcastTo take their sizes as tensors, SliceD /
# BroadcastToD as attributes (GE's ConstToAttr makes the second of the first once the tensors
# are constants).  A range-compiled model keeps the tensor forms where a size is computed from
# the shape of a `?` tensor; at dispatch, at concrete shapes, the resolve-shapes pass
# (compiler/transforms/resolve_shapes.py) folds them into the attribute forms.  They have
# semantics (cann-run, constant folding) but no kernel: none reaches cann-to-kernel.


@irdl_op_definition
class ShapeOp(CannOp):
    """Ascend IR's Shape(x) -> y: x's shape as a rank-1 int32 / int64 tensor (REG_OP(Shape) in
    graphengine's third_party/fwkacllib/inc/ops/array_ops.h: input x, output y, attr dtype)."""

    name = "cann.Shape"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        ys = _oshape(self.y)
        if len(ys) != 1 or ys[0] not in (-1, len(_oshape(self.x))):
            raise VerifyException(f"{self.name}: result must be [{len(_oshape(self.x))}], "
                                  f"got {_fmt_shape(ys)}")
        if str(self.y.type.element_type) not in ("i32", "i64"):
            raise VerifyException(f"{self.name}: result must be int32 or int64")


@irdl_op_definition
class SliceOp(CannOp):
    """Ascend IR's Slice(x, offsets, size) -> y: TensorFlow's Slice with its begin and size as
    tensors (REG_OP(Slice) in graphengine's .../ops/selection_ops.h); size -1: to the end."""

    name = "cann.Slice"
    x = operand_def(TensorType)
    offsets = operand_def(TensorType)
    size = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        r = len(_oshape(self.x))
        for what, v in (("offsets", self.offsets), ("size", self.size)):
            if _oshape(v) not in ((r,), (-1,)):
                raise VerifyException(f"{self.name}: {what} must be [{r}], got "
                                      f"{_fmt_shape(_oshape(v))}")
        check_same_element_type(self.name, self.x.type, self.y.type)
        if len(_oshape(self.y)) != r:
            raise VerifyException(f"{self.name}: result must have rank {r}")


@irdl_op_definition
class BroadcastToOp(CannOp):
    """Ascend IR's BroadcastTo(x, shape) -> y: BroadcastToD with the shape as a tensor
    (REG_OP(BroadcastTo) in graphengine's .../ops/pad_ops.h)."""

    name = "cann.BroadcastTo"
    x = operand_def(TensorType)
    shape = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque())

    def verify_op(self) -> None:
        ss = _oshape(self.shape)
        if len(ss) != 1 or ss[0] not in (-1, len(_oshape(self.y))):
            raise VerifyException(f"{self.name}: shape must be [{len(_oshape(self.y))}] "
                                  f"(the result's rank), got {_fmt_shape(ss)}")
        check_same_element_type(self.name, self.x.type, self.y.type)


SHAPE_OPS = (ShapeOp, SliceOp, BroadcastToOp)


EXTRA_LIBRARY_OPS = (
    GreaterOp, GreaterEqualOp, LessOp, LessEqualOp, EqualOp, NotEqualOp, LogicalAndOp,
    LogicalOrOp, LogicalNotOp, ResizeBilinearV2Op, ResizeNearestNeighborV2Op, SplitDOp, SplitVDOp,
    PadV2DOp, MirrorPadOp, CumsumOp, BroadcastToDOp, AippOp,
)

__all__ = ["CONTROL_OPS", "EXTRA_LIBRARY_OPS", "SHAPE_OPS", "CompareCannOp", "ResizeOp",
           *(c.__name__ for c in (*CONTROL_OPS, *EXTRA_LIBRARY_OPS, *SHAPE_OPS))]


CANN = Dialect(
    "cann",
    [ConstOp, Conv2DOp, FusedConv2DOp, BiasAddOp, ReluOp, TransDataOp, *LIBRARY_OPS, *FUSED_OPS, *SE_FUSED_OPS,
     *EXTRA_LIBRARY_OPS, *SHAPE_OPS, *CONTROL_OPS],
    [FormatAttr, DataFormatAttr, ActivationAttr],
)


# === Recurrent layers (issue 13): CANN's fused recurrent operators, InplaceUpdate ==============
#
# What these ops rely on (CANN's op proto, rnn.h: REG_OP(DynamicRNN), REG_OP(DynamicRNNV2),
# REG_OP(DynamicGRUV2), as vendored e.g. in mindspore-ai/akg third_party/fwkacllib/inc/ops/rnn.h;
# the formulas of MindSpore's ops.DynamicRNN / ops.DynamicGRUV2 documentation; the weight layout
# and gate offsets of cann-ops src/rnn/dynamic_rnn/op_kernel/LstmFP32.cpp):
# - DynamicRNN(x, w, b, seq_length?, init_h?, init_c?, wci?, wcf?, wco?, mask?) -> y, output_h,
#   output_c, i, j, f, o, tanhc; x [num_step, batch, input_size] (time_major), w
#   [input_size + hidden_size, 4 * hidden_size] (the input rows, then the hidden rows), b
#   [4 * hidden_size]; gate_order "ijfo" (i, j = the cell candidate, f, o) or "ifjo" (the
#   order of a Keras LSTM kernel); forget_bias is added to f's pre-activation; y = output_h =
#   h of every step [num_step, batch, hidden_size] (num_proj = 0), output_c = c of every step.
#   direction: UNIDIRECTIONAL (t = 0 .. num_step-1) or REDIRECTIONAL (the backward layer: t =
#   num_step-1 .. 0, y[t] still the output at input step t).  rnn.h's comment says only
#   UNIDIRECTIONAL, but CANN's own graph fusion pass emits the backward one
#   (ops/built-in/fusion_pass/graph_fusion/ai_core/dynamic_rnn_fusion_pass.cc:
#   "DynamicRNN(BIDIRECTIONAL) --> split + [DynamicRNN + DynamicRNN(REDIRECTIONAL)] + concat");
#   DynamicGRUV2's comment lists both ("Support UNIDIRECTIONAL and REDIRECTIONAL"), and CANN's
#   Ascend C DynamicRNN kernel (cann-ops src/rnn/dynamic_rnn) runs direction 1 from step
#   timeStep - 1 - tIdx.  BIDIRECTIONAL
#   is that fusion pass's input, split into the two directions before any kernel: not represented
#   (a bidirectional layer is the two ops, one launch each).
# - DynamicGRUV2(x, weight_input, weight_hidden, bias_input?, bias_hidden?, seq_length?,
#   init_h?) -> y, output_h, update, reset, new, hidden_new; weight_input [input_size,
#   3 * hidden_size], weight_hidden [hidden_size, 3 * hidden_size], gate_order "zrh" (the
#   order of a Keras GRU kernel) or "rzh"; reset_after ("whether to apply reset gate after
#   matrix multiplication", rnn.h) true: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)); false
#   (Keras's GRU(reset_after=False)): n = tanh(W_in x + b_in + W_hn (r * h) + b_hn);
#   h' = (1 - z) * n + z * h.
# Only the inference outputs are represented (is_training = false: CANN writes i, j, f, o,
# tanhc / update, reset, new, hidden_new only for training), and no peephole or mask operands.
# init_h / init_c are required here: [1, batch, hidden] for DynamicRNN, [batch, hidden] for
# DynamicGRUV2 (MindSpore's shapes).  seq_length (optional; here the last operand, after init_h
# / init_c, not between b and init_h as in rnn.h) is what CANN's Ascend C DynamicRNN kernel
# reads: a float mask [num_step, batch, hidden] (cann-ops src/rnn/dynamic_rnn: seqLengthGm of
# timeStep * batch * hiddenSize elements; per step c = c_prev + (c_new - c_prev) * m,
# output_h = h = h_prev + (h_new - h_prev) * m, y = h_new * m): a masked step keeps the
# state and outputs 0 in y.  Without it y and output_h are the same.
# Semantics: compiler/interpreters/recurrent.py; recomposition from Keras's While loop:
# compiler/transforms/recurrent.py; lowering: compiler/conversions/cann_to_kernel/recurrent.py.

RNN_GATE_ORDERS = {"LSTM": ("ijfo", "ifjo"), "GRU": ("zrh", "rzh")}
RNN_DIRECTIONS = ("UNIDIRECTIONAL", "REDIRECTIONAL")


def _check_rnn_common(op, x, hidden: int, gates: int, w_shapes) -> tuple[int, int, int]:
    n = op.name
    xs = _oshape(x)
    if len(xs) != 3:
        raise VerifyException(f"{n}: x must be [num_step, batch, input_size], got {_fmt_shape(xs)}")
    t, b, i = xs
    for what, v, want in w_shapes(i):
        if not _shapes_match(_oshape(v), want):
            raise VerifyException(f"{n}: {what} must be {_fmt_shape(want)}, got "
                                  f"{_fmt_shape(_oshape(v))}")
    check_one_of(n, "direction", op.direction, RNN_DIRECTIONS)
    check_one_of(n, "activation", op.activation, ("tanh",))
    if not _flag(op.time_major):
        raise VerifyException(f"{n}: only time_major = true (x as [num_step, batch, input_size]) "
                              "is represented")
    for r in op.results:
        _check_result_shape(n, (t, b, hidden), _oshape(r))
    check_same_element_type(n, x.type, *(r.type for r in op.results))
    if op.seq_length is not None:
        if not _shapes_match(_oshape(op.seq_length), (t, b, hidden)):
            raise VerifyException(f"{n}: seq_length must be {_fmt_shape((t, b, hidden))} (a 0/1 "
                                  f"mask per step), got {_fmt_shape(_oshape(op.seq_length))}")
        check_same_element_type(n, x.type, op.seq_length.type)
    return t, b, i


@irdl_op_definition
class DynamicRNNOp(CannOp):
    """CANN's DynamicRNN (an LSTM layer over all time steps, one kernel): see the section note."""

    name = "cann.DynamicRNN"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    b = operand_def(TensorType)
    init_h = operand_def(TensorType)
    init_c = operand_def(TensorType)
    seq_length = opt_operand_def(TensorType)
    y = result_def(TensorType)
    output_h = result_def(TensorType)
    output_c = result_def(TensorType)
    cell_type = prop_def(StringAttr)
    direction = prop_def(StringAttr)
    time_major = prop_def(IntegerAttr)
    activation = prop_def(StringAttr)
    forget_bias = prop_def(FloatAttr)
    gate_order = prop_def(StringAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.w)[1] // 4

    def verify_op(self) -> None:
        n = self.name
        check_one_of(n, "cell_type", self.cell_type, ("LSTM",))
        check_one_of(n, "gate_order", self.gate_order, RNN_GATE_ORDERS["LSTM"])
        ws = _oshape(self.w)
        if len(ws) != 2 or ws[1] % 4:
            raise VerifyException(f"{n}: w must be [input_size + hidden_size, 4 * hidden_size], "
                                  f"got {_fmt_shape(ws)}")
        h = ws[1] // 4
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        _check_rnn_common(self, self.x, h, 4, lambda i: (
            ("w", self.w, (i + h, 4 * h)), ("b", self.b, (4 * h,)),
            ("init_h", self.init_h, (1, b, h)), ("init_c", self.init_c, (1, b, h))))


@irdl_op_definition
class DynamicGRUV2Op(CannOp):
    """CANN's DynamicGRUV2 (a GRU layer over all time steps, one kernel): see the section note."""

    name = "cann.DynamicGRUV2"
    x = operand_def(TensorType)
    weight_input = operand_def(TensorType)
    weight_hidden = operand_def(TensorType)
    bias_input = operand_def(TensorType)
    bias_hidden = operand_def(TensorType)
    init_h = operand_def(TensorType)
    seq_length = opt_operand_def(TensorType)
    y = result_def(TensorType)
    output_h = result_def(TensorType)
    direction = prop_def(StringAttr)
    time_major = prop_def(IntegerAttr)
    activation = prop_def(StringAttr)
    gate_order = prop_def(StringAttr)
    reset_after = prop_def(IntegerAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.weight_hidden)[0]

    def verify_op(self) -> None:
        n = self.name
        check_one_of(n, "gate_order", self.gate_order, RNN_GATE_ORDERS["GRU"])
        hs = _oshape(self.weight_hidden)
        if len(hs) != 2 or hs[1] != 3 * hs[0]:
            raise VerifyException(f"{n}: weight_hidden must be [hidden_size, 3 * hidden_size], "
                                  f"got {_fmt_shape(hs)}")
        h = hs[0]
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        _check_rnn_common(self, self.x, h, 3, lambda i: (
            ("weight_input", self.weight_input, (i, 3 * h)),
            ("bias_input", self.bias_input, (3 * h,)), ("bias_hidden", self.bias_hidden, (3 * h,)),
            ("init_h", self.init_h, (b, h))))


@irdl_op_definition
class InplaceUpdateOp(CannOp):
    """CANN's InplaceUpdate(x, indices, v) -> y (REG_OP(InplaceUpdate), inplace_update.h /
    selection_ops.h: y = x; y[indices[i], ...] = v[i, ...]; "y: an alias of x"): the rows of a
    preallocated buffer written in place; TensorListSetItem (a TensorArray write) legalizes to
    it.  indices is an int32 vector [k], v is [k, x's other dims].  An index outside x's first
    dimension is an error when it runs."""

    name = "cann.InplaceUpdate"
    x = operand_def(TensorType)
    indices = operand_def(TensorType)
    v = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure(), Opaque(), RunsOn())

    def verify_op(self) -> None:
        n = self.name
        xs, idx, vs = _oshape(self.x), _oshape(self.indices), _oshape(self.v)
        if len(idx) != 1 or str(elem_of(self.indices)) != "i32":
            raise VerifyException(f"{n}: indices must be an int32 vector, got {self.indices.type}")
        if not xs or not _shapes_match(vs, (idx[0], *xs[1:])):
            raise VerifyException(f"{n}: v must be {_fmt_shape((idx[0], *xs[1:]))}, got "
                                  f"{_fmt_shape(vs)}")
        check_same_element_type(n, self.x.type, self.v.type, self.y.type)
        _check_result_shape(n, xs, _oshape(self.y))


@irdl_op_definition
class TanhRNNOp(CannOp):
    """A plain (Elman / Keras SimpleRNN) recurrent layer over all time steps:
    h_t = activation(x_t W_x + h_{t-1} W_h + b), y[t] = h_t; x [T, B, I] (time major), w_x
    [I, H], w_h [H, H], b [H], init_h [B, H]; activation "tanh" or "relu".

    NOT a CANN library operator: this project's own op, lowered to this project's own recurrent
    kernel (compiler/conversions/cann_to_kernel/recurrent.py, the LSTM kernel's machinery).
    CANN's op proto (rnn.h) has REG_OP(RNN) and REG_OP(BasicRNNCell), Caffe's RNN: float16 x and
    weights only, an output projection o_t = tanh(W_ho h_t + b_o) besides h_t, and marked
    "Warning: THIS FUNCTION IS EXPERIMENTAL. Please do not use."; DynamicRNN / V2 / V3 take only
    cell_type LSTM.  None computes a float32 SimpleRNN."""

    name = "cann.TanhRNN"
    x = operand_def(TensorType)
    w_x = operand_def(TensorType)
    w_h = operand_def(TensorType)
    b = operand_def(TensorType)
    init_h = operand_def(TensorType)
    y = result_def(TensorType)
    direction = prop_def(StringAttr)
    time_major = prop_def(IntegerAttr)
    activation = prop_def(StringAttr)
    traits = traits_def(Pure(), Cube(), RunsOn())

    def hidden_size(self) -> int:
        return _oshape(self.w_h)[0]

    def verify_op(self) -> None:
        n = self.name
        hs = _oshape(self.w_h)
        if len(hs) != 2 or hs[0] != hs[1]:
            raise VerifyException(f"{n}: w_h must be [hidden_size, hidden_size], got "
                                  f"{_fmt_shape(hs)}")
        h = hs[0]
        b = _oshape(self.x)[1] if len(_oshape(self.x)) == 3 else -1
        check_one_of(n, "direction", self.direction, RNN_DIRECTIONS)
        check_one_of(n, "activation", self.activation, ("tanh", "relu"))
        xs = _oshape(self.x)
        if len(xs) != 3:
            raise VerifyException(f"{n}: x must be [num_step, batch, input_size], got "
                                  f"{_fmt_shape(xs)}")
        for what, v, want in (("w_x", self.w_x, (xs[2], h)), ("b", self.b, (h,)),
                              ("init_h", self.init_h, (b, h))):
            if not _shapes_match(_oshape(v), want):
                raise VerifyException(f"{n}: {what} must be {_fmt_shape(want)}, got "
                                      f"{_fmt_shape(_oshape(v))}")
        if not _flag(self.time_major):
            raise VerifyException(f"{n}: only time_major = true is represented")
        _check_result_shape(n, (xs[0], xs[1], h), _oshape(self.y))
        check_same_element_type(n, self.x.type, self.y.type)


RECURRENT_OPS = (DynamicRNNOp, DynamicGRUV2Op, TanhRNNOp, InplaceUpdateOp)
__all__ += [c.__name__ for c in RECURRENT_OPS]
CANN = Dialect("cann", [*CANN.operations, *RECURRENT_OPS], list(CANN.attributes))
