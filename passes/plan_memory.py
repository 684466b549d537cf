"""plan-memory: offsets of every intermediate tensor and workspace in one device arena.

    cann-opt --plan-memory k.mlir
    cann-opt --plan-memory='alignment=1024 inplace=false' k.mlir

Runs on kernel-level IR (after cann-to-kernel), every function, callees of kernel.if / case /
while before their callers.  The algorithm, and what the attributes it writes mean, are in
`compiler/backend/memory_plan.py`.  With `verify=true` (the default) the plan is
re-checked by the independent overlap checker before it is written; `report=true` prints one
line per function to stderr: arena bytes, the live-set lower bound and the naive sum.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.backend.memory_plan import ALIGNMENT, PlanError, plan_function, planned_functions
from compiler.ir.diagnostics import CompileError


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    name = "plan-memory"

    alignment: int = ALIGNMENT
    """Byte alignment of every buffer (ATB and the runtime use 512)."""

    inplace: bool = True
    """Let elementwise kernels write their result over an input that dies with them."""

    concat: bool = True
    """Let producers write concat inputs directly into the concat's output."""

    verify: bool = True
    """Re-check the plan with the overlap checker before recording it."""

    report: bool = False
    """Print arena / live-set bound / naive sum per function to stderr."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:  # callees first: a control op's workspace holds its functions' arenas
            fns = planned_functions(op)
        except PlanError as e:
            raise CompileError(f"plan-memory: error: {e}") from None
        for fn in fns:
            try:
                plan = plan_function(fn, self.alignment, self.inplace, self.concat, self.verify)
            except PlanError as e:
                raise CompileError(f"plan-memory: error: @{fn.sym_name.data}: {e}") from None
            if self.report:
                print(f"plan-memory: @{fn.sym_name.data}: {plan.summary()}", file=sys.stderr)
