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
from enum import EnumMeta
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

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
    VarOperand,
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
from xdsl.utils.str_enum import StrEnum

from compiler.ir.typed import elem_of, int_of, memref_of, shape_of
from compiler.target.chips import CHIPS, UnknownChipError, get_chip
from dialects.cann import Activation, ActivationAttr, FormatNameAttr
from dialects.common import (
    EnumProperties,
    I64Array,
    check_len,
    check_one_of,
    enum_prop,
    i64_attr,
    ints,
    opt_enum_prop,
    string_enum_attr,
)

MEMORY_SPACES = ("GM", "L1", "L0A", "L0B", "L0C", "UB")
SOC_ATTR = "cann.soc_version"


@irdl_attr_definition
class TilingAttr(ParametrizedAttribute):
    """`#kernel.tiling<singleCoreM = 64, baseM = 64, ...>`: named integer tiling fields."""

    name = "kernel.tiling"
    fields: DictionaryAttr

    def __init__(self, fields: Mapping[str, int]):
        super().__init__(DictionaryAttr({k: i64_attr(int(v)) for k, v in fields.items()}))

    def __getitem__(self, key: str) -> int:
        return int_of(self.fields.data[key])

    def get(self, key: str, default: int | None = None) -> int | None:
        v = self.fields.data.get(key)
        return default if v is None else int_of(v)

    def as_dict(self) -> dict[str, int]:
        return {k: int_of(v) for k, v in self.fields.data.items()}

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


class KernelOp(EnumProperties):
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
    activation = enum_prop(ActivationAttr)

    def verify_kernel(self) -> None:
        n = self.name
        check_len(n, "strides", self.strides, 2)
        check_len(n, "dilations", self.dilations, 2)
        check_len(n, "pads", self.pads, 4)
        check_len(n, "kernel_hw", self.kernel_hw, 2)
        check_one_of(n, "activation", self.activation, (Activation.none, Activation.Relu))
        if len(shape_of(self.x)) != 5 or len(shape_of(self.y)) != 5:
            raise VerifyException(f"{n}: x and y must be NC1HWC0 (rank 5)")
        if len(shape_of(self.filter)) != 4:
            raise VerifyException(f"{n}: filter must be FRACTAL_Z (rank 4)")
        missing = [f for f in CUBE_TILING_FIELDS if self.tiling.get(f) is None]
        if missing:
            raise VerifyException(f"{n}: tiling lacks {', '.join(missing)}")


class VectorFunction(StrEnum):
    """What a kernel.vector computes."""

    Relu = "Relu"
    BiasAdd = "BiasAdd"


VectorFunctionAttr = string_enum_attr("kernel.vector_function", VectorFunction)


@irdl_op_definition
class VectorOp(KernelOp):
    """An elementwise kernel on the vector unit: `fn` over UB tiles of `tileElems` elements."""

    name = "kernel.vector"
    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    fn = enum_prop(VectorFunctionAttr)

    def verify_kernel(self) -> None:
        for f in ("tileElems", "tilesPerCore"):
            if self.tiling.get(f) is None:
                raise VerifyException(f"{self.name}: tiling lacks {f}")


@irdl_op_definition
class TransDataOp(KernelOp):
    """Layout conversion on the vector unit (the TransData kernel)."""

    name = "kernel.transdata"
    src = operand_def(TensorType)
    dst = result_def(TensorType)
    src_format = enum_prop(FormatNameAttr)
    dst_format = enum_prop(FormatNameAttr)


# === Kernels with an explicit body ============================================================
#
#   %y = kernel.cube %x, %w, %b {kind = "Conv2D", block_dim = 4 : i64, tiling = ..., buffers = ...}
#          : (tensor<..NC1HWC0..>, tensor<..FRACTAL_Z..>, tensor<16xf32>) -> tensor<..> {
#   ^bb0(%X: memref<1x1x8x8x16xf32, #kernel.space<GM>>, %W: ..., %B: ..., %Y: ...):
#     kernel.cores grid [1, 2, 2] tile [1, 256, 16] {             // one block per core
#     ^bb0(%g: index, %m0: index, %n0: index):
#       kernel.for %m0 extent 256 step 128 limit 512 {             // base blocks of the core
#       ^bb0(%m: index):
#         ...
#           %c = kernel.alloc : memref<1x8x16x16xf32, #kernel.space<L0C>>
#           kernel.for %zero extent 144 step 32 limit 144 { ^bb0(%k: index):
#             %a1 = kernel.load %X[%g, %m, %k] {view = "img2col", ...} : GM -> L1 [baseM, baseK]
#             %a0 = kernel.load %a1[] {view = "Zz"} : L1 -> L0A fractals
#             %b1 = kernel.load %W[%g, %k, %n] {view = "fz"} : GM -> L1 [baseK, baseN]
#             %b0 = kernel.load %b1[] {view = "Zn"} : L1 -> L0B fractals
#             kernel.mmad %c, %a0, %b0                              // L0C += L0A x L0B
#           }
#           %u = kernel.fixpipe %c : L0C -> UB [baseM, baseN]
#           %bb = kernel.load %B[%g, %n] {view = "channel"} : GM -> UB [1, baseN]
#           %v = kernel.vec %u, %bb {fn = "Add"} ; %r = kernel.vec %v {fn = "Relu"}   // epilogue
#           kernel.store %r, %Y[%g, %m, %n] {view = "nc1hwc0"} : UB -> GM (clipped)
#
# Buffers inside the body are memrefs whose memory space is a `#kernel.space<...>`; the verifier
# checks the data path (GM -> L1 -> L0A/L0B, L0C -> UB, UB -> GM) and that every tile fits its
# space on the module's chip.  The interpreter (compiler/interpreters/kernel_impl.py) runs the
# body tile by tile on the real storage layouts.

from xdsl.dialects.builtin import (  # noqa: E402
    IndexType,
    MemRefType,
    NoneAttr,
    SymbolRefAttr,  # noqa: E402
)
from xdsl.irdl import region_def, var_result_def  # noqa: E402
from xdsl.traits import IsTerminator, NoTerminator  # noqa: E402,F401


@irdl_attr_definition
class SpaceAttr(ParametrizedAttribute):
    """`#kernel.space<L0A>`: a memory space of the Ascend memory hierarchy (memref memory space)."""

    name = "kernel.space"
    space: StringAttr

    def __init__(self, space: str):
        super().__init__(StringAttr(space))

    def verify(self) -> None:
        if self.space.data not in MEMORY_SPACES:
            raise VerifyException(f"#kernel.space: unknown memory space '{self.space.data}'; "
                                  f"known: {', '.join(MEMORY_SPACES)}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.space.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            space = parser.parse_identifier()
            if space not in MEMORY_SPACES:
                parser.raise_error(
                    f"unknown memory space '{space}'; known: {', '.join(MEMORY_SPACES)}",
                    pos, parser.pos)
        return (StringAttr(space),)


_MEMREFS: dict[tuple, MemRefType] = {}


def memref(shape: Sequence[int], element_type: Attribute, space: str) -> MemRefType:
    # attributes are immutable: one instance per (shape, type, space); building and verifying
    # a MemRefType is a quarter of cann-to-kernel's time on ResNet50 otherwise
    t = _MEMREFS.get((tuple(shape), element_type, space))  # hit: an equal shape (no int() pass)
    if t is not None:
        return t
    key = (tuple(int(d) for d in shape), element_type, space)
    t = _MEMREFS.get(key)
    if t is None:
        # `new`: MemRefType.__init__ tests its shape against ArrayAttr[IntAttr] with `isa`,
        # which builds that constraint from the type hint on every call (half of its cost)
        t = _MEMREFS[key] = MemRefType.new(
            (ArrayAttr(tuple(IntAttr(d) for d in key[0])), element_type, NoneAttr(), SpaceAttr(space)))
    return t


def space_of(t: Attribute) -> str | None:
    if isinstance(t, MemRefType) and isinstance(t.memory_space, SpaceAttr):
        return t.memory_space.space.data
    return None


def memref_bytes(t: MemRefType) -> int:
    from dialects.common import numpy_dtype

    n = numpy_dtype(t.element_type).itemsize
    for d in t.get_shape():
        n *= d
    return n


def _need_space(op: IRDLOperation, what: str, t: Attribute, spaces: Sequence[str]) -> str:
    sp = space_of(t)
    if sp is None or sp not in spaces:
        raise VerifyException(
            f"{op.name}: {what} must be a memref in {' or '.join(spaces)}, got {t}")
    return sp


class BodyKernelOp(KernelOp):
    """A kernel whose body is explicit: block arguments are the GM buffers of the operands and
    of the result, in their storage shapes.  `extra` results (multi-output fusion: an
    intermediate value of the kernel that other kernels read, stored from UB to GM as well)
    follow the result, in the body's arguments too: inputs.., y, extra..."""

    assembly_format = "operands attr-dict `:` functional-type(operands, results) $body"
    inputs = var_operand_def(TensorType)
    y = result_def(TensorType)
    extra = var_result_def(TensorType)
    kind = prop_def(StringAttr)
    body = region_def("single_block")

    def verify_kernel(self) -> None:
        n = self.name
        block = self.body.block
        want = [*(v.type for v in self.inputs), self.y.type, *(r.type for r in self.extra)]
        if len(block.args) != len(want):
            raise VerifyException(
                f"{n}: the body takes {len(want)} GM buffers (operands and results), got {len(block.args)}")
        for i, (arg, t) in enumerate(zip(block.args, want)):
            at = arg.type
            if space_of(at) != "GM" or shape_of(at) != shape_of(t) or elem_of(at) != elem_of(t):
                raise VerifyException(
                    f"{n}: body argument #{i} must be memref<{'x'.join(map(str, shape_of(t)))}x"
                    f"{elem_of(t)}, #kernel.space<GM>>, got {at}")
        soc = soc_of(self)
        if soc is None:
            return  # KernelOp.verify_ has reported it
        chip = get_chip(soc)
        cores = []
        fits: set[int] = set()  # ids of the result types already found within capacity
        for op in self.body.walk():  # one walk: tile capacities, then the cores grids
            if isinstance(op, CoresOp):
                cores.append(op)
            for r in op.results:
                t = r.type
                if id(t) in fits:
                    continue
                sp = space_of(t)
                cap = chip.capacity(sp) if sp else None
                if cap is None or memref_bytes(memref_of(r)) <= cap:
                    fits.add(id(t))
                else:
                    raise VerifyException(
                        f"{n}: a {sp} tile of {memref_bytes(memref_of(r))} bytes ({r.type}) exceeds "
                        f"{chip.name}'s {sp} of {cap} bytes")
        for c in cores:
            prod = 1
            for g in ints(c.grid):
                prod *= g
            if prod != self.block_dim.value.data:
                raise VerifyException(
                    f"{n}: kernel.cores grid {list(ints(c.grid))} has {prod} blocks, block_dim is "
                    f"{self.block_dim.value.data}")


@irdl_op_definition
class CubeKernelOp(BodyKernelOp):
    """A cube kernel (conv by img2col implicit GEMM, matmul, batch matmul) with its tile loops."""

    name = "kernel.cube"
    UNIT: ClassVar[str] = "cube"

    def verify_kernel(self) -> None:
        super().verify_kernel()
        missing = [f for f in CUBE_TILING_FIELDS if self.tiling.get(f) is None]
        if missing:
            raise VerifyException(f"{self.name}: tiling lacks {', '.join(missing)}")


#: `kind` of vec_kernels whose body reads and writes each tile at the same index (cann-to-kernel's
#: generic vector kernel): the result may overwrite an input of the same type (memory plan), and
#: f(0) != 0 may land in padding, which the interpreter masks after the body runs.
ELEMENTWISE_KINDS = frozenset({"Elementwise"})


@irdl_op_definition
class VectorKernelOp(BodyKernelOp):
    """A vector-unit kernel (elementwise, pooling, reductions, ...) with its UB tile loops."""

    name = "kernel.vec_kernel"


@irdl_op_definition
class CoresOp(IRDLOperation):
    """The per-core part of a kernel: block b of block_dim = prod(grid) gets, for each grid
    dimension d (the first moving fastest), the offset idx_d * tile[d]."""

    name = "kernel.cores"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict-with-keyword $body"
    grid = prop_def(I64Array)
    tile = prop_def(I64Array)
    body = region_def("single_block")

    def verify_(self) -> None:
        g, t = ints(self.grid), ints(self.tile)
        if len(g) != len(t) or any(v < 1 for v in g + t):
            raise VerifyException(f"{self.name}: grid and tile must have one positive value per dimension")
        args = self.body.block.args
        if len(args) != len(g) or any(not isinstance(a.type, IndexType) for a in args):
            raise VerifyException(f"{self.name}: the body takes {len(g)} index arguments")


@irdl_op_definition
class ForOp(IRDLOperation):
    """`kernel.for %base` runs its body for iv = base, base+step, ... while iv < base+extent and
    iv < limit (the tile loops of one core; the last tile may be partial)."""

    name = "kernel.for"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$base attr-dict-with-keyword $body"
    base = operand_def(IndexType)
    extent = prop_def(IntegerAttr)
    step = prop_def(IntegerAttr)
    limit = prop_def(IntegerAttr)
    body = region_def("single_block")

    def verify_(self) -> None:
        if self.step.value.data < 1 or self.extent.value.data < 0:
            raise VerifyException(f"{self.name}: step must be >= 1 and extent >= 0")
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyException(f"{self.name}: the body takes one index argument")


@irdl_op_definition
class IndexOp(IRDLOperation):
    """`kernel.index 0`: a constant loop bound."""

    name = "kernel.index"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"
    value = prop_def(IntegerAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())


@irdl_op_definition
class MulIndexOp(IRDLOperation):
    """`kernel.mul_index %i {by = 96}`: i * by, an offset from a core's block index (Ascend C's
    `GetBlockIdx() * tileLength`), where one grid index gives two offsets (a row of a workspace
    and a channel offset: compiler/conversions/cann_to_kernel/squeeze_excite.py)."""

    name = "kernel.mul_index"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value attr-dict"
    value = operand_def(IndexType)
    by = prop_def(IntegerAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.by.value.data < 1:
            raise VerifyException(f"{self.name}: by must be >= 1")


@irdl_op_definition
class FmapBaseOp(IRDLOperation):
    """`kernel.fmap_base %m {in_hw = [H, W], out_hw = [Ho, Wo], strides = [sh, sw], pads = [pt,
    ...]}`: the first pixel (row-major, of the N*H rows of W pixels) of the window of x's rows
    that output pixel m and those after it read (compiler/target/conv_geometry.py fmap_first_row,
    times W): where a producer conv computed in that window (compiler/conversions/cann_to_kernel/
    conv_stage.py) starts its output pixels.  The params are the reader's img2col params."""

    name = "kernel.fmap_base"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value attr-dict"
    value = operand_def(IndexType)
    params = prop_def(DictionaryAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        for k in ("in_hw", "out_hw", "strides", "pads"):
            if k not in self.params.data:
                raise VerifyException(f"{self.name}: needs the param {k}")

    def param(self, key: str, default=None):
        v = self.params.data.get(key)
        if v is None:
            return default
        return v.value.data if isinstance(v, IntegerAttr) else ints(v)


@irdl_op_definition
class SyncAllOp(IRDLOperation):
    """`kernel.sync_all`: every core of the kernel waits here until all have arrived (Ascend C
    `SyncAll()`, the hard all-core barrier of Atlas A2: "when different cores operate on the same
    global memory with read-after-write dependencies"; hiascend.com atlasascendc_api_07_0204).  It
    stands between two `kernel.cores` phases of one body: the second phase reads what the first
    stored to GM.  Its cycle cost is not in the reference: the cost walk charges none, and the
    perf report says so."""

    name = "kernel.sync_all"
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, BodyKernelOp):
            raise VerifyException(f"{self.name}: must be in a kernel body, between kernel.cores phases")


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "kernel.yield"
    assembly_format = "attr-dict"
    traits = traits_def(IsTerminator())


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A zero-filled local buffer (the L0C accumulator)."""

    name = "kernel.alloc"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"
    result = result_def(MemRefType)

    def verify_(self) -> None:
        _need_space(self, "result", self.result.type, ("L1", "L0A", "L0B", "L0C", "UB"))


@irdl_op_definition
class JoinOp(IRDLOperation):
    """`kernel.join %a, %b : (memref<2x4x8x16xf16, L1>, memref<3x4x8x16xf16, L1>) ->
    memref<5x4x8x16xf16, L1>`: one local buffer holding the operand tiles one after another
    along their outermost axis (a conv's L1 window of x's rows whose C1 planes come from the
    sources of a channel concat: compiler/transforms/fusion/concat_stage.py).  Each operand's
    load wrote its planes at its offset of this buffer (a DMA's destination address), so the
    join moves no data and costs nothing (compiler/target/kernel_cost_walk.py)."""

    name = "kernel.join"
    assembly_format = "$parts attr-dict `:` functional-type($parts, $result)"
    parts = var_operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        spaces = {space_of(p.type) for p in self.parts} | {space_of(self.result.type)}
        if len(spaces) != 1 or not self.parts:
            raise VerifyException(f"{self.name}: its parts and result must be in one local "
                                  f"space; got {sorted(str(s) for s in spaces)}")
        shapes = [list(shape_of(p)) for p in self.parts]
        out = list(shape_of(self.result))
        if any(s[1:] != out[1:] for s in shapes) or sum(s[0] for s in shapes) != out[0]:
            raise VerifyException(f"{self.name}: parts {shapes} do not stack to {out} along "
                                  "the outermost axis")
        if any(elem_of(p) != elem_of(self.result) for p in self.parts):
            raise VerifyException(f"{self.name}: parts and result must have one element type")


#: src space -> allowed dst spaces (the data paths of the AI core, cann-facts.md sections 3, 6)
LOAD_PATHS = {"GM": ("L1", "UB"), "L1": ("L0A", "L0B", "UB")}
# UB -> L1: a vector-processed cube operand (the squeeze-excite scaled conv's A tiles).  An
# assumption: cann-facts.md lists no UB -> L1 path nor its bandwidth (see compiler/backend/perf_report.py).
LOAD_PATHS["UB"] = ("L1",)
LOAD_VIEWS = {
    # GM -> L1 / UB
    "img2col": "x NC1HWC0 as the implicit-GEMM matrix A[M, K] of group g: indices [g, m, k]",
    "fz": "FRACTAL_Z as B[K, N] of group g: indices [g, k, n]",
    "nz": "FRACTAL_NZ (..., K1, M1, 16, C0) as the matrix [rows, cols] of batch b: [b, r, c]",
    "nd": "an ND (..., R, C) tensor as the matrix [rows, cols] of batch b: [b, r, c] "
          "(param reverse = 1: batch prod(batch)-1-b, a backward recurrent layer's time step)",
    "channel": "a per-channel vector [C] as a [1, n] row from channel g*offset + n: [g, n]",
    "nc1hwc0_pixels": "an NC1HWC0 (N, C1, H, W, C0) tensor as [N/g, g*H*W, C1*C0] (param "
                      "images = g, default 1): rows (groups of g images) [n, +tile[0]), pixels "
                      "[p, +tile[1]), channels [c, +tile[2]) (a global pool's chunk of a "
                      "matmul's A rows), zero past the end: [n, p, c]",
    "nc1hwc0": "an NC1HWC0 tensor as the conv output matrix [M, N] of group g: [g, m, n]",
    "flat": "the flattened storage data from element t: [t]",
    "split_c0": "one part of a split over C of an NC1HWC0 x at a channel offset off the C0 grid, "
                "lane by lane (padding lanes zero), from element t: [t]",
    "channel_flat": "a per-channel vector broadcast to the flat positions of an NC1HWC0 / ND "
                    "tensor: [t]",
    "window_count": "how many elements of each pooling window lie inside the input: [t]",
    "windows": "the pooling windows of the NC1HWC0 output rows [t, t+tile) (tile, kh*kw, C0): [t]",
    "rows": "rows [t, t+tile) of the tensor viewed as [rows, tile row shape] (zero past the end; "
            "with `shape`, of the tensor broadcast to it, numpy rules): [t]",
    "chunk_rows": "the tensor as [rows, length, inner] (NC1HWC0 reduced over H, W: (n, c1), H*W, "
                  "C0): rows [t, +tile), positions [l, +chunk); `fill` 0/1/2/3 = 0/-inf/+inf/1 past "
                  "the end: [t, l]",
    "chunk_channel": "a per-channel vector (or one element) broadcast to the chunk_rows tile of a "
                     "tensor stored as `shape` (channels by `layout`, as channel_flat): [t, l]",
    "flat_valid": "1 where flat storage position t.. of a tensor stored as `shape` (channels by "
                  "`layout`, as channel_flat) holds a channel below `channels`, 0 at channel "
                  "padding lanes and past the end: [t]",
    "chunk_valid": "1 where the chunk_rows tile of x (stored as `shape`) holds an element of x "
                   "(inside [rows, length, inner]; on NC1HWC0, layout 1, a lane below "
                   "`channels`), else 0: [t, l]",
    "pad_rows": "rows [t, +tile) of the zero-padded tensor (pads: before/after per axis) viewed as "
                "[rows, last axis]: [t]",
    "heads": "an ND [B, S, W] tensor as the [S, D] matrix of head h of batch b, columns "
             "col_offset + h*D .. (+D), batch index b*heads + h (transpose: [D, S]): [bh, r, c]; "
             "as a store with nz = 1, into those columns of a FRACTAL_NZ [B, S, W] (rows = S)",
    "transpose_flat": "elements [t, +tile) of the flattened transpose (perm, result shape) of a "
                      "row-major tensor, gathered by the inverse permutation: [t]",
    "slice_flat": "elements [t, +tile) of the flattened strided slice (per axis start, step, "
                  "count) of a row-major tensor: [t]",
    "padded_rows": "rows [t, +tile) of the padded row-major tensor viewed as [rows, last axis]; "
                   "mode 0: `value` outside x, 1: REFLECT, 2: SYMMETRIC (pads per axis): [t]",
    "resize_rows": "output pixels [t, +tile) of a resize, x viewed as (N, C1, H, W, inner) "
                   "(NC1HWC0; NHWC: C1 = 1, inner = C): the source pixel of corner 0..3 (y "
                   "lower/upper x x lower/upper) or of the nearest neighbour (corner -1): [t]",
    "resize_weights": "the interpolation weights (float32, [tile, 1]) along `axis` 0 (H) or 1 (W) "
                      "of output pixels [t, +tile): [t]",
    "aipp_pixels": "static AIPP's source pixels of output pixels [t, +tile) (n, h, w) of the raw "
                   "uint8 image (`format` 0 YUV420SP, 1 RGB888, 2 YUV400; `src_hw`, `crop`, `pads`, "
                   "`swap`, `out_hw`, `rows`): input channel `channel` on every lane, or (-1) "
                   "channel c in lane c: [t]",
    "aipp_valid": "1 where output pixel t.. of static AIPP comes from the cropped image, 0 in "
                  "its padding ([tile, 1]; aipp_pixels' params): [t]",
    "img2col_scale": "a per-(n, c) scale (N, C1, 1, 1, C0) broadcast to the img2col tile A[M, K]: "
                     "element (m, k) = scale[n of row m, channel of column k] (img2col's params): "
                     "[g, m, k]",
    "img2col_channel": "a per-channel vector (ND, last axis C; or one element) broadcast to the "
                       "img2col tile A[M, K]: element (m, k) = v[channel of column k], 0 past C "
                       "(img2col's params and c0; with channel_offset: v[channel_offset + "
                       "channel], 0 past cin): [g, m, k]",
    "img2col_valid": "1 where the img2col tile A[M, K] of x reads an element of x, 0 at conv pads, "
                     "channel padding lanes and past M, K (img2col's params; in_hw: the extent of "
                     "the tensor the conv reads when x is another, a pool prologue's input): "
                     "[g, m, k]",
    "hw_chunks": "an NC1HWC0 tensor as [C1 blocks, H*W positions, C0] of batch n: channels "
                 "[c, +tile[0]*C0) (c a multiple of C0), positions [l, +tile[1]), zero past the "
                 "ends: [n, c, l]",
    "nz_origin_rows": "rows [t, +tile[0]) of a FRACTAL_NZ (..., K1, M1, 16, C0) tensor's padded "
                      "row space (B * M1 * 16 rows, batch-major) as rows of its origin [.., M, K]: "
                      "NZ[b, :, m1, m0, :] across all K1 column blocks, columns past K (`cols`) "
                      "dropped, rows past M (`rows`) zero; 16 rows from a multiple of 16 are one "
                      "m1 block (a row kernel's tile): [t]",
    "nc1hwc0_rows": "rows [t, +tile[0]) of an NC1HWC0 (N, C1, H, W, C0) tensor as rows (n, h, w) "
                    "of its NHWC origin: x[n, :, h, w, :] across all C1 blocks, the padding lanes "
                    "past `channels` dropped (a row kernel over C, any channel count): [t]",
    "filter_t": "a 1x1 HWCN filter [1, 1, Ci, Co] as its transpose [Co, Ci], rows [r, +R) and "
                "columns [c, +prod(tile[1:])) filled row-major into the tile (zero past the "
                "ends): [r, c]",
    "scan_rows": "the tensor as [rows, length, inner] (a scan along `length`): rows [t, +tile), "
                 "positions [l, +chunk) counted from the last one when `reverse` = 1; zero past "
                 "the ends: [t, l]",
    "fmap": "x NC1HWC0 (N, C1, H, W, C0) as N*H rows of (C1, W, C0) (row n*H + h): the rows "
            "from the first that output pixel m reads (compiler/target/conv_geometry.py "
            "fmap_first_row; img2col's params, in_hw = x's H, W) into the tile (C1, rows, W, C0), "
            "zero past N*H; with plane_rows (a 3-D conv's, conv_geometry.py fmap3d_plane_window) "
            "the tile is (kd*C1, plane_rows, W, C0), slots [d_i*C1, +C1) the rows of depth tap "
            "d_i's plane from the block's first row (zero for a depth pad); with resize_corner "
            "k (0..3: y lower/upper x x lower/upper) and align_corners / half_pixel_centers, of "
            "the tensor of in_hw whose pixel is x's corner-k source pixel of a bilinear resize "
            "(TensorFlow's coordinates, compiler/interpreters/kernel_views.py resize_source); "
            "with c1_range [c, n], of x's planes [c, c+n) only: [g, m]",
    "fmap_resize_weights": "the float32 lerp weights of a bilinear resize (fmap's resize "
                           "params) for the window tile of view fmap: along `axis` 0 (H) one "
                           "per window row, tile (1, rows, 1, 1), 0 past N*H; along 1 (W) one "
                           "per column, tile (1, 1, W, 1): [g, m]",
    "fmap_channel": "a per-channel vector (ND, last axis C; or one element) broadcast to the "
                    "window tile (C1, rows, W, C0) of view fmap: element (c1, r, w, c0) = "
                    "v[c1*C0 + c0], 0 past C: [g, m]",
    "fmap_valid": "1 on the lanes of the window tile (C1, rows, W, C0) of view fmap holding a "
                  "channel of x (< cin), 0 on its channel padding lanes (fmap's params): [g, m]",
    # L1 -> L0A
    "load3d": "Load3D: the img2col tile A[m.., k..] of group g (img2col's params and in_hw) "
              "read from the L1 window the view fmap loaded for M block m, as L0A fractals "
              "(m1, k1, 16, C0): [g, m, k]",
    # UB -> L1
    "copy": "the tile as it is (a tile of fewer rows: its rows first, zero rows after)",
    # L1 -> L0A / L0B
    "Zz": "an [m, k] L1 tile as L0A fractals (m1, k1, 16, C0)",
    "Zn": "a [k, n] L1 tile as L0B fractals (k1, n1, 16, C0); with an index [k], rows "
          "[k, +k1*C0) of it (a B panel resident in L1 across M blocks)",
}
def _converting_props(op, converting: str, view_prop: str, shape_param: str, what: str) -> bool:
    """Checks the properties of a load / store (`what`) that converts the layout on the way (view
    `converting`: from_origin / to_origin): `view_prop` (the view it places the tile by), the two
    formats and the param `shape_param` exist exactly when its view is `converting`, and
    `view_prop` is another view.  True when it is such a load / store."""
    props = (view_prop, "src_format", "dst_format")
    if op.view.data != converting:
        extra = [k for k in props if k in op.properties]
        if extra:
            raise VerifyException(f"{op.name}: '{extra[0]}' is a {converting} {what}'s, not "
                                  f"a '{op.view.data}' {what}'s")
        return False
    missing = [k for k in props if k not in op.properties]
    if op.param(shape_param) is None:
        missing.append(f"params.{shape_param}")
    if missing:
        raise VerifyException(f"{op.name}: a {converting} {what} needs '{missing[0]}'")
    if op.properties[view_prop].data == converting:
        raise VerifyException(f"{op.name}: {view_prop} of a {converting} {what} cannot be "
                              f"'{converting}'")
    return True


#: GM -> L1, converting on the way
LOAD_VIEWS["from_origin"] = (
    "a load whose source's TransData from its row-major origin was folded in "
    "(compiler/conversions/cann_to_kernel/data_movement.py FoldInputTransData): "
    "the tile the view `dst_view` (a property; its params kept) reads from the "
    "device storage (param `dst_shape`, format `dst_format`) of the row-major "
    "source (format `src_format`; the folded TransData's formats, one of "
    "FROM_ORIGIN_LAYOUTS), padding zero: the GM -> L1 DMA converting ND -> NZ / "
    "NHWC -> NC1HWC0 on the way (copy_gm_to_cbuf_multi_nd2nz; Ascend C DataCopy "
    "with Nd2NzParams)")
#: concat_flat: a flat tile of input i (elements [t, +tile)) into its columns of the result
#: viewed as [outer, row]: element p -> (p // inner) * row + offset + p % inner.
#: nz_origin_rows: the inverse of the load view of that name; each row is written across all K1
#: column blocks (rows past M and columns past K as zeros).
STORE_VIEWS: tuple[str, ...] = ("nc1hwc0", "nz", "nd", "flat", "rows", "nz_rows", "heads", "concat_flat",
               "nz_origin_rows")
STORE_VIEWS += ("scan_rows",)  # scan_rows: as the load view, clipped at the ends
#: concat_c0: a flat tile of an NC1HWC0 input into a concat over C at a channel offset off the C0
#: grid, lane by lane (compiler/interpreters/kernel_views.py)
STORE_VIEWS += ("concat_c0",)
#: nc1hwc0_rows: the inverse of the load view of that name; the padding lanes written as zeros
STORE_VIEWS += ("nc1hwc0_rows",)
#: to_origin: the store of a vector or cube kernel whose result TransData to its origin layout was folded
#: in (compiler/conversions/cann_to_kernel/data_movement.py FoldOriginTransData): the tile is
#: placed as the store view `src_view` (a property; its params kept) would place it in the
#: source storage (param `src_shape`, format `src_format`), and each placed element that is not
#: padding goes to its position in the row-major destination of format `dst_format` (the folded
#: TransData's formats, one of TO_ORIGIN_LAYOUTS; padding is not stored)
STORE_VIEWS += ("to_origin",)
#: fmap_window: UB -> L1, a producer conv's [m, n] output tile into the L1 window (C1, rows, W,
#: C0) of its reader conv (compiler/conversions/cann_to_kernel/conv_stage.py): indices [base, m,
#: n], output pixel p (rows [m, +tile) clipped at `M`, the window's rows * W past `base`) at
#: window row (p - base) // W, column (p - base) % W; channels [n, +tile) clipped at `N` (the
#: padding lanes stay the zeros of the window's kernel.alloc)
STORE_VIEWS += ("fmap_window",)
#: the (src_format, dst_format) pairs of a `to_origin` store: a device format and its origin
TO_ORIGIN_LAYOUTS: tuple[tuple[str, str], ...] = (("FRACTAL_NZ", "ND"), ("NC1HWC0", "NHWC"),
                                                   ("NC1HWC0", "NCHW"))
#: the (src_format, dst_format) pairs of a `from_origin` load: what the GM -> L1 converting DMA
#: does (copy_gm_to_cbuf_multi_nd2nz, CANN cce intrinsics cceapi_0096: "ND->NZ, NHWC->NC1HWC0
#: and NHWC->C1HWNC0 ... if the lowest dimension is not aligned to 32 bytes it is padded with
#: zeros in L1"; a 3-D conv's NDHWC input is its [N*D, H, W, C] view: compiler/conversions/
#: tf_to_cann/conv3d.py).  NCHW -> NC1HWC0 is a transpose, which the DMA does not do.
#: NHWC -> NC1HWC0_C04 (a small-C_in conv's x, compiler/target/c04.py): the
#: same conversion with C0 = 4 lanes, written densely (an assumption: the documentation found
#: pads the lowest dimension to 32 bytes; CANN names the C0 = 4 format, not its DMA).
FROM_ORIGIN_LAYOUTS: tuple[tuple[str, str], ...] = (("ND", "FRACTAL_NZ"), ("NHWC", "NC1HWC0"),
                                                     ("NHWC", "NC1HWC0_C04"))

#: The closed sets of views (their meanings above): `view = "nz"` (dialects/common.py: closed sets).
if TYPE_CHECKING:  # the members are made from the lists at run time: LoadView.<any view> is one
    _View = TypeVar("_View")

    class _ViewsMeta(EnumMeta):
        def __getattr__(cls: type[_View], name: str) -> _View: ...

    class LoadView(StrEnum, metaclass=_ViewsMeta):
        """A member per LOAD_VIEWS key."""

    class StoreView(StrEnum, metaclass=_ViewsMeta):
        """A member per STORE_VIEWS entry."""
else:
    LoadView = StrEnum("LoadView", [(v, v) for v in LOAD_VIEWS])
    StoreView = StrEnum("StoreView", [(v, v) for v in STORE_VIEWS])


LoadViewAttr = string_enum_attr("kernel.load_view", LoadView)


StoreViewAttr = string_enum_attr("kernel.store_view", StoreView)


class AccumulateFn(StrEnum):
    """acc = fn(acc, v) of kernel.accumulate (Copy: acc = v)."""

    Add = "Add"
    Max = "Max"
    Min = "Min"
    Mul = "Mul"
    Copy = "Copy"


AccumulateFnAttr = string_enum_attr("kernel.accumulate_fn", AccumulateFn)


class _HasParams(Protocol):
    @property
    def params(self) -> DictionaryAttr: ...


@irdl_op_definition
class LoadOp(EnumProperties):
    """A data move (MTE2 GM -> L1/UB, MTE1 L1 -> L0A/L0B) of one tile; `view` says how the source
    is read (LOAD_VIEWS), `params` carries its geometry.  Outside the source's extent the tile is
    zero (padding)."""

    name = "kernel.load"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src `[` $indices `]` attr-dict `:` type($src) `->` type($result)"
    src = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    view = enum_prop(LoadViewAttr)
    params = prop_def(DictionaryAttr)
    #: a `from_origin` load's own: the view reading the tile from the device storage, and the
    #: folded TransData's formats (LOAD_VIEWS: from_origin); absent on every other load
    dst_view = opt_enum_prop(LoadViewAttr)
    src_format = opt_enum_prop(FormatNameAttr)
    dst_format = opt_enum_prop(FormatNameAttr)
    result = result_def(MemRefType)

    def verify_(self) -> None:
        src = _need_space(self, "source", self.src.type, tuple(LOAD_PATHS))
        dst = _need_space(self, "result", self.result.type, LOAD_PATHS[src])
        if not _converting_props(self, LoadView.from_origin, "dst_view", "dst_shape", "load"):
            return
        assert self.dst_view is not None and self.src_format is not None \
            and self.dst_format is not None
        if (src, dst) != ("GM", "L1"):
            raise VerifyException(f"{self.name}: a from_origin load goes GM -> L1 (the converting "
                                  f"DMA's path); got {src} -> {dst}")
        layout = (self.src_format.data.value, self.dst_format.data.value)
        if layout not in FROM_ORIGIN_LAYOUTS:
            allowed = ", ".join(f"{a} -> {b}" for a, b in FROM_ORIGIN_LAYOUTS)
            raise VerifyException(f"{self.name}: a from_origin load goes {allowed}; got "
                                  f"{layout[0]} -> {layout[1]}")

    def param(self: _HasParams, key: str, default=None):
        v = self.params.data.get(key)
        if v is None:
            return default
        if isinstance(v, IntegerAttr):
            return v.value.data
        return ints(v)


@irdl_op_definition
class MmadOp(IRDLOperation):
    """One cube step (Ascend C Mmad): L0C (Nz) += L0A (Zz) x L0B (Zn), accumulated in fp32."""

    name = "kernel.mmad"
    assembly_format = "$c `,` $a `,` $b attr-dict `:` type($c) `,` type($a) `,` type($b)"
    c = operand_def(MemRefType)
    a = operand_def(MemRefType)
    b = operand_def(MemRefType)

    def verify_(self) -> None:
        _need_space(self, "c", self.c.type, ("L0C",))
        _need_space(self, "a", self.a.type, ("L0A",))
        _need_space(self, "b", self.b.type, ("L0B",))
        (m1, k1, _, k0), (k1b, n1, _, k0b) = shape_of(self.a), shape_of(self.b)
        cn1, cm1, _, _ = shape_of(self.c)
        if (k1, k0) != (k1b, k0b) or (cn1, cm1) != (n1, m1):
            raise VerifyException(f"{self.name}: fractal shapes do not agree: A {self.a.type}, "
                                  f"B {self.b.type}, C {self.c.type}")


@irdl_op_definition
class FixpipeOp(IRDLOperation):
    """L0C (Nz fractals) -> UB as an [m, n] tile (the cube's output path)."""

    name = "kernel.fixpipe"
    assembly_format = "$c attr-dict `:` type($c) `->` type($result)"
    c = operand_def(MemRefType)
    result = result_def(MemRefType)

    def verify_(self) -> None:
        _need_space(self, "source", self.c.type, ("L0C",))
        _need_space(self, "result", self.result.type, ("UB",))


@irdl_op_definition
class VecOp(IRDLOperation):
    """A vector instruction on UB tiles (numpy broadcasting between tiles): `fn` is a CANN
    elementwise op name (Add, Relu, Sigmoid, ...) or a window/row reduction (PoolMax, PoolAvg,
    RowSum, RowMax, ...); `attrs` holds the op's attributes (e.g. negative_slope)."""

    name = "kernel.vec"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $result)"
    inputs = var_operand_def(MemRefType)
    fn = prop_def(StringAttr)
    attrs = prop_def(DictionaryAttr)
    result = result_def(MemRefType)

    def verify_(self) -> None:
        for i, v in enumerate(self.inputs):
            _need_space(self, f"operand #{i}", v.type, ("UB",))
        _need_space(self, "result", self.result.type, ("UB",))


@irdl_op_definition
class StoreOp(EnumProperties):
    """UB -> GM (MTE3) of one tile, clipped at the destination's valid extent (padding stays 0)."""

    name = "kernel.store"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `,` $dst `[` $indices `]` attr-dict `:` type($value) `,` type($dst)"
    value = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    view = enum_prop(StoreViewAttr)
    params = prop_def(DictionaryAttr)
    #: a `to_origin` store's own: the view placing the tile in the source storage, and the
    #: folded TransData's formats (STORE_VIEWS: to_origin); absent on every other store
    src_view = opt_enum_prop(StoreViewAttr)
    src_format = opt_enum_prop(FormatNameAttr)
    dst_format = opt_enum_prop(FormatNameAttr)

    def verify_(self) -> None:
        _need_space(self, "value", self.value.type, ("UB",))
        _need_space(self, "destination", self.dst.type,
                    ("L1",) if self.view.data == StoreView.fmap_window else ("GM",))
        if not _converting_props(self, StoreView.to_origin, "src_view", "src_shape", "store"):
            return
        assert self.src_view is not None and self.src_format is not None \
            and self.dst_format is not None
        layout = (self.src_format.data.value, self.dst_format.data.value)
        if layout not in TO_ORIGIN_LAYOUTS:
            allowed = ", ".join(f"{a} -> {b}" for a, b in TO_ORIGIN_LAYOUTS)
            raise VerifyException(f"{self.name}: a to_origin store goes {allowed}; got "
                                  f"{layout[0]} -> {layout[1]}")

    param = LoadOp.param


@irdl_op_definition
class AccumulateOp(EnumProperties):
    """`kernel.accumulate %acc, %v {fn = "Add"}`: acc = fn(acc, v) in place in UB (a reduction's
    accumulator across the chunks of the reduced axis; fn is Add, Max or Min; Copy: acc = v, a
    UB -> UB DataCopy, the state a recurrent kernel carries from one time step to the next)."""

    name = "kernel.accumulate"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$acc `,` $value attr-dict `:` type($acc) `,` type($value)"
    acc = operand_def(MemRefType)
    value = operand_def(MemRefType)
    fn = enum_prop(AccumulateFnAttr)

    def verify_(self) -> None:
        _need_space(self, "acc", self.acc.type, ("UB",))
        _need_space(self, "value", self.value.type, ("UB",))
        if shape_of(self.acc) != shape_of(self.value):
            raise VerifyException(f"{self.name}: acc {self.acc.type} and value {self.value.type} "
                                  "must have one shape")


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`kernel.gather %x[%t], %ids {params = {axis_len = R, num_ids = M, inner = I}}`: an indexed
    data move (MTE2 GM -> UB, one DataCopy per row at an address read from the index tile in UB;
    GatherV2D): x viewed as [outer, R, inner], the tile holds rows [t, +tile) of the result viewed
    as [outer * M, inner], row j = x[(t + j) // M, ids[j], :]; an index outside [0, R) reads
    zeros."""

    name = "kernel.gather"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = ("$src `[` $indices `]` `,` $ids attr-dict `:` type($src) `,` type($ids) "
                       "`->` type($result)")
    src = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    ids = operand_def(MemRefType)
    params = prop_def(DictionaryAttr)
    result = result_def(MemRefType)

    def verify_(self) -> None:
        _need_space(self, "source", self.src.type, ("GM",))
        _need_space(self, "ids", self.ids.type, ("UB",))
        _need_space(self, "result", self.result.type, ("UB",))
        if shape_of(self.result)[0] != shape_of(self.ids)[0]:
            raise VerifyException(f"{self.name}: one index per row: ids {self.ids.type}, result "
                                  f"{self.result.type}")

    param = LoadOp.param


def _channels_view(xt, yt) -> bool:
    """The same bytes under two NC1HWC0 descriptors: (N, C1, H, W, C0) -> (N, C1, H', W', C0)
    (H, W regrouped), or NC1HWC0 (1, C1, H, W, C0) <-> FRACTAL_NZ (C1, H*W/16, 16, C0) of
    [H*W, C] (C1 x C0 are K1 x C0; the rows (h, w) are the M rows, 16 to an m1 block)."""
    from compiler.target.formats import Format
    from dialects.cann import format_of

    fx, fy = format_of(xt), format_of(yt)
    if fx is None or fy is None:
        return False
    xs, ys = tuple(xt.get_shape()), tuple(yt.get_shape())
    if fx.fmt == fy.fmt == Format.NC1HWC0:  # any rank (compiler/target/formats.py channels_last_shape)
        return min(len(xs), len(ys)) >= 4 and (xs[0], xs[1], xs[-1]) == (ys[0], ys[1], ys[-1])
    if {fx.fmt, fy.fmt} != {Format.NC1HWC0, Format.FRACTAL_NZ}:
        return False
    five, nz = (xs, ys) if fx.fmt == Format.NC1HWC0 else (ys, xs)
    if len(five) != 5 or len(nz) != 4:
        return False
    n_, c1, h, w, c0 = five
    return n_ == 1 and (h * w) % 16 == 0 and nz == (c1, h * w // 16, 16, c0)


def _origin_view(xt, yt) -> bool:
    """A row-major value and its storage in a format whose bytes are the origin's
    (cann.stored_as_origin: C == C0 on NC1HWC0, K == C0 and M % 16 == 0 on FRACTAL_NZ)."""
    from dialects.cann import format_of, origin_shape, stored_as_origin

    fx, fy = format_of(xt), format_of(yt)
    if (fx is None) == (fy is None):
        return False
    plain, stored = (xt, yt) if fx is None else (yt, xt)
    return stored_as_origin(stored) and tuple(plain.get_shape()) == tuple(origin_shape(stored))


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`kernel.scatter %v, %dst[%t], %ids {params = {rows = R, num_ids = K}}`: an indexed data
    move (MTE3 UB -> GM, one DataCopy per row at an address read from the index tile in UB; the
    store of CANN's InplaceUpdate): row j of the tile, update row t + j (< K), goes to row
    ids[j] of dst viewed as [R, inner].  An index outside [0, R) is an error."""

    name = "kernel.scatter"
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = ("$value `,` $dst `[` $indices `]` `,` $ids attr-dict `:` type($value) `,` "
                       "type($dst) `,` type($ids)")
    value = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    ids = operand_def(MemRefType)
    params = prop_def(DictionaryAttr)

    def verify_(self) -> None:
        _need_space(self, "value", self.value.type, ("UB",))
        _need_space(self, "destination", self.dst.type, ("GM",))
        _need_space(self, "ids", self.ids.type, ("UB",))
        if shape_of(self.value)[0] != shape_of(self.ids)[0]:
            raise VerifyException(f"{self.name}: one index per row: ids {self.ids.type}, value "
                                  f"{self.value.type}")

    param = LoadOp.param


@irdl_op_definition
class ViewOp(IRDLOperation):
    """`kernel.view %x : (tensor<1x128x4x64xf32>) -> tensor<1x128x256xf32>`: the same GM bytes
    with another shape (Reshape, Squeeze, ExpandDims).  Not a kernel: no launch, no data move.
    Only plain (ND, row-major) tensors can be viewed: a storage format's padding breaks the
    row-major correspondence.  The exception: FRACTAL_NZ to FRACTAL_NZ with the same (K1, M1,
    16, C0) and origin (M, K), only the batch dims regrouped (e.g. [1, M, K] <-> [M, K]): the
    batches are the outermost axes of NZ, so the bytes are the same; and a row-major value and
    its storage in a format with the same bytes (cann.stored_as_origin: the TransData of a
    C == C0 NHWC value, say)."""

    name = "kernel.view"
    assembly_format = "$x attr-dict `:` functional-type($x, $y)"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure())

    @staticmethod
    def same_bytes(xt, yt) -> bool:
        """A row-major value and its storage in a format with the same bytes (a TransData of it
        is this view)."""
        return _origin_view(xt, yt)

    def verify_(self) -> None:
        from compiler.target.formats import Format
        from dialects.cann import format_of

        xt, yt = self.x.type, self.y.type
        fx, fy = format_of(xt), format_of(yt)
        nz_view = (fx is not None and fy is not None and fx.fmt == fy.fmt == Format.FRACTAL_NZ
                   and shape_of(xt)[-4:] == shape_of(yt)[-4:]
                   and tuple(fx.origin)[-2:] == tuple(fy.origin)[-2:])
        nz_view = nz_view or _channels_view(xt, yt) or _origin_view(xt, yt)
        for what, t in (("operand", xt), ("result", yt)):
            f = format_of(t)
            if nz_view:
                break  # only the batch dims of FRACTAL_NZ change: the same bytes
            if f is not None and f.origin_fmt is not None and f.fmt != f.origin_fmt:
                raise VerifyException(f"{self.name}: the {what} is stored as {f.fmt.value}; only "
                                      "row-major tensors can be viewed")
        if elem_of(xt) != elem_of(yt):
            raise VerifyException(f"{self.name}: operand and result element types differ")
        n_x = n_y = 1
        for d in shape_of(xt):
            n_x *= d
        for d in yt.get_shape():
            n_y *= d
        if n_x != n_y or n_x < 0:
            raise VerifyException(f"{self.name}: cannot view {n_x} elements as {n_y}")



# === Host-side control flow ====================================================================
#
#   %y = kernel.if %p, %x {then_branch = @t, else_branch = @e} : (tensor<i1>, tensor<..>) -> tensor<..>
#   %i, %a = kernel.while %i0, %a0 {cond = @c, body = @b} : (...) -> (...)
#   %y = kernel.case %k, %x {branches = [@b0, @b1]} : (tensor<i32>, tensor<..>) -> tensor<..>
#
# Not a kernel: the host reads the predicate / branch index from GM and launches the kernels of
# the function it names (a `func.func` of the module, lowered to kernels like @main).  ATC emits
# stream tasks for this (StreamSwitch / StreamActive / LabelSwitch); cann-facts.md says nothing
# about them, so this op's form is our design.  Semantics as cann.If / While / Case (a predicate
# is TensorFlow's: a scalar's truth value, a tensor's non-emptiness; a Case index out of range
# runs the last branch).  Memory: compiler/backend/memory_plan.py gives each such op one workspace that
# holds its functions' arenas (and, for a while, two sets of loop-variable buffers).


class ControlKernelOp(IRDLOperation):
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"
    if TYPE_CHECKING:
        inputs: VarOperand  # each control kernel defines its operands
    outputs = var_result_def(TensorType)

    def callees(self) -> list[tuple[str, SymbolRefAttr]]:
        raise NotImplementedError

    def verify_(self) -> None:
        from dialects.cann import _callee, _check_signature

        ins = [v.type for v in self.inputs]
        outs = [r.type for r in self.outputs]
        for what, sym in self.callees():
            f = _callee(self, sym, what)
            if what == "cond":
                _check_signature(self, f, what, ins, None)
                if len(f.function_type.outputs) != 1:
                    raise VerifyException(f"{self.name}: cond @{f.sym_name.data} must return one "
                                          f"predicate, returns {len(f.function_type.outputs)} values")
            else:
                _check_signature(self, f, what, ins, ins if what == "body" else outs)
        if isinstance(self, WhileKernelOp) and ins != outs:
            raise VerifyException(f"{self.name}: results must have the loop variables' types")


@irdl_op_definition
class IfKernelOp(ControlKernelOp):
    """results = cond ? then_branch(inputs) : else_branch(inputs), the predicate read from GM."""

    name = "kernel.if"
    cond = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    then_branch = prop_def(SymbolRefAttr)
    else_branch = prop_def(SymbolRefAttr)

    def callees(self):
        return [("then_branch", self.then_branch), ("else_branch", self.else_branch)]


@irdl_op_definition
class CaseKernelOp(ControlKernelOp):
    """results = branches[branch_index](inputs) (out of range: the last branch)."""

    name = "kernel.case"
    branch_index = operand_def(TensorType)
    inputs = var_operand_def(TensorType)
    branches = prop_def(ArrayAttr[SymbolRefAttr])

    def callees(self):
        return [(f"branch #{i}", s) for i, s in enumerate(self.branches.data)]


@irdl_op_definition
class WhileKernelOp(ControlKernelOp):
    """vals = inputs; while cond(vals): vals = body(vals); results = vals."""

    name = "kernel.while"
    inputs = var_operand_def(TensorType)
    cond = prop_def(SymbolRefAttr)
    body = prop_def(SymbolRefAttr)

    def callees(self):
        return [("cond", self.cond), ("body", self.body)]


CONTROL_KERNEL_OPS = (IfKernelOp, CaseKernelOp, WhileKernelOp)

# --- range compiles: kernels with `?` and a tiling function (issue 16) --------------------------
#
#   %y = kernel.dispatch %x, %w, %b {tiling_fn = #kernel.tiling_fn<cube, symbolic [[0, 0], [3, 0]]>} ({
#   ^0(%0 : tensor<?x1x32x32x16xf32, ...>, ...):
#     %1 = cann.FusedConv2D %0, ... : (...) -> tensor<?x1x32x32x16xf32, ...>
#     kernel.yield
#   }) : (...) -> tensor<?x1x32x32x16xf32, ...>
#
# A kernel of a range-compiled model (tools/driver/runtime_tiling.py): its types keep the
# `?` of the range; its body is the one cann op (fused and laid out once, at compile time) the
# kernel computes, and `tiling_fn` records the tiling function in place of a fixed tiling: which
# solver of compiler/target/tiling.py it calls (`cube`: the GEMM solver, `vector`: the vector
# tiles) and which operand dimensions are symbolic (operand index, dimension), i.e. which of the
# solver's inputs are only known at dispatch.  At dispatch the body op's shape rule (its
# verifier's) gives the result shapes and the op is lowered with the same solver at the run's
# shape (cached by shape).


@irdl_attr_definition
class TilingFnAttr(ParametrizedAttribute):
    """`#kernel.tiling_fn<cube, symbolic [[0, 0], [1, 2]]>`: the solver and the symbolic
    (operand, dimension) inputs of a kernel's tiling function."""

    name = "kernel.tiling_fn"
    solver: StringAttr
    symbolic: ArrayAttr[ArrayAttr[IntAttr]]

    SOLVERS: ClassVar[tuple[str, ...]] = ("cube", "vector")

    def __init__(self, solver: str, symbolic: Sequence[tuple[int, int]]):
        super().__init__(StringAttr(solver),
                         ArrayAttr([ArrayAttr([IntAttr(i), IntAttr(d)]) for i, d in symbolic]))

    @property
    def dims(self) -> tuple[tuple[int, int], ...]:
        return tuple((p.data[0].data, p.data[1].data) for p in self.symbolic.data)

    def verify(self) -> None:
        if self.solver.data not in self.SOLVERS:
            raise VerifyException(f"#kernel.tiling_fn: unknown solver '{self.solver.data}'; "
                                  f"known: {', '.join(self.SOLVERS)}")
        for p in self.symbolic.data:
            if len(p.data) != 2 or min(x.data for x in p.data) < 0:
                raise VerifyException("#kernel.tiling_fn: each symbolic input is [operand, dim]")

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            dims = ", ".join(f"[{i}, {d}]" for i, d in self.dims)
            printer.print_string(f"{self.solver.data}, symbolic [{dims}]")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from xdsl.parser import BaseParser

        def pair() -> ArrayAttr:
            ints = parser.parse_comma_separated_list(BaseParser.Delimiter.SQUARE,
                                                     parser.parse_integer)
            if len(ints) != 2:
                parser.raise_error("a symbolic input is [operand, dim]")
            return ArrayAttr([IntAttr(x) for x in ints])

        with parser.in_angle_brackets():
            pos = parser.pos
            solver = parser.parse_identifier()
            if solver not in cls.SOLVERS:
                parser.raise_error(f"unknown solver '{solver}'; known: {', '.join(cls.SOLVERS)}",
                                   pos, parser.pos)
            parser.parse_punctuation(",")
            parser.parse_keyword("symbolic")
            pairs = parser.parse_comma_separated_list(BaseParser.Delimiter.SQUARE, pair)
        return (StringAttr(solver), ArrayAttr(pairs))


@irdl_op_definition
class DispatchOp(IRDLOperation):
    """A kernel tiled at dispatch: `?` types, the cann op it computes, its tiling function."""

    name = "kernel.dispatch"
    irdl_options = (ParsePropInAttrDict(),)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    tiling_fn = prop_def(TilingFnAttr)
    body = region_def("single_block")
    traits = traits_def(Pure())

    def __init__(self, inputs, result_types, tiling_fn: TilingFnAttr, body):
        super().__init__(operands=[inputs], result_types=[result_types],
                         properties={"tiling_fn": tiling_fn}, regions=[body])

    @property
    def computes(self):
        """The cann op the kernel computes (the body's first op)."""
        return self.body.block.first_op

    def verify_(self) -> None:
        n = self.name
        block = self.body.block
        ops = list(block.ops)
        if len(ops) != 2 or not isinstance(ops[1], YieldOp):
            raise VerifyException(f"{n}: the body is one op and kernel.yield")
        op = ops[0]
        if [a.type for a in block.args] != [v.type for v in self.inputs]:
            raise VerifyException(f"{n}: the body's arguments must have the operands' types")
        if list(op.operands) != list(block.args):
            raise VerifyException(f"{n}: the body op must take the body's arguments in order")
        if [r.type for r in op.results] != [r.type for r in self.outputs]:
            raise VerifyException(f"{n}: results must have the types of {op.name}'s results")
        for i, d in self.tiling_fn.dims:
            if i >= len(self.inputs) or not isinstance(self.inputs[i].type, TensorType) or \
                    d >= len(shape_of(self.inputs[i])) or \
                    shape_of(self.inputs[i])[d] >= 0:
                raise VerifyException(f"{n}: tiling_fn names operand {i} dim {d}, which is not a "
                                      "`?` dimension of an operand")
        want = sorted((i, d) for i, v in enumerate(self.inputs) if isinstance(v.type, TensorType)
                      for d, x in enumerate(v.type.get_shape()) if x < 0)
        if sorted(self.tiling_fn.dims) != want:
            raise VerifyException(f"{n}: tiling_fn must name every `?` operand dimension "
                                  f"{[list(p) for p in want]}")


KERNEL = Dialect(
    "kernel",
    [CubeConv2DOp, VectorOp, TransDataOp, CubeKernelOp, VectorKernelOp, CoresOp, ForOp, IndexOp,
     MulIndexOp, SyncAllOp, YieldOp, AllocOp, LoadOp, MmadOp, FixpipeOp, VecOp, StoreOp, AccumulateOp, ViewOp,
     FmapBaseOp, JoinOp, GatherOp, ScatterOp,
     *CONTROL_KERNEL_OPS, DispatchOp],
    [TilingAttr, BufferAttr, SpaceAttr, VectorFunctionAttr, LoadViewAttr, StoreViewAttr,
     AccumulateFnAttr, TilingFnAttr])

__all__ = ["KERNEL", "CHIPS", "SOC_ATTR"]
