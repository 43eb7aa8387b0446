"""Selftest mutations written as reStructuredText: what ``selftest.doc`` writes in an ``.rst`` page.

A code span is ````x````; a new sentence goes first in the section's body, indented
like a description's body; a bullet is ``- ``x```` after the list's last item; a
table row is a simple table's line with each cell at its column, a grid table's
line and border, or a ``list-table`` item. A value that no longer fits its column
widens the column on every line of the table (a simple table's ``=`` runs, a grid
table's borders), so the table still reads as the same table. A renamed section
title gets an adornment as long as itself; a renamed description gets its name
suffixed, since a name cannot hold a space.
"""

from __future__ import annotations

import re

from driftguard.documents.model import Cell, Document, Heading, ListItem, Section, Table
from driftguard.sources.mutation import SELFTEST, CannotApply, NotApplicable, line_number, line_starts, newline_of

_BORDER = re.compile(r"=+")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")

RST = (".rst", ".rest")


def is_rst(path: str) -> bool:
    return path.lower().endswith(RST)


def code(value: str) -> str:
    return f"``{value}``"


def _lines(text: str, table: Table) -> tuple[list[int], list[str]]:
    starts = line_starts(text)
    first, last = table.line - 1, table.end_line - 1
    ends = [starts[i + 1] - len(_eol(text, starts[i + 1])) if i + 1 < len(starts) else len(text)
            for i in range(first, last + 1)]
    return starts[first:last + 1], [text[s:e] for s, e in zip(starts[first:last + 1], ends)]


def _eol(text: str, next_start: int) -> str:
    return "\r\n" if text[max(next_start - 2, 0):next_start] == "\r\n" else text[next_start - 1:next_start]


def kind(text: str, table: Table) -> str:
    top = text[table.span[0]:table.span[1]].split("\n", 1)[0].strip()
    return "grid" if top.startswith("+") else "simple" if top.startswith("=") else "list"


def _bounds(top: str, how: str) -> list[tuple[int, int]]:
    """Each column's ``[start, end)`` on the table's top line (a grid's between its ``+``)."""
    if how == "grid":
        plus = [i for i, c in enumerate(top) if c == "+"]
        return [(a + 1, b) for a, b in zip(plus, plus[1:])]
    return [(m.start(), m.end()) for m in _BORDER.finditer(top)]


def _widen(text: str, table: Table, at: int, by: int, skip: int | None = None) -> str:
    """Every line of ``table`` but line ``skip`` (0-based in the table) with ``by`` characters
    inserted at column ``at``: a border's own character on border lines, spaces elsewhere."""
    if by <= 0:
        return text
    starts, lines = _lines(text, table)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if index == skip or len(line) < at:
            continue
        border = not line.strip(" +-=")
        fill = line[at - 1] if border and at and line[at - 1] in "-=" else " "
        text = text[:starts[index] + at] + fill * by + text[starts[index] + at:]
    return text


def refit(text: str, doc: Document, span: tuple[int, int], written: str) -> str:
    """``text`` with ``span`` replaced by ``written``; a table cell that grows takes the spaces
    after it, then widens its column on every other line of the table."""
    new = text[:span[0]] + written + text[span[1]:]
    grow = len(written) - (span[1] - span[0])
    table, column = _cell_at(doc, span)
    how = kind(text, table) if table is not None else "list"
    if table is None or grow <= 0 or how == "list":
        return new
    starts, lines = _lines(text, table)
    bounds = _bounds(lines[0], how)
    if column >= len(bounds) or (how == "simple" and column == len(bounds) - 1):
        return new  # the last column of a simple table may run on
    row = max(i for i, s in enumerate(starts) if s <= span[0])
    end = span[1] - starts[row]
    limit = bounds[column][1] - (1 if how == "grid" else 0)  # a grid cell keeps a space before its border
    free = 0
    while end + free < limit and lines[row][end + free:end + free + 1] == " ":
        free += 1
    take = min(grow, free)
    at = span[1] + grow
    new = new[:at] + new[at + take:]
    return _widen(new, table, bounds[column][1], grow - take, skip=row)


def _cell_at(doc: Document, span: tuple[int, int]) -> tuple[Table | None, int]:
    for table in doc.tables:
        for row in (table.header, *(r.cells for r in table.rows)):
            for index, cell in enumerate(row):
                if cell.span[0] <= span[0] and span[1] <= max(cell.span[1], cell.span[0]):
                    return table, index
    return None, 0


def add_row(text: str, table: Table, column: int, filler: str) -> tuple[str, int]:
    """A new last row holding the selftest's value in ``column``; the new text and its line."""
    nl = newline_of(text)
    cells = [code(SELFTEST) if i == column else filler for i in range(len(table.header))]
    how = kind(text, table)
    starts, lines = _lines(text, table)
    if how == "list":
        bullet = _list_row(lines, cells)
        at = table.span[1]
        return text[:at] + nl + nl.join(bullet) + text[at:], table.end_line + 1
    bounds = _bounds(lines[0], how)
    if len(bounds) != len(cells):
        raise NotApplicable(f"the table at line {table.line} has cells that span columns: no row is added")
    for j in range(len(cells) - 1, -1, -1):  # widen from the right: the bounds to the left stay put
        width = bounds[j][1] - bounds[j][0] - (2 if how == "grid" else 0)
        last_simple = how == "simple" and j == len(cells) - 1
        if len(cells[j]) > width and not last_simple:
            text = _widen(text, table, bounds[j][1], len(cells[j]) - width)
    starts, lines = _lines(text, table)
    bounds = _bounds(lines[0], how)
    if how == "grid":
        indent = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
        row = indent + "|" + "|".join(f" {c}".ljust(b - a) for c, (a, b) in zip(cells, bounds)) + "|"
        at = starts[-1] + len(lines[-1])
        return text[:at] + nl + row + nl + lines[0] + text[at:], table.end_line + 1
    line = "".join(c.ljust(b - a + (bounds[k + 1][0] - b if k + 1 < len(bounds) else 0))
                   for k, (c, (a, b)) in enumerate(zip(cells, bounds)))
    row = " " * bounds[0][0] + line.rstrip()
    at = starts[-1]  # before the bottom border
    return text[:at] + row + nl + text[at:], table.end_line


def _list_row(lines: list[str], cells: list[str]) -> list[str]:
    star = next((ln for ln in reversed(lines) if ln.lstrip().startswith("* -")), None)
    if star is None:
        raise CannotApply("cannot find the rows of the list-table")
    indent = star[:len(star) - len(star.lstrip())]
    return [f"{indent}* - {cells[0]}"] + [f"{indent}  - {c}" for c in cells[1:]]


def add_sentence(text: str, section: Section, sentence: str) -> tuple[str, int]:
    """``sentence`` as the first paragraph of ``section``'s body; the new text and its line."""
    nl = newline_of(text)
    at = section.body_start
    indent = ""
    if text[section.span[0]:at].lstrip().startswith(".."):  # a description: its body is indented
        body = [ln for ln in text[at:section.span[1]].splitlines() if ln.strip()]
        indent = next((ln[:len(ln) - len(ln.lstrip())] for ln in body if not ln.lstrip().startswith(":")), "   ")
        while at < section.span[1] and text[at:].split(nl, 1)[0].lstrip().startswith(":"):
            at += len(text[at:].split(nl, 1)[0]) + len(nl)  # past its options
    trail = nl if text.startswith(nl, at) or at >= len(text) else nl + nl
    new = text[:at] + nl + indent + sentence + trail + text[at:]
    return new, line_number(new, at + len(nl))


def add_bullet(text: str, item: ListItem, content: str) -> tuple[str, int]:
    """A bullet after the list item ``item`` (with its marker and indent), past its own lines."""
    starts = line_starts(text)
    first = text[starts[item.line - 1]:].splitlines()[0] if item.line - 1 < len(starts) else ""
    marker = re.match(r"[ \t]*[-*+][ \t]+", first)
    if marker is None:
        raise CannotApply(f"cannot find the bullet marker of line {item.line}")
    indent = len(marker.group()) - len(marker.group().lstrip())
    last = item.line - 1
    for index in range(item.line, len(starts)):
        line = text[starts[index]:].splitlines()[0] if starts[index] < len(text) else ""
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        if line.strip():
            last = index
    nl = newline_of(text)
    at = starts[last + 1] - len(_eol(text, starts[last + 1])) if last + 1 < len(starts) else len(text)
    return text[:at] + nl + marker.group() + content + text[at:], last + 2


def renamed(text: str, heading: Heading) -> str:
    """``heading`` renamed so that its anchor goes, its adornment redone to its new length."""
    start, end = heading.span
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    if text[line_start:start].lstrip().startswith(".."):
        return text[:end] + f"_{SELFTEST}" + text[end:]  # a description's name holds no space
    starts = line_starts(text) + [len(text)]
    lines = [text[a:b] for a, b in zip(starts, starts[1:])]
    index = heading.line - 1
    body = lines[index].rstrip("\r\n")
    title = body[:end - line_start] + f" {SELFTEST}" + body[end - line_start:]
    lines[index] = title + lines[index][len(body):]
    below = lines[index + 1].rstrip("\r\n") if index + 1 < len(lines) else ""
    if _ADORNMENT.match(below):
        for j in (index - 1, index + 1):
            adorn = lines[j].rstrip("\r\n") if 0 <= j < len(lines) else ""
            if _ADORNMENT.match(adorn) and adorn[0] == below[0]:
                lines[j] = adorn[0] * max(len(adorn), len(title.rstrip())) + lines[j][len(adorn):]
    return "".join(lines)


def cell_of(doc: Document, span: tuple[int, int]) -> Cell | None:
    table, index = _cell_at(doc, span)
    if table is None:
        return None
    return next((row[index] for row in (table.header, *(r.cells for r in table.rows))
                 if index < len(row) and row[index].span[0] <= span[0] < max(row[index].span[1], span[0] + 1)), None)
