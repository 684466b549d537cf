"""resolve-shapes: the shape computations of a range-compiled model made static at the shapes of
a dispatch: cann.Shape of a static tensor -> cann.Const, constants folded, cann.Slice /
cann.BroadcastTo with constant sizes -> StridedSliceD / BroadcastToD
(compiler/transforms/resolve_shapes.py).  The first pass of the tiling function a ranged
compile records (tools/driver/shape_ranges.py); on a module without them, nothing."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class ResolveShapesPass(ModulePass):
    name = "resolve-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.transforms.resolve_shapes import resolve_module

        resolve_module(op)
