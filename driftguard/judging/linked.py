"""What a ``links`` rule needs of a document (markdown or reStructuredText): its links and its anchors.

Kept apart from the parsed ``Document`` so that the fact cache can hold it as
JSON: a run whose documents are unchanged judges their links without loading
the markdown parser.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftguard.documents.model import Document, Link

MARKDOWN = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".rst", ".rest")
"""The documents whose anchors a link's ``#fragment`` is checked against (the name is historical)."""


@dataclass(frozen=True)
class LinkedDoc:
    """``links`` with, for each, the line of its ``[ref]: target`` definition (0 for an
    inline link); ``anchors`` the fragment names a link into the document may use."""

    path: str
    links: tuple[tuple[Link, int], ...]
    anchors: tuple[str, ...]

    def anchor(self, name: str) -> str | None:
        """The anchor ``name`` (percent-decoded) names: exactly, else ignoring case, as
        GitHub's page script also finds ``#Turn-Limits``."""
        if name in self.anchors:
            return name
        folded = name.casefold()
        return next((a for a in self.anchors if a.casefold() == folded), None)


def linked_doc(doc: Document) -> LinkedDoc:
    links = tuple((link, doc.line_of(link.span[0]) if link.reference and link.span else 0) for link in doc.links)
    return LinkedDoc(doc.path, links, tuple(a.name for a in doc.anchors))


def linked_to_json(doc: LinkedDoc) -> dict[str, object]:
    links = [[link.target, link.destination, link.line, None if link.span is None else list(link.span), link.image,
              link.reference, defined] for link, defined in doc.links]
    return {"path": doc.path, "links": links, "anchors": list(doc.anchors)}


def linked_from_json(raw: object) -> LinkedDoc:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise ValueError("expected a linked document")
    anchors, rows = raw.get("anchors"), raw.get("links")
    if not isinstance(anchors, list) or not all(type(a) is str for a in anchors) or not isinstance(rows, list):
        raise ValueError("a damaged linked document")
    return LinkedDoc(raw["path"], tuple(_link(row) for row in rows), tuple(anchors))


def _link(row: object) -> tuple[Link, int]:
    if not isinstance(row, list) or len(row) != 7:
        raise ValueError("a damaged link")
    target, destination, line, span, image, reference, defined = row
    if (type(target) is not str or type(destination) is not str or type(line) is not int
            or type(image) is not bool or type(reference) is not str or type(defined) is not int):
        raise ValueError("a damaged link")
    if span is not None and (not isinstance(span, list) or len(span) != 2 or not all(type(v) is int for v in span)):
        raise ValueError("a damaged link span")
    return Link(target, destination, line, None if span is None else (span[0], span[1]), image, reference), defined
