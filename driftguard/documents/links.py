"""A document's relative links and images, and its HTML anchors, placed exactly.

markdown-it decides what is a link: ``walk_inline`` places each ``link_open``
and ``image`` token it emitted (so links in code spans and code blocks, which
it never emits, are never read), and the target is read back with markdown-it's
own destination parser, at the ``(`` after the ``]`` for an inline link, or in
the ``[ref]: target`` definition markdown-it recorded for a reference link
(``[text][ref]``, ``[ref][]``, ``[ref]``). A target is kept only when it
normalises to the token's ``href``, so a misplaced one is never reported; a
link that cannot be placed keeps the ``href`` and no span.

Autolinks, ``//host`` and any ``scheme:`` target (``https:``, ``mailto:``) are
not relative: they are left out. The path helpers live in
``driftguard.documents.targets``, which the judge imports without markdown-it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination

from driftguard.documents.inline import LinkAt, OffsetMap
from driftguard.documents.model import Link
from driftguard.documents.parser import normalize_link
from driftguard.documents.targets import is_relative

_TAG = re.compile(r"<[A-Za-z][^<>]{0,2000}>")  # [^<>]: each tag scan stops at the next '<', so linear
_ANCHOR_ATTR = re.compile(r"""\s(?:name|id)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)

Span = tuple[int, int]


def target_of(written: str) -> str:
    """The destination a target as written points at (escapes and entities resolved)."""
    return unescapeAll(written)


class Definitions:
    """The ``[ref]: target`` definitions markdown-it recorded, placed in the document.

    ``starts`` and ``ends`` are the document's line starts and ends (a definition's
    ``map`` counts lines of the same text)."""

    def __init__(self, env: Mapping[str, Any], text: str, starts: list[int], ends: list[int]) -> None:
        self.refs: Mapping[str, Any] = env.get("references") or {}
        self.text, self.starts, self.ends = text, starts, ends
        self._placed: dict[str, tuple[str, Span] | None] = {}

    def target(self, label: str, href: str) -> tuple[str, Span] | None:
        """The target as written and its span in the document, of the definition of ``label``."""
        key = normalizeReference(label)
        if key not in self._placed:
            self._placed[key] = self._place(key, href)
        return self._placed[key]

    def _place(self, key: str, href: str) -> tuple[str, Span] | None:
        ref = self.refs.get(key)
        if not ref or ref.get("href") != href or not ref.get("map"):
            return None
        first, last = ref["map"][0], ref["map"][1] - 1
        if not 0 <= first <= last < len(self.starts):
            return None
        lo, hi = self.starts[first], self.ends[last]
        at = _label_end(self.text, self.text.find("[", lo, hi) + 1, hi)
        if at < 0 or not self.text.startswith(":", at):
            return None
        return _destination(self.text, _skip_space(self.text, at + 1, hi, prefixes=True), hi, href)


def read_links(found: list[LinkAt], src: str, content: OffsetMap, definitions: Definitions,
               line_of: Callable[[int], int]) -> list[Link]:
    """The relative links of one inline token; ``src`` is its content, ``content``
    maps offsets of ``src`` to the document."""
    links = []
    for at in found:
        link = _read(at, src, content, definitions, line_of)
        if link is not None and is_relative(link.destination):
            links.append(link)
    return links


def _read(at: LinkAt, src: str, content: OffsetMap, definitions: Definitions,
          line_of: Callable[[int], int]) -> Link | None:
    if not at.href and not src.startswith("(", at.close + 1):
        return None  # markdown-it keeps no empty reference target: nothing to check
    line = line_of(content.at(max(at.text - (2 if at.image else 1), 0)))
    if src.startswith("(", at.close + 1):
        start = _skip_space(src, at.close + 2, len(src))
        placed = _destination(src, start, len(src), at.href)
        if placed is not None:
            written, (a, b) = placed
            return Link(written, target_of(written), line, content.span(a, b), at.image)
    label = src[at.text:at.close]
    if src.startswith("[", at.close + 1) and at.end - at.close > 3:
        label = src[at.close + 2:at.end - 1]
    defined = definitions.target(label, at.href) if label.strip() else None
    if defined is not None:
        written, span = defined
        return Link(written, target_of(written), line, span, at.image, reference=label)
    return Link(at.href, at.href, line, None, at.image)


def _destination(text: str, start: int, stop: int, href: str) -> tuple[str, Span] | None:
    """The destination markdown-it reads at ``start``, when it normalises to ``href``:
    its text as written (``<>`` dropped) and span."""
    if start >= stop or text[start] == ")":  # ``[x]()``: the empty destination
        return ("", (start, start)) if href == "" else None
    found = parseLinkDestination(text, start, stop)
    if not found.ok or normalize_link(found.str) != href:
        return None
    a, b = start, found.pos
    if text.startswith("<", a):
        a, b = a + 1, b - 1
    return text[a:b], (a, b)


def _label_end(text: str, start: int, stop: int) -> int:
    """The offset after the ``]`` closing a label that opened before ``start``, or -1."""
    i = start
    if start <= 0:
        return -1
    while i < stop:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            return -1
        if ch == "]":
            return i + 1
        i += 1
    return -1


def _skip_space(text: str, start: int, stop: int, prefixes: bool = False) -> int:
    """Past spaces and tabs and at most one line break (then, with ``prefixes``, the
    ``>`` and indent of a container's next line)."""
    i, broke = start, False
    while i < stop:
        ch = text[i]
        if ch in "\r\n" and not broke:
            broke = True
            i += 2 if text.startswith("\r\n", i) else 1
            continue
        if ch in " \t" or (prefixes and broke and ch == ">"):
            i += 1
            continue
        break
    return i


def html_anchors(html: str) -> list[tuple[str, int]]:
    """The ``name="x"`` and ``id="x"`` anchors of the HTML tags in ``html``, with the
    offset of each tag."""
    found = []
    for tag in _TAG.finditer(html):
        for attr in _ANCHOR_ATTR.finditer(tag.group()):
            value = next(g for g in attr.groups() if g is not None)
            if value:
                found.append((value, tag.start()))
    return found
