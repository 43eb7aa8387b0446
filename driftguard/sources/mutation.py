"""What every selftest mutator shares: the edit type, the two refusals, and the
helpers that place an edit (offsets, new names, bumped values).

The source mutators live in each language's package (``add_member`` and
``change_scalar`` of the reader protocol) and the document mutators in
``driftguard.selftest.doc``; all of them build an ``Edit`` from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from driftguard.model import Fact, Item, Kind, Location, Value
from driftguard.text import line_number, line_starts, newline_of
from driftguard.user_regex import compile_user_regex

__all__ = [
    "IDENTIFIER", "SELFTEST", "CannotApply", "Edit", "NotApplicable", "after_line_at", "bumped", "indent_at",
    "last_item", "last_line", "line_number", "line_start_at", "line_starts", "new_name", "newline_of", "offset_of",
]

SELFTEST = "driftguard_selftest"
"""The bogus value a set mutation adds, in whichever case the neighbours use."""


class NotApplicable(Exception):
    """The mutation has no meaning for this rule's shape (e.g. no value matches its regex)."""


class CannotApply(Exception):
    """The mutation should apply but the selftest could not write it: a selftest failure."""


@dataclass(frozen=True)
class Edit:
    """A mutated file: its new text, what changed and where, and the spellings of the
    mutated value a finding must name (empty: read the new value from the mutated run)."""

    text: str
    what: str
    line: int | None
    expect: tuple[str, ...] = ()



def offset_of(text: str, loc: Location, starts: list[int] | None = None) -> int:
    """The character offset of a 1-based line and column."""
    starts = starts or line_starts(text)
    if loc.line is None or not 1 <= loc.line <= len(starts):
        raise CannotApply(f"no line {loc.line} in {loc.path}")
    return starts[loc.line - 1] + max((loc.column or 1) - 1, 0)


def last_item(fact: Fact) -> Item:
    """The member declared last in the source."""
    placed = [i for i in fact.items if i.location is not None and i.location.line is not None]
    if not placed:
        raise CannotApply(f"fact '{fact.name}' has no source locations to add a member next to")
    return max(placed, key=_position)


def last_line(fact: Fact) -> int:
    """The line of the member declared last in the source."""
    loc = last_item(fact).location
    if loc is None or loc.line is None:  # last_item keeps placed items only
        raise CannotApply(f"fact '{fact.name}' has no source locations to add a member next to")
    return loc.line


def _position(item: Item) -> tuple[int, int]:
    loc = item.location
    return (0, 0) if loc is None else (loc.line or 0, loc.column or 0)


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def new_name(base: str, taken: set[str] | str, regex: str | None = None) -> str:
    """A fresh identifier in the style of ``base`` (``StateDone`` -> ``StateDoneSelftest``,
    ``MAX_X`` -> ``MAX_X_SELFTEST``) that the selector's name ``regex`` still matches;
    ``taken`` is the names in use (or the source text to collect them from)."""
    if isinstance(taken, str):
        taken = set(IDENTIFIER.findall(taken))
    if base.upper() == base and any(c.isalpha() for c in base):
        suffix, word = "_SELFTEST", SELFTEST.upper()
    elif "_" in base or base.islower():
        suffix, word = "_selftest", SELFTEST
    else:
        suffix, word = "Selftest", "DriftguardSelftest"
    pattern = compile_user_regex(regex, Location("")) if regex else None
    candidates = [base + suffix]
    m = pattern.search(base) if pattern is not None else None
    if m is not None and m.start() > 0:  # a suffix pattern (``ToolName$``): insert before the match
        candidates.append(base[:m.start()] + suffix + base[m.start():])
    candidates.append(word)
    for candidate in candidates:
        for n in ("", *range(2, 50)):
            name = f"{candidate}{n}"
            if name.isidentifier() and name not in taken and (pattern is None or pattern.search(name)):
                return name
    raise NotApplicable(f"no new name the selftest can build matches the name pattern /{regex}/")


def bumped(value: Value) -> Value:
    """A different amount: numbers + 1, durations and byte sizes doubled (a minute or
    a KiB when zero), booleans flipped."""
    if value.kind is Kind.BOOL:
        return Value(Kind.BOOL, not value.data)
    if value.kind is Kind.BYTES:
        size = value.data
        assert isinstance(size, (int, float))
        return Value(Kind.BYTES, size * 2 if size else 1024)
    if value.kind is Kind.NUMBER:
        n = value.data
        return Value(Kind.NUMBER, n + 1 if isinstance(n, int) and not isinstance(n, bool) else float(n) + 1)
    if value.kind is Kind.DURATION:
        seconds = float(value.data)
        return Value(Kind.DURATION, seconds * 2 if seconds else 60.0)
    raise NotApplicable(f"the value `{value}` is not a quantity")


def line_start_at(src: bytes, at: int) -> int:
    """The offset where the line holding byte ``at`` of ``src`` starts."""
    return src.rfind(b"\n", 0, at) + 1


def after_line_at(src: bytes, at: int) -> int:
    """The offset just after the line break ending the line that holds byte ``at``."""
    end = src.find(b"\n", at)
    return len(src) if end < 0 else end + 1


def indent_at(src: bytes, start: int) -> str | None:
    """The white space before byte ``start`` on its line, or None when code precedes it."""
    lead = src[line_start_at(src, start):start]
    return lead.decode() if not lead.strip() else None
