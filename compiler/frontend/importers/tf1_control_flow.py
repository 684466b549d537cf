"""Whether a GraphDef needs `functionalize` (compiler/frontend/importers/functionalize.py): TF1
control flow nodes, or the unread Placeholders `unused_control_flow_input*` that freezing leaves.
A cheap look at the node list, so that a graph without either never loads the functionalizer."""

from __future__ import annotations

from typing import Any

from compiler.frontend.importers.tensor_refs import split_input

CF_OPS = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
          "RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration"}


def has_tf1_control_flow(graph_def: Any) -> bool:
    return any(n.op in CF_OPS for n in graph_def.node)


def unused_control_flow_inputs(graph_def: Any) -> set[str]:
    """The Placeholders `unused_control_flow_input*` that no node reads."""
    unused = {n.name for n in graph_def.node if n.op == "Placeholder"
              and n.name.startswith("unused_control_flow_input")}
    if unused:
        for n in graph_def.node:
            for r in n.input:
                unused.discard(split_input(r)[0])
    return unused


def needs_functionalize(graph_def: Any) -> bool:
    """`functionalize(graph_def)` would return a new GraphDef (else it returns graph_def)."""
    return has_tf1_control_flow(graph_def) or bool(unused_control_flow_inputs(graph_def))
