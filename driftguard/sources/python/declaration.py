"""Where a Python module declares the set a selector reads: the class or the dict.
A ``missing-in-code`` finding points there rather than at the set's first member."""

from __future__ import annotations

from driftguard.config.specs import Constants, MapKeys, Selector, StringMethod
from driftguard.model import Location
from driftguard.sources.python.tree import PyTree


def declaration(tree: PyTree, selector: Selector, path: str) -> tuple[Location, str] | None:
    """(location, label such as ``class State``), or None where the module has none."""
    if isinstance(selector, (Constants, StringMethod)) and selector.type:
        found = tree.classes(selector.type)
        return (tree.location(found[0].name), f"class {selector.type}") if len(found) == 1 else None
    if isinstance(selector, MapKeys):
        owner, _, attribute = selector.name.rpartition(".")
        classes = tree.classes(owner) if owner else []
        if owner and len(classes) != 1:
            return None
        bindings = tree.names.scope(classes[0] if classes else None).get(attribute, [])
        return (tree.location(bindings[0].target), f"dict {selector.name}") if len(bindings) == 1 else None
    return None
