"""Selftest mutations of markdown documents.

Edits use the spans the document model records, so a changed value is
rewritten exactly where the claim reads it, in the document's own style
(``format_like``), and an added row, code span or bullet copies the shape of
its neighbours. A code span added to a section whose claim keeps only spans
matching ``code_spans`` holds a value that regex accepts and the code does not
declare, so the rule must report it missing in code. A ``links`` rule is
proved by renaming the heading one of its links names (``remove_heading``).
(Files read by a ``pattern`` regex are mutated by ``driftguard.sources.text.mutate``.)
A reStructuredText page is written in its own markup by ``selftest.doc_rst``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable
from pathlib import PurePosixPath

from driftguard import languages
from driftguard.config.loader import Rule
from driftguard.config.specs import Form
from driftguard.documents.formats import read_document
from driftguard.documents.links import target_of
from driftguard.documents.model import Document, Heading, Section, Table
from driftguard.documents.references import shape_of
from driftguard.documents.targets import is_relative, resolve_path, split_target
from driftguard.model import Item, Kind, Location
from driftguard.quantities import QuantityError, format_like
from driftguard.selftest import doc_rst
from driftguard.sources.mutation import (
    SELFTEST,
    CannotApply,
    Edit,
    NotApplicable,
    bumped,
    line_number,
    line_starts,
    newline_of,
)
from driftguard.sources.text.samples import CANDIDATES, derived, examples, variants
from driftguard.user_regex import compile_user_regex

__all__ = [
    "CANDIDATES", "FILLER", "add_bullet", "add_code_span", "add_row", "change_value", "derived", "heading_target",
    "remove_heading",
]

FILLER = "selftest filler"


# -- documents: sets ----------------------------------------------------------


def add_row(text: str, rule: Rule, table_line: int | None) -> Edit:
    """A new last row with the bogus value (in backticks) in the claimed column."""
    form = rule.claim
    doc = read_document(rule.doc, text)
    table = _table_at(doc, table_line)
    name, default = form.member_column or (None, 0)
    column = table.column(name) if name else default
    if column is None:
        raise CannotApply(f"{form.describe()} has no column '{name}'")
    if doc_rst.is_rst(rule.doc):
        new, line = doc_rst.add_row(text, table, column, FILLER)
        return Edit(new, f"added a row holding {doc_rst.code(SELFTEST)} to {form.describe()}", line, (SELFTEST,))
    starts = line_starts(text)
    last = text[starts[table.end_line - 1]:table.span[1]]
    prefix = last[: len(last) - len(last.lstrip(" \t>"))]
    body = last[len(prefix):].rstrip()
    cells = [f"`{SELFTEST}`" if i == column else FILLER for i in range(len(table.header))]
    row = prefix + ("| " if body.startswith("|") else "") + " | ".join(cells) + (" |" if body.endswith("|") else "")
    at = table.span[1]
    new = text[:at] + newline_of(text) + row + text[at:]
    return Edit(new, f"added the row '{row.strip()}' to {form.describe()}", table.end_line + 1, (SELFTEST,))


def _table_at(doc: Document, line: int | None) -> Table:
    for table in doc.tables:
        if table.line == line:
            return table
    raise CannotApply(f"no table at line {line} of {doc.path}")


def _claimed_section(text: str, rule: Rule) -> tuple[Form, Document, Section]:
    """The rule's claim form, the parsed document and the section the form reads under."""
    form = rule.claim
    doc = read_document(rule.doc, text)
    section = doc.section(form.scope) if form.scope else None
    if section is None:
        raise CannotApply(f"no section '{form.scope}' in {rule.doc}")
    return form, doc, section


def add_code_span(text: str, rule: Rule, declared: Collection[str] = ()) -> Edit:
    """A sentence naming a bogus value in a code span, first in the claimed section: a value
    the section's ``code_spans`` regex keeps and neither the section nor ``declared`` (the
    canonical values the code declares) holds."""
    form, doc, section = _claimed_section(text, rule)
    value, claimed = _fitting(form.span_regex, [c.text for c in doc.code_spans if section.contains(c.span[0])],
                              declared)
    nl, at = newline_of(text), section.body_start
    if doc_rst.is_rst(rule.doc):
        sentence = f"The selftest names {doc_rst.code(value)} here."
        new, line = doc_rst.add_sentence(text, section, sentence)
        return Edit(new, f"added the sentence '{sentence}' to section '{section.title}'", line, (claimed,))
    sentence = f"The selftest names `{value}` here."
    lead = nl if at and text[at - 1] not in "\r\n" else ""
    if text.startswith(nl, at):  # a blank line follows the heading: keep one on each side
        lead, trail = lead + nl, nl
    else:
        trail = nl + nl
    new = text[:at] + lead + sentence + trail + text[at:]
    return Edit(new, f"added the sentence '{sentence}' to section '{section.title}'",
                line_number(new, at + len(lead)), (claimed,))


def _fitting(regex: str | None, neighbours: list[str], declared: Collection[str] = ()) -> tuple[str, str]:
    """The first new value ``regex`` keeps: ours first, then ones shaped like the spans it
    keeps already (``DG104`` -> ``DG999``, ``DG105``), then strings the regex itself can
    match (``^(GET|PUT)$`` -> ``PUT``). Returns the span's text and what the claim reads
    of it (group 1 where the regex has a group)."""
    avoid = {v.casefold() for v in (*neighbours, *declared)}  # a rule may compare ignoring case
    if regex is None:
        plain = next((c for c in CANDIDATES if c.casefold() not in avoid), SELFTEST)
        return plain, plain
    pattern = compile_user_regex(regex, Location(""))
    kept = [n for n in neighbours if pattern.search(n)]
    pool = (*CANDIDATES, *derived(kept), *(v for n in reversed(kept) for v in variants(n)), *examples(regex))
    for candidate in dict.fromkeys(pool):
        found = pattern.search(candidate) if _writable(candidate) else None
        claimed = (found.group(1) if pattern.groups else candidate) if found else None
        if claimed and candidate.casefold() not in avoid and claimed.casefold() not in avoid:
            return candidate, claimed
    raise NotApplicable(f"no new value the selftest can write in a code span matches /{regex}/ (tried "
                        f"{', '.join(CANDIDATES)}, values shaped like the section's spans and strings the "
                        "regex matches: each is already in the section or declared in code)")


def _writable(value: str) -> bool:
    """``value`` survives as the whole text of a one-line code span."""
    return bool(value) and value == value.strip() and not any(c in value for c in "`\r\n")


def add_bullet(text: str, rule: Rule) -> Edit:
    """A new bullet after the section's last bullet item, with the same marker and indent."""
    form, doc, section = _claimed_section(text, rule)
    items = [i for i in doc.list_items if section.contains(i.span[0]) and not i.ordered]
    if not items:
        raise CannotApply(f"section '{section.title}' has no bullet items to add to")
    last = items[-1]
    if doc_rst.is_rst(rule.doc):
        content = f"{doc_rst.code(SELFTEST)} ({FILLER})" if last.codes else SELFTEST
        new, line = doc_rst.add_bullet(text, last, content)
        return Edit(new, f"added the bullet '- {content}' to section '{section.title}'", line, (SELFTEST,))
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
    if old.kind in (Kind.NUMBER, Kind.DURATION, Kind.BYTES, Kind.BOOL):
        new_value = bumped(old)
        try:
            written = format_like(new_value, old)
        except QuantityError as exc:
            raise CannotApply(f"cannot write {new_value.canonical} like '{old.text}': {exc}") from None
        expect: tuple[str, ...] = (written.strip(), new_value.canonical)
    else:
        stated = text[start:end]
        quoted = len(stated) > 1 and stated[0] == stated[-1] and stated[0] in "'\""
        written = stated[:-1] + "_selftest" + stated[-1] if quoted else stated + "_selftest"
        expect = (written,)
    path = item.location.path if item.location else ""
    if doc_rst.is_rst(path):  # a table cell that grows widens its column
        new = doc_rst.refit(text, read_document(path, text), item.span, written)
    else:
        new = text[:start] + written + text[end:]
    where = f" (row '{item.label}')" if item.label else ""
    shown = " ".join(text[start:end].split())
    return Edit(new, f"'{shown}' -> '{written}'{where}", line_number(text, start), expect)


def change_block_line(text: str, item: Item) -> Edit:
    """The last non-blank line of a snippet's block changed: ``_selftest`` appended."""
    if item.span is None:
        raise CannotApply("the claim reader recorded no span for the block")
    start, end = item.span
    body = text[start:end].rstrip()
    at = start + len(body)
    return Edit(text[:at] + "_selftest" + text[at:], f"appended _selftest to line {line_number(text, at)}",
                line_number(text, at), (item.label,))


def repeat_line(text: str, line: int, expect: str) -> Edit:
    """Line ``line`` of a source written twice, as a stray edit of the code would."""
    starts = line_starts(text)
    if not 1 <= line <= len(starts):
        raise CannotApply(f"no line {line}")
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    copy = text[begin:end] if text[begin:end].endswith(("\n", "\r")) else text[begin:end] + newline_of(text)
    return Edit(text[:begin] + copy + text[begin:], f"line {line} written twice", line, (expect,))


# -- documents: links ---------------------------------------------------------

_MARKDOWN = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", *doc_rst.RST)  # pages with heading anchors
_LINE_FRAGMENT = re.compile(r"L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?")
_MAX_RENAMES = 20  # a heading repeated more often than this is not worth a selftest


def _heading_links(rule: Rule, claim_items: Iterable[Item]) -> list[tuple[str, str, Item]]:
    """``(document, fragment, item)`` for each link of the claim that names a
    ``#fragment`` of a markdown document (its root-relative path), line anchors left out."""
    found = []
    for item in claim_items:
        destination = target_of(str(item.value.data))
        path, fragment = split_target(destination)
        rel = resolve_path(rule.doc, path) if is_relative(destination) else None
        if rel is None or not fragment or _LINE_FRAGMENT.fullmatch(fragment):
            continue
        if rel.lower().endswith(_MARKDOWN):
            found.append((rel, fragment, item))
    return found


def heading_target(rule: Rule, claim_items: Iterable[Item]) -> str:
    """The document ``remove_heading`` edits: the rule's own when one of its links names
    a heading there, else the first other markdown document a link's fragment names."""
    items = list(claim_items)
    if not items:
        raise NotApplicable(f"{rule.doc} has no relative link: there is no heading to rename")
    links = _heading_links(rule, items)
    if not links:
        raise NotApplicable(f"no link of {rule.doc} names a heading (they name files or lines only): "
                            "there is no heading to rename")
    same = [rel for rel, _, _ in links if rel == rule.doc]
    return same[0] if same else links[0][0]


def remove_heading(text: str, rule: Rule, claim_items: Iterable[Item], path: str | None = None) -> Edit:
    """The heading a link of the claim names, renamed so that its anchor is gone; ``text``
    is the document at ``path`` (the rule's own by default; see ``heading_target``).
    Expects the link's target as written. A repeated heading is renamed with each later
    one that takes over its anchor (``x-1`` becomes ``x`` when the first ``x`` goes)."""
    path = path or rule.doc
    links = [(fragment, item) for rel, fragment, item in _heading_links(rule, claim_items) if rel == path]
    if not links:
        raise NotApplicable(f"no link of {rule.doc} names a heading of {path}: there is no heading to rename")
    doc = read_document(path, text)
    for fragment, item in links:
        anchor = doc.anchor(fragment)
        if anchor is None or anchor.heading is None:
            continue  # a broken link already, or an HTML anchor: no heading to rename
        renamed = _renamed(text, path, fragment)
        if renamed is not None:
            target = str(item.value.data)
            return Edit(renamed, f"renamed the heading '{anchor.heading.text}' (named by the link `{target}`) "
                        f"to '{anchor.heading.text} {SELFTEST}'", anchor.heading.line, (target,))
    named = ", ".join(f"#{fragment}" for fragment, _ in links)
    raise CannotApply(f"renaming the headings of {path} that {named} name does not remove the anchor "
                      "(an HTML anchor of the same name, or no such heading)")


def _renamed(text: str, path: str, fragment: str) -> str | None:
    """``text`` with the heading holding anchor ``fragment`` renamed until no anchor of
    that name is left; None when an HTML anchor keeps it or it never goes."""
    for _ in range(_MAX_RENAMES):
        anchor = read_document(path, text).anchor(fragment)
        if anchor is None:
            return text
        if anchor.heading is None:
            return None
        text = doc_rst.renamed(text, anchor.heading) if doc_rst.is_rst(path) else _append(text, anchor.heading)
    return None


def _append(text: str, heading: Heading) -> str:
    at = heading.span[1]
    return text[:at] + f" {SELFTEST}" + text[at:]


def rename_reference(text: str, items: Iterable[Item], evident: bool = False) -> Edit:
    """The first reference of the claim renamed to a name nothing defines: a call or
    name gets a suffix (before its parentheses), a file a prefix on its last segment,
    a folder a missing folder inside it. The new part is drawn from a hash of the
    document, so no string of any code (this tool's own included) holds it. With
    ``evident``, a bare name becomes a call, a shape a ``references`` rule reports
    without history: the rename must be one the rule can see."""
    tag = "gone" + hashlib.sha256(text.encode()).hexdigest()[:10]
    spanned = [item for item in items if item.span is not None]
    if evident:  # a dotted name keeps its first part, which may be no package or type of the code
        spanned.sort(key=lambda item: "." in str(item.value.data).partition("(")[0])
    for item in spanned:
        assert item.span is not None
        start, end = item.span
        old = text[start:end]
        head, paren, args = old.partition("(")
        shape = shape_of(old, bare=True)
        if shape is not None and shape.kind == "path":
            body = old.rstrip("/")
            folder, slash, last = body.rpartition("/")
            new = f"{body}/{tag}/" if body != old else f"{folder}{slash}{tag}-{last}"
            if evident:  # a source file under the path's top folder: a path the rule reports
                suffix = PurePosixPath(last).suffix
                extension = suffix if suffix in set(languages.extensions()) else next(languages.extensions())
                new = f"{body.split('/', 1)[0] or body}/{tag}{extension}"
        else:
            forms = (f"{head}_{tag}", f"{head}{tag.capitalize()}", f"{head}_{tag.upper()}")
            named = next((f for f in forms if shape_of(f + paren + args) is not None), forms[0])
            if evident and not paren:
                paren, args = "(", ")"
            new = f"{named}{paren}{args}"  # in the shape of the old one: `FooGone..`, `FOO_GONE..`
        return Edit(text[:start] + new + text[end:], f"`{old}` -> `{new}`", line_number(text, start), (new,))
    raise NotApplicable("the document holds no reference the selftest can rename")
