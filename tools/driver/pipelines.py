"""The pipeline builder: compile options -> an explicit pass pipeline with explicit pass options.

Every driver builds its pipeline here: `cann-compile` (ATC's options), `cann-opt --to-level=L`
and the benchmarks.  The result is a tuple of configured `ModulePass` instances, and
`pipeline_spec` prints it as the `-p` spec that `cann-opt` replays step by step:

    cann-compile ... --print-pipeline      # prints e.g. tf-to-cann,cann-cleanup,fuse{...},...
    cann-opt -p '<that spec>' model.tf.mlir

Nothing reaches a pass behind the pipeline's back: no argv rewriting, no module globals, no
edits of spec strings.  Each option is a field of `PipelineOptions`, and each stage below turns
the options it cares about into the fields of the passes it adds.

To extend the pipeline, add a field to `PipelineOptions` and either an entry to `STAGES` (a
`Stage(level, build)` whose `build(options)` returns the passes to add; the stages run in list
order, and `level` is the level the IR has reached once they ran) or a pass to the stage it
belongs to.  The chip is resolved once into a `ChipProfile` (`resolve_chip`) and handed to the
passes that need it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.ir.diagnostics import CompileError, OpError, SourceMap, verify_module
from compiler.target.chips import DEFAULT_CHIP, ChipProfile, UnknownChipError, get_chip
from passes import ALL_PASSES  # the one import of passes/ in compiler/ (docs/architecture.md)

if TYPE_CHECKING:  # (types only: no import at run time)
    from passes.fuse import FusePass
    from passes.tf_to_cann import TfToCannPass

#: The levels in pipeline order; each is a checkpoint `cann-run` can execute.
LEVEL_ORDER: tuple[str, ...] = ("tf", "cann", "fused", "layouts", "kernel", "planned")

#: ATC's precision modes (cann-facts.md section 9), implemented by set-precision.
PRECISION_MODES = ("force_fp16", "allow_fp32_to_fp16", "allow_mix_precision",
                   "must_keep_origin_dtype", "force_fp32")


def resolve_chip(name: str | None, flag: str = "--soc_version") -> ChipProfile:
    """The chip profile of an ATC soc_version name (default Ascend910B3); an unknown name is
    one CompileError naming the flag."""
    try:
        return get_chip(name or DEFAULT_CHIP)
    except UnknownChipError as e:
        raise CompileError(f"{flag}: {e}") from None


def _default_chip() -> ChipProfile:
    return get_chip(DEFAULT_CHIP)


@dataclass(frozen=True)
class PipelineOptions:
    """Everything a pipeline can be asked for.  Defaults give the default compile."""

    chip: ChipProfile = field(default_factory=_default_chip)
    level: str = "kernel"
    """The last level to reach (LEVEL_ORDER); `planned` adds plan-memory after `kernel`."""

    cleanup: bool = True
    """Run cann-cleanup after legalization (and after set-precision, which adds Casts)."""

    allow_host_fallback: bool = False
    legalization_report: bool = False

    precision_mode: str | None = None
    """ATC's --precision_mode; None: no set-precision pass (every op keeps its dtype)."""

    keep_dtype: tuple[str, ...] = ()
    """Op names or `OpType::Name` entries (ATC's --keep_dtype file) that keep their dtype."""

    customize_dtypes: tuple[str, ...] = ()
    """`name=dtype` / `OpType::Name=dtype` entries (ATC's --customize_dtypes file)."""

    output_types: tuple[str, ...] = ()
    """`*=f16` (every output) or `name:index=f16` (ATC's --output_type)."""

    fusion_rules: tuple[str, ...] = ()
    fusion_disable: tuple[str, ...] = ()
    fusion_switch_file: str = ""
    fusion_report: str = ""
    layout_report: str = ""
    """assign-layouts' report of every TransData left and why ("-": stderr, else a file)."""

    small_channel: bool = True
    """ATC's --enable_small_channel: small-C_in convs on NC1HWC0_C04 where cheaper (False: never)."""

    implmode: str = ""
    """ATC's --op_select_implmode (high_precision / high_performance; "": each op's default)."""
    implmode_ops: tuple[str, ...] = ()
    """ATC's --optypelist_for_implmode: the op types that take `implmode` (empty: every op)."""

    aipp_config: str = ""
    """ATC's --insert_op_conf: the static AIPP file insert-aipp reads ("": no AIPP)."""

    pack_launches: bool = True
    """Pack independent kernels into one launch (pack-launches; also `LaunchPacking:off` in
    the fusion switch file)."""

    def __post_init__(self):
        if self.level not in LEVEL_ORDER:
            raise CompileError(f"unknown level '{self.level}'; known: {', '.join(LEVEL_ORDER)}")
        if self.precision_mode is not None and self.precision_mode not in PRECISION_MODES:
            raise CompileError(f"--precision_mode={self.precision_mode} is not a precision "
                               f"mode; known: {', '.join(PRECISION_MODES)}")


def _pass(name: str, **options) -> ModulePass:
    return ALL_PASSES[name]()(**options)


# --- the stages ----------------------------------------------------------------------------

def _legalize(o: PipelineOptions) -> list[ModulePass]:
    passes = [_pass("tf-to-cann", allow_host_fallback=o.allow_host_fallback,
                    report=o.legalization_report)]
    if o.aipp_config:  # static AIPP on the model inputs, before anything folds or fuses
        passes.append(_pass("insert-aipp", config=o.aipp_config))
    if o.cleanup:
        passes.append(_pass("cann-cleanup"))
    return passes


def _recurrent(o: PipelineOptions) -> list[ModulePass]:
    # Keras's LSTM / GRU While loops -> DynamicRNN / DynamicGRUV2 (compiler/transforms/recurrent.py)
    return [_pass("recompose-rnn")]


def _fuse(o: PipelineOptions) -> list[ModulePass]:
    # After cann-cleanup the constants are folded already: fuse need not fold them again.
    return [_pass("fuse", rules=o.fusion_rules, disable=o.fusion_disable,
                  switch_file=o.fusion_switch_file, report=o.fusion_report,
                  fold_constants=not o.cleanup, soc_version=o.chip.name)]


def _precision(o: PipelineOptions) -> list[ModulePass]:
    if o.precision_mode is None and not (o.keep_dtype or o.customize_dtypes or o.output_types):
        return []
    passes = [_pass("set-precision", mode=o.precision_mode or "must_keep_origin_dtype",
                    keep=o.keep_dtype, customize=o.customize_dtypes, outputs=o.output_types)]
    if o.cleanup:
        passes.append(_pass("cann-cleanup"))  # Cast(Const) -> a Const of the new dtype
    return passes


def _layouts(o: PipelineOptions) -> list[ModulePass]:
    # concat slabs on the C0 grid (channel padding), then one layout for every value
    return [_pass("align-concat-slabs"), _pass("assign-layouts", report=o.layout_report,
                                                   small_channel=o.small_channel)]


def _lower(o: PipelineOptions) -> list[ModulePass]:
    # independent ops packed into one launch each (costed by trial lowerings), then lowered
    pack = [_pass("pack-launches", soc_version=o.chip.name, implmode=o.implmode,
                  implmode_ops=o.implmode_ops, switch_file=o.fusion_switch_file,
                  report=bool(o.fusion_report))] if o.pack_launches else []
    return [*pack, _pass("cann-to-kernel", soc_version=o.chip.name, implmode=o.implmode,
                         implmode_ops=o.implmode_ops, layout_report=o.layout_report)]


def _plan(o: PipelineOptions) -> list[ModulePass]:
    return [_pass("plan-memory")]


@dataclass(frozen=True)
class Stage:
    level: str
    """The level the IR has reached once this stage ran."""
    build: Callable[[PipelineOptions], list[ModulePass]]


#: The default pipeline, in order.  Append or insert stages to extend it.
STAGES: list[Stage] = [
    Stage("cann", _legalize),
    Stage("fused", _recurrent),
    Stage("fused", _fuse),
    Stage("fused", _precision),
    Stage("layouts", _layouts),
    Stage("kernel", _lower),
    Stage("planned", _plan),
]


def dispatch_head() -> list[ModulePass]:
    """What the tiling function of a range-compiled model (tools/driver/shape_ranges.py) runs
    before the static pipeline's passes after the cann level, at each dispatch's shapes: the
    shape computations on `?` dimensions made static (resolve-shapes)."""
    return [_pass("resolve-shapes")]


def build_pipeline(options: PipelineOptions | None = None) -> tuple[ModulePass, ...]:
    """The passes, configured, that take tf-level IR to `options.level`."""
    o = options or PipelineOptions()
    last = LEVEL_ORDER.index(o.level)
    passes: list[ModulePass] = []
    for stage in STAGES:
        if LEVEL_ORDER.index(stage.level) <= last:
            passes.extend(stage.build(o))
    return tuple(passes)


def pipeline_spec(passes: Sequence[ModulePass]) -> str:
    """The `-p` spec of a pipeline (non-default options only), as cann-opt parses it."""
    return ",".join(str(p.pipeline_pass_spec()) for p in passes)


def level_passes(level: str) -> tuple[str, ...]:
    """The pass names of the default pipeline up to `level`."""
    return tuple(p.name for p in build_pipeline(PipelineOptions(level=level)))


def with_driver_options(passes: Sequence[ModulePass], o: PipelineOptions) -> list[ModulePass]:
    """A pipeline written by hand (`cann-opt -p ...`, pass flags) with the driver's options
    applied: tf-to-cann gets allow_host_fallback / report, fuse the switch file and report it
    was not given.  `--legalization-report` without tf-to-cann runs the legalization-report
    pass (the analysis on a copy) first."""
    from dataclasses import replace

    out: list[ModulePass] = []
    for p in passes:
        if p.name == "tf-to-cann":  # (the class behind ALL_PASSES["tf-to-cann"])
            t = cast("TfToCannPass", p)
            p = replace(t, allow_host_fallback=t.allow_host_fallback or o.allow_host_fallback,
                        report=t.report or o.legalization_report)
        elif p.name == "fuse":  # (the class behind ALL_PASSES["fuse"])
            f = cast("FusePass", p)
            p = replace(f, switch_file=f.switch_file or o.fusion_switch_file,
                        report=f.report or o.fusion_report)
        out.append(p)
    if o.legalization_report and not any(p.name == "tf-to-cann" for p in out):
        out.insert(0, _pass("legalization-report", allow_host_fallback=o.allow_host_fallback))
    return out


def run_pipeline(ctx: Context, module: ModuleOp, passes: Sequence[ModulePass],
                 source: SourceMap | None = None,
                 callback: Callable[[ModulePass, str], None] | None = None,
                 verify: Callable[[ModulePass], bool] = lambda p: True,
                 verify_each: bool = True) -> ModuleOp:
    """Apply `passes` in order, verifying after each (unless `verify(pass)` says not to); with
    `verify_each=False` only after the last pass `verify` accepts (the module the pipeline
    leaves; mlir-opt's --verify-each=false: an intermediate module is not re-verified op by op
    after every pass).  `callback(pass, when)` is called with when = "before" / "after" around
    each pass.  A pass's OpError becomes a CompileError whose lines name the file and the TF
    node."""
    source = source or SourceMap("<pipeline>")
    last = max((k for k, p in enumerate(passes) if verify(p)), default=-1)
    for k, p in enumerate(passes):
        if callback:
            callback(p, "before")
        try:
            p.apply(ctx, module)
        except OpError as e:
            raise CompileError([source.describe(op, msg) for op, msg in e.items]) from None
        if verify(p) and (verify_each or k == last):
            verify_module(module, source)
        if callback:
            callback(p, "after")
    return module


def run_passes(ctx: Context, module: ModuleOp, names: tuple[str, ...] | list[str],
               source: SourceMap | None = None) -> ModuleOp:
    """Apply the named passes (default options) in order, verifying after each.  A pass's
    OpError propagates as it is (tests inspect its items)."""
    source = source or SourceMap("<pipeline>")
    for name in names:
        ALL_PASSES[name]()().apply(ctx, module)
        verify_module(module, source)
    return module


def __getattr__(name: str):
    # LEVELS: level name -> pass names of the default pipeline from the tf level (computed on
    # first use from the stages, so it never disagrees with build_pipeline).
    if name == "LEVELS":
        levels = {lvl: level_passes(lvl) for lvl in LEVEL_ORDER if lvl != "planned"}
        globals()["LEVELS"] = levels
        return levels
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
