"""Where the selftest writes a new member of a ``query`` fact: beside its list neighbour,
or below the lines of its match (``driftguard.sources.query.mutate``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from driftguard.sources.query.source import QuerySource
from driftguard.text import EOL, line_at, line_number, line_starts, newline_of

if TYPE_CHECKING:
    from tree_sitter import Node

    from driftguard.sources.query.matching import Match

Place = Callable[[str], tuple[str, str, int]]  # the new capture's text -> (new file text, what, line)
SHOWN = 80


def beside_sibling(source: QuerySource, node: Node) -> Place | None:
    """Write a copy of the list element holding ``node`` after it, separated as its
    neighbour is; None when no ancestor of ``node`` has a sibling of its own type."""
    element = node
    while element.parent is not None and _neighbour(element, -1) is None and _neighbour(element, 1) is None:
        element = element.parent
    if element.parent is None:
        return None
    prev, nxt = _neighbour(element, -1), _neighbour(element, 1)
    text = source.text
    a, b = source.char(element.start_byte), source.char(element.end_byte)
    if prev is not None:
        sep, at = _separator(text, source.char(prev.end_byte), a), b
    else:
        assert nxt is not None
        sep, at = _separator(text, b, source.char(nxt.start_byte)), a
    n0, n1 = source.char(node.start_byte), source.char(node.end_byte)

    def place(written: str) -> tuple[str, str, int]:
        copy = text[a:n0] + written + text[n1:b]
        added = sep + copy if prev is not None else copy + sep
        new = text[:at] + added + text[at:]
        first = at + (len(sep) if prev is not None else 0)
        return new, f"added `{_shown(copy)}`", line_number(new, first)

    return place


def _separator(text: str, end: int, start: int) -> str:
    """What separates an element ending at ``end`` from the next starting at ``start``:
    the text between them on one line (``, ``); across lines, the rest of the first line
    (``,`` and its line break) and the next element's indentation, so that comments
    between the two are not copied."""
    between = text[end:start]
    eol = EOL.search(between)
    if eol is None:
        return between
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    indent = text[line_start:start]
    return between[:eol.end()] + (indent if not indent.strip() else "")


def _neighbour(node: Node, step: int) -> Node | None:
    """The nearest named sibling before (-1) or after (1) ``node`` that is not a comment,
    when it has ``node``'s type."""
    sibling = node.prev_named_sibling if step < 0 else node.next_named_sibling
    while sibling is not None and "comment" in sibling.type:
        sibling = sibling.prev_named_sibling if step < 0 else sibling.next_named_sibling
    if sibling is None or sibling.type != node.type or _field(sibling) != _field(node):
        return None  # a pair's key and value are both strings, but no list
    return sibling


def _field(node: Node) -> str | None:
    """The field name ``node`` has in its parent (``key``, ``value``), if any."""
    parent = node.parent
    if parent is None:
        return None
    index = next((i for i, child in enumerate(parent.children) if child == node), None)
    return None if index is None else parent.field_name_for_child(index)


def below(source: QuerySource, match: Match, node: Node) -> Place:
    """Copy the whole lines the match spans, the new text in the capture, right after them."""
    text, nl = source.text, newline_of(source.text)
    starts = line_starts(text)
    first, last = line_at(starts, source.char(match.start)), line_at(starts, max(source.char(match.end) - 1, 0))
    start = starts[first - 1]
    end = starts[last] - len(nl) if last < len(starts) else len(text)
    n0, n1 = source.char(node.start_byte), source.char(node.end_byte)

    def place(written: str) -> tuple[str, str, int]:
        copy = text[start:n0] + written + text[n1:end]
        new = text[:end] + nl + copy + text[end:]
        return new, f"added `{_shown(copy)}`", last + 1

    return place


def _shown(text: str) -> str:
    folded = " ".join(text.split())
    return folded if len(folded) <= SHOWN else folded[:SHOWN - 3] + "..."
