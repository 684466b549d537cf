"""The fusion engine: a rule language (lark), rules compiled to xDSL rewrite patterns, the
built-in rule library (`rules/*.rules`, package data), ATC switch files and the fusion report.

    rules = builtin_rules() + load_rule_file("my.rules").rules
    stats = Stats(); run_rules(module, rules, ctx, stats)
"""

from __future__ import annotations

from importlib import resources

from compiler.transforms.fusion.language import Rule, RuleFile, load_rule_file, parse_rules

_BUILTIN: list[RuleFile] | None = None


def builtin_rule_files() -> list[RuleFile]:
    global _BUILTIN
    if _BUILTIN is None:
        files = []
        root = resources.files("compiler.transforms.fusion") / "rules"
        for entry in sorted(root.iterdir(), key=lambda p: p.name):
            if entry.name.endswith(".rules"):
                files.append(parse_rules(entry.read_text(encoding="utf-8"),
                                         f"<builtin>/{entry.name}"))
        _BUILTIN = files
    return _BUILTIN


def builtin_rules() -> list[Rule]:
    return [r for f in builtin_rule_files() for r in f.rules]


__all__ = ["Rule", "RuleFile", "builtin_rule_files", "builtin_rules", "load_rule_file", "parse_rules"]
