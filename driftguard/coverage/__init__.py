"""``driftguard coverage``: what the documents claim that no rule guards.

For each document (every one some rule reads, or the paths given) the
claim-shaped spans it holds (``spans``) and which of them a rule's claim reads
(``measure``), as coverage.py reports lines of code. ``COVERAGE_FORMATS`` maps each
output format to ``module:function``; a format's module is imported only when
used, and nothing is imported here, so building the command line stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from driftguard.coverage.model import CoverageResult

CoverageRenderer = Callable[["CoverageResult", bool], str]

COVERAGE_FORMATS: dict[str, str] = {
    "text": "driftguard.coverage.render:render_text",
    "json": "driftguard.coverage.render:render_json",
    "html": "driftguard.coverage.html:render_html",
}


def coverage_renderer(name: str) -> CoverageRenderer:
    """The function that writes format ``name``: ``(result, show_missing) -> str``."""
    module, _, function = COVERAGE_FORMATS[name].partition(":")
    found: CoverageRenderer = getattr(importlib.import_module(module), function)
    return found
