"""The `kernel` dialect: tiled device kernels for one chip.

Each kernel states how many cores it uses (`block_dim`), its tiling with the field names Ascend C
uses (`#kernel.tiling<singleCoreM = 64, baseM = 64, ...>`, cann-facts.md section 7) and the
buffers it holds per core in the memory hierarchy (`#kernel.buffer<L0A, 16384, "A">`).  The
module names the chip (`cann.soc_version`); the verifier checks every buffer against that chip's
capacities (section 6) and names the buffer and the bytes when one overflows.

Operands are tensors in their storage formats (NC1HWC0, FRACTAL_Z, ND); kernels compute on those
layouts directly, padding included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
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
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from compiler.chips import CHIPS, UnknownChipError, get_chip
from dialects.common import I64Array, check_len, check_one_of

MEMORY_SPACES = ("GM", "L1", "L0A", "L0B", "L0C", "UB")
SOC_ATTR = "cann.soc_version"


@irdl_attr_definition
class TilingAttr(ParametrizedAttribute):
    """`#kernel.tiling<singleCoreM = 64, baseM = 64, ...>`: named integer tiling fields."""

    name = "kernel.tiling"
    fields: DictionaryAttr

    def __init__(self, fields: Mapping[str, int]):
        super().__init__(DictionaryAttr({k: IntegerAttr(int(v), i64) for k, v in fields.items()}))

    def __getitem__(self, key: str) -> int:
        return self.fields.data[key].value.data

    def get(self, key: str, default: int | None = None) -> int | None:
        v = self.fields.data.get(key)
        return default if v is None else v.value.data

    def as_dict(self) -> dict[str, int]:
        return {k: v.value.data for k, v in self.fields.data.items()}

    def verify(self) -> None:
        for k, v in self.fields.data.items():
            if not isinstance(v, IntegerAttr):
                raise VerifyException(f"#kernel.tiling: field '{k}' must be an integer")

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(", ".join(f"{k} = {v}" for k, v in self.as_dict().items()))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def field() -> tuple[str, IntegerAttr] | None:
            key = parser.parse_optional_identifier()
            if key is None:
                return None
            parser.parse_punctuation("=")
            return key, IntegerAttr(parser.parse_integer(), i64)

        def required() -> tuple[str, IntegerAttr]:
            item = field()
            if item is None:
                parser.raise_error("tiling field name expected")
            return item

        with parser.in_angle_brackets():
            items = parser.parse_optional_undelimited_comma_separated_list(field, required) or []
        return (DictionaryAttr(dict(items)),)


@irdl_attr_definition
class BufferAttr(ParametrizedAttribute):
    """`#kernel.buffer<L0A, 16384, "A">`: one per-core buffer: memory space, bytes, role."""

    name = "kernel.buffer"
    space: StringAttr
    size: IntAttr
    role: StringAttr

    def __init__(self, space: str, size: int, role: str):
        super().__init__(StringAttr(space), IntAttr(int(size)), StringAttr(role))

    def verify(self) -> None:
        if self.space.data not in MEMORY_SPACES:
            raise VerifyException(
                f"#kernel.buffer: unknown memory space '{self.space.data}'; "
                f"known: {', '.join(MEMORY_SPACES)}")
        if self.size.data < 0:
            raise VerifyException("#kernel.buffer: size must be >= 0")

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.space.data}, {self.size.data}, ")
            printer.print_string_literal(self.role.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            space = parser.parse_identifier()
            if space not in MEMORY_SPACES:
                parser.raise_error(
                    f"unknown memory space '{space}'; known: {', '.join(MEMORY_SPACES)}",
                    pos, parser.pos)
            parser.parse_punctuation(",")
            size = parser.parse_integer()
            parser.parse_punctuation(",")
            role = parser.parse_str_literal()
        return (StringAttr(space), IntAttr(size), StringAttr(role))


def soc_of(op: IRDLOperation) -> str | None:
    """The chip named by the enclosing module's `cann.soc_version` attribute."""
    p = op.parent_op()
    while p is not None and not isinstance(p, ModuleOp):
        p = p.parent_op()
    if p is None:
        return None
    attr = p.attributes.get(SOC_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


class KernelOp(IRDLOperation):
    """Common part: block_dim, tiling and buffers, checked against the module's chip."""

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"

    block_dim = prop_def(IntegerAttr)
    tiling = prop_def(TilingAttr)
    buffers = prop_def(ArrayAttr[BufferAttr])
    traits = traits_def(Pure())

    #: "cube" kernels run on the AI cores' cube units, "vector" kernels on the vector cores.
    UNIT: ClassVar[str] = "vector"

    def verify_(self) -> None:
        n = self.name
        soc = soc_of(self)
        if soc is None:
            raise VerifyException(f"{n}: the module must name its chip with '{SOC_ATTR}'")
        try:
            chip = get_chip(soc)
        except UnknownChipError as e:
            raise VerifyException(str(e)) from None
        cores = chip.cube_cores if self.UNIT == "cube" else chip.vector_cores
        bd = self.block_dim.value.data
        if not 1 <= bd <= cores:
            raise VerifyException(f"{n}: block_dim {bd} is outside 1..{cores} {self.UNIT} cores of {soc}")
        used: dict[str, int] = {}
        for b in self.buffers.data:
            used[b.space.data] = used.get(b.space.data, 0) + b.size.data
        for space, size in used.items():
            cap = chip.capacity(space)
            if cap is not None and size > cap:
                roles = ", ".join(f'"{b.role.data}"' for b in self.buffers.data if b.space.data == space)
                raise VerifyException(
                    f"{n}: buffers in {space} ({roles}) need {size} bytes; {soc} has {cap}")
        self.verify_kernel()

    def verify_kernel(self) -> None:
        pass


CUBE_TILING_FIELDS = (
    "usedCoreNum", "M", "N", "Ka", "Kb", "singleCoreM", "singleCoreN", "singleCoreK",
    "baseM", "baseN", "baseK", "depthA1", "depthB1", "stepM", "stepN", "stepKa", "stepKb",
    "iterateOrder", "dbL0A", "dbL0B", "dbL0C",
)


@irdl_op_definition
class CubeConv2DOp(KernelOp):
    """A convolution on the cube, as an implicit GEMM (im2col): M = N*Ho*Wo, K = C1*kh*kw*C0,
    N = Cout.  x is NC1HWC0, filter FRACTAL_Z, bias ND; y is NC1HWC0.  The epilogue (bias,
    activation) runs on the tile in UB before it is written back to GM."""

    name = "kernel.cube_conv2d"
    UNIT: ClassVar[str] = "cube"
    x = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    y = result_def(TensorType)
    strides = prop_def(I64Array)
    dilations = prop_def(I64Array)
    pads = prop_def(I64Array)
    kernel_hw = prop_def(I64Array)
    activation = prop_def(StringAttr)

    def verify_kernel(self) -> None:
        n = self.name
        check_len(n, "strides", self.strides, 2)
        check_len(n, "dilations", self.dilations, 2)
        check_len(n, "pads", self.pads, 4)
        check_len(n, "kernel_hw", self.kernel_hw, 2)
        check_one_of(n, "activation", self.activation, ("none", "Relu"))
        if len(self.x.type.get_shape()) != 5 or len(self.y.type.get_shape()) != 5:
            raise VerifyException(f"{n}: x and y must be NC1HWC0 (rank 5)")
        if len(self.filter.type.get_shape()) != 4:
            raise VerifyException(f"{n}: filter must be FRACTAL_Z (rank 4)")
        missing = [f for f in CUBE_TILING_FIELDS if self.tiling.get(f) is None]
        if missing:
            raise VerifyException(f"{n}: tiling lacks {', '.join(missing)}")


VECTOR_FUNCTIONS = ("Relu", "BiasAdd")


@irdl_op_definition
class VectorOp(KernelOp):
    """An elementwise kernel on the vector unit: `fn` over UB tiles of `tileElems` elements."""

    name = "kernel.vector"
    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    fn = prop_def(StringAttr)

    def verify_kernel(self) -> None:
        check_one_of(self.name, "fn", self.fn, VECTOR_FUNCTIONS)
        for f in ("tileElems", "tilesPerCore"):
            if self.tiling.get(f) is None:
                raise VerifyException(f"{self.name}: tiling lacks {f}")


@irdl_op_definition
class TransDataOp(KernelOp):
    """Layout conversion on the vector unit (the TransData kernel)."""

    name = "kernel.transdata"
    src = operand_def(TensorType)
    dst = result_def(TensorType)
    src_format = prop_def(StringAttr)
    dst_format = prop_def(StringAttr)


KERNEL = Dialect("kernel", [CubeConv2DOp, VectorOp, TransDataOp], [TilingAttr, BufferAttr])

__all__ = ["KERNEL", "CHIPS", "SOC_ATTR"]
