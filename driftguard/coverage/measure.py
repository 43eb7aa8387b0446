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
from driftguard.coverage.model import CoverageResult, Covered, DocumentCoverage, Span, SpanKind
from driftguard.coverage.spans import claim_spans
from driftguard.documents.model import Document, fold_key
from driftguard.judging.engine import Engine
from driftguard.judging.links import MARKDOWN
from driftguard.judging.result import RuleResult
from driftguard.model import Direction, DriftguardError, Finding, Item

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
            doc = engine.document(path)
        except DriftguardError as exc:
            errors.append(f"{exc.location or path}: error: {exc.message}")
            continue
        measured.append(_cover(doc, reads.get(path, [])))
    return CoverageResult(tuple(measured), tuple(errors))


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
    drift = [f for f in result.findings if not f.is_error and f.doc is not None]
    compared = result.rule.claim.judging is Judging.COMPARE
    items = result.claim.items
    if result.rule.direction is Direction.CODE_TO_DOC:  # it compares only what the code has (`mentions`)
        fold = result.rule.case_insensitive
        code = {(i.value.canonical.casefold() if fold else i.value.canonical) for f in result.facts for i in f.items}
        items = tuple(i for i in items if (i.value.canonical.casefold() if fold else i.value.canonical) in code)
    return [_Read(result.rule.id, item, any(_names(f, item) for f in drift), compared) for item in items]


def _names(finding: Finding, item: Item) -> bool:
    """The finding is on ``item``: the same line and the item's value."""
    doc, at = finding.doc, item.location
    if doc is None or at is None or (doc.path, doc.line) != (at.path, at.line):
        return False
    value = item.value
    return finding.value in {value.text, value.canonical, str(value.data)}


def _cover(doc: Document, reads: list[_Read]) -> DocumentCoverage:
    spans = _with_reads(doc, claim_spans(doc), reads)
    ends = [s.end for s in spans]
    rules: list[dict[str, None]] = [{} for _ in spans]
    drifted: list[dict[str, None]] = [{} for _ in spans]
    labels = {(s.line, fold_key(s.text)): i for i, s in enumerate(spans) if s.kind is SpanKind.LABEL}
    for read in reads:
        for index in _touched(read.item, spans, ends, labels):
            rules[index][read.rule] = None
            if read.drifted:
                drifted[index][read.rule] = None
    covered = tuple(Covered(span, tuple(r), tuple(d)) for span, r, d in zip(spans, rules, drifted))
    return DocumentCoverage(doc.path, covered, doc.text)


def _with_reads(doc: Document, spans: tuple[Span, ...], reads: list[_Read]) -> tuple[Span, ...]:
    """``spans`` and, as spans of their own, the places rules read that no claim-shaped span
    overlaps (a value in a code block, a heading, a bare number), so each is counted."""
    taken = sorted(spans)
    ends = [s.end for s in taken]
    for read in reads:
        if not read.compared or read.item.span is None or read.item.span[0] >= read.item.span[1]:
            continue
        start, end = read.item.span
        index = bisect_right(ends, start)
        if index < len(taken) and taken[index].start < end:
            continue
        text = " ".join(doc.text[start:end].split())
        taken.insert(index, Span(start, end, doc.line_of(start), SpanKind.READ, text))
        ends.insert(index, end)
    return tuple(taken)


def _touched(item: Item, spans: tuple[Span, ...], ends: list[int],
             labels: dict[tuple[int, str], int]) -> set[int]:
    """The indexes of the spans ``item`` reads."""
    out: set[int] = set()
    line = item.location.line if item.location else None
    if item.label and line is not None and (line, fold_key(item.label)) in labels:
        out.add(labels[(line, fold_key(item.label))])
    text = item.value.text or item.value.canonical
    if not text.strip():
        return out  # an empty cell: its row span would touch every span of the row
    if item.span is not None:
        start, end = item.span
        index = bisect_right(ends, start)  # spans are ordered and never overlap, so their ends are too
        while index < len(spans) and spans[index].start < end:
            out.add(index)
            index += 1
    elif line is not None:
        out.update(i for i, s in enumerate(spans) if s.line == line and " ".join(text.split()) in s.text)
    return out
