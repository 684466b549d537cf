"""The built-in fusion rules' parse trees are checked in (compiler/transforms/fusion/rule_trees.json,
tools/gen_rule_trees.py): current, and a compile's built-in rules load without lark."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_rule_trees_are_current():
    from tools.gen_rule_trees import OUTPUT, generate

    with open(OUTPUT, encoding="utf-8") as f:
        assert f.read() == generate(), "stale: run python -m tools.gen_rule_trees"


def test_builtin_rules_load_without_parsing():
    code = ("import sys; from compiler.transforms.fusion import builtin_rules; "
            "n = len(builtin_rules()); print(n, 'lark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT}, check=True).stdout.split()
    assert int(out[0]) > 0 and out[1] == "False"


def test_edited_rule_text_is_parsed(tmp_path):
    from compiler.transforms.fusion import builtin_rule_files, load_rule_file

    path = tmp_path / "edited.rules"
    src = os.path.join(ROOT, "compiler", "transforms", "fusion", "rules", "10_matmul.rules")
    with open(src, encoding="utf-8") as f:
        path.write_text(f.read() + "\n# edited\n")
    builtin = next(f for f in builtin_rule_files() if f.path.endswith("10_matmul.rules"))
    edited = load_rule_file(str(path))
    assert [(r.name, [c.expr.text for c in r.constraints]) for r in edited.rules] == \
        [(r.name, [c.expr.text for c in r.constraints]) for r in builtin.rules]
