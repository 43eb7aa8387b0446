"""The claim-shaped spans of a parsed document.

Three shapes, in this order of precedence: code spans (the parser never reads
fenced or indented code, so none from there), the first-column cells of
table rows that hold no code span (a cell with code spans is counted by them),
and quantities with a unit or a percent in sentences and table cells (the
grammar of ``driftguard.quantities``). A span that overlaps one already taken
is left out, so a quantity written in a code span or as a row label counts
once. "a second" reads as a duration but is as often the ordinal, so it is not
counted; a bare number has no unit and is not counted either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain

from driftguard.coverage.model import Span, SpanKind
from driftguard.documents.model import Document
from driftguard.model import Kind, Value
from driftguard.quantities import find_quantities

_ORDINAL = re.compile(r"an?\s+second", re.IGNORECASE)


def claim_spans(doc: Document) -> tuple[Span, ...]:
    """Every claim-shaped span of ``doc``, by offset; no two overlap."""
    taken: list[Span] = []
    for shape in (_code(doc), _labels(doc), _quantities(doc)):  # in the order of precedence
        taken = _merged(taken, sorted(shape, key=_offsets))
    return tuple(taken)


def _offsets(span: Span) -> tuple[int, int]:
    return span.start, span.end


def _merged(taken: list[Span], candidates: list[Span]) -> list[Span]:
    """``taken`` (ordered, no two overlapping) with each of ``candidates`` (ordered by offset)
    that overlaps none of them nor a candidate kept before it, in one pass over both: a
    shape's own spans never overlap one another, so the order they are kept in is moot."""
    out: list[Span] = []
    at, last_end = 0, -1  # the next taken span not yet copied; where the last kept candidate ends
    for candidate in candidates:
        while at < len(taken) and taken[at].start < candidate.start:
            out.append(taken[at])
            at += 1
        before = out[-1] if out else None
        after = taken[at] if at < len(taken) else None
        if (before is None or before.end <= candidate.start) and (after is None or candidate.end <= after.start) \
                and last_end <= candidate.start:
            out.append(candidate)
            last_end = candidate.end
    out.extend(taken[at:])
    return out


def _code(doc: Document) -> Iterator[Span]:
    for code in doc.code_spans:
        text = " ".join(code.text.split())
        if text:
            yield Span(code.span[0], code.span[1], code.line, SpanKind.CODE, text)


def _labels(doc: Document) -> Iterator[Span]:
    for table in doc.tables:
        for row in table.rows:
            cell = row.cells[0] if row.cells else None
            if cell is None or cell.codes or not cell.text:
                continue
            start, end = cell.doc_span(0, len(cell.text))
            yield Span(start, end, row.line, SpanKind.LABEL, cell.text)


def _quantities(doc: Document) -> Iterator[Span]:
    cells = (cell for table in doc.tables for row in table.rows for cell in row.cells)
    for prose in chain(doc.sentences, cells):
        for start, end, value in find_quantities(prose.text):
            if _claim_shaped(value) or _of_an_option(prose.text, start, end, value):
                at = prose.doc_span(start, end)
                yield Span(at[0], at[1], doc.line_of(at[0]), SpanKind.QUANTITY, prose.text[start:end])


_OPTION_BEFORE = re.compile(r"(?i)\b(?:defaults?(?:\s+(?:is|to|of))?|at\s+most|at\s+least|up\s+to|maximum(?:\s+of)?|"
                            r"minimum(?:\s+of)?|limit(?:ed)?(?:\s+(?:of|to))?|capped\s+at)\s*:?\s*\Z")
_NOUN_AFTER = re.compile(r"\s+(?:[a-z]+\s+)?[a-z]{3,}s\b")


def _of_an_option(text: str, start: int, end: int, value: Value) -> bool:
    """A bare number that states an option's value: "(Default 100)", "at most 20 connections",
    "capped at four"; a number that only counts something ("two samples") is not."""
    if value.kind is not Kind.NUMBER or value.unit:
        return False
    return bool(_OPTION_BEFORE.search(text, 0, start)) and (not text[end:].strip()[:1].isalpha()
                                                             or bool(_NOUN_AFTER.match(text, end)))


def _claim_shaped(value: Value) -> bool:
    if value.kind in (Kind.DURATION, Kind.BYTES):
        return not _ORDINAL.fullmatch(value.text.strip())
    return value.kind is Kind.NUMBER and value.unit == "%"
