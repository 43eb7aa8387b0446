"""Name groups of a const block: the common word prefix or suffix of its names.

``AgentErrCodeResourceNotFound``, ``AgentErrCodeMissingID`` share the prefix
``AgentErrCode`` (regex ``^AgentErrCode``); ``PulseQueryToolName`` and
``PatrolGetFindingsToolName`` the suffix ``ToolName`` (``ToolName$``);
``PULSE_QUERY`` and ``PULSE_READ`` the prefix ``PULSE_``. A group needs two
names, and every name must hold more words than the shared part. ``ordinal_names``
tells the numbered members of such a group (an enum's ordinals) from real settings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from driftguard.discover.words import GENERIC

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[0-9]|$)|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _words(name: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(name)]


def affix_groups(names: list[str]) -> list[tuple[str, str, str]]:
    """``(kind, affix, regex)`` for each prefix and suffix group among ``names``, in order."""
    split = {n: _words(n) for n in dict.fromkeys(names)}
    split = {n: w for n, w in split.items() if len(w) >= 2}
    out: list[tuple[str, str, str]] = []
    for kind in ("prefix", "suffix"):
        buckets: dict[str, list[str]] = {}
        for name, words in split.items():
            key = words[0][0] if kind == "prefix" else words[-1][0]
            buckets.setdefault(key, []).append(name)
        for group in buckets.values():
            if len(group) < 2:
                continue
            affix = _prefix(group, split) if kind == "prefix" else _suffix(group, split)
            if affix:
                regex = "^" + re.escape(affix) if kind == "prefix" else re.escape(affix) + "$"
                out.append((kind, affix, regex))
    return out


def _prefix(group: list[str], split: dict[str, list[tuple[str, int, int]]]) -> str:
    lists = [split[n] for n in group]
    count = 0
    while all(len(w) > count + 1 for w in lists) and len({w[count][0] for w in lists}) == 1:
        count += 1
    if not count:
        return ""
    first = group[0]
    end = lists[0][count - 1][2]
    if end < len(first) and first[end] == "_":
        end += 1
    affix = first[:end]
    return affix if all(n.startswith(affix) for n in group) else ""


def _suffix(group: list[str], split: dict[str, list[tuple[str, int, int]]]) -> str:
    lists = [split[n] for n in group]
    count = 0
    while all(len(w) > count + 1 for w in lists) and len({w[-1 - count][0] for w in lists}) == 1:
        count += 1
    if not count:
        return ""
    first = group[0]
    start = lists[0][-count][1]
    if start > 0 and first[start - 1] == "_":
        start -= 1
    affix = first[start:]
    return affix if all(n.endswith(affix) for n in group) else ""


def members(names: list[str], kind: str, affix: str) -> list[str]:
    """The names of one ``affix_groups`` group."""
    return [n for n in names if (n.startswith(affix) if kind == "prefix" else n.endswith(affix))]


def numbered(values: list[float], at_least: int = 3) -> bool:
    """Whether the values of a name group number its members, as an enum does: at least
    ``at_least`` distinct integers forming a run (``0, 1, 2, 3``; ``1, 2, 3``)."""
    if len(values) < at_least or any(v != int(v) for v in values) or len(set(values)) != len(values):
        return False
    ordered = sorted(int(v) for v in values)
    return ordered[0] in (0, 1) and ordered[-1] - ordered[0] == len(ordered) - 1


def ordinal_names(values: dict[str, float], groups: Sequence[tuple[str, list[str]]],
                  typed: Sequence[list[str]] = ()) -> frozenset[str]:
    """The names of ``values`` that are numbered members: of a name group (``TIER_FREE``,
    ``TIER_PRO``, ...; a ``MAX_`` or ``DEFAULT_`` group never is one) whose values are a
    run, or distinct small integers (under 1000) of one named type declared at least
    twice (``PriorityLow Priority = 1``, ``OrderStatus_PAID OrderStatus = 2``)."""
    out: set[str] = set()
    for affix, names in groups:
        if all(w.lower() in GENERIC for w, _, _ in _words(affix)):
            continue  # MAX_A, MAX_B, MAX_C are three limits, not one enum
        known = [n for n in names if n in values]
        if numbered([values[n] for n in known]):
            out.update(known)
    for names in typed:
        numbers = [values[n] for n in names if n in values]
        if len(numbers) >= 2 and len(set(numbers)) == len(numbers) and all(v == int(v) and 0 <= v < 1000
                                                                            for v in numbers):
            out.update(n for n in names if n in values)
    return frozenset(out)
