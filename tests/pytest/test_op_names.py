"""Every "cann.X" / "kernel.X" string in the package names something that exists (issue 11): a
registered op or attribute, a prefix of registered ops (`name.startswith("cann.Resize")`), or one
of the discardable attribute keys the compiler sets on IR.  A list of op names that drifted from
the dialects (ops renamed or never defined) fails here.

And no list of cann op names outside the dialects (issue 11 item 3): a fact about a set of ops is
a trait, a base class or a class attribute declared on the ops in dialects/, read through
isinstance / has_trait (the fusion rule files name ops by string by design: they are .rules)."""

from __future__ import annotations

import ast
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
               "cann.dispatch_shape", "cann.dispatch_kernels",
               # launch packing's discardable op attributes (compiler/transforms/launch_packing.py)
               "cann.pack", "cann.core_budget", "kernel.pack"}


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


#: cann op names in a string of their own ("cann.Conv2D"), as a list element or a dict key
OP_NAME = re.compile(r"cann\.[A-Z][A-Za-z0-9_]*")
def test_no_list_of_cann_op_names_outside_the_dialects():
    found = {}
    for pkg in (p for p in PACKAGES if p != "dialects"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            tree = ast.parse(path.read_text(encoding="utf-8"))
            owner = {}  # a node in the value of `NAME = ...` -> NAME
            for a in ast.walk(tree):
                if isinstance(a, (ast.Assign, ast.AnnAssign)) and a.value is not None:
                    t = a.targets[0] if isinstance(a, ast.Assign) else a.target
                    for n in ast.walk(a.value):
                        owner.setdefault(n, t.id if isinstance(t, ast.Name) else None)
            for node in ast.walk(tree):
                names = [e.value for e in _elements(node)
                         if isinstance(e, ast.Constant) and isinstance(e.value, str)
                         and OP_NAME.fullmatch(e.value)]
                if len(names) >= 2:
                    # each list by "path:NAME" (the name it is assigned to; else "path:line")
                    found[f"{rel}:{owner.get(node) or node.lineno}"] = names
    assert found == {}, f"lists of cann op names outside dialects/: {found}"


def _elements(node: ast.AST) -> list:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return [k for k in node.keys if k is not None]
    return []
