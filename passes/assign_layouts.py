"""assign-layouts: choose storage formats (cann-facts.md sections 1-3) and insert TransData.

Patterns, applied to a fixed point:
  LayoutConv              conv x -> NC1HWC0, filter -> FRACTAL_Z, y -> NC1HWC0, each via a
                          TransData, with a TransData back to the origin format after y
  LayoutElementwise       a format-agnostic op (Relu, BiasAdd) on a value just converted back
                          from NC1HWC0 runs on the NC1HWC0 data instead (TransData sinks past it)
  FoldConstTransData      TransData of a constant = the constant converted at compile time
  TransdataTransdataFold  TransData(A->B) of TransData(B->A) = the original value (the CANN pass
                          of that name)
  EraseDead               unused TransData and constants left behind
What remains is a TransData at the function's inputs and outputs only.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from compiler.formats import Format, to_storage
from compiler.rewriting import rewrite, with_loc
from dialects import cann
from dialects.common import dense_from_numpy, numpy_from_dense


def trans_data(value: SSAValue, src: Format, dst: Format, result_type: TensorType) -> cann.TransDataOp:
    return cann.TransDataOp(
        operands=[value], result_types=[result_type],
        properties={"src_format": StringAttr(src.value), "dst_format": StringAttr(dst.value),
                    "groups": IntegerAttr(1, i64)})


def to_format(value: SSAValue, fmt: Format, origin: Format) -> cann.TransDataOp:
    return trans_data(value, origin, fmt, cann.storage_type(value.type, fmt, origin))


class LayoutConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.ConvLike, rewriter: PatternRewriter):
        if cann.format_of(op.y.type) is not None:
            return
        fmt = Format(op.data_format.data)
        x5 = to_format(op.x, Format.NC1HWC0, fmt)
        wfz = to_format(op.filter, Format.FRACTAL_Z, Format.HWCN)
        conv = type(op)(
            operands=[x5.dst, wfz.dst, [op.bias] if op.bias is not None else []],
            result_types=[cann.storage_type(op.y.type, Format.NC1HWC0, fmt)],
            properties=dict(op.properties))
        back = trans_data(conv.y, Format.NC1HWC0, fmt, op.y.type)
        for new in (x5, wfz, conv, back):
            with_loc(new, op)
        rewriter.replace(op, [x5, wfz, conv, back])


class LayoutElementwise(RewritePattern):
    """Relu and BiasAdd compute per element (BiasAdd per channel): any format serves."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if not isinstance(op, (cann.ReluOp, cann.BiasAddOp)):
            return
        producer = op.x.owner
        if not isinstance(producer, cann.TransDataOp) or cann.format_of(op.y.type) is not None:
            return
        stored = producer.src.type
        src = cann.format_of(stored)
        if src is None or src.fmt != Format.NC1HWC0:
            return
        operands = [producer.src, *op.operands[1:]]
        new = type(op)(operands=operands, result_types=[stored], properties=dict(op.properties))
        back = trans_data(new.y, Format.NC1HWC0, Format(producer.dst_format.data), op.y.type)
        rewriter.replace(op, [with_loc(new, op), with_loc(back, op)])


class FoldConstTransData(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        const = op.src.owner
        if not isinstance(const, cann.ConstOp) or cann.format_of(const.output.type) is not None:
            return
        value = to_storage(numpy_from_dense(const.value), Format(op.dst_format.data),
                           Format(op.src_format.data))
        rewriter.replace(op, with_loc(cann.ConstOp(dense_from_numpy(value), op.dst.type), const))


class TransdataTransdataFold(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cann.TransDataOp, rewriter: PatternRewriter):
        inner = op.src.owner
        if not isinstance(inner, cann.TransDataOp):
            return
        if inner.src.type == op.dst.type and inner.src_format == op.dst_format:
            rewriter.replace(op, [], [inner.src])


class EraseDead(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        if isinstance(op, (cann.TransDataOp, cann.ConstOp)) and not op.results[0].uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class AssignLayoutsPass(ModulePass):
    name = "assign-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite(op, [LayoutConv(), LayoutElementwise(), FoldConstTransData(),
                     TransdataTransdataFold(), EraseDead()])
