"""Candidate values a mutation may write, tried in order until one fits.

``derived`` and ``variants`` reshape a value already there (``DG104`` ->
``DG999``, ``9999`` -> ``9998``, ``1h30m`` -> ``1h31m``, ``true`` -> ``false``);
``examples`` walks the parse tree of a user regex (or of one of its groups) and
writes a few strings it could match (``(fast|slow)`` -> ``fast``, ``slow``;
``[1-5]\\d\\d`` -> ``100``, ``109``...). They only propose: every mutator
checks a candidate against the real regex in the real file before it writes it.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable
from typing import Any

from driftguard.sources.mutation import SELFTEST

CANDIDATES = (SELFTEST, SELFTEST.upper(), "driftguardselftest", "DriftguardSelftest", "driftguard-selftest",
              "driftguard.selftest", "9999")
"""Spellings of the bogus value, tried first; shapes of the values already there follow."""

LIMIT = 64
"""At most this many strings per regex node, and per ``examples`` answer."""

_SRE = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_POOL = "azAZ09_-.x"
"""Characters tried for ``.`` and negated classes."""
_SWAPS = (("true", "false"), ("yes", "no"), ("on", "off"), ("enabled", "disabled"), ("enable", "disable"))


class _Unsupported(Exception):
    pass


def derived(values: list[str]) -> list[str]:
    """New values shaped like the last of ``values``: its digits turned to 9s (or 8s),
    its letters to Z (or Q); none already among ``values``."""
    if not values:
        return []
    last, taken = values[-1], set(values)
    shapes = [re.sub(r"[0-9]", d, last) for d in "98"]
    shapes += [re.sub(r"[A-Z]", c, re.sub(r"[a-z]", c.lower(), last)) for c in "ZQ"]
    return [s for s in dict.fromkeys(shapes) if s not in taken]


def variants(text: str) -> list[str]:
    """``text`` edited the way a person would: one run of digits moved by one (the
    last run first, zero padding kept), a yes/no word flipped, then ``derived`` shapes."""
    out: list[str] = []
    for m in reversed(list(re.finditer(r"[0-9]+", text))):
        run = m.group()
        for n in (int(run) + 1, int(run) - 1):
            if n >= 0:
                digits = str(n).zfill(len(run)) if run.startswith("0") else str(n)
                out.append(text[:m.start()] + digits + text[m.end():])
    folded = text.casefold()
    for a, b in _SWAPS:
        for this, other in ((a, b), (b, a)):
            if folded == this:
                out.append(_case_like(other, text))
    out += derived([text])
    return [v for v in dict.fromkeys(out) if v != text]


def _case_like(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    return word.capitalize() if like[:1].isupper() else word


def examples(pattern: str, group: int | None = None) -> list[str]:
    """A few non-empty strings ``pattern`` (or only its ``group``) could match; empty
    when the regex uses what this walk does not follow (backreferences, conditionals,
    syntax only the ``regex`` library reads)."""
    try:
        tree: Any = _SRE.parse(pattern)
        nodes = list(tree) if group is None else _group(list(tree), group)
        if nodes is None:
            return []
        return [s for s in dict.fromkeys(_sequence(nodes)) if s][:LIMIT]
    except Exception:  # _Unsupported, or syntax only the regex library reads, which re's parser rejects
        return []


def _group(nodes: list[Any], number: int) -> list[Any] | None:
    """The sub-pattern of capture group ``number``, searched at any depth."""
    for op, av in nodes:
        if str(op) == "SUBPATTERN" and av[0] == number:
            return list(av[3])
        for child in _children(str(op), av):
            found = _group(child, number)
            if found is not None:
                return found
    return None


def _children(op: str, av: Any) -> list[list[Any]]:
    if op == "SUBPATTERN":
        return [list(av[3])]
    if op == "BRANCH":
        return [list(b) for b in av[1]]
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return [list(av[2])]
    if op in ("ASSERT", "ASSERT_NOT"):
        return [list(av[1])]
    if op == "ATOMIC_GROUP":
        return [list(av)]
    if op == "GROUPREF_EXISTS":
        return [list(b) for b in av[1:] if b is not None]
    return []


def _sequence(nodes: Iterable[Any]) -> list[str]:
    out = [""]
    for op, av in nodes:
        choices = _node(str(op), av)
        out = [a + b for a in out for b in choices][:LIMIT]
    return out


def _node(op: str, av: Any) -> list[str]:
    if op == "LITERAL":
        return [chr(av)]
    if op == "NOT_LITERAL":
        return [c for c in _POOL if ord(c) != av][:3]
    if op == "ANY":
        return ["x", "9"]
    if op == "IN":
        return _charset(list(av))
    if op == "CATEGORY":
        return _charset([("CATEGORY", av)])
    if op == "BRANCH":
        return [s for branch in av[1] for s in _sequence(branch)][:LIMIT]
    if op in ("SUBPATTERN", "ATOMIC_GROUP"):
        return _sequence(av[3] if op == "SUBPATTERN" else av)
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, item = int(av[0]), int(av[1]), av[2]
        counts = [n for n in dict.fromkeys((low, low + 1, low + 2, max(low, 1))) if n <= high]
        subs = _sequence(item)[:4]
        return [s * n for n in counts for s in subs][:LIMIT]
    if op in ("AT", "ASSERT", "ASSERT_NOT"):
        return [""]  # anchors and lookarounds consume nothing; the real match decides
    raise _Unsupported(op)


def _charset(items: list[Any]) -> list[str]:
    """Characters a class matches: its literals, the ends and next-to-ends of its ranges."""
    if items and str(items[0][0]) == "NEGATE":
        return [c for c in _POOL if not _member(c, items[1:])][:3]
    out: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "RANGE":
            low, high = av
            out += [chr(low), chr(high), chr(min(low + 1, high))]
        elif name == "CATEGORY":
            out += _CATEGORIES.get(str(av), [])
        else:
            raise _Unsupported(name)
    return list(dict.fromkeys(out))


_CATEGORIES = {
    "CATEGORY_DIGIT": ["1", "9", "0"],
    "CATEGORY_NOT_DIGIT": ["a", "Z"],
    "CATEGORY_WORD": ["a", "Z", "9", "_"],
    "CATEGORY_NOT_WORD": ["-", "."],
    "CATEGORY_SPACE": [" "],
    "CATEGORY_NOT_SPACE": ["a", "9"],
}
_CLASSES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_WORD": r"\w",
            "CATEGORY_NOT_WORD": r"\W", "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S"}


def _member(char: str, items: list[Any]) -> bool:
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and ord(char) == av:
            return True
        if name == "RANGE" and av[0] <= ord(char) <= av[1]:
            return True
        if name == "CATEGORY" and re.fullmatch(_CLASSES.get(str(av), r"(?!)"), char):
            return True
    return False
