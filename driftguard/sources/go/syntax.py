"""Syntax errors in a Go tree: where they are, and which facts they may spoil.

tree-sitter-go recovers from what it cannot parse (Go 1.26's ``new(string(out))``
in tree-sitter-go 0.25) with ERROR nodes, which hold the tokens it skipped, and
MISSING nodes, zero-width tokens it inserted. Each of them is an error range.

A fact fails with ``ParseError`` naming the error's line and column when

- an error range lies inside a node it reads (``check_path``: the const block
  of a member, the map literal, the switch, the flag's call chain), or
- an error range within its search scope has a context that mentions what the
  selector looks for (``check_hidden``): the skipped tokens may hold a member.
  The context of an error is the statement, spec or element holding it, with
  the neighbours that share its first or last line (``fs.String`` before an
  ERROR ``("hidden", "", ")``).

Everything else is read: an error in an unrelated function does not fail a fact.
A file whose package clause did not parse has nothing readable, and every fact
of it fails (``not_found``). ``problems`` lists every error range, one line each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.model import FactNotFound, Location, ParseError
from driftguard.sources.go.evaluate import fold

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

Mentions = Callable[[bytes], bool]

_CONTAINERS = frozenset({
    "source_file", "statement_list", "block", "literal_value", "field_declaration_list", "const_declaration",
    "var_declaration", "var_spec_list", "import_spec_list", "type_declaration", "interface_type",
    "expression_switch_statement", "type_switch_statement", "select_statement",
})


def error_nodes(root: Node) -> list[Node]:
    """The error ranges of a tree, in source order: ERROR nodes (not those inside
    another) and MISSING nodes."""
    out: list[Node] = []
    stack = [root] if root.has_error or root.is_error or root.is_missing else []
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            out.append(node)
            continue
        stack += [c for c in reversed(node.children) if c.has_error or c.is_error or c.is_missing]
    return out


def problems(tree: GoTree, path: str) -> list[tuple[int, str]]:
    """Each error range as ``(line, what)``: ``(8, "`string` does not parse")``, ``(4, "missing `)`")``."""
    return [(tree.line(bad), _detail(bad)) for bad in tree.errors]


def _detail(bad: Node) -> str:
    return f"missing `{bad.type}`" if bad.is_missing else f"`{_snippet(bad)}` does not parse"


def _snippet(bad: Node) -> str:
    return (fold((bad.text or b"")[:80]) or bad.type)[:40]


def first_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node in ``node``, or None."""
    if not (node.has_error or node.is_error or node.is_missing):
        return None
    while not (node.is_error or node.is_missing):
        nxt = next((c for c in node.children if c.has_error or c.is_error or c.is_missing), None)
        if nxt is None:
            return node
        node = nxt
    return node


def parse_error(tree: GoTree, bad: Node, what: str) -> ParseError:
    detail = f"missing `{bad.type}`" if bad.is_missing else f"unexpected `{_snippet(bad)}`"
    loc = tree.loc(bad)
    return ParseError(f"Go syntax error at line {loc.line}, column {loc.column} ({detail}) "
                      f"on the path to {what}", loc)


def check_path(tree: GoTree, nodes: Iterable[Node], what: str) -> None:
    """Raise ParseError if a node the fact is read from holds a syntax error."""
    for node in nodes:
        bad = first_error(node)
        if bad is not None:
            raise parse_error(tree, bad, what)


def check_hidden(tree: GoTree, mentions: Mentions, seen: Iterable[Node], what: str,
                 scopes: Iterable[Node] | None = None) -> None:
    """Raise ParseError for an error range (inside ``scopes``, by default the file) whose
    context mentions what the selector looks for: it may hide a member. Ranges inside
    the ``seen`` nodes were checked already."""
    read = [(n.start_byte, n.end_byte) for n in seen]
    within = None if scopes is None else [(n.start_byte, n.end_byte) for n in scopes]
    for bad in tree.errors:
        at = bad.start_byte
        if any(a <= at < b for a, b in read):
            continue
        if within is not None and not any(a <= at <= b for a, b in within):
            continue
        start, end = context(bad)
        if mentions(tree.source[start:end]):
            raise parse_error(tree, bad, what)


def context(bad: Node) -> tuple[int, int]:
    """The byte range of the statement, spec or element holding ``bad``, with the
    neighbours that share its first or last line."""
    node = bad
    while node.parent is not None and node.parent.type not in _CONTAINERS:
        node = node.parent
    start, end = node.start_byte, node.end_byte
    before, after = node.prev_named_sibling, node.next_named_sibling
    if before is not None and before.end_point[0] == node.start_point[0]:
        start = before.start_byte
    if after is not None and after.start_point[0] == node.end_point[0]:
        end = after.end_byte
    return start, end


def not_found(tree: GoTree, what: str, mentions: Mentions) -> FactNotFound:
    """FactNotFound for ``what``; raises ParseError instead when a syntax error may
    hide it (its context mentions it), or when the package clause did not parse."""
    if not any(c.type == "package_clause" and not c.has_error for c in tree.root.children):
        bad = first_error(tree.root)
        if bad is not None:
            raise parse_error(tree, bad, what)
    check_hidden(tree, mentions, [], what)
    return FactNotFound(f"no {what} in this file", Location(tree.path))


def mentioning(*words: str) -> Mentions:
    """Whether a text holds one of ``words`` as a whole word."""
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(w.encode()) for w in words if w) + rb")\b")
    return lambda text: pattern.search(text) is not None


def calling(*names: str) -> Mentions:
    """Whether a text calls one of ``names`` (``String(``)."""
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names if n) + rb")\s*\(")
    return lambda text: pattern.search(text) is not None
