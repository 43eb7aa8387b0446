"""Prove a fixed document safe before it is written, as trusted formatters do.

Two checks, both on the candidate text in memory: (1) for markdown,
markdown-it's token stream of the new document equals the old one token for
token (type, tag, markup, nesting, content, and the same for inline children),
except for the content of the tokens on the lines a value edit touched and for
the rows that were added, which must hold exactly the planned cells; for
reStructuredText, the document re-read by its reader has the same parts
(headings, paragraphs, list items, tables row by row and cell by cell, code
blocks, code spans, links) with the same text, except the parts a change
touches, and a grid table's cell keeps its width (the grid's borders are not
redrawn); (2) every rule that reads the document, judged again on the
candidate, reports nothing it did not report before except the findings the
changes fix.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from markdown_it.token import Token

from driftguard.config.loader import Config
from driftguard.documents.formats import MARKDOWN, format_of, read_document
from driftguard.documents.model import Document
from driftguard.documents.parser import block_tokens
from driftguard.fix.changes import Change
from driftguard.fix.plan import DocPlan
from driftguard.judging.engine import Engine
from driftguard.judging.workspace import Workspace
from driftguard.model import DriftguardError, Finding
from driftguard.text import line_starts


class Unsafe(Exception):
    """The candidate document fails a check; the message says why."""


def apply_changes(text: str, changes: Sequence[Change]) -> tuple[str, list[int]]:
    """The new text, and the new text's offset of each change's splice (in order)."""
    out: list[str] = []
    at: list[int] = []
    cursor = size = 0
    for change in changes:
        s = change.splice
        out.append(text[cursor:s.start])
        size += s.start - cursor
        at.append(size)
        out.append(s.new)
        size += len(s.new)
        cursor = s.end
    out.append(text[cursor:])
    return "".join(out), at


def verify(config: Config, plan: DocPlan, new: str, offsets: list[int]) -> None:
    """Raise Unsafe unless ``new`` differs from ``plan.text`` only where the changes say."""
    if format_of(plan.path) == MARKDOWN:
        check_tokens(plan.text, new, plan.changes, offsets)
    else:
        check_model(plan.path, plan.text, new, plan.changes, offsets)
    check_rules(config, plan, new)


# -- tokens ---------------------------------------------------------------------


def check_tokens(old: str, new: str, changes: Sequence[Change], offsets: list[int]) -> None:
    old_tokens, new_tokens = _parse(old), _parse(new)
    old_starts, new_starts = line_starts(old), line_starts(new)
    touched: set[int] = set()
    added: dict[int, tuple[str, ...]] = {}
    for change, at in zip(changes, offsets):
        s = change.splice
        if change.rows:
            first = bisect_right(new_starts, at) - 1 + 1  # the rows begin after the line break
            added.update({first + k: cells for k, cells in enumerate(change.rows)})
        else:
            touched.update(range(_line(old_starts, s.start), _line(old_starts, max(s.end - 1, s.start)) + 1))
    kept = _drop_rows(new_tokens, added)
    if len(kept) != len(old_tokens):
        raise Unsafe(f"the document's structure would change ({len(old_tokens)} blocks before, "
                     f"{len(kept)} after, not counting added rows)")
    for a, b in zip(old_tokens, kept):
        span = a.map
        free = bool(span) and span is not None and any(span[0] <= line < span[1] for line in touched)
        _same(a, b, free)


def _parse(text: str) -> list[Token]:
    try:
        return block_tokens(text)
    except Exception as exc:  # markdown-it on hostile input
        raise Unsafe(f"the new document could not be parsed: {exc}") from None


def _line(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset) - 1


def _same(a: Token, b: Token, free: bool) -> None:
    """``b`` is ``a``; with ``free``, only the text may differ."""
    if _shape(a) != _shape(b) or (not free and a.content != b.content):
        line = a.map[0] + 1 if a.map else "?"
        raise Unsafe(f"the edit would change the document outside the fixed value (near line {line}: "
                     f"{a.type} {a.content[:40]!r})")
    kids_a, kids_b = a.children or [], b.children or []
    if len(kids_a) != len(kids_b):
        raise Unsafe(f"the edit would change the inline markup of line {a.map[0] + 1 if a.map else '?'}")
    for x, y in zip(kids_a, kids_b):
        _same(x, y, free and x.type in ("text", "code_inline"))


def _shape(t: Token) -> tuple[object, ...]:
    return (t.type, t.tag, t.markup, t.nesting, t.info, tuple(sorted((t.attrs or {}).items())))


def _drop_rows(tokens: list[Token], added: dict[int, tuple[str, ...]]) -> list[Token]:
    """``tokens`` without the rows at the lines of ``added``, after checking each holds its cells."""
    out: list[Token] = []
    i, seen = 0, set()
    while i < len(tokens):
        tok = tokens[i]
        line = tok.map[0] if tok.map else None
        if tok.type == "tr_open" and line in added:
            j = next(k for k in range(i, len(tokens)) if tokens[k].type == "tr_close")
            cells = tuple(t.content for t in tokens[i:j] if t.type == "inline")
            if cells != added[line]:
                raise Unsafe(f"the added row would read {list(cells)}, not {list(added[line])}")
            seen.add(line)
            i = j + 1
            continue
        out.append(tok)
        i += 1
    if seen != set(added):
        raise Unsafe("an added row would not be part of the table")
    return out


# -- the model (reStructuredText) ----------------------------------------------

Span = tuple[int, int]
_Part = tuple[int, Span, object]  # line, span, what must stay the same


def check_model(path: str, old: str, new: str, changes: Sequence[Change], offsets: list[int]) -> None:
    if any(change.rows for change in changes):
        raise Unsafe("rows are added to markdown tables only")
    try:
        before, after = read_document(path, old), read_document(path, new)
    except DriftguardError as exc:
        raise Unsafe(f"the new document could not be read: {exc.message}") from None
    _grid_cells(before, old, changes)
    old_free = [(c.splice.start, c.splice.end) for c in changes]
    new_free = [(at, at + len(c.splice.new)) for c, at in zip(changes, offsets)]
    for name, (was, now) in zip(_NAMES, zip(_parts(before), _parts(after))):
        if len(was) != len(now) or (name == "tables" and was != now):
            in_table = any(t.span[0] <= c.splice.start < t.span[1] for t in before.tables for c in changes)
            fit = "; the new value may not fit its table column (widen the column by hand)" if in_table else ""
            raise Unsafe(f"the document's structure would change ({len(was)} {name} before, {len(now)} after){fit}")
        for (line, span, key), (_, span2, key2) in zip(was, now):
            if key != key2 and not (_touches(span, old_free) or _touches(span2, new_free)):
                raise Unsafe(f"the edit would change the document outside the fixed value (near line {line}: "
                             f"{name} {str(key)[:40]!r})")


_NAMES = ("headings", "paragraphs", "list items", "tables", "table cells", "code blocks", "code spans", "links")


def _parts(doc: Document) -> list[list[_Part]]:
    cells = [c for t in doc.tables for row in (t.header, *(r.cells for r in t.rows)) for c in row]
    return [
        [(h.line, h.span, (h.level, h.text)) for h in doc.headings],
        [(p.line, p.span, p.text) for p in doc.paragraphs],
        [(i.line, i.span, (i.ordered, i.text)) for i in doc.list_items],
        [(t.line, (0, 0), tuple(len(r.cells) for r in t.rows) + (len(t.header),)) for t in doc.tables],
        [(c.line, c.span, c.text) for c in cells],
        [(b.line, b.body_span, (b.lang, b.body)) for b in doc.blocks],
        [(c.line, c.span, c.text) for c in doc.code_spans],
        [(k.line, k.span or (0, 0), k.target) for k in doc.links],
    ]


def _touches(span: Span, free: list[Span]) -> bool:
    return any(a < span[1] and span[0] < b or a == b and span[0] <= a <= span[1] for a, b in free)


def _grid_cells(doc: Document, text: str, changes: Sequence[Change]) -> None:
    """Refuse a rewrite that changes the width of a grid table's cell."""
    for change in changes:
        s = change.splice
        grid = next((t for t in doc.tables if t.span[0] <= s.start < t.span[1]
                     and text[t.span[0]:t.span[1]].lstrip().startswith("+")), None)
        if grid is not None and len(s.new) != s.end - s.start:
            raise Unsafe(f"'{text[s.start:s.end]}' -> '{s.new}' would change the width of a grid table's cell "
                         f"(line {grid.line}), and its borders are drawn by hand; fix it by hand, or keep the width")


# -- rules ----------------------------------------------------------------------


class _Overlay(Workspace):
    """The root as it is, except for documents given as text."""

    def __init__(self, root: Path, max_file_size: int, texts: dict[str, str]) -> None:
        super().__init__(root, max_file_size)
        self.texts = texts

    def read_text(self, relpath: str) -> str:
        if relpath in self.texts:
            return self.cached("text", relpath, lambda: self.texts[relpath])
        return super().read_text(relpath)


def check_rules(config: Config, plan: DocPlan, new: str) -> None:
    engine = Engine(config)
    engine.workspace = _Overlay(config.root, config.max_file_size, {plan.path: new})
    fixed = Counter(_key(f) for change in plan.changes for f in change.findings)
    for before in plan.before:
        after = engine.judge(before.rule)
        expected = Counter(_keys(before.findings)) - fixed
        extra = Counter(_keys(after.findings)) - expected
        if extra:
            worst = next(f for f in after.findings if _key(f) in extra)
            raise Unsafe(f"rule '{before.rule.id}' would still fail after the fix: {worst.message}")


def _key(finding: Finding) -> tuple[str, str, str | None]:
    return (finding.rule, finding.kind.kind, finding.value)


def _keys(findings: Iterable[Finding]) -> list[tuple[str, str, str | None]]:
    return [_key(f) for f in findings]

