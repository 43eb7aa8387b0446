"""Reporters: each turns one ``Result`` into text, built from the same records.

``CHECK_FORMATS`` are the formats of ``check`` (findings only);
``REPORT_FORMATS`` those of ``report`` (every rule, its facts, the mismatches).
Each value is ``module:function`` so a format's module is imported only when used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from driftguard.judging.result import Result

Renderer = Callable[[Result], str]

CHECK_FORMATS: dict[str, str] = {
    "text": "driftguard.reporters.text:render_check",
    "json": "driftguard.reporters.json_format:render",
    "github": "driftguard.reporters.github:render",
    "sarif": "driftguard.reporters.sarif:render",
}
REPORT_FORMATS: dict[str, str] = {
    "text": "driftguard.reporters.text:render_report",
    "json": "driftguard.reporters.json_format:render_report",
    "markdown": "driftguard.reporters.markdown:render_report",
}


def renderer(table: dict[str, str], name: str) -> Renderer:
    module, _, function = table[name].partition(":")
    found: Renderer = getattr(importlib.import_module(module), function)
    return found
