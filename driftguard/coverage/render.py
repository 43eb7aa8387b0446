"""The text and JSON forms of a coverage result.

Text: one line per document, ``docs/X.md  42 spans  31 guarded  74%``, then a
``total`` line of the same shape; with ``show_missing`` each document's line is
followed by its unguarded spans, ``  docs/X.md:12: 10 minutes`` (code spans
between backticks). JSON: ``{"documents": [...], "total": {...}}``, each
document with ``path``, ``spans``, ``guarded``, ``percent`` and ``unguarded``
(``[{"text", "line"}]``), the total with ``spans``, ``guarded`` and ``percent``.
"""

from __future__ import annotations

import json
from typing import Any

from driftguard.coverage.model import CoverageResult, DocumentCoverage, Span, SpanKind


def render_text(result: CoverageResult, show_missing: bool = False) -> str:
    lines = []
    for doc in result.documents:
        lines.append(_line(doc.path, len(doc.spans), doc.guarded, doc.percent))
        if show_missing:
            lines += [f"  {doc.path}:{span.line}: {_shown(span)}" for span in doc.unguarded]
    lines.append(_line("total", result.spans, result.guarded, result.percent))
    return "\n".join(lines) + "\n"


def _line(name: str, spans: int, guarded: int, percent: int) -> str:
    return f"{name}  {spans} spans  {guarded} guarded  {percent}%"  # "spans" even for one: a fixed shape


def _shown(span: Span) -> str:
    return f"`{span.text}`" if span.kind is SpanKind.CODE else span.text


def render_json(result: CoverageResult, show_missing: bool = False) -> str:
    """The JSON document; every unguarded span is listed whatever ``show_missing`` says."""
    record = {
        "documents": [_document(doc) for doc in result.documents],
        "total": {"spans": result.spans, "guarded": result.guarded, "percent": result.percent},
    }
    return json.dumps(record, indent=2) + "\n"


def _document(doc: DocumentCoverage) -> dict[str, Any]:
    return {
        "path": doc.path,
        "spans": len(doc.spans),
        "guarded": doc.guarded,
        "percent": doc.percent,
        "unguarded": [{"text": span.text, "line": span.line} for span in doc.unguarded],
    }
