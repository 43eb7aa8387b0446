"""A parsed TypeScript or JavaScript file: its source, tree, grammar, the index of its
top-level declarations (built on first use) and where a node is.

``parse`` never fails: tree-sitter recovers from a syntax error with ERROR and
MISSING nodes and the tree is returned as it is (``errors`` says what a fact may
and may not be read from).
"""

from __future__ import annotations

from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from driftguard.model import Location
from driftguard.sources.typescript.grammar import Grammar, grammar_of
from driftguard.sources.typescript.index import Index, build_index

__all__ = ["TsTree", "parse"]

_QUERIES: dict[tuple[str, str], Query] = {}


class TsTree:
    """A parsed TypeScript or JavaScript file: its UTF-8 source, tree and grammar."""

    def __init__(self, path: str, source: bytes, tree: Tree, grammar: Grammar) -> None:
        self.path, self.source, self.tree, self.root = path, source, tree, tree.root_node
        self.grammar = grammar
        self._index: Index | None = None

    @property
    def index(self) -> Index:
        if self._index is None:
            self._index = build_index(self.root)
        return self._index

    def line(self, node: Node) -> int:
        return node.start_point[0] + 1

    def loc(self, node: Node) -> Location:
        """1-based line and (character) column of ``node``."""
        row, col = node.start_point
        start = node.start_byte
        if col and not self.source[start - col:start].isascii():
            col = len(self.source[start - col:start].decode("utf-8", errors="replace"))
        return Location(self.path, row + 1, col + 1)

    def nodes(self, within: Node, *kinds: str) -> list[Node]:
        """Every node of one of ``kinds`` inside ``within``, in source order (a tree-sitter query)."""
        key = (self.grammar.name, " ".join(kinds))
        query = _QUERIES.get(key)
        if query is None:
            language = self.grammar.language
            known = [k for k in kinds if language.id_for_node_kind(k, True)]
            query = _QUERIES[key] = Query(language, " ".join(f"({k}) @n" for k in known) or "(program) @_")
        found = QueryCursor(query).captures(within).get("n", [])
        return sorted(found, key=lambda n: (n.start_byte, n.end_byte))  # a chain's calls in source order


def parse(path: str, text: str) -> TsTree:
    source = text.encode("utf-8", errors="replace")
    grammar = grammar_of(path)
    return TsTree(path, source, Parser(grammar.language).parse(source), grammar)
