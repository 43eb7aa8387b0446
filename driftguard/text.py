"""Line breaks, line starts and the byte order mark, in one place.

Every stage counts lines the way markdown-it and the source parsers do: a line
ends at ``\\r\\n``, a lone ``\\r`` or ``\\n``. Offsets are character offsets into
the text as read (after the BOM is dropped); lines are 1-based.
"""

from __future__ import annotations

import re
from bisect import bisect_right

EOL = re.compile(r"\r\n|\r|\n")
BOM = "\ufeff"
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts."""
    return [0] + [m.end() for m in EOL.finditer(text)]


def line_at(starts: list[int], offset: int) -> int:
    """The 1-based line holding ``offset``, given ``line_starts`` of its text."""
    return bisect_right(starts, offset)


def line_number(text: str, offset: int) -> int:
    """The 1-based line of ``text`` holding ``offset``."""
    return len(EOL.findall(text, 0, offset)) + 1


def newline_of(text: str) -> str:
    """The first line break ``text`` uses, ``\\n`` when it has none."""
    m = EOL.search(text)
    return m.group() if m else "\n"


def split_bom(text: str) -> tuple[str, str]:
    """``(BOM or "", the rest)``."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def printable(text: str) -> str:
    """``text`` with every control character but the newline and the tab written as
    an escape (``\\x1b``), so a value read from a source or a document can never
    move the cursor, recolour or retitle the terminal that shows it. A lone surrogate
    (a Python string literal can hold one) is written ``\\ud800``: no encoding can print it."""
    return _CONTROL.sub(_escaped, text)


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
