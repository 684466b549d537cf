"""Reading and writing textual IR: the context with every dialect, a parser that remembers where
each op stood (for diagnostics), and atomic output (no half-written file on error)."""

from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, FusedLoc, ModuleOp, NameLoc
from xdsl.dialects.func import Func
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer

from compiler.ir.diagnostics import (
    CompileError,
    SourceMap,
    one_line,
    parse_error_message,
    read_bytes,
    tensor_too_large,
    verify_module,
)
from compiler.ir.typed import loc_parts


def make_context() -> Context:
    from dialects.cann import CANN
    from dialects.kernel import KERNEL
    from dialects.tf import TF, TFContext

    ctx = TFContext()  # any tf.<Op> parses: typed, or generic for op types without a class
    for d in (Builtin, Func, TF, CANN, KERNEL):
        ctx.load_dialect(d)
    return ctx


class _Lexer(MLIRLexer):
    """xDSL's lexer with a string-literal pattern that matches in linear time.

    xDSL's `"(?:[^"\\...]+|\\...)*"` nests `+` in `*`: on a literal without its closing quote
    the regex engine tries every way of splitting the characters (2^n; 40 characters do not
    finish).  One character per repetition gives the same language without the ambiguity."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


#: Elements of a dense literal written as text (a splat or a list), which xDSL expands into a
#: Python list before packing it: 2**24 take about a second; hex literals are bytes.
MAX_TEXT_ELEMENTS = 1 << 24


class _RecordingParser(Parser):
    """The parser every tool reads IR with: remembers where each op stood, lexes string
    literals in linear time and refuses dense literals too large to allocate."""

    source: SourceMap

    def __init__(self, ctx: Context, text: str, name: str) -> None:
        # Parser.__init__ with our lexer (it lexes the first token, so it cannot be swapped later)
        super(Parser, self).__init__(ParserState(_Lexer(Input(text, name))), ctx)
        self.ssa_values = dict()
        self.blocks = dict()
        self.forward_block_references = defaultdict(list)
        self.forward_ssa_references = dict()
        self.op_starts: list = []  # where each op being parsed starts, innermost last

    def _parse_dense_literal_type(self):
        start = self._current_token.span
        typ = super()._parse_dense_literal_type()
        self._check_dense_size(typ, start)
        return typ

    def parse_dense_int_or_fp_elements_attr(self, type):
        self._text_literal = False
        if type is not None:
            self._check_dense_size(type, self._current_token.span)
        return super().parse_dense_int_or_fp_elements_attr(type)

    def _parse_tensor_literal(self):
        self._text_literal = True  # a splat or a list: xDSL expands it to a Python list
        return super()._parse_tensor_literal()

    def _check_dense_size(self, typ, span) -> None:
        elt = getattr(typ, "element_type", None)
        bits = getattr(elt, "bitwidth", None) or getattr(getattr(elt, "element_type", None),
                                                         "bitwidth", 64) * 2
        shape = typ.get_shape()
        why = tensor_too_large(shape, max(int(bits) // 8, 1))
        count = 1
        for d in shape:
            count *= max(d, 0)
        if why is None and getattr(self, "_text_literal", False) and count > MAX_TEXT_ELEMENTS:
            why = (f"{count} elements written as a splat or a list (at most {MAX_TEXT_ELEMENTS}: "
                   "xDSL builds a Python list of them); write large constants as hex")
        if why is not None:
            raise ParseError(span, f"dense literal too large: {why}")

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        self.op_starts.append(start)
        try:
            op = super().parse_operation()
        except VerifyException as e:
            # Constraints checked while parsing a custom form: report them where the op starts.
            raise ParseError(start, str(e).removeprefix("Operation does not verify: ")) from None
        self.op_starts.pop()
        loc = start.get_location()
        self.source.record(op, loc.line, loc.col)
        return op


def _is_blank(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("//") for line in text.splitlines())


def parse_module(ctx: Context, text: str, filename: str, line_offset: int = 0,
                 verify: bool = True) -> tuple[ModuleOp, SourceMap]:
    """Parse and verify; a ParseError or VerifyException becomes a one-line CompileError."""
    source = SourceMap(filename)
    if _is_blank(text):  # like mlir-opt: an empty input (or chunk) is an empty module
        return ModuleOp([]), source
    parser = None
    try:
        parser = _RecordingParser(ctx, text, filename)
        parser.source = source
        module = parser.parse_module()
    except ParseError as e:
        if line_offset:
            import dataclasses

            e.span = dataclasses.replace(e.span, line_offset=line_offset)
        raise CompileError(parse_error_message(e, filename)) from None
    except (VerifyException, ValueError, AssertionError, TypeError, KeyError, IndexError,
            OverflowError, MemoryError, RecursionError) as e:
        # xDSL's attribute builders reject some literals by raising, not with a ParseError
        # (an integer out of its type's range, a complex dense literal): report them where
        # the parser stood.
        where = filename
        if parser is not None:
            span = parser.op_starts[-1] if parser.op_starts else parser._current_token.span
            loc = span.get_location()
            where = f"{filename}:{loc.line + line_offset}:{loc.col}"
        msg = one_line(str(e).removeprefix("Operation does not verify: ")) or type(e).__name__
        if isinstance(e, MemoryError):
            msg = "out of memory while parsing (a tensor too large?)"
        elif isinstance(e, RecursionError):
            msg = "nested too deeply"
        elif isinstance(e, AssertionError) and not str(e).strip():
            msg = "malformed literal"
        raise CompileError(f"{where}: error: {msg}") from None
    if line_offset:
        source.positions = {k: (l + line_offset, c) for k, (l, c) in source.positions.items()}
    if verify:
        verify_module(module, source)
    return module, source


def read_text(path: str, what: str = "textual IR") -> str:
    """A UTF-8 text file; any failure is one line naming the file (a byte that is not UTF-8:
    with its line:col)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise CompileError(f"{path}:{line}:{col}: error: not a text file (expected {what}): byte "
                           f"0x{data[e.start]:02x} is not UTF-8") from None


def load_module(path: str) -> tuple[ModuleOp, SourceMap]:
    return parse_module(make_context(), read_text(path), path)


def _named(loc) -> bool:
    """A location that carries a TF node name: `loc("conv1")`, or fused ones holding one."""
    if isinstance(loc, NameLoc):
        return True
    return isinstance(loc, FusedLoc) and any(_named(p) for p in loc_parts(loc))


class _NamesPrinter(Printer):
    """Prints an op's location only when it names TF nodes (the default of the tools: node
    names survive text), never `loc(unknown)` or a block argument's location."""

    def print_op(self, op: Operation) -> None:
        saved = self.print_debuginfo
        self.print_debuginfo = _named(op.location)
        try:
            super().print_op(op)
        finally:
            self.print_debuginfo = saved

    def print_block_argument(self, arg, print_type: bool = True) -> None:
        saved = self.print_debuginfo
        self.print_debuginfo = False
        try:
            super().print_block_argument(arg, print_type)
        finally:
            self.print_debuginfo = saved


def module_to_text(module: Operation, generic: bool = False, debuginfo: bool = False,
                   strip: bool = False) -> str:
    """The module as text.  Locations: by default those naming TF nodes (`loc("conv1")`, fused
    ones), so the names survive a round trip through text; `debuginfo`: every location (as
    mlir-opt's --mlir-print-debuginfo); `strip`: none (--strip-debuginfo)."""
    from io import StringIO

    out = StringIO()
    if strip or debuginfo:
        printer = Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo and not strip)
    else:
        printer = _NamesPrinter(stream=out, print_generic_format=generic)
    printer.print_op(module)
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
