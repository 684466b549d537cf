"""tf-to-cann: legalize the tf dialect into the CANN operator library, driven by the mapping
table of compiler/conversions/tf_to_cann/legalization.py (one generated pattern per table row).

For every tf op: find its row (by TF op type), check the CANN op's dtype rule, build the CANN
op(s) and replace the tf op.  Every node that cannot be legalized is collected and reported in
one error (node name, TF op, why).  Options:

* `allow-host-fallback` (`cann-opt --allow-host-fallback`): a tf op without a row, or whose row
  rejects it, becomes `cann.HostCall` (TF op type + TF attributes), executed by TensorFlow on
  the host; the count and list are printed to stderr.
* `report` (`cann-opt --legalization-report`): print, per TF op type, the count, the CANN op
  and how many went to the host.  Without tf-to-cann in the pipeline the flag runs the
  `legalization-report` pass instead: the same analysis on a copy, IR unchanged.

Every func.func of the module is legalized (If/While/Case bodies are functions referenced by
symbol).  tf.PartitionedCall / StatefulPartitionedCall are inlined first (`inline_calls`).
The engine (the generated patterns, inlining, host fallback, the report) is
compiler/conversions/tf_to_cann/patterns.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.conversions.tf_to_cann.patterns import analyze_legalization, legalize, print_report


@dataclass(frozen=True)
class TfToCannPass(ModulePass):
    name = "tf-to-cann"

    allow_host_fallback: bool = False
    report: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        legalize(op, self.allow_host_fallback, self.report)


@dataclass(frozen=True)
class LegalizationReportPass(ModulePass):
    """`cann-opt --legalization-report` without tf-to-cann in the pipeline: legalize a copy of
    the module (with or without host fallback, as asked), print the report, leave the IR as it
    is.  Legalization failures are counted in the report, not raised."""

    name = "legalization-report"

    allow_host_fallback: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        print_report(*analyze_legalization(op, self.allow_host_fallback))
