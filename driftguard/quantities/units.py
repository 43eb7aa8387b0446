"""The units quantities are read and written in: durations, byte sizes, number words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


class QuantityError(ValueError):
    """The text is not one quantity; the only error this package raises."""


@dataclass(frozen=True)
class TimeUnit:
    key: str
    seconds: float
    long: tuple[str, str]  # singular, plural
    abbr: tuple[str, str]
    letter: str


TIME_UNITS = (  # largest first
    TimeUnit("week", 604800, ("week", "weeks"), ("wk", "wks"), "w"),
    TimeUnit("day", 86400, ("day", "days"), ("day", "days"), "d"),
    TimeUnit("hour", 3600, ("hour", "hours"), ("hr", "hrs"), "h"),
    TimeUnit("minute", 60, ("minute", "minutes"), ("min", "mins"), "m"),
    TimeUnit("second", 1, ("second", "seconds"), ("sec", "secs"), "s"),
    TimeUnit("millisecond", 0.001, ("millisecond", "milliseconds"), ("msec", "msecs"), "ms"),
    TimeUnit("microsecond", 1e-6, ("microsecond", "microseconds"), ("usec", "usecs"), "\u00b5s"),
    TimeUnit("nanosecond", 1e-9, ("nanosecond", "nanoseconds"), ("nsec", "nsecs"), "ns"),
)
SECOND = TIME_UNITS[4]
SPACED_LETTERS = frozenset({"ms", "\u00b5s", "us", "ns"})
"""Letters that may stand apart from their number ("500 ms"); the rest only attach ("5m")."""


def _spellings() -> dict[str, tuple[TimeUnit, str]]:
    """Each way a unit is written -> (unit, register: long | abbr | letter)."""
    table: dict[str, tuple[TimeUnit, str]] = {}
    for unit in TIME_UNITS:
        for register, spellings in (("long", unit.long), ("abbr", unit.abbr), ("letter", (unit.letter,))):
            for spelling in spellings:
                table.setdefault(spelling, (unit, register))
    table["us"] = (TIME_UNITS[6], "letter")
    return table


SPELLINGS = _spellings()


@dataclass(frozen=True)
class ByteUnit:
    symbol: str
    size: int
    family: str  # binary | decimal | bytes


BYTE_UNITS = (  # largest first within each family
    *(ByteUnit(s, 1024 ** p, "binary") for s, p in (("PiB", 5), ("TiB", 4), ("GiB", 3), ("MiB", 2), ("KiB", 1))),
    *(ByteUnit(s, 1000 ** p, "decimal") for s, p in (("PB", 5), ("TB", 4), ("GB", 3), ("MB", 2), ("kB", 1))),
    ByteUnit("bytes", 1, "bytes"),
    ByteUnit("B", 1, "bytes"),
)
BYTE_SPELLINGS = {u.symbol: u for u in BYTE_UNITS} | {"byte": BYTE_UNITS[-2]}
"""Symbols are case-sensitive ("MB" is not "mb"); ``KB`` is left unread, since
documents use it for both 1000 and 1024 bytes."""

FACT_UNITS: dict[str, str] = {
    "nanoseconds": "a duration", "microseconds": "a duration", "milliseconds": "a duration",
    "seconds": "a duration", "minutes": "a duration", "hours": "a duration", "days": "a duration",
    "percent": "a percent: 75 is 75%",
    "ratio": "a percent: 0.9 is 90%",
    "bytes": "a byte size: 4194304 is 4 MiB",
}
"""What ``unit:`` on a fact may say a bare number in the code measures, and what it becomes."""

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        " fifteen sixteen seventeen eighteen nineteen").split()
TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
MULTIPLIERS = {"once": 1, "twice": 2, "thrice": 3}


def words(spellings: Iterable[str], fold: bool = True) -> str:
    """An alternation, longest spelling first; case-insensitive (ASCII) unless ``fold`` is false."""
    body = "|".join(sorted(map(re.escape, spellings), key=len, reverse=True))
    return f"(?ai:{body})" if fold else f"(?:{body})"
