"""What libcst is never asked to parse: a file it would crash or stall on.

libcst's native parser overflows its stack on brackets nested a few thousand deep
(the process dies with SIGSEGV), spends seconds and hundreds of megabytes on lists
nested a thousand deep, and is quadratic in a chain of binary operators (10,000 terms
on one line: minutes, then a crash). This scan finds both shapes in one pass over the
text, strings and comments skipped, before the parser sees it; CPython itself refuses
brackets nested 200 deep. It is a guard, not a reader: no value is taken from it.
"""

from __future__ import annotations

import re

from driftguard.model import Location, ParseError

MAX_DEPTH = 100
"""Brackets nested deeper than this are refused."""

MAX_OPERATORS = 500
"""Binary and boolean operators in one statement beyond this are refused."""

_TOKEN = re.compile(r"""
    \#[^\n]*                                  # a comment
  | [rRbBuUfF]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\")   # a triple-quoted string
  | [rRbBuUfF]{0,2}(?:'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")  # a string
  | (?P<open>[(\[{]) | (?P<close>[)\]}])
  | (?P<op>\*\*|//|<<|>>|[-+*/%&|^@]|\band\b|\bor\b)
  | (?P<end>\n|;)
""", re.VERBOSE)


def check_bounds(path: str, text: str) -> None:
    """Raise ParseError naming the line when ``text`` nests or chains beyond the bounds."""
    depth = operators = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_DEPTH:
                raise _refused(path, text, m.start(), f"brackets nested more than {MAX_DEPTH} deep")
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "op":
            operators += 1
            if operators > MAX_OPERATORS:
                raise _refused(path, text, m.start(), f"more than {MAX_OPERATORS} operators in one statement")
        elif kind == "end" and depth == 0:
            operators = 0


def _refused(path: str, text: str, at: int, what: str) -> ParseError:
    line = text.count("\n", 0, at) + 1
    return ParseError(f"{path} is not read: line {line} holds {what}, which the Python parser cannot take safely",
                      Location(path, line))
