"""The parts of object and array literals: an object's entries and an array's elements.

An object entry is a ``pair`` (``a: 1``, ``'b-c': 2``, ``4: x``, ``[K]: y``), a
shorthand property (``{ port }``, whose value is the name), a method
(``m() {}``) or a spread (``...rest``). A key's name is an identifier's name, a
string's text or a number's digits; a computed key's is what ``computed``
makes of its expression (None when it cannot be evaluated). An array's
elements keep their positions across holes (``[a, , b]``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from driftguard.sources.typescript.nodes import key_name, named, text

_METHODS = frozenset({"method_definition", "method_signature"})


class Missing(Exception):
    """A key or index a literal does not have: ``message`` says what it has instead, ``node``
    is the literal."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


@dataclass(frozen=True)
class Entry:
    node: Node  # the pair, shorthand, method or spread
    key: Node | None  # the key as written (None for a spread)
    name: str | None  # the key's name; None for a spread or a computed key that cannot be evaluated
    value: Node | None  # None for a spread
    kind: str  # pair, shorthand, method or spread


def entries(obj: Node, computed: Callable[[Node], str | None]) -> list[Entry]:
    """The entries of object literal ``obj``, in source order."""
    out = []
    for child in named(obj):
        kind = child.type
        if kind == "pair":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is None:
                continue
            name = key_name(key)
            if key.type == "computed_property_name":
                inner = named(key)
                name = computed(inner[0]) if inner else None
            out.append(Entry(child, key, name, value, "pair"))
        elif kind == "shorthand_property_identifier":
            out.append(Entry(child, child, text(child), child, "shorthand"))
        elif kind in _METHODS:
            key = child.child_by_field_name("name")
            out.append(Entry(child, key, key_name(key) if key is not None else None, child, "method"))
        elif kind == "spread_element":
            out.append(Entry(child, None, None, None, "spread"))
    return out


def index_elements(array: Node) -> list[Node | None]:
    """The elements of array literal ``array`` by position; a hole is None, a comment skipped."""
    out: list[Node | None] = []
    pending: Node | None = None
    for child in array.children[1:-1] if array.child_count >= 2 else []:
        if child.type == ",":
            out.append(pending)
            pending = None
        elif child.type != "comment" and child.is_named:
            pending = child
    if pending is not None:
        out.append(pending)
    return out
