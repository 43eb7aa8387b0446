"""What a ``links`` rule needs of a document (markdown or reStructuredText): its links,
its anchors and what a site makes anchors from.

Kept apart from the parsed ``Document`` so that the fact cache can hold it as
JSON: a run whose documents are unchanged judges their links without loading
the markdown parser. Nothing here depends on the site that publishes the
document: ``anchors`` are GitHub's (the reader's), and each site computes its
own from ``headings``, ``html`` and ``labels`` at judging time (pure string
work), so one cached entry serves every site and no site is part of its key.

Besides the document's links, the cross-references a site generator adds to
markdown (Hugo's ``ref``/``relref`` shortcodes, MyST's ``{doc}``/``{ref}``
roles: ``documents.targets``) are links with a ``:role:target`` destination.
``hidden`` keeps each heading-shaped line inside a code block that was never
closed, or that holds a line only a new fence can start with (```` ```json ````):
the heading a link names may be missing because a fence swallowed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftguard.documents.targets import Link, cross_references, labels

if TYPE_CHECKING:
    from driftguard.documents.model import CodeBlock, Document

MARKDOWN_ONLY = (".md", ".markdown", ".mdown", ".mkd", ".mkdn")
MARKDOWN = (*MARKDOWN_ONLY, ".rst", ".rest")
"""The documents whose anchors a link's ``#fragment`` is checked against (the name is historical)."""
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)


@dataclass(frozen=True)
class Hidden:
    """A heading-shaped line at ``line`` inside the code block opened at ``block`` (its
    last line ``end``); ``reopened`` is a line of that block that can only open a fence,
    0 for none."""

    text: str
    line: int
    block: int
    end: int
    closed: bool
    reopened: int = 0


@dataclass(frozen=True)
class LinkedDoc:
    """``links`` with, for each, the line of its ``[ref]: target`` definition (0 for an
    inline link); ``anchors`` the fragment names GitHub gives the document (headings
    and HTML anchors); ``headings`` each heading's rendered text and line; ``html`` the
    anchors no heading makes (``<a name>``, ``id=``, a reStructuredText label);
    ``labels`` MyST's ``(name)=`` targets."""

    path: str
    links: tuple[tuple[Link, int], ...]
    anchors: tuple[str, ...]
    headings: tuple[tuple[str, int], ...] = ()
    html: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    hidden: tuple[Hidden, ...] = ()

    def anchor(self, name: str) -> str | None:
        """The anchor ``name`` (percent-decoded) names: exactly, else ignoring case, as
        GitHub's page script also finds ``#Turn-Limits``."""
        if name in self.anchors:
            return name
        folded = name.casefold()
        return next((a for a in self.anchors if a.casefold() == folded), None)


def may_link(path: str, text: str) -> bool:
    """Whether the document at ``path`` may hold a link: a markdown page holds none
    without a ``[`` (every link, image and reference), a ``{{`` (a Hugo shortcode) or a
    MyST ``{doc}``/``{ref}`` role, so it need not be parsed to judge its own links."""
    if not path.lower().endswith((*MARKDOWN_ONLY, ".mdx")):
        return True
    return "[" in text or "{{" in text or "{doc}" in text or "{ref}" in text


def linked_doc(doc: Document) -> LinkedDoc:
    links = [(link, doc.line_of(link.span[0]) if link.reference and link.span else 0) for link in doc.links]
    markdown = doc.path.lower().endswith((*MARKDOWN_ONLY, ".mdx"))  # shortcodes and MyST roles
    roles = _cross_references(doc) if markdown else []
    if roles:  # in the document's order: by line, then by place on the line
        links = sorted(links + roles, key=lambda pair: (pair[0].line, _at(pair[0])))
    return LinkedDoc(
        doc.path, tuple(links), tuple(a.name for a in doc.anchors),
        headings=tuple((a.heading.text, a.line) for a in doc.anchors if a.heading is not None),
        html=tuple(a.name for a in doc.anchors if a.heading is None),
        labels=tuple(name for name, _ in labels(doc.text)) if markdown else (),
        hidden=tuple(h for block in doc.blocks for h in _hidden(doc, block)))


def _at(link: Link) -> int:
    return link.span[0] if link.span is not None and not link.reference else 0


def _cross_references(doc: Document) -> list[tuple[Link, int]]:
    blocks = [b.span for b in doc.blocks]
    found = []
    for role, target, start, end in cross_references(doc.text, [c.span for c in doc.code_spans]):
        if not any(a <= start < b for a, b in blocks):
            found.append((Link(target, f":{role}:{target}", doc.line_of(start), (start, end)), 0))
    return found


def _hidden(doc: Document, block: CodeBlock) -> list[Hidden]:
    """The heading-shaped lines of a fenced block that looks unclosed."""
    opening = doc.text[block.span[0]:block.span[1]].lstrip(" ")[:1]
    if opening not in ("`", "~"):
        return []  # an indented block: no fence to lose
    reopen = re.compile(rf"^ {{0,3}}{re.escape(opening)}{{3,}}[ \t]*[^\s{re.escape(opening)}]", re.M)
    start, stop = block.body_span
    again = reopen.search(doc.text, start, stop)
    if block.closed and again is None:
        return []
    end = doc.line_of(block.span[1])
    reopened = doc.line_of(again.start()) if again else 0
    return [Hidden(m.group(1), doc.line_of(m.start()), block.line, end, block.closed, reopened)
            for m in _HEADING.finditer(doc.text, start, stop)]


def linked_to_json(doc: LinkedDoc) -> dict[str, object]:
    links = [[link.target, link.destination, link.line, None if link.span is None else list(link.span), link.image,
              link.reference, defined] for link, defined in doc.links]
    return {"path": doc.path, "links": links, "anchors": list(doc.anchors),
            "headings": [list(h) for h in doc.headings], "html": list(doc.html), "labels": list(doc.labels),
            "hidden": [[h.text, h.line, h.block, h.end, h.closed, h.reopened] for h in doc.hidden]}


def linked_from_json(raw: object) -> LinkedDoc:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise ValueError("expected a linked document")
    anchors, rows = raw.get("anchors"), raw.get("links")
    if not isinstance(anchors, list) or not all(type(a) is str for a in anchors) or not isinstance(rows, list):
        raise ValueError("a damaged linked document")
    return LinkedDoc(raw["path"], tuple(_link(row) for row in rows), tuple(anchors),
                     headings=tuple(_heading(h) for h in _list(raw, "headings")),
                     html=_strings(raw, "html"), labels=_strings(raw, "labels"),
                     hidden=tuple(_hidden_row(h) for h in _list(raw, "hidden")))


def _list(raw: dict[str, object], key: str) -> list[object]:
    found = raw.get(key)
    if not isinstance(found, list):
        raise ValueError(f"a damaged linked document: {key}")
    return found


def _strings(raw: dict[str, object], key: str) -> tuple[str, ...]:
    found = _list(raw, key)
    if not all(type(s) is str for s in found):
        raise ValueError(f"a damaged linked document: {key}")
    return tuple(s for s in found if isinstance(s, str))


def _heading(row: object) -> tuple[str, int]:
    if not isinstance(row, list) or len(row) != 2 or type(row[0]) is not str or type(row[1]) is not int:
        raise ValueError("a damaged heading")
    return row[0], row[1]


def _hidden_row(row: object) -> Hidden:
    if not isinstance(row, list) or len(row) != 6:
        raise ValueError("a damaged hidden heading")
    text, line, block, end, closed, reopened = row
    if (type(text) is not str or type(line) is not int or type(block) is not int or type(end) is not int
            or type(closed) is not bool or type(reopened) is not int):
        raise ValueError("a damaged hidden heading")
    return Hidden(text, line, block, end, closed, reopened)


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
