"""The JSON form of cached facts and claims: exact round trips or ``Uncacheable``."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from driftguard.model import Claim, Item, Kind, Location, NameItems, Value


class Uncacheable(TypeError):
    """A value the JSON form could not give back exactly (it is then not stored)."""


_DATA = (bool, int, float, str)


def items_to_json(items: Sequence[Item]) -> object:
    if type(items) is NameItems:
        return names_to_json(items)
    if type(items) is not tuple:
        raise Uncacheable("expected a tuple of items")
    return [_item_out(item) for item in items]


def items_from_json(raw: object) -> Sequence[Item]:
    if isinstance(raw, dict):
        return names_from_json(raw)
    if not isinstance(raw, list):
        raise ValueError("expected a list of items")
    return tuple(_item_in(one) for one in raw)


def names_to_json(items: NameItems) -> dict[str, object]:
    """Columns: the names, their lines, and the paths and labels as runs."""
    if not _strings(*items.names, *items.paths, *items.labels) or not _ints(*items.lines):
        raise Uncacheable("a name column the JSON form cannot carry")
    return {"names": items.names, "lines": items.lines, "paths": _runs(items.paths), "labels": _runs(items.labels)}


def names_from_json(raw: dict[str, object]) -> NameItems:
    names, lines = raw.get("names"), raw.get("lines")
    if not isinstance(names, list) or not isinstance(lines, list) or not _strings(*names) or not _ints(*lines):
        raise ValueError("damaged name columns")
    return NameItems(names, _unruns(raw.get("paths")), lines, _unruns(raw.get("labels")))


def _runs(column: list[str]) -> list[list[object]]:
    return [[value, sum(1 for _ in run)] for value, run in groupby(column)]


def _unruns(raw: object) -> list[str]:
    if not isinstance(raw, list):
        raise ValueError("damaged runs")
    out: list[str] = []
    for run in raw:
        if not isinstance(run, list) or len(run) != 2 or not _strings(run[0]) or not _ints(run[1]) or run[1] < 0:
            raise ValueError("a damaged run")
        out += [run[0]] * run[1]
    return out


def claim_to_json(claim: Claim) -> dict[str, object]:
    if type(claim) is not Claim or claim.location is None:
        raise Uncacheable("not a plain claim")
    return {"items": items_to_json(claim.items), "location": _location_out(claim.location),
            "notes": list(claim.notes)}


def claim_from_json(raw: object) -> Claim:
    if not isinstance(raw, dict) or raw.get("location") is None:
        raise ValueError("expected a claim")
    items = items_from_json(raw["items"])
    if type(items) is not tuple:
        raise ValueError("expected a list of items")
    notes = raw.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ValueError("expected a list of notes")
    return Claim(items, _location_in(raw["location"]), tuple(notes))


def _item_out(item: Item) -> list[object]:
    value, span = item.value, item.span
    if (type(item) is not Item or type(value) is not Value or type(value.kind) is not Kind
            or type(value.data) not in _DATA or not _strings(value.text, value.unit, item.label)):
        raise Uncacheable(f"an item the JSON form cannot carry: {item!r}")
    if span is not None and (type(span) is not tuple or len(span) != 2 or not _ints(*span)):
        raise Uncacheable(f"a span the JSON form cannot carry: {span!r}")
    loc = None if item.location is None else _location_out(item.location)
    return [value.kind.value, value.data, value.text, value.unit, loc, None if span is None else list(span), item.label]


def _item_in(raw: object) -> Item:
    if type(raw) is not list or len(raw) != 7:
        raise ValueError("a damaged item")
    kind, data, text, unit, loc, span, label = raw
    if type(data) not in _DATA or type(text) is not str or type(unit) is not str or type(label) is not str:
        raise ValueError("a damaged item")
    if span is not None:
        if type(span) is not list or len(span) != 2 or type(span[0]) is not int or type(span[1]) is not int:
            raise ValueError("a damaged span")
        span = (span[0], span[1])
    return Item(Value(_KINDS[kind], data, text, unit), None if loc is None else _location_in(loc), span, label)


def _location_out(loc: Location) -> list[object]:
    if type(loc) is not Location or not _strings(loc.path) or not _ints(loc.line, loc.column, none=True):
        raise Uncacheable(f"a location the JSON form cannot carry: {loc!r}")
    return [loc.path, loc.line, loc.column]


def _location_in(raw: object) -> Location:
    if type(raw) is not list or len(raw) != 3:
        raise ValueError("a damaged location")
    path, line, column = raw
    if type(path) is not str or (line is not None and type(line) is not int) \
            or (column is not None and type(column) is not int):
        raise ValueError("a damaged location")
    return Location(path, line, column)


_KINDS = {kind.value: kind for kind in Kind}


def _strings(*values: object) -> bool:
    return all(type(v) is str for v in values)


def _ints(*values: object, none: bool = False) -> bool:
    return all(type(v) is int or (none and v is None) for v in values)
