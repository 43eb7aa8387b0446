"""Tables of a reStructuredText document: grid, simple, ``list-table`` and ``csv-table``.

docutils gives each cell's paragraphs but not their columns. The table's own
lines give them: a grid table's ``+`` borders, a simple table's ``=`` runs. A
cell's text is looked for within its columns (a cell that spans columns within
all of them; a grid table's rows may span rows too), so two cells of one row
holding the same text are told apart. A ``list-table`` cell is a bullet item: its
text is looked for near its line. A table without header rows takes its first
row as its header, as a markdown table always has one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docutils import nodes

from driftguard.documents.inline import OffsetMap
from driftguard.documents.model import Cell, Row, Table
from driftguard.documents.rst.lines import Source
from driftguard.documents.rst.prose import Placed, Texts

_SIMPLE_BORDER = re.compile(r"^[ \t]*=+(?:[ \t]+=+)*[ \t]*$")
_GRID_BORDER = re.compile(r"^[ \t]*\+[-=+]+\+[ \t]*$")
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+(list-table|csv-table|table)[ \t]*::", re.I)
_TEXT = (nodes.paragraph, nodes.term, nodes.rubric, nodes.line)


@dataclass(frozen=True)
class Layout:
    """Where a table lies: ``kind`` grid | simple | list | csv, its first and last
    line (0-based), and its column bounds (``+`` columns of a grid table, the start of
    each ``=`` run of a simple one; none for the directive tables)."""

    kind: str
    first: int
    last: int
    bounds: tuple[int, ...]

    def columns(self, column: int, span: int) -> tuple[int, int | None]:
        """The text columns ``[lo, hi)`` a cell at ``column`` spanning ``span`` columns may use."""
        b = self.bounds
        if self.kind == "grid" and column + span < len(b):
            return b[column] + 1, b[column + span]
        if self.kind == "simple" and column < len(b):
            return b[column], (b[column + span] if column + span < len(b) else None)
        return 0, None


def layout(src: Source, line: int) -> Layout:
    """The layout of the table docutils reports at the 1-based ``line``."""
    start = src.clamp(line - 1)
    for index in range(start, min(start + 60, len(src))):
        seen, _ = src.seen(index)
        if _GRID_BORDER.match(seen):
            return Layout("grid", index, _grid_end(src, index), tuple(i for i, c in enumerate(seen) if c == "+"))
        if _SIMPLE_BORDER.match(seen) and seen.strip():
            return Layout("simple", index, _simple_end(src, index), tuple(m.start() for m in re.finditer("=+", seen)))
        m = _DIRECTIVE.match(seen)
        if m and m.group(1).lower() != "table":
            return Layout("list" if m.group(1).lower() == "list-table" else "csv", index, _block_end(src, index), ())
    return Layout("list", start, start, ())


def _grid_end(src: Source, top: int) -> int:
    index = top
    while index + 1 < len(src) and src.seen(index + 1)[0].lstrip().startswith(("+", "|")):
        index += 1
    return index


def _simple_end(src: Source, top: int) -> int:
    for index in range(top + 1, len(src)):
        seen, _ = src.seen(index)
        if _SIMPLE_BORDER.match(seen) and seen.strip() and (index + 1 == len(src) or not src.seen(index + 1)[0]):
            return index
    return len(src) - 1


def _block_end(src: Source, top: int) -> int:
    """The last line of the directive block opened at ``top``: its indented lines."""
    indent = len(src.seen(top)[0]) - len(src.seen(top)[0].lstrip())
    last = top
    for index in range(top + 1, len(src)):
        seen, _ = src.seen(index)
        if not seen.strip():
            continue
        if len(seen) - len(seen.lstrip()) <= indent:
            break
        last = index
    return last


def read_table(texts: Texts, node: nodes.table, line: int) -> Table | None:
    src = texts.src
    where = layout(src, line)
    groups = [g for g in node.findall(nodes.tgroup)][:1]
    if not groups:
        return None
    heads = [r for part in groups[0].findall(nodes.thead) for r in part.children if isinstance(r, nodes.row)]
    bodies = [r for part in groups[0].findall(nodes.tbody) for r in part.children if isinstance(r, nodes.row)]
    rows: list[Row] = []
    taken: dict[tuple[int, int], bool] = {}
    last_line = where.first + 1
    for index, row in enumerate(heads + bodies):
        read = _row(texts, where, row, index, taken, last_line)
        rows.append(read)
        last_line = read.line
    if not rows:
        return None
    header = rows[0].cells
    data = rows[len(heads):] if heads else rows[1:]
    span = (src.starts[where.first], src.ends[where.last])
    return Table(header, tuple(data), where.first + 1, where.last + 1, span)


def _row(texts: Texts, where: Layout, row: nodes.row, index: int, taken: dict[tuple[int, int], bool],
         near: int) -> Row:
    src = texts.src
    cells: list[Cell] = []
    column = 0
    for entry in (e for e in row.children if isinstance(e, nodes.entry)):
        while taken.get((index, column)):
            cells.append(_empty(texts, near))
            column += 1
        span, down = int(entry.get("morecols", 0)) + 1, int(entry.get("morerows", 0))
        for r in range(index + 1, index + down + 1):
            for c in range(column, column + span):
                taken[(r, c)] = True
        lo, hi = where.columns(column, span)
        parts = [_cell_text(texts, e, where, lo, hi, near)
                 for e in entry.findall(lambda n: isinstance(n, _TEXT))]
        placed = texts.combine([p for p in parts if p.text or p.codes], near, src.starts[src.clamp(near - 1)])
        cells.append(Cell(placed.text, placed.line, placed.span, OffsetMap(placed.runs, placed.base),
                          codes=tuple(placed.codes)))
        cells.extend(_empty(texts, placed.line) for _ in range(span - 1))
        column += span
    while taken.get((index, column)):
        cells.append(_empty(texts, near))
        column += 1
    filled = [c for c in cells if c.text or c.codes]
    first = min((c.line for c in filled), default=near)
    last = max((src.line_of(max(c.span[1] - 1, c.span[0])) for c in filled), default=first)
    return Row(tuple(cells), first, (src.starts[src.clamp(first - 1)], src.ends[src.clamp(max(last, first) - 1)]))


def _cell_text(texts: Texts, element: nodes.Node, where: Layout, lo: int, hi: int | None, near: int) -> Placed:
    """A cell's paragraph, looked for at its line when that lies in the table (a csv-table's
    cells count lines from their own text), else after the row before."""
    assert isinstance(element, nodes.Element)
    line = element.line if isinstance(element.line, int) and where.first < element.line <= where.last + 1 else near
    return texts.read(element, line, lo, hi, first=where.kind in ("grid", "simple"))


def _empty(texts: Texts, line: int) -> Cell:
    at = texts.src.starts[texts.src.clamp(line - 1)]
    return Cell("", line, (at, at), OffsetMap([], at))
