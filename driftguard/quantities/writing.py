"""Write a new value the way the document spelled the old one."""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal

from driftguard.model import Kind, Value
from driftguard.quantities.reading import Style, read
from driftguard.quantities.units import (
    BYTE_SPELLINGS,
    BYTE_UNITS,
    ONES,
    SECOND,
    SPELLINGS,
    TENS,
    TIME_UNITS,
    QuantityError,
    TimeUnit,
)


def _close(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _whole(x: float) -> bool:
    return _close(x, round(x))


def _integral(x: int | float) -> bool:
    return isinstance(x, int) or x.is_integer()


def _digits(x: int | float, style: Style) -> str:
    if _integral(x):
        text = f"{int(x):,}" if style.commas else str(int(x))
        return text + ("." + "0" * style.decimals if style.decimals else "")
    return f"{Decimal(repr(x)):{',' if style.commas else ''}f}"


def _numeral(x: int | float, style: Style) -> str:
    if style.numerals != "digits" and _integral(x) and 0 <= x <= style.word_limit:
        n = int(x)
        if n < 20:
            return ONES[n]
        tens = next(w for w, v in TENS.items() if v == n - n % 10)
        return tens + (style.joiner + ONES[n % 10] if n % 10 else "")
    return _digits(x, style)


def _format_number(x: int | float, style: Style) -> str:
    if style.times and x == 1:
        return "once"
    if style.times and x == 2 and style.numerals != "digits":
        return "twice"
    return _numeral(x, style) + style.suffix


def _best_unit(seconds: float, below: TimeUnit | None = None) -> TimeUnit:
    """The largest unit (smaller than ``below``) in which ``seconds`` is a whole number."""
    if seconds == 0:
        return SECOND
    units = [u for u in TIME_UNITS if below is None or u.seconds < below.seconds]
    return next((u for u in units if _whole(seconds / u.seconds)), TIME_UNITS[-1])


def _compact(seconds: float, style: Style) -> str:
    sign, total = ("-" if seconds < 0 else ""), abs(seconds) * 1000
    if not _whole(total):
        return sign + f"{Decimal(repr(total)):f}ms"
    top = style.unit or TIME_UNITS[2]
    rest, parts = round(total), []
    for unit in (u for u in TIME_UNITS[:6] if u.seconds <= top.seconds):
        count, rest = divmod(rest, round(unit.seconds * 1000))
        if count:
            parts.append(f"{count}{unit.letter}")
    return sign + ("".join(parts) or f"0{top.letter}")


def _format_duration(seconds: float, style: Style) -> str:
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
    if style.register == "letter" and unit.letter not in ("ms", "\u00b5s", "ns"):
        sep = ""
    if sep == "" and not number[-1].isdigit():
        sep = " "
    return number + sep + word


def _format_bytes(n: int | float, style: Style) -> str:
    """In the document's own unit where ``n`` is whole in it, else the largest unit in
    which it is, the document's family (binary, decimal) first, else in bytes."""
    unit = style.bytes_unit or BYTE_SPELLINGS["bytes"]
    written = style.register or unit.symbol
    if not _whole(n / unit.size):
        ranked = sorted(BYTE_UNITS[:-2], key=lambda u: (u.family != unit.family, -u.size))
        unit = next((u for u in ranked if _whole(n / u.size)), BYTE_SPELLINGS["bytes"])
        written = unit.symbol
    amount = n // unit.size if isinstance(n, int) else n / unit.size
    if written.lower().startswith("byte"):
        written = ("byte" if amount == 1 else "bytes") if written.islower() else written
    sep = style.sep if style.bytes_unit else " "
    return _numeral(amount if _integral(amount) else float(amount), style) + sep + written


def _style_for(like: Value, kind: Kind) -> Style:
    """The style of ``like``'s text, or one guessed from its unit hint and kind."""
    try:
        value, style = read(like.text)
    except QuantityError:
        value, style = None, Style()
    if value is not None and value.kind is kind:
        return style
    plain = Style(lead=style.lead, trail=style.trail, case=style.case)
    hint = like.unit.lower()
    if kind is Kind.NUMBER:
        if hint == "%":
            return replace(plain, suffix="%")
        return replace(plain, times=True, suffix=" times") if hint == "times" else plain
    if hint in SPELLINGS:
        unit, register = SPELLINGS[hint]
        return replace(plain, unit=unit, register=register, sep="" if register == "letter" else " ")
    return plain


def format_like(new: Value, like: Value) -> str:
    """Spell ``new`` in the style of ``like``, the value the document states now.

    "75%" + 80 -> "80%"; "ten minutes" + 900 s -> "fifteen minutes"; "1h30m" + 2 h -> "2h";
    "4 MiB" + 8 MiB -> "8 MiB"; "`True`" + false -> "`False`".
    """
    if new.kind not in (Kind.NUMBER, Kind.DURATION, Kind.BYTES, Kind.BOOL) or isinstance(new.data, str):
        raise QuantityError(f"not a quantity: {new.data!r}")
    if (new.kind is Kind.BOOL) != isinstance(new.data, bool):
        raise QuantityError(f"not a quantity: {new.data!r}")
    style = _style_for(like, new.kind)
    if style.compound:
        raise QuantityError(f"'{like.text}' is written in parts; driftguard does not rewrite it")
    if isinstance(new.data, bool):
        body = "true" if new.data else "false"  # in the document's case, below
    elif new.kind is Kind.BYTES:
        body = _format_bytes(new.data, style)
    elif isinstance(new.data, int) and new.kind is Kind.NUMBER:
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
