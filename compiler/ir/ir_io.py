"""Reading and writing textual IR: the context with every dialect, a parser that remembers where
each op stood (for diagnostics), and atomic output (no half-written file on error)."""

from __future__ import annotations

import os
import re
import tempfile
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, FusedLoc, ModuleOp, NameLoc
from xdsl.dialects.func import Func
from xdsl.ir import Attribute, Operation
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


#: what `_extent` skips to: brackets, `->` (not a closing `>`), string literals and commas
_BRACKETS = re.compile(r'->|[<>()\[\]{}",]')
_OPEN = frozenset("<([{")
#: the longest text remembered (a region's braces are not an attribute: do not scan them)
_MAX_MEMO_TEXT = 1 << 14


def _extent(text: str, pos: int, limit: int, entry: bool = False) -> int | None:
    """Where the bracket at `pos` is closed (nesting counted over all four kinds, string
    literals skipped), or None if not before `limit`.  `entry`: where the attribute-dict
    entry starting at `pos` ends instead: before the first comma or closing bracket outside
    brackets, trailing blanks excluded."""
    depth = 0
    search = _BRACKETS.search
    while True:
        m = search(text, pos, limit)
        if m is None:
            return None
        c = m.group()
        if c == '"':
            lit = _Lexer._unescaped_characters_regex.match(text, m.start(), limit)
            if lit is None:
                return None
            pos = lit.end()
            continue
        pos = m.end()
        if c == "->" or (c == "," and (depth or not entry)):
            continue
        if entry and (depth == 0 and (c == "," or c not in _OPEN)):
            end = m.start()
            while end > 0 and text[end - 1] in " \t\n":
                end -= 1
            return end
        depth += 1 if c in _OPEN else -1
        if depth == 0 and not entry:
            return pos
        if depth < 0:
            return None


def _named_extent(text: str, start: int, token_end: int) -> int | None:
    """A name (the token ending at `token_end`) followed by its bracketed parameters: `memref<...>`,
    `!d.t<...>`, `#d.a<...>`, `loc(...)`."""
    if token_end < len(text) and text[token_end] in "<(" and text[start] not in "{[<(":
        return _extent(text, token_end, start + _MAX_MEMO_TEXT)
    return None


def _dict_extent(text: str, start: int, token_end: int) -> int | None:
    """`{...}`."""
    if start < len(text) and text[start] == "{":
        return _extent(text, start, start + _MAX_MEMO_TEXT)
    return None


def _attribute_extent(text: str, start: int, token_end: int) -> int | None:
    """A named unit, `{...}` or `[...]`, not followed by `:` (a typed literal such as
    `dense<...> : tensor<...>` goes on)."""
    if start < len(text) and text[start] in "{[":
        end = _extent(text, start, start + _MAX_MEMO_TEXT)
    else:
        end = _named_extent(text, start, token_end)
    if end is None:
        return None
    rest = end
    while rest < len(text) and text[rest] in " \t\n":
        rest += 1
    return None if text.startswith(":", rest) else end


def _entry_extent(text: str, start: int, token_end: int) -> int | None:
    """An attribute-dict entry, `name = value`: up to the `,` or `}` after it."""
    if start >= len(text) or text[start] in "{}[]<>(),":
        return None
    return _extent(text, start, start + _MAX_MEMO_TEXT, entry=True)


#: Elements of a dense literal written as text (a splat or a list), which xDSL expands into a
#: Python list before packing it: 2**24 take about a second; hex literals are bytes.
MAX_TEXT_ELEMENTS = 1 << 24


class _RecordingParser(Parser):
    """The parser every tool reads IR with: remembers where each op stood, lexes string
    literals in linear time and refuses dense literals too large to allocate."""

    source: SourceMap
    memoize = True  # reuse the value of a type or attribute text seen before (`_memoized`)

    def __init__(self, ctx: Context, text: str, name: str) -> None:
        # Parser.__init__ with our lexer (it lexes the first token, so it cannot be swapped later)
        super(Parser, self).__init__(ParserState(_Lexer(Input(text, name))), ctx)
        self.ssa_values = dict()
        self.blocks = dict()
        self.forward_block_references = defaultdict(list)
        self.forward_ssa_references = dict()
        self.op_starts: list = []  # where each op being parsed starts, innermost last
        self._newlines: tuple[Input, list[int]] | None = None  # an input, its newlines' offsets
        self._types: dict[str, Attribute] = {}  # text -> value (see _memoized)
        self._attrs: dict[str, Attribute] = {}
        self._locs: dict[str, Attribute] = {}
        self._attr_dicts: dict[str, dict[str, Attribute]] = {}
        self._entries: dict[str, tuple[str, Attribute]] = {}

    def line_col(self, span) -> tuple[int, int]:
        """`span.get_location()`'s line and column in O(log lines): xDSL's counts the
        newlines from the start of the text at every call (quadratic over a module's ops)."""
        if self._newlines is None or self._newlines[0] is not span.input:
            text = span.input.content
            self._newlines = (span.input, [m.start() for m in re.finditer("\n", text)])
        nl = self._newlines[1]
        k = bisect_right(nl, span.start - 1)  # newlines before the span's first character
        line_start = nl[k - 1] + 1 if k else 0
        return k + 1 + span.line_offset, span.start - line_start + 1

    # --- memoized attributes and types ---------------------------------------------------
    # A module's text repeats the same types and attributes (every kernel's memrefs, its
    # #kernel.space, its tiling dictionaries, `loc(unknown)`): each distinct text is parsed
    # once and later occurrences reuse the (immutable) result.  A text is a key only when it
    # is one bracketed unit (`name<...>`, `#name<...>`, `{...}`, `[...]`, `loc(...)`, found by
    # `_extent`) that the parser consumed exactly, so the same characters give the same value
    # and the same position after them; anything else parses as before (errors included:
    # only texts that parsed are remembered).

    def _memoized(self, memo: dict, parse: Callable, extent: Callable, copy: Callable | None = None):
        """parse(), or the value of the same text parsed before: `extent(text, start,
        token_end)` says where the unit starting at the current token would end."""
        if not self.memoize:
            return parse()
        tok = self._current_token
        text = tok.span.input.content
        start = tok.span.start
        end = extent(text, start, tok.span.end)
        if end is None:
            return parse()
        key = text[start:end]
        hit = memo.get(key)
        if hit is not None:
            self._resume_from(end)
            return copy(hit) if copy else hit
        result = parse()
        nxt = self._current_token.span.start
        if result is not None and (nxt == end or text[end:nxt].isspace()):
            memo[key] = copy(result) if copy else result
        return result

    def parse_optional_type(self):
        return self._memoized(self._types, super().parse_optional_type, _named_extent)

    def parse_optional_attribute(self):
        return self._memoized(self._attrs, super().parse_optional_attribute, _attribute_extent)

    def parse_optional_location(self):
        return self._memoized(self._locs, super().parse_optional_location, _named_extent)

    def parse_optional_attr_dict(self):
        return self._memoized(self._attr_dicts, super().parse_optional_attr_dict, _dict_extent,
                              copy=dict)

    def _parse_attribute_entry(self):
        return self._memoized(self._entries, super()._parse_attribute_entry, _entry_extent)

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
        self.source.record(op, *self.line_col(start))
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
            line, col = parser.line_col(span)
            where = f"{filename}:{line + line_offset}:{col}"
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
