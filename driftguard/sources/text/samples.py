"""Candidate values a mutation may write, tried in order until one fits.

``derived`` and ``variants`` reshape a value already there (``DG104`` ->
``DG999``, ``9999`` -> ``9998``, ``1h30m`` -> ``1h31m``, ``true`` -> ``false``);
``examples`` parses a user regex itself (or one of its groups) and writes a few
strings it could match (``(fast|slow)`` -> ``fast``, ``slow``; ``[1-5]\\d\\d`` ->
``100``, ``109``...). They only propose: every mutator checks a candidate against
the real regex in the real file before it writes it.

The pattern is read by ``regex_syntax`` (literals, classes, groups, alternation,
quantifiers, anchors and lookarounds); where it stops, or where a sample would
have to pass through a backreference or a conditional, ``examples`` proposes
nothing.
"""

from __future__ import annotations

import re

from driftguard.sources.mutation import SELFTEST
from driftguard.sources.text import regex_syntax as rx

CANDIDATES = (SELFTEST, SELFTEST.upper(), "driftguardselftest", "DriftguardSelftest", "driftguard-selftest",
              "driftguard.selftest", "9999")
"""Spellings of the bogus value, tried first; shapes of the values already there follow."""

LIMIT = 64
"""At most this many strings per regex node, and per ``examples`` answer."""

_POOL = "azAZ09_-.x"
"""Characters tried for ``.`` and negated classes."""
_SWAPS = (("true", "false"), ("yes", "no"), ("on", "off"), ("enabled", "disabled"), ("enable", "disable"))


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
        nodes = rx.parse(pattern)
        chosen = nodes if group is None else rx.group(nodes, group)
        return [] if chosen is None else [s for s in dict.fromkeys(_sequence(chosen)) if s][:LIMIT]
    except (rx.Unsupported, RecursionError):  # what the parser does not read, or nesting too deep for it
        return []


def _sequence(nodes: tuple[rx.Node, ...]) -> list[str]:
    out = [""]
    for node in nodes:
        choices = _node(node)
        out = [a + b for a in out for b in choices][:LIMIT]
    return out


def _node(node: rx.Node) -> list[str]:
    if isinstance(node, rx.Literal):
        return [node.char]
    if isinstance(node, rx.Dot):
        return ["x", "9"]
    if isinstance(node, rx.Class):
        return _charset(node)
    if isinstance(node, rx.Either):
        return [s for branch in node.branches for s in _sequence(branch)][:LIMIT]
    if isinstance(node, rx.Group):
        return _sequence(node.body)
    if isinstance(node, rx.Repeat):
        low = node.low
        counts = [n for n in dict.fromkeys((low, low + 1, low + 2, max(low, 1))) if n <= node.high]
        subs = _sequence(node.item)[:4]
        return [s * n for n in counts for s in subs][:LIMIT]
    if isinstance(node, (rx.Anchor, rx.Look)):
        return [""]  # anchors and lookarounds consume nothing; the real match decides
    raise rx.Unsupported(node.what)  # a backreference or a conditional


def _charset(node: rx.Class) -> list[str]:
    """Characters a class matches: its characters, the ends and next-to-ends of its ranges."""
    if node.negated:
        return [c for c in _POOL if not _member(c, node.members)][:3]
    out: list[str] = []
    for member in node.members:
        if isinstance(member, rx.Range):
            out += [member.low, member.high, chr(min(ord(member.low) + 1, ord(member.high)))]
        elif isinstance(member, rx.Category):
            out += _CATEGORIES[member.letter]
        else:
            out.append(member)
    return list(dict.fromkeys(out))


_CATEGORIES = {"d": ["1", "9", "0"], "D": ["a", "Z"], "w": ["a", "Z", "9", "_"], "W": ["-", "."], "s": [" "],
               "S": ["a", "9"]}


def _member(char: str, members: tuple[str | rx.Range | rx.Category, ...]) -> bool:
    for member in members:
        if isinstance(member, rx.Range):
            if member.low <= char <= member.high:
                return True
        elif isinstance(member, rx.Category):
            if re.fullmatch("\\" + member.letter, char):
                return True
        elif member == char:
            return True
    return False
