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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import Any

from tree_sitter import Node, Parser, Tree

from driftguard.config.specs import Call, Constant, Constants, MapKeys, Selector, StringMethod
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.go.evaluate import Binding, Evaluator, Unevaluable, fold, named
from driftguard.sources.go.index import (
    LANGUAGE,
    Index,
    Spec,
    ambiguous,
    build_index,
    case_returns,
    check_hidden,
    check_path,
    const_specs,
    local_maps,
    map_key,
    map_keys_of,
    nodes_of,
    not_found,
    text,
    type_matches,
)
from driftguard.user_regex import Compiled, compile_user_regex, search_each

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


def extract(tree: GoTree, selector: Selector, path: str) -> list[Item]:
    handler = HANDLERS.get(type(selector))
    if handler is None:
        raise FactNotFound(f"the Go reader cannot read a {type(selector).__name__} selector", Location(path))
    return handler(tree, selector)


# -- selectors --------------------------------------------------------------


def constants(tree: GoTree, sel: Constants) -> list[Item]:
    pattern = _regex(sel.name, tree.path) if sel.name else None
    what = " and ".join(filter(None, [sel.type and f"consts of type {sel.type}",
                                      sel.name and f"consts named /{sel.name}/"]))
    specs = [s for s in tree.index.specs if s.const and (sel.type is None or type_matches(s.type, sel.type))]
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
    names = sel.values == "names"
    return unique_items(Item(Value.string(s.name) if names else evaluate(tree, s, what), tree.loc(s.node))
                   for s in specs)


def constant(tree: GoTree, sel: Constant) -> list[Item]:
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
    what = f"String method of {sel.type}"
    methods = [n for name, recv, n in tree.index.funcs if name == "String" and recv == sel.type]
    if not methods:
        raise not_found(tree, what)
    check_path(tree, methods, what)
    exprs = [e for m in methods for e in case_returns(m.child_by_field_name("body"))]
    if not exprs:
        raise FactNotFound(f"{what} returns no strings from switch cases", tree.loc(methods[0]))
    return unique_items(Item(value_of(tree, e, what), tree.loc(e)) for e in exprs)


def map_keys(tree: GoTree, sel: MapKeys) -> list[Item]:
    what = f"map literal bound to {sel.name}"
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


def call(tree: GoTree, sel: Call) -> list[Item]:
    what = _describe_call(sel)
    scopes = [tree.root]
    if sel.within:
        scopes = [n for name, recv, n in tree.index.funcs if _within(sel.within, name, recv)]
        if not scopes:
            raise not_found(tree, f"function or method {sel.within} (looked for {what})")
        check_path(tree, scopes, what)
    matches = [c for s in scopes for c in nodes_of(s, ("call_expression",)) if _call_matches(c, sel)]
    if not matches:
        raise not_found(tree, what)
    if len(matches) > 1:
        raise ambiguous(tree, what, matches)
    found = matches[0]
    home = _top_level(found)
    if not sel.within:
        check_path(tree, [home], what)
        word = re.compile(rb"\b" + re.escape(sel.function.rsplit(".", 1)[-1].encode()) + rb"\s*\(")
        check_hidden(tree, lambda b: word.search(b) is not None, [home], what)
    arg = named(found.child_by_field_name("arguments"))[sel.arg]
    local = [s for d in nodes_of(home, ("const_declaration",)) for s in const_specs(d)]
    return [Item(value_of(tree, arg, what, local=local), tree.loc(arg))]


HANDLERS: dict[type, Callable[[GoTree, Any], list[Item]]] = {
    Constants: constants,
    Constant: constant,
    StringMethod: string_method,
    MapKeys: map_keys,
    Call: call,
}


# -- evaluation -------------------------------------------------------------


def evaluate(tree: GoTree, spec: Spec, what: str) -> Value:
    """The value of ``spec``; a bare spec's value shows as its canonical form."""
    if spec.expr is None:
        raise FactNotFound(f"{what}: `{spec.name}` has no value", tree.loc(spec.node))
    return value_of(tree, spec.expr, what, spec.iota, "" if spec.inherited else None, name=spec.name)


def value_of(tree: GoTree, node: Node, what: str, iota: int = 0, shown: str | None = None,
             local: Iterable[Spec] = (), name: str = "") -> Value:
    """Evaluate ``node``; what it could not evaluate raises FactNotFound there,
    a syntax error in a const it consulted raises ParseError."""
    ev = tree.evaluator(local)
    try:
        value = ev.value(node, iota, shown, name)
    except Unevaluable as exc:
        check_path(tree, [b.decl for b in ev.consulted], what)
        at = exc.node if exc.node is not None else node
        if at.type == "identifier":  # an unknown name may be hidden by a syntax error
            word = re.compile(rb"\b" + re.escape(at.text or b"") + rb"\b")
            check_hidden(tree, lambda b: word.search(b) is not None, [], what)
        inside = node.start_byte <= at.start_byte < node.end_byte
        elsewhere = "" if inside else f" (line {tree.loc(at).line})"
        raise FactNotFound(f"{what}: cannot evaluate `{fold(node.text)}`: {exc.message}{elsewhere}",
                           tree.loc(at if inside else node)) from None
    check_path(tree, [b.decl for b in ev.consulted], what)
    return value


# -- helpers ----------------------------------------------------------------


def _regex(pattern: str, path: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(path), what="name pattern")


def _within(within: str, name: str, receiver: str | None) -> bool:
    if "." in within:
        type_, method = within.rsplit(".", 1)
        return receiver == type_ and name == method
    return name == within


def _call_matches(node: Node, sel: Call) -> bool:
    fn = node.child_by_field_name("function")
    if fn is None:
        return False
    if fold(fn.text) != sel.function and not (
        fn.type == "selector_expression" and text(fn.child_by_field_name("field")) == sel.function
    ):
        return False
    args = named(node.child_by_field_name("arguments"))
    if len(args) <= sel.arg:
        return False
    return all(n < len(args) and fold(args[n].text) == fold(want.encode()) for n, want in sel.where)


def _top_level(node: Node) -> Node:
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    return node


def _describe_call(sel: Call) -> str:
    parts = [f"call of {sel.function}"]
    if sel.within:
        parts.append(f"within {sel.within}")
    parts += [f"with arg{n} `{want}`" for n, want in sel.where]
    return " ".join(parts) + f" (reading arg{sel.arg})"
