"""Quantities in prose and table cells: read them, find them, write them back.

Two tables drive everything: the units (``_UNITS``) and the number words
(``_ONES``, ``_TENS``). From them come the regex that phrase templates embed
(``QUANTITY_PATTERN``), the reader (``parse_quantity``, ``find_quantities``) and
the writer that spells a new value the way the document spelled the old one
(``format_like``). Words are matched case-insensitively in ASCII only, so a
look-alike letter such as the long s never passes for a unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal

from driftguard.model import Kind, Value

__all__ = [
    "QUANTITY_PATTERN", "QuantityError", "read_value", "find_quantities", "format_like", "parse_quantity",
]


class QuantityError(ValueError):
    """The text is not one quantity; the only error this module raises."""


@dataclass(frozen=True)
class _Unit:
    key: str
    seconds: float
    long: tuple[str, str]  # singular, plural
    abbr: tuple[str, str]
    letter: str


_UNITS = (  # largest first
    _Unit("week", 604800, ("week", "weeks"), ("wk", "wks"), "w"),
    _Unit("day", 86400, ("day", "days"), ("day", "days"), "d"),
    _Unit("hour", 3600, ("hour", "hours"), ("hr", "hrs"), "h"),
    _Unit("minute", 60, ("minute", "minutes"), ("min", "mins"), "m"),
    _Unit("second", 1, ("second", "seconds"), ("sec", "secs"), "s"),
    _Unit("millisecond", 0.001, ("millisecond", "milliseconds"), ("msec", "msecs"), "ms"),
)



def _spellings() -> dict[str, tuple[_Unit, str]]:
    """Each way a unit is written -> (unit, register: long | abbr | letter)."""
    table: dict[str, tuple[_Unit, str]] = {}
    for unit in _UNITS:
        for register, spellings in (("long", unit.long), ("abbr", unit.abbr), ("letter", (unit.letter,))):
            for spelling in spellings:
                table.setdefault(spelling, (unit, register))
    return table


_SPELLINGS = _spellings()

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
         " fifteen sixteen seventeen eighteen nineteen").split()
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_MULTIPLIERS = {"once": 1, "twice": 2, "thrice": 3}
_MAX_LENGTH = 512  # no quantity is longer; longer text is refused before matching


# -- the grammar --------------------------------------------------------------


def _words(words: Iterable[str]) -> str:
    """A case-insensitive (ASCII) alternation, longest spelling first."""
    return "(?ai:" + "|".join(sorted(map(re.escape, words), key=len, reverse=True)) + ")"


_SIGN = "[-\u2212]?"
_UNSIGNED = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
_DIGITS = _SIGN + _UNSIGNED
_WORD_NUMBER = (rf"(?:(?ai:a|one)\s+(?ai:hundred)|{_words(_TENS)}(?:[-\s]{_words(_ONES[1:10])})?"
                rf"|{_words(_ONES)})")
_NUMBER = f"(?:{_DIGITS}|{_WORD_NUMBER})"
_ANY_UNIT = _words(_SPELLINGS)  # written straight after digits: 90s, 5min
_SPACED_UNIT = _words(w for w, (_, reg) in _SPELLINGS.items() if reg != "letter" or w == "ms")
_WORD_UNIT = _words(w for w, (_, reg) in _SPELLINGS.items() if reg != "letter")
_ARTICLE = "(?ai:an?)"

_SPACED = rf"(?P<num>{_NUMBER})(?P<sep>\s+|-)(?P<unit>{_SPACED_UNIT})"
_SPACED_BARE = re.sub(r"\(\?P<\w+>", "(?:", _SPACED)
_SPACED_PART = re.compile(_SPACED)

_FORMS = (  # (name, regex); earlier forms win, so longer readings come first
    ("compound", rf"(?P<parts>{_SPACED_BARE}(?:,?\s+(?:(?ai:and)\s+)?{_SPACED_BARE})+)"),
    ("half", rf"(?ai:half)\s+{_ARTICLE}\s+(?P<unit>{_WORD_UNIT})"),
    ("compact", rf"(?P<sign>{_SIGN})(?P<parts>(?:[0-9]+(?:\.[0-9]+)?{_ANY_UNIT}){{2,8}})"),
    ("attached", rf"(?P<num>{_DIGITS})(?P<unit>{_ANY_UNIT})"),
    ("spaced", _SPACED),
    ("article", rf"(?P<art>{_ARTICLE})\s+(?P<unit>{_WORD_UNIT})"),
    ("percent", rf"(?P<num>{_NUMBER})(?P<pct>\s*%|\s+(?ai:per\s?cent))"),
    ("times", rf"(?P<num>{_NUMBER})(?P<sep>\s+)(?ai:times)"),
    ("multiplier", rf"(?P<word>{_words(_MULTIPLIERS)})"),
    ("number", rf"(?P<num>{_NUMBER})"),
)
_COMPILED = tuple((name, re.compile(body)) for name, body in _FORMS)
_PART = re.compile(rf"([0-9]+(?:\.[0-9]+)?)({_ANY_UNIT})")

_REFUSED_TAIL = (
    r"(?!\s*/\s*[0-9]|,[0-9]|\s+(?ai:to|or)\s+[0-9]|\s*[-\u2013][0-9]"
    r"|\s+(?ai:hundred|thousand|million|billion|trillion)\b"
    r"|\s*(?:[kKMGTPE]i?B|(?ai:bytes?))\b)"
)
"""What may not follow a quantity: a fraction (4/5), a decimal comma (4,5), a range
(4 to 8), a scale word (4 thousand), a byte unit (4 kB). Each would make the number
read so far only part of what the document says, so nothing is read there; the
look-behinds of ``QUANTITY_PATTERN`` refuse the second number of each the same way."""

QUANTITY_PATTERN: str = (
    r"(?<![\w.%\-])(?<![0-9]/)(?<![0-9] / )(?<![0-9],)(?<![0-9] to )(?<![0-9] or )(?<![0-9]\u2013)(?:"
    + "|".join(re.sub(r"\(\?P<\w+>", "(?:", body) for _, body in _FORMS)
    + r")(?![\w%]|\.[0-9]|-\w)"
    + _REFUSED_TAIL
)
"""A regex fragment (no capturing groups) matching one quantity inside a sentence."""

_SEARCH = re.compile(QUANTITY_PATTERN)
_EDGES = re.compile(r"([\s`*_~]*)(.*?)([\s`*_~]*)", re.DOTALL)


# -- reading ------------------------------------------------------------------


@dataclass(frozen=True)
class _Style:
    """How a document wrote a quantity, so a new value can be written the same way."""

    numerals: str = "digits"  # digits | words | article | half
    decimals: int = 0  # "75.0" -> 1: zeros kept after the point
    fractional: bool = False  # the number had a non-zero fraction ("1.5 hours")
    commas: bool = False
    joiner: str = "-"  # between the words of "twenty-four"
    word_limit: int = 20  # larger numbers are written in digits
    suffix: str = ""  # "%", " percent", " times"
    times: bool = False
    unit: _Unit | None = None
    register: str = "long"  # long | abbr | letter
    sep: str = " "  # between number and unit: "", whitespace or "-"
    compact: bool = False  # 1h30m
    compound: bool = False  # "10 minutes and 30 seconds": read, never written
    case: str = ""  # "" | capital | upper
    lead: str = ""
    trail: str = ""


def _number(text: str) -> tuple[int | float, _Style]:
    """The value and style of a digits or number-words match."""
    low = text.lower()
    if low[-1].isdigit():
        digits = low.replace(",", "").replace("\u2212", "-")
        fraction = digits.partition(".")[2]
        zeros = len(fraction) if fraction and not fraction.strip("0") else 0
        amount = float(digits) if "." in digits or "e" in digits else int(digits)
        return amount, _Style(decimals=zeros, fractional=bool(fraction.strip("0")), commas="," in low)
    tokens = re.split(r"[-\s]+", low)
    if tokens[-1] == "hundred":
        n = 100
    else:
        n = sum(_TENS[t] if t in _TENS else _ONES.index(t) for t in tokens)
    joiner = "-" if "-" in low or len(tokens) == 1 else " "
    return n, _Style(numerals="words", joiner=joiner, word_limit=99 if n > 20 else 20)


def _unit(spelling: str) -> tuple[_Unit, str]:
    return _SPELLINGS[spelling.lower()]


def _interpret(form: str, m: re.Match[str]) -> tuple[Kind, float, str, _Style]:
    """(kind, data, unit hint, style) for a match of form ``form``."""
    if form == "multiplier":
        style = _Style(numerals="words", times=True, suffix=" times")
        return Kind.NUMBER, float(_MULTIPLIERS[m["word"].lower()]), "times", style
    if form == "compound":
        pieces = [(float(_number(p["num"])[0]), _unit(p["unit"])) for p in _SPACED_PART.finditer(m["parts"])]
        total = sum(n * unit.seconds for n, (unit, _) in pieces)
        top, register = max((u for _, u in pieces), key=lambda u: u[0].seconds)
        return Kind.DURATION, total, m["parts"].lower(), _Style(unit=top, register=register, compound=True)
    if form == "compact":
        parts = _PART.findall(m["parts"])
        total = sum(float(n) * _unit(u)[0].seconds for n, u in parts)
        top = max((_unit(u)[0] for _, u in parts), key=lambda u: u.seconds)
        style = _Style(unit=top, register="letter", compact=True)
        return Kind.DURATION, -total if m["sign"] else total, parts[0][1].lower(), style
    if form in ("half", "article"):
        unit, register = _unit(m["unit"])
        amount = 0.5 if form == "half" else 1.0
        style = _Style(numerals=form, unit=unit, register=register)
        return Kind.DURATION, amount * unit.seconds, m["unit"].lower(), style
    n, style = _number(m["num"])
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


def _read(text: str) -> tuple[Value, _Style]:
    if not isinstance(text, str):
        raise QuantityError(f"not text: {text!r}")
    if len(text) > _MAX_LENGTH:
        raise QuantityError(f"too long to be a quantity ({len(text)} characters)")
    edges = _EDGES.fullmatch(text)  # always matches
    lead, core, trail = edges.groups() if edges else ("", text, "")
    if not core:
        raise QuantityError("empty text is not a quantity")
    for form, regex in _COMPILED:
        match = regex.fullmatch(core)
        if match:
            kind, data, unit, style = _interpret(form, match)
            break
    else:
        raise QuantityError(f"not a quantity: {core!r}")
    if not _finite(data):
        raise QuantityError(f"number out of range: {core!r}")
    style = replace(style, case=_case(core), lead=lead, trail=trail)
    return Value(kind, data, text, unit), style


def read_value(text: str) -> Value:
    """``text`` as a quantity where it reads as one ("10 minutes", "75%"), else kept as
    a string so that a comparison reports it."""
    try:
        return parse_quantity(text)
    except QuantityError:
        return Value.string(text)


def parse_quantity(text: str) -> Value:
    """Read ``text`` (surrounding whitespace and inline markup ignored) as one quantity."""
    return _read(text)[0]


def find_quantities(text: str) -> list[tuple[int, int, Value]]:
    """Every quantity in ``text`` with its character span ``[start, end)``."""
    found = []
    for m in _SEARCH.finditer(text):
        try:
            found.append((m.start(), m.end(), parse_quantity(m.group())))
        except QuantityError:  # e.g. a number too large for a float
            continue
    return found


# -- writing ------------------------------------------------------------------


def _close(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _whole(x: float) -> bool:
    return _close(x, round(x))


def _finite(x: int | float) -> bool:
    return abs(x) < 2**1023 if isinstance(x, int) else math.isfinite(x)


def _integral(x: int | float) -> bool:
    return isinstance(x, int) or x.is_integer()


def _digits(x: int | float, style: _Style) -> str:
    if _integral(x):
        text = f"{int(x):,}" if style.commas else str(int(x))
        return text + ("." + "0" * style.decimals if style.decimals else "")
    return f"{Decimal(repr(x)):{',' if style.commas else ''}f}"


def _numeral(x: int | float, style: _Style) -> str:
    if style.numerals != "digits" and _integral(x) and 0 <= x <= style.word_limit:
        n = int(x)
        if n < 20:
            return _ONES[n]
        tens = next(w for w, v in _TENS.items() if v == n - n % 10)
        return tens + (style.joiner + _ONES[n % 10] if n % 10 else "")
    return _digits(x, style)


def _format_number(x: int | float, style: _Style) -> str:
    if style.times and x == 1:
        return "once"
    if style.times and x == 2 and style.numerals != "digits":
        return "twice"
    return _numeral(x, style) + style.suffix


def _best_unit(seconds: float, below: _Unit | None = None) -> _Unit:
    """The largest unit (smaller than ``below``) in which ``seconds`` is a whole number."""
    if seconds == 0:
        return _UNITS[4]
    units = [u for u in _UNITS if below is None or u.seconds < below.seconds]
    return next((u for u in units if _whole(seconds / u.seconds)), _UNITS[-1])


def _compact(seconds: float, style: _Style) -> str:
    sign, total = ("-" if seconds < 0 else ""), abs(seconds) * 1000
    if not _whole(total):
        return sign + f"{Decimal(repr(total)):f}ms"
    top = style.unit or _UNITS[2]
    rest, parts = round(total), []
    for unit in (u for u in _UNITS if u.seconds <= top.seconds):
        count, rest = divmod(rest, round(unit.seconds * 1000))
        if count:
            parts.append(f"{count}{unit.letter}")
    return sign + ("".join(parts) or f"0{top.letter}")


def _format_duration(seconds: float, style: _Style) -> str:
    if style.compact:
        return _compact(seconds, style)
    unit = style.unit or _best_unit(seconds)
    amount = seconds / unit.seconds
    halves = style.numerals in ("article", "half") and _close(amount, 0.5)
    short = style.fractional and _close(amount, round(amount, 3))
    if not (_whole(amount) or halves or short):  # fall back to a smaller unit
        unit = _best_unit(seconds, below=unit)
        amount = seconds / unit.seconds
    if _whole(amount):
        amount = float(round(amount))
    elif _close(amount, round(amount, 3)):
        amount = round(amount, 3)
    hyphen = style.sep == "-"
    forms = {"long": unit.long, "abbr": unit.abbr}.get(style.register, (unit.letter,) * 2)
    word = forms[0] if amount == 1 or hyphen else forms[1]
    if style.numerals in ("article", "half") and not hyphen and amount in (0.5, 1):
        article = "an" if unit.key == "hour" else "a"
        return f"{article} {forms[0]}" if amount == 1 else f"half {article} {forms[0]}"
    number = _numeral(amount, style)
    sep = style.sep
    if style.register == "letter" and unit.letter != "ms":
        sep = ""
    if sep == "" and not number[-1].isdigit():
        sep = " "
    return number + sep + word


def _style_for(like: Value, kind: Kind) -> _Style:
    """The style of ``like``'s text, or one guessed from its unit hint and kind."""
    try:
        value, style = _read(like.text)
    except QuantityError:
        value, style = None, _Style()
    if value is not None and value.kind is kind:
        return style
    plain = _Style(lead=style.lead, trail=style.trail, case=style.case)
    hint = like.unit.lower()
    if kind is Kind.NUMBER:
        if hint == "%":
            return replace(plain, suffix="%")
        return replace(plain, times=True, suffix=" times") if hint == "times" else plain
    if hint in _SPELLINGS:
        unit, register = _SPELLINGS[hint]
        return replace(plain, unit=unit, register=register, sep="" if register == "letter" else " ")
    return plain


def format_like(new: Value, like: Value) -> str:
    """Spell ``new`` in the style of ``like``, the value the document states now.

    "75%" + 80 -> "80%"; "ten minutes" + 900 s -> "fifteen minutes"; "1h30m" + 2 h -> "2h".
    """
    if new.kind not in (Kind.NUMBER, Kind.DURATION) or isinstance(new.data, (bool, str)):
        raise QuantityError(f"not a quantity: {new.data!r}")
    style = _style_for(like, new.kind)
    if style.compound:
        raise QuantityError(f"'{like.text}' is written in parts; driftguard does not rewrite it")
    if isinstance(new.data, int) and new.kind is Kind.NUMBER:
        body = _format_number(new.data, style)
    else:
        x = float(new.data)
        if not math.isfinite(x):
            raise QuantityError(f"cannot write {x!r} in a document")
        body = _format_duration(x, style) if new.kind is Kind.DURATION else _format_number(x, style)
    if style.case == "upper":
        body = body.upper()
    elif style.case == "capital":
        body = body[0].upper() + body[1:]
    return style.lead + body + style.trail
