"""The Go reader (tree-sitter-go): ``parse`` a file, ``extract`` a selector's values,
``skipped``: what ``extract`` left out of them."""

from __future__ import annotations

from driftguard.sources.go.declaration import declaration
from driftguard.sources.go.reader import extract, parse, skipped

__all__ = ["declaration", "extract", "parse", "skipped"]
