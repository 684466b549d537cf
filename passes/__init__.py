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


def _plan_memory():
    from passes.plan_memory import PlanMemoryPass

    return PlanMemoryPass


def _perf_report():
    from passes.perf_report import PerfReportPass

    return PerfReportPass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def factory():
        import importlib

        return getattr(importlib.import_module(module), cls)

    return factory


#: Generic optimizations and precision (issue 4): one file each.
GENERIC_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "fold-constants": _lazy("passes.fold_constants", "FoldConstantsPass"),
    "remove-identity": _lazy("passes.remove_identity", "RemoveIdentityPass"),
    "remove-noops": _lazy("passes.remove_noops", "RemoveNoopsPass"),
    "algebraic-simplify": _lazy("passes.algebraic_simplify", "AlgebraicSimplifyPass"),
    "cann-cleanup": _lazy("passes.cann_cleanup", "CannCleanupPass"),
    "set-precision": _lazy("passes.set_precision", "SetPrecisionPass"),
    # tf-to-cann's report alone, IR unchanged (`cann-opt --legalization-report` without tf-to-cann)
    "legalization-report": _lazy("passes.tf_to_cann", "LegalizationReportPass"),
}


ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    **GENERIC_PASSES,
    "tf-to-cann": _tf_to_cann,
    "fuse": _fuse,
    "align-concat-slabs": _lazy("passes.align_concat_slabs", "AlignConcatSlabsPass"),
    "assign-layouts": _assign_layouts,
    "cann-to-kernel": _cann_to_kernel,
    # independent ops packed into one launch (compiler/transforms/launch_packing.py)
    "pack-launches": _lazy("passes.pack_launches", "PackLaunchesPass"),
    "plan-memory": _plan_memory,
    "perf-report": _perf_report,
    "recompose-rnn": _lazy("passes.recompose_rnn", "RecomposeRnnPass"),  # LSTM / GRU loops
    "insert-aipp": _lazy("passes.insert_aipp", "InsertAippPass"),  # ATC's --insert_op_conf
    # a range-compiled model's shape computations at the shapes of a dispatch (issue 16)
    "resolve-shapes": _lazy("passes.resolve_shapes", "ResolveShapesPass"),
}
