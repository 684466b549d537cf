"""ATC's fusion switch file (`--fusion_switch_file`): which rules are off.

Two forms (cann-facts.md section 5):
  text:  one `RuleName:off` (or `:on`) per line; `#` comments and blank lines are ignored.
  JSON:  {"Switch": {"GraphFusion": {"ALL": "off", "X": "on"}, "UBFusion": {"ALL": "off"}}}
         `ALL` sets every rule of that group (a rule's `group` in its rule file), the named
         entries override it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Protocol

from compiler.ir.diagnostics import CompileError


class Switchable(Protocol):
    """What a switch file turns on or off: a rule (or pass) name in a group."""

    @property
    def name(self) -> str: ...

    @property
    def group(self) -> str: ...


def disabled_by_switch_file(path: str, rules: Sequence[Switchable]) -> set[str]:
    from compiler.ir.ir_io import read_text

    text = read_text(path, "a fusion switch file")
    known = {r.name: r for r in rules}
    state: dict[str, bool] = {}  # rule -> on?
    unknown: list[str] = []

    def setting(v: str, where: str) -> bool:
        v = v.strip().lower()
        if v not in ("on", "off"):
            shown = f"'{v}'" if v.isprintable() else json.dumps(v)  # one line, always
            raise CompileError(f"{where}: error: expected 'on' or 'off', got {shown}")
        return v == "on"

    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CompileError(f"{path}:{e.lineno}:{e.colno}: error: bad JSON: {e.msg}") from None
        sw = data.get("Switch") if isinstance(data, dict) else None
        if not isinstance(sw, dict):
            raise CompileError(f"{path}: error: expected {{\"Switch\": {{\"GraphFusion\": {{...}}, "
                               f"\"UBFusion\": {{...}}}}}}")
        for group, entries in sw.items():
            if not isinstance(entries, dict):
                raise CompileError(f"{path}: error: Switch.{group} must be an object")
            if "ALL" in entries:
                on = setting(str(entries["ALL"]), f"{path}: Switch.{group}.ALL")
                for r in rules:
                    if r.group == group:
                        state[r.name] = on
        for group, entries in sw.items():
            for name, v in entries.items():
                if name == "ALL":
                    continue
                on = setting(str(v), f"{path}: Switch.{group}.{name}")
                if name in known:
                    state[name] = on
                else:
                    unknown.append(name)
    else:
        for i, line in enumerate(text.splitlines(), 1):
            s = line.split("#", 1)[0].strip()
            if not s:
                continue
            name, colon, v = s.partition(":")
            if not colon or not name.strip():
                raise CompileError(f"{path}:{i}:1: error: expected 'RuleName:off' or 'RuleName:on', "
                                   f"got '{s}'")
            on = setting(v, f"{path}:{i}:{len(name) + 2}")
            name = name.strip()
            if name in known:
                state[name] = on
            else:
                unknown.append(name)
    for name in unknown:
        print(f"fuse: warning: {path}: unknown fusion rule '{name}' ignored", file=sys.stderr)
    return {n for n, on in state.items() if not on}
