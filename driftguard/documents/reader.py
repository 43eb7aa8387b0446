"""Parse a markdown document once into the parts claims are read from.

markdown-it-py gives block tokens with line ranges; ``parse_document`` walks
them in one flat pass (no recursion, so nesting depth never matters) and
records headings, sections, tables, code spans, prose sentences, list items,
relative links (``driftguard.documents.links``) and heading anchors
(``driftguard.documents.slugs``); see ``driftguard.documents.model``. Fenced and
indented code is never read.
Table cells are re-split from their source line (``driftguard.documents.table_rows``),
so each cell's span is exact. ``parse_links`` is the same pass for a ``links`` rule:
the blocks are parsed, but only the inline content of headings and of blocks that
may hold a link, and no prose is built.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from markdown_it.token import Token

from driftguard.documents.directives import blank_directives
from driftguard.documents.front_matter import front_matter
from driftguard.documents.inline import OffsetMap, Run, fold, push_run, walk_inline
from driftguard.documents.links import Definitions, html_anchors, read_links
from driftguard.documents.model import (
    Anchor,
    Cell,
    CodeBlock,
    CodeSpan,
    Document,
    Heading,
    Link,
    ListItem,
    Prose,
    Row,
    Section,
    Sentence,
    Table,
    fold_key,
)
from driftguard.documents.parser import block_tokens, parse_inline
from driftguard.documents.sentences import sentences
from driftguard.documents.slugs import Slugger
from driftguard.documents.table_rows import cell_runs, locate_piece
from driftguard.model import Location, ParseError
from driftguard.text import EOL, split_bom

__all__ = [
    "Anchor", "Cell", "CodeBlock", "CodeSpan", "Document", "Heading", "Link", "ListItem", "Prose", "Row", "Section",
    "Sentence", "Table", "fold_key", "parse_document", "parse_links",
]

def parse_document(path: str, text: str) -> Document:
    """Parse ``text`` (the document at repository-relative ``path``); ParseError if markdown-it fails."""
    return _parse(_Builder(path, text))


def parse_links(path: str, text: str) -> Document:
    """What a ``links`` rule reads of ``text``, as ``parse_document`` reads it: headings,
    code blocks, links and HTML anchors, and the code spans of the blocks that hold a
    link or anchor. No sentence, paragraph, list item or table is built, and only the
    inline content of headings and of blocks that may hold a link or an anchor
    (``_may_link``) is parsed."""
    return _parse(_Builder(path, text, links_only=True))


def parse_spans(path: str, text: str) -> Document:
    """The code spans of ``text`` (what a ``references`` rule reads), as ``parse_document``
    reads them, with headings, links and code blocks; only the inline content holding a
    backtick is parsed, and no sentence, paragraph, list item or table is built."""
    return _parse(_Builder(path, text, spans_only=True))


def _parse(builder: _Builder) -> Document:
    body = builder.text[builder.bom:]
    length, builder.title = front_matter(body)
    if length:  # blanked, not cut: every line keeps its number
        body = "".join(c if c in "\r\n" else " " for c in body[:length]) + body[length:]
    body = blank_directives(body)
    try:
        tokens = block_tokens(body, builder.env, inline=not builder.partial)
    except Exception as exc:  # markdown-it on hostile input: report, never crash
        raise ParseError(f"the markdown could not be parsed: {exc}", Location(builder.path)) from None
    return builder.build(tokens)


def _may_link(content: str, references: bool) -> bool:
    """Whether an inline's content may hold what a links rule reads: a link or image
    (``](`` or ``][``; any ``[`` when the page defines references, for ``[ref]``), an
    HTML anchor (a ``<`` with ``id=`` or ``name=``), or a code span that a MyST role
    (``{doc}``, ``{ref}``) or a shortcode (``{{``) touches."""
    if "](" in content or "][" in content or (references and "[" in content):
        return True
    if "<" in content and "=" in content and ("id" in content.lower() or "name" in content.lower()):
        return True
    return "`" in content and ("{{" in content or "{doc}" in content or "{ref}" in content)


@dataclass
class _OpenItem:
    token: Token
    ordered: bool
    first: Prose | None = None  # its first paragraph
    codes: list[CodeSpan] = field(default_factory=list)


class _Inline(NamedTuple):
    prose: Prose
    codes: list[CodeSpan]
    plain: str  # the text as rendered, before folding: what a heading's slug is made of


@dataclass
class _OpenTable:
    token: Token
    header: tuple[Cell, ...] = ()
    rows: list[Row] = field(default_factory=list)
    row: list[tuple[Token, bool]] = field(default_factory=list)  # (inline token, is a header cell)


class _Builder:
    """One pass over the token stream, with a stack of open containers."""

    def __init__(self, path: str, text: str, links_only: bool = False, spans_only: bool = False) -> None:
        self.path, self.text = path, text
        self.links_only = links_only  # parse_links: headings, blocks, links and anchors only
        self.spans_only = spans_only  # parse_spans: code spans, headings and blocks only
        self.partial = links_only or spans_only  # no prose model: sentences, paragraphs, items, tables
        self.bom = len(split_bom(text)[0])
        self.starts, self.ends = [self.bom], []
        for m in EOL.finditer(text):
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
        self.env: dict[str, Any] = {}  # markdown-it's: the reference definitions
        self.links: list[Link] = []
        self.anchors: list[Anchor] = []
        self.blocks: list[CodeBlock] = []
        self.paragraphs: list[Prose] = []
        self.title = ""
        self.slugger = Slugger()
        self._definitions: Definitions | None = None

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
        lists: list[bool] = []  # ordered? per open list
        containers: list[_OpenItem | None] = []  # open list items; None for a blockquote
        table: _OpenTable | None = None
        for i, tok in enumerate(tokens):
            kind = tok.type
            if kind in ("bullet_list_open", "ordered_list_open"):
                lists.append(kind == "ordered_list_open")
            elif kind in ("bullet_list_close", "ordered_list_close") and lists:
                lists.pop()
            elif kind in ("list_item_open", "blockquote_open"):
                item = kind == "list_item_open"
                containers.append(_OpenItem(tok, bool(lists and lists[-1])) if item else None)
            elif kind in ("list_item_close", "blockquote_close") and containers:
                closed = containers.pop()
                if closed is not None:
                    self._close_item(closed)
            elif kind == "table_open":
                table = _OpenTable(tok)
            elif kind == "tr_open" and table:
                table.row = []
            elif kind == "tr_close" and table:
                self._close_row(table)
            elif kind == "table_close" and table:
                self._close_table(table)
                table = None
            elif kind == "html_block":
                self._html(tok.content, (tok.map[0] + 1) if tok.map else 1)
            elif kind in ("fence", "code_block") and tok.map:
                self.blocks.append(self._code_block(tok))
            elif kind == "inline" and i:
                parent = tokens[i - 1]
                if parent.type == "paragraph_open" and self._reads(tok):
                    self._paragraph(tok, containers[-1] if containers else None)
                elif parent.type == "heading_open" and self._reads(tok, heading=True):
                    self._heading(tok, int(parent.tag[1:] or 1))
                elif parent.type in ("th_open", "td_open") and table:
                    table.row.append((tok, parent.type == "th_open"))
        return self._document()

    def _reads(self, tok: Token, heading: bool = False) -> bool:
        """Whether the inline ``tok`` is read: always, but for ``parse_links`` only a
        heading (its anchor) or an inline that may hold a link, its children parsed now."""
        if not self.partial:
            return True
        if self.spans_only and "`" not in tok.content and not heading:
            return False
        if self.links_only and not heading and not _may_link(tok.content, bool(self.env.get("references"))):
            return False
        parse_inline(tok, self.env)  # the block parse left it unread
        return True

    def _document(self) -> Document:
        return Document(
            path=self.path, text=self.text, headings=tuple(self.headings),
            sections=tuple(self._sections()), tables=tuple(self.tables),
            code_spans=tuple(self.codes), sentences=tuple(self.sentences),
            list_items=tuple(self.items), line_starts=tuple(self.starts),
            links=tuple(self.links), anchors=tuple(self.anchors), blocks=tuple(self.blocks),
            paragraphs=tuple(self.paragraphs), title=self.title,
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
        prose, codes, plain = self._prose(tok, self._line_runs(tok), heading=True)
        self.codes.extend(codes)
        line = (tok.map[0] + 1) if tok.map else prose.line
        heading = Heading(prose.text, line, prose.span, prose.map, level=level)
        self.headings.append(heading)
        self.heading_ends.append(tok.map[1] if tok.map else line)
        self.anchors.append(Anchor(self.slugger.slug(plain), line, heading))

    def _html(self, html: str, line: int) -> None:
        for name, at in html_anchors(html):
            self.anchors.append(Anchor(name, line + html.count("\n", 0, at)))

    def _code_block(self, tok: Token) -> CodeBlock:
        """A fenced or indented block: its body's span runs over the lines between the fences
        (or the whole block when indented)."""
        assert tok.map is not None
        first, end = self.line_index(tok.map[0]), self.line_index(tok.map[1] - 1)
        fenced = tok.type == "fence"
        closed = True
        body_first, body_last = first, end
        if fenced:
            closing = self.line_text(end).strip()
            closed = end > first and len(closing) >= len(tok.markup) and set(closing) == {tok.markup[0]}
            body_first, body_last = first + 1, end - 1 if closed else end
        start = self.starts[body_first] if body_first <= body_last else self.starts[min(first + 1, end)]
        stop = self.ends[body_last] if body_first <= body_last else start
        info = tok.info.strip() if fenced else ""
        words = info.split()
        if len(words) > 1 and words[0].startswith("{") and words[0].endswith("}"):  # MyST: {code-block} python
            words = words[1:]
        lang = words[0].strip("{}.").lower() if words else ""
        return CodeBlock(lang, info, tok.content, first + 1, (self.starts[first], self.ends[end]), (start, stop),
                         closed)

    def _paragraph(self, tok: Token, item: _OpenItem | None) -> None:
        if self.partial:  # its links, anchors and code spans; no prose
            self.codes.extend(self._inline(tok, self._line_runs(tok))[3])
            return
        prose, codes, _ = self._prose(tok, self._line_runs(tok))
        self.codes.extend(codes)
        self.paragraphs.append(prose)
        self.sentences.extend(sentences(prose, self.line_of))
        if item is not None:  # a paragraph directly inside a list item
            item.first = item.first or prose
            item.codes.extend(codes)

    def _close_item(self, item: _OpenItem) -> None:
        if self.partial:
            return
        line = (item.token.map[0] + 1) if item.token.map else 1
        first = item.first
        if first is None:
            at = self.starts[self.line_index(line - 1)]
            first = Prose("", line, (at, at), OffsetMap([], at))
        self.items.append(ListItem(first.text, line, first.span, first.map, codes=tuple(item.codes),
                                   ordered=item.ordered))

    def _close_row(self, table: _OpenTable) -> None:
        row = table.row
        if not row:
            return
        index = self.line_index(row[0][0].map[0] if row[0][0].map else 0)
        base = self.starts[index]
        cells = []
        for (tok, _), runs in zip(row, cell_runs(self.line_text(index), [t.content for t, _ in row])):
            if not self._reads(tok):
                continue
            shifted = [(a, base + s, n) for a, s, n in runs]
            if self.partial:  # the table is not kept: its links, anchors and code spans only
                self.codes.extend(self._inline(tok, shifted, line=index + 1)[3])
                continue
            prose, codes, _ = self._prose(tok, shifted, line=index + 1)
            self.codes.extend(codes)
            cells.append(Cell(prose.text, index + 1, prose.span, prose.map, codes=tuple(codes)))
        if row[0][1]:
            table.header = tuple(cells)
        else:
            table.rows.append(Row(tuple(cells), index + 1, (base, self.ends[index])))

    def _close_table(self, table: _OpenTable) -> None:
        if self.partial:
            return
        tok = table.token
        first, last = (tok.map[0], tok.map[1] - 1) if tok.map else (0, 0)
        first, last = self.line_index(first), self.line_index(max(last, first))
        span = (self.starts[first], self.ends[last])
        self.tables.append(Table(table.header, tuple(table.rows), first + 1, last + 1, span))

    # -- inline text ----------------------------------------------------------

    def _line_runs(self, tok: Token) -> list[Run]:
        """Runs from the token's content (container prefixes stripped) to the document."""
        runs: list[Run] = []
        offset, first = 0, tok.map[0] if tok.map else 0
        for i, piece in enumerate(tok.content.split("\n")):
            index = self.line_index(first + i)
            line, start = self.line_text(index), self.starts[index]
            lead, col = locate_piece(line, piece)
            if offset:  # the line break before this line
                push_run(runs, offset - 1, self.ends[self.line_index(index - 1)], 1)
            push_run(runs, offset, start + max(col - lead, 0), lead)
            push_run(runs, offset + lead, start + col, len(piece) - lead)
            offset += len(piece) + 1
        return runs

    def _inline(self, tok: Token, runs: list[Run], line: int = 0) -> tuple[OffsetMap, list[Run], str, list[CodeSpan]]:
        """An inline token read for what it holds: its links and HTML anchors recorded, and
        its source map, the runs of its plain text into the source, that text and its code spans."""
        base = runs[0][1] if runs else (self.starts[self.line_index(tok.map[0])] if tok.map else 0)
        content = OffsetMap(runs, base)
        children = tok.children or []
        plain, plain_runs, code_at, links_at = walk_inline(children, tok.content)
        if links_at:
            definitions = self.definitions()
            self.links += read_links(links_at, tok.content, content, definitions, self.line_of)
        for child in children:
            if child.type == "html_inline":
                self._html(child.content, line or ((tok.map[0] + 1) if tok.map else 1))
        codes = []
        for code, at in code_at:
            cspan = content.span(at, at + len(code))
            codes.append(CodeSpan(code, self.line_of(cspan[0]), cspan))
        return content, plain_runs, plain, codes

    def _prose(self, tok: Token, runs: list[Run], line: int = 0, heading: bool = False) -> _Inline:
        """The folded plain text of an inline token, and its code spans, mapped to the
        document; its links and HTML anchors are recorded on the way."""
        content, plain_runs, plain, codes = self._inline(tok, runs, line)
        base = content.base
        text_map = plain_map = OffsetMap(content.compose(plain_runs), base)
        folds = heading or not self.partial  # a links or references rule reads no prose
        text, folded_runs = fold(plain) if folds else (plain, None)
        if folded_runs is not None:
            text_map = OffsetMap(plain_map.compose(folded_runs), base)
        span = content.span(0, len(tok.content))  # all the source the text was read from
        prose = Prose(text, line or self.line_of(span[0]), span, text_map)
        return _Inline(prose, codes, plain)

    def definitions(self) -> Definitions:
        """The reference definitions, placed once per document on first use."""
        if self._definitions is None:
            self._definitions = Definitions(self.env, self.text, self.starts, self.ends)
        return self._definitions

