"""GraphDef tensor references: `"node"`, `"node:2"` and control inputs `"^node"`."""

from __future__ import annotations


def split_input(ref: str) -> tuple[str, int, bool]:
    """`"^a"` -> ("a", -1, True); `"a:2"` -> ("a", 2, False); `"a"` -> ("a", 0, False)."""
    if ref.startswith("^"):
        return ref[1:], -1, True
    name, colon, index = ref.rpartition(":")
    if colon and index.isdigit():
        return name, int(index), False
    return ref, 0, False


def tensor_name(node: str, index: int) -> str:
    """The reference to output `index` of `node` (`node` for output 0)."""
    return node if index == 0 else f"{node}:{index}"
