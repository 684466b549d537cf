"""Semantics of static AIPP (cann.Aipp, dialects/cann/) at the cann level, and the two load
views its kernel reads the raw image with (compiler/conversions/cann_to_kernel/aipp.py).

Steps, in ATC's documented order (compiler/frontend/aipp_config.py cites the pages): channel swap
-> crop -> CSC -> (p - mean - min) * var_reci -> padding.  Everything is computed in float32
(every CSC intermediate is an integer below 2**24, so exact).  Two hardware details are not in
the documentation found, and are assumptions here:
- YUV420SP chroma is upsampled by replication (the U, V pair of a 2x2 luma block serves all
  four pixels);
- the CSC result is clipped to [0, 255] after the >> 8 (an arithmetic shift: floor), since the
  normalization step is documented as taking a uint8 pixel (atlasatc_16_0022: "uint8 data to
  fp16 conversion").
"""

from __future__ import annotations

import numpy as np

from compiler.ir.typed import dict_of, str_of
from dialects.cann.aipp import AippInputFormat

#: input_format -> the code the kernel's load views take
FORMAT_CODES = {AippInputFormat.YUV420SP_U8: 0, AippInputFormat.RGB888_U8: 1, AippInputFormat.YUV400_U8: 2}


def source_channels(code: int, img: np.ndarray, src_h: int, swap: bool,
                    n: np.ndarray, sy: np.ndarray, sx: np.ndarray) -> np.ndarray:
    """The input channels (Y, U, V / R, G, B / Y) of source pixels (n, sy, sx), [..., C]
    float32, after the rbuv swap (R <-> B, U <-> V)."""
    if code == 1:
        px = img[n, sy, sx, :3].astype(np.float32)
    elif code == 2:
        return img[n, sy, sx, :1].astype(np.float32)
    else:  # NV12: rows [0, H) luma, rows [H, 3H/2) interleaved U, V at half resolution
        y = img[n, sy, sx, 0]
        uv_row, uv_col = src_h + sy // 2, (sx // 2) * 2
        px = np.stack([y, img[n, uv_row, uv_col, 0], img[n, uv_row, uv_col + 1, 0]],
                      axis=-1).astype(np.float32)
    return px[..., ::-1] if swap and code == 1 else px[..., [0, 2, 1]] if swap else px


def csc(px: np.ndarray, matrix, input_bias, output_bias, yuv_in: bool) -> np.ndarray:
    """[..., 3] pixels -> [..., 3]: YUV in: M . (p - input_bias) >> 8; RGB in:
    (M . p) >> 8 + output_bias; clipped to [0, 255]."""
    m = np.asarray(matrix, np.float32).reshape(3, 3)
    if yuv_in:
        px = px - np.asarray(input_bias, np.float32)
    v = px @ m.T * np.float32(1 / 256)
    if not yuv_in:
        v = v + np.asarray(output_bias, np.float32)
    return np.floor(np.clip(v, 0, 255)).astype(np.float32)


def params(op) -> dict:
    return params_of(op.properties)


def params_of(props) -> dict:
    """The parameters of a cann.Aipp's properties (name -> attribute)."""
    from dialects.common import ints

    return {"code": FORMAT_CODES[props["input_format"].data], "src_hw": ints(props["src_hw"]),
            "crop": ints(props["crop"]), "pads": ints(props["pads"]),
            "swap": bool(props["rbuv_swap"].value.data), "csc": bool(props["csc"].value.data),
            "matrix": ints(props["matrix"]), "input_bias": ints(props["input_bias"]),
            "output_bias": ints(props["output_bias"]),
            "mean": np.asarray(ints(props["mean"]), np.float32),
            "min": np.asarray(props["min_chn"].get_values(), np.float32),
            "var_reci": np.asarray(props["var_reci"].get_values(), np.float32),
            "padding_value": float(props["padding_value"].value.data)}


def _pixel_grid(crop, pads, n: np.ndarray, oh: np.ndarray, ow: np.ndarray):
    """Source coordinates (sy, sx) of output pixels and whether each is inside the crop (not
    padding)."""
    sh, sw, ch, cw = crop
    pt, _, pl, _ = pads
    ih, iw = oh - pt, ow - pl
    inside = (ih >= 0) & (ih < ch) & (iw >= 0) & (iw < cw)
    return sh + np.clip(ih, 0, ch - 1), sw + np.clip(iw, 0, cw - 1), inside


def aipp(op, x: np.ndarray) -> np.ndarray:
    """cann.Aipp on the raw image x: the NHWC result (origin layout), in y's dtype."""
    from dialects.common import numpy_dtype

    return preprocess(params(op), x, numpy_dtype(op.y.type.element_type))


#: Module attribute insert-aipp records each AIPP'd input in: input name -> the cann.Aipp's
#: properties and `dtype`, the model input's element type (so that cann-run --compare-with can
#: give TensorFlow the preprocessed image after the kernels are lowered).
RECORD = "cann.aipp_inputs"


def framework_inputs(module, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The inputs the original framework model takes: each raw image AIPP reads (RECORD)
    preprocessed as the cann.Aipp does, the other inputs as they are."""
    from xdsl.dialects.builtin import DictionaryAttr

    rec = module.attributes.get(RECORD)
    if not isinstance(rec, DictionaryAttr):
        return inputs
    out = dict(inputs)
    for name, props in rec.data.items():
        if name in out:
            p = dict_of(props)
            out[name] = preprocess(params_of(p), np.asarray(out[name]), np.dtype(str_of(p["dtype"])))
    return out


def preprocess(p: dict, x: np.ndarray, dtype) -> np.ndarray:
    """Static AIPP of the raw image x with parameters p (`params_of`): NHWC, in dtype."""
    _, _, ch, cw = p["crop"]
    pt, pb, pl, pr = p["pads"]
    oh_, ow_ = ch + pt + pb, cw + pl + pr
    n, oh, ow = np.meshgrid(np.arange(x.shape[0]), np.arange(oh_), np.arange(ow_), indexing="ij")
    sy, sx, inside = _pixel_grid(p["crop"], p["pads"], n, oh, ow)
    px = source_channels(p["code"], x, p["src_hw"][0], p["swap"], n, sy, sx)
    if p["csc"]:
        px = csc(px, p["matrix"], p["input_bias"], p["output_bias"], p["code"] != 1)
    y = (px - p["mean"] - p["min"]) * p["var_reci"]
    y = np.where(inside[..., None], y, np.float32(p["padding_value"]))
    return y.astype(dtype)


# --- the kernel's load views (kernel.load view = "aipp_pixels" / "aipp_valid") ---------------

def _tile_pixels(op, t: int, tile: int):
    """Output pixels (n, oh, ow) of rows [t, +tile) of the NC1HWC0 result viewed as rows of C0
    lanes (C1 = 1: AIPP writes at most 3 channels)."""
    oh_, ow_ = op.param("out_hw")
    total = op.param("rows")
    r = np.arange(t, min(t + tile, total))
    n, rem = np.divmod(r, oh_ * ow_)
    oh, ow = np.divmod(rem, ow_)
    return n, oh, ow


def _aipp_pixels(op, src, idx, out):
    """The source pixels of an output tile: channel k >= 0 broadcast over every lane (a CSC
    operand), channel = -1: channel c in lane c (no CSC)."""
    (t,) = idx
    n, oh, ow = _tile_pixels(op, t, out.shape[0])
    sy, sx, _ = _pixel_grid(op.param("crop"), op.param("pads"), n, oh, ow)
    px = source_channels(op.param("format"), src, op.param("src_hw")[0], bool(op.param("swap")),
                         n, sy, sx)
    k = op.param("channel")
    if k < 0:
        out[:n.size, :px.shape[1]] = px
    else:
        out[:n.size, :] = px[:, k:k + 1]
    return out


def _aipp_valid(op, src, idx, out):
    """1 where an output pixel of the tile comes from the cropped image, 0 in the padding."""
    (t,) = idx
    n, oh, ow = _tile_pixels(op, t, out.shape[0])
    _, _, inside = _pixel_grid(op.param("crop"), op.param("pads"), n, oh, ow)
    out[:n.size, 0] = inside
    return out


VIEWS = {"aipp_pixels": _aipp_pixels, "aipp_valid": _aipp_valid}
