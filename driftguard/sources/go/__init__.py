"""The Go reader (tree-sitter-go): ``parse`` a file, ``extract`` a selector's values."""

from __future__ import annotations

from driftguard.sources.go.declaration import declaration
from driftguard.sources.go.reader import extract, parse

__all__ = ["declaration", "extract", "parse"]
