"""User-facing errors: one line each, naming the file and the IR location or TF node.

Every tool catches `CompileError` (and the parse/verify exceptions of xDSL, converted here) at
its top, prints the lines and exits 1; no traceback reaches a user.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException


class CompileError(Exception):
    """One or more diagnostics, each already formatted as `where: error: message`."""

    def __init__(self, messages: str | Iterable[str]):
        self.messages = [messages] if isinstance(messages, str) else list(messages)
        super().__init__("\n".join(self.messages))


def node_name(op: Operation) -> str | None:
    """The TF node name(s) an op came from, read from its location."""
    loc = op.location
    if isinstance(loc, NameLoc):
        return loc.desc.data
    if isinstance(loc, FusedLoc):
        names = []
        for part in loc.locations.data:
            if isinstance(part, NameLoc):
                names.append(part.desc.data)
        return "+".join(names) if names else None
    return None


class OpError(Exception):
    """Raised by passes: one or more (op, message) pairs.  The driver turns each into a line
    naming the file, the op's position (when it was parsed) and the TF node."""

    def __init__(self, items: Iterable[tuple[Operation, str]]):
        self.items = list(items)
        super().__init__("; ".join(m for _, m in self.items))


def op_error(op: Operation, message: str) -> OpError:
    return OpError([(op, message)])


class SourceMap:
    """Where each parsed op stood in its file (filled by `compiler.ir_io.parse_module`)."""

    def __init__(self, filename: str):
        self.filename = filename
        self.positions: dict[int, tuple[int, int]] = {}
        self._keep: list[Operation] = []  # keep ops alive so their ids stay unique

    def record(self, op: Operation, line: int, col: int) -> None:
        self.positions[id(op)] = (line, col)
        self._keep.append(op)

    def where(self, op: Operation) -> str:
        parts = [self.filename]
        pos = self.positions.get(id(op))
        if pos is None and isinstance(op.location, FileLineColLoc):
            pos = (op.location.line.data, op.location.column.data)
        if pos is not None:
            parts.append(f"{pos[0]}:{pos[1]}")
        return ":".join(parts)

    def describe(self, op: Operation, message: str) -> str:
        node = node_name(op)
        suffix = f" [node '{node}']" if node else ""
        return f"{self.where(op)}: error: {message}{suffix}"


def parse_error_message(e: ParseError, filename: str) -> str:
    loc = e.span.get_location()
    return f"{filename}:{loc.line}:{loc.col}: error: {e.msg}"


def verify_module(module: Operation, source: SourceMap) -> None:
    """Verify every op; raise one CompileError listing every op that fails."""
    errors: list[str] = []
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            msg = str(e).removeprefix("Operation does not verify: ")
            errors.append(source.describe(op, msg))
        except Exception as e:  # an attribute accessor failing on malformed IR
            errors.append(source.describe(op, f"{op.name}: {e}"))
    if errors:
        raise CompileError(errors)
