"""Read TypeScript, TSX and JavaScript with tree-sitter.

``.ts``/``.mts``/``.cts`` are parsed as TypeScript, ``.tsx`` as TSX, and
``.js``/``.jsx``/``.mjs``/``.cjs`` as JavaScript (whose grammar includes JSX).
The reader reads only the ``symbols`` selector; any other selector is a
config error naming the file and what the reader reads. A ``pattern`` selector
never reaches it: the text reader serves it for any file.

``parse`` never fails: tree-sitter recovers from a syntax error with ERROR and
MISSING nodes and the tree is returned as it is. Symbols are best-effort: a
declaration before, after or around a broken region is read as tree-sitter
recovered it (the children of a top-level ERROR node are read as statements),
and an ERROR node never fails the fact, since a name set read from most of a
file is worth more to a ``references`` rule than no set at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node, Parser, Tree

from driftguard.config.specs import Selector, Symbols
from driftguard.model import Item
from driftguard.sources.base import unsupported
from driftguard.sources.typescript.grammar import Grammar, grammar_of
from driftguard.sources.typescript.symbols import symbols

__all__ = ["TsTree", "extract", "parse"]


class TsTree:
    """A parsed TypeScript or JavaScript file: its UTF-8 source, tree and grammar."""

    def __init__(self, path: str, source: bytes, tree: Tree, grammar: Grammar) -> None:
        self.path, self.source, self.tree, self.root = path, source, tree, tree.root_node
        self.grammar = grammar

    def line(self, node: Node) -> int:
        return node.start_point[0] + 1


def parse(path: str, text: str) -> TsTree:
    source = text.encode("utf-8", errors="replace")
    grammar = grammar_of(path)
    return TsTree(path, source, Parser(grammar.language).parse(source), grammar)


def extract(tree: TsTree, selector: Selector, path: str) -> Sequence[Item]:
    """The items ``selector`` reads from ``tree``: only ``symbols`` is read."""
    if isinstance(selector, Symbols):
        return symbols(tree, path)
    raise unsupported("TypeScript", selector, path, ["symbols"])
