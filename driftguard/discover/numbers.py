"""What a number in a sentence is said of: nothing at all, or the noun it counts.

- ``says_no_amount``: "once" ("Once a chunk is full"), "one" in an idiom ("one of", "no
  one", "one by one"), a number word pointing back at something already counted ("the
  three phases", "these two"), a case considered ("If two samples") and a small bound
  ("more than one") state no value; discover reads no claim there.
- ``counted_noun``: the stem of the noun a bare number counts, past hyphenated words and
  a modifier ("four tool-only turns" counts turns, "three concurrent activations"
  counts activations); "three times" counts attempts.
"""

from __future__ import annotations

import re

from driftguard.discover.words import STOPWORDS, stem

_NEXT_WORD = re.compile(r"\s+([A-Za-z][A-Za-z-]*[A-Za-z])\b")
_IDIOM_BEFORE = re.compile(r"\b(?:every|no|any|each|some|the|this|that|which|at|by)\s+$", re.IGNORECASE)
_IDIOM_AFTER = re.compile(r"\s+(?:of|another|by)\b", re.IGNORECASE)
"""Around "one" or "once", the words that make it count nothing: "every one of",
"no one", "at once", "one by one"."""


def says_no_amount(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` says no amount: "once" ("Once a chunk is
    full"), "one" in an idiom ("one of", "no one", "one by one"), a number word pointing
    back at something already counted ("the three phases", "these two"), a case considered
    ("If two samples") or a small bound ("more than one")."""
    said = text[start:end].lower()
    if said == "once" or (said.split()[0] in _SMALL and _BOUND.search(text[:start])):
        return True
    if said.split()[0].isalpha() and _ANAPHORA.search(text[:start]) or _HYPOTHESIS.search(text[:start]):
        return True
    if said not in ("one", "once"):
        return False
    return bool(_IDIOM_BEFORE.search(text[:start]) or _IDIOM_AFTER.match(text, end))


_ANAPHORA = re.compile(r"\b(?:the|these|those|both)\s+$", re.IGNORECASE)
_SMALL = frozenset({"0", "1", "2", "zero", "one", "two"})
_BOUND = re.compile(r"\bthan\s+$", re.IGNORECASE)
"""A bound, not a value: "greater than zero", "more than one"."""
_HYPOTHESIS = re.compile(r"\b(?:if|when|unless|whether)\s+$", re.IGNORECASE)
"""Before a number, words that make it a case considered, not a value stated: "If two samples"."""


def counted_noun(said: str, after: str) -> str:
    """The stem of the word right after a bare number, when it is a content word that
    names a thing counted; "three times" counts attempts (``maxInvestigationAttempts``)."""
    if _TIMES.search(said):
        return ATTEMPT
    m = _NEXT_WORD.match(after)
    while m is not None and "-" in m.group(1):  # "four tool-only turns" counts turns
        m = _NEXT_WORD.match(after, m.end())
    if m is None or m.group(1).lower() in STOPWORDS or m.group(1).lower() in _NOT_COUNTED:
        return ""
    noun = _NEXT_WORD.match(after, m.end()) if m.group(1).lower().endswith(_MODIFIERS) else None
    if noun is not None and noun.group(1).lower() not in STOPWORDS:
        return stem(noun.group(1))  # "three concurrent activations" counts activations
    return stem(m.group(1))


_NOT_COUNTED = frozenset({"time", "times"})
_MODIFIERS = ("ed", "ent", "ant", "ive", "ing", "ous", "ble")
"""Endings of a word that modifies the noun after it ("monitored", "concurrent", "consecutive",
"pending"): the number counts that noun."""
_TIMES = re.compile(r"\btimes$", re.IGNORECASE)
ATTEMPT = stem("attempt")
