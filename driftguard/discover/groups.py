"""Name groups of a const block: the common word prefix or suffix of its names.

``AgentErrCodeResourceNotFound``, ``AgentErrCodeMissingID`` share the prefix
``AgentErrCode`` (regex ``^AgentErrCode``); ``PulseQueryToolName`` and
``PatrolGetFindingsToolName`` the suffix ``ToolName`` (``ToolName$``);
``PULSE_QUERY`` and ``PULSE_READ`` the prefix ``PULSE_``. A group needs two
names, and every name must hold more words than the shared part.
"""

from __future__ import annotations

import re

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
