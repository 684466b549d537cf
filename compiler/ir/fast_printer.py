"""A faster xDSL Printer for large modules (the .om's model text): the same characters as
xDSL's `Printer` with the custom (declarative assembly) format, byte for byte.

Where the time went in xDSL's printer: every piece of text goes through `print_string`
(a newline count, an encode), every bracket through a `contextmanager`, every list through
`print_list`, every op's attr-dict rebuilds its op definition's dictionaries and a regex
match per key, every operand accessor recomputes the variadic sizes, and every attribute is
printed afresh.  Here:

- Per op class, its `FormatProgram` (the one its `print` method closes over) is compiled once
  into a tuple of steps: each directive the kernel dialects use gets a step that does what its
  `print` does with direct writes (the same `PrintingState` spacing rules); any other directive
  runs its own `print` with the same state, so every format prints exactly.
- Attributes and types print from a memo (they are immutable): see `print_attribute`.
- Attribute-dictionary keys (`print_identifier_or_string_literal`) from a memo by string.
- SSA names in a dict keyed by the value's id (the module is alive while it prints).

Ops without a declarative format (builtin.module, func.func, ...) print through xDSL's own
`print_op`, which calls back into the methods here.  Column bookkeeping is kept only as far
as xDSL's `print_string` keeps it: this printer prints no diagnostics (a printer given op
messages prints every op through xDSL's own path)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import LocationAttr, UnitAttr, UnregisteredOp
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    BuiltinAttribute,
    Data,
    OpaqueSyntaxAttribute,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl.declarative_assembly_format import (
    AttrDictDirective,
    AttributeVariable,
    FormatProgram,
    FunctionalTypeDirective,
    KeywordDirective,
    OperandsDirective,
    OperandVariable,
    OptionalOperandVariable,
    PrintingState,
    PunctuationDirective,
    RegionVariable,
    ResultsDirective,
    ResultVariable,
    TypeDirective,
    VariadicOperandVariable,
    VariadicResultVariable,
    WhitespaceDirective,
)
from xdsl.irdl.operations import (
    AfterVariadicSingleAccessor,
    BaseAccessor,
    BeforeVariadicSingleAccessor,
    UniqueVariadicAccessor,
)
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator

Step = Callable[["FastPrinter", PrintingState, Any], None]

#: attribute class -> 2 a location, 1 a type, 0 another attribute (the memo keys)
_PRINT_KIND: dict[type, int] = {}
#: attribute class -> whether it is a UnitAttr (printed without ` = value` in an attr-dict)
_IS_UNIT: dict[type, bool] = {}


class _OpPlan:
    __slots__ = ("name", "scope", "steps")

    def __init__(self, name: str, scope: bool, steps: tuple[Step, ...]):
        self.name = name
        self.scope = scope
        self.steps = steps


#: op class -> its compiled format, or None (printed by xDSL's print_op)
_PLANS: dict[type, _OpPlan | None] = {}
_UNPLANNED = object()


def _program_of(cls: type[Operation]) -> FormatProgram | None:
    """The FormatProgram `cls.print` runs (xDSL's print_with_format closes over it)."""
    fn = getattr(cls.print, "__func__", cls.print)
    if Operation.print is fn or issubclass(cls, UnregisteredOp):
        return None
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, FormatProgram):
            return value
    return None


def _accessor(cls: type, name: str) -> BaseAccessor | None:
    for klass in cls.__mro__:
        acc = klass.__dict__.get(name)
        if acc is not None:
            return acc if isinstance(acc, BaseAccessor) else None
    return None


def _getter(cls: type, name: str, what: str) -> Callable[[Any], Any]:
    """A function op -> getattr(op, name) for an operand/result/region accessor: xDSL's
    accessors without an attribute-sized segment index the op's tuple (done here with
    tuple.__getitem__: SSAValues' own is a Python method); any other accessor is called."""
    acc = _accessor(cls, name)
    if acc is None:
        return lambda op: getattr(op, name)
    args: Callable[[Any], tuple] = (
        (lambda op: op._operands) if what == "operand" else
        (lambda op: op.results) if what == "result" else (lambda op: op.regions))
    item = tuple.__getitem__
    t = type(acc)
    if t is BeforeVariadicSingleAccessor and what != "region":
        idx = acc.idx
        if what == "operand":
            return lambda op: item(op._operands, idx)
        return lambda op: item(op.results, idx)
    if isinstance(acc, AfterVariadicSingleAccessor) and t is AfterVariadicSingleAccessor:
        back = acc.idx - acc.num_defs
        return lambda op: item(args(op), back)
    if isinstance(acc, UniqueVariadicAccessor) and t is UniqueVariadicAccessor:
        start, rest = acc.idx, acc.num_defs - 1

        def variadic(op) -> tuple:
            a = args(op)
            return item(a, slice(start, start + len(a) - rest))
        return variadic
    index = acc.index
    return lambda op: index(args(op))


def _ws(p: FastPrinter, st: PrintingState) -> None:
    if st.should_emit_space or not st.last_was_punctuation:
        p._write(" ")
    st.should_emit_space = True
    st.last_was_punctuation = False


def _types_getter(cls: type, d) -> Callable[[Any], Any]:
    """inner.get_types, for a typeable directive."""
    t = type(d)
    if t is OperandVariable:
        get = _getter(cls, d.name, "operand")
        return lambda op: (get(op).type,)
    if t is ResultVariable:
        get = _getter(cls, d.name, "result")
        return lambda op: (get(op).type,)
    if t is VariadicOperandVariable:
        get = _getter(cls, d.name, "operand")
        return lambda op: tuple(v.type for v in get(op))
    if t is VariadicResultVariable:
        get = _getter(cls, d.name, "result")
        return lambda op: tuple(v.type for v in get(op))
    if t is OperandsDirective:
        return lambda op: tuple(v.type for v in op._operands)
    if t is ResultsDirective:
        return lambda op: tuple(v.type for v in op.results)
    return d.get_types


def _memo_list(p: FastPrinter, items, memo: dict, print_one) -> None:
    """`items` comma-separated: each by its memoized text (by id), else by `print_one`."""
    write = p._write
    first = True
    for x in items:
        if not first:
            write(", ")
        first = False
        text = memo.get(id(x))
        if text is None:
            print_one(x)
        else:
            write(text)


def _attr_list(p: FastPrinter, attrs) -> None:
    _memo_list(p, attrs, p._attr_text, p.print_attribute)


def _ssa_list(p: FastPrinter, values) -> None:
    _memo_list(p, values, p._names, p.print_ssa_value)


def _attr_entries(p: FastPrinter, items) -> None:
    """`key = value, ...` of an attribute dictionary (a unit attribute prints as its key only),
    as Printer._print_attr_string writes them."""
    write = p._write
    first = True
    for k, v in items:
        if not first:
            write(", ")
        first = False
        write(p.key_text(k))
        cv = type(v)
        unit = _IS_UNIT.get(cv)
        if unit is None:
            unit = _IS_UNIT[cv] = isinstance(v, UnitAttr)
        if not unit:
            write(" = ")
            p.print_attribute(v)


def _attr_dict_step(cls: type, d: AttrDictDirective) -> Step:
    op_def = cls.get_irdl_definition()  # type: ignore[attr-defined]
    expected = frozenset(d.expected_properties)
    reserved = frozenset(d.reserved_attr_names)
    defs = {x: op_def.properties[x] for x in d.expected_properties} | op_def.attributes
    defaults = tuple((n, x.default_value) for n, x in defs.items() if x.default_value is not None)
    keyword = d.with_keyword
    token = object()  #: this directive's part of the printer's memo keys

    def print_dict(p: FastPrinter, dictionary: dict[str, Attribute]) -> None:
        skip = reserved
        if defaults:
            skip = reserved.union(n for n, dv in defaults if dictionary.get(n) == dv)
        items = [kv for kv in dictionary.items() if kv[0] not in skip] if skip else \
            list(dictionary.items())
        if not items:
            return
        write = p._write
        write(" attributes {" if keyword else " {")
        _attr_entries(p, items)
        write("}")

    def step(p: FastPrinter, st: PrintingState, op) -> None:
        attributes = op.attributes
        if expected:
            if not attributes.keys().isdisjoint(expected):
                raise ValueError("Cannot print attributes and properties with the same name "
                                 "in a single dictionary")
            dictionary = attributes | {k: v for k, v in op.properties.items() if k in expected}
        else:
            dictionary = attributes
        if not dictionary:
            return
        # The text is a function of the names and the attributes (by identity: the memo
        # keeps them alive), like an attribute's.
        values = tuple(dictionary.values())
        key = (token, *dictionary, *map(id, values))
        text = p._dict_text.get(key)
        if text is None:
            resources = p._resource_count()
            text = p._captured(lambda: print_dict(p, dictionary))
            if "\n" not in text and resources == p._resource_count():
                p._dict_text[key] = text
                p._keep.append(values)
        if not text:  # nothing printed (every name reserved or at its default)
            return
        p._write(text)
        st.last_was_punctuation = False
        st.should_emit_space = True

    return step


def _punctuation_step(d: PunctuationDirective) -> Step:
    punct = d.punctuation
    after_punct = punct not in (">", ")", "}", "]", ",")
    after_other = punct not in ("<", ">", "(", ")", "{", "}", "[", "]", ",")
    emit_next = punct not in ("<", "(", "{", "[")

    def step(p: FastPrinter, st: PrintingState, op) -> None:
        if st.should_emit_space and (after_punct if st.last_was_punctuation else after_other):
            p._write(" ")
        p._write(punct)
        st.should_emit_space = emit_next
        st.last_was_punctuation = True

    return step


def _keyword_step(d: KeywordDirective) -> Step:
    keyword = d.keyword

    def step(p: FastPrinter, st: PrintingState, op) -> None:
        if st.should_emit_space:
            p._write(" ")
        st.should_emit_space = True
        st.last_was_punctuation = False
        p.print_string(keyword)

    return step


def _whitespace_step(d: WhitespaceDirective) -> Step:
    text = d.whitespace

    def step(p: FastPrinter, st: PrintingState, op) -> None:
        p.print_string(text)
        st.last_was_punctuation = text == ""
        st.should_emit_space = False

    return step


def _step(cls: type, d) -> Step:
    """The step printing directive `d` of cls's format as d.print does."""
    t = type(d)
    if t is OperandVariable:
        get = _getter(cls, d.name, "operand")

        def operand(p: FastPrinter, st: PrintingState, op) -> None:
            _ws(p, st)
            p.print_ssa_value(get(op))
        return operand
    if t is VariadicOperandVariable:
        get = _getter(cls, d.name, "operand")

        def variadic(p: FastPrinter, st: PrintingState, op) -> None:
            values = get(op)
            if not values:
                return
            _ws(p, st)
            _ssa_list(p, values)
        return variadic
    if t is OptionalOperandVariable:
        get = _getter(cls, d.name, "operand")

        def optional(p: FastPrinter, st: PrintingState, op) -> None:
            value = get(op)
            if not value:
                return
            _ws(p, st)
            p.print_ssa_value(value)
        return optional
    if t is OperandsDirective:
        def operands(p: FastPrinter, st: PrintingState, op) -> None:
            values = op._operands
            if values:
                _ws(p, st)
            _ssa_list(p, values)
        return operands
    if t is AttrDictDirective:
        return _attr_dict_step(cls, d)
    if t is PunctuationDirective:
        return _punctuation_step(d)
    if t is KeywordDirective:
        return _keyword_step(d)
    if t is WhitespaceDirective:
        return _whitespace_step(d)
    if t is TypeDirective:
        types_of = _types_getter(cls, d.inner)

        def types(p: FastPrinter, st: PrintingState, op) -> None:
            ts = types_of(op)
            if not ts:
                return
            _ws(p, st)
            _attr_list(p, ts)
        return types
    if t is FunctionalTypeDirective:
        ins = _types_getter(cls, d.operand_typeable_directive)
        outs = _types_getter(cls, d.result_typeable_directive)

        def functional(p: FastPrinter, st: PrintingState, op) -> None:
            _ws(p, st)
            p._write("(")
            _attr_list(p, ins(op))
            p._write(") -> ")
            result_types = outs(op)
            if len(result_types) == 1:
                p.print_attribute(result_types[0])
            else:
                p._write("(")
                _attr_list(p, result_types)
                p._write(")")
        return functional
    if t is RegionVariable:
        get = _getter(cls, d.name, "region")

        def region(p: FastPrinter, st: PrintingState, op) -> None:
            _ws(p, st)
            p.print_region(get(op))
        return region
    if t is AttributeVariable:
        name, default = d.name, d.default_value
        container = "properties" if d.is_property else "attributes"

        def attribute(p: FastPrinter, st: PrintingState, op) -> None:
            attr = getattr(op, container).get(name)
            if attr is None or (default is not None and attr == default):
                return
            _ws(p, st)
            p.print_attribute(attr)
        return attribute
    return d.print  # any other directive prints itself (same printer, same state)


def _plan(cls: type[Operation]) -> _OpPlan | None:
    program = _program_of(cls)
    plan = None
    if program is not None:
        scope = any(isinstance(t, IsolatedFromAbove) for t in cls.traits)
        plan = _OpPlan(cls.name, scope, tuple(_step(cls, d) for d in program.stmts))
    _PLANS[cls] = plan
    return plan


_PLAIN_BYTES = re.compile(rb"[\x20\x21\x23-\x5b\x5d-\x7e]*")
#: byte -> its text in a string literal (Printer.print_bytes_literal's escapes)
_BYTE_TEXT = ["\\\\" if b == 0x5C else f"\\{b:02X}" if b < 0x20 or b > 0x7E or b == 0x22
              else chr(b) for b in range(256)]


#: attribute class -> (builtin, "!" or "#", opaque syntax, spaced opaque, Data, parametrized)
_FORM: dict[type, tuple[bool, str, bool, bool, bool, bool]] = {}


def _form(cls: type) -> tuple[bool, str, bool, bool, bool, bool]:
    form = _FORM[cls] = (issubclass(cls, BuiltinAttribute),
                         "!" if issubclass(cls, TypeAttribute) else "#",
                         issubclass(cls, OpaqueSyntaxAttribute),
                         issubclass(cls, SpacedOpaqueSyntaxAttribute),
                         issubclass(cls, Data), issubclass(cls, ParametrizedAttribute))
    return form


class _Delimited:
    """BasePrinter.delimited without a generator: start, the body, end (not after an
    exception, as there)."""

    __slots__ = ("p", "start", "end")

    def __init__(self, p: FastPrinter, start: str, end: str):
        self.p, self.start, self.end = p, start, end

    def __enter__(self) -> None:
        self.p.print_string(self.start)

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.p.print_string(self.end)


class _InLocation:
    """Printer.in_location without a generator: `loc(` ... `)` unless already inside one."""

    __slots__ = ("p", "outer")

    def __init__(self, p: FastPrinter):
        self.p = p
        self.outer = False

    def __enter__(self) -> None:
        p = self.p
        if not p.printing_location:
            self.outer = True
            p.printing_location = True
            p._write("loc(")

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.outer and exc_type is None:
            self.p._write(")")
            self.p.printing_location = False


class FastPrinter(Printer):
    """xDSL's Printer (custom format), faster: see the module docstring."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Memos keyed by id: `_keep` holds every object keyed, so no other object can take
        # its id while the printer lives.
        self._keep: list[object] = []
        self._attr_text: dict[int, str] = {}  #: id(attribute) -> its text
        self._type_text: dict[Attribute, str] = {}  #: a type by value -> its text
        self._loc_text: dict[int, str] = {}  #: id(location) -> its top-level text
        self._dict_text: dict[tuple, str] = {}  #: an op's attr-dict (see _attr_dict_step)
        self._key_text: dict[str, str] = {}
        self._names: dict[int, str] = {}  #: id(SSA value) -> "%" + its name
        self._fast = not self.print_generic_format and not self.diagnostic.op_messages
        self._spaces: list[str] = []

    # --- text -----------------------------------------------------------------------------

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:
            self.print_content(text, indent=indent)
        else:
            self._current_column += len(text)
            self._write(text)

    def _print_new_line(self, indent: int | None = None, print_message: bool = True) -> None:
        if self._next_line_callback and print_message:
            super()._print_new_line(indent, print_message)
            return
        indent = self._indent if indent is None else indent
        spaces = self._spaces
        while len(spaces) <= indent:
            spaces.append(" " * (len(spaces) * self.indent_num_spaces))
        self._write("\n")
        self._current_line += 1
        self._write(spaces[indent])
        self._current_column = len(spaces[indent])

    def print_bytes_literal(self, bytestring: bytes) -> None:
        # Printer.print_bytes_literal (a byte at a time there): printable ASCII but `"` and
        # `\\` as it is, every other byte by the same escapes
        if _PLAIN_BYTES.fullmatch(bytestring) is not None:
            self._write('"' + bytestring.decode("ascii") + '"')
        else:
            self._write('"' + "".join([_BYTE_TEXT[b] for b in bytestring]) + '"')

    def print_list(self, elems, print_fn, delimiter: str = ", ") -> None:
        first = True
        for elem in elems:
            if not first:
                self.print_string(delimiter)
            first = False
            print_fn(elem)

    def delimited(self, start: str, end: str):
        return _Delimited(self, start, end)

    def in_location(self):
        return _InLocation(self)

    def key_text(self, key: str) -> str:
        """print_identifier_or_string_literal(key)'s text."""
        text = self._key_text.get(key)
        if text is None:
            text = self._key_text[key] = self._captured(
                lambda: Printer.print_identifier_or_string_literal(self, key))
        return text

    def print_identifier_or_string_literal(self, string) -> None:
        self._write(self.key_text(string if isinstance(string, str) else string.data))

    def _captured(self, fn: Callable[[], None]) -> str:
        """Run fn with its output captured; return the text (not written)."""
        write = self._write
        pieces: list[str] = []
        self._write = pieces.append  # type: ignore[method-assign, assignment]
        try:
            fn()
        finally:
            self._write = write  # type: ignore[method-assign]
        return "".join(pieces)

    def _resource_count(self) -> int:
        resources = self._dialect_resources
        return sum(map(len, resources.values())) if resources else 0

    # --- attributes -----------------------------------------------------------------------

    def print_attribute(self, attribute: Attribute) -> None:
        # An attribute is immutable and prints as a function of itself (no SSA names, no
        # position): the text of one printed without a newline or a resource is printed again
        # from the memo.  Every attribute is keyed by identity, types (shapes, element types,
        # formats: ints and names) also by value.
        # A location prints as `loc(...)` at the top and bare inside a fused location (xDSL's
        # in_location state): only a top-level print (every op's own location) is memoized, by
        # identity, apart from other attributes; one inside a fused location is printed afresh.
        text = self._attr_text.get(id(attribute))
        if text is not None:
            self._write(text)
            return
        cls = type(attribute)
        kind = _PRINT_KIND.get(cls)
        if kind is None:  # (isinstance against xDSL's ABC-based attribute classes is slow)
            kind = _PRINT_KIND[cls] = (2 if isinstance(attribute, LocationAttr) else
                                       1 if isinstance(attribute, TypeAttribute) else 0)
        if kind == 2:
            if self.printing_location:
                self._print_fresh(attribute)
                return
            text = self._loc_text.get(id(attribute))
            if text is None:
                text = self._captured(lambda: self._print_fresh(attribute))
                if "\n" not in text:
                    self._loc_text[id(attribute)] = text
                    self._keep.append(attribute)
            self._write(text)
            return
        is_type = kind == 1
        # a type then by value (shared shapes; xDSL does not cache a type's hash)
        if is_type:
            text = self._type_text.get(attribute)
            if text is not None:
                self._attr_text[id(attribute)] = text
                self._keep.append(attribute)
                self._write(text)
                return
        resources = self._resource_count()
        text = self._captured(lambda: self._print_fresh(attribute))
        self._write(text)
        if "\n" not in text and resources == self._resource_count():
            if is_type:
                self._type_text[attribute] = text
            self._attr_text[id(attribute)] = text
            self._keep.append(attribute)

    def _print_fresh(self, attribute: Attribute) -> None:
        """Printer.print_attribute, its isinstance tests (slow: ABCs) done once per class."""
        form = _FORM.get(type(attribute))
        if form is None:
            form = _form(type(attribute))
        builtin, prefix, opaque, spaced, data, param = form
        if builtin:
            attribute.print_builtin(self)  # type: ignore[attr-defined]
            return
        write = self._write
        write(prefix)
        if opaque:
            write(attribute.name.replace(".", "<", 1))
            if spaced:
                write(" ")
        else:
            write(attribute.name)
        if data:
            attribute.print_parameter(self)  # type: ignore[attr-defined]
        elif param:
            attribute.print_parameters(self)  # type: ignore[attr-defined]
        if opaque:
            write(">")

    def print_attr_dict(self, attr_dict) -> None:
        # Printer.print_attr_dict (with _print_attr_string) by direct writes
        self._write("{")
        _attr_entries(self, attr_dict.items())
        self._write("}")

    def _print_location(self, loc: Attribute) -> None:
        """` ` and a top-level location (an op's, a block argument's)."""
        text = self._loc_text.get(id(loc))
        if text is not None and not self.printing_location:
            self._write(" " + text)
        else:
            self._write(" ")
            self.print_attribute(loc)

    # --- values, blocks, regions, ops -----------------------------------------------------

    def print_ssa_value(self, value: SSAValue) -> str:
        # Printer.print_ssa_value, by id (one SSA value is never equal to another; the module
        # keeps its values alive while it prints)
        text = self._names.get(id(value))
        if text is None:
            hint = value.name_hint
            if hint:
                names = self._ssa_names[-1]
                curr = names.get(hint, 0)
                name = f"{hint}_{curr}" if curr != 0 else hint
                names[hint] = curr + 1
            else:
                name = self._get_new_valid_name_id()
            text = self._names[id(value)] = "%" + name
        self._write(text)
        return text[1:]

    def print_block_argument(self, arg: BlockArgument, print_type: bool = True) -> None:
        self.print_ssa_value(arg)
        if print_type:
            self._write(": ")
            self.print_attribute(arg.type)
            if self.print_debuginfo:
                self._print_location(arg.location)

    def print_block(self, block: Block, print_block_args: bool = True,
                    print_block_terminator: bool = True) -> None:
        if print_block_args:
            self._print_new_line()
            if block not in self._blocks:
                self._populate_block_name(block)
            self.print_block_name(block)
            if len(block.args) != 0:
                self._write("(")
                first = True
                for arg in block.args:
                    if not first:
                        self._write(", ")
                    first = False
                    self.print_block_argument(arg)
                self._write(")")
            self._write(":")
        self._indent += 1
        try:
            for op in block.ops:
                if not print_block_terminator and op.has_trait(
                        IsTerminator, value_if_unregistered=False):
                    continue
                self._print_new_line()
                self.print_op(op)
        finally:
            self._indent -= 1

    def print_region(self, region: Region, print_entry_block_args: bool = True,
                     print_empty_block: bool = True, print_block_terminators: bool = True) -> None:
        for block_index, block in enumerate(region.blocks):
            if block not in self._blocks:
                self._populate_block_name(block, block_index)
        self._write("{")
        entry_block = region.blocks.first
        if entry_block is None:
            self._print_new_line()
            self._write("}")
            return
        print_entry_block_args = (
            bool(entry_block.args) and print_entry_block_args
        ) or (not entry_block.ops and print_empty_block)
        self.print_block(entry_block, print_block_args=print_entry_block_args,
                         print_block_terminator=print_block_terminators)
        next_block = entry_block.next_block
        while next_block is not None:
            self.print_block(next_block, print_block_terminator=print_block_terminators)
            next_block = next_block.next_block
        self._print_new_line()
        self._write("}")

    def print_op(self, op: Operation) -> None:
        cls = type(op)
        plan = _PLANS.get(cls, _UNPLANNED)
        if plan is _UNPLANNED:
            plan = _plan(cls)
        if plan is None or not self._fast:
            super().print_op(op)
            return
        assert isinstance(plan, _OpPlan)
        results = op.results
        if results:
            _ssa_list(self, results)
            self._write(" = ")
        if plan.scope:
            self.enter_scope()
        self._write(plan.name)
        st = PrintingState()
        for step in plan.steps:
            step(self, st, op)
        if self.print_debuginfo:
            self._print_location(op.location)
        if plan.scope:
            self.exit_scope()
