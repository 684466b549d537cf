"""Named pipelines: the pass sequence that brings tf-level IR to each level of the compiler."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from compiler.diagnostics import SourceMap, verify_module
from passes import ALL_PASSES

#: Level name -> passes from the tf level.  Each level is also a checkpoint for `cann-run`.
LEVELS: dict[str, tuple[str, ...]] = {
    "tf": (),
    "cann": ("tf-to-cann",),
    "fused": ("tf-to-cann", "fuse"),
    "layouts": ("tf-to-cann", "fuse", "assign-layouts"),
    "kernel": ("tf-to-cann", "fuse", "assign-layouts", "cann-to-kernel"),
}


def run_passes(ctx: Context, module: ModuleOp, names: tuple[str, ...] | list[str],
               source: SourceMap | None = None) -> ModuleOp:
    """Apply the named passes (default options) in order, verifying after each."""
    source = source or SourceMap("<pipeline>")
    for name in names:
        ALL_PASSES[name]()().apply(ctx, module)
        verify_module(module, source)
    return module
