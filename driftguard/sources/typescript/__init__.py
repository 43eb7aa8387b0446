"""The TypeScript and JavaScript reader (tree-sitter-typescript, tree-sitter-javascript):
``parse`` a file, ``extract`` its ``symbols``; it reads no other selector."""

from __future__ import annotations

from driftguard.sources.typescript.reader import extract, parse

__all__ = ["extract", "parse"]
