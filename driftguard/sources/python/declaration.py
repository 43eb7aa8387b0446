"""Where a Python module declares the set a selector reads: the class or the dict.
A ``missing-in-code`` finding points there rather than at the set's first member."""

from __future__ import annotations

from driftguard.config.specs import Calls, Constants, MapKeys, Selector, StringMethod
from driftguard.model import DriftguardError, Location
from driftguard.sources.python.lookups import local_binding
from driftguard.sources.python.tree import PyTree


def declaration(tree: PyTree, selector: Selector, path: str) -> tuple[Location, str] | None:
    """(location, label such as ``class State``), or None where the module has none."""
    if isinstance(selector, (Constants, StringMethod)) and selector.type:
        found = tree.classes(selector.type)
        return (tree.location(found[0].name), f"class {selector.type}") if len(found) == 1 else None
    if isinstance(selector, MapKeys) and selector.within:
        try:
            binding = local_binding(tree, selector.within, selector.name)
        except DriftguardError:
            return None
        return tree.location(binding.target), f"dict {selector.name} in {selector.within}"
    if isinstance(selector, MapKeys):
        owner, _, attribute = selector.name.rpartition(".")
        classes = tree.classes(owner) if owner else []
        if owner and len(classes) != 1:
            return None
        bindings = tree.names.scope(classes[0] if classes else None).get(attribute, [])
        return (tree.location(bindings[0].target), f"dict {selector.name}") if len(bindings) == 1 else None
    if isinstance(selector, Calls) and selector.within:
        scopes = tree.functions(selector.within) or tree.classes(selector.within)
        kind = "function" if tree.functions(selector.within) else "class"
        return (tree.location(scopes[0].name), f"{kind} {selector.within}") if len(scopes) == 1 else None
    return None
