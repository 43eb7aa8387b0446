"""Parse a markdown document once into the parts claims are read from.

markdown-it-py gives block tokens with line ranges; ``parse_document`` walks
them in one flat pass (no recursion, so nesting depth never matters) and
records headings, sections, tables, code spans, prose sentences and list items
(see ``driftguard.document_model``). Fenced and indented code is never read.
Table cells are re-split from their source line the way markdown-it splits
them, so each cell's span is exact.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from markdown_it import MarkdownIt
from markdown_it.token import Token

from driftguard.document_model import (
    Cell,
    CodeSpan,
    Document,
    Heading,
    ListItem,
    Prose,
    Row,
    Section,
    Sentence,
    Table,
    fold_key,
)
from driftguard.inline_text import OffsetMap, Run, fold, push_run, walk_inline
from driftguard.model import Location, ParseError

__all__ = [
    "Cell", "CodeSpan", "Document", "Heading", "ListItem", "Prose", "Row", "Section",
    "Sentence", "Table", "fold_key", "parse_document",
]

_MD = MarkdownIt("commonmark").enable("table")
_EOL = re.compile(r"\r\n|\r|\n")
_TRIM = " \t\n\r\f\v"  # markdown-it's cell trimming set, close enough to CommonMark's
_ABBREVIATIONS = {"e.g.", "i.e.", "cf.", "vs.", "viz.", "approx.", "resp.", "mr.", "mrs.", "ms.", "dr.", "fig."}
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?= |$)")


def parse_document(path: str, text: str) -> Document:
    """Parse ``text`` (the document at repository-relative ``path``); ParseError if markdown-it fails."""
    builder = _Builder(path, text)
    try:
        tokens = _MD.parse(text[builder.bom:])
    except Exception as exc:  # markdown-it on hostile input: report, never crash
        raise ParseError(f"the markdown could not be parsed: {exc}", Location(path)) from None
    return builder.build(tokens)


class _Builder:
    """One pass over the token stream, with a stack of open containers."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        self.bom = 1 if text.startswith("\ufeff") else 0
        self.starts, self.ends = [self.bom], []
        for m in _EOL.finditer(text):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(len(text))
        self.has_nul = "\x00" in text
        self.headings: list[Heading] = []
        self.heading_ends: list[int] = []  # the 0-based line after each heading
        self.tables: list[Table] = []
        self.codes: list[CodeSpan] = []
        self.sentences: list[Sentence] = []
        self.items: list[ListItem] = []

    # -- lines ----------------------------------------------------------------

    def line_text(self, index: int) -> str:
        line = self.text[self.starts[index]:self.ends[index]]
        return line.replace("\x00", "\ufffd") if self.has_nul else line

    def line_index(self, index: int) -> int:
        return min(max(index, 0), len(self.starts) - 1)

    def line_of(self, offset: int) -> int:
        return max(bisect_right(self.starts, offset), 1)

    # -- the pass -------------------------------------------------------------

    def build(self, tokens: list[Token]) -> Document:
        lists: list[bool] = []
        open_items: list[list] = []  # [token, ordered, first paragraph, codes] per open list item
        containers: list[str] = []
        row: list[tuple[Token, bool]] = []
        table: list = []  # [open token, header cells, rows]
        for i, tok in enumerate(tokens):
            kind = tok.type
            if kind in ("bullet_list_open", "ordered_list_open"):
                lists.append(kind == "ordered_list_open")
            elif kind in ("bullet_list_close", "ordered_list_close"):
                lists and lists.pop()
            elif kind == "list_item_open":
                containers.append("item")
                open_items.append([tok, bool(lists and lists[-1]), None, []])
            elif kind == "list_item_close":
                containers and containers.pop()
                if open_items:
                    self._close_item(*open_items.pop())
            elif kind == "blockquote_open":
                containers.append("quote")
            elif kind == "blockquote_close":
                containers and containers.pop()
            elif kind == "table_open":
                table = [tok, (), []]
            elif kind == "tr_open":
                row = []
            elif kind == "tr_close" and table:
                self._close_row(table, row)
            elif kind == "table_close" and table:
                self._close_table(*table)
                table = []
            elif kind == "inline":
                parent = tokens[i - 1].type if i else ""
                if parent == "paragraph_open":
                    item = open_items[-1] if open_items and containers and containers[-1] == "item" else None
                    self._paragraph(tok, item)
                elif parent == "heading_open":
                    self._heading(tok, int(tokens[i - 1].tag[1:] or 1))
                elif parent in ("th_open", "td_open"):
                    row.append((tok, parent == "th_open"))
        return self._document()

    def _document(self) -> Document:
        return Document(
            path=self.path, text=self.text, headings=tuple(self.headings),
            sections=tuple(self._sections()), tables=tuple(self.tables),
            code_spans=tuple(self.codes), sentences=tuple(self.sentences),
            list_items=tuple(self.items), line_starts=tuple(self.starts),
        )

    def _sections(self) -> list[Section]:
        """Close each heading's section at the next heading of the same or higher level."""
        found: list[Section | None] = [None] * len(self.headings)
        stack: list[int] = []
        last_line = len(self.starts) - (1 if self.text.endswith(("\n", "\r")) else 0)

        def close(index: int, end: int, end_line: int) -> None:
            h = self.headings[index]
            start = self.starts[self.line_index(h.line - 1)]
            body = self.starts[self.line_index(self.heading_ends[index])]
            found[index] = Section(h.text, h.level, h.line, max(end_line, h.line), (start, end), min(body, end))

        for index, h in enumerate(self.headings):
            while stack and self.headings[stack[-1]].level >= h.level:
                close(stack.pop(), self.starts[self.line_index(h.line - 1)], h.line - 1)
            stack.append(index)
        while stack:
            close(stack.pop(), len(self.text), last_line)
        return [s for s in found if s is not None]

    # -- blocks ---------------------------------------------------------------

    def _heading(self, tok: Token, level: int) -> None:
        prose, codes = self._prose(tok, self._line_runs(tok))
        self.codes.extend(codes)
        line = (tok.map[0] + 1) if tok.map else prose.line
        self.headings.append(Heading(prose.text, line, prose.span, prose.map, level=level))
        self.heading_ends.append(tok.map[1] if tok.map else line)

    def _paragraph(self, tok: Token, item: list | None) -> None:
        prose, codes = self._prose(tok, self._line_runs(tok))
        self.codes.extend(codes)
        self.sentences.extend(_sentences(prose, self.line_of))
        if item is not None:
            if item[2] is None:
                item[2] = prose
            item[3].extend(codes)

    def _close_item(self, tok: Token, ordered: bool, first: Prose | None, codes: list[CodeSpan]) -> None:
        line = (tok.map[0] + 1) if tok.map else 1
        if first is None:
            at = self.starts[self.line_index(line - 1)]
            first = Prose("", line, (at, at), OffsetMap([], at))
        self.items.append(ListItem(first.text, line, first.span, first.map, codes=tuple(codes), ordered=ordered))

    def _close_row(self, table: list, row: list[tuple[Token, bool]]) -> None:
        if not row:
            return
        index = self.line_index(row[0][0].map[0] if row[0][0].map else 0)
        base = self.starts[index]
        cells = []
        for (tok, _), runs in zip(row, _cell_runs(self.line_text(index), [t.content for t, _ in row])):
            shifted = [(a, base + s, n) for a, s, n in runs]
            prose, codes = self._prose(tok, shifted, line=index + 1)
            self.codes.extend(codes)
            cells.append(Cell(prose.text, index + 1, prose.span, prose.map, codes=tuple(codes)))
        if row[0][1]:
            table[1] = tuple(cells)
        else:
            table[2].append(Row(tuple(cells), index + 1, (base, self.ends[index])))

    def _close_table(self, tok: Token, header: tuple[Cell, ...], rows: list[Row]) -> None:
        first, last = (tok.map[0], tok.map[1] - 1) if tok.map else (0, 0)
        first, last = self.line_index(first), self.line_index(max(last, first))
        span = (self.starts[first], self.ends[last])
        self.tables.append(Table(header, tuple(rows), first + 1, last + 1, span))

    # -- inline text ----------------------------------------------------------

    def _line_runs(self, tok: Token) -> list[Run]:
        """Runs from the token's content (container prefixes stripped) to the document."""
        runs: list[Run] = []
        offset, first = 0, tok.map[0] if tok.map else 0
        for i, piece in enumerate(tok.content.split("\n")):
            index = self.line_index(first + i)
            line, start = self.line_text(index), self.starts[index]
            lead, col = _locate(line, piece)
            if offset:  # the line break before this line
                push_run(runs, offset - 1, self.ends[self.line_index(index - 1)], 1)
            push_run(runs, offset, start + max(col - lead, 0), lead)
            push_run(runs, offset + lead, start + col, len(piece) - lead)
            offset += len(piece) + 1
        return runs

    def _prose(self, tok: Token, runs: list[Run], line: int = 0) -> tuple[Prose, list[CodeSpan]]:
        """The folded plain text of an inline token, and its code spans, mapped to the document."""
        base = runs[0][1] if runs else (self.starts[self.line_index(tok.map[0])] if tok.map else 0)
        content = OffsetMap(runs, base)
        plain, plain_runs, code_at = walk_inline(tok.children or [], tok.content)
        text_map = plain_map = OffsetMap(content.compose(plain_runs), base)
        text, folded_runs = fold(plain)
        if folded_runs is not None:
            text_map = OffsetMap(plain_map.compose(folded_runs), base)
        span = content.span(0, len(tok.content))  # all the source the text was read from
        prose = Prose(text, line or self.line_of(span[0]), span, text_map)
        codes = []
        for code, at in code_at:
            cspan = content.span(at, at + len(code))
            codes.append(CodeSpan(code, self.line_of(cspan[0]), cspan))
        return prose, codes


def _locate(line: str, piece: str) -> tuple[int, int]:
    """Where ``piece`` (a line of block content) sits in its source line: ``piece[lead:]`` starts at col."""
    if line.endswith(piece):
        return 0, len(line) - len(piece)
    stripped = line.rstrip(_TRIM)
    if stripped.endswith(piece):
        return 0, len(stripped) - len(piece)
    col = line.find(piece)
    if col >= 0:
        return 0, col
    core = piece.lstrip(_TRIM)  # a tab that markdown-it expanded to spaces
    col = line.find(core) if core else -1
    if col >= 0:
        return len(piece) - len(core), col
    return 0, max(len(line) - len(piece), 0)


def _cell_runs(line: str, contents: list[str]) -> list[list[Run]]:
    """Runs from each cell's content to offsets in ``line``, split the way markdown-it splits rows."""
    segments = _split_row(line.rstrip(_TRIM), len(contents) + 1)
    for skip in (0, 1):
        picked = segments[skip:skip + len(contents)]
        if all(_fits(seg, want, j == 0 and skip == 0) for j, (seg, want) in enumerate(zip(picked, contents))):
            return [_cut(seg, want) if j < len(picked) else [] for j, (seg, want)
                    in enumerate(zip(picked + [("", [])] * len(contents), contents))]
    out, cursor = [], 0  # the split did not agree with markdown-it: find each cell in order
    for want in contents:
        col = line.find(want, cursor) if want else -1
        out.append([(0, col, len(want))] if col >= 0 else [])
        cursor = col + len(want) if col >= 0 else cursor
    return out


def _split_row(line: str, limit: int) -> list[tuple[str, list[Run]]]:
    """The first ``limit`` segments between unescaped pipes, each trimmed, with runs into ``line``
    (a trailing empty one dropped)."""
    segments, text, runs, last = [], [], [], 0

    def piece(end: int) -> None:
        push_run(runs, sum(map(len, text)), last, end - last)
        text.append(line[last:end])

    for m in re.finditer(r"\|", line):
        if m.start() and line[m.start() - 1] == "\\":
            piece(m.start() - 1)  # an escaped pipe: drop the backslash, keep the pipe
            last = m.start()
            continue
        piece(m.start())
        segments.append(("".join(text), runs))
        text, runs, last = [], [], m.end()
        if len(segments) > limit:
            break
    piece(len(line))
    segments.append(("".join(text), runs))
    if len(segments) > 1 and segments[-1][0] == "":
        segments.pop()
    return [(s.strip(_TRIM), _trim_runs(r, len(s) - len(s.lstrip(_TRIM)))) for s, r in segments]


def _trim_runs(runs: list[Run], lead: int) -> list[Run]:
    return [(a - lead, s, n) for a, s, n in _drop(runs, lead)]


def _drop(runs: list[Run], count: int) -> list[Run]:
    """``runs`` without their first ``count`` derived characters."""
    out = []
    for a, s, n in runs:
        if a + n <= count:
            continue
        cut = max(count - a, 0)
        out.append((a + cut, s + cut, n - cut))
    return out


def _fits(segment: tuple[str, list[Run]], want: str, may_have_prefix: bool) -> bool:
    return segment[0].endswith(want) if may_have_prefix else segment[0] == want


def _cut(segment: tuple[str, list[Run]], want: str) -> list[Run]:
    """The runs of the cell content ``want`` at the end of ``segment`` (after a container prefix)."""
    shift, size = len(segment[0]) - len(want), len(want)
    return [(a - shift, s, min(n, size - a + shift)) for a, s, n in _drop(segment[1], shift) if a - shift < size]


def _sentences(prose: Prose, line_of) -> list[Sentence]:
    """Split folded prose on . ! ? followed by a space and a capital, or by the end."""
    text, out, start = prose.text, [], 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        nxt = text[end + 1:end + 3].lstrip("\"'([")[:1]
        if end < len(text) and not nxt.isupper():
            continue
        word = text[text.rfind(" ", 0, m.start()) + 1:end].lower()
        if end < len(text) and word in _ABBREVIATIONS:
            continue
        out.append(_sentence(prose, start, end, line_of))
        start = end + 1
    if start < len(text):
        out.append(_sentence(prose, start, len(text), line_of))
    return out


def _sentence(prose: Prose, start: int, end: int, line_of) -> Sentence:
    span = prose.map.span(start, end)
    return Sentence(prose.text[start:end], line_of(span[0]), span, prose.map, start)
