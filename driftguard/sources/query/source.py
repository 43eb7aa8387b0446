"""A file read by ``query`` facts: its text, parsed lazily by each grammar a fact names.

``parse`` of the reader protocol does not know the grammar (a ``query`` fact
chooses it, not the file's extension), so the tree the engine keeps per file
is a ``QuerySource`` that parses on the first ``tree(grammar)`` and keeps the
result. Offsets are converted here only: tree-sitter counts bytes of the
UTF-8 text, driftguard counts characters and lines (``driftguard.text``).

Parts the parser could not read are ``Broken`` ranges: an ERROR node's bytes,
or the point where the parser assumed a MISSING token.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftguard.model import Location
from driftguard.sources.query.grammars import Grammar, load
from driftguard.text import line_at, line_starts

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

_WIDE = re.compile(r"[^\x00-\x7f]")
_SPACE = re.compile(r"\s+")
QUOTE = 40
"""At most this many characters of a broken part are quoted."""


@dataclass(frozen=True)
class Broken:
    """A part of the file that does not parse: bytes ``[start, end)`` (``start == end``
    for a missing token), reported at ``line``."""

    start: int
    end: int
    line: int
    what: str  # "`fn (` does not parse", "missing `;`"

    def overlaps(self, start: int, end: int) -> bool:
        """Whether bytes ``[start, end)`` touch this part: an ERROR range that overlaps
        or adjoins them (``Fa$st`` reads ``Fa`` beside the error ``$st``), or a missing
        token strictly inside them (a ``;`` missing after a value leaves the value whole)."""
        if self.start == self.end:
            return start < self.start < end
        return self.start <= end and start <= self.end


class QuerySource:
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.data = text.encode("utf-8", "replace")  # a lone surrogate becomes one byte, "?"
        self._trees: dict[str, Tree] = {}
        self._broken: dict[str, list[Broken]] = {}
        self._starts: list[int] | None = None
        wide = [m.start() for m in _WIDE.finditer(text)] if len(self.data) != len(text) else []
        self._wide_bytes: list[int] = []  # the byte offset just after each multi-byte character
        self._extra: list[int] = []  # bytes beyond one per character, up to and including it
        extra = 0
        for at in wide:
            extra += len(text[at].encode("utf-8", "replace")) - 1
            self._wide_bytes.append(at + extra + 1)
            self._extra.append(extra)
        self.results: dict[object, object] = {}  # what the reader computed from this file, by key

    def tree(self, grammar: Grammar) -> Tree:
        """The file parsed by ``grammar``, once."""
        found = self._trees.get(grammar.name)
        if found is None:
            from tree_sitter import Parser

            found = self._trees[grammar.name] = Parser(load(grammar, self.path)).parse(self.data)
        return found

    def parsed(self) -> list[str]:
        """The names of the grammars this file was parsed with so far."""
        return list(self._trees)

    def char(self, byte: int) -> int:
        """The character offset of byte offset ``byte``."""
        if not self._wide_bytes:
            return byte
        index = bisect.bisect_right(self._wide_bytes, byte)
        return byte - (self._extra[index - 1] if index else 0)

    def location(self, byte: int) -> Location:
        at = self.char(byte)
        if self._starts is None:
            self._starts = line_starts(self.text)
        line = line_at(self._starts, at)
        return Location(self.path, line, at - self._starts[line - 1] + 1)

    def node_text(self, node: Node) -> str:
        return self.text[self.char(node.start_byte):self.char(node.end_byte)]

    def broken(self, grammar: Grammar) -> list[Broken]:
        """The parts of the file ``grammar`` could not read, in file order."""
        found = self._broken.get(grammar.name)
        if found is None:
            found = self._broken[grammar.name] = self._find_broken(self.tree(grammar).root_node)
        return found

    def _find_broken(self, root: Node) -> list[Broken]:
        out: list[Broken] = []
        pending = [root] if root.has_error else []
        while pending:
            node = pending.pop()
            if node.is_missing:
                what = f"missing `{node.type}`" if node.type else "a missing token"
                out.append(Broken(node.start_byte, node.start_byte, self.location(node.start_byte).line or 1, what))
            elif node.is_error:
                quote = _SPACE.sub(" ", self.node_text(node)).strip()
                shown = quote if len(quote) <= QUOTE else quote[:QUOTE - 3] + "..."
                out.append(Broken(node.start_byte, node.end_byte, self.location(node.start_byte).line or 1,
                                  f"`{shown}` does not parse"))
            else:
                pending += [child for child in reversed(node.children) if child.has_error or child.is_missing]
        return sorted(out, key=lambda b: (b.start, b.end))
