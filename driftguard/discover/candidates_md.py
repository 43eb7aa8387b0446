"""Candidate claims of one markdown document, read with the engine's document model.

Tables contribute their code-span columns (set claims), a first column of plain
single words (a set claim only an exact match binds), and their cells that
hold one quantity (scalar claims, labelled by the row's first cell); sections
contribute the code spans of their own prose; sentences contribute their
quantities. Every table and section is recorded with the address a config
would use for it (first header cell, and a section where that is ambiguous);
what cannot be addressed is left out.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from typing import Any

from driftguard import languages
from driftguard.config.specs import TableClaim
from driftguard.discover.claims_options import (
    block_sets,
    default_cells,
    default_column,
    heading_sets,
    item_sets,
    stated_defaults,
)
from driftguard.discover.model import DocFile, QuantityClaim, SectionSpan, SentenceText, SetClaim, TableRef
from driftguard.discover.numbers import counted_noun, says_no_amount
from driftguard.discover.words import compound_stems, identifiers_in, stem, text_stems
from driftguard.documents.claims import read_claim
from driftguard.documents.formats import read_document
from driftguard.documents.model import Cell, Document, Section, Table, fold_key
from driftguard.model import DriftguardError, Kind
from driftguard.quantities import QuantityError, find_quantities, parse_quantity

SCALAR_KINDS = (Kind.NUMBER, Kind.DURATION)
FLAG_CELL = r"^`?--?(?!h\b|help\b)([A-Za-z][\w.-]*)"
"""What a table's ``--flag`` cell names: the flag without its dashes (``--log.level <lvl>``: ``log.level``);
the row of the CLI library's own ``-h, --help`` is no flag the program defines."""
_SOURCE_PATH = re.compile(r"[\w./-]+(?:" + "|".join(re.escape(e) for e in languages.extensions()) + ")")
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
"""A plain first-column cell that can name a member: one word (``pending``, ``Free``)."""
PERCENT = stem("percent")


class _Places:
    """Innermost sections and table membership of document offsets."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.sections = sorted(doc.sections, key=lambda s: s.body_start)
        self.starts = [s.body_start for s in self.sections]
        self.tables = sorted(t.span for t in doc.tables)
        self.codes = sorted(c.span for c in doc.code_spans)

    def section(self, offset: int) -> Section | None:
        i = bisect_right(self.starts, offset) - 1
        while i >= 0:
            if self.sections[i].contains(offset):
                return self.sections[i]
            i -= 1
        return None

    def chain(self, offset: int) -> list[Section]:
        """The sections holding ``offset``, innermost first."""
        return sorted((s for s in self.sections if s.contains(offset)), key=lambda s: -s.body_start)

    def in_table(self, offset: int) -> bool:
        return _inside(self.tables, offset)

    def in_code(self, offset: int) -> bool:
        return _inside(self.codes, offset)

    def addressable(self, section: Section) -> bool:
        """Whether a config naming this section's heading reaches this section (the first one)."""
        found = self.doc.section(section.title)
        return found is not None and found.line == section.line


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    i = bisect_right(spans, (offset, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]


def scan_markdown(path: str, text: str) -> DocFile:
    doc = read_document(path, text)
    places = _Places(doc)
    set_claims: list[SetClaim] = []
    quantities: list[QuantityClaim] = []
    for table in doc.tables:
        ref = _table_ref(doc, places, table)
        if ref is not None:
            set_claims += _table_sets(doc, table, ref)
            quantities += _table_cells(doc, places, table, ref)
            section = places.section(table.span[0])
            quantities += default_cells(doc, table, ref, section.title if section and places.addressable(section)
                                        else None, _heading_words(places, table.span[0]))
    set_claims += _section_sets(doc, places)
    addressable = {s.line: places.addressable(s) for s in doc.sections}
    set_claims += heading_sets(doc, addressable) + item_sets(doc, ((s, addressable[s.line]) for s in doc.sections),
                                                            places.section)
    set_claims += block_sets(doc)
    sentences: list[SentenceText] = []
    for index, sentence in enumerate(doc.sentences):
        stated = [q for q in find_quantities(sentence.text) if q[2].kind in SCALAR_KINDS]
        if not stated:
            continue
        sentences.append(SentenceText(sentence.text, sentence.span[0]))  # a template must not read it by chance
        found = [q for q in stated if not says_no_amount(sentence.text, q[0], q[1])]
        quantities += _sentence_quantities(doc, places, index, len(sentences) - 1, found) if found else []
    quantities += stated_defaults(doc, places.section, places.addressable, sentences,
                                  lambda at: _heading_words(places, at))
    sections = tuple(SectionSpan(s.title, s.body_start, s.span[1], places.addressable(s)) for s in doc.sections)
    mentions = frozenset(c.text for c in doc.code_spans if _SOURCE_PATH.fullmatch(c.text))
    title = doc.title or next((h.text for h in doc.headings if h.level == 1), "")
    return DocFile(path, tuple(set_claims), tuple(quantities), tuple(sentences), sections, mentions, title)


def _table_ref(doc: Document, places: _Places, table: Table) -> TableRef | None:
    """The shortest address that reaches ``table``: its title alone, or with a section."""
    title = table.header[0].text if table.header else ""
    if not title:
        return None
    key = fold_key(title)
    scopes: list[Section | None] = [None] + [s for s in places.chain(table.span[0]) if places.addressable(s)]
    for scope in scopes:  # the claim reader refuses a title that two tables in the scope share
        same = [t for t in doc.tables if t.header and fold_key(t.header[0].text) == key
                and (scope is None or scope.contains(t.span[0]))]
        if same == [table]:
            return TableRef(title, scope.title if scope else None, table.line)
    return None


def _column_name(table: Table, index: int) -> str | None:
    """The header a config names column ``index`` by; None when it cannot (duplicates, empty)."""
    name = table.header[index].text
    return name if name and table.column(name) == index else None


def _table_sets(doc: Document, table: Table, ref: TableRef) -> list[SetClaim]:
    out = []
    for index in range(len(table.header)):
        name = _column_name(table, index)
        if index and name is None:
            continue
        cells = [r.cells[index] for r in table.rows if index < len(r.cells) and r.cells[index].text]
        keyed = _defaults(table) if index == 0 else {}
        if index == 0 and len(cells) >= 2 and all(c.text.lstrip("`").startswith("-") for c in cells):
            form = TableClaim(table=ref.title, section=ref.section)
            out += _flag_table(doc, table, ref, form, keyed)  # ``--flags``, in code spans or not
        coded = sum(1 for c in cells if c.codes)
        plain = index == 0 and not coded and len(cells) >= 2 and all(_PLAIN_WORD.fullmatch(c.text) for c in cells)
        if not plain and (coded < 2 or coded * 2 < len(cells)):
            continue
        form = TableClaim(table=ref.title, column=None if index == 0 else name, section=ref.section)
        try:
            claim = read_claim(doc, form)
        except DriftguardError:
            continue
        values = tuple(dict.fromkeys(i.value.canonical for i in claim.items))
        if len(values) >= 2:
            out.append(SetClaim(doc.path, "table", values, table.line, ref, form.column, plain=plain, **keyed))
    return out


def _defaults(table: Table) -> dict[str, Any]:
    """A table's first cells (as a map rule reads its keys) -> the cell of its Default column,
    as ``SetClaim`` keys; none without a Default column."""
    at = default_column(table)
    if at is None:
        return {}
    pairs = []
    for row in table.rows:
        if len(row.cells) > at and row.cells[0].text.strip():
            key, cell = row.cells[0], row.cells[at]
            pairs.append((_first(key), _first(cell)))
    return {"defaults": tuple(pairs), "default_column": table.header[at].text}


def _first(cell: Cell) -> str:
    """What a table claim reads from a cell: its first code span, else its text."""
    return cell.codes[0].text if cell.codes else cell.text


def _flag_table(doc: Document, table: Table, ref: TableRef, form: TableClaim, keyed: dict[str, Any]
                ) -> list[SetClaim]:
    """A first column of ``--flags``: the names without dashes (``cells:`` leaves them off)."""
    flagged = replace(form, cells=FLAG_CELL)
    try:
        items = read_claim(doc, flagged).items
    except DriftguardError:
        return []
    values = tuple(dict.fromkeys(i.value.canonical for i in items))
    return [SetClaim(doc.path, "table", values, table.line, ref, section=ref.section, form=flagged, **keyed)]


def _table_cells(doc: Document, places: _Places, table: Table, ref: TableRef) -> list[QuantityClaim]:
    labels = [fold_key(r.cells[0].text) if r.cells else "" for r in table.rows]
    headings = _heading_words(places, table.span[0])
    out = []
    for row, key in zip(table.rows, labels):
        if not key or labels.count(key) != 1:
            continue
        label = row.cells[0].text
        for index in range(1, len(row.cells)):
            name = _column_name(table, index)
            cell = row.cells[index]
            if name is None or not cell.text or cell.codes:
                continue
            try:
                value = parse_quantity(cell.text)
            except QuantityError:
                continue
            if value.kind not in SCALAR_KINDS:
                continue
            context = text_stems(f"{ref.title} {name}") | headings | ({PERCENT} if value.unit == "%" else set())
            section = places.section(table.span[0])
            out.append(QuantityClaim(
                doc.path, "cell", value, row.line, cell.text, 0, len(cell.text), text_stems(label),
                frozenset(context), identifiers_in(label), table=ref, column=name, label=label,
                section=section.title if section and places.addressable(section) else None,
            ))
    return out


def _section_sets(doc: Document, places: _Places) -> list[SetClaim]:
    own: dict[int, dict[str, None]] = {}
    every: dict[int, dict[str, None]] = {}
    for code in doc.code_spans:
        at = code.span[0]
        for section in places.chain(at):
            every.setdefault(section.line, {}).setdefault(code.text, None)
        inner = places.section(at)
        if inner is not None and not places.in_table(at):
            own.setdefault(inner.line, {}).setdefault(code.text, None)
    out = []
    for section in doc.sections:
        values = tuple(own.get(section.line, ()))
        if len(values) >= 2 and places.addressable(section):
            out.append(SetClaim(doc.path, "section", values, section.line, section=section.title,
                                section_spans=tuple(every.get(section.line, ()))))
    return out


def _heading_words(places: _Places, offset: int) -> frozenset[str]:
    words: set[str] = set()
    for section in places.chain(offset):
        words |= text_stems(section.title)
    return frozenset(words)


def _sentence_quantities(doc: Document, places: _Places, index: int, kept: int,
                         found: list) -> list[QuantityClaim]:
    sentence = doc.sentences[index]
    text = sentence.text
    neighbours = [doc.sentences[i] for i in (index - 1, index + 1)
                  if 0 <= i < len(doc.sentences) and doc.sentences[i].map is sentence.map]
    context = _heading_words(places, sentence.span[0])
    for other in neighbours:
        context |= text_stems(other.text)
    section = places.section(sentence.span[0])
    title = section.title if section and places.addressable(section) else None
    identifiers = identifiers_in(text)
    out = []
    for start, end, value in found:
        if places.in_code(sentence.doc_span(start, end)[0]):
            continue
        words = text_stems(text[:start] + " " + text[end:]) | compound_stems(text)
        extra = {PERCENT} if value.unit == "%" else set()
        out.append(QuantityClaim(
            doc.path, "sentence", value, doc.line_of(sentence.doc_span(start, end)[0]), text, start, end,
            words, frozenset(context | extra), identifiers, sentence=kept, section=title,
            counted=counted_noun(text[start:end], text[end:])
            if value.kind is Kind.NUMBER and value.unit in ("", "times") else "",
        ))
    return out
