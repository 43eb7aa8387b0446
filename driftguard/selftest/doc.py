"""Selftest mutations of markdown documents, and of files read by a ``pattern`` regex.

Document edits use the spans the document model records, so a changed value
is rewritten exactly where the claim reads it, in the document's own style
(``format_like``), and an added row, code span or bullet copies the shape of
its neighbours. ``add_member`` / ``change_scalar`` are the pattern-fact edits.
"""

from __future__ import annotations

import re

from driftguard.config.loader import FactSpec, Rule
from driftguard.config.specs import Pattern, SectionClaim, TableClaim
from driftguard.documents.reader import Document, Section, Table, parse_document
from driftguard.model import Fact, Item, Kind, Location
from driftguard.quantities import QuantityError, format_like
from driftguard.selftest.edits import (
    SELFTEST,
    CannotApply,
    Edit,
    NotApplicable,
    bumped,
    last_item,
    last_line,
    line_number,
    line_starts,
    newline_of,
    offset_of,
)
from driftguard.sources.text import compile_pattern
from driftguard.user_regex import Compiled, compile_user_regex

FILLER = "selftest filler"
CANDIDATES = (SELFTEST, SELFTEST.upper(), "driftguardselftest", "DriftguardSelftest", "driftguard-selftest",
              "driftguard.selftest", "9999")
"""Spellings of the bogus value, tried in order until one fits the rule's regex."""


# -- documents: sets ----------------------------------------------------------


def add_row(text: str, rule: Rule, table_line: int | None) -> Edit:
    """A new last row with the bogus value (in backticks) in the claimed column."""
    form = rule.claim
    assert isinstance(form, TableClaim)
    doc = parse_document(rule.doc, text)
    table = _table_at(doc, table_line)
    column = table.column(form.column) if form.column else 0
    if column is None:
        raise CannotApply(f"the '{form.table}' table has no column '{form.column}'")
    starts = line_starts(text)
    last = text[starts[table.end_line - 1]:table.span[1]]
    prefix = last[: len(last) - len(last.lstrip(" \t>"))]
    body = last[len(prefix):].rstrip()
    cells = [f"`{SELFTEST}`" if i == column else FILLER for i in range(len(table.header))]
    row = prefix + ("| " if body.startswith("|") else "") + " | ".join(cells) + (" |" if body.endswith("|") else "")
    at = table.span[1]
    new = text[:at] + newline_of(text) + row + text[at:]
    return Edit(new, f"added the row '{row.strip()}' to the '{form.table}' table", table.end_line + 1, (SELFTEST,))


def _table_at(doc: Document, line: int | None) -> Table:
    for table in doc.tables:
        if table.line == line:
            return table
    raise CannotApply(f"no table at line {line} of {doc.path}")


def _claimed_section(text: str, rule: Rule) -> tuple[SectionClaim, Document, Section]:
    """The rule's section claim, the parsed document and the section it names."""
    form = rule.claim
    assert isinstance(form, SectionClaim)
    doc = parse_document(rule.doc, text)
    section = doc.section(form.section)
    if section is None:
        raise CannotApply(f"no section '{form.section}' in {rule.doc}")
    return form, doc, section


def add_code_span(text: str, rule: Rule) -> Edit:
    """A sentence naming the bogus value in a code span, first in the claimed section."""
    form, doc, section = _claimed_section(text, rule)
    value = _fitting(form.code_spans, [c.text for c in doc.code_spans if section.contains(c.span[0])])
    nl, at = newline_of(text), section.body_start
    sentence = f"The selftest names `{value}` here."
    lead = nl if at and text[at - 1] not in "\r\n" else ""
    if text.startswith(nl, at):  # a blank line follows the heading: keep one on each side
        lead, trail = lead + nl, nl
    else:
        trail = nl + nl
    new = text[:at] + lead + sentence + trail + text[at:]
    return Edit(new, f"added the sentence '{sentence}' to section '{section.title}'",
                line_number(new, at + len(lead)), (value,))


def _fitting(regex: str | None, neighbours: list[str]) -> str:
    """The first candidate value ``regex`` matches, ours first, then ones derived from
    the values already there (``DG104`` -> ``DG999``)."""
    if regex is None:
        return SELFTEST
    pattern = compile_user_regex(regex, Location(""))
    for candidate in (*CANDIDATES, *derived([n for n in neighbours if pattern.search(n)])):
        if pattern.search(candidate):
            return candidate
    raise NotApplicable(f"none of the selftest's values ({', '.join(CANDIDATES)}) matches /{regex}/")


def derived(values: list[str]) -> list[str]:
    """New values shaped like the last of ``values``: its digits turned to 9s (or 8s),
    its letters to Z (or Q); none already among ``values``."""
    if not values:
        return []
    last, taken = values[-1], set(values)
    shapes = [re.sub(r"[0-9]", d, last) for d in "98"]
    shapes += [re.sub(r"[A-Z]", c, re.sub(r"[a-z]", c.lower(), last)) for c in "ZQ"]
    return [s for s in dict.fromkeys(shapes) if s not in taken]


def add_bullet(text: str, rule: Rule) -> Edit:
    """A new bullet after the section's last bullet item, with the same marker and indent."""
    form, doc, section = _claimed_section(text, rule)
    items = [i for i in doc.list_items if section.contains(i.span[0]) and not i.ordered]
    if not items:
        raise CannotApply(f"section '{section.title}' has no bullet items to add to")
    last = items[-1]
    starts = line_starts(text)
    first_line = text[starts[last.line - 1]:].split("\n", 1)[0]
    marker = re.match(r"[ \t>]*[-*+][ \t]+", first_line)
    if marker is None:
        raise CannotApply(f"cannot find the bullet marker of line {last.line}")
    content = f"`{SELFTEST}` ({FILLER})" if last.codes else SELFTEST
    end_line = line_number(text, max(last.span[1] - 1, last.span[0]))
    at = starts[end_line] - len(_break_before(text, starts[end_line])) if end_line < len(starts) else len(text)
    bullet = marker.group() + content
    new = text[:at] + newline_of(text) + bullet + text[at:]
    return Edit(new, f"added the bullet '{bullet.strip()}' to section '{section.title}'", end_line + 1, (SELFTEST,))


def _break_before(text: str, start: int) -> str:
    return "\r\n" if text[max(start - 2, 0):start] == "\r\n" else text[start - 1:start]


# -- documents: scalars -------------------------------------------------------


def change_value(text: str, item: Item) -> Edit:
    """The stated quantity rewritten to a different amount in the document's own style."""
    if item.span is None:
        raise CannotApply("the claim reader recorded no span for the stated value")
    start, end = item.span
    old = item.value
    if old.kind in (Kind.NUMBER, Kind.DURATION):
        new_value = bumped(old)
        try:
            written = format_like(new_value, old)
        except QuantityError as exc:
            raise CannotApply(f"cannot write {new_value.canonical} like '{old.text}': {exc}") from None
        expect: tuple[str, ...] = (written.strip(), new_value.canonical)
    else:
        written = text[start:end] + "_selftest"
        expect = (written,)
    new = text[:start] + written + text[end:]
    where = f" (row '{item.label}')" if item.label else ""
    shown = " ".join(text[start:end].split())
    return Edit(new, f"'{shown}' -> '{written}'{where}", line_number(text, start), expect)


# -- pattern facts ------------------------------------------------------------


def add_member(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """A copy of the last match's line with a new value in the group, inserted after it."""
    regex = _pattern(spec)
    item, line = last_item(fact), last_line(fact)
    starts = line_starts(text)
    where = item.location or Location(spec.file, line)
    at = offset_of(text, where, starts)
    old = str(item.value.data)
    if text[at:at + len(old)] != old:
        raise CannotApply(f"`{old}` is not at {where}")
    begin = starts[line - 1]
    end = starts[line] - len(_break_before(text, starts[line])) if line < len(starts) else len(text)
    for candidate in (*CANDIDATES, *derived([str(i.value.data) for i in fact.items])):
        copy = text[begin:at] + candidate + text[at + len(old):end]
        new = text[:end] + newline_of(text) + copy + text[end:]
        if any(m.group(1) == candidate for m in regex.finditer(new)):
            return Edit(new, f"added the line `{copy.strip()}`", line + 1, (candidate,))
    raise NotApplicable(f"no line the selftest can write matches /{regex.pattern}/ "
                        f"with a new value (tried {', '.join(CANDIDATES)})")


def change_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """The matched value rewritten in place (a quantity to a different amount)."""
    regex = _pattern(spec)
    item = fact.items[0]
    if item.location is None:
        raise CannotApply(f"fact '{fact.name}' has no location")
    at = offset_of(text, item.location)
    old = item.value.text or str(item.value.data)
    if text[at:at + len(old)] != old:
        raise CannotApply(f"`{old}` is not at {item.location}")
    tries: list[str] = []
    if item.value.kind in (Kind.NUMBER, Kind.DURATION):
        try:
            tries.append(format_like(bumped(item.value), item.value))
        except QuantityError:
            pass
    tries += [old + "_selftest", old + "1"]
    for written in tries:
        new = text[:at] + written + text[at + len(old):]
        if any(m.start(1) == at and m.group(1) == written for m in regex.finditer(new)):
            return Edit(new, f"`{old}` -> `{written}`", item.location.line)
    raise NotApplicable(f"no changed value the selftest can write still matches /{regex.pattern}/")


def _pattern(spec: FactSpec) -> Compiled[str]:
    assert isinstance(spec.selector, Pattern)
    return compile_pattern(spec.selector.regex, spec.file)

