"""What the reader does with a file the grammar cannot fully read, and the errors
every selector raises.

tree-sitter marks what it could not place with ERROR nodes (text it skipped)
and MISSING nodes (a token it supplied, such as a closing brace).
tree-sitter-typescript 0.23 cannot parse ``export type * as ns from 'm'`` (TS
5.0), a bare ``&`` in TSX text or ``f<typeof import('./x')>()`` with no
arguments; such a file is still read:

- ``problems`` lists each of them, ``(line, what)``, for the engine's warnings;
- a fact whose target (the declaration, literal, call or function it is read
  from) holds one, or lies inside an ERROR node, fails with ``ParseError``
  naming the file and the line (``check_path``);
- a set gathered over the whole file (calls, flags, env reads, classes,
  constants by name) fails when a region the parser could not read (from the
  error to the end of its statement) mentions what it looks for outside what
  was read there, since the mention may be a member the error hides
  (``check_hidden``); so does a target that is not found while such a region
  mentions its name (``not_found``). Elsewhere the fact is read from the parts
  that parse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from tree_sitter import Node

from driftguard.model import AmbiguousFact, FactNotFound, Location, ParseError
from driftguard.sources.typescript.nodes import short
from driftguard.sources.typescript.tree import TsTree

_LIMIT = 50
_BLOCKS = frozenset({"program", "statement_block", "class_body", "switch_body", "switch_case", "switch_default",
                     "interface_body", "enum_body", "object_type"})


def problems(tree: TsTree, path: str) -> list[tuple[int, str]]:
    """``(line, what)`` for each part of the file the parser could not read, the
    outermost of nested ones, in source order (at most 50)."""
    return [(tree.line(n), _what(n)) for n in bad_nodes(tree.root)[:_LIMIT]]


def bad_nodes(node: Node) -> list[Node]:
    """The outermost ERROR and MISSING nodes inside ``node``, in source order."""
    out = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.is_error or current.is_missing:
            out.append(current)
        elif current.has_error:
            stack.extend(reversed(current.children))
    return out


def _what(node: Node) -> str:
    if node.is_missing:
        return f"missing `{node.type}`"
    return f"`{short(node, 40) or node.type}` does not parse"


def in_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node inside ``node``, around it, or right after it or
    the entry holding it (``port: 500 +,`` continues into the error), or None."""
    inside = bad_nodes(node)
    if inside:
        return inside[0]
    parent = node.parent
    while parent is not None:
        if parent.is_error:
            return parent
        parent = parent.parent
    for near in (node, node.parent):
        after = near.next_sibling if near is not None else None
        if after is not None and (after.is_error or after.is_missing):
            return after
    return None


def parse_error(tree: TsTree, bad: Node, what: str) -> ParseError:
    loc = tree.loc(bad)
    return ParseError(f"syntax error at line {loc.line}, column {loc.column} ({_what(bad)}) "
                      f"on the path to {what}", loc)


def check_path(tree: TsTree, nodes: Iterable[Node], what: str) -> None:
    """Raise ParseError when a node the fact is read from holds or lies in a syntax error."""
    for node in nodes:
        bad = in_error(node)
        if bad is not None:
            raise parse_error(tree, bad, what)


def check_hidden(tree: TsTree, pattern: re.Pattern[bytes], found: Iterable[Node], what: str,
                 keep: Callable[[bytes], bool] | None = None, within: Node | None = None) -> None:
    """Raise ParseError when a region the parser could not read mentions what the
    selector looks for (``pattern``, narrowed by ``keep``) outside the ``found`` nodes
    it did read there: the mention may be a member the error hides. A region runs from
    the error to the end of the statement holding it, where tree-sitter's recovery
    swallows what follows; ``within`` keeps to the errors inside that node."""
    if not (within or tree.root).has_error:
        return
    covered = [(n.start_byte, n.end_byte) for n in found]
    for start, end, bad in regions(within or tree.root):
        for m in pattern.finditer(tree.source, start, end):
            if (keep is None or keep(m.group())) and not any(a <= m.start() < b for a, b in covered):
                raise parse_error(tree, bad, what)


def regions(node: Node) -> list[tuple[int, int, Node]]:
    """(start, end, error) of each part of ``node`` a syntax error may hide something in."""
    out = []
    for bad in bad_nodes(node):
        statement = bad
        while statement.parent is not None and statement.parent.type not in _BLOCKS and statement != node:
            statement = statement.parent
        out.append((bad.start_byte, min(max(statement.end_byte, bad.end_byte), node.end_byte), bad))
    return out


def word(name: str) -> re.Pattern[bytes]:
    """``name`` (its last dotted part) as a whole word."""
    return re.compile(rb"(?<![\w$])" + re.escape(name.rsplit(".", 1)[-1].encode()) + rb"(?![\w$])")


def not_found(tree: TsTree, what: str, name: str = "") -> FactNotFound:
    """FactNotFound for ``what``; raises ParseError instead when a region the parser
    could not read mentions ``name``, since it may hide the target."""
    if name:
        check_hidden(tree, word(name), [], what)
    return FactNotFound(f"no {what} in this file", Location(tree.path))


def ambiguous(tree: TsTree, what: str, nodes: list[Node]) -> AmbiguousFact:
    lines = ", ".join(str(tree.line(n)) for n in nodes)
    return AmbiguousFact(f"{what} matches {len(nodes)} places (lines {lines}); narrow the selector",
                         tree.loc(nodes[0]))
