"""The layering of docs/architecture.md: no module of compiler/ imports passes/, except the
pipeline builder, which imports the pass registry."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
ALLOWED = {"compiler/driver/pipelines.py"}


def _imports_passes(path: pathlib.Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(n == "passes" or n.startswith("passes.") for n in names):
            return True
    return False


def test_only_the_pipeline_builder_imports_passes():
    found = {str(p.relative_to(ROOT)) for p in (ROOT / "compiler").rglob("*.py") if _imports_passes(p)}
    assert found == ALLOWED
