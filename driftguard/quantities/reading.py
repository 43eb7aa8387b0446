"""Read quantities from prose and table cells, with the style each was written in."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal

from driftguard.model import Kind, Value
from driftguard.quantities.grammar import COMPILED, EDGES, PART, SEARCH, SPACED_PART
from driftguard.quantities.units import (
    BYTE_SPELLINGS,
    MULTIPLIERS,
    ONES,
    SPELLINGS,
    TENS,
    ByteUnit,
    QuantityError,
    TimeUnit,
)

MAX_LENGTH = 512  # no quantity is longer; longer text is refused before matching


@dataclass(frozen=True)
class Style:
    """How a document wrote a quantity, so a new value can be written the same way."""

    numerals: str = "digits"  # digits | words | article | half
    decimals: int = 0  # "75.0" -> 1: zeros kept after the point
    fractional: bool = False  # the number had a non-zero fraction ("1.5 hours")
    commas: bool = False
    joiner: str = "-"  # between the words of "twenty-four"
    word_limit: int = 20  # larger numbers are written in digits
    suffix: str = ""  # "%", " percent", " times"
    times: bool = False
    unit: TimeUnit | None = None
    bytes_unit: ByteUnit | None = None
    register: str = "long"  # long | abbr | letter
    sep: str = " "  # between number and unit: "", whitespace or "-"
    compact: bool = False  # 1h30m
    compound: bool = False  # "10 minutes and 30 seconds": read, never written
    case: str = ""  # "" | capital | upper
    lead: str = ""
    trail: str = ""


def number(text: str) -> tuple[int | float, Style]:
    """The value and style of a digits or number-words match."""
    low = text.lower()
    if low[-1].isdigit():
        digits = low.replace(",", "").replace("\u2212", "-")
        fraction = digits.partition(".")[2]
        zeros = len(fraction) if fraction and not fraction.strip("0") else 0
        amount = float(digits) if "." in digits or "e" in digits else int(digits)
        return amount, Style(decimals=zeros, fractional=bool(fraction.strip("0")), commas="," in low)
    tokens = re.split(r"[-\s]+", low)
    if tokens[-1] == "hundred":
        n = 100
    else:
        n = sum(TENS[t] if t in TENS else ONES.index(t) for t in tokens)
    joiner = "-" if "-" in low or len(tokens) == 1 else " "
    return n, Style(numerals="words", joiner=joiner, word_limit=99 if n > 20 else 20)


def _unit(spelling: str) -> tuple[TimeUnit, str]:
    return SPELLINGS[spelling] if spelling in SPELLINGS else SPELLINGS[spelling.lower()]


def _byte_unit(spelling: str) -> ByteUnit:
    return BYTE_SPELLINGS["bytes" if spelling.lower().startswith("byte") else spelling]


def scaled(n: int | float, size: int | float) -> int | float:
    """``n * size``, exact where both are: ``1.5 GiB`` is a whole number of bytes."""
    if isinstance(n, int) and isinstance(size, int):
        return n * size
    product = Decimal(repr(n)) * Decimal(repr(size))
    return int(product) if product == product.to_integral_value() else float(product)


def _interpret(form: str, m: re.Match[str]) -> tuple[Kind, int | float | bool, str, Style]:
    """(kind, data, unit hint, style) for a match of form ``form``."""
    if form == "bool":
        return Kind.BOOL, m["bool"].lower() == "true", "", Style()
    if form == "multiplier":
        style = Style(numerals="words", times=True, suffix=" times")
        return Kind.NUMBER, float(MULTIPLIERS[m["word"].lower()]), "times", style
    if form == "compound":
        pieces = [(float(number(p["num"])[0]), _unit(p["unit"])) for p in SPACED_PART.finditer(m["parts"])]
        total = sum(n * unit.seconds for n, (unit, _) in pieces)
        top, register = max((u for _, u in pieces), key=lambda u: u[0].seconds)
        return Kind.DURATION, total, m["parts"].lower(), Style(unit=top, register=register, compound=True)
    if form == "compact":
        parts = PART.findall(m["parts"])
        total = sum(float(n) * _unit(u)[0].seconds for n, u in parts)
        top = max((_unit(u)[0] for _, u in parts), key=lambda u: u.seconds)
        style = Style(unit=top, register="letter", compact=True)
        return Kind.DURATION, -total if m["sign"] else total, parts[0][1].lower(), style
    if form in ("half", "article"):
        unit, register = _unit(m["unit"])
        amount = 0.5 if form == "half" else 1.0
        style = Style(numerals=form, unit=unit, register=register)
        return Kind.DURATION, amount * unit.seconds, m["unit"].lower(), style
    n, style = number(m["num"])
    if form == "bytes":
        unit_b = _byte_unit(m["bunit"])
        style = replace(style, bytes_unit=unit_b, sep=m["sep"], register=m["bunit"])
        return Kind.BYTES, scaled(n, unit_b.size), m["bunit"], style
    if form == "percent":
        return Kind.NUMBER, n, "%", replace(style, suffix=m["pct"].lower())
    if form == "times":
        return Kind.NUMBER, n, "times", replace(style, times=True, suffix=m["sep"] + "times")
    if form == "number":
        return Kind.NUMBER, n, "", style
    unit, register = _unit(m["unit"])
    style = replace(style, unit=unit, register=register, sep=m["sep"] if form == "spaced" else "")
    return Kind.DURATION, n * unit.seconds, m["unit"].lower(), style


def _case(core: str) -> str:
    letters = [c for c in core if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return "upper"
    return "capital" if core[0].isupper() else ""


def finite(x: int | float | bool) -> bool:
    return abs(x) < 2**1023 if isinstance(x, int) else math.isfinite(x)


def read(text: str) -> tuple[Value, Style]:
    if not isinstance(text, str):
        raise QuantityError(f"not text: {text!r}")
    if len(text) > MAX_LENGTH:
        raise QuantityError(f"too long to be a quantity ({len(text)} characters)")
    edges = EDGES.fullmatch(text)  # always matches
    lead, core, trail = edges.groups() if edges else ("", text, "")
    if not core:
        raise QuantityError("empty text is not a quantity")
    for form, regex in COMPILED:
        match = regex.fullmatch(core)
        if match:
            kind, data, unit, style = _interpret(form, match)
            break
    else:
        raise QuantityError(f"not a quantity: {core!r}")
    if not finite(data):
        raise QuantityError(f"number out of range: {core!r}")
    style = replace(style, case=_case(core) if kind is not Kind.BYTES else "", lead=lead, trail=trail)
    return Value(kind, data, text, unit), style


def read_value(text: str) -> Value:
    """``text`` as a quantity where it reads as one ("10 minutes", "75%", "4 MiB", "true"),
    else kept as a string so that a comparison reports it."""
    try:
        return parse_quantity(text)
    except QuantityError:
        return Value.string(text)


def parse_quantity(text: str) -> Value:
    """Read ``text`` (surrounding whitespace and inline markup ignored) as one quantity."""
    return read(text)[0]


def find_quantities(text: str) -> list[tuple[int, int, Value]]:
    """Every quantity in ``text`` with its character span ``[start, end)``."""
    found = []
    for m in SEARCH.finditer(text):
        value = _found_value(m.group())
        if value is not None:  # None: e.g. a number too large for a float
            found.append((m.start(), m.end(), value))
    return found


@functools.lru_cache(maxsize=4096)
def _found_value(text: str) -> Value | None:
    """A match of ``SEARCH`` read as a quantity, or None where it reads as none. Kept per
    spelling: a long document states the same few quantities again and again ("30 seconds",
    "75%"), and reading one costs far more than finding it; a ``Value`` is immutable."""
    try:
        return parse_quantity(text)
    except QuantityError:
        return None
