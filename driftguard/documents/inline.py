"""Plain text of markdown inline tokens, with a way back to the source.

markdown-it-py's inline tokens carry no positions, so ``walk_inline`` aligns
them with the inline content they came from, moving one cursor forward only
(linear in the content, whatever the markup). ``OffsetMap`` keeps the result
as runs: a stretch of derived text that maps one-to-one onto the source. The
same pass places each link and image markdown-it found (``LinkAt``), which
``documents.links`` reads the target of.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

Run = tuple[int, int, int]  # (offset in the derived text, offset in the source, length)

_FOLD = re.compile(r"\s{2,}|[^\S ]")
_WINDOW = 16  # how far ahead a stray markup character is looked for
_REACH = 256  # how far ahead the source of a structural token is looked for
_BREAK = re.compile(r"\\?[ \t]*\n[ \t]*")  # a line break with the spaces markdown-it drops
_MAX_DESTINATION = 4096


@dataclass(frozen=True)
class LinkAt:
    """A link or image token placed in the inline content: ``src[text:close]`` is its
    text (or alt text), ``src[close]`` the ``]``, and ``src[close + 1:end]`` what
    follows it, the ``(destination)`` or ``[label]`` (empty for ``[ref]``)."""

    href: str  # the token's normalised ``href`` (``src`` for an image)
    image: bool
    text: int
    close: int
    end: int


def push_run(runs: list[Run], at: int, src: int, length: int) -> None:
    """Append a run, merging it with the last one when both are contiguous."""
    if length <= 0:
        return
    if runs:
        a, s, n = runs[-1]
        if a + n == at and s + n == src:
            runs[-1] = (a, s, n + length)
            return
    runs.append((at, src, length))


class OffsetMap:
    """Offsets of a derived text -> offsets of the source, stored as sorted runs.

    An offset between runs maps to the end of the run before it; an empty map
    maps everything to ``base``.
    """

    __slots__ = ("_keys", "_runs", "base")

    def __init__(self, runs: list[Run], base: int = 0) -> None:
        self._runs = runs
        self._keys = [r[0] for r in runs]
        self.base = base

    def at(self, pos: int) -> int:
        if len(self._runs) == 1 and pos >= self._keys[0]:
            a, s, n = self._runs[0]
            return s + min(pos - a, n)
        i = bisect_right(self._keys, pos) - 1
        if i < 0:
            return self._runs[0][1] if self._runs else self.base
        a, s, n = self._runs[i]
        return s + min(pos - a, n)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The source span of derived ``[start, end)``."""
        if end <= start:
            at = self.at(start)
            return at, at
        return self.at(start), self.at(end - 1) + 1

    def compose(self, runs: Sequence[Run]) -> list[Run]:
        """``runs`` (outer -> this map's derived offsets) as runs outer -> source."""
        keys, mine = self._keys, self._runs
        if len(mine) == 1:  # one stretch (a single-line paragraph, a cell): a plain shift
            d, s, length = mine[0]
            if not runs or (d <= runs[0][1] and runs[-1][1] + runs[-1][2] <= d + length):  # runs are monotone
                return [(a, s + m - d, n) for a, m, n in runs]
        out: list[Run] = []
        for a, m, n in runs:
            i = max(bisect_right(keys, m) - 1, 0)
            while n > 0 and i < len(mine):
                d, s, length = mine[i]
                if m < d:  # a gap in this map: those characters map to the run before
                    step = min(n, d - m)
                elif m >= d + length:
                    i += 1
                    continue
                else:
                    step = min(n, d + length - m)
                    push_run(out, a, s + m - d, step)
                a, m, n = a + step, m + step, n - step
        return out


def fold(text: str) -> tuple[str, list[Run] | None]:
    """``text`` trimmed with every whitespace run folded to one space, and runs back into
    ``text`` (None when nothing changed)."""
    lo = len(text) - len(text.lstrip())
    hi = len(text.rstrip())
    if lo == 0 and hi == len(text) and not _FOLD.search(text):
        return text, None
    parts: list[str] = []
    runs: list[Run] = []
    size, pos = 0, lo
    for m in _FOLD.finditer(text, lo, hi):
        push_run(runs, size, pos, m.start() - pos)
        parts.append(text[pos:m.start()])
        size += m.start() - pos
        push_run(runs, size, m.start(), 1)
        parts.append(" ")
        size += 1
        pos = m.end()
    if hi > pos:
        push_run(runs, size, pos, hi - pos)
        parts.append(text[pos:hi])
    return "".join(parts), runs


Walked = tuple[str, list[Run], list[tuple[str, int]], list[LinkAt]]


def walk_inline(children: Sequence[Token], src: str) -> Walked:
    """Plain text of inline ``children`` aligned with ``src`` (the inline content).

    Returns the plain text (code spans keep their content, emphasis, links and
    image alt text reduced to text, HTML dropped, line breaks as ``\\n``), runs
    from it into ``src``, each code span's text with its offset in ``src``, and
    each link and image but autolinks, placed in ``src``.
    """
    walker = _Walker(src)
    todo: list[Token | None] = list(reversed(children))
    while todo:
        tok = todo.pop()
        if tok is None:  # the end of an image's alt text
            walker.close_link()
        elif tok.type == "image":
            walker.skip("![")
            walker.open_link(tok, image=True)
            todo.append(None)
            todo.extend(reversed(tok.children or []))
        else:
            walker.token(tok)
    return "".join(walker.parts), walker.runs, walker.codes, walker.links


class _Walker:
    def __init__(self, src: str) -> None:
        self.src = src
        self.cursor = 0
        self.parts: list[str] = []
        self.size = 0
        self.runs: list[Run] = []
        self.codes: list[tuple[str, int]] = []
        self.links: list[LinkAt] = []
        self.open_links: list[tuple[Token, bool, int]] = []  # (token, is an image, where its text starts)

    def emit(self, text: str, at: int) -> None:
        push_run(self.runs, self.size, at, len(text))
        self.parts.append(text)
        self.size += len(text)

    def find(self, marker: str, start: int, window: int = _REACH) -> int:
        """``marker`` near ``start``, or -1: bounded, so a misaligned cursor never costs a full scan."""
        return self.src.find(marker, start, start + len(marker) + window)

    def skip(self, marker: str, window: int = _WINDOW) -> None:
        at = self.find(marker, self.cursor, window)
        if at >= 0:
            self.cursor = at + len(marker)

    def token(self, tok: Token) -> None:
        kind = tok.type
        if kind in ("text", "text_special"):
            self.text(tok.content)
        elif kind == "code_inline":
            self.code(tok.content, tok.markup or "`")
        elif kind in ("softbreak", "hardbreak"):
            self.newline()
        elif kind == "link_open" and tok.markup == "autolink":
            self.skip("<")
        elif kind == "link_open":
            self.skip("[")
            self.open_link(tok, image=False)
        elif kind == "link_close" and tok.markup == "autolink":
            self.skip(">", _REACH)
        elif kind == "link_close":
            self.close_link()
        elif kind == "html_inline":
            self.skip(tok.content, _REACH)
        elif tok.markup and kind.endswith(("_open", "_close")):
            self.skip(tok.markup)

    def text(self, text: str) -> None:
        src = self.src
        k = 0
        while k < len(text):
            c = self.cursor
            n = _common_prefix(text, k, src, c)
            if n:
                self.emit(text[k:k + n], c)
                k, self.cursor = k + n, c + n
            elif src.startswith("\\", c) and src.startswith(text[k], c + 1):
                self.cursor = c + 1  # a backslash escape
            elif src.startswith("&", c) and (semi := src.find(";", c, c + 40)) > 0:
                self.emit(text[k], c)  # an entity: its character maps to the '&'
                k, self.cursor = k + 1, semi + 1
            elif (at := src.find(text[k], c + 1, c + _WINDOW)) > 0:
                self.cursor = at  # stray markup before the text
            else:
                self.emit(text[k], min(c, max(len(src) - 1, 0)))
                k += 1

    def code(self, code: str, marker: str) -> None:
        src = self.src
        opening = self.find(marker, self.cursor)
        start = opening + len(marker) if opening >= 0 else self.cursor
        for lead in (0, 1):  # markdown-it strips one space on each side
            if src[start + lead:start + lead + len(code)].replace("\n", " ") == code:
                start += lead
                break
        self.emit(code, start)
        self.codes.append((code, start))
        closing = self.find(marker, start + len(code), 2)
        self.cursor = closing + len(marker) if closing >= 0 else start + len(code)

    def newline(self) -> None:
        m = _BREAK.match(self.src, self.cursor)
        at = self.src.find("\n", m.start(), m.end()) if m else self.find("\n", self.cursor)
        if at < 0:
            self.emit(" ", min(self.cursor, max(len(self.src) - 1, 0)))
            return
        self.emit("\n", at)
        self.cursor = m.end() if m else at + 1

    def open_link(self, tok: Token, image: bool) -> None:
        self.open_links.append((tok, image, self.cursor))

    def close_link(self) -> None:
        """Step over ``]`` and the destination ``(...)`` or reference ``[...]`` after it,
        and place the link it closes."""
        src = self.src
        opened = self.open_links.pop() if self.open_links else None
        at = self.find("]", self.cursor)
        if at < 0:
            return
        self.cursor = at + 1
        if src.startswith("(", self.cursor):
            self.cursor = _destination_end(src, self.cursor)
        elif src.startswith("[", self.cursor):
            end = self.find("]", self.cursor, _MAX_DESTINATION)
            self.cursor = end + 1 if end >= 0 else self.cursor
        if opened is not None:
            tok, image, text = opened
            href = str(tok.attrs.get("src" if image else "href", ""))
            self.links.append(LinkAt(href, image, text, at, self.cursor))


def _destination_end(src: str, start: int) -> int:
    """The offset after the ``)`` closing the link destination opened at ``start``."""
    depth, quote, i = 0, "", start
    stop = min(len(src), start + _MAX_DESTINATION)
    while i < stop:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'" and src[i - 1] in " \t\n":
            quote = ch
        elif ch == "<" and i == start + 1:
            close = src.find(">", i, stop)
            i = close if close >= 0 else i
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return start + 1


def _common_prefix(a: str, i: int, b: str, j: int) -> int:
    """The length of the common prefix of ``a[i:]`` and ``b[j:]`` (galloping, C-speed compares)."""
    limit = min(len(a) - i, len(b) - j)
    n = 1  # probe 1, 2, 4, ... characters: the cost stays proportional to the answer
    while n < limit and b.startswith(a[i:i + n], j):
        n *= 2
    if n >= limit and b.startswith(a[i:i + limit], j):
        return max(limit, 0)
    lo, hi = n // 2, min(n, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if b.startswith(a[i:i + mid], j):
            lo = mid
        else:
            hi = mid - 1
    return lo
