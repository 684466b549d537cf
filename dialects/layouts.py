"""Which storage formats each cann op runs on: the `RunsOn` trait on the op definition.

An op declares, per device format, the rule under which it has a kernel for that format (the
rule's name; what it checks is in compiler/transforms/layout_assignment.py `RULES`), whether it also runs
on its origin layout (ND: row-major, the framework's own NHWC / NCHW / [.., M, K]), and which
of its operands are parameters that keep their own layout whatever the op's format (a conv's
filter becomes FRACTAL_Z, a bias stays a [C] vector):

    traits = traits_def(Pure(), Cube(), RunsOn(nc1hwc0="conv", nd=False, params=("filter", "bias")))

An op without the trait gets the declaration its op kind implies (`runs_on`):
  Elementwise  every format, operands stored like the result ("same")
  Broadcast    every format, broadcasting only over axes the format keeps whole ("broadcast":
               NC1HWC0 not over C, FRACTAL_NZ not over the last two axes)
  anything else  its origin layout only
assign-layouts chooses one format per op for the whole graph (compiler/transforms/layout_assignment.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import OpTrait

ND, NC1HWC0, FRACTAL_NZ = "ND", "NC1HWC0", "FRACTAL_NZ"


@dataclass(frozen=True)
class RunsOn(OpTrait):
    """nc1hwc0 / fractal_nz: the rule under which the op runs on that format ("" = it has no
    kernel for it); nd: it has a kernel on its origin layout; params: operand names that keep
    their own layout."""

    nc1hwc0: str = ""
    fractal_nz: str = ""
    nd: bool = True
    params: tuple[str, ...] = ()

    def rule(self, fmt: str) -> str:
        return {NC1HWC0: self.nc1hwc0, FRACTAL_NZ: self.fractal_nz, ND: "origin" if self.nd else ""}[fmt]

    def formats(self) -> tuple[str, ...]:
        return tuple(f for f in (ND, NC1HWC0, FRACTAL_NZ) if self.rule(f))


_ELEMENTWISE = RunsOn(nc1hwc0="same", fractal_nz="same")
_BROADCAST = RunsOn(nc1hwc0="broadcast", fractal_nz="broadcast")
_ORIGIN_ONLY = RunsOn()


def runs_on(op: Operation) -> RunsOn:
    """The op's declaration: its RunsOn trait, else what its op kind implies."""
    from dialects.op_kinds import Broadcast, Elementwise, kind_of

    t = op.get_trait(RunsOn) if hasattr(op, "get_trait") else None
    if t is not None:
        return t
    kind = kind_of(op)
    if kind is Elementwise:
        return _ELEMENTWISE
    if kind is Broadcast:
        return _BROADCAST
    return _ORIGIN_ONLY
