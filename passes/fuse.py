"""fuse: the fusion engine on the cann dialect, driven by rules written in the rule language.

The built-in rules live in compiler/transforms/fusion/rules/*.rules (names borrowed from CANN's fusion
passes, cann-facts.md section 5), e.g.
  AABiasaddConvFusion   Conv2D(x, w) -> BiasAdd(b) / Add(const)   => FusedConv2D(x, w, b)
  TbeConv2DReluFusion   Conv2D / FusedConv2D(none) -> Relu          => FusedConv2D(activation = Relu)
A rule fires only when its intermediate values have no other consumer.  Rules apply greedily by
priority (higher first); see compiler/transforms/fusion/language.py for the language.

    cann-opt --fuse input.mlir
    cann-opt --fuse='disable=TbeConv2DReluFusion' input.mlir
    cann-opt --fuse='rules=my.rules switch-file=switch.cfg report=report.json' input.mlir
    cann-opt --fuse --fusion-switch-file=switch.cfg --fusion-report=- input.mlir

cann-opt's --fusion-switch-file / --fusion-report and cann-compile's --fusion_switch_file reach
the pass as its `switch_file` / `report` options (tools/driver/pipelines.py sets them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.ir.diagnostics import CompileError

#: The last run's report (for tests and the benchmark).
LAST_REPORT: dict | None = None


@dataclass(frozen=True)
class FusePass(ModulePass):
    name = "fuse"

    disable: tuple[str, ...] = ()
    """Rule names to switch off (`disable=A,B`)."""

    rules: tuple[str, ...] = ()
    """Extra rule files (`rules=my.rules,other.rules`), added to the built-in ones."""

    switch_file: str = ""
    """An ATC fusion switch file (`Name:off` lines or the JSON form)."""

    report: str = ""
    """Write the fusion report: `x.json` (JSON), `x.txt` (table), `-` (table on stderr)."""

    builtin: bool = True
    """Use the built-in rule library (`builtin=false`: only the `rules=` files)."""

    fold_constants: bool = True
    """Fold elementwise ops on compile-time constants into cann.Const first."""

    auto: bool = True
    """After the rules: group every pointwise (elementwise / broadcast) DAG into one
    cann.FusedKernel (compiler/transforms/fusion/auto.py; `auto=false`, `disable=AutomaticUBFusion` or a
    switch file's UBFusion off keep the ops apart)."""

    soc_version: str = ""
    """The chip whose cost model decides the cost-gated fusions (a depthwise conv as its 1x1
    reader's prologue); "" = the module's cann.soc_version, else Ascend910B3.  cann-compile
    passes its --soc_version."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        global LAST_REPORT
        from compiler.transforms.fusion import builtin_rules, load_rule_file
        from compiler.transforms.fusion.engine import (
            Stats,
            count_kernels,
            dead_code,
            fold_constants,
            forward_see_through,
            run_rules,
        )
        from compiler.transforms.fusion.report import build_report, write_report
        from compiler.transforms.fusion.switch import disabled_by_switch_file

        all_rules = list(builtin_rules()) if self.builtin else []
        see_through: set[str] = set()
        if self.builtin:
            from compiler.transforms.fusion import builtin_rule_files

            for f in builtin_rule_files():
                see_through |= f.see_through
        for path in self.rules:
            rf = load_rule_file(path)
            see_through |= rf.see_through
            names = {r.name for r in all_rules}
            for r in rf.rules:
                if r.name in names:  # a user rule replaces the built-in rule of that name
                    all_rules = [x for x in all_rules if x.name != r.name]
                all_rules.append(r)
        from compiler.transforms.fusion.auto import PROLOGUE_SWITCH, SWITCH
        from compiler.transforms.fusion.concat_sink import SWITCH as CONCAT_SINK
        from compiler.transforms.fusion.conv_stage import SWITCH as CONV_STAGE
        from compiler.transforms.fusion.horizontal import SWITCH as HORIZONTAL
        from compiler.transforms.fusion.row_epilogue import SWITCH as ROW_EPILOGUE
        from compiler.transforms.launch_packing import SWITCH as LAUNCH_PACKING

        known = [r.name for r in all_rules] + [SWITCH.name, PROLOGUE_SWITCH.name, HORIZONTAL.name,
                                               CONCAT_SINK.name, ROW_EPILOGUE.name, CONV_STAGE.name]
        off = set(self.disable)
        unknown = sorted(off - set(known))
        if unknown:
            raise CompileError(
                f"fuse: error: unknown fusion rule(s) {', '.join(unknown)}; known: {', '.join(known)}")
        if self.switch_file:
            off |= disabled_by_switch_file(self.switch_file, [*all_rules, SWITCH,
                                                              PROLOGUE_SWITCH, HORIZONTAL,
                                                              CONCAT_SINK, ROW_EPILOGUE,
                                                              CONV_STAGE, LAUNCH_PACKING])
        active = [r for r in all_rules if r.name not in off]

        stats = Stats()
        before = count_kernels(op)
        forward_see_through(op, see_through)
        if self.fold_constants:
            fold_constants(op)
        if "PadConv2dFusionPass" not in off:  # a crop of a pad: the crop first (pads.py)
            from compiler.transforms.fusion.pads import slice_before_pad

            slice_before_pad(op)
        if self.auto and CONCAT_SINK.name not in off and SWITCH.name not in off:
            from compiler.transforms.fusion.concat_sink import sink_through_concats

            sink_through_concats(op)  # f(concat(a, b)) -> concat(f(a), f(b)) where a, b take f
            dead_code(op)
        run_rules(op, active, ctx, stats)
        if "PadConv2dFusionPass" not in off:  # a pad read by several convs: into each
            from compiler.transforms.fusion.pads import fold_shared_pads

            fold_shared_pads(op)
        dead_code(op)
        horizontal = None
        if HORIZONTAL.name not in off:  # sibling convs / matmuls on one input: one wide op
            from compiler.transforms.fusion.depthwise import fuse_depthwise_siblings
            from compiler.transforms.fusion.horizontal import fuse_siblings

            fuse_depthwise_siblings(op)
            horizontal = fuse_siblings(op)
            dead_code(op)
        auto = None
        if self.auto and SWITCH.name not in off:
            from compiler.transforms.fusion.auto import fuse_pointwise
            from compiler.transforms.fusion.scalar_scale import fold_scalar_scales

            fold_scalar_scales(op)  # x * k read only by convs: k into their filters
            dead_code(op)
            auto = fuse_pointwise(op, prologues=PROLOGUE_SWITCH.name not in off)
            if PROLOGUE_SWITCH.name not in off:  # separable convs: depthwise into the 1x1's A tiles
                from compiler.transforms.fusion.depthwise import mark_depthwise_prologues

                auto.depthwise_prologues = mark_depthwise_prologues(op, self.soc_version or None)
                if CONV_STAGE.name not in off:  # a conv computed in its reader conv's window
                    from compiler.transforms.fusion.conv_stage import mark_conv_stages

                    auto.conv_stages = mark_conv_stages(op, self.soc_version or None)
                from compiler.transforms.fusion.mean_prologue import mark_mean_prologues

                auto.prologues += mark_mean_prologues(op)  # global average pools into matmuls
            if ROW_EPILOGUE.name not in off:  # softmax / LayerNorm on a matmul's output tiles
                from compiler.transforms.fusion.row_epilogue import mark_row_epilogues

                auto.row_epilogues = mark_row_epilogues(op)
            dead_code(op)
        after = count_kernels(op)
        LAST_REPORT = build_report(all_rules, off, stats, before, after, auto)
        LAST_REPORT["horizontal_fusion"] = None if horizontal is None else horizontal.as_dict()
        if self.report:
            write_report(self.report, LAST_REPORT)
