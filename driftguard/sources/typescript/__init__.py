"""The TypeScript and JavaScript reader (tree-sitter-typescript, tree-sitter-javascript),
the whole reader protocol (``driftguard.sources.base``)."""

from __future__ import annotations

from driftguard.sources.typescript.errors import problems
from driftguard.sources.typescript.members import add_member
from driftguard.sources.typescript.reader import declaration, extract, parse, skipped
from driftguard.sources.typescript.scalars import change_scalar
from driftguard.sources.typescript.spans import symbol_lines

__all__ = [
    "add_member", "change_scalar", "declaration", "extract", "parse", "problems", "skipped", "symbol_lines",
]
