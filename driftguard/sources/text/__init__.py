"""The regex reader, for ``pattern`` selectors and files no parser reads."""

from __future__ import annotations

from driftguard.sources.base import no_declaration as declaration
from driftguard.sources.base import no_problems as problems
from driftguard.sources.base import no_symbols as symbol_lines
from driftguard.sources.base import nothing_skipped as skipped
from driftguard.sources.text.mutate import add_member, change_scalar
from driftguard.sources.text.reader import TextTree, compile_pattern, extract, parse

__all__ = [
    "TextTree", "add_member", "change_scalar", "compile_pattern", "declaration", "extract", "parse", "problems",
    "skipped", "symbol_lines",
]
