"""insert-aipp: static AIPP (ATC's --insert_op_conf) as the first op on the model inputs.

    cann-opt -p 'tf-to-cann,insert-aipp{config="aipp.cfg"}' model.tf.mlir

For each `aipp_op` block of the file (compiler/frontend/aipp_config.py), the @main input that
`related_input_rank` names becomes the raw uint8 image (RGB888 [N, H, W, 3], YUV400 [N, H, W, 1],
YUV420SP [N, H*3/2, W, 1], H x W the source image size), and a `cann.Aipp` computing the model's
NHWC float input from it feeds what the input fed.  assign-layouts then gives its result
NC1HWC0 (the op's only device format), so the conv after it reads the AIPP kernel's output
directly.  A block that does not fit its input (rank, shape, channels, dtype, layout) is one
line naming --insert_op_conf, the file, the line and the field.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    Signedness,
    StringAttr,
    TensorType,
    f16,
    f32,
    f64,
    i64,
)
from xdsl.passes import ModulePass

from compiler.interpreters.aipp_impl import RECORD
from compiler.ir.diagnostics import CompileError
from compiler.ir.typed import block_of
from dialects.cann import DataFormat
from dialects.common import string_value


def _reads_nchw(arg) -> bool:
    """Whether some op reading the input directly takes it as NCHW."""
    for use in arg.uses:
        op = use.operation
        df = op.properties.get("data_format") or op.attributes.get("data_format")
        if string_value(df) == DataFormat.NCHW:
            return True
    return False


def insert_aipp(module: ModuleOp, path: str) -> None:
    from compiler.frontend.aipp_config import parse_aipp_config, resolve
    from compiler.ir.entry import io_names, main_func
    from dialects import cann
    from dialects.common import int_array

    configs = parse_aipp_config(path)
    fn = main_func(module)
    names = io_names(fn)[0]
    block = block_of(fn.body)
    records: dict[str, DictionaryAttr] = {}
    for cfg in configs:
        if cfg.rank >= len(block.args):
            listed = ", ".join(names) or "none"
            raise cfg.error("related_input_rank", f"related_input_rank {cfg.rank} names no input "
                            f"(the model has {len(block.args)}: {listed})")
        arg, name = block.args[cfg.rank], names[cfg.rank]
        t = arg.type
        if not isinstance(t, TensorType) or t.element_type not in (f16, f32) \
                or cann.format_of(t) is not None:
            raise cfg.error("related_input_rank", f"related_input_rank {cfg.rank}: input "
                            f"'{name}' is {t}, not a float16/float32 image")
        if _reads_nchw(arg):
            raise cfg.error("related_input_rank", f"related_input_rank {cfg.rank}: input "
                            f"'{name}' is read as NCHW; AIPP is implemented for NHWC inputs")
        p = resolve(cfg, tuple(t.get_shape()), name)
        raw = TensorType(IntegerType(8, Signedness.UNSIGNED), list(p.input_shape()))
        new_arg = block.insert_arg(raw, cfg.rank)
        op = cann.AippOp(
            operands=[new_arg], result_types=[t],
            properties={
                "input_format": cann.AippInputFormatAttr.of(p.input_format), "src_hw": int_array(p.src_hw),
                "crop": int_array(p.crop), "pads": int_array(p.pads),
                "rbuv_swap": IntegerAttr(int(p.rbuv_swap), i64),
                "csc": IntegerAttr(int(p.csc), i64), "matrix": int_array(p.matrix),
                "input_bias": int_array(p.input_bias), "output_bias": int_array(p.output_bias),
                "mean": int_array(p.mean), "min_chn": DenseArrayBase.from_list(f64, list(p.min)),
                "var_reci": DenseArrayBase.from_list(f64, list(p.var_reci)),
                "padding_value": FloatAttr(p.padding_value, f64)})
        op.location = NameLoc(StringAttr(f"{name}/aipp"), NoneAttr())
        first = block.first_op
        if first is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, first)
        arg.replace_all_uses_with(op.y)
        block.erase_arg(arg)
        records[name] = DictionaryAttr({**op.properties, "dtype": StringAttr(
            "float16" if t.element_type == f16 else "float32")})
    module.attributes[RECORD] = DictionaryAttr(records)
    fn.function_type = func.FunctionType.from_lists([a.type for a in block.args],
                                                    list(fn.function_type.outputs.data))


@dataclass(frozen=True)
class InsertAippPass(ModulePass):
    name = "insert-aipp"

    config: str = ""
    """ATC's AIPP configuration file (--insert_op_conf)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.config:
            raise CompileError("insert-aipp: error: needs config=<the aipp.cfg file>")
        insert_aipp(op, self.config)
