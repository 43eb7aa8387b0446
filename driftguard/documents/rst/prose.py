"""A text element of the docutils tree as model prose: folded text mapped to the document.

``Texts.read`` walks an element's inline nodes (``rst.inline``), places its raw
text in the source (``rst.lines``) and composes the two maps, so every character
of the folded text leads back to the document; the element's inline literals
become code spans and its relative links ``Link``s. Sphinx's cross-references are
links with a ``:role:target`` destination (``documents.targets``): ``:doc:`` names a
document without its suffix, ``:ref:`` and ``:numref:`` a label; the site that
publishes the page resolves them. A ``:download:`` target is the file it names,
relative to the page, or, written ``/x``, to the Sphinx source folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docutils import nodes

from driftguard.documents.inline import OffsetMap, Run, fold
from driftguard.documents.model import CodeSpan, Link, Prose
from driftguard.documents.rst.inline import RawLink, walk
from driftguard.documents.rst.lines import Source
from driftguard.documents.targets import is_relative, sphinx_document


@dataclass
class Placed:
    """Folded text, runs from it to the document, the source it was read from, its code spans."""

    text: str
    runs: list[Run]
    base: int
    span: tuple[int, int]
    line: int
    codes: list[CodeSpan] = field(default_factory=list)

    def prose(self) -> Prose:
        return Prose(self.text, self.line, self.span, OffsetMap(self.runs, self.base))


class Texts:
    """Reads text elements of one document; ``links`` collects the relative links met."""

    def __init__(self, path: str, src: Source) -> None:
        self.path, self.src = path, src
        self.links: list[Link] = []
        self.misplaced = 0  # elements whose raw text was not found in the source

    def read(self, element: nodes.Element, line: int, lo: int = 0, hi: int | None = None,
             first: bool = False) -> Placed:
        raw = element.rawsource if isinstance(element.rawsource, str) else element.astext()
        walked = walk(element, raw)
        runs = self.src.place(raw, line, lo, hi, first) if raw else None
        base = self.src.starts[self.src.clamp(line - 1)]
        if runs is None:
            self.misplaced += bool(raw)
            runs = []
        content = OffsetMap(runs, base)
        doc_runs = content.compose(walked.runs)
        text, folded = fold(walked.plain)
        if folded is not None:
            doc_runs = OffsetMap(doc_runs, base).compose(folded)
        span = content.span(0, len(raw))
        codes = []
        for code, a, b in walked.codes:
            at = content.span(a, b)
            codes.append(CodeSpan(code.replace("\n", " "), self.src.line_of(at[0]), at))
        for link in walked.links:
            self._link(link, content)
        return Placed(text, doc_runs, base, span, self.src.line_of(span[0]) if runs else line, codes)

    def combine(self, parts: list[Placed], line: int, at: int) -> Placed:
        """Several placed texts as one, joined by a space (a cell of two paragraphs)."""
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return Placed("", [], at, (at, at), line)
        text, runs = "", []
        for part in parts:
            if text:
                runs.append((len(text), part.span[0], 0))
                text += " "
            runs += [(a + len(text), s, n) for a, s, n in part.runs]
            text += part.text
        runs = [r for r in runs if r[2]]
        span = (parts[0].span[0], parts[-1].span[1])
        return Placed(text, runs, parts[0].base, span, parts[0].line, [c for p in parts for c in p.codes])

    def _link(self, link: RawLink, content: OffsetMap) -> None:
        if link.role in ("ref", "numref", "doc"):
            destination: str | None = f":{'doc' if link.role == 'doc' else 'ref'}:{link.target}"
        elif link.role == "download":
            destination = sphinx_document(self.path, link.target, "")
        else:
            destination = link.destination
        if destination is None or not is_relative(destination) or not destination:
            return
        span = content.span(link.at, link.at + len(link.target))
        self.links.append(Link(link.target, destination, self.src.line_of(span[0]), span))
