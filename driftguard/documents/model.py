"""The document model: what a parsed markdown document states, with places.

Every part carries its 1-based ``line`` and its character ``span``
``[start, end)`` in the original text. Plain text (``Prose.text``) has inline
markup removed and whitespace folded; ``Prose.doc_span`` leads any substring of
it back to the document, so a fixer can rewrite a value in place. ``Link``s
are the relative links and images (``documents.links``; the record is kept with
what its target names, in ``documents.targets``, so that judging links read from
the cache loads nothing else of the model), ``Anchor``s the
fragments a link into the document may name (``documents.slugs``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from driftguard.documents.inline import OffsetMap
from driftguard.documents.targets import Link
from driftguard.model import Location

__all__ = ["Anchor", "Cell", "CodeBlock", "CodeSpan", "Document", "Heading", "Link", "ListItem", "Prose", "Row",
           "Section", "Sentence", "Table", "fold_key"]


@dataclass(frozen=True)
class CodeSpan:
    text: str
    line: int
    span: tuple[int, int]  # the code's content, without the backticks


@dataclass(frozen=True)
class Prose:
    """Plain text (markup removed, whitespace folded) that maps back to the document.

    ``span`` covers the source the text was read from (markup included): a
    heading's or cell's content, a sentence from its first to its last character.
    """

    text: str
    line: int
    span: tuple[int, int]
    map: OffsetMap = field(repr=False, compare=False)
    offset: int = field(default=0, repr=False, compare=False)  # where ``text`` starts in the map

    def doc_span(self, start: int, end: int) -> tuple[int, int]:
        """The document span of ``text[start:end]``."""
        return self.map.span(self.offset + start, self.offset + end)


@dataclass(frozen=True)
class Heading(Prose):
    level: int = 1


@dataclass(frozen=True)
class Sentence(Prose):
    pass


@dataclass(frozen=True)
class Cell(Prose):
    """One table cell; ``span`` is the cell's content between the pipes, trimmed."""

    codes: tuple[CodeSpan, ...] = ()

    @property
    def code_texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.codes)


@dataclass(frozen=True)
class Row:
    cells: tuple[Cell, ...]
    line: int
    span: tuple[int, int]  # the whole source line


@dataclass(frozen=True)
class Table:
    header: tuple[Cell, ...]
    rows: tuple[Row, ...]
    line: int
    end_line: int  # last line, inclusive
    span: tuple[int, int]

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.header)

    def column(self, name: str) -> int | None:
        """The index of the header cell whose text is ``name`` (case-insensitive, trimmed)."""
        wanted = fold_key(name)
        return next((i for i, c in enumerate(self.header) if fold_key(c.text) == wanted), None)


@dataclass(frozen=True)
class ListItem(Prose):
    """A list item: the text of its first paragraph and the code spans of all its own paragraphs."""

    codes: tuple[CodeSpan, ...] = ()
    ordered: bool = False


@dataclass(frozen=True)
class CodeBlock:
    """A fenced or indented code block (a literal or ``code-block`` in reStructuredText).

    ``lang`` is the first word of its info string, lower case ("" when none);
    ``body`` its content and ``body_span`` where that content lies in the
    document; ``line`` the line of the opening fence (or of the first line of
    an indented block); ``closed`` False for a fence never closed, which runs
    to the end of the document.
    """

    lang: str
    info: str
    body: str
    line: int
    span: tuple[int, int]  # the whole block, fences included
    body_span: tuple[int, int]
    closed: bool = True

    @property
    def body_line(self) -> int:
        """The line of the body's first line."""
        return self.line + (1 if self.span[0] != self.body_span[0] else 0)


@dataclass(frozen=True)
class Section:
    """The part under a heading, up to the next heading of the same or higher level."""

    title: str
    level: int
    line: int
    end_line: int  # last line, inclusive
    span: tuple[int, int]  # from the heading to the end of the section
    body_start: int  # offset just after the heading

    def contains(self, offset: int) -> bool:
        return self.body_start <= offset < self.span[1]


@dataclass(frozen=True)
class Anchor:
    """A fragment a link into the document may name: a heading's GitHub slug
    (``heading`` set) or an HTML ``<a name="x">`` / ``id="x"`` (``heading`` None)."""

    name: str
    line: int
    heading: Heading | None = None


@dataclass(frozen=True)
class Document:
    path: str
    text: str
    headings: tuple[Heading, ...]
    sections: tuple[Section, ...]
    tables: tuple[Table, ...]
    code_spans: tuple[CodeSpan, ...]
    sentences: tuple[Sentence, ...]
    list_items: tuple[ListItem, ...]
    line_starts: tuple[int, ...] = field(repr=False, compare=False)
    links: tuple[Link, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    blocks: tuple[CodeBlock, ...] = ()
    paragraphs: tuple[Prose, ...] = ()  # every paragraph (in lists and quotes too), whole
    title: str = ""  # the front matter's ``title:``, where the document has one

    def line_of(self, offset: int) -> int:
        return max(bisect_right(self.line_starts, offset), 1)

    def section(self, title: str) -> Section | None:
        """The first section whose heading is ``title`` (case-insensitive, whitespace folded)."""
        wanted = fold_key(title)
        return next((s for s in self.sections if fold_key(s.title) == wanted), None)

    def location(self, line: int | None = None) -> Location:
        return Location(self.path, line)

    def anchor(self, name: str) -> Anchor | None:
        """The anchor ``name`` (already percent-decoded) names: exactly, else ignoring
        case, as GitHub's page script also finds ``#Turn-Limits``."""
        exact = next((a for a in self.anchors if a.name == name), None)
        if exact is not None:
            return exact
        folded = name.casefold()
        return next((a for a in self.anchors if a.name.casefold() == folded), None)


def fold_key(text: str) -> str:
    """``text`` compared loosely: trimmed, whitespace folded, case folded."""
    return " ".join(text.split()).casefold()
