"""Read facts from Go source with tree-sitter-go.

``parse`` always returns a ``GoTree``: tree-sitter recovers from syntax errors.
``extract`` raises ``ParseError`` only where an error range lies on the path
to the fact or may hide a member of it (``syntax`` says exactly when);
everything else in the file is read. Comments are never read.

Only top-level declarations are indexed (once per tree, on first use); a
``call`` argument may also name a const of its enclosing function. Each
selector lives in a module of its own: ``maps`` (``map_keys``), ``calls``
(``call``/``calls``, with ``path:`` through ``keyed``), ``flags``, ``env``,
``fields``, ``cases``, ``lists``; this module holds the tree, ``constants``,
``constant`` and ``string_method``, and dispatches. The evaluation they share
is in ``values``; a fact's ``unwrap`` names conversions every evaluation of it
reads through.

Sets leave out what has no value to compare, and ``skipped`` says what: a
``String`` case that returns no literal (the sentinel ``case lastState:
return fmt.Sprintf(...)``), a ``var`` under ``constants`` whose value cannot
be evaluated (``values`` only, while other members have one), a ``calls``
match whose argument is no literal, and what the other selectors leave out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate
from typing import Any

from tree_sitter import Node, Parser, Tree

from driftguard.config.specs import (
    SELECTOR_KEYS,
    Call,
    Calls,
    Cases,
    Constant,
    Constants,
    Env,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    Selector,
    StringMethod,
    Symbols,
)
from driftguard.model import DriftguardError, FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.base import unsupported
from driftguard.sources.go import calls as go_calls
from driftguard.sources.go import cases as go_cases
from driftguard.sources.go import env as go_env
from driftguard.sources.go import fields as go_fields
from driftguard.sources.go import flags as go_flags
from driftguard.sources.go import lists as go_lists
from driftguard.sources.go import symbols as go_symbols
from driftguard.sources.go.evaluate import Binding, Evaluator
from driftguard.sources.go.index import CASES, LANGUAGE, Index, Spec, ambiguous, build_index, case_returns, type_matches
from driftguard.sources.go.keyed import keyed_constant
from driftguard.sources.go.maps import map_keys
from driftguard.sources.go.syntax import check_hidden, check_path, error_nodes, mentioning, not_found
from driftguard.sources.go.values import NoValue, evaluate, short, value_of
from driftguard.user_regex import Compiled, compile_user_regex, search_each

__all__ = ["CharOffsets", "GoTree", "evaluate", "extract", "parse", "skipped", "value_of"]

IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_KEEP_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)
_BLOCK = 256


class CharOffsets:
    """Character offsets of byte offsets into UTF-8 ``source``, each found in time
    bounded by ``_BLOCK``, not by the length of its line: a byte starts a character
    unless it is a continuation byte, and the continuation bytes before each block
    boundary are counted once, on first use."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.ascii = source.isascii()
        self._before: list[int] | None = None

    def __call__(self, offset: int) -> int:
        """The number of characters in ``source[:offset]``."""
        if self.ascii:
            return offset
        if self._before is None:
            counts = (self._continuations(at, at + _BLOCK) for at in range(0, len(self.source), _BLOCK))
            self._before = list(accumulate(counts, initial=0))
        block = offset // _BLOCK
        return offset - self._before[block] - self._continuations(block * _BLOCK, offset)

    def _continuations(self, start: int, end: int) -> int:
        return len(self.source[start:end].translate(None, _KEEP_CONTINUATION))


class GoTree:
    """A parsed Go file and its lazily built index of top-level declarations."""

    def __init__(self, path: str, source: bytes, tree: Tree) -> None:
        self.path, self.source, self.tree, self.root = path, source, tree, tree.root_node
        self._index: Index | None = None
        self._types: frozenset[str] | None = None
        self._errors: list[Node] | None = None
        self.chars = CharOffsets(source)
        self.unwrap: tuple[str, ...] = ()  # the conversions the selector being read names

    @property
    def index(self) -> Index:
        if self._index is None:
            self._index = build_index(self.root)
        return self._index

    @property
    def errors(self) -> list[Node]:
        """The error ranges (ERROR and MISSING nodes), in source order."""
        if self._errors is None:
            self._errors = error_nodes(self.root)
        return self._errors

    def loc(self, node: Node) -> Location:
        """1-based line and (character) column of ``node``."""
        start, (row, col) = node.start_byte, node.start_point
        return Location(self.path, row + 1, self.chars(start) - self.chars(start - col) + 1)

    def line(self, node: Node) -> int:
        return node.start_point[0] + 1

    def evaluator(self, local: Iterable[Spec] = ()) -> Evaluator:
        """An evaluator resolving names to ``local`` specs first, then the file's."""
        extra: dict[str, list[Spec]] = {}
        for spec in local:
            extra.setdefault(spec.name, []).append(spec)
        by_name = self.index.by_name
        def lookup(n: str) -> list[Binding]:
            return list(extra.get(n) or by_name.get(n, []))
        if self._types is None:
            self._types = frozenset(self.index.types)
        return Evaluator(lookup, self._types, self.unwrap)


def parse(path: str, text: str) -> GoTree:
    source = text.encode("utf-8", errors="replace")
    return GoTree(path, source, Parser(LANGUAGE).parse(source))




def extract(tree: GoTree, selector: Selector, path: str) -> Sequence[Item]:
    handler = HANDLERS.get(type(selector))
    if handler is None:
        raise unsupported("Go", selector, path, [key for key, kind in SELECTOR_KEYS.items() if kind in HANDLERS])
    with _unwrapping(tree, selector):
        return handler(tree, selector)


def skipped(tree: GoTree, selector: Selector, path: str) -> list[str]:
    """What ``extract`` saw and left out, one short note each (``case lastState (line 31):
    returns fmt.Sprintf("invalid state %d", s), not a literal; left out``); nothing where
    the selector leaves nothing out or cannot be read."""
    notes = SKIPPED.get(type(selector))
    if notes is None or isinstance(selector, Constants) and selector.values == "names":
        return []
    try:
        with _unwrapping(tree, selector):
            return notes(tree, selector)
    except DriftguardError:
        return []


@contextmanager
def _unwrapping(tree: GoTree, selector: Selector) -> Iterator[None]:
    """The tree's evaluations read through the conversions ``selector`` names in ``unwrap``."""
    before, tree.unwrap = tree.unwrap, selector.unwrap
    try:
        yield
    finally:
        tree.unwrap = before


# -- selectors --------------------------------------------------------------


def constants(tree: GoTree, sel: Constants) -> list[Item]:
    return _members(tree, sel)[0]


def _members(tree: GoTree, sel: Constants) -> tuple[list[Item], list[str]]:
    """The members ``constants`` yields, and a note for each var left out for having no
    value; a var is a member only with an initializer, and under ``type`` only declared so."""
    pattern = _regex(sel.name, tree.path) if sel.name else None
    kinds = "consts" if sel.type else "consts or vars"
    what = " and ".join(filter(None, [sel.type and f"consts of type {sel.type}",
                                      sel.name and f"{kinds} named /{sel.name}/"]))
    specs = [s for s in tree.index.specs if (s.const or s.expr is not None)
             and (sel.type is None or type_matches(s.type, sel.type))]
    if pattern is not None:  # bounded in time, like every user regex
        hits = search_each(pattern, [s.name for s in specs], Location(tree.path))
        specs = [s for s, hit in zip(specs, hits) if hit]
    if sel.type:
        word = mentioning(sel.type)
    else:
        assert pattern is not None  # a Constants selector has a type or a name
        found = pattern
        def word(b: bytes) -> bool:
            return any(found.search(t.decode()) for t in IDENT.findall(b))
    if not specs:
        raise not_found(tree, what, word)
    decls = list({id(s.decl): s.decl for s in specs}.values())
    check_path(tree, decls, what)
    check_hidden(tree, word, decls, what)
    if sel.values == "names":
        return unique_items(Item(Value.string(s.name), tree.loc(s.node)) for s in specs), []
    return _values(tree, specs, what)


def _values(tree: GoTree, specs: list[Spec], what: str) -> tuple[list[Item], list[str]]:
    """The specs' values; a var without one is left out (noted) while another has one."""
    items: list[Item] = []
    notes: list[str] = []
    first: NoValue | None = None
    for spec in specs:
        try:
            items.append(Item(evaluate(tree, spec, what), tree.loc(spec.node)))
        except NoValue as exc:
            if spec.const:
                raise
            first = first or exc
            notes.append(f"var {spec.name} (line {tree.line(spec.node)}): {exc.reason}; left out")
    if not items and first is not None:
        raise first
    return unique_items(items), notes


def constant(tree: GoTree, sel: Constant) -> list[Item]:
    if sel.keys:
        return keyed_constant(tree, sel)
    what = f"const {sel.name}"
    specs = tree.index.by_name.get(sel.name, [])
    if not specs:
        raise not_found(tree, what, mentioning(sel.name))
    if len(specs) > 1:
        raise ambiguous(tree, what, [s.node for s in specs])
    spec = specs[0]
    check_path(tree, [spec.decl], what)
    return [Item(evaluate(tree, spec, what), tree.loc(spec.node))]


def string_method(tree: GoTree, sel: StringMethod) -> list[Item]:
    items, notes = _string_returns(tree, sel)
    if not items:
        what = f"String method of {sel.type}"
        raise FactNotFound(f"{what} returns no literal string from its switch cases ({'; '.join(notes)})",
                           Location(tree.path))
    return unique_items(items)


def _string_returns(tree: GoTree, sel: StringMethod) -> tuple[list[Item], list[str]]:
    """The strings the cases return, and a note for each case left out for returning
    no literal (a sentinel's ``fmt.Sprintf``)."""
    what = f"String method of {sel.type}"
    methods = [n for name, recv, n in tree.index.funcs if name == "String" and recv == sel.type]
    if not methods:
        name, method = mentioning(sel.type), mentioning("String")
        raise not_found(tree, what, lambda b: name(b) and method(b))
    check_path(tree, methods, what)
    exprs = [e for m in methods for e in case_returns(m.child_by_field_name("body"))]
    if not exprs:
        raise FactNotFound(f"{what} returns no strings from switch cases", tree.loc(methods[0]))
    items: list[Item] = []
    notes: list[str] = []
    for expr in exprs:
        try:
            items.append(Item(value_of(tree, expr, what), tree.loc(expr)))
        except NoValue:
            notes.append(f"{_case_label(expr)} (line {tree.line(expr)}): returns {short(expr)}, "
                         "not a literal; left out")
    return items, notes


def _case_label(expr: Node) -> str:
    """``case lastState`` for a case's return, ``element `x` `` for an array element."""
    node: Node | None = expr
    while node is not None and node.type not in CASES:
        node = node.parent
    if node is None:
        return f"element `{short(expr, 40)}`"
    labels = node.child_by_field_name("value") or node.child_by_field_name("type")
    return f"case {short(labels, 40)}" if labels is not None else "case"


HANDLERS: dict[type, Callable[[GoTree, Any], Sequence[Item]]] = {
    Constants: constants,
    Constant: constant,
    StringMethod: string_method,
    MapKeys: map_keys,
    Call: go_calls.call,
    Calls: go_calls.calls,
    Symbols: lambda tree, _: go_symbols.symbols(tree, tree.path),
    Flags: go_flags.flags,
    Env: go_env.env,
    Fields: go_fields.fields,
    Cases: go_cases.cases,
    ListOf: go_lists.list_of,
}

SKIPPED: dict[type, Callable[[GoTree, Any], list[str]]] = {
    StringMethod: lambda tree, sel: _string_returns(tree, sel)[1],
    Calls: go_calls.left_out,
    Constants: lambda tree, sel: _members(tree, sel)[1],
    Flags: go_flags.left_out,
    Env: go_env.left_out,
    Fields: go_fields.left_out,
    Cases: go_cases.left_out,
    ListOf: go_lists.left_out,
}
"""What each selector leaves out, for ``skipped``."""


def _regex(pattern: str, path: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(path), what="name pattern")
