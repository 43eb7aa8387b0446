"""The values a coverage run produces: claim-shaped spans, what reads them, the totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class SpanKind(str, Enum):
    CODE = "code"  # a code span outside fenced and indented code
    QUANTITY = "quantity"  # a duration, a byte size or a percent
    LABEL = "label"  # a table's first-column cell that holds no code span
    READ = "read"  # a value a rule reads where no other shape is: a code block's value, a heading, a bare number


class State(str, Enum):
    """How the HTML page colours a span; also its class there."""

    GUARDED = "guarded"
    DRIFTED = "drifted"  # guarded, and a finding is on it
    UNGUARDED = "unguarded"


@dataclass(frozen=True, order=True, slots=True)  # slots: a long document has tens of thousands
class Span:
    """A claim-shaped piece of a document: ``text`` (whitespace folded) read at
    character offsets ``[start, end)`` of the document's text, on 1-based ``line``."""

    start: int
    end: int
    line: int
    kind: SpanKind
    text: str


_COLUMNS = ("start", "end", "line", "kind", "text")


def spans_to_json(spans: tuple[Span, ...]) -> dict[str, list[object]]:
    """``spans`` as one column per field, for the cache: a long document has tens of thousands."""
    return {"start": [s.start for s in spans], "end": [s.end for s in spans], "line": [s.line for s in spans],
            "kind": [s.kind.value for s in spans], "text": [s.text for s in spans]}


def spans_from_json(raw: object) -> tuple[Span, ...]:
    """What ``spans_to_json`` wrote; ValueError, TypeError or KeyError on anything else."""
    if not isinstance(raw, dict):
        raise TypeError("not a mapping of columns")
    columns = [raw[name] for name in _COLUMNS]
    if any(not isinstance(c, list) or len(c) != len(columns[0]) for c in columns):
        raise ValueError("columns of different lengths")
    starts, ends, lines, kinds, texts = columns
    if not {*map(type, starts), *map(type, ends), *map(type, lines)} <= {int} or not set(map(type, texts)) <= {str}:
        raise TypeError("a field of the wrong type")
    return tuple(Span(*row) for row in zip(starts, ends, lines, map(SpanKind, kinds), texts))


@dataclass(frozen=True, slots=True)
class Covered:
    """A span and the rules whose claims read it (``rules``), of which ``drifted`` found drift on it."""

    span: Span
    rules: tuple[str, ...] = ()
    drifted: tuple[str, ...] = ()

    @property
    def state(self) -> State:
        if self.drifted:
            return State.DRIFTED
        return State.GUARDED if self.rules else State.UNGUARDED


@dataclass(frozen=True)
class DocumentCoverage:
    path: str
    spans: tuple[Covered, ...]
    text: str = field(default="", repr=False)  # the document as read, for the HTML page

    @property
    def guarded(self) -> int:
        return sum(1 for c in self.spans if c.rules)

    @property
    def unguarded(self) -> tuple[Span, ...]:
        return tuple(c.span for c in self.spans if not c.rules)

    @property
    def percent(self) -> int:
        return percent(self.guarded, len(self.spans))


@dataclass(frozen=True)
class CoverageResult:
    documents: tuple[DocumentCoverage, ...]
    errors: tuple[str, ...] = ()  # documents that could not be read or parsed: ``path: error: message``

    @property
    def spans(self) -> int:
        return sum(len(d.spans) for d in self.documents)

    @property
    def guarded(self) -> int:
        return sum(d.guarded for d in self.documents)

    @property
    def percent(self) -> int:
        return percent(self.guarded, self.spans)


def percent(guarded: int, spans: int) -> int:
    """``guarded`` of ``spans`` as a whole percent, rounded half up, but never 100 while a
    span is unguarded nor 0 while one is guarded (as coverage.py shows it); 100 for none."""
    if spans <= 0:
        return 100
    shown = (200 * guarded + spans) // (2 * spans)
    if guarded < spans:
        shown = min(shown, 99)
    if guarded > 0:
        shown = max(shown, 1)
    return shown
