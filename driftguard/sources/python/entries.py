"""Map facts (``flags`` and ``env`` with ``defaults: true``): one item per name.

Each item's ``label`` is the name and its value the default, ``Value.string("")``
where the code gives none. The same name read or defined twice is one entry: a
read with a default wins over one without, and two different defaults are
ambiguous, naming both lines (narrow the fact with ``within:``).
"""

from __future__ import annotations

from collections.abc import Iterable

from driftguard.model import AmbiguousFact, Item, Kind, Value

__all__ = ["NO_DEFAULT", "merged"]

NO_DEFAULT = Value.string("")
"""The value of an entry the code gives no default."""


def merged(items: Iterable[Item], what: str) -> list[Item]:
    """One item per label, in the order labels first appear; ``what`` names the entries
    in a message (``the flag``, ``the variable``)."""
    kept: dict[str, Item] = {}
    for item in items:
        old = kept.get(item.label)
        if old is None or _empty(old) and not _empty(item):
            kept[item.label] = item  # a replaced entry keeps its place
        elif not _empty(item) and not old.value.same(item.value):
            raise AmbiguousFact(f"{what} {item.label} has two defaults: {old.value} ({_line(old)}) and "
                                f"{item.value} ({_line(item)}); narrow the fact with `within:`", item.location)
    return list(kept.values())


def _empty(item: Item) -> bool:
    return item.value.kind is Kind.STRING and item.value.data == ""


def _line(item: Item) -> str:
    return f"line {item.location.line}" if item.location is not None else "no line"
