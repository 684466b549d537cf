"""pack-launches: independent ops of @main packed into one kernel launch each (cost model).

    cann-opt --pack-launches --cann-to-kernel in.mlir
    cann-opt --pack-launches='report=true' --cann-to-kernel in.mlir

Runs on layout-assigned cann IR just before cann-to-kernel (it lowers copies of the module to
cost its choices).  The mechanism is in compiler/transforms/launch_packing.py, what a packed
launch is at the kernel level in compiler/backend/launch_packs.py.  Off: `enabled=false`, or
`LaunchPacking:off` in ATC's --fusion_switch_file.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from compiler.ir.diagnostics import CompileError
from compiler.target.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from dialects import kernel


@dataclass(frozen=True)
class PackLaunchesPass(ModulePass):
    name = "pack-launches"

    soc_version: str = ""
    """The chip (default: the module's, else Ascend910B3)."""

    implmode: str = ""
    implmode_ops: tuple[str, ...] = ()
    """As cann-to-kernel's (the trial lowerings must tile as it will)."""

    enabled: bool = True
    switch_file: str = ""
    """ATC's fusion switch file: `LaunchPacking:off` turns the pass off."""

    report: bool = False
    """Print what was packed (and what was not, with both costs) to stderr."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.transforms.launch_packing import SWITCH, pack_launches
        from passes.cann_to_kernel import CannToKernelPass

        if not self.enabled:
            return
        if self.switch_file:
            from compiler.transforms.fusion.switch import disabled_by_switch_file

            if SWITCH.name in disabled_by_switch_file(self.switch_file, [SWITCH]):
                return
        soc = self.soc_version
        if not soc:
            attr = op.attributes.get(kernel.SOC_ATTR)
            soc = attr.data if isinstance(attr, StringAttr) else DEFAULT_CHIP
        try:
            chip = get_chip(soc)
        except UnknownChipError as e:
            raise CompileError(f"pack-launches: error: {e}") from None
        lower = CannToKernelPass(soc_version=soc, implmode=self.implmode,
                                 implmode_ops=self.implmode_ops)
        folds: list[tuple[ModuleOp, list[str]]] = []  # each trial copy's folded TransData

        def trial(m: ModuleOp) -> None:
            folds.append((m, lower.lower(m)))

        def lowered(m: ModuleOp) -> None:  # a trial copy is the lowering of op as it is now
            lower.offer(op, m, next(f for c, f in folds if c is m))

        lines = pack_launches(op, chip, trial, lowered=lowered)
        if self.report:
            for line in lines:
                print(line, file=sys.stderr)
