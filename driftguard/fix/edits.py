"""The text edits ``driftguard fix`` makes: a stale quantity rewritten, a table row added.

A value edit replaces only the words that change ("ten minutes" -> "fifteen
minutes" touches "ten"), found by lining the claim's plain text up with its
source, so markup and line wraps around the value stay as they were. A row
edit copies the shape of the table's last row: its container prefix, its
pipes and, where the new text fits, their columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from driftguard.documents.reader import Cell, Table
from driftguard.text import EOL, newline_of

TODO = "TODO: describe"
_WORD = re.compile(r"[0-9]+(?:[.,][0-9]+)*|[^\W\d]+|\s+|[^\w\s]")
_PIPE = re.compile(r"(?<!\\)\|")
_BLOCK_START = re.compile(r"^([0-9]*)([-+=>#]|(?<=[0-9])[.)])")
_MARKUP = re.compile(r"[\\`*_\[\]<>|~!&#]")  # escaped in a plain cell so it reads back as written


class EditRefused(Exception):
    """The edit cannot be made safely; the message says why."""


@dataclass(frozen=True)
class Splice:
    """Replace ``text[start:end]`` with ``new``; an insertion when ``start == end``."""

    start: int
    end: int
    new: str


# -- values -------------------------------------------------------------------


def value_splice(text: str, span: tuple[int, int], old_plain: str, new_plain: str) -> Splice:
    """The smallest splice that turns the value at ``span`` (read as ``old_plain``) into ``new_plain``."""
    start, end = span
    source = text[start:end]
    old_words, new_words = _WORD.findall(old_plain), _WORD.findall(new_plain)
    head = _common(old_words, new_words)
    tail = _common(old_words[head:][::-1], new_words[head:][::-1])
    if head == len(old_words) == len(new_words):
        raise EditRefused(f"'{new_plain}' is spelled like '{old_plain}'; nothing to rewrite")
    a = sum(map(len, old_words[:head]))
    b = len(old_plain) - sum(map(len, old_words[len(old_words) - tail:]))
    inserted = "".join(new_words[head:len(new_words) - tail])
    places = _align(old_plain, source)
    if places is None:
        raise EditRefused(f"cannot find '{old_plain}' in the source text '{source}'")
    if a == b:  # a pure insertion: after the word before it
        at = places[a - 1] + 1 if a else places[0]
        return Splice(start + at, start + at, inserted)
    lo, hi = places[a], places[b - 1] + 1
    region = source[lo:hi]
    if " ".join(region.split()) != " ".join(old_plain[a:b].split()):
        raise EditRefused(f"the value '{old_plain}' is interleaved with markup ('{source}'); fix it by hand")
    return Splice(start + lo, start + hi, _keep_breaks(region, inserted))


def _common(xs: Sequence[str], ys: Sequence[str]) -> int:
    n = 0
    while n < len(xs) and n < len(ys) and xs[n] == ys[n]:
        n += 1
    return n


def _align(plain: str, source: str) -> list[int] | None:
    """For each character of ``plain``, its offset in ``source`` (markup skipped,
    one whitespace run of the plain text matching any whitespace run of the source)."""
    places: list[int] = []
    j = 0
    for i, ch in enumerate(plain):
        if ch.isspace():
            if i and plain[i - 1].isspace():
                places.append(places[-1])
                continue
            while j < len(source) and not source[j].isspace():
                j += 1
            if j == len(source):
                return None
            places.append(j)
            while j < len(source) and source[j].isspace():
                j += 1
            continue
        while j < len(source) and source[j] != ch:
            j += 1
        if j == len(source):
            return None
        places.append(j)
        j += 1
    return places


def _keep_breaks(region: str, new: str) -> str:
    """``new`` with its spaces replaced, in order, by the whitespace runs of ``region``,
    so a value wrapped across lines stays wrapped."""
    gaps = re.findall(r"\s+", region)
    if not any("\n" in g or "\r" in g for g in gaps):
        return new
    words = new.split(" ")
    out = words[0]
    for i, word in enumerate(words[1:]):
        out += (gaps[i] if i < len(gaps) else " ") + word
    if any("\n" in g or "\r" in g for g in gaps[len(words) - 1:]):  # breaks the new words cannot carry
        out += "\r\n" if "\r\n" in region else "\n"
    return out


# -- rows ---------------------------------------------------------------------


def row_splice(text: str, table: Table, column: int, values: Sequence[str],
               after: int | None = -1) -> tuple[Splice, list[list[str]]]:
    """Rows for ``values`` after the table's row ``after`` (an index into its rows; -1, the
    default, is the last row, None puts them before the first row), and the cells each row
    holds. The rows are laid out like the table's last row; the splice always begins with a
    line break, after a whole line (the delimiter row when the rows go first)."""
    if not table.rows:
        raise EditRefused("the table has no rows to copy the shape of")
    last = table.rows[-1]
    line = text[last.span[0]:last.span[1]]
    if after is None:
        at, eol = _break_before(text, table.rows[0].span[0])
    else:
        at = table.rows[after].span[1]
        eol = _break_at(text, at) or _break_at(text, last.span[1]) or newline_of(text)
    rows, shown = [], []
    for value in values:
        cells = [TODO] * len(table.header)
        cells[column] = value_cell(text, table, column, value)
        rows.append(layout_row(line, cells))
        shown.append(cells)
    return Splice(at, at, "".join(eol + row for row in rows)), shown


def cell_problem(value: str) -> str | None:
    """Why ``value`` cannot be written in a table cell so that every reader reads it back, or None:
    a pipe would split the cell (its escape ``\\|`` is read differently inside a code span by
    different markdown renderers), a line break would end the row, and whitespace at either end
    is trimmed from a cell and, on both ends, from a code span."""
    if "|" in value:
        return f"the value {_shown(value)} holds a `|`, which would split the table cell"
    if "\n" in value or "\r" in value:
        return f"the value {_shown(value)} holds a line break, which would end the table row"
    if value != value.strip():
        return (f"the value {_shown(value)} begins or ends with whitespace, which markdown strips "
                "from a table cell and a code span")
    return None


def _shown(value: str) -> str:
    return repr(value) if "`" in value or value != value.strip() else f"`{value}`"


def value_cell(text: str, table: Table, column: int, value: str) -> str:
    """``value`` written as the column's last cell writes its value: in the same code span
    markup (``**`X`**``), or plain with markdown punctuation escaped; pipes escaped."""
    cell = next((r.cells[column] for r in reversed(table.rows)
                 if column < len(r.cells) and r.cells[column].text), None)
    escaped = value.replace("|", "\\|")
    if cell is None or not cell.codes:
        return _MARKUP.sub(r"\\\g<0>", value)
    template = _code_template(text, cell)
    if template and "`" not in value:
        return template[0] + escaped + template[1]
    fence = "`" * (max(map(len, re.findall("`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{escaped}{pad}{fence}"


def _code_template(text: str, cell: Cell) -> tuple[str, str] | None:
    """The markup around the cell's only code span, when the cell holds nothing else."""
    if len(cell.codes) != 1:
        return None
    code = cell.codes[0]
    before, after = text[cell.span[0]:code.span[0]], text[code.span[1]:cell.span[1]]
    if before.rstrip("` ").strip("*_") or after.lstrip("` ").strip("*_"):
        return None
    return before, after


def layout_row(line: str, cells: Sequence[str]) -> str:
    """A table row holding ``cells``, laid out like ``line`` (a row of the same table)."""
    prefix = line[: len(line) - len(line.lstrip(" \t>"))]
    body = line[len(prefix):].rstrip()
    lead = body.startswith("|")
    trail = len(body) > 1 and body.endswith("|") and not body.endswith("\\|")
    pipes = [m.start() + len(prefix) for m in _PIPE.finditer(body)]
    if not lead and cells:  # a row without a leading pipe must not start another block
        cells = [_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), cells[0], count=1), *cells[1:]]
    if len(pipes) != len(cells) - 1 + lead + trail:
        return prefix + ("| " if lead else "") + " | ".join(cells) + (" |" if trail else "")
    bounds = ([len(prefix) - 1] if not lead else []) + pipes + ([len(line.rstrip())] if not trail else [])
    out = prefix + ("|" if lead else "")
    for j, content in enumerate(cells):
        slot = line[bounds[j] + 1:bounds[j + 1]]
        pad = len(slot) - len(slot.lstrip()) if slot.strip() else 1
        out += " " * pad + content
        if j < len(cells) - 1 or trail:
            gap = 1 if slot.endswith((" ", "\t")) or not slot.strip() else 0
            out += " " * max(bounds[j + 1] - len(out), gap) + "|"
    return out


def _break_at(text: str, offset: int) -> str:
    m = EOL.match(text, offset)
    return m.group() if m else ""


def _break_before(text: str, line_start: int) -> tuple[int, str]:
    """Where the line break ending the line before ``line_start`` begins, and that break."""
    size = 2 if text.endswith("\r\n", 0, line_start) else 1
    return line_start - size, text[line_start - size:line_start]
