"""The ``query`` reader: any language a tree-sitter grammar package reads, through a
tree-sitter query (``query: {language: rust, query: '(enum_variant name:
(identifier) @value)'}``), the whole reader protocol (``driftguard.sources.base``).

A ``query`` fact chooses its grammar by its ``language``, not by the file's
extension: ``driftguard.sources.reader_name`` sends every ``query`` selector
here under the key ``driftguard.sources.query:<language>``, so the cache keys
its results by that grammar package's version (``grammars.libraries``).
Importing this package imports no parser; tree-sitter and the grammar are
imported when a file is first parsed.
"""

from __future__ import annotations

from driftguard.sources.base import no_declaration as declaration
from driftguard.sources.query.grammars import GRAMMARS, libraries
from driftguard.sources.query.mutate import add_member, change_scalar
from driftguard.sources.query.reader import extract, parse, problems, skipped

__all__ = [
    "GRAMMARS", "add_member", "change_scalar", "declaration", "extract", "libraries", "parse", "problems", "skipped",
]
