"""What the selftest's mutations of TypeScript and JavaScript share: a file with its
tree, where a fact's value is, and edits that are re-parsed and refused when
they add a syntax error the file did not have (``scalars`` changes a value,
``members`` adds a member)."""

from __future__ import annotations

from tree_sitter import Node

from driftguard.model import Location
from driftguard.sources.mutation import (
    CannotApply,
    Edit,
    after_line_at,
    indent_at,
    line_start_at,
    line_starts,
    newline_of,
    offset_of,
)
from driftguard.sources.typescript.errors import bad_nodes
from driftguard.sources.typescript.nodes import STRINGS, text
from driftguard.sources.typescript.tree import TsTree, parse


class TsSource:
    """A TypeScript or JavaScript file as bytes with its syntax tree, and edit helpers."""

    def __init__(self, path: str, text_: str) -> None:
        self.path, self.text = path, text_
        self.tree: TsTree = parse(path, text_)
        self.src, self.root = self.tree.source, self.tree.root
        self.nl = newline_of(text_)
        self._starts = line_starts(text_)

    def node_at(self, loc: Location | None) -> Node:
        """The smallest named node starting at ``loc``."""
        if loc is None or loc.line is None:
            raise CannotApply("the fact's value has no location")
        chars = offset_of(self.text, loc, self._starts)
        at = len(self.text[:chars].encode("utf-8"))
        node = self.root.named_descendant_for_byte_range(at, at)
        if node is None:
            raise CannotApply(f"nothing at {loc}")
        while node.parent is not None and node.start_byte != at and node.parent.start_byte <= at:
            node = node.parent
        return node

    def line(self, at: int) -> int:
        return self.src.count(b"\n", 0, at) + 1

    def line_start(self, at: int) -> int:
        return line_start_at(self.src, at)

    def after_line(self, at: int) -> int:
        return after_line_at(self.src, at)

    def indent(self, node: Node) -> str | None:
        return indent_at(self.src, node.start_byte)

    def edit(self, at: int, end: int, insert: str, what: str, expect: tuple[str, ...] = (),
             line: int | None = None) -> Edit:
        """Replace bytes ``[at, end)`` with ``insert``; refused when the result has more
        syntax errors than the file had."""
        data = self.src[:at] + insert.encode("utf-8") + self.src[end:]
        after = parse(self.path, data.decode("utf-8"))
        if len(bad_nodes(after.root)) > len(bad_nodes(self.root)):
            raise CannotApply(f"the mutated file would not parse ({what})")
        return Edit(data.decode("utf-8"), what, line or self.line(at), expect)

    def after_element(self, element: Node, new: str, what: str, expect: tuple[str, ...]) -> Edit:
        """``new`` added after ``element`` of a comma-separated list, on a line of its own
        when the elements are laid out one a line."""
        close = element.parent.children[-1] if element.parent is not None and element.parent.children else None
        gap = self.src[element.end_byte:close.start_byte if close is not None else len(self.src)]
        comma = gap.lstrip().startswith(b",")
        indent = self.indent(element)
        own_line = indent is not None and close is not None and self.line(close.start_byte) > self.line(
            element.end_byte)
        if comma:
            at = element.end_byte + gap.index(b",") + 1
            if own_line:
                at = self.after_line(at)
                return self.edit(at, at, f"{indent}{new},{self.nl}", what, expect)
            return self.edit(at, at, f" {new},", what, expect)
        if own_line:
            return self.edit(element.end_byte, element.end_byte, f",{self.nl}{indent}{new}", what, expect)
        return self.edit(element.end_byte, element.end_byte, f", {new}", what, expect)


def quoted(like: Node | None, value: str) -> str:
    """``value`` as a string literal quoted as ``like`` is (single quotes by default)."""
    quote = text(like)[:1] if like is not None and like.type in STRINGS else "'"
    return f"{quote}{value}{quote}"


def up(node: Node | None, kinds: frozenset[str] | tuple[str, ...]) -> Node | None:
    while node is not None and node.type not in kinds:
        node = node.parent
    return node
