"""align-concat-slabs: channels padded so that every concat over C has its slabs on the C0 grid
(zero-copy in the memory plan); compiler/transforms/concat_alignment.py says when and how.

    cann-opt --align-concat-slabs input.mlir
    cann-opt --align-concat-slabs=report=- input.mlir    # the concats aligned / left, on stderr

cann-compile runs it before assign-layouts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class AlignConcatSlabsPass(ModulePass):
    name = "align-concat-slabs"

    report: str = ""
    """"-": list the concats aligned and those left (with the reason) on stderr."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.ir.rewriting import erase_dead
        from compiler.transforms.concat_alignment import align_concat_slabs

        rep = align_concat_slabs(op)
        if rep.concats:
            erase_dead(op)  # the constants the padded ones replace
        if self.report == "-":
            for name in rep.concats:
                sys.stderr.write(f"align-concat-slabs: aligned {name}\n")
            for name, why in rep.skipped:
                sys.stderr.write(f"align-concat-slabs: left {name}: {why}\n")
