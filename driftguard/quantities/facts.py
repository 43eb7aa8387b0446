"""What ``unit:`` on a fact makes of a bare number in the code."""

from __future__ import annotations

from driftguard.model import Kind, Value
from driftguard.quantities.reading import scaled
from driftguard.quantities.units import TIME_UNITS, QuantityError

_SECONDS = {u.long[1]: u.seconds for u in TIME_UNITS}
_EXACT_SECONDS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}


def with_unit(value: Value, unit: str) -> Value:
    """``value`` (a number) read in ``unit``: ``15`` in seconds is 15 s, ``0.9`` as a
    ratio is 90%, ``4 << 20`` in bytes is 4 MiB. Raises ``QuantityError`` when the
    value is not a bare number, saying what it is."""
    if value.kind is not Kind.NUMBER or isinstance(value.data, (bool, str)):
        what = {Kind.DURATION: "already a duration", Kind.BOOL: "a boolean", Kind.STRING: "a string"}
        raise QuantityError(f"`unit: {unit}` needs a bare number, but `{value.text or value.canonical}` is "
                            f"{what.get(value.kind, 'not a number')}")
    n = value.data
    text = value.text or value.canonical
    if unit in _EXACT_SECONDS:
        return Value(Kind.DURATION, scaled(n, _EXACT_SECONDS[unit]), text, unit)
    if unit in _SECONDS:
        return Value(Kind.DURATION, scaled(n, _SECONDS[unit]), text, unit)
    if unit == "percent":
        return Value(Kind.NUMBER, n, text, "%")
    if unit == "ratio":
        return Value(Kind.NUMBER, scaled(n, 100), text, "%")
    if unit == "bytes":
        return Value(Kind.BYTES, n, text, "bytes")
    raise QuantityError(f"unknown unit {unit!r}")
