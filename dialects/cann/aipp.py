"""AIPP (ATC's --insert_op_conf, static): the image preprocessing op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, TensorType, f16, f32, f64
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.typed import elem_of
from dialects.cann.base import (
    CannOp,
    _check_result_shape,
    _fmt_shape,
    _oshape,
)
from dialects.common import I64Array, check_len, enum_prop, string_enum_attr
from dialects.layouts import RunsOn
from dialects.op_kinds import Opaque

F64Array = DenseArrayBase.constr(f64)


class AippInputFormat(StrEnum):
    """The raw image formats static AIPP takes here (ATC's aipp.cfg input_format; ATC also lists
    XRGB8888_U8, YUV422SP_U8, YUYV_U8, ARGB8888_U8, RGB16, RAW..., not implemented)."""

    YUV420SP_U8 = "YUV420SP_U8"
    RGB888_U8 = "RGB888_U8"
    YUV400_U8 = "YUV400_U8"

    @property
    def channels(self) -> int:
        """The channels AIPP reads per pixel."""
        return 1 if self is AippInputFormat.YUV400_U8 else 3


#: `input_format = "RGB888_U8"`
AippInputFormatAttr = string_enum_attr("cann.aipp_input_format", AippInputFormat)


AIPP_FORMATS = tuple(f.value for f in AippInputFormat)




@irdl_op_definition
class AippOp(CannOp):
    """Static AIPP (compiler/frontend/aipp_config.py): the raw uint8 image x (RGB888 [N, H, W, 3],
    YUV400 [N, H, W, 1], YUV420SP/NV12 [N, H*3/2, W, 1]) -> the model input y (NHWC float,
    written NC1HWC0 by its kernel): channel swap, crop [start h, start w, size h, size w], CSC
    (matrix row-major, >> 8, input_bias for YUV inputs, output_bias for RGB), then
    (p - mean - min) * var_reci per channel, then pads [top, bottom, left, right] of
    padding_value."""

    name = "cann.Aipp"
    x = operand_def(TensorType)
    y = result_def(TensorType)
    input_format = enum_prop(AippInputFormatAttr)
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
        fmt = self.input_format.data
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
        c = fmt.channels
        xs = (-1, h * 3 // 2, w, 1) if fmt == AippInputFormat.YUV420SP_U8 else (-1, h, w, c)
        got = _oshape(self.x)
        if len(got) != 4 or tuple(got[1:]) != xs[1:]:
            raise VerifyException(f"{n}: x must be [N, {', '.join(map(str, xs[1:]))}] for "
                                  f"{fmt} of {h}x{w}, got {_fmt_shape(got)}")
        _check_result_shape(n, (got[0], ch_ + pt + pb, cw + pl + pr, c), _oshape(self.y))
        for attr in ("mean", "min_chn", "var_reci"):
            if len(getattr(self, attr).get_values()) != c:
                raise VerifyException(f"{n}: '{attr}' must have {c} values (one per channel)")

