"""Plain text of a docutils text element, aligned with its raw text.

docutils keeps each inline element's raw markup (``rawsource``) and, in its text
nodes, a NUL where a backslash escaped the next character. ``walk`` moves one
cursor forward through the element's raw text (never back, each search bounded),
emits the text as rendered (markup removed, escapes resolved, a role's shown
text), and records where each inline literal's content and each link's target
lie in the raw text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docutils import nodes

from driftguard.documents.inline import Run, push_run
from driftguard.documents.rst.nodes import xref

_WINDOW = 64  # how far ahead a character of the text is looked for
_REACH = 4096  # how far ahead an element's markup is looked for


@dataclass(frozen=True)
class RawLink:
    """A link in the raw text: ``raw[at:at + len(target)]`` is ``target`` as written;
    ``role`` is "" for a hyperlink (``destination`` its resolved URI), else ``doc``,
    ``ref``, ``download``..."""

    target: str
    destination: str
    at: int
    role: str = ""


@dataclass
class Walked:
    plain: str = ""
    runs: list[Run] = field(default_factory=list)  # plain -> raw
    codes: list[tuple[str, int, int]] = field(default_factory=list)  # (text, raw start, raw end)
    links: list[RawLink] = field(default_factory=list)


def walk(element: nodes.Element, raw: str) -> Walked:
    walker = _Walker(raw)
    walker.children(element, len(raw))
    out = Walked("".join(walker.parts), walker.runs, walker.codes, walker.links)
    return out


class _Walker:
    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.cursor = 0
        self.parts: list[str] = []
        self.size = 0
        self.runs: list[Run] = []
        self.codes: list[tuple[str, int, int]] = []
        self.links: list[RawLink] = []

    def emit(self, text: str, at: int) -> None:
        push_run(self.runs, self.size, at, len(text))
        self.parts.append(text)
        self.size += len(text)

    def children(self, element: nodes.Element, stop: int) -> None:
        for child in element.children:
            if isinstance(child, nodes.Text):
                self.text(str(child), stop)
            elif isinstance(child, nodes.Element):
                self.element(child, stop)

    def element(self, node: nodes.Element, stop: int) -> None:
        if isinstance(node, (nodes.system_message, nodes.comment, nodes.substitution_definition)):
            return
        markup = node.rawsource if isinstance(node.rawsource, str) else ""
        at = self.raw.find(markup, self.cursor, min(stop, self.cursor + len(markup) + _REACH)) if markup else -1
        end = at + len(markup) if at >= 0 else stop
        if isinstance(node, nodes.target) and not node.children:
            self.cursor = max(self.cursor, end if at >= 0 else self.cursor)
            return
        if at >= 0:
            self.cursor = at
        if isinstance(node, nodes.literal):
            self.literal(node, at, end)
        elif isinstance(node, xref):
            self.xref(node, at, end)
        else:
            if isinstance(node, nodes.reference) and node.get("refuri") and at >= 0:
                self.reference(node, markup, at)
            self.children(node, end)
        if at >= 0:
            self.cursor = max(self.cursor, end)

    def literal(self, node: nodes.literal, at: int, end: int) -> None:
        text = node.astext()
        offset = node.get("dg_at")
        start = at + offset if at >= 0 and isinstance(offset, int) else self.raw.find(text, self.cursor, end)
        stop = start + len(text)
        if start < 0 or self.raw[start:stop] != text:  # escapes: the text is not as written
            inner = _content(self.raw[at:end]) if at >= 0 else None
            start, stop = (at + inner[0], at + inner[1]) if inner else (self.cursor, self.cursor)
        self.emit(text, start)
        self.codes.append((text, start, max(stop, start)))

    def xref(self, node: xref, at: int, end: int) -> None:
        target, offset = str(node["target"]), node["target_at"]
        if at >= 0 and self.raw.startswith(target, at + offset):
            self.links.append(RawLink(target, target, at + offset, str(node["role"])))
        shown = node.astext()
        place = self.raw.find(shown, self.cursor, end) if shown else -1
        self.emit(shown, place if place >= 0 else self.cursor)

    def reference(self, node: nodes.reference, markup: str, at: int) -> None:
        """An embedded URI, ``text <uri>`_``: its target as written."""
        close = markup.rfind(">`")
        open_ = markup.rfind("<", 0, close)
        if close > 0 and open_ >= 0:
            self.links.append(RawLink(markup[open_ + 1:close], str(node["refuri"]), at + open_ + 1))

    def text(self, text: str, stop: int) -> None:
        raw, k = self.raw, 0
        while k < len(text):
            nul = text.find("\x00", k)
            piece = text[k:nul if nul >= 0 else len(text)]
            if piece and raw.startswith(piece, self.cursor):
                self.emit(piece, self.cursor)
                self.cursor += len(piece)
                k += len(piece)
                continue
            ch = text[k]
            if ch == "\x00":  # a backslash escape; an escaped space or line break is removed
                slash = raw.find("\\", self.cursor, self.cursor + _WINDOW)
                self.cursor = slash + 1 if slash >= 0 else self.cursor
                k += 1
                if k < len(text) and text[k] in " \n":
                    self.cursor += 1
                    k += 1
                continue
            found = raw.find(ch, self.cursor, min(stop, self.cursor + _WINDOW))
            if found >= 0:
                self.emit(ch, found)
                self.cursor = found + 1
            else:
                self.emit(ch, min(self.cursor, max(len(raw) - 1, 0)))
            k += 1


def _content(markup: str) -> tuple[int, int] | None:
    """Where a literal's content lies in its markup: inside ````x```` or a role's backticks."""
    if len(markup) >= 4 and markup.startswith("``") and markup.endswith("``"):
        return 2, len(markup) - 2
    first, last = markup.find("`"), markup.rfind("`")
    return (first + 1, last) if 0 <= first < last else None
