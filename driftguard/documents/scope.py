"""Where in a document a claim form reads: a section named by its heading or by a path
of headings (``Configuration > server``), the whole document, and within it one bullet
item or table row picked by its label (``within: {item: '`max_connections`'}``).

A ``section:`` that names no heading but the page's front-matter title is the whole
page, as is a rule that names no section: a page with no H1 can always be read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from driftguard.documents.model import Document, Row, Section, fold_key
from driftguard.model import AmbiguousClaim, ClaimNotFound, Location

T = TypeVar("T")
PATH = " > "


@dataclass(frozen=True)
class Scope:
    """The part of a document a claim is read from: ``[start, end)`` offsets, the line that
    heads it (None for the whole document) and how a message names it."""

    start: int
    end: int
    line: int | None
    title: str | None

    def contains(self, offset: int) -> bool:
        return self.start <= offset < self.end

    def where(self, doc: Document) -> Location:
        return Location(doc.path, self.line)

    def named(self) -> str:
        return f" in section '{self.title}'" if self.title else ""


def top_line(doc: Document) -> int:
    """The line a finding about the whole document names: its first heading's, else 1."""
    return doc.headings[0].line if doc.headings else 1


def whole(doc: Document) -> Scope:
    return Scope(0, len(doc.text), None, None)


def of_section(section: Section) -> Scope:
    return Scope(section.body_start, section.span[1], section.line, section.title)


def find_section(doc: Document, title: str) -> Section | Scope:
    """The section ``title`` names: a heading, or a path of headings each nested in the
    one before (``A > B``); the front-matter title names the whole page."""
    parts = [p for p in (part.strip() for part in title.split(PATH.strip())) if p] if PATH.strip() in title else [title]
    outer: Section | None = None
    for depth, part in enumerate(parts):
        same = [s for s in doc.sections if fold_key(s.title) == fold_key(part)
                and (outer is None or (outer.contains(s.span[0]) and s.level > outer.level))]
        if not same and depth == 0 and doc.title and fold_key(doc.title) == fold_key(part):
            if len(parts) == 1:
                return whole(doc)
            continue  # the page's own title: the path starts at its top
        if not same:
            where = f" under '{PATH.join(parts[:depth])}'" if depth else ""
            raise ClaimNotFound(gone(f"no section headed '{part}'{where}"),
                                Location(doc.path, outer.line if outer else top_line(doc)))
        if len(same) > 1:
            lines = line_list(s.line for s in same)
            path = _parent_path(doc, same[1])
            raise AmbiguousClaim(f"{len(same)} sections are headed '{part}' (lines {lines}); name the one meant by "
                                 f"its path of headings, '{path}'", Location(doc.path, same[1].line))
        outer = same[0]
    return outer if outer is not None else whole(doc)


def scope_of(doc: Document, section: str | None, within: tuple[str, str] | None = None) -> Scope:
    """The scope a form reads: its section (or the whole page), narrowed to one item or row."""
    found = find_section(doc, section) if section else whole(doc)
    scope = of_section(found) if isinstance(found, Section) else found
    if within is None:
        return scope
    kind, label = within
    return _item(doc, scope, label) if kind == "item" else _row(doc, scope, label)


def _item(doc: Document, scope: Scope, label: str) -> Scope:
    code = label.strip().startswith("`") and label.strip().endswith("`")
    wanted = fold_key(label.strip().strip("`"))
    found = [i for i in doc.list_items if scope.contains(i.span[0])
             and ((fold_key(i.codes[0].text) == wanted) if code and i.codes else
                  (not code and fold_key(i.text).startswith(wanted)))]
    return _one(doc, scope, found, f"bullet item '{label}'", lambda i: Scope(i.span[0], i.span[1], i.line, label))


def _row(doc: Document, scope: Scope, label: str) -> Scope:
    wanted = fold_key(label.strip().strip("`"))
    rows: list[Row] = [row for table in doc.tables if scope.contains(table.span[0]) for row in table.rows
                       if row.cells and fold_key(_label(row)) == wanted]
    return _one(doc, scope, rows, f"table row '{label}'", lambda r: Scope(r.span[0], r.span[1], r.line, label))


def _label(row: Row) -> str:
    first = row.cells[0]
    return first.codes[0].text if first.codes else first.text


def _one(doc: Document, scope: Scope, found: list[T], what: str, make: Callable[[T], Scope]) -> Scope:
    if not found:
        raise ClaimNotFound(gone(f"no {what}{scope.named()}"), scope.where(doc))
    if len(found) > 1:
        lines = line_list(make(f).line or 0 for f in found)
        raise AmbiguousClaim(f"{len(found)} of the {what.split(' ', 1)[1]}s match (lines {lines})",
                             Location(doc.path, make(found[1]).line))
    return make(found[0])


def _parent_path(doc: Document, section: Section) -> str:
    parents = [s for s in doc.sections if s.level < section.level and s.contains(section.span[0])]
    return PATH.join([p.title for p in parents[-1:]] + [section.title])


def within(parts: Iterable[T], scope: Scope | Section | None, offset: Callable[[T], int]) -> list[T]:
    return [p for p in parts if scope is None or scope.contains(offset(p))]


def line_list(lines: Iterable[int], shown: int = 5) -> str:
    """``3, 10`` or ``3, 8, 13, 18, 23 and 1995 more``."""
    every = [str(n) for n in lines]
    more = f" and {len(every) - shown} more" if len(every) > shown else ""
    return ", ".join(every[:shown]) + more


def gone(what: str) -> str:
    return f"the document no longer states it: {what}"


def not_found(doc: Document, what: str, scope: Scope | None) -> ClaimNotFound:
    """The claim is gone: ``what`` is missing from the scope (or the document)."""
    if scope is None or scope.title is None:
        return ClaimNotFound(gone(what), Location(doc.path, top_line(doc)))
    return ClaimNotFound(gone(f"{what}{scope.named()}"), Location(doc.path, scope.line))
