"""The cann dialect's base: the #cann.format storage attribute and its helpers, the CannOp base class,
the shared verifier helpers and canonicalization traits, and cann.Const.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, IntAttr, StringAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, HasCanonicalizationPatternsTrait, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.build import FastBuilt
from compiler.ir.typed import shape_of, tensor_of
from compiler.target.formats import FORMAT_NAMES, Format, storage_shape
from dialects.common import EnumProperties, dims_compatible, numpy_dtype, string_enum_attr
from dialects.op_kinds import Constant, FixedPrecision


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




def stored_as_origin(t: Attribute) -> bool:
    """A formatted type whose stored bytes are its origin's row-major bytes: NC1HWC0 of a
    channels-last value with C == C0 (one C1 block, no padding lanes: (N, 1, H, W, C0) is
    NHWC), FRACTAL_NZ of [.., M, K] with K == C0 and M a multiple of 16 ((.., 1, M/16, 16, C0)
    is [.., M, K]) (cann-facts.md section 2: the layouts).  A TransData between it and its
    origin moves no byte."""
    f = format_of(t)
    if f is None or not f.origin or any(d < 0 for d in f.origin) or not isinstance(t, TensorType):
        return False
    s, o = tuple(t.get_shape()), f.origin
    if f.fmt == Format.NC1HWC0:
        return f.origin_fmt != Format.NCHW and len(s) >= 4 and s[1] == 1 and s[-1] == o[-1]
    if f.fmt == Format.FRACTAL_NZ:
        return len(o) >= 2 and len(s) >= 4 and s[-4] == 1 and s[-1] == o[-1] and s[-3] * s[-2] == o[-2]
    return False


def storage_type(t: Attribute, fmt: Format, origin_format: Format, groups: int = 1,
                 grouped_conv: bool = False) -> TensorType:
    """The type of `t` (origin shape, origin_format) stored as `fmt` (`groups`: grouped FRACTAL_Z;
    `grouped_conv`: of a grouped Conv2D's filter, never read as a depthwise one)."""
    t = tensor_of(t)
    # attributes are immutable: one formatted type per (type, formats, groups), built and
    # verified once (layout assignment asks for the same ones op after op)
    key = (t, fmt, origin_format, groups, grouped_conv)
    got = _STORAGE_TYPES.get(key)
    if got is not None:
        return got
    shape = tuple(t.get_shape())
    sshape = storage_shape(fmt, origin_format, shape, numpy_dtype(t.element_type), groups,
                           grouped_conv)
    got = TensorType(t.element_type, sshape, FormatAttr(fmt, origin_format, shape, groups,
                                                        grouped_conv))
    if len(_STORAGE_TYPES) > 100_000:
        _STORAGE_TYPES.clear()
    _STORAGE_TYPES[key] = got
    return got


#: (origin type, fmt, origin format, groups, grouped_conv) -> its storage type
_STORAGE_TYPES: dict[tuple, TensorType] = {}




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




#: `data_format = "NHWC"`
DataFormatAttr = string_enum_attr("cann.data_format", DataFormat)




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




#: `activation = "Relu"`
ActivationAttr = string_enum_attr("cann.activation", Activation)




#: `src_format = "NC1HWC0"`: a storage format named by an op (TransData; the members are
#: compiler/target/formats.py's Format).
FormatNameAttr = string_enum_attr("cann.format_name", Format, "FormatNameAttr")




class CannOp(EnumProperties):
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"
    #: The kernel.vec function the general elementwise lowering applies to each tile, every
    #: operand loaded in its own element type (Cast, SelectV2, comparisons and logic:
    #: cann-to-kernel GeneralElementwiseToVectorBody); None: not lowered that way.
    GENERAL_ELEMENTWISE_FN: ClassVar[str | None] = None

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


# --- constant folding (compiler/interpreters/constant_eval.py evaluates both kinds of op) --------

@dataclass(frozen=True)
class FoldedInFusion(OpTrait):
    """An elementwise op fusion evaluates on constant operands (Keras 3's BatchNorm arithmetic on
    its constant parameters): fusion's constants (`const_value`) see through it, and fuse's
    constant folding replaces it by a cann.Const when its operands are constants."""


@dataclass(frozen=True)
class AlwaysFolded(OpTrait):
    """An op tf-to-cann emits only over constants (a tensor made from constant scalars): every
    pipeline folds it to a cann.Const (fold-constants; fuse's constant folding when cann-cleanup
    is off), so it has no kernel lowering."""




@irdl_op_definition
class ConstOp(FastBuilt):
    """`%w = cann.Const dense<...> : tensor<...> -> tensor<..., #cann.format<FRACTAL_Z, ...>>`.

    The value holds the storage data (already in its device layout); the result type may carry
    the format.  Without a format the second type is omitted.
    """

    name = "cann.Const"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure(), Constant(), ConstantLike(), FixedPrecision())

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




def inferring() -> bool:
    """Whether a verifier runs for `inferred_result_shapes` (its shape rules are recorded)."""
    return _INFERRING is not None




def _check_result_shape(op_name: str, want, got) -> None:
    if _INFERRING is not None:
        _INFERRING.append(tuple(int(d) for d in want))
        return
    if not _shapes_match(tuple(want), tuple(got)):
        raise VerifyException(
            f"{op_name}: result shape must be {_fmt_shape(want)}, got {_fmt_shape(got)}")




def inferred_result_shapes(op) -> list[tuple[int, ...]] | None:
    """The (origin) result shapes of `op` its verifier's shape rules compute from its operands:
    the shape inference of a kernel tiled at dispatch (tools/driver/runtime_tiling.py).
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




def origin_tensor_type(t: Attribute) -> TensorType:
    """t without its storage format: the origin shape, the element type."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    t = tensor_of(t)
    if format_of(t) is None:
        return t
    return TensorType(t.element_type, [DYNAMIC_INDEX if d < 0 else d for d in origin_shape(t)])

