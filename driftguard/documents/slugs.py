"""GitHub's heading anchors: the slug a heading's text becomes, duplicates numbered.

GitHub (html-pipeline's table-of-contents filter, mirrored by github-slugger)
lower-cases the heading's rendered text, removes every character that is not a
word character (a letter, a mark, a decimal or letter number, or connector
punctuation such as ``_``), a ``-`` or a space, and turns each space into a
``-``; nothing is folded or trimmed, so ``A -- B`` becomes ``a----b``. A slug
seen before gets ``-1``, ``-2``... (the first free one, as github-slugger counts).
The text is the heading as rendered: inline markup removed, a code span's
content kept, a line break inside a setext heading dropped with the controls.
"""

from __future__ import annotations

import unicodedata

_WORD = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc"})


def slug(text: str) -> str:
    """The anchor GitHub gives a heading whose rendered text is ``text`` (no numbering)."""
    kept = (c for c in text.lower() if c in "- " or unicodedata.category(c) in _WORD)
    return "".join(kept).replace(" ", "-")


def numbered(base: str, seen: dict[str, int], separator: str = "-") -> str:
    """``base``, or when ``seen`` holds it the first free ``base-1``, ``base-2``... (as
    github-slugger, markdown-it-anchor and Hugo count); the result is added to ``seen``."""
    found = base
    while found in seen:
        seen[base] += 1
        found = f"{base}{separator}{seen[base]}"
    seen[found] = 0
    return found


class Slugger:
    """Slugs for the headings of one document, in order: a repeated slug is numbered."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, text: str) -> str:
        return numbered(slug(text), self._seen)
