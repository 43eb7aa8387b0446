"""Claims that a regular expression or a heading level picks out of a document: every
match of ``text:`` in the prose (and, with ``blocks``, the lines of code blocks), each
heading under a scope, each bullet item. Every match is an item at its own line with
the exact span of the value; a list written in one code span (``['.mjs', '.js']``) is
several members when the claim is a set.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence

from driftguard.config.specs import HeadingsClaim, ItemsClaim, TextClaim
from driftguard.documents.model import Document, Prose
from driftguard.documents.scope import Scope, not_found, scope_of, within
from driftguard.model import Claim, Item, Location, Value
from driftguard.quantities import read_value
from driftguard.user_regex import Compiled, compile_user_regex, every_group, group_each

_Place = Callable[[int, int], tuple[int, int]]
"""Offsets in a piece of text -> the document's span."""

_LIST = re.compile(r"\A\s*[\[(]([^\[\]()]*)[\])]\s*\Z")
_UNION = re.compile(r"""\A\s*(?:(['"])[^'"|]*\1\s*\|\s*)+(['"])[^'"|]*\2\s*\Z""")


def text_claim(doc: Document, form: TextClaim) -> Claim:
    scope = scope_of(doc, form.section, form.within) if form.section or form.within else None
    pattern = _compile(doc, form.regex, "text pattern")
    units = _units(doc, scope, form.blocks)
    spans = every_group(pattern, [text for text, _ in units], Location(doc.path))
    items: list[Item] = []
    for (text, place), found in zip(units, spans):
        for start, end in found:
            span = place(start, end)
            where = Location(doc.path, doc.line_of(span[0]))
            value = text[start:end]
            if form.scalar:
                items.append(Item(read_value(value), where, span))
            else:
                items += list_items(value, span, where)
    if not items:
        raise not_found(doc, f"no text matches '{form.regex}'", scope)
    return Claim(tuple(items), items[0].location or Location(doc.path))


def headings_claim(doc: Document, form: HeadingsClaim) -> Claim:
    scope = scope_of(doc, form.section) if form.section else None
    heads = [h for h in within(doc.headings, scope, lambda h: h.span[0])
             if (form.level is None or h.level == form.level)]
    items = _picked(doc, heads, form.match, "headings match pattern")
    if not items:
        level = f"level-{form.level} " if form.level else ""
        raise not_found(doc, f"no {level}heading" + (f" matches '{form.match}'" if form.match else ""), scope)
    return Claim(tuple(items), items[0].location or Location(doc.path))


def items_claim(doc: Document, form: ItemsClaim) -> Claim:
    scope = scope_of(doc, form.section) if form.section else None
    bullets = [i for i in within(doc.list_items, scope, lambda i: i.span[0]) if not i.ordered]
    if form.match:
        items = _picked(doc, bullets, form.match, "items match pattern")
    else:
        items = [Item(Value.string(b.codes[0].text), Location(doc.path, b.line), b.codes[0].span)
                 for b in bullets if b.codes]
    if not items:
        raise not_found(doc, "no bullet item" + (f" matches '{form.match}'" if form.match else " with a code span"),
                    scope)
    return Claim(tuple(items), items[0].location or Location(doc.path))


def list_items(text: str, span: tuple[int, int], where: Location) -> list[Item]:
    """The members ``text`` states: each element of a list literal (``['.mjs', '.js']``,
    ``(a, b)``) or of a union of string literals (``'spa' | 'mpa'``), or the text
    itself as one member, each with its own span."""
    found = _LIST.match(text)
    if found is not None:
        body, base, sep = found.group(1), found.start(1), ","
    elif _UNION.match(text):
        body, base, sep = text, 0, "|"
    else:
        return [Item(read_value(text), where, span)]
    out = []
    for element, at in _elements(body, base, sep):
        out.append(Item(Value.string(element), where, (span[0] + at, span[0] + at + len(element))))
    return out


def _elements(body: str, base: int, sep: str) -> Iterator[tuple[str, int]]:
    """Each ``sep``-separated element of a list literal's body, unquoted, with its offset."""
    at = 0
    for part in body.split(sep):
        stripped = part.strip()
        offset = base + at + part.find(stripped) if stripped else base + at
        at += len(part) + 1
        if not stripped:
            continue
        if len(stripped) > 1 and stripped[0] == stripped[-1] and stripped[0] in "'\"`":
            try:
                text = ast.literal_eval(stripped) if stripped[0] != "`" else stripped[1:-1]
            except (ValueError, SyntaxError):
                text = stripped[1:-1]
            yield str(text), offset + 1
        else:
            yield stripped, offset


def _units(doc: Document, scope: Scope | None, blocks: bool) -> list[tuple[str, _Place]]:
    """The prose of the scope, each piece with a map from its offsets to the document's:
    paragraphs (list items' among them), table cells, headings, and code block lines."""
    prose: list[Prose] = [*doc.paragraphs, *(c for t in doc.tables for c in (*t.header, *(x for r in t.rows
                                                                                        for x in r.cells))),
                          *doc.headings]
    units: list[tuple[str, _Place]] = [(p.text, p.doc_span) for p in within(prose, scope, lambda p: p.span[0])]
    if blocks:
        for block in within(doc.blocks, scope, lambda b: b.span[0]):
            start = block.body_span[0]
            for line in doc.text[start:block.body_span[1]].splitlines(keepends=True):
                units.append((line.rstrip("\r\n"), _shift(start)))
                start += len(line)
    return sorted(units, key=lambda u: u[1](0, 0)[0])


def _shift(base: int) -> _Place:
    return lambda a, b: (base + a, base + b)


def _picked(doc: Document, parts: Sequence[Prose], pattern: str | None, what: str) -> list[Item]:
    """Each part's text whole, or group 1 of ``pattern`` matched against the part's source
    (markup and all, so that ``^`([^`]+)`` can anchor on backticks); parts it does not
    match are left out."""
    if pattern is None:
        return [Item(Value.string(p.text), Location(doc.path, p.line), p.doc_span(0, len(p.text))) for p in parts
                if p.text]
    sources = [doc.text[p.span[0]:p.span[1]] for p in parts]
    found = group_each(_compile(doc, pattern, what), sources, Location(doc.path))
    return [Item(Value.string(source[a:b]), Location(doc.path, p.line), (p.span[0] + a, p.span[0] + b))
            for p, source, hit in zip(parts, sources, found) if hit is not None for a, b in [hit]]


def _compile(doc: Document, pattern: str, what: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(doc.path), what=what, groups=1)



