"""The pass registry: pass name -> a factory returning its class (imported lazily)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _tf_to_cann():
    from passes.tf_to_cann import TfToCannPass

    return TfToCannPass


def _fuse():
    from passes.fuse import FusePass

    return FusePass


def _assign_layouts():
    from passes.assign_layouts import AssignLayoutsPass

    return AssignLayoutsPass


def _cann_to_kernel():
    from passes.cann_to_kernel import CannToKernelPass

    return CannToKernelPass


ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "tf-to-cann": _tf_to_cann,
    "fuse": _fuse,
    "assign-layouts": _assign_layouts,
    "cann-to-kernel": _cann_to_kernel,
}
