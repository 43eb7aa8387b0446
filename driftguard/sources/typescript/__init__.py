"""The TypeScript and JavaScript reader (tree-sitter-typescript, tree-sitter-javascript),
the whole reader protocol (``driftguard.sources.base``); it has no selftest mutator yet."""

from __future__ import annotations

from driftguard.sources.base import no_declaration as declaration
from driftguard.sources.base import no_member as add_member
from driftguard.sources.base import no_problems as problems
from driftguard.sources.base import no_scalar as change_scalar
from driftguard.sources.base import nothing_skipped as skipped
from driftguard.sources.typescript.reader import extract, parse
from driftguard.sources.typescript.spans import symbol_lines

__all__ = [
    "add_member", "change_scalar", "declaration", "extract", "parse", "problems", "skipped", "symbol_lines",
]
