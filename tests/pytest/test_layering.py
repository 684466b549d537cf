"""The layering of docs/architecture.md: imports go down the levels.  `compiler/` imports
neither `passes/` nor `tools/`; `passes/` does not import `tools/`.  Lazy imports inside
functions count."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: package -> the project packages it must not import
FORBIDDEN = {
    "compiler": ("passes", "tools"),
    "passes": ("tools",),
}


def _imported(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            out.add(node.module or "")
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_goes_up_a_level(package):
    bad = sorted(f"{p.relative_to(ROOT)}: {name}"
                 for p in (ROOT / package).rglob("*.py")
                 for name in _imported(p)
                 if name.split(".")[0] in FORBIDDEN[package])
    assert bad == []
