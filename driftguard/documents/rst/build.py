"""One walk over the docutils tree, building the document model.

Sections nest as docutils nests them (level 1 for the outermost); an object
description is a section one level below the one it sits in, titled by its
names, spanning its directive block. Paragraphs (with list items' paragraphs,
definition terms and rubrics) give sentences; a list item's text is its first
paragraph, its code spans those of all its own paragraphs; tables are read by
``rst.tables``; literal blocks and ``code-block``s are code blocks. Anchors are
docutils' ids of sections and targets and Sphinx's of object descriptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docutils import nodes

from driftguard.documents.inline import OffsetMap, Run, push_run
from driftguard.documents.model import (
    Anchor,
    CodeBlock,
    CodeSpan,
    Document,
    Heading,
    Link,
    ListItem,
    Prose,
    Section,
    Sentence,
    Table,
)
from driftguard.documents.rst.lines import Source
from driftguard.documents.rst.names import anchors_of, is_python, kind_of, names_of
from driftguard.documents.rst.nodes import code_block, desc
from driftguard.documents.rst.prose import Placed, Texts
from driftguard.documents.rst.tables import read_table
from driftguard.documents.sentences import sentences
from driftguard.documents.targets import is_relative

Span = tuple[int, int]
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")
_PROSE = (nodes.paragraph, nodes.term, nodes.rubric, nodes.line, nodes.attribution, nodes.caption, nodes.title)
_SKIP = (nodes.system_message, nodes.comment, nodes.substitution_definition, nodes.raw, nodes.problematic)


@dataclass
class _Item:
    line: int
    ordered: bool
    first: Placed | None = None
    codes: list[CodeSpan] = field(default_factory=list)


@dataclass(frozen=True)
class _Open:
    """A heading's section before its end is known: real sections end at the next
    heading of the same or a higher level, a description's with its block."""

    start: int
    body: int
    level: int
    end: int | None = None  # a description's end offset
    end_line: int = 0


class Builder:
    def __init__(self, path: str, text: str, bom: int, view: str) -> None:
        self.path, self.text = path, text
        self.src = Source(text, bom, view)
        self.texts = Texts(path, self.src)
        self.headings: list[Heading] = []
        self.open: list[_Open] = []
        self.tables: list[Table] = []
        self.codes: list[CodeSpan] = []
        self.sentences: list[Sentence] = []
        self.items: list[ListItem] = []
        self.anchors: list[Anchor] = []
        self.blocks: list[CodeBlock] = []
        self.paragraphs: list[Prose] = []
        self.links: list[Link] = []
        self.line = 1  # the last line docutils gave: for nodes it gives none

    def document(self, tree: nodes.document) -> Document:
        self.walk(tree, 0, None, [])
        return Document(
            path=self.path, text=self.text, headings=tuple(self.headings), sections=tuple(self._sections()),
            tables=tuple(self.tables), code_spans=tuple(sorted(self.codes, key=lambda c: c.span)),
            sentences=tuple(self.sentences), list_items=tuple(self.items), line_starts=tuple(self.src.starts),
            links=tuple(sorted(self.links + self.texts.links, key=lambda k: k.span or (0, 0))),
            anchors=tuple(self.anchors), blocks=tuple(self.blocks), paragraphs=tuple(self.paragraphs),
        )

    def _line(self, node: nodes.Node) -> int:
        if isinstance(node.line, int) and node.line > 0:
            self.line = node.line
        return self.line

    # -- the walk -------------------------------------------------------------

    def walk(self, node: nodes.Element, level: int, item: _Item | None, classes: list[str]) -> None:
        for child in node.children:
            if not isinstance(child, nodes.Element) or isinstance(child, _SKIP):
                continue
            if isinstance(child, nodes.title) and isinstance(node, nodes.section):
                continue  # read as the section's heading
            line = self._line(child)
            if isinstance(child, nodes.section):
                self._section(child, level + 1, item, classes)
            elif isinstance(child, desc):
                self._desc(child, level + 1, item, classes)
            elif isinstance(child, _PROSE):
                self._paragraph(child, line, item)
            elif isinstance(child, nodes.list_item):
                self._item(child, line, isinstance(node, nodes.enumerated_list), level, classes)
            elif isinstance(child, nodes.table):
                self._table(child, line)
            elif isinstance(child, code_block):
                self._code_block(child)
            elif isinstance(child, (nodes.literal_block, nodes.doctest_block)):
                self._literal(child, line)
            elif isinstance(child, nodes.target):
                self._target(child, line)
            else:
                self.walk(child, level, item, classes)

    def _section(self, node: nodes.section, level: int, item: _Item | None, classes: list[str]) -> None:
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        if title is None:
            self.walk(node, level, item, classes)
            return
        placed = self.texts.read(title, self._line(title) or self.line)
        heading = self._heading(placed, level)
        index = placed.line - 1
        src = self.src
        over = index > 0 and _ADORNMENT.match(src.line(index - 1)) is not None
        start = src.starts[index - 1 if over else index]
        self.open.append(_Open(start, src.starts[src.clamp(index + 2)] if index + 2 < len(src) else len(self.text),
                               level))
        for name in _ids(node):
            self.anchors.append(Anchor(name, heading.line, heading))
        self.walk(node, level, item, classes)

    def _heading(self, placed: Placed, level: int) -> Heading:
        self.codes.extend(placed.codes)
        heading = Heading(placed.text, placed.line, placed.span, OffsetMap(placed.runs, placed.base), level=level)
        self.headings.append(heading)
        return heading

    def _desc(self, node: desc, level: int, item: _Item | None, classes: list[str]) -> None:
        objtype, signatures = str(node["objtype"]), list(node["signatures"])
        lineno, end_line = int(node["lineno"]), int(node["end_line"])
        names = names_of(objtype, signatures[0]) if signatures else []
        placed, spans = self._names(names, signatures[0] if signatures else "", lineno)
        heading = self._heading(placed, level)
        for (name, _), span in zip(names, spans):  # Sphinx shows a description's names as code
            self.codes.append(CodeSpan(name, lineno, span))
        src = self.src
        start = src.starts[src.clamp(lineno - 1)]
        end = src.starts[end_line] if end_line < len(src) else len(self.text)
        body = src.starts[lineno - 1 + int(node["head_lines"])] if lineno - 1 + int(node["head_lines"]) < len(src) \
            else len(self.text)
        self.open.append(_Open(start, min(body, end), level, end, end_line))
        plain = [n for n, _ in names]
        for anchor in anchors_of(objtype, plain, str(node["module"]), str(node["program"]), classes):
            self.anchors.append(Anchor(anchor, lineno, heading))
        nested = classes + plain[:1] if is_python(objtype) and kind_of(objtype) in ("class", "exception") else classes
        self.walk(node, level, item, nested)

    def _names(self, names: list[tuple[str, int]], signature: str, lineno: int) -> tuple[Placed, list[Span]]:
        """A description's title (its names joined by ", ") placed on its directive line, and
        the span of each name."""
        src = self.src
        index = src.clamp(lineno - 1)
        seen, cols = src.seen(index)
        at = seen.find(signature) if signature else -1
        base = src.starts[index]
        if at < 0 or not names:
            return Placed(signature or "", [], base, (base, base), index + 1), []
        runs: list[Run] = []
        spans: list[Span] = []
        text = ""
        for name, offset in names:
            if text:  # the ", " before this name in the signature
                push_run(runs, len(text), base + _col(cols, at + offset - 2), 2)
                text += ", "
            start = base + _col(cols, at + offset)
            push_run(runs, len(text), start, len(name))
            spans.append((start, start + len(name)))
            text += name
        return Placed(text, runs, base, (spans[0][0], spans[-1][1]), index + 1), spans

    def _paragraph(self, node: nodes.Element, line: int, item: _Item | None) -> None:
        placed = self.texts.read(node, line)
        if not placed.text and not placed.codes:
            return
        prose = placed.prose()
        self.paragraphs.append(prose)
        self.codes.extend(placed.codes)
        self.sentences.extend(sentences(prose, self.src.line_of))
        if item is not None:
            item.first = item.first or placed
            item.codes.extend(placed.codes)

    def _item(self, node: nodes.list_item, line: int, ordered: bool, level: int, classes: list[str]) -> None:
        item = _Item(line, ordered)
        self.walk(node, level, item, classes)
        first = item.first
        if first is None:
            at = self.src.starts[self.src.clamp(line - 1)]
            self.items.append(ListItem("", line, (at, at), OffsetMap([], at), codes=tuple(item.codes), ordered=ordered))
            return
        self.items.append(ListItem(first.text, min(line, first.line), first.span, OffsetMap(first.runs, first.base),
                                   codes=tuple(item.codes), ordered=ordered))

    def _table(self, node: nodes.table, line: int) -> None:
        table = read_table(self.texts, node, line)
        if table is None:
            return
        self.tables.append(table)
        for row in (table.header, *(r.cells for r in table.rows)):
            for cell in row:
                self.codes.extend(cell.codes)

    def _code_block(self, node: code_block) -> None:
        src = self.src
        lineno, first, count = int(node["lineno"]), int(node["first"]), int(node["count"])
        top = src.clamp(lineno - 1)
        last = src.clamp(first + count - 1) if count else top
        body = (src.starts[src.clamp(first)], src.ends[last]) if count else (src.ends[top], src.ends[top])
        self.blocks.append(CodeBlock(str(node["lang"]), str(node["info"]), node.astext() + "\n", top + 1,
                                     (src.starts[top], src.ends[last]), body))

    def _literal(self, node: nodes.Element, line: int) -> None:
        raw = node.rawsource if isinstance(node.rawsource, str) and node.rawsource else node.astext()
        runs = self.src.place(raw, line, first=True)
        if runs is None:
            self.texts.misplaced += 1
            return
        top, last = self.src.line_of(runs[0][1]), self.src.line_of(runs[-1][1] + max(runs[-1][2] - 1, 0))
        span = (self.src.starts[top - 1], self.src.ends[last - 1])
        lang = "pycon" if isinstance(node, nodes.doctest_block) else ""
        self.blocks.append(CodeBlock(lang, "", raw + "\n", top, span, span))

    def _target(self, node: nodes.target, line: int) -> None:
        for name in _ids(node):
            self.anchors.append(Anchor(name, line))
        uri = node.get("refuri")
        if isinstance(uri, str) and uri and is_relative(uri):
            index = self.src.clamp(line - 1)
            for probe in range(index, min(index + 3, len(self.src))):
                col = self.src.line(probe).find(uri)
                if col >= 0:
                    at = self.src.starts[probe] + col
                    self.links.append(Link(uri, uri, probe + 1, (at, at + len(uri))))
                    return
            self.links.append(Link(uri, uri, line, None))

    # -- sections -------------------------------------------------------------

    def _sections(self) -> list[Section]:
        out: list[Section] = []
        last_line = len(self.src) - (1 if self.text.endswith(("\n", "\r")) else 0)
        for index, (h, o) in enumerate(zip(self.headings, self.open)):
            if o.end is not None:
                out.append(Section(h.text, h.level, h.line, max(o.end_line, h.line), (o.start, o.end), o.body))
                continue
            later = (p for p in self.open[index + 1:] if p.end is None and p.level <= o.level)
            nxt = next(later, None)
            end = nxt.start if nxt is not None else len(self.text)
            end_line = self.src.line_of(end) - 1 if nxt is not None else last_line
            out.append(Section(h.text, h.level, h.line, max(end_line, h.line), (o.start, end), min(o.body, end)))
        return out


def _col(cols: list[int] | None, col: int) -> int:
    """The source column of column ``col`` of a line as docutils saw it."""
    return cols[col] if cols else col


def _ids(node: nodes.Element) -> list[str]:
    ids: object = node.get("ids", [])
    return [str(i) for i in ids] if isinstance(ids, list) else []
