"""User-facing errors: one line each, naming the file and the IR location or TF node.

Every tool catches `CompileError` (and the parse/verify exceptions of xDSL, converted here) at
its top, prints the lines and exits 1; no traceback reaches a user.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterable

from xdsl.dialects.builtin import FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException

from compiler.ir.fast_verify import isolation_problems, passes
from compiler.ir.typed import loc_parts

#: The largest tensor (in bytes) any tool allocates for a type, a splat, an .npy file or a
#: constant read from untrusted input (CANN_MAX_TENSOR_BYTES overrides it; default 4 GiB).
MAX_TENSOR_BYTES = int(os.environ.get("CANN_MAX_TENSOR_BYTES", 1 << 32))


def tensor_too_large(shape: Iterable[int], itemsize: int) -> str | None:
    """Why a tensor of `shape` (dynamic dims < 0 count as 1) cannot be allocated, or None."""
    count = 1
    for d in shape:
        count *= max(int(d), 1) if d != 0 else 0
    if count * itemsize > MAX_TENSOR_BYTES:
        dims = "x".join(str(d) for d in shape)
        return (f"a tensor of shape [{dims}] needs {count * itemsize} bytes, more than the limit "
                f"of {MAX_TENSOR_BYTES} (CANN_MAX_TENSOR_BYTES)")
    return None


_OP_DUMP = re.compile(r":\s*\w+\($")  # `...: CubeKernelOp(` followed by the op printed


def read_option_file(path: str, option: str) -> str:
    """The text of the file an ATC option names (`--insert_op_conf`, `--fusion_switch_file`,
    ...); a missing or unreadable file is one CompileError naming the file and the option."""
    if not os.path.isfile(path):
        raise CompileError(f"{path}: error: no such file (--{option})")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise CompileError(f"{path}: error: cannot read --{option} file: {e}") from None


def one_line(message: str) -> str:
    """A diagnostic as one line: a multi-line message (xDSL's verifier prints the op or splits
    'does not verify:' from its reason) is joined, an op printed after it dropped."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        line = lines[0] if lines else message.strip()
    elif _OP_DUMP.search(lines[0]):
        line = _OP_DUMP.sub("", lines[0])
    else:
        line = " ".join(lines)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # shown escaped, never sent to the terminal


class CompileError(Exception):
    """One or more diagnostics, each already formatted as `where: error: message`."""

    def __init__(self, messages: str | Iterable[str]):
        self.messages = [messages] if isinstance(messages, str) else list(messages)
        super().__init__("\n".join(self.messages))


def read_bytes(path: str, expected: str = "a file",
               error: type[CompileError] = CompileError) -> bytes:
    """A file's bytes; a file that cannot be read is one line naming it (`expected`: what a
    directory given in its place should have been)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise error(f"{path}: error: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: error: is a directory, expected {expected}") from None
    except OSError as e:
        raise error(f"{path}: error: cannot read: {e.strerror}") from None


def loc_names(op: Operation) -> list[str]:
    """The TF node names an op came from, in its location's order (one for a NameLoc, each
    named part of a FusedLoc)."""
    loc = op.location
    if isinstance(loc, NameLoc):
        return [loc.desc.data]
    if isinstance(loc, FusedLoc):
        return [part.desc.data for part in loc_parts(loc) if isinstance(part, NameLoc)]
    return []


def node_name(op: Operation) -> str | None:
    """The TF node name(s) an op came from, read from its location."""
    names = loc_names(op)
    return "+".join(names) if names else None


class OpError(Exception):
    """Raised by passes: one or more (op, message) pairs.  The driver turns each into a line
    naming the file, the op's position (when it was parsed) and the TF node."""

    def __init__(self, items: Iterable[tuple[Operation, str]]):
        self.items = list(items)
        super().__init__("; ".join(m for _, m in self.items))


#: new op -> the op it replaced (`record_origin`), so a diagnostic about an op a pass created
#: gives the line:col where the op it came from stood in the parsed file.
_ORIGIN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def record_origin(new: Operation, source: Operation) -> None:
    if new is not source:
        _ORIGIN[new] = source


class SourceMap:
    """Where each parsed op stood in its file (filled by `compiler.ir.ir_io.parse_module`)."""

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
        origin: Operation | None = op
        for _ in range(64):  # an op created by a pass: where the op it replaced stood
            if pos is not None:
                break
            origin = _ORIGIN.get(origin)
            if origin is None:
                break
            pos = self.positions.get(id(origin))
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


def dominance_errors(module: Operation, ops: Iterable[Operation] | None = None
                     ) -> list[tuple[Operation, str]]:
    """Uses of a value before its definition (xDSL's verifier does not check dominance): an
    operand defined later in the same block, by the op itself, or by an op after the ancestor
    of the user in the defining block.  Module bodies are graph regions (no order); uses across
    the blocks of one CFG region are not checked.  `ops`: the module's ops in walk order, when
    the caller has them."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import OpResult

    index: dict[int, int] = {}  # id(op) -> its position in its block
    graph: dict[int, bool] = {}  # id(block) -> whether it is a module body (no order)

    def position(op: Operation) -> int:
        if id(op) not in index:
            block = op.parent_block()
            for i, o in enumerate(block.ops if block is not None else ()):
                index[id(o)] = i
        return index.get(id(op), -1)

    out: list[tuple[Operation, str]] = []
    for op in module.walk() if ops is None else ops:
        for k, v in enumerate(op._operands):  # the operand tuple, not a view
            if type(v) is not OpResult and not isinstance(v, OpResult):
                continue
            d = v.op
            block = d.parent
            if block is None:
                continue
            in_graph = graph.get(id(block))
            if in_graph is None:
                in_graph = graph[id(block)] = isinstance(block.parent_op(), ModuleOp)
            if in_graph:
                continue
            user: Operation | None = op
            while user is not None and user.parent is not block:
                user = user.parent_op()
            if user is None:
                continue
            if user is d:
                what = "itself" if op is d else "the op that encloses the use"
                out.append((op, f"operand #{k} of {op.name} is a result of {what}: a value is used "
                                "before its definition"))
            elif position(d) > position(user):
                out.append((op, f"operand #{k} of {op.name} is defined later ({d.name}): a value is "
                                "used before its definition"))
    return out


def verify_module(module: Operation, source: SourceMap) -> None:
    """Verify every op; raise one CompileError listing every op that fails.  An op the fast
    check (compiler.ir.fast_verify) accepts is one xDSL's verify accepts; any other op is
    verified by xDSL, whose message is reported."""
    ops: list[Operation] = []
    isolated_bad = isolation_problems(module, ops)
    errors: list[str] = [source.describe(op, msg) for op, msg in dominance_errors(module, ops)]
    for op in ops:
        if passes(op) and id(op) not in isolated_bad:
            continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            msg = str(e).removeprefix("Operation does not verify: ")
            errors.append(source.describe(op, msg))
        except Exception as e:  # an attribute accessor failing on malformed IR
            errors.append(source.describe(op, f"{op.name}: {e}"))
    if errors:
        raise CompileError(errors)
