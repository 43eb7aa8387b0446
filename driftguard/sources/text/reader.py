"""The regex fallback reader, for files no parser reads.

A ``pattern`` selector yields the first group of each match: a set (first
occurrence of each value kept), or with ``scalar`` the single distinct match,
read as a quantity where it is one. Patterns compile with ``re.MULTILINE`` so
``^`` and ``$`` anchor at lines, as in grep.

Matching goes through ``driftguard.user_regex``: a pattern that backtracks
catastrophically over the file is stopped at the time bound and reported as a
``PatternError`` naming the file and the pattern.
"""

from __future__ import annotations

import bisect
import re

from driftguard.config.specs import Pattern, Selector
from driftguard.model import (
    AmbiguousFact,
    ConfigError,
    FactNotFound,
    Item,
    Location,
    Value,
)
from driftguard.quantities import read_value
from driftguard.user_regex import MULTILINE, Compiled, compile_user_regex, first_groups


class TextTree:
    """A file's text; line starts are computed on first use."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self._line_starts: list[int] | None = None

    def location(self, offset: int) -> Location:
        """The 1-based line and column of a character offset."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer(r"\r\n?|\n", self.text)]
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return Location(self.path, row + 1, offset - self._line_starts[row] + 1)


def parse(path: str, text: str) -> TextTree:
    return TextTree(path, text)


def extract(tree: TextTree, selector: Selector, path: str) -> list[Item]:
    """The first group of every match of ``selector.regex``."""
    if not isinstance(selector, Pattern):
        raise ConfigError(
            f"{path}: no parser reads this kind of file, so only a `pattern` selector can "
            f"(not {type(selector).__name__.lower()})",
            Location(path),
        )
    regex = compile_pattern(selector.regex, path)
    found = dict(first_groups(regex, tree.text, Location(path)))
    if not found:
        raise FactNotFound(f"pattern {selector.regex!r} matches nothing", Location(path))
    if not selector.scalar:
        return [Item(Value.string(text), tree.location(start)) for text, start in found.items()]
    if len(found) > 1:
        lines = ", ".join(str(tree.location(start).line) for start in found.values())
        raise AmbiguousFact(
            f"pattern {selector.regex!r} matches {len(found)} different values (lines {lines})",
            tree.location(next(iter(found.values()))),
        )
    text, start = next(iter(found.items()))
    return [Item(read_value(text), tree.location(start))]


def compile_pattern(pattern: str, path: str) -> Compiled[str]:
    """The compiled pattern; ``PatternError`` when it does not compile or has no group."""
    return compile_user_regex(pattern, Location(path), flags=MULTILINE, groups=1)
