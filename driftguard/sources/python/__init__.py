"""The Python reader (libcst): ``parse`` a file, ``extract`` a selector's values."""

from __future__ import annotations

from driftguard.sources.python.reader import extract, parse

__all__ = ["extract", "parse"]
