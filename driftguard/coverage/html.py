"""The coverage page: one self-contained HTML file a reviewer opens.

The page holds no script and loads nothing (its style is inline, links only
jump within it). On top: the legend and a table of every document with its
spans, guarded, drifted and percent, and the total. Below: each document as
its own text in a ``<pre>``, every claim-shaped span wrapped in
``<span class="guarded|drifted|unguarded">`` with its line (``data-line``), its
shape (``data-kind``) and the rules that read it in the ``title``. Everything
read from a document is escaped; line breaks are written as ``\\n``.
"""

from __future__ import annotations

from html import escape

from driftguard.coverage.model import CoverageResult, Covered, DocumentCoverage, State
from driftguard.text import EOL, split_bom

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #1b1b1b; background: #fff; }
pre { white-space: pre-wrap; border: 1px solid #ccc; padding: 1em; background: #fafafa; }
table.summary { border-collapse: collapse; margin-bottom: 2em; }
table.summary th, table.summary td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
table.summary td:first-child, table.summary th:first-child { text-align: left; }
tr.total td { font-weight: bold; }
.guarded { background: #c8ecc9; border-bottom: 2px solid #2e7d32; }
.drifted { background: #ffcdd2; border-bottom: 2px wavy #c62828; }
.unguarded { background: #ffe9a8; border-bottom: 2px dashed #b26a00; }
.legend span { padding: 0 0.4em; margin-right: 0.3em; }
"""

_LEGEND = (
    (State.GUARDED, "a rule's claim reads it"),
    (State.DRIFTED, "a rule reads it and found drift on it"),
    (State.UNGUARDED, "claim-shaped, but no rule reads it"),
)


def render_html(result: CoverageResult, show_missing: bool = False) -> str:
    """The page; ``show_missing`` changes nothing (every span is always shown)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="generator" content="driftguard coverage">',
        f"<title>driftguard coverage: {result.percent}%</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<h1>driftguard coverage</h1>",
        _legend(),
        _summary(result),
        *(_document(index, doc) for index, doc in enumerate(result.documents, 1)),
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def _legend() -> str:
    keys = " ".join(f'<span class="key {state.value}">{state.value}</span> {escape(what)}.'
                    for state, what in _LEGEND)
    return f'<p class="legend">{keys}</p>'


def _summary(result: CoverageResult) -> str:
    head = "<tr><th>Document</th><th>Spans</th><th>Guarded</th><th>Drifted</th><th>Percent</th></tr>"
    rows = [_row(f'<a href="#doc-{index}">{escape(doc.path)}</a>', len(doc.spans), doc.guarded, _drifted(doc),
                 doc.percent, "") for index, doc in enumerate(result.documents, 1)]
    drifted = sum(_drifted(doc) for doc in result.documents)
    rows.append(_row("total", result.spans, result.guarded, drifted, result.percent, ' class="total"'))
    return f'<table class="summary">\n<thead>{head}</thead>\n<tbody>\n' + "\n".join(rows) + "\n</tbody>\n</table>"


def _row(name: str, spans: int, guarded: int, drifted: int, percent: int, attrs: str) -> str:
    return (f"<tr{attrs}><td>{name}</td><td>{spans}</td><td>{guarded}</td><td>{drifted}</td>"
            f"<td>{percent}%</td></tr>")


def _drifted(doc: DocumentCoverage) -> int:
    return sum(1 for c in doc.spans if c.state is State.DRIFTED)


def _document(index: int, doc: DocumentCoverage) -> str:
    bom = len(split_bom(doc.text)[0])
    pieces, at = [], bom
    for covered in doc.spans:
        start, end = max(covered.span.start, at), covered.span.end
        if end <= start:
            continue
        pieces.append(_text(doc.text[at:start]))
        pieces.append(_marked(covered, doc.text[start:end]))
        at = end
    pieces.append(_text(doc.text[at:]))
    title = f"{escape(doc.path)} <small>{doc.percent}% guarded ({doc.guarded} of {len(doc.spans)})</small>"
    return (f'<section class="document" id="doc-{index}">\n<h2>{title}</h2>\n'
            f'<pre>{"".join(pieces)}</pre>\n</section>')


def _marked(covered: Covered, text: str) -> str:
    span, state = covered.span, covered.state
    if state is State.DRIFTED:
        why = f"drifted: {', '.join(covered.drifted)} found drift here"
    elif state is State.GUARDED:
        why = f"guarded by {', '.join(covered.rules)}"
    else:
        why = "unguarded: no rule reads it"
    return (f'<span class="{state.value}" data-line="{span.line}" data-kind="{span.kind.value}" '
            f'title="line {span.line}: {escape(why)}">{_text(text)}</span>')


def _text(text: str) -> str:
    return escape(EOL.sub("\n", text))
