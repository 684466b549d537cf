"""Reading and writing textual IR: the context with every dialect, a parser that remembers where
each op stood (for diagnostics), and atomic output (no half-written file on error)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from compiler.diagnostics import CompileError, SourceMap, parse_error_message, verify_module


def make_context() -> Context:
    from dialects.cann import CANN
    from dialects.kernel import KERNEL
    from dialects.tf import TF, TFContext

    ctx = TFContext()  # any tf.<Op> parses: typed, or generic for op types without a class
    for d in (Builtin, Func, TF, CANN, KERNEL):
        ctx.load_dialect(d)
    return ctx


class _RecordingParser(Parser):
    source: SourceMap

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # Constraints checked while parsing a custom form: report them where the op starts.
            raise ParseError(start, str(e).removeprefix("Operation does not verify: ")) from None
        loc = start.get_location()
        self.source.record(op, loc.line, loc.col)
        return op


def _is_blank(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def parse_module(ctx: Context, text: str, filename: str, line_offset: int = 0,
                 verify: bool = True) -> tuple[ModuleOp, SourceMap]:
    """Parse and verify; a ParseError or VerifyException becomes a one-line CompileError."""
    source = SourceMap(filename)
    parser = _RecordingParser(ctx, text, filename)
    parser.source = source
    if _is_blank(text):  # like mlir-opt: an empty input (or chunk) is an empty module
        return ModuleOp([]), source
    try:
        module = parser.parse_module()
    except ParseError as e:
        if line_offset:
            import dataclasses

            e.span = dataclasses.replace(e.span, line_offset=line_offset)
        raise CompileError(parse_error_message(e, filename)) from None
    if line_offset:
        source.positions = {k: (l + line_offset, c) for k, (l, c) in source.positions.items()}
    if verify:
        verify_module(module, source)
    return module, source


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise CompileError(f"{path}: error: no such file") from None
    except IsADirectoryError:
        raise CompileError(f"{path}: error: is a directory, expected a file") from None
    except UnicodeDecodeError:
        raise CompileError(f"{path}: error: not a text file (expected textual IR)") from None
    except OSError as e:
        raise CompileError(f"{path}: error: cannot read: {e.strerror}") from None


def load_module(path: str) -> tuple[ModuleOp, SourceMap]:
    return parse_module(make_context(), read_text(path), path)


def module_to_text(module: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    out.write("\n")
    return out.getvalue()


def write_atomically(path: str | None, produce: Callable[[], str | bytes]) -> None:
    """Write produce()'s result to `path` (stdout if None) only once it fully succeeded."""
    data = produce()
    if path is None or path == "-":
        import sys

        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    except OSError as e:
        raise CompileError(f"{path}: error: cannot write: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600: give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
