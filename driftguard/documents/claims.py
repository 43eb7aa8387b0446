"""Read what a document claims, one reader per claim form.

Each reader turns a parsed ``Document`` and a claim form (``driftguard.config.specs``)
into a ``Claim``: items with their line and the exact span of the value's text.
When the table, section, column or sentence the form names is gone, or states
nothing, the reader raises ``ClaimNotFound`` ("the document no longer states
it"), so a deleted claim never passes as an empty one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from driftguard.config.specs import ClaimForm, MentionsClaim, PhraseClaim, SectionClaim, TableClaim
from driftguard.documents.model import Cell, Document, Row, Section, Table, fold_key
from driftguard.model import AmbiguousClaim, Claim, ClaimNotFound, Item, Location, PatternError, Value
from driftguard.quantities import QUANTITY_PATTERN, read_value
from driftguard.user_regex import Compiled, compile_user_regex, group_each

T = TypeVar("T")


def read_claim(doc: Document, form: ClaimForm) -> Claim:
    """The claim ``form`` reads from ``doc``; raises ClaimNotFound or PatternError."""
    reader = _READERS.get(type(form))
    if reader is None:
        raise TypeError(f"not a claim form: {form!r}")
    return reader(doc, form)


# -- tables -------------------------------------------------------------------


def _table_claim(doc: Document, form: TableClaim) -> Claim:
    section = _section(doc, form.section) if form.section else None
    table = _table(doc, form.table, section)
    where = Location(doc.path, table.line)
    if form.rows:
        return Claim(tuple(_row_items(doc, table, form)), where)
    if form.keyed:
        return Claim(tuple(_entry_items(doc, table, form)), where)
    column = _column(doc, table, form.column, 0)
    items = [item for row in table.rows for item in _cell_values(doc, row, column)]
    if not items:
        raise ClaimNotFound(_gone(f"the '{table.header[0].text}' table states nothing in column "
                                  f"'{table.header[column].text}'"), where)
    return Claim(tuple(items), where)


def _table(doc: Document, name: str, section: Section | None) -> Table:
    wanted = fold_key(name)
    found = [t for t in _within(doc.tables, section, lambda t: t.span[0])
             if t.header and fold_key(t.header[0].text) == wanted]
    if not found:
        raise _not_found(doc, f"no table headed '{name}'", section)
    if len(found) > 1:
        lines = _lines(t.line for t in found)
        raise AmbiguousClaim(f"{len(found)} tables are headed '{name}' (lines {lines}); name the one meant "
                             "with `section`", Location(doc.path, found[1].line))
    return found[0]


def _column(doc: Document, table: Table, name: str | None, default: int) -> int:
    if name is not None:
        same = [i for i, c in enumerate(table.header) if fold_key(c.text) == fold_key(name)]
        if len(same) > 1:
            raise AmbiguousClaim(f"the '{table.header[0].text}' table has {len(same)} columns named '{name}'",
                                 Location(doc.path, table.line))
    index = default if name is None else table.column(name)
    if index is None or index >= len(table.header):
        missing = f"column '{name}'" if name is not None else f"column {default + 1}"
        columns = ", ".join(f"'{c}'" for c in table.columns)
        raise ClaimNotFound(_gone(f"the '{table.header[0].text}' table has no {missing} "
                                  f"(its columns: {columns})"), Location(doc.path, table.line))
    return index


def _cell(row: Row, index: int) -> Cell | None:
    return row.cells[index] if index < len(row.cells) else None


def _cell_values(doc: Document, row: Row, column: int) -> list[Item]:
    """The code spans of a cell, or its plain text where it has none."""
    cell = _cell(row, column)
    where = Location(doc.path, row.line)
    if cell is None:
        return []
    if cell.codes:
        return [Item(Value.string(code.text), where, code.span) for code in cell.codes]
    if cell.text:
        return [Item(Value.string(cell.text), where, cell.doc_span(0, len(cell.text)))]
    return []


def _row_items(doc: Document, table: Table, form: TableClaim) -> list[Item]:
    """One item per configured row label present in the table: its cell read as a quantity."""
    column = _column(doc, table, form.column, 1)
    rows: dict[str, Row] = {}
    wanted = {fold_key(label) for label, _ in form.rows}
    for each in table.rows:
        if each.cells:
            key = fold_key(each.cells[0].text)
            if key in rows and key in wanted:
                raise AmbiguousClaim(f"the '{table.header[0].text}' table has two rows labelled "
                                     f"'{each.cells[0].text}' (lines {rows[key].line}, {each.line})",
                                     Location(doc.path, each.line))
            rows.setdefault(key, each)
    items = []
    for label, _fact in form.rows:
        row = rows.get(fold_key(label))
        if row is None:
            continue  # the engine reports a missing row
        cell = _cell(row, column)
        text = cell.text if cell else ""
        span = cell.doc_span(0, len(text)) if cell else row.span
        items.append(Item(read_value(text), Location(doc.path, row.line), span, label=label))
    return items


def _entry_items(doc: Document, table: Table, form: TableClaim) -> list[Item]:
    """One item per row for a map fact: labelled by its key cell (its first code span, or its
    text), valued by its ``column`` cell (its first code span, or its text) read as a quantity."""
    keys = _column(doc, table, form.key_column, 0)
    values = _column(doc, table, form.column, 1)
    items = []
    for row in table.rows:
        key, value = _cell(row, keys), _cell(row, values)
        if key is None or not (key.codes or key.text):
            continue
        label = key.codes[0].text if key.codes else key.text
        if value is not None and value.codes:
            text, span = value.codes[0].text, value.codes[0].span
        else:
            text = value.text if value is not None else ""
            span = value.doc_span(0, len(text)) if value is not None else row.span
        items.append(Item(read_value(text) if text else Value.string(""), Location(doc.path, row.line), span,
                          label=label))
    if not items:
        raise ClaimNotFound(_gone(f"the '{table.header[0].text}' table has no rows"), Location(doc.path, table.line))
    return items


# -- sections, phrases, mentions ---------------------------------------------


def _section_claim(doc: Document, form: SectionClaim) -> Claim:
    section = _section(doc, form.section)
    where = Location(doc.path, section.line)
    if form.list:
        items = []
        for entry in _within(doc.list_items, section, lambda i: i.span[0]):
            if entry.ordered:
                continue
            if entry.codes:
                first = entry.codes[0]
                items.append(Item(Value.string(first.text), Location(doc.path, entry.line), first.span))
            elif entry.text:
                span = entry.doc_span(0, len(entry.text))
                items.append(Item(Value.string(entry.text), Location(doc.path, entry.line), span))
        what = "bullet list items"
    else:
        pattern = _compile(doc, form.code_spans) if form.code_spans else None
        spans = _within(doc.code_spans, section, lambda c: c.span[0])
        found = group_each(pattern, [c.text for c in spans], where) if pattern else [None] * len(spans)
        items = []  # with a (group), the claim is group 1: `--short (-s)` -> short
        for code, part in zip(spans, found):
            if pattern is not None and part is None:
                continue
            start, end = part or (0, len(code.text))
            items.append(Item(Value.string(code.text[start:end]), Location(doc.path, code.line),
                              (code.span[0] + start, code.span[0] + end)))
        what = f"code spans matching '{form.code_spans}'" if pattern else "code spans"
    if not items:
        raise ClaimNotFound(_gone(f"section '{section.title}' has no {what}"), where)
    return Claim(tuple(items), where)


def _phrase_claim(doc: Document, form: PhraseClaim) -> Claim:
    section = _section(doc, form.section) if form.section else None
    regex = template_regex(form.template)
    items = []
    for sentence in _within(doc.sentences, section, lambda s: s.span[0]):
        for m in regex.finditer(sentence.text):  # every occurrence is a claim, not only the first
            span = sentence.doc_span(m.start("value"), m.end("value"))
            line = doc.line_of(span[0])
            items.append(Item(read_value(m.group("value")), Location(doc.path, line), span))
    if not items:
        raise _not_found(doc, f"no sentence matches '{form.template}'", section)
    first = items[0].location
    return Claim(tuple(items), first if first is not None else Location(doc.path))


def template_regex(template: str) -> re.Pattern[str]:
    """``template`` as a regex: literal text (case-insensitive, any whitespace run matching
    any other) around ``{value}``, a quantity captured as the group ``value``."""
    before, marker, after = template.partition("{value}")
    if not marker:
        raise PatternError(f"the phrase template {template!r} has no {{value}}")
    lead = r"(?<!\w)" if re.match(r"\w", before) else ""  # whole words: "after" is not in "thereafter"
    trail = r"(?!\w)" if re.search(r"\w\Z", after) else ""
    return re.compile(f"{lead}{_literal(before)}(?P<value>{QUANTITY_PATTERN}){_literal(after)}{trail}")


def _literal(text: str) -> str:
    parts = [r"\s+" if piece.isspace() else re.escape(piece) for piece in re.split(r"(\s+)", text) if piece]
    return f"(?i:{''.join(parts)})" if parts else ""


def _mentions_claim(doc: Document, form: MentionsClaim) -> Claim:
    section = _section(doc, form.section) if form.section else None
    items = [Item(Value.string(c.text), Location(doc.path, c.line), c.span)
             for c in _within(doc.code_spans, section, lambda c: c.span[0])]
    return Claim(tuple(items), Location(doc.path, section.line if section else None))


# -- shared ---------------------------------------------------------------------


def _section(doc: Document, title: str) -> Section:
    same = [s for s in doc.sections if fold_key(s.title) == fold_key(title)]
    if len(same) > 1:
        lines = _lines(s.line for s in same)
        raise AmbiguousClaim(f"{len(same)} sections are headed '{title}' (lines {lines}); rename one, "
                             "or guard each under a heading of its own", Location(doc.path, same[1].line))
    found = doc.section(title)
    if found is None:
        raise ClaimNotFound(_gone(f"no section headed '{title}'"), Location(doc.path))
    return found


def _within(parts: Iterable[T], section: Section | None, offset: Callable[[T], int]) -> list[T]:
    return [p for p in parts if section is None or section.contains(offset(p))]


def _compile(doc: Document, pattern: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(doc.path), what="code_spans pattern")


def _lines(lines: Iterable[int], shown: int = 5) -> str:
    """``3, 10`` or ``3, 8, 13, 18, 23 and 1995 more``."""
    every = [str(n) for n in lines]
    more = f" and {len(every) - shown} more" if len(every) > shown else ""
    return ", ".join(every[:shown]) + more


def _gone(what: str) -> str:
    return f"the document no longer states it: {what}"


def _not_found(doc: Document, what: str, section: Section | None) -> ClaimNotFound:
    if section is None:
        return ClaimNotFound(_gone(what), Location(doc.path))
    return ClaimNotFound(_gone(f"{what} in section '{section.title}'"), Location(doc.path, section.line))


_READERS: dict[type, Callable[[Document, Any], Claim]] = {
    TableClaim: _table_claim,
    SectionClaim: _section_claim,
    PhraseClaim: _phrase_claim,
    MentionsClaim: _mentions_claim,
}
