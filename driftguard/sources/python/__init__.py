"""The Python reader (libcst): ``parse`` a file, ``extract`` a selector's values,
``skipped``: what ``extract`` left out of them."""

from __future__ import annotations

from driftguard.sources.python.declaration import declaration
from driftguard.sources.python.reader import extract, skipped
from driftguard.sources.python.tree import parse

__all__ = ["declaration", "extract", "parse", "skipped"]
