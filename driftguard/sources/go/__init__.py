"""The Go reader (tree-sitter-go), the whole reader protocol (``driftguard.sources.base``)."""

from __future__ import annotations

from driftguard.sources.go.declaration import declaration
from driftguard.sources.go.mutate import add_member, change_scalar
from driftguard.sources.go.reader import extract, parse, skipped
from driftguard.sources.go.spans import symbol_lines
from driftguard.sources.go.syntax import problems

__all__ = [
    "add_member", "change_scalar", "declaration", "extract", "parse", "problems", "skipped", "symbol_lines",
]
