"""ATC's AIPP configuration file (`--insert_op_conf=aipp.cfg`): parsed and checked.

The file is protobuf text format (ATC: "its content must be in .prototxt format"), one
`aipp_op { field: value ... }` block per model input; `#` starts a comment.  Only static AIPP
is implemented here.  What each field means and the ranges checked come from Huawei's ATC
documentation (docs/atc-options.md cites the pages):

- order of the steps (atlasatc_16_0025, "Configuration File Template"): channel swap
  (rbuv_swap_switch) -> crop -> colour-space conversion (CSC) -> mean / min / var_reci
  normalization -> padding; the output is stored NC1HWC0;
- CSC (atlasatc_16_0021): YUV -> RGB/BGR: out = M . ([Y, U, V] - input_bias) >> 8;
  RGB -> YUV: out = (M . [R, G, B]) >> 8 + output_bias;
- normalization (atlasatc_16_0022): out = (pixel - mean_chn_i - min_chn_i) * var_reci_chn_i;
- crop / padding (atlasatc_16_0023): crop first, then pad; the final H, W must be the model
  input's; YUV420SP_U8 crop starts are even (and, huaweicloud atlasmcg_05_c30_0010, sizes too);
- ranges (aclAippInfo, aclpythondevg_01_0925; aclmdlSetAIPP* API pages): src_image_size
  [1, 4096] (0: the model input's size), load_start_pos [0, 4095], crop_size [1, 4096]
  (0: the model input's size less the padding), CSC matrix int16, biases uint8 [0, 255],
  mean_chn / min_chn [0, 255], var_reci_chn [-65504, 65504];
- input buffer size (huaweicloud atlasmcg_05_c30_0012): YUV400_U8 N*W*H, YUV420SP_U8
  N*W*H*1.5, RGB888_U8 N*W*H*3 bytes.

Not found in the documentation searched, so chosen here and said so: the padding sizes' range
(accepted in [0, 4096]: the padded image must be the model input's size anyway) and the
padding_value range (accepted in fp16's [-65504, 65504], the normalized output's type on the
device).  Defaults of the CSC matrix and biases when csc_switch is on but they are not given:
TBE's AIPP kernel defaults (ascend-opp `impl/aipp_comm.py` DEFAULT_MATRIX_*_YUV2RGB,
DEFAULT_INPUT_BIAS_*, DEFAULT_OUTPUT_BIAS_*).

Every error is one CompileError line `FILE:LINE: error: --insert_op_conf: ...` naming the field
and the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compiler.ir.diagnostics import CompileError, read_option_file
from dialects.cann.aipp import AippInputFormat

#: The input formats implemented here are cann.Aipp's (AippInputFormat, with the channels AIPP
#: reads per pixel); the others ATC lists are rejected by name.

#: TBE's AIPP defaults (ascend-opp op_impl/built-in/ai_core/tbe/impl/aipp_comm.py).
DEFAULT_MATRIX = (298, 516, 0, 298, -100, -208, 298, 0, 409)
DEFAULT_INPUT_BIAS = (16, 128, 128)
DEFAULT_OUTPUT_BIAS = (16, 128, 128)

INT16 = (-32768, 32767)
FP16_MAX = 65504.0

_BOOL, _INT, _FLOAT, _ENUM = "bool", "int", "float", "enum"

#: field -> (kind, range or allowed values)
FIELDS: dict[str, tuple[str, Any]] = {
    "aipp_mode": (_ENUM, ("static", "dynamic")),
    "related_input_rank": (_INT, (0, 1 << 16)),
    "input_format": (_ENUM, None),
    "src_image_size_w": (_INT, (0, 4096)),
    "src_image_size_h": (_INT, (0, 4096)),
    "crop": (_BOOL, None),
    "load_start_pos_w": (_INT, (0, 4095)),
    "load_start_pos_h": (_INT, (0, 4095)),
    "crop_size_w": (_INT, (0, 4096)),
    "crop_size_h": (_INT, (0, 4096)),
    "padding": (_BOOL, None),
    "left_padding_size": (_INT, (0, 4096)),
    "right_padding_size": (_INT, (0, 4096)),
    "top_padding_size": (_INT, (0, 4096)),
    "bottom_padding_size": (_INT, (0, 4096)),
    "padding_value": (_FLOAT, (-FP16_MAX, FP16_MAX)),
    "csc_switch": (_BOOL, None),
    "rbuv_swap_switch": (_BOOL, None),
    "ax_swap_switch": (_BOOL, None),
    "single_line_mode": (_BOOL, None),
    **{f"matrix_r{r}c{c}": (_INT, INT16) for r in range(3) for c in range(3)},
    **{f"input_bias_{i}": (_INT, (0, 255)) for i in range(3)},
    **{f"output_bias_{i}": (_INT, (0, 255)) for i in range(3)},
    **{f"mean_chn_{i}": (_INT, (0, 255)) for i in range(4)},
    **{f"min_chn_{i}": (_FLOAT, (0.0, 255.0)) for i in range(4)},
    **{f"var_reci_chn_{i}": (_FLOAT, (-FP16_MAX, FP16_MAX)) for i in range(4)},
}


@dataclass
class AippConfig:
    """One static `aipp_op` block, checked on its own (the model's input is checked by
    `resolve`).  `lines` maps each given field to its line (for later errors)."""

    path: str
    line: int
    values: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def get(self, name: str, default=None):
        return self.values.get(name, default)

    def where(self, name: str | None = None) -> str:
        return f"{self.path}:{self.lines.get(name, self.line) if name else self.line}: error: " \
               "--insert_op_conf"

    def error(self, name: str | None, msg: str) -> CompileError:
        return CompileError(f"{self.where(name)}: {msg}")

    @property
    def rank(self) -> int:
        return int(self.get("related_input_rank", 0))

    @property
    def input_format(self) -> AippInputFormat:
        return AippInputFormat(self.values["input_format"])


_TOKEN = re.compile(r"[{}:]|[^\s{}:]+")


def _tokens(text: str) -> list[tuple[int, str]]:
    """(line, token) pairs; `#` comments dropped, quotes around a value removed."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for tok in _TOKEN.findall(line.split("#", 1)[0]):
            if len(tok) >= 2 and tok[0] == tok[-1] and tok[0] in "'\"":
                tok = tok[1:-1]
            out.append((n, tok))
    return out


def _value(cfg: AippConfig, name: str, raw: str, line: int):
    kind, rng = FIELDS[name]
    bad = f"{cfg.path}:{line}: error: --insert_op_conf: {name}: "
    if kind == _BOOL:
        if raw in ("true", "1"):
            return True
        if raw in ("false", "0"):
            return False
        raise CompileError(f"{bad}'{raw}' is not true or false")
    if kind == _ENUM:
        if name == "input_format":
            if raw not in AippInputFormat._value2member_map_:
                raise CompileError(f"{bad}'{raw}' is not supported by this compiler (supported: "
                                   f"{', '.join(f.value for f in AippInputFormat)})")
            return AippInputFormat(raw)
        if raw not in rng:
            raise CompileError(f"{bad}'{raw}' is not one of {', '.join(rng)}")
        return raw
    try:
        v = int(raw) if kind == _INT else float(raw)
    except ValueError:
        what = "an integer" if kind == _INT else "a number"
        raise CompileError(f"{bad}'{raw}' is not {what}") from None
    if kind == _FLOAT and v != v:
        raise CompileError(f"{bad}'{raw}' is not a number")
    lo, hi = rng
    if not lo <= v <= hi:
        raise CompileError(f"{bad}{raw} is out of range [{lo:g}, {hi:g}]")
    return v


def parse_aipp_config(path: str) -> list[AippConfig]:
    """The static aipp_op blocks of `path`, each checked on its own (fields, ranges, the
    rules between fields)."""
    toks = _tokens(read_option_file(path, "insert_op_conf"))
    out: list[AippConfig] = []
    i = 0

    def expect(want: str, what: str):
        nonlocal i
        if i >= len(toks):
            last = toks[-1][0] if toks else 1
            raise CompileError(f"{path}:{last}: error: --insert_op_conf: expected {what} at the "
                               "end of the file")
        ln, tok = toks[i]
        if want and tok != want:
            raise CompileError(f"{path}:{ln}: error: --insert_op_conf: expected {what}, got "
                               f"'{tok}'")
        i += 1
        return ln, tok

    while i < len(toks):
        ln, tok = expect("", "aipp_op")
        if tok != "aipp_op":
            raise CompileError(f"{path}:{ln}: error: --insert_op_conf: expected 'aipp_op {{', "
                               f"got '{tok}'")
        expect("{", "'{' after aipp_op")
        cfg = AippConfig(path, ln)
        while True:
            ln, name = expect("", "a field or '}'")
            if name == "}":
                break
            if name in ("{", ":"):
                raise CompileError(f"{path}:{ln}: error: --insert_op_conf: expected a field "
                                   f"name, got '{name}'")
            if name not in FIELDS:
                raise CompileError(f"{path}:{ln}: error: --insert_op_conf: unknown field "
                                   f"'{name}' in aipp_op")
            expect(":", f"':' after {name}")
            vln, raw = expect("", f"a value of {name}")
            if raw in ("{", "}", ":"):
                raise CompileError(f"{path}:{vln}: error: --insert_op_conf: {name}: expected a "
                                   f"value, got '{raw}'")
            if name in cfg.values:
                raise CompileError(f"{path}:{ln}: error: --insert_op_conf: {name} is given twice "
                                   f"(first on line {cfg.lines[name]})")
            cfg.values[name] = _value(cfg, name, raw, vln)
            cfg.lines[name] = ln
        _check(cfg)
        if any(c.rank == cfg.rank for c in out):
            raise cfg.error("related_input_rank", f"related_input_rank {cfg.rank} has two "
                            "aipp_op blocks")
        out.append(cfg)
    if not out:
        raise CompileError(f"{path}:1: error: --insert_op_conf: no aipp_op block")
    return out


def _check(c: AippConfig) -> None:
    """The rules between the fields of one block."""
    mode = c.get("aipp_mode")
    if mode is None:
        raise c.error(None, "aipp_op needs aipp_mode (static)")
    if mode == "dynamic":
        raise c.error("aipp_mode", "aipp_mode: dynamic AIPP is not supported by this compiler "
                      "(static only)")
    if "input_format" not in c.values:
        raise c.error(None, "static aipp_op needs input_format")
    fmt = c.input_format
    for name in ("single_line_mode", "ax_swap_switch"):
        if c.get(name):
            raise c.error(name, f"{name}: true is not supported by this compiler")
    if c.get("csc_switch") and fmt == AippInputFormat.YUV400_U8:
        raise c.error("csc_switch", "csc_switch: true needs a colour input (YUV400_U8 has one "
                      "channel)")
    if fmt == AippInputFormat.YUV420SP_U8:
        for name in ("src_image_size_w", "src_image_size_h", "load_start_pos_w",
                     "load_start_pos_h", "crop_size_w", "crop_size_h"):
            v = c.get(name)
            if v is not None and v % 2:
                raise c.error(name, f"{name}: {v} must be even for YUV420SP_U8")
    if not c.get("crop"):
        for name in ("load_start_pos_w", "load_start_pos_h"):
            if c.get(name):
                raise c.error(name, f"{name}: {c.get(name)} needs crop: true")
    if not c.get("padding"):
        for name in ("left_padding_size", "right_padding_size", "top_padding_size",
                     "bottom_padding_size"):
            if c.get(name):
                raise c.error(name, f"{name}: {c.get(name)} needs padding: true")


@dataclass(frozen=True)
class AippParams:
    """A block resolved against its model input (N, H, W, C): every size explicit."""

    input_format: AippInputFormat
    batch: int
    src_hw: tuple[int, int]
    crop: tuple[int, int, int, int]  # start h, start w, size h, size w
    pads: tuple[int, int, int, int]  # top, bottom, left, right
    rbuv_swap: bool
    csc: bool
    matrix: tuple[int, ...]
    input_bias: tuple[int, ...]  # 3 values
    output_bias: tuple[int, ...]  # 3 values
    mean: tuple[int, ...]
    min: tuple[float, ...]
    var_reci: tuple[float, ...]
    padding_value: float

    @property
    def channels(self) -> int:
        return self.input_format.channels

    def input_shape(self) -> tuple[int, ...]:
        """The raw image AIPP reads (uint8): RGB888 [N, H, W, 3], YUV400 [N, H, W, 1],
        YUV420SP (NV12: the H x W luma plane, then H/2 rows of interleaved U, V) [N, H*3/2, W, 1]:
        ATC's N*W*H*{3, 1, 1.5} bytes."""
        h, w = self.src_hw
        if self.input_format == AippInputFormat.YUV420SP_U8:
            return (self.batch, h * 3 // 2, w, 1)
        return (self.batch, h, w, self.channels)


def resolve(c: AippConfig, model_shape: tuple[int, ...], input_name: str) -> AippParams:
    """The block's parameters for a model input of NHWC shape `model_shape`; sizes that do not
    fit it are errors naming the field."""
    if len(model_shape) != 4 or any(d < 0 for d in model_shape):
        raise c.error("related_input_rank", f"related_input_rank {c.rank}: input "
                      f"'{input_name}' of shape {list(model_shape)} is not a static 4-D NHWC "
                      "image")
    n, h, w, ch = model_shape
    fmt = c.input_format
    if ch != fmt.channels:
        raise c.error("input_format", f"input_format {fmt} gives {fmt.channels} "
                      f"channel(s), but input '{input_name}' has {ch}")
    g = c.get
    pads = (g("top_padding_size", 0), g("bottom_padding_size", 0), g("left_padding_size", 0),
            g("right_padding_size", 0)) if g("padding") else (0, 0, 0, 0)
    src_h = g("src_image_size_h") or h - (0 if g("crop") else pads[0] + pads[1])
    src_w = g("src_image_size_w") or w - (0 if g("crop") else pads[2] + pads[3])
    if src_h <= 0 or src_w <= 0:
        raise c.error("src_image_size_h" if src_h <= 0 else "src_image_size_w",
                      f"the padding leaves no source image for input '{input_name}' "
                      f"({h}x{w})")
    if g("crop"):
        crop = (g("load_start_pos_h", 0), g("load_start_pos_w", 0),
                g("crop_size_h") or h - pads[0] - pads[1], g("crop_size_w") or w - pads[2] - pads[3])
    else:
        crop = (0, 0, src_h, src_w)
    for (start, size, src), axis in (((crop[0], crop[2], src_h), "h"),
                                     ((crop[1], crop[3], src_w), "w")):
        if size <= 0 or start + size > src:
            name = f"crop_size_{axis}" if f"crop_size_{axis}" in c.values else f"load_start_pos_{axis}"
            raise c.error(name, f"load_start_pos_{axis} {start} + crop_size_{axis} {size} "
                          f"exceeds src_image_size_{axis} {src}")
    out_h, out_w = crop[2] + pads[0] + pads[1], crop[3] + pads[2] + pads[3]
    if (out_h, out_w) != (h, w):
        name = "crop_size_h" if "crop_size_h" in c.values else "src_image_size_h"
        raise c.error(name, f"the image after crop and padding is {out_h}x{out_w}, but input "
                      f"'{input_name}' is {h}x{w} (ATC: it must be the model input's size)")
    if fmt == AippInputFormat.YUV420SP_U8 and (src_h % 2 or src_w % 2):
        raise c.error("src_image_size_w", f"YUV420SP_U8 needs an even source size, got "
                      f"{src_h}x{src_w}")
    rgb_in = fmt == AippInputFormat.RGB888_U8
    matrix = tuple(int(g(f"matrix_r{r}c{k}", DEFAULT_MATRIX[3 * r + k]))
                   for r in range(3) for k in range(3))
    return AippParams(
        input_format=fmt, batch=n, src_hw=(src_h, src_w), crop=crop, pads=pads,
        rbuv_swap=bool(g("rbuv_swap_switch")), csc=bool(g("csc_switch")), matrix=matrix,
        input_bias=tuple(int(g(f"input_bias_{i}", DEFAULT_INPUT_BIAS[i])) for i in range(3)),
        output_bias=tuple(int(g(f"output_bias_{i}", DEFAULT_OUTPUT_BIAS[i])) if rgb_in else 0
                          for i in range(3)),
        mean=tuple(int(g(f"mean_chn_{i}", 0)) for i in range(ch)),
        min=tuple(float(g(f"min_chn_{i}", 0.0)) for i in range(ch)),
        var_reci=tuple(float(g(f"var_reci_chn_{i}", 1.0)) for i in range(ch)),
        padding_value=float(g("padding_value", 0.0)))


def check_image_size_gears(configs: list[AippConfig]) -> None:
    """Static AIPP with --dynamic_image_size: the image is each gear's H x W, so ATC forbids
    crop and padding and needs src_image_size_w / _h 0 (aclcppdevg_000041, "Both static AIPP
    and dynamic image size enabled")."""
    for c in configs:
        for name in ("crop", "padding"):
            if c.get(name):
                raise c.error(name, f"{name}: true cannot be used with --dynamic_image_size (ATC: "
                              "the image is each gear's H x W)")
        for name in ("src_image_size_w", "src_image_size_h"):
            if c.get(name):
                raise c.error(name, f"{name}: {c.get(name)} must be 0 with --dynamic_image_size "
                              "(ATC: the image is each gear's H x W)")

