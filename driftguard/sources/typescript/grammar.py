"""The three grammars the TypeScript reader parses with, each with its string query
compiled once (a leaf module: the reader and ``symbols`` share it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Query

STRINGS = "[(string) (template_string)] @s"


@dataclass(frozen=True)
class Grammar:
    name: str
    language: Language
    strings: Query  # every quoted and template string, captured as ``s``


def _grammar(name: str, language: object) -> Grammar:
    compiled = Language(language)
    return Grammar(name, compiled, Query(compiled, STRINGS))


TYPESCRIPT = _grammar("TypeScript", tree_sitter_typescript.language_typescript())
TSX = _grammar("TSX", tree_sitter_typescript.language_tsx())
JAVASCRIPT = _grammar("JavaScript", tree_sitter_javascript.language())

GRAMMARS: dict[str, Grammar] = {
    ".ts": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT,
    ".tsx": TSX,
    ".js": JAVASCRIPT, ".jsx": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT,
}
"""File extension -> grammar; the JavaScript grammar includes JSX."""


def grammar_of(path: str) -> Grammar:
    """The grammar ``path`` is parsed with, by its extension; TypeScript for any other."""
    return GRAMMARS.get(PurePosixPath(path).suffix.lower(), TYPESCRIPT)
