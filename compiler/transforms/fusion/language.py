"""The fusion-rule language: parse rule files (lark) into checked `Rule` objects.

A rule file holds `see_through` declarations and rules:

    # ops that forward their operands and run no kernel: the matcher looks through them
    see_through Identity, IdentityN, StopGradient

    rule AABiasaddConvFusion priority 200 group GraphFusion {
      match {
        c = Conv2D | FusedConv2D (x, w, b0?)        # b0? : an optional operand (bound to none)
        y = BiasAdd(c, b)
      }
      require act(c) == "none"
      require y.data_format == c.data_format
      require per_channel(b, channels(c))
      replace {
        FusedConv2D(x, w, add_bias(b0, b, channels(c))) { *c, activation = act(c) }
      }
    }

Match: a DAG of named nodes over cann ops (names without a dialect are cann ops; `A | B` is
either).  An operand is a variable: a node name (that node's op must produce it), or a leaf
(any value; the same leaf name twice = a shared operand), `_` (anything), `v?` (optional: the
op may lack it).  The last node is the root; every node must be reachable from it.  Flags:
`commutative` (two operands, either order), `shared` (the node's value may have consumers
outside the match; it is then kept).  By default a non-root node must have no consumer outside
the match: the implicit constraint `no_external_consumer(node)`.

Constraints: `require <expr>`: comparisons (== != < <= > >= in, not in), and/or/not,
arithmetic, `node.attr` (the attribute as a Python value; none if absent), indexing, lists, and
calls of the helpers in `compiler.transforms.fusion.helpers`.

Replacement: one or more `[name =] Op(args) [: type] { attrs }`; args are expressions (a value,
none, or a numpy array from a helper, which becomes a cann.Const); `: v` takes the result type
of value `v` (default: the root's); `*node` copies the node's attributes that the new op has.
The last statement replaces the root.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compiler.ir.diagnostics import CompileError

_GRAMMAR = os.path.join(os.path.dirname(__file__), "grammar.lark")
_PARSER: Any = None


def parser() -> Any:
    """lark's LALR parser of the rule grammar (lark is imported here: a compile whose rule files
    are all pre-parsed, `rule_trees.json`, never imports it)."""
    global _PARSER
    if _PARSER is None:
        from lark import Lark

        with open(_GRAMMAR, encoding="utf-8") as f:
            _PARSER = Lark(f.read(), parser="lalr", propagate_positions=True, maybe_placeholders=True)
    return _PARSER


class RuleSyntaxError(CompileError):
    pass


class Token(str):
    """A token of a parsed rule file: its text, with its grammar terminal and position."""

    __slots__ = ("type", "line", "column")
    type: str
    line: int
    column: int

    def __new__(cls, value: str, type_: str, line: int, column: int) -> Token:
        tok = str.__new__(cls, value)
        tok.type, tok.line, tok.column = type_, line, column
        return tok


class Tree:
    """A node of a parsed rule file: the grammar rule (`data`), its children (a Tree, a Token or
    None: an absent optional part) and, unless it spans no token (`empty`), where it starts
    (line, column, start_pos) and ends (end_pos) in the text.  It is its own `meta` (lark's)."""

    __slots__ = ("data", "children", "empty", "line", "column", "start_pos", "end_pos")

    def __init__(self, data: str, children: list, pos: tuple[int, int, int, int] | None) -> None:
        self.data, self.children = data, children
        self.empty = pos is None
        self.line, self.column, self.start_pos, self.end_pos = pos or (0, 0, 0, 0)

    @property
    def meta(self) -> Tree:
        return self


def grammar_key(text: str) -> str:
    """The key of a rule file's parse: the sha256 of the grammar and the file's text."""
    import hashlib

    with open(_GRAMMAR, "rb") as f:
        grammar = f.read()
    return hashlib.sha256(grammar + b"\0" + text.encode()).hexdigest()


def encode_tree(t: Any) -> Any:
    """lark's parse tree as plain tuples (what `tools/gen_rule_trees.py` writes, as JSON lists,
    and `decode_tree` reads): a token (text, terminal, line, column); a tree (rule, line,
    column, start_pos, end_pos, children), line -1 when it spans no token; None stays None."""
    from lark import Token as LarkToken

    if t is None:
        return None
    if isinstance(t, LarkToken):
        return (str(t), t.type, t.line, t.column)
    m = t.meta
    pos = (-1, 0, 0, 0) if m.empty else (m.line, m.column, m.start_pos, m.end_pos)
    return (str(t.data), *pos, tuple(encode_tree(c) for c in t.children))


def decode_tree(e: Any) -> Any:
    if e is None:
        return None
    if len(e) == 4:
        return Token(*e)
    data, line, column, start, end, children = e
    return Tree(data, [decode_tree(c) for c in children],
                None if line == -1 else (line, column, start, end))


_TREES = os.path.join(os.path.dirname(__file__), "rule_trees.json")
_PARSED: dict[str, Any] | None = None


def _parse_tree(text: str, path: str) -> Tree:
    """The parse of a rule file: the built-in rule files' parses are checked in
    (`rule_trees.json`, written by `python -m tools.gen_rule_trees`, a test keeps it current) and
    found by the key of the grammar and the text; any other text is parsed by lark (the LALR
    parse of the built-in rules would be a third of a small model's compile)."""
    global _PARSED
    if _PARSED is None:
        import json

        with open(_TREES, encoding="utf-8") as f:
            _PARSED = json.load(f)
    pre = _PARSED.get(grammar_key(text))
    if pre is not None:
        return decode_tree(pre)
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        return decode_tree(encode_tree(parser().parse(text)))
    except UnexpectedInput as e:
        line, col = getattr(e, "line", 0), getattr(e, "column", 0)
        if isinstance(e, UnexpectedToken):
            tok = e.token
            what = "end of file" if tok.type == "$END" else f"'{tok}'"
            expected = sorted(x for x in e.expected if not x.startswith("__"))
            msg = f"unexpected {what}"
            if expected:
                msg += f"; expected one of: {', '.join(expected[:8])}"
        elif isinstance(e, UnexpectedCharacters):
            msg = f"unexpected character {text[e.pos_in_stream]!r}" if e.pos_in_stream is not None \
                else "unexpected character"
        elif isinstance(e, UnexpectedEOF):
            msg = "unexpected end of file"
        else:
            msg = str(e).splitlines()[0]
        if line in (None, -1, 0):
            line = text.count("\n") + 1
            col = len(text.rsplit("\n", 1)[-1]) + 1
        raise RuleSyntaxError(f"{path}:{line}:{col}: error: {msg}") from None


@dataclass
class Expr:
    fn: Callable[[dict[str, Any]], Any]
    text: str
    names: tuple[str, ...]  # variables it mentions, in order


@dataclass
class Operand:
    name: str | None  # None: wildcard
    optional: bool = False


@dataclass
class Node:
    name: str
    ops: tuple[str, ...]  # full op names ("cann.Conv2D")
    operands: list[Operand]
    commutative: bool = False
    shared: bool = False
    line: int = 0


@dataclass
class Stmt:
    name: str | None
    op: str
    args: list[Expr]
    result_type: Expr | None
    attrs: list[tuple[str, Expr | None, str | None]]  # (attr, expr) or (None, None, copied node)
    source: str = ""  # file:line:col of the statement: a replacement that does not verify is blamed here


@dataclass
class Constraint:
    expr: Expr
    line: int


@dataclass
class Rule:
    name: str
    priority: int
    group: str
    nodes: list[Node]
    constraints: list[Constraint]
    replacement: list[Stmt]
    source: str  # file:line
    see_through: frozenset[str] = frozenset()

    @property
    def root(self) -> Node:
        return self.nodes[-1]

    def node(self, name: str) -> Node | None:
        for n in self.nodes:
            if n.name == name:
                return n
        return None

    @property
    def root_ops(self) -> tuple[str, ...]:
        return self.root.ops


@dataclass
class RuleFile:
    path: str
    rules: list[Rule] = field(default_factory=list)
    see_through: set[str] = field(default_factory=set)


def _token(x: Token | Tree) -> Token:
    """A tree child the grammar makes a token (a rule's or a node's name)."""
    if not isinstance(x, Token):
        raise TypeError(f"expected a token, got {x}")
    return x


def op_name(name: str) -> str:
    return name if "." in name else f"cann.{name}"


# --- expressions ---------------------------------------------------------------------------

_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


class _Compiler:
    def __init__(self, path: str, text: str, helpers: dict[str, Callable]):
        self.path = path
        self.text = text
        self.helpers = helpers

    def error(self, meta_or_tok, msg: str) -> RuleSyntaxError:
        line = getattr(meta_or_tok, "line", 0)
        col = getattr(meta_or_tok, "column", 0)
        return RuleSyntaxError(f"{self.path}:{line}:{col}: error: {msg}")

    def source_of(self, tree) -> str:
        if isinstance(tree, Token):
            return str(tree)
        m = tree.meta
        if getattr(m, "empty", True):
            return ""
        return " ".join(self.text[m.start_pos:m.end_pos].split())

    def expr(self, tree, scope: set[str]) -> Expr:
        names: list[str] = []
        fn = self._expr(tree, scope, names)
        return Expr(fn, self.source_of(tree), tuple(dict.fromkeys(names)))

    def _expr(self, t, scope: set[str], names: list[str]) -> Callable:
        if isinstance(t, Token):
            raise self.error(t, f"unexpected token {t!r}")
        k = t.data
        c = t.children
        if k == "var":
            name = str(c[0])
            if name in ("none", "true", "false"):
                const = {"none": None, "true": True, "false": False}[name]
                return lambda env: const
            if name not in scope:
                raise self.error(c[0], f"unknown variable '{name}'")
            names.append(name)
            return lambda env: env[name]
        if k == "number":
            s = str(c[0])
            v = float(s) if any(ch in s for ch in ".eE") else int(s)
            return lambda env: v
        if k == "string":
            sv = str(c[0])[1:-1].encode().decode("unicode_escape")
            return lambda env: sv
        if k == "list_":
            parts = [self._expr(x, scope, names) for x in c if x is not None]
            return lambda env: [p(env) for p in parts]
        if k == "or_":
            a, b = (self._expr(x, scope, names) for x in c)
            return lambda env: bool(a(env)) or bool(b(env))
        if k == "and_":
            a, b = (self._expr(x, scope, names) for x in c)
            return lambda env: bool(a(env)) and bool(b(env))
        if k == "not_":
            a = self._expr(c[0], scope, names)
            return lambda env: not a(env)
        if k == "neg":
            a = self._expr(c[0], scope, names)
            return lambda env: -a(env)
        if k == "compare":
            a = self._expr(c[0], scope, names)
            opname = " ".join(str(x) for x in c[1].children)
            b = self._expr(c[2], scope, names)
            if opname == "in":
                return lambda env: _py(a(env)) in _py(b(env))
            if opname == "not in":
                return lambda env: _py(a(env)) not in _py(b(env))
            f = _CMP[opname]
            return lambda env: f(_py(a(env)), _py(b(env)))
        if k == "arith":
            a = self._expr(c[0], scope, names)
            f = _ARITH[str(c[1].children[0])]
            b = self._expr(c[2], scope, names)
            return lambda env: f(a(env), b(env))
        if k == "getattr_":
            from compiler.transforms.fusion.helpers import attr_of

            a = self._expr(c[0], scope, names)
            name = str(c[1])
            return lambda env: attr_of(a(env), name)
        if k == "index":
            a = self._expr(c[0], scope, names)
            i = self._expr(c[1], scope, names)
            return lambda env: a(env)[i(env)]
        if k == "call":
            fname = str(c[0])
            if fname not in self.helpers:
                raise self.error(c[0], f"unknown helper function '{fname}'; known: "
                                        f"{', '.join(sorted(self.helpers))}")
            helper = self.helpers[fname]
            args = [self._expr(x, scope, names) for x in c[1:] if x is not None]
            return lambda env: helper(*(a(env) for a in args))
        raise self.error(t.meta, f"unsupported expression '{k}'")

    # --- rules -------------------------------------------------------------------------------

    def rule(self, t: Tree, see_through: set[str]) -> Rule:
        name_tok = _token(t.children[0])
        priority, group = 0, "GraphFusion"
        nodes: list[Node] = []
        constraints: list[Constraint] = []
        replacement: list[Stmt] = []
        scope: set[str] = set()
        for ch in t.children[1:]:
            if ch.data == "priority":
                priority = int(str(ch.children[0]))
            elif ch.data == "group":
                group = str(ch.children[0])
            elif ch.data == "match_block":
                nodes = self.match_block(ch, scope)
            elif ch.data == "require":
                constraints.append(Constraint(self.expr(ch.children[0], scope), ch.meta.line))
            elif ch.data == "replace_block":
                replacement = self.replace_block(ch, scope, nodes)
        rule = Rule(str(name_tok), priority, group, nodes, constraints, replacement,
                    f"{self.path}:{name_tok.line}", frozenset(see_through))
        self.check_reachable(rule, t)
        return rule

    def match_block(self, t: Tree, scope: set[str]) -> list[Node]:
        nodes: list[Node] = []
        node_names: set[str] = set()
        for nt in t.children:
            name = _token(nt.children[0])
            if str(name) in node_names:
                raise self.error(name, f"node '{name}' is defined twice")
            ops = tuple(op_name(str(x)) for x in nt.children[1].children)
            operands: list[Operand] = []
            commutative = shared = False
            for x in nt.children[2:]:
                if x is None:
                    continue
                if x.data == "var_operand":
                    opt = len(x.children) > 1 and x.children[1] is not None
                    operands.append(Operand(str(x.children[0]), opt))
                elif x.data == "wildcard":
                    operands.append(Operand(None))
                elif x.data == "commutative":
                    commutative = True
                elif x.data == "shared":
                    shared = True
            if commutative and len(operands) != 2:
                raise self.error(name, f"node '{name}': 'commutative' needs exactly two operands")
            for o in operands:
                if o.name is not None and o.name == str(name):
                    raise self.error(name, f"node '{name}' uses itself")
            nodes.append(Node(str(name), ops, operands, commutative, shared, name.line or 0))
            node_names.add(str(name))
        for n in nodes:
            scope.add(n.name)
            for o in n.operands:
                if o.name is not None:
                    scope.add(o.name)
        # a node must be defined before it is used as an operand (the match is a DAG in order)
        seen: set[str] = set()
        for n in nodes:
            for o in n.operands:
                if o.name in node_names and o.name not in seen:
                    raise self.error(t.meta, f"node '{n.name}' uses node '{o.name}' before it is defined")
            seen.add(n.name)
        return nodes

    def replace_block(self, t: Tree, scope: set[str], nodes: list[Node]) -> list[Stmt]:
        stmts: list[Stmt] = []
        node_names = {n.name for n in nodes}
        for st in t.children:
            if st.data == "named_stmt":
                target, newop = st.children
                target = str(target)
            else:
                target, newop = None, st.children[0]
            opname_tok = newop.children[0]
            args: list[Expr] = []
            rtype = None
            attrs: list[tuple[str, Expr | None, str | None]] = []
            for x in newop.children[1:]:
                if x is None:
                    continue
                if isinstance(x, Tree) and x.data == "result_type":
                    rtype = self.expr(x.children[0], scope)
                elif isinstance(x, Tree) and x.data == "attrs":
                    for a in x.children:
                        if a is None:
                            continue
                        if a.data == "attr_set":
                            attrs.append((str(a.children[0]), self.expr(a.children[1], scope), None))
                        else:
                            src = str(a.children[0])
                            if src not in node_names:
                                raise self.error(a.children[0], f"'*{src}': '{src}' is not a match node")
                            attrs.append(("", None, src))
                else:
                    args.append(self.expr(x, scope))
            where = f"{self.path}:{getattr(opname_tok, 'line', 0)}:{getattr(opname_tok, 'column', 0)}"
            stmts.append(Stmt(target, op_name(str(opname_tok)), args, rtype, attrs, where))
            if target is not None:
                if target in scope:
                    raise self.error(st.meta, f"'{target}' is already defined")
                scope.add(target)
        return stmts

    def check_reachable(self, rule: Rule, t: Tree) -> None:
        if not rule.nodes:
            raise self.error(t.meta, f"rule {rule.name}: empty match")
        if not rule.replacement:
            raise self.error(t.meta, f"rule {rule.name}: empty replace block")
        names = {n.name: n for n in rule.nodes}
        seen = set()
        stack = [rule.root.name]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            stack.extend(o.name for o in names[n].operands if o.name in names)
        missing = [n.name for n in rule.nodes if n.name not in seen]
        if missing:
            raise self.error(t.meta, f"rule {rule.name}: node(s) {', '.join(missing)} do not feed "
                                     f"the root '{rule.root.name}'")


def _py(v):
    from compiler.transforms.fusion.helpers import to_py

    return to_py(v)


def parse_rules(text: str, path: str, helpers: dict[str, Callable] | None = None) -> RuleFile:
    """Parse and check a rule file; errors are `path:line:col: error: ...` (RuleSyntaxError)."""
    if helpers is None:
        from compiler.transforms.fusion.helpers import HELPERS

        helpers = HELPERS
    tree = _parse_tree(text, path)
    comp = _Compiler(path, text, helpers)
    out = RuleFile(path)
    see: set[str] = set()
    names: set[str] = set()
    for item in tree.children:
        if item.data == "see_through":
            see.update(op_name(str(x)) for x in item.children)
        else:
            rule = comp.rule(item, see)
            if rule.name in names:
                raise comp.error(item.children[0], f"rule '{rule.name}' is defined twice")
            names.add(rule.name)
            out.rules.append(rule)
    out.see_through = see
    return out


def load_rule_file(path: str, helpers: dict[str, Callable] | None = None) -> RuleFile:
    from compiler.ir.ir_io import read_text

    return parse_rules(read_text(path, "a fusion rule file"), path, helpers)
