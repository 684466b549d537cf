"""Convolutions: Conv2D, FusedConv2D, DepthwiseConv2D and the conv geometry they verify.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import irdl_op_definition, operand_def, opt_operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.cann.base import (
    CannOp,
    DataFormat,
    DataFormatAttr,
    _check_result_shape,
    _fmt_shape,
    _oshape,
    origin_shape,
)
from dialects.common import (
    I64Array,
    check_len,
    check_one_of,
    check_rank,
    check_same_element_type,
    dims_compatible,
    enum_prop,
)
from dialects.layouts import RunsOn
from dialects.op_kinds import Cube, OutputFusable


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
class Conv3DOp(ConvLike):
    """A 3-D convolution read and written through the (N*D) batch view of NDC1HWC0
    (compiler/target/formats.py: the same bytes as NC1HWC0 of [N*D, H, W, C]): x is the NDHWC
    input as [N*D_in, H, W, C], y the output as [N*D_out, Ho, Wo, O], the filter DHWCN
    (kd, kh, kw, C, O) (stored FRACTAL_Z_3D).  strides, pads, dilations are those of H, W as
    Conv2D takes them (NHWC); `depth` = [D_in, D_out, kd, sd, dd, pad_front, pad_back]."""

    name = "cann.Conv3D"
    depth = prop_def(I64Array)

    def depth_geometry(self) -> tuple[int, ...]:
        from dialects.common import ints

        return tuple(ints(self.depth))

    def verify_op(self) -> None:
        n = self.name
        fmt = verify_conv_attributes(self)
        if fmt != DataFormat.NHWC or self.groups.value.data != 1:
            raise VerifyException(f"{n}: only NHWC, groups = 1")
        d_in, d_out, kd, sd, dd, pf, pb = check_len(n, "depth", self.depth, 7)
        if min(d_in, d_out, kd, sd, dd) < 1 or min(pf, pb) < 0:
            raise VerifyException(f"{n}: depth sizes, strides and dilations must be >= 1, pads >= 0")
        if (d_in + pf + pb - dd * (kd - 1) - 1) // sd + 1 != d_out:
            raise VerifyException(f"{n}: depth {d_in} gives {d_out} output depths, not the conv's")
        xs, ws, ys = _oshape(self.x), _oshape(self.filter), _oshape(self.y)
        check_rank(n, "x", xs, (4,))
        check_rank(n, "filter", ws, (5,))
        check_rank(n, "y", ys, (4,))
        check_same_element_type(n, self.x.type, self.filter.type, self.y.type)
        if ws[0] != kd or not dims_compatible(xs[3], ws[3]):
            raise VerifyException(f"{n}: the filter {_fmt_shape(ws)} does not fit kd {kd} and x's "
                                  f"{xs[3]} channels")
        if xs[0] % d_in or ys[0] != xs[0] // d_in * d_out:
            raise VerifyException(f"{n}: the batches of x {xs[0]} and y {ys[0]} are not N*{d_in} "
                                  f"and N*{d_out}")
        if self.bias is not None:
            bs = _oshape(self.bias)
            if len(bs) != 1 or not dims_compatible(bs[0], ws[4]):
                raise VerifyException(f"{n}: bias must be 1-D of length {ws[4]}, got {_fmt_shape(bs)}")
        fake = (xs[0] // d_in * d_out, *xs[1:])
        check_conv_result_shape(self, fmt, fake, ws[1:3], ws[4], ys)
