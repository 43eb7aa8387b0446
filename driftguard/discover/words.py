"""Words of identifiers and prose, reduced to comparable stems.

``identifier_words("signalStorageWarningPercent")`` gives ``signal storage
warning percent``; ``MAX_INVESTIGATION_ATTEMPTS`` gives ``max investigation
attempts``. ``stem`` folds the light variations prose uses ("investigated" and
"investigation", "recoveries" and "recovery", "staleness" and "stale") onto
one key, so a constant's name and a sentence can be compared as sets.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|$)|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

STOPWORDS = frozenset(
    "a an and are as at be been before after by for from has have if in into is it its no not of on "
    "or so than that the their then there these this those to was when which while with without "
    "per via each every all any can may must will would should only also more most less least unless because "
    "until since though although where whereas but yet instead again too very here now still even just "
    "otherwise either neither nor both such".split()
)
GENERIC = frozenset("max min default limit num count total value size const var is get set new percent".split())
"""Identifier words that say little about what a constant is; they weigh less."""

_SYNONYMS = {
    "maximum": "max", "minimum": "min", "mem": "memory", "pct": "percent", "percentage": "percent",
    "cfg": "config", "conf": "config", "configuration": "config", "msg": "message", "secs": "second",
    "sec": "second", "ms": "millisecond", "msec": "millisecond", "hrs": "hour", "hr": "hour",
    "retries": "retry", "retried": "retry", "conn": "connection", "req": "request", "concurrent": "concurrency",
    "defaults": "default", "limits": "limit", "ttl": "ttl",
}
_SUFFIXES = ("ations", "ation", "ness", "ings", "ing", "ed")
STEM_LENGTH = 6


def identifier_words(name: str) -> list[str]:
    """The words of an identifier, lower case: camelCase, PascalCase, snake and SCREAMING case."""
    words: list[str] = []
    for part in re.split(r"[_\W]+", name):
        words += [w.lower() for w in _CAMEL.findall(part)]
    return [w for w in words if w]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A short key shared by a word's light variations (plural, -ed, -ing, -ation, -ness)."""
    w = word.lower()
    w = _SYNONYMS.get(w, w)
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith("sses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    w = _SYNONYMS.get(w, w)
    for suffix in _SUFFIXES:
        if len(w) - len(suffix) >= 4 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    return w[:STEM_LENGTH]


def name_stems(name: str) -> tuple[str, ...]:
    """The distinct stems of an identifier's words, in order, stop words left out."""
    out: dict[str, None] = {}
    for word in identifier_words(name):
        if word not in STOPWORDS and not word.isdigit():
            out.setdefault(stem(word), None)
    return tuple(out)


_IMPLIES = (("expir", "ttl"), ("lifetime", "ttl"), ("parallel", "concur"), ("simultaneous", "concur"))
"""Prose words that stand for an abbreviation or a synonym names use: "expire" for a TTL."""


def text_stems(text: str) -> frozenset[str]:
    """The stems of every word in prose, identifiers in it split into their words too."""
    out: set[str] = set()
    for token in _TOKEN.findall(text):
        out.update(_token_stems(token))
    return frozenset(out)


@lru_cache(maxsize=65536)
def _token_stems(token: str) -> tuple[str, ...]:
    out: list[str] = []
    for word in identifier_words(token):
        if len(word) > 1 and word not in STOPWORDS and not word.isdigit():
            out.append(stem(word))
            single = _DOUBLED.sub(r"\1\2", word)
            if single != word:
                out.append(stem(single))
            out += [implied for start, implied in _IMPLIES if word.startswith(start)]
    return tuple(out)


_DOUBLED = re.compile(r"([b-df-hj-np-tv-z])\1(ing|ed)$")
"""A consonant doubled before -ing or -ed ("dialling", "cancelled"): prose also
stands for the single-consonant stem an identifier uses (``dialTimeout``)."""


def compound_stems(text: str) -> frozenset[str]:
    """The stems of each pair of adjacent words written as one: "in flight" also stands for the
    ``inflight`` of ``maxInflightTasks``, "look up" for ``lookup``."""
    words = [w.lower() for w in _WORD.findall(text)]
    return frozenset(stem(a + b) for a, b in zip(words, words[1:]) if len(a) > 1 and len(b) > 2)


_WORD = re.compile(r"[A-Za-z]+")


def identifiers_in(text: str) -> frozenset[str]:
    """Tokens of ``text`` shaped like code identifiers (holding ``_`` or an inner capital)."""
    return frozenset(t for t in IDENTIFIER.findall(text)
                     if "_" in t.strip("_") or re.search(r"[a-z][A-Z]|[A-Z]{2}", t))


def weight(word_stem: str) -> float:
    return 0.35 if word_stem in _GENERIC_STEMS else 1.0


_GENERIC_STEMS = frozenset(stem(w) for w in GENERIC)
