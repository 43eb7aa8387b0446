"""Quantities in prose, table cells and code: read them, find them, write them back.

Two tables drive everything: the units (``units``) and the number words. From
them come the regex that phrase templates embed (``QUANTITY_PATTERN``), the
reader (``parse_quantity``, ``find_quantities``), the writer that spells a new
value the way the document spelled the old one (``format_like``), and what a
fact's ``unit:`` makes of a bare number in the code (``with_unit``).

The names are loaded when first asked for: the unit names (``FACT_UNITS``), which
every config reads, cost nothing, while the grammar (one large regex, compiled
at import) is built only by a run that reads a quantity.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from driftguard.quantities.facts import with_unit
    from driftguard.quantities.grammar import QUANTITY_PATTERN
    from driftguard.quantities.reading import find_quantities, parse_quantity, read_value
    from driftguard.quantities.units import FACT_UNITS, QuantityError
    from driftguard.quantities.writing import format_like

_HOMES = {"with_unit": "facts", "QUANTITY_PATTERN": "grammar", "find_quantities": "reading",
          "parse_quantity": "reading", "read_value": "reading", "FACT_UNITS": "units", "QuantityError": "units",
          "format_like": "writing"}

__all__ = [
    "FACT_UNITS", "QUANTITY_PATTERN", "QuantityError", "find_quantities", "format_like", "parse_quantity",
    "read_value", "with_unit",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
