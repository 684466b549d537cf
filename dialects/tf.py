"""The `tf` dialect: one op per TensorFlow graph node, attributes under TensorFlow's own names.

Op names are the TF op type (`tf.Conv2D`), like TensorFlow's MLIR tf dialect.  The importer
sets `loc("node/name")` on every op.  Graph inputs are function arguments; each Placeholder node
stays as a `tf.Placeholder` op forwarding its argument so that the node, its name and its
attributes are kept ("one op per node").
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.common import (
    I64Array,
    check_len,
    check_one_of,
    check_rank,
    check_same_element_type,
    dims_compatible,
)

PADDINGS = ("SAME", "VALID", "EXPLICIT")
DATA_FORMATS_2D = ("NHWC", "NCHW")


class TFOp(IRDLOperation):
    """Base of tf ops: operands, then a `{...}` attribute dictionary, then the function type."""

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "operands attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class PlaceholderOp(TFOp):
    """A graph input.  Its operand is the function argument that feeds it."""

    name = "tf.Placeholder"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    shape = opt_prop_def(StringAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.input.type != self.output.type:
            raise VerifyException("tf.Placeholder: result type must equal the argument type")


@irdl_op_definition
class ConstOp(IRDLOperation):
    """`%w = tf.Const dense<...> : tensor<3x3x3x8xf32>` (hex for more than 100 elements)."""

    name = "tf.Const"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    def verify_(self) -> None:
        if self.value.type != self.output.type:
            raise VerifyException(
                f"tf.Const: value type {self.value.type} differs from result type {self.output.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("tf.Const expects a dense elements attribute", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(value)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


@irdl_op_definition
class Conv2DOp(TFOp):
    name = "tf.Conv2D"
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    output = result_def(TensorType)
    strides = prop_def(I64Array)
    padding = prop_def(StringAttr)
    data_format = prop_def(StringAttr)
    dilations = prop_def(I64Array)
    explicit_paddings = opt_prop_def(I64Array)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        n = self.name
        check_len(n, "strides", self.strides, 4)
        check_len(n, "dilations", self.dilations, 4)
        padding = check_one_of(n, "padding", self.padding, PADDINGS)
        fmt = check_one_of(n, "data_format", self.data_format, DATA_FORMATS_2D)
        if padding == "EXPLICIT":
            if self.explicit_paddings is None:
                raise VerifyException(f"{n}: padding EXPLICIT needs 'explicit_paddings'")
            check_len(n, "explicit_paddings", self.explicit_paddings, 8)
        x, w, y = self.input.type, self.filter.type, self.output.type
        for what, t in (("input", x), ("filter", w), ("result", y)):
            check_rank(n, what, t.get_shape(), (4,))
        check_same_element_type(n, x, w, y)
        cin = x.get_shape()[3 if fmt == "NHWC" else 1]
        if not dims_compatible(cin, w.get_shape()[2]):
            raise VerifyException(
                f"{n}: input has {cin} channels but the filter (HWCN) expects {w.get_shape()[2]}")


@irdl_op_definition
class BiasAddOp(TFOp):
    name = "tf.BiasAdd"
    value = operand_def(TensorType)
    bias = operand_def(TensorType)
    output = result_def(TensorType)
    data_format = prop_def(StringAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        n = self.name
        fmt = check_one_of(n, "data_format", self.data_format, DATA_FORMATS_2D)
        x, b, y = self.value.type, self.bias.type, self.output.type
        check_rank(n, "bias", b.get_shape(), (1,))
        check_same_element_type(n, x, b, y)
        if x.get_num_dims() < 2:
            raise VerifyException(f"{n}: value must have rank at least 2")
        c = x.get_shape()[-1 if fmt == "NHWC" else 1]
        if not dims_compatible(c, b.get_shape()[0]):
            raise VerifyException(f"{n}: bias has {b.get_shape()[0]} elements, channels are {c}")


class UnaryTFOp(TFOp):
    x = operand_def(TensorType)
    y = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.x.type != self.y.type:
            raise VerifyException(f"{self.name}: result type must equal the operand type")


@irdl_op_definition
class ReluOp(UnaryTFOp):
    name = "tf.Relu"


@irdl_op_definition
class IdentityOp(TFOp):
    name = "tf.Identity"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.input.type != self.output.type:
            raise VerifyException("tf.Identity: result type must equal the operand type")


TF = Dialect("tf", [PlaceholderOp, ConstOp, Conv2DOp, BiasAddOp, ReluOp, IdentityOp], [])
