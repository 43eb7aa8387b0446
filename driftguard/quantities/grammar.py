"""The regexes that find and read quantities; earlier forms win, so longer readings come first.

Words are matched case-insensitively in ASCII only, so a look-alike letter such
as the long s never passes for a unit.
"""

from __future__ import annotations

import re

from driftguard.quantities.units import (
    BYTE_SPELLINGS,
    MULTIPLIERS,
    ONES,
    SPACED_LETTERS,
    SPELLINGS,
    TENS,
    words,
)

SIGN = "[-\u2212]?"
_UNSIGNED = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
DIGITS = SIGN + _UNSIGNED
_WORD_NUMBER = (rf"(?:(?ai:a|one)\s+(?ai:hundred)|{words(TENS)}(?:[-\s]{words(ONES[1:10])})?"
                rf"|{words(ONES)})")
NUMBER = f"(?:{DIGITS}|{_WORD_NUMBER})"
_ANY_UNIT = words(SPELLINGS)  # written straight after digits: 90s, 5min
_SPACED_UNIT = words(w for w, (_, reg) in SPELLINGS.items() if reg != "letter" or w in SPACED_LETTERS)
WORD_UNIT = words(w for w, (_, reg) in SPELLINGS.items() if reg != "letter")
_ARTICLE = "(?ai:an?)"
_BYTE_SYMBOL = words((s for s in BYTE_SPELLINGS if not s.startswith("byte")), fold=False)
_BYTE_UNIT = rf"(?:{_BYTE_SYMBOL}|(?ai:bytes?))"

SPACED = rf"(?P<num>{NUMBER})(?P<sep>\s+|-)(?P<unit>{_SPACED_UNIT})"
_SPACED_BARE = re.sub(r"\(\?P<\w+>", "(?:", SPACED)
SPACED_PART = re.compile(SPACED)

FORMS = (  # (name, regex)
    ("bool", r"(?P<bool>(?ai:true|false))"),
    ("bytes", rf"(?P<num>{NUMBER})(?P<sep>\s*|-)(?P<bunit>{_BYTE_UNIT})"),
    ("compound", rf"(?P<parts>{_SPACED_BARE}(?:,?\s+(?:(?ai:and)\s+)?{_SPACED_BARE})+)"),
    ("half", rf"(?ai:half)\s+{_ARTICLE}\s+(?P<unit>{WORD_UNIT})"),
    ("compact", rf"(?P<sign>{SIGN})(?P<parts>(?:[0-9]+(?:\.[0-9]+)?{_ANY_UNIT}){{2,8}})"),
    ("attached", rf"(?P<num>{DIGITS})(?P<unit>{_ANY_UNIT})"),
    ("spaced", SPACED),
    ("article", rf"(?P<art>{_ARTICLE})\s+(?P<unit>{WORD_UNIT})"),
    ("percent", rf"(?P<num>{NUMBER})(?P<pct>\s*%|\s+(?ai:per\s?cent))"),
    ("times", rf"(?P<num>{NUMBER})(?P<sep>\s+)(?ai:times)"),
    ("multiplier", rf"(?P<word>{words(MULTIPLIERS)})"),
    ("number", rf"(?P<num>{NUMBER})"),
)
COMPILED = tuple((name, re.compile(body)) for name, body in FORMS)
PART = re.compile(rf"([0-9]+(?:\.[0-9]+)?)({_ANY_UNIT})")

_REFUSED_TAIL = (
    r"(?!\s*/\s*[0-9]|,[0-9]|\s+(?ai:to|or)\s+[0-9]|\s*[-\u2013][0-9]"
    r"|\s+(?ai:hundred|thousand|million|billion|trillion)\b"
    r"|\s*(?:(?ai:[kmgtpe]i?b(?:it)?s?|bytes?))\b"
    r"|\s*-?(?ai:kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi)(?ai:bytes?)\b)"
)
"""What may not follow a quantity: a fraction (4/5), a decimal comma (4,5), a range
(4 to 8), a scale word (4 thousand), a byte unit left unread (4 KB, 4 megabytes).
Each would make the number read so far only part of what the document says, so
nothing is read there; the look-behinds of ``QUANTITY_PATTERN`` refuse the second
number of each the same way."""

QUANTITY_PATTERN: str = (
    r"(?<![\w.%\-])(?<![0-9]/)(?<![0-9] / )(?<![0-9],)(?<![0-9] to )(?<![0-9] or )(?<![0-9]\u2013)(?:"
    + "|".join(re.sub(r"\(\?P<\w+>", "(?:", body) for _, body in FORMS)
    + r")(?![\w%]|\.[0-9]|-\w)"
    + _REFUSED_TAIL
)
"""A regex fragment (no capturing groups) matching one quantity inside a sentence."""

SEARCH = re.compile(QUANTITY_PATTERN)
EDGES = re.compile(r"([\s`*_~]*)(.*?)([\s`*_~]*)", re.DOTALL)
