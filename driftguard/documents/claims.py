"""Read what a document claims, one reader per claim form.

Each reader turns a parsed ``Document`` and a claim form (``driftguard.config.specs``)
into a ``Claim``: items with their line and the exact span of the value's text.
When the table, section, column or sentence the form names is gone, or states
nothing, the reader raises ``ClaimNotFound`` ("the document no longer states
it"), so a deleted claim never passes as an empty one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from driftguard.config.specs import (
    BlockClaim,
    ClaimForm,
    HeadingsClaim,
    ItemsClaim,
    MentionsClaim,
    PhraseClaim,
    SectionClaim,
    SnippetClaim,
    TableClaim,
    TextClaim,
)
from driftguard.documents.blocks import block_claim
from driftguard.documents.matches import headings_claim, items_claim, list_items, text_claim
from driftguard.documents.model import Cell, Document, Row, Sentence, Table, fold_key
from driftguard.documents.phrase_index import sentence_index, template_words
from driftguard.documents.scope import Scope, gone, line_list, not_found, scope_of, top_line, within
from driftguard.documents.snippets import snippet_claim
from driftguard.model import AmbiguousClaim, Claim, ClaimNotFound, Item, Location, PatternError, Value
from driftguard.quantities import find_quantities, read_value
from driftguard.quantities.grammar import SEARCH
from driftguard.user_regex import Compiled, compile_user_regex, group_each


def read_claim(doc: Document, form: ClaimForm) -> Claim:
    """The claim ``form`` reads from ``doc``; raises ClaimNotFound or PatternError."""
    reader = _READERS.get(type(form))
    if reader is None:
        raise TypeError(f"not a claim form: {form!r}")
    return reader(doc, form)


# -- tables -------------------------------------------------------------------


def _table_claim(doc: Document, form: TableClaim) -> Claim:
    section = scope_of(doc, form.section) if form.section else None
    table = _table(doc, form.table, section, form.nth)
    where = Location(doc.path, table.line)
    if form.rows:
        return Claim(tuple(_row_items(doc, table, form)), where)
    if form.keyed:
        return Claim(tuple(_entry_items(doc, table, form)), where)
    column = _column(doc, table, form.column, 0)
    items = [item for row in table.rows for item in _cell_values(doc, row, column)]
    if form.cells:
        items = _kept(doc, items, form.cells, "cells pattern")
    if not items:
        raise ClaimNotFound(gone(f"the '{table.header[0].text}' table states nothing in column "
                                  f"'{table.header[column].text}'"), where)
    return Claim(tuple(items), where)


def _table(doc: Document, name: str, section: Scope | None, nth: int | None = None) -> Table:
    wanted = fold_key(name)
    found = [t for t in within(doc.tables, section, lambda t: t.span[0])
             if t.header and fold_key(t.header[0].text) == wanted]
    if not found:
        raise not_found(doc, f"no table headed '{name}'", section)
    if nth is not None:
        if nth > len(found):
            raise not_found(doc, f"no table {nth} headed '{name}' (there are {len(found)})", section)
        return found[nth - 1]
    if len(found) > 1:
        lines = line_list(t.line for t in found)
        hint = "`table: {header: NAME, nth: N}` (1-based)" if len({_head_of(doc, t) for t in found}) == 1 else \
            "`section`, or `table: {header: NAME, nth: N}` (1-based)"
        raise AmbiguousClaim(f"{len(found)} tables are headed '{name}' (lines {lines}); name the one meant with "
                             f"{hint}", Location(doc.path, found[1].line))
    return found[0]


def _head_of(doc: Document, table: Table) -> int:
    """The line of the heading ``table`` sits under (0 before any)."""
    return max((h.line for h in doc.headings if h.line <= table.line), default=0)


def _kept(doc: Document, items: list[Item], pattern: str, what: str) -> list[Item]:
    """Group 1 of ``pattern`` in each item's text; items it does not match are dropped."""
    found = group_each(compile_user_regex(pattern, Location(doc.path), what=what, groups=1),
                       [str(i.value.data) for i in items], Location(doc.path))
    out = []
    for item, part in zip(items, found):
        if part is None:
            continue
        text = str(item.value.data)[part[0]:part[1]]
        span = (item.span[0] + part[0], item.span[0] + part[1]) if item.span else None
        out.append(Item(Value.string(text), item.location, span, item.label))
    return out


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
        raise ClaimNotFound(gone(f"the '{table.header[0].text}' table has no {missing} "
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
        raise ClaimNotFound(gone(f"the '{table.header[0].text}' table has no rows"), Location(doc.path, table.line))
    return items


# -- sections, phrases, mentions ---------------------------------------------


def _section_claim(doc: Document, form: SectionClaim) -> Claim:
    section = scope_of(doc, form.section)
    where = section.where(doc)
    if form.list:
        items = []
        for entry in within(doc.list_items, section, lambda i: i.span[0]):
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
        spans = within(doc.code_spans, section, lambda c: c.span[0])
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
        raise ClaimNotFound(gone(f"section '{section.title or doc.path}' has no {what}"), where)
    return Claim(tuple(items), where)


def _phrase_claim(doc: Document, form: PhraseClaim) -> Claim:
    scope = scope_of(doc, form.section, form.within) if form.section or form.within else None
    head, tail = _around(form.template)
    needles = template_words(form.template.partition("{value}")[0])
    sentences = doc.sentences
    if needles:  # only the sentences holding every word the template states before {value}
        sentences = tuple(sentences[i] for i in sentence_index(doc.sentences).candidates(needles))
    items = []
    for sentence in within(sentences, scope, lambda s: s.span[0]):
        heads = _head_ends(head, sentence.text)
        found = _reads(sentence.text, heads, tail)
        found += _code_values(doc, sentence, heads, tail, found)
        for start, end in sorted(found):  # every occurrence is a claim, not only the first
            span = sentence.doc_span(start, end)
            where = Location(doc.path, doc.line_of(span[0]))
            text = sentence.text[start:end]
            if form.members:
                items += list_items(text, span, where)
            else:
                items.append(Item(read_value(text), where, span))
    if not items:
        what = f"no sentence matches '{form.template}'" + (" with a list in a code span" if form.members else "")
        raise not_found(doc, what, scope)
    first = items[0].location
    return Claim(tuple(items), first if first is not None else Location(doc.path))


def phrase_reads(template: str, text: str) -> list[tuple[int, int]]:
    """Where ``template`` reads a quantity in the plain sentence ``text``, as ``check``
    reads it (the spans of each value, in order); a template without ``{value}`` is a
    ``PatternError``."""
    head, tail = _around(template)
    return _reads(text, _head_ends(head, text), tail)


def _reads(text: str, heads: frozenset[int] | None, tail: re.Pattern[str]) -> list[tuple[int, int]]:
    return [(a, end) for a, b in _quantities(text) if heads is None or a in heads
            for end in [_value_end(text, a, b, tail)] if end is not None]


@functools.lru_cache(maxsize=65536)
def _quantities(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``text`` states a quantity: found once per sentence, however many phrase
    rules read it (each template only checks the words around them)."""
    return tuple((a, b) for a, b, _ in find_quantities(text))


def _value_end(text: str, start: int, end: int, tail: re.Pattern[str]) -> int | None:
    """Where the value read at ``start`` ends so that the template's tail follows it: the
    whole quantity, else its longest leading part that is a quantity on its own, as in
    'retried {value} times' over "retried 3 times", where the quantity read is "3 times"."""
    if tail.match(text, end):
        return end
    for cut in range(end - 1, start, -1):
        if not text[cut - 1].isspace() and tail.match(text, cut) and SEARCH.fullmatch(text, start, cut):
            return cut
    return None


@functools.lru_cache(maxsize=4096)
def _around(template: str) -> tuple[re.Pattern[str] | None, re.Pattern[str]]:
    """The template's text before ``{value}`` (None when there is none) and after it."""
    before, marker, after = template.partition("{value}")
    if not marker:
        raise PatternError(f"the phrase template {template!r} has no {{value}}")
    head = re.compile(f"(?=({_lead(before)}{_literal(before)}))") if before else None
    return head, re.compile(f"{_literal(after)}{_trail(after)}")


def _head_ends(head: re.Pattern[str] | None, text: str) -> frozenset[int] | None:
    """Every offset of ``text`` the template's text before ``{value}`` ends at, found in one
    pass (overlaps included), so each quantity is checked in constant time; None: any."""
    return None if head is None else frozenset(m.end(1) for m in head.finditer(text))


def _code_values(doc: Document, sentence: Sentence, heads: frozenset[int] | None, tail: re.Pattern[str],
                 taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where a code span stands at ``{value}`` in ``sentence``: "Defaults to `data/`"."""
    out = []
    codes = [c for c in doc.code_spans if sentence.span[0] <= c.span[0] < sentence.span[1]]
    if heads is not None and codes:  # only a span starting where the template's head ends can be read
        starts = {c.span[0]: c for c in codes}
        for head in sorted(heads):
            code = starts.get(sentence.doc_span(head, head + 1)[0]) if head < len(sentence.text) else None
            if code is None or sentence.doc_span(head, head + len(code.text)) != code.span \
                    or any(a <= head < b for a, b in taken):
                continue
            if tail.match(sentence.text, head + len(code.text)):
                out.append((head, head + len(code.text)))
        return out
    for code in codes:
        at = _plain_offset(sentence, code.text, code.span)
        if at is None or any(a <= at < b for a, b in taken):
            continue
        end = at + len(code.text)
        if (heads is None or at in heads) and tail.match(sentence.text, end):
            out.append((at, end))
    return out


def _plain_offset(sentence: Sentence, text: str, span: tuple[int, int]) -> int | None:
    """Where the code span ``text`` (at document ``span``) sits in the sentence's plain text."""
    at = sentence.text.find(text)
    while at >= 0:
        if sentence.doc_span(at, at + len(text)) == span:
            return at
        at = sentence.text.find(text, at + 1)
    return None


def _lead(before: str) -> str:
    return r"(?<!\w)" if re.match(r"\w", before) else ""  # whole words: "after" is not in "thereafter"


def _trail(after: str) -> str:
    return r"(?!\w)" if re.search(r"\w\Z", after) else ""


def _literal(text: str) -> str:
    parts = [r"\s+" if piece.isspace() else re.escape(piece) for piece in re.split(r"(\s+)", text) if piece]
    return f"(?i:{''.join(parts)})" if parts else ""


def _mentions_claim(doc: Document, form: MentionsClaim) -> Claim:
    section = scope_of(doc, form.section) if form.section else None
    items = [Item(Value.string(c.text), Location(doc.path, c.line), c.span)
             for c in within(doc.code_spans, section, lambda c: c.span[0])]
    return Claim(tuple(items), Location(doc.path, section.line if section and section.line else top_line(doc)))


# -- shared ---------------------------------------------------------------------


def _compile(doc: Document, pattern: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(doc.path), what="code_spans pattern")


_READERS: dict[type, Callable[[Document, Any], Claim]] = {
    TableClaim: _table_claim,
    SectionClaim: _section_claim,
    PhraseClaim: _phrase_claim,
    MentionsClaim: _mentions_claim,
    TextClaim: text_claim,
    HeadingsClaim: headings_claim,
    ItemsClaim: items_claim,
    BlockClaim: block_claim,
    SnippetClaim: snippet_claim,
}
