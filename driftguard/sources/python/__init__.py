"""The Python reader (libcst), the whole reader protocol (``driftguard.sources.base``)."""

from __future__ import annotations

from driftguard.sources.base import no_problems as problems
from driftguard.sources.python.declaration import declaration
from driftguard.sources.python.mutate import add_member, change_scalar
from driftguard.sources.python.reader import extract, skipped
from driftguard.sources.python.spans import symbol_lines
from driftguard.sources.python.tree import parse

__all__ = [
    "add_member", "change_scalar", "declaration", "extract", "parse", "problems", "skipped", "symbol_lines",
]
