"""recompose-rnn: the While loops Keras emits for LSTM and GRU layers become CANN's fused
recurrent operators cann.DynamicRNN / cann.DynamicGRUV2 (compiler/transforms/recurrent.py).
Runs on the cann level after cann-cleanup, before fuse.  Option `report=-` prints one line per
recomposed layer."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class RecomposeRnnPass(ModulePass):
    name = "recompose-rnn"
    report: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.ir.diagnostics import node_name
        from compiler.ir.typed import str_of
        from dialects import cann

        new: list = []
        if any(isinstance(o, cann.WhileOp) for o in op.walk()):  # else no need to load the recognizer
            from compiler.transforms.recurrent import recompose

            new = recompose(op)
        if self.report:
            lines = [f"{o.name.removeprefix('cann.')} ({str_of(o.properties['gate_order'])}): "
                     f"{node_name(o) or '?'}" for o in new]
            text = "\n".join(lines or ["no recurrent layer recomposed"]) + "\n"
            if self.report == "-":
                sys.stdout.write(text)
            else:
                with open(self.report, "w") as f:
                    f.write(text)
