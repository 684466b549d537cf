"""Suite-wide pytest hooks."""

from __future__ import annotations

#: texts longer than this are compared line by line on failure (pytest's own explanation of two
#: unequal model texts of megabytes is a quadratic diff that ran for over an hour in CI)
LONG_TEXT = 20_000


def _lines(x: str | bytes) -> list:
    return x.splitlines() if isinstance(x, (str, bytes)) else []


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """`a == b` on long texts fails with the first differing line, not a full diff."""
    if op != "==" or type(left) is not type(right) or not isinstance(left, (str, bytes)):
        return None
    if max(len(left), len(right)) <= LONG_TEXT:
        return None
    a, b = _lines(left), _lines(right)
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return [f"long texts differ first at line {k + 1} (of {len(a)} and {len(b)}):",
                    f"left:  {x[:400]!r}", f"right: {y[:400]!r}"]
    return [f"long texts differ in length: {len(a)} and {len(b)} lines "
            f"({len(left)} and {len(right)} characters)"]
