"""The names a rule's facts define, indexed once per set of facts (not once per document):
whole names, dotted names by their trailing parts, ``instance.member`` by a type whose
name ends with the instance's, string literals, and the closest name to one that is gone.

The closest name is looked for among the names that share a word with the one that is
gone (camelCase, snake_case and dotted words), never by comparing with every name: a
``symbols`` fact holds hundreds of thousands. A name holding every word of the old one,
in order, comes first (``LoadFile`` -> ``LoadConfigFile``), then the most words shared.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Iterable, Sequence

from driftguard.model import Fact, Item, NameItems

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> list[str]:
    """``LoadConfigFile`` -> load, config, file; ``MAX_RETRIES`` -> max, retrie (a plural's
    ``s`` dropped, so ``MAX_TURNS`` and ``MAX_TURN_LIMIT`` share ``turn``)."""
    return [w.lower()[:-1] if len(w) > 3 and w.lower().endswith("s") else w.lower() for w in _WORD.findall(name)]


def enough_shared(wanted: list[str], have: list[str]) -> bool:
    """Whether ``have`` holds enough of the words of ``wanted`` to be what it became: every
    word of a name of one or two, all but one of a longer name."""
    shared = len(set(wanted) & set(have))
    return shared >= (len(set(wanted)) if len(set(wanted)) <= 2 else len(set(wanted)) - 1)


def typed_as(type_name: str, instance: str) -> bool:
    """Whether ``instance`` reads as a value of type ``type_name``: its name ends the
    type's, case aside (``environment`` of ``DevEnvironment``)."""
    return type_name.lower().endswith(instance.lower())


class Index:
    """The names a rule's facts define (first definition kept) and their string literals;
    an item is built only for a name that is looked up."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self._symbols: list[tuple[Sequence[Item], dict[str, int]]] = []
        self._literals: list[tuple[Sequence[Item], dict[str, int]]] = []
        for fact in facts:
            items = fact.items
            if isinstance(items, NameItems):
                names, labels = items.names, items.labels
            else:
                names = [str(item.value.data) for item in items]
                labels = [item.label for item in items]
            for literal, tables in ((False, self._symbols), (True, self._literals)):
                at = [i for i, label in enumerate(labels) if (label == "literal") is literal]
                # reversed, so that the first of each name is the one the dict keeps
                tables.append((items, dict(zip([names[i] for i in reversed(at)], reversed(at)))))
        self._bases: set[str] | None = None
        self._members: dict[str, list[str]] | None = None
        self._by_word: dict[str, list[str]] | None = None
        self._by_start: dict[str, list[str]] | None = None

    @property
    def bases(self) -> set[str]:
        """The last path segment of every string literal, for a path span to resolve by."""
        if self._bases is None:
            self._bases = {posixpath.basename(text.rstrip("/")) for _, table in self._literals for text in table}
        return self._bases

    @property
    def names(self) -> Iterable[str]:
        return (n for _, table in self._symbols for n in table)

    def symbol(self, name: str) -> Item | None:
        """``name`` whole, a dotted name by its trailing parts (``chat.NewService``), or
        ``instance.member`` by a type whose name ends with the instance's
        (``environment.fetchModule`` -> ``DevEnvironment.fetchModule``)."""
        parts = name.split(".")
        for i in range(len(parts)):
            found = _lookup(self._symbols, ".".join(parts[i:]))
            if found is not None:
                return found
        if len(parts) >= 2:
            owner, member = parts[-2], parts[-1]
            for full in self._owners().get(member, []):
                if typed_as(full.split(".")[-2], owner):
                    return _lookup(self._symbols, full)
        return None

    def literal(self, name: str) -> Item | None:
        return _lookup(self._literals, name)

    def closest(self, name: str) -> Item | None:
        wanted = words(name.split(".")[-1]) or words(name)
        if not wanted:
            return None
        by_word = self._words()
        last = name.split(".")[-1]
        pool = dict.fromkeys(n for w in wanted for n in by_word.get(w, ()) if n.split(".")[-1] != last)
        if not pool:
            return self._spelled_like(last)

        def tier(candidate: str) -> tuple[int, int]:
            have = words(candidate.split(".")[-1])
            return (-int(_in_order(wanted, have)), -len(set(wanted) & set(have)))

        tiers = {candidate: tier(candidate) for candidate in list(pool)[:2000]}
        top = min(tiers.values())
        best = min((c for c, t in tiers.items() if t == top),
                   key=lambda c: (-difflib.SequenceMatcher(None, last, c).ratio(), len(c)))
        if not enough_shared(wanted, words(best.split(".")[-1])):
            return self._spelled_like(last)  # too few words in common to be what the name became
        return self.symbol(best)

    def _spelled_like(self, last: str) -> Item | None:
        """The name spelled most like ``last`` among those starting with its first two letters."""
        if self._by_start is None:
            by_start: dict[str, list[str]] = {}
            for n in dict.fromkeys(self.names):
                by_start.setdefault(n.split(".")[-1][:2].lower(), []).append(n)
            self._by_start = by_start
        pool = [n for n in self._by_start.get(last[:2].lower(), [])[:5000] if n.split(".")[-1] != last]
        tails = {n.split(".")[-1]: n for n in reversed(pool)}
        close = difflib.get_close_matches(last, list(tails), n=1, cutoff=0.6)
        return self.symbol(tails[close[0]]) if close else None

    def _owners(self) -> dict[str, list[str]]:
        if self._members is None:
            members: dict[str, list[str]] = {}
            for n in self.names:
                if "." in n:
                    members.setdefault(n.rsplit(".", 1)[1], []).append(n)
            self._members = members
        return self._members

    def _words(self) -> dict[str, list[str]]:
        if self._by_word is None:
            by_word: dict[str, list[str]] = {}
            for n in dict.fromkeys(self.names):
                for w in set(words(n.split(".")[-1])):
                    by_word.setdefault(w, []).append(n)
            self._by_word = by_word
        return self._by_word


def _in_order(wanted: list[str], have: list[str]) -> bool:
    """Whether every word of ``wanted`` occurs in ``have``, in order."""
    it = iter(have)
    return all(any(w == h for h in it) for w in wanted)


def _lookup(tables: list[tuple[Sequence[Item], dict[str, int]]], name: str) -> Item | None:
    for items, table in tables:
        at = table.get(name)
        if at is not None:
            return items[at]
    return None
