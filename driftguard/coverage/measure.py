"""Which claim-shaped spans of the documents some rule's claim reads.

Every rule whose document is measured is judged once by one ``Engine``. A span
is guarded by a rule when an item of the rule's claim overlaps it (its span in
the document), when the item was read from the row the span labels (a
``rows:`` rule reads a row by its first cell), or, for an item whose reader
knows no span, when the item's text is in the span on the item's line. It is
drifted when a finding of the rule (drift, not an error) names that item: its
line and its value. A rule whose claim cannot be read guards nothing.
Documents are measured in path order, spans in document order, so two runs on
the same tree give the same result.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from driftguard.config.loader import Config
from driftguard.config.specs import Judging
from driftguard.coverage.model import (
    CoverageResult,
    Covered,
    DocumentCoverage,
    Span,
    SpanKind,
    spans_from_json,
    spans_to_json,
)
from driftguard.documents.model import fold_key
from driftguard.judging.engine import Engine
from driftguard.judging.linked import MARKDOWN  # not judging.links, which imports every site
from driftguard.judging.result import RuleResult
from driftguard.model import Direction, DriftguardError, Finding, Item
from driftguard.text import line_at, line_starts

if TYPE_CHECKING:
    from driftguard.judging.cache import FactCache


class _Read(NamedTuple):
    rule: str
    item: Item
    drifted: bool
    compared: bool  # the rule compares what it reads with facts (not a references or links rule)


def measure_coverage(config: Config, paths: Sequence[str] = (), cache: FactCache | None = None,
                     progress: Callable[[str], None] | None = None) -> CoverageResult:
    """The coverage of every document a rule of ``config`` reads, or of ``paths``
    (root-relative; a folder stands for the markdown documents under it)."""
    engine = Engine(config, cache)
    documents = _documents(config, paths)
    wanted = set(documents)
    rules = [rule for rule in config.rules if rule.doc in wanted]
    reads: dict[str, list[_Read]] = {}
    for index, rule in enumerate(rules, 1):
        _tell(progress, f"coverage: judging rule {index}/{len(rules)}: {rule.id}")
        reads.setdefault(rule.doc, []).extend(_reads(engine.judge(rule)))
    measured: list[DocumentCoverage] = []
    errors: list[str] = []
    for index, path in enumerate(documents, 1):
        _tell(progress, f"coverage: scanning document {index}/{len(documents)}: {path}")
        try:
            text, spans = _claim_spans(engine, path)
        except DriftguardError as exc:
            errors.append(f"{exc.location or path}: error: {exc.message}")
            continue
        measured.append(_cover(path, text, spans, reads.get(path, [])))
    return CoverageResult(tuple(measured), tuple(errors))


def _claim_spans(engine: Engine, path: str) -> tuple[str, tuple[Span, ...]]:
    """The text of document ``path`` and its claim-shaped spans, read back from the cache
    when the document is unchanged since a run stored them: a warm run then parses no
    document whose claims ``check`` read from the cache too."""
    text = engine.workspace.read_text(path)

    def compute() -> tuple[Span, ...]:
        from driftguard.coverage.spans import claim_spans  # the quantity grammar is compiled only here

        return claim_spans(engine.document(path))

    if engine.cache is None:
        return text, compute()
    return text, engine.cache.derived("coverage-spans", path, text, compute, spans_to_json, spans_from_json)


def _tell(progress: Callable[[str], None] | None, message: str) -> None:
    if progress is not None:
        progress(message)


def _documents(config: Config, paths: Sequence[str]) -> list[str]:
    if not paths:
        return sorted({rule.doc for rule in config.rules})
    found: set[str] = set()
    for given in paths:
        folder = config.root / given
        if folder.is_dir():
            found.update(_markdown_under(config.root, folder))
        else:
            found.add(given)
    return sorted(found)


def _markdown_under(root: Path, folder: Path) -> list[str]:
    """The markdown documents under ``folder``, outside hidden folders, as root-relative paths."""
    out = []
    for path in folder.rglob("*"):
        relative = path.relative_to(folder).parts
        if path.suffix.lower() in MARKDOWN and path.is_file() and not any(p.startswith(".") for p in relative):
            out.append(path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix())
    return out


def _reads(result: RuleResult) -> list[_Read]:
    if result.claim is None:
        return []
    drift = _drift_by_line(result.findings)
    compared = result.rule.claim.judging is Judging.COMPARE
    items = result.claim.items
    if result.rule.direction is Direction.CODE_TO_DOC:  # it compares only what the code has (`mentions`)
        fold = result.rule.case_insensitive
        code = {(i.value.canonical.casefold() if fold else i.value.canonical) for f in result.facts for i in f.items}
        items = tuple(i for i in items if (i.value.canonical.casefold() if fold else i.value.canonical) in code)
    return [_Read(result.rule.id, item, _drifted(drift, item), compared) for item in items]


def _drift_by_line(findings: Sequence[Finding]) -> dict[tuple[str, int | None], set[str | None]]:
    """The values the drift findings (not errors) name, by the document line they are on:
    an item then looks up its own line instead of reading every finding of its rule."""
    out: dict[tuple[str, int | None], set[str | None]] = {}
    for finding in findings:
        if not finding.is_error and finding.doc is not None:
            out.setdefault((finding.doc.path, finding.doc.line), set()).add(finding.value)
    return out


def _drifted(drift: dict[tuple[str, int | None], set[str | None]], item: Item) -> bool:
    """A finding is on ``item``: on the same line, naming the item's value."""
    at = item.location
    named = drift.get((at.path, at.line)) if at is not None else None
    if not named:
        return False
    value = item.value
    return not named.isdisjoint((value.text, value.canonical, str(value.data)))


def _cover(path: str, text: str, found: tuple[Span, ...], reads: list[_Read]) -> DocumentCoverage:
    """The document at ``path`` (content ``text``, claim-shaped spans ``found``) as ``reads`` cover it."""
    spans = _Spans(_with_reads(text, found, reads))
    rules: dict[int, dict[str, None]] = {}  # by span index, only for the spans some rule reads
    drifted: dict[int, dict[str, None]] = {}
    for read in reads:
        for index in spans.touched(read.item):
            rules.setdefault(index, {})[read.rule] = None
            if read.drifted:
                drifted.setdefault(index, {})[read.rule] = None
    covered = tuple(Covered(span, tuple(rules.get(i, ())), tuple(drifted.get(i, ())))
                    for i, span in enumerate(spans.spans))
    return DocumentCoverage(path, covered, text)


def _with_reads(text: str, spans: tuple[Span, ...], reads: list[_Read]) -> tuple[Span, ...]:
    """``spans`` and, as spans of their own, the places rules read that no claim-shaped span
    overlaps (a value in a code block, a heading, a bare number), so each is counted."""
    taken = sorted(spans)
    ends = [s.end for s in taken]
    starts: list[int] | None = None  # of the lines, counted for the first such place
    for read in reads:
        if not read.compared or read.item.span is None or read.item.span[0] >= read.item.span[1]:
            continue
        start, end = read.item.span
        index = bisect_right(ends, start)
        if index < len(taken) and taken[index].start < end:
            continue
        if starts is None:
            starts = line_starts(text)
        line = max(line_at(starts, start), 1)  # as the document's own line_of counts (a BOM is on line 1)
        taken.insert(index, Span(start, end, line, SpanKind.READ, " ".join(text[start:end].split())))
        ends.insert(index, end)
    return tuple(taken)


class _Spans:
    """A document's spans (ordered, never overlapping, so their ends are ordered too) and
    the indexes that find the ones an item reads without a walk over all of them."""

    def __init__(self, spans: tuple[Span, ...]) -> None:
        self.spans = spans
        self.ends = [s.end for s in spans]
        self.labels = {(s.line, fold_key(s.text)): i for i, s in enumerate(spans) if s.kind is SpanKind.LABEL}
        self._by_line: dict[int, list[int]] | None = None  # built for the first item with no span

    def touched(self, item: Item) -> set[int]:
        """The indexes of the spans ``item`` reads."""
        out: set[int] = set()
        line = item.location.line if item.location else None
        if item.label and line is not None and (line, fold_key(item.label)) in self.labels:
            out.add(self.labels[(line, fold_key(item.label))])
        text = item.value.text or item.value.canonical
        if not text.strip():
            return out  # an empty cell: its row span would touch every span of the row
        if item.span is not None:
            start, end = item.span
            index = bisect_right(self.ends, start)
            while index < len(self.spans) and self.spans[index].start < end:
                out.add(index)
                index += 1
        elif line is not None:
            folded = " ".join(text.split())
            out.update(i for i in self.on_line(line) if folded in self.spans[i].text)
        return out

    def on_line(self, line: int) -> list[int]:
        """The indexes of the spans on ``line``, in order."""
        if self._by_line is None:
            self._by_line = {}
            for index, span in enumerate(self.spans):
                self._by_line.setdefault(span.line, []).append(index)
        return self._by_line.get(line, [])
