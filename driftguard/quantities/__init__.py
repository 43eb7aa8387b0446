"""Quantities in prose, table cells and code: read them, find them, write them back.

Two tables drive everything: the units (``units``) and the number words. From
them come the regex that phrase templates embed (``QUANTITY_PATTERN``), the
reader (``parse_quantity``, ``find_quantities``), the writer that spells a new
value the way the document spelled the old one (``format_like``), and what a
fact's ``unit:`` makes of a bare number in the code (``with_unit``).
"""

from driftguard.quantities.facts import with_unit
from driftguard.quantities.grammar import QUANTITY_PATTERN
from driftguard.quantities.reading import find_quantities, parse_quantity, read_value
from driftguard.quantities.units import FACT_UNITS, QuantityError
from driftguard.quantities.writing import format_like

__all__ = [
    "FACT_UNITS", "QUANTITY_PATTERN", "QuantityError", "find_quantities", "format_like", "parse_quantity",
    "read_value", "with_unit",
]
