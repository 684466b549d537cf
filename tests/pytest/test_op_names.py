"""Every "cann.X" / "kernel.X" string in the package names something that exists (issue 11): a
registered op or attribute, a prefix of registered ops (`name.startswith("cann.Resize")`), or one
of the discardable attribute keys the compiler sets on IR.  A list of op names that drifted from
the dialects (ops renamed or never defined) fails here."""

from __future__ import annotations

import pathlib
import re

from compiler.ir.ir_io import make_context

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("compiler", "dialects", "passes", "tools")
NAME = re.compile(r'"((?:cann|kernel)\.[A-Za-z_][A-Za-z0-9_]*)"')
#: Discardable attributes (set on modules / ops, not registered as attribute definitions).
DISCARDABLE = {"cann.soc_version", "cann.compile", "cann.input_format", "kernel.trip_count",
               "cann.aipp_inputs",
               # a range-compiled module's tiling function (tools/driver/runtime_tiling.py)
               "cann.shape_ranges", "cann.dispatch_pipeline", "cann.dispatch_source",
               "cann.dispatch_shape", "cann.dispatch_kernels"}


def test_every_cann_and_kernel_name_in_the_package_exists():
    ctx = make_context()
    ops = {n for d in ("cann", "kernel") for n in _op_names(ctx, d)}
    bad = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for m in NAME.finditer(path.read_text(encoding="utf-8")):
                n = m.group(1)
                if n in DISCARDABLE or ctx.get_optional_op(n) or ctx.get_optional_attr(n):
                    continue
                if any(o.startswith(n) for o in ops):
                    continue
                bad.setdefault(n, set()).add(str(path.relative_to(ROOT)))
    assert not bad, f"names of nothing registered: {bad}"


def _op_names(ctx, dialect: str) -> list[str]:
    d = ctx.get_optional_dialect(dialect)
    return [op.name for op in d.operations] if d is not None else []
