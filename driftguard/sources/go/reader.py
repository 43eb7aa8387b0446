"""Read facts from Go source with tree-sitter-go.

``parse`` always returns a ``GoTree``: tree-sitter recovers from syntax errors.
``extract`` raises ``ParseError`` when an ERROR or MISSING node lies on the
path to the fact: inside a declaration, function or map it reads, in a broken
top-level region that mentions what a set selector looks for (it may hide a
member), or anywhere in the file when nothing matched. Comments are never read.

Only top-level declarations are indexed (once per tree, on first use); a
``call`` argument may also name a const of its enclosing function. Map keys
give a string key's value, an identifier key's name, ``Name`` for a
``pkg.Name`` key, and any other key's value (or its source text).

Sets leave out what has no value to compare, and ``skipped`` says what: a
``String`` case that returns no literal (the sentinel ``case lastState:
return fmt.Sprintf(...)``), a ``var`` under ``constants`` whose value cannot
be evaluated (``values`` only, while other members have one), a ``calls``
match whose argument is no literal. ``call``/``calls`` live in ``calls``, key
paths in ``keyed``, the evaluation they share in ``values``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate
from typing import Any

from tree_sitter import Node, Parser, Tree

from driftguard.config.specs import (
    SELECTOR_KEYS,
    Call,
    Calls,
    Constant,
    Constants,
    MapKeys,
    Selector,
    StringMethod,
    Symbols,
)
from driftguard.model import DriftguardError, FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.base import unsupported
from driftguard.sources.go import calls as go_calls
from driftguard.sources.go import symbols as go_symbols
from driftguard.sources.go.evaluate import Binding, Evaluator
from driftguard.sources.go.index import (
    CASES,
    LANGUAGE,
    Index,
    Spec,
    ambiguous,
    build_index,
    case_returns,
    check_hidden,
    check_path,
    local_maps,
    map_key,
    map_keys_of,
    not_found,
    type_matches,
)
from driftguard.sources.go.keyed import keyed_constant
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
        self.chars = CharOffsets(source)

    @property
    def index(self) -> Index:
        if self._index is None:
            self._index = build_index(self.root)
        return self._index

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
        return Evaluator(lookup, self._types)


def parse(path: str, text: str) -> GoTree:
    source = text.encode("utf-8", errors="replace")
    return GoTree(path, source, Parser(LANGUAGE).parse(source))




def extract(tree: GoTree, selector: Selector, path: str) -> Sequence[Item]:
    handler = HANDLERS.get(type(selector))
    if handler is None:
        raise unsupported("Go", selector, path, [key for key, kind in SELECTOR_KEYS.items() if kind in HANDLERS])
    return handler(tree, selector)


def skipped(tree: GoTree, selector: Selector, path: str) -> list[str]:
    """What ``extract`` saw and left out, one short note each (``case lastState (line 31):
    returns fmt.Sprintf("invalid state %d", s), not a literal; left out``); nothing where
    the selector leaves nothing out or cannot be read."""
    try:
        if isinstance(selector, StringMethod):
            return _string_returns(tree, selector)[1]
        if isinstance(selector, Calls):
            return go_calls.left_out(tree, selector)
        if isinstance(selector, Constants) and selector.values != "names":
            return _members(tree, selector)[1]
    except DriftguardError:
        return []
    return []


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
    if not specs:
        raise not_found(tree, what)
    decls = list({id(s.decl): s.decl for s in specs}.values())
    check_path(tree, decls, what)
    if sel.type:
        word = re.compile(rb"\b" + re.escape(sel.type.encode()) + rb"\b")
        check_hidden(tree, lambda b: word.search(b) is not None, decls, what)
    elif pattern is not None:
        found = pattern
        check_hidden(tree, lambda b: any(found.search(t.decode()) for t in IDENT.findall(b)), decls, what)
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
        raise not_found(tree, what)
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
        raise not_found(tree, what)
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


def map_keys(tree: GoTree, sel: MapKeys) -> list[Item]:
    what = f"map literal bound to {sel.name}"
    if sel.within:
        holder, literal = _local_map(tree, sel, what)
    else:
        found = [(s.decl, s.expr) for s in tree.index.by_name.get(sel.name, [])
                 if not s.const and s.expr is not None and s.expr.type == "composite_literal"]
        if not found:
            found = [b for _, _, fn in tree.index.funcs for b in local_maps(fn, sel.name)]
        if not found:
            raise not_found(tree, what)
        if len(found) > 1:
            raise ambiguous(tree, what, [lit for _, lit in found])
        holder, literal = found[0]
    check_path(tree, [holder], what)
    ev = tree.evaluator()
    keys = []
    for node in map_keys_of(literal):
        try:
            keys.append(map_key(ev, node, sel.resolve))
        except FactNotFound as exc:
            raise FactNotFound(exc.message, exc.location or tree.loc(node)) from None
    if not keys:
        raise FactNotFound(f"{what} has no keys", tree.loc(literal))
    return unique_items(Item(value, tree.loc(node)) for node, value in keys)


def local_map(tree: GoTree, sel: MapKeys) -> tuple[Node, Node] | None:
    """(statement, literal) of the one map ``sel`` reads inside ``sel.within``, or None."""
    try:
        return _local_map(tree, sel, f"map literal bound to {sel.name}")
    except DriftguardError:
        return None


def _local_map(tree: GoTree, sel: MapKeys, what: str) -> tuple[Node, Node]:
    within = sel.within or ""
    scopes = go_calls.scopes_named(tree, within)
    if not scopes:
        raise not_found(tree, f"function or method {within} (looked for the {what})")
    check_path(tree, scopes, what)
    found = [b for fn in scopes for b in local_maps(fn, sel.name)]
    if not found:
        raise FactNotFound(f"no {what} within {within}", tree.loc(scopes[0]))
    if len(found) > 1:
        raise ambiguous(tree, f"{what} within {within}", [lit for _, lit in found])
    return found[0]


HANDLERS: dict[type, Callable[[GoTree, Any], Sequence[Item]]] = {
    Constants: constants,
    Constant: constant,
    StringMethod: string_method,
    MapKeys: map_keys,
    Call: go_calls.call,
    Calls: go_calls.calls,
    Symbols: lambda tree, _: go_symbols.symbols(tree, tree.path),
}


def _regex(pattern: str, path: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(path), what="name pattern")
