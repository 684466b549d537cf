"""cann-to-kernel: one tiled kernel per cann op, tiled for a chip profile.

    cann-opt --cann-to-kernel='soc-version=Ascend910A' in.mlir

The chip is the pass option, else the module's `cann.soc_version`, else Ascend910B3; the module
records the chip it was tiled for.  Layouts must have been assigned (`assign-layouts`) first.
Every kernel has an explicit body (cores / for / load / mmad / fixpipe / vec / store), executed
tile by tile on the device layouts by compiler/interpreters/kernel_impl.py:

- cube (`kernel.cube`): Conv2D / DepthwiseConv2D and their fused forms as implicit GEMM on
  NC1HWC0 x FRACTAL_Z (M = N*Ho*Wo, N = Cout, K = C1*kh*kw*C0; the squeeze-excite gate scaling
  the A tiles in UB), MatMulV2 / BatchMatMulV2 on FRACTAL_NZ, with bias / activation / residual
  epilogues in UB; attention and the gated MLP as GEMM + vector kernels through GM workspaces;
- vector (`kernel.vec_kernel`): elementwise, comparison and logic ops, Cast, SelectV2, BNInfer,
  pooling, softmax / LayerNorm rows, reductions over a contiguous block of axes, resize, the
  squeeze-excite gate;
- data movement: TransData, PadD / PadV2D / MirrorPad, TransposeD, ConcatV2D, StridedSliceD,
  SplitD / SplitVD, GatherV2D; Reshape of a row-major tensor is a `kernel.view` (no kernel);
- control flow: cann.If / Case / While become the host-side kernel.if / case / while naming the
  same functions, whose bodies are lowered like @main.

An op carrying `cann.core_budget = array<i64: cube, vector>` (written by pack-launches,
compiler/transforms/launch_packing.py) is tiled for that many cores, and the kernels of an op
carrying `cann.pack = N` carry `kernel.pack = N` (one packed launch,
compiler/backend/launch_packs.py).

Any op left
is a diagnostic naming the op and its TF node; every such op is reported in one run.  The
lowerings live in compiler/conversions/cann_to_kernel/, one module per kind; this pass picks the chip and runs them.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from compiler.conversions.cann_to_kernel import host_ops, lowering_patterns
from compiler.conversions.cann_to_kernel.implmode import ImplMode, select_implementations
from compiler.ir.diagnostics import CompileError, OpError
from compiler.ir.rewriting import rewrite
from compiler.ir.snapshot import Snapshot
from compiler.target.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from compiler.transforms.launch_packing import BUDGET_ATTR, PACK_ATTR, lower_packed
from dialects import cann, kernel


@dataclass(frozen=True)
class CannToKernelPass(ModulePass):
    name = "cann-to-kernel"

    soc_version: str = ""
    """The chip (ATC's --soc_version name); default: the module's, else Ascend910B3."""

    implmode: str = ""
    """ATC's --op_select_implmode: high_precision or high_performance ("" = each op's default
    implementation); see compiler/conversions/cann_to_kernel/implmode.py."""

    implmode_ops: tuple[str, ...] = ()
    """ATC's --optypelist_for_implmode: the op types that take `implmode` (empty: all)."""

    layout_report: str = ""
    """Where assign-layouts' layout report went ("-": stderr, else a file): the TransData kernels
    folded into their producer's stores or readers' loads are appended to it."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        ahead = _AHEAD.pop(op, None)
        if ahead is not None and ahead.key == self._key(op) and ahead.snapshot.unchanged(op):
            folded = _adopt(op, ahead)
        else:
            folded = self.lower(op)
        if self.layout_report:
            report_folds(self.layout_report, folded)

    def _chip(self, op: ModuleOp) -> str:
        if self.soc_version:
            return self.soc_version
        attr = op.attributes.get(kernel.SOC_ATTR)
        return attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP

    def _key(self, op: ModuleOp) -> tuple[str, str, tuple[str, ...]]:
        return self._chip(op), self.implmode, tuple(self.implmode_ops)

    def offer(self, module: ModuleOp, lowered: ModuleOp, folded: list[str]) -> None:
        """`lowered` is `module` lowered by this pass's `lower` (returning `folded`), e.g.
        a pack-launches trial copy (its trial tags made the real ones): the next cann-to-kernel with the same
        chip and implmode options takes it instead of lowering `module` again, if `module` is
        then still what was lowered (a snapshot of its objects is compared:
        compiler/ir/snapshot.py).  Only the latest offer is kept (its snapshot holds the
        module's objects, hence the module: an offer no cann-to-kernel took is dropped here)."""
        _AHEAD.clear()
        _AHEAD[module] = _Ahead(self._key(module), Snapshot(module), lowered, folded)

    def lower(self, op: ModuleOp) -> list[str]:
        """Lower `op` in place; returns the folded TransData's report lines (fold_transdata)."""
        chip = self._chip(op)
        try:
            profile = get_chip(chip)  # resolved once: every pattern and tiling takes the profile
        except UnknownChipError as e:
            raise CompileError(f"cann-to-kernel: error: {e}") from None
        try:
            impl = ImplMode(self.implmode, tuple(self.implmode_ops))
        except ValueError as e:
            raise CompileError(f"cann-to-kernel: error: {e}") from None
        op.attributes[kernel.SOC_ATTR] = StringAttr(chip)
        failures: list[tuple[Operation, str]] = []
        if any(PACK_ATTR in o.attributes or BUDGET_ATTR in o.attributes for o in host_ops(op)):
            lower_packed(op, profile, failures, impl)
        else:
            rewrite(op, lowering_patterns(profile, failures, impl=impl),
                    recursive=False)
        folded = fold_transdata(op)
        select_implementations(op, impl)
        for left in host_ops(op):
            if left.dialect_name() in ("tf", "cann") and not isinstance(left, cann.ConstOp) \
                    and all(f is not left for f, _ in failures):
                failures.append((left, f"{left.name} has no kernel lowering"))
        if failures:
            from compiler.conversions.cann_to_kernel.control_flow import drop_consequences

            drop_consequences(failures)
            raise OpError(failures)
        return folded


@dataclass
class _Ahead:
    """A lowering made ahead of cann-to-kernel (CannToKernelPass.offer)."""

    key: tuple[str, str, tuple[str, ...]]  # chip, implmode, implmode_ops
    snapshot: Snapshot  # the module as it was before the lowering
    lowered: ModuleOp
    folded: list[str]


#: module -> the lowering offered for it (at most one entry: the latest offer); taken (popped)
#: by the next cann-to-kernel on that module object: one compile's, never shared between modules
_AHEAD: weakref.WeakKeyDictionary[ModuleOp, _Ahead] = weakref.WeakKeyDictionary()


def _adopt(op: ModuleOp, ahead: _Ahead) -> list[str]:
    """Make `op` the offered lowering (its body and attributes)."""
    low = ahead.lowered
    block = low.body.block
    low.body.detach_block(block)
    op.body.detach_block(op.body.block)
    op.body.add_block(block)
    attrs = dict(low.attributes)
    op.attributes.clear()
    op.attributes.update(attrs)
    return ahead.folded


def fold_transdata(module: Operation) -> list[str]:
    """Fold the kernel.transdata that need no launch into the kernels next to them: a
    conversion to the origin layout into its producer's stores (FoldOriginTransData), one from
    a row-major layout into its readers' GM -> L1 loads (FoldInputTransData).  One line per
    folded TransData: its formats, shape, TF node and the kernels that do it now."""
    from compiler.conversions.cann_to_kernel.data_movement import (
        FoldInputTransData,
        FoldOriginTransData,
    )
    from compiler.ir.diagnostics import node_name
    from compiler.ir.typed import shape_of

    def name(o: Operation) -> str:
        n = node_name(o)
        return f"{o.name} '{n}'" if n else o.name

    lines: list[str] = []
    for fold, into in ((FoldOriginTransData(), "the stores of"), (FoldInputTransData(), "the GM -> L1 loads of")):
        for t in [o for o in host_ops(module) if isinstance(o, kernel.TransDataOp)]:
            if t.parent is None:
                continue
            node = node_name(t)
            origin = t.dst if into == "the stores of" else t.src  # the row-major side
            what = f"TransData {t.src_format.data} -> {t.dst_format.data} {list(shape_of(origin))}" \
                + (f" at '{node}'" if node else "")
            uses = [(u.operation, u.index) for u in t.dst.uses]
            fold.match_and_rewrite(t, PatternRewriter(t))
            if t.parent is not None:
                continue
            # the producer (rebuilt: its result replaced the TransData's), or the readers
            kernels = [o.operands[i].owner for o, i in uses] if into == "the stores of" \
                else [o for o, _ in uses]
            lines.append(f"{what}: folded into {into} "
                         + ", ".join(dict.fromkeys(name(k) for k in kernels if isinstance(k, Operation)))
                         + " (no launch)")
    return lines


def report_folds(where: str, lines: list[str]) -> None:
    """Append the folded TransData to the layout report (`where`: "-" for stderr, else the file
    assign-layouts wrote)."""
    import sys

    text = f"after cann-to-kernel: {len(lines)} TransData folded into kernels' DMA\n" \
        + "".join(f"{ln}\n" for ln in lines)
    if where == "-":
        sys.stderr.write(text)
    else:
        with open(where, "a", encoding="utf-8") as f:
            f.write(text)
