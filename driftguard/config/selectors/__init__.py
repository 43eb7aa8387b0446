"""Fact selectors: which values a fact reads from its files.

Each selector is a frozen spec the config builds. ``scalar`` says whether it
yields one value (compared with equal semantics) or a set; ``map`` whether its
items are entries (each item's ``label`` its key, as ``flags`` with defaults
give name -> default). ``unwrap`` names the project's own conversions
(``model.Duration``) a value is read through, besides the language's own
(``time.Duration(x)``, ``timedelta(...)``, ``float()``, ``Number()``).

A language's reader reads the selectors its language has the shape for, and
says so for the rest (``driftguard.sources.base.unsupported``).
"""

from __future__ import annotations

from typing import Union

from driftguard.config.selectors.base import SelectorSpec, key_path
from driftguard.config.selectors.sets import (
    Cases,
    Classes,
    Constants,
    Env,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    StringMethod,
    Symbols,
)
from driftguard.config.selectors.values import Call, Calls, Constant, Default, Pattern, Query

Selector = Union[Constants, Constant, StringMethod, MapKeys, Call, Calls, Symbols, Pattern, Default, Flags, Env, Fields,
                 Cases, Classes, ListOf, Query]

SELECTOR_KEYS: dict[str, type[SelectorSpec]] = {
    "constants": Constants,
    "constant": Constant,
    "string_method": StringMethod,
    "map_keys": MapKeys,
    "call": Call,
    "calls": Calls,
    "symbols": Symbols,
    "pattern": Pattern,
    "default": Default,
    "flags": Flags,
    "env": Env,
    "fields": Fields,
    "cases": Cases,
    "classes": Classes,
    "list": ListOf,
    "query": Query,
}
"""The registry of fact selectors, by config key."""



__all__ = [
    "SELECTOR_KEYS", "Call", "Calls", "Cases", "Classes", "Constant", "Constants", "Default", "Env", "Fields", "Flags",
    "ListOf", "MapKeys", "Pattern", "Query", "Selector", "SelectorSpec", "StringMethod", "Symbols", "key_path",
]
