"""perf-report: print the performance estimate of a kernel-level module (does not change it).

    cann-opt --perf-report k.mlir -o /dev/null            # the report on stderr
    cann-opt --perf-report='output=report.txt format=json' k.mlir

The model and its assumptions (launch overhead, HBM bandwidth) are in `compiler/backend/perf_report.py`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.ir.diagnostics import CompileError
from compiler.target.chips import UnknownChipError


@dataclass(frozen=True)
class PerfReportPass(ModulePass):
    name = "perf-report"

    output: str = ""
    """File to write the report to (default: stderr, so the IR on stdout stays clean)."""

    format: str = "text"
    """text or json."""

    soc_version: str = ""
    """Chip to estimate for (default: the module's cann.soc_version)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.backend.perf_report import perf_report

        if self.format not in ("text", "json"):
            raise CompileError(f"perf-report: error: format must be text or json, got '{self.format}'")
        try:
            rep = perf_report(op, self.soc_version or None)
        except UnknownChipError as e:
            raise CompileError(f"perf-report: error: {e}") from None
        text = rep.to_text() if self.format == "text" else rep.to_json() + "\n"
        if not self.output:
            sys.stderr.write(text)
            return
        try:
            with open(self.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise CompileError(f"{self.output}: error: cannot write: {e.strerror}") from None
