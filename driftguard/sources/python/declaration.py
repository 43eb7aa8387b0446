"""Where a Python module declares the set a selector reads: the class, the dict,
the function, the switch or the list. A ``missing-in-code`` finding points there
rather than at the set's first member."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from driftguard.config.specs import (
    Calls,
    Cases,
    Classes,
    Constants,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    Selector,
    StringMethod,
)
from driftguard.model import DriftguardError, Location
from driftguard.sources.python.cases import one_switch
from driftguard.sources.python.fields import record
from driftguard.sources.python.lists import elements
from driftguard.sources.python.lookups import local_binding
from driftguard.sources.python.tree import PyTree

Found = tuple[Location, str] | None


def declaration(tree: PyTree, selector: Selector, path: str) -> Found:
    """(location, label such as ``class State``), or None where the module has none."""
    find = _FINDERS.get(type(selector))
    try:
        return find(tree, selector) if find is not None else None
    except DriftguardError:
        return None


def _typed(tree: PyTree, selector: Constants | StringMethod) -> Found:
    if not selector.type:
        return None
    found = tree.classes(selector.type)
    return (tree.location(found[0].name), f"class {selector.type}") if len(found) == 1 else None


def _dict(tree: PyTree, selector: MapKeys) -> Found:
    if selector.within:
        binding = local_binding(tree, selector.within, selector.name)
        return tree.location(binding.target), f"dict {selector.name} in {selector.within}"
    owner, _, attribute = selector.name.rpartition(".")
    classes = tree.classes(owner) if owner else []
    if owner and len(classes) != 1:
        return None
    bindings = tree.names.scope(classes[0] if classes else None).get(attribute, [])
    return (tree.location(bindings[0].target), f"dict {selector.name}") if len(bindings) == 1 else None


def _within(tree: PyTree, selector: Calls | Flags) -> Found:
    if not selector.within:
        return None
    scopes = tree.functions(selector.within) or tree.classes(selector.within)
    kind = "function" if tree.functions(selector.within) else "class"
    return (tree.location(scopes[0].name), f"{kind} {selector.within}") if len(scopes) == 1 else None


def _record(tree: PyTree, selector: Fields) -> Found:
    found = record(tree, selector.type)
    if isinstance(found, cst.ClassDef):
        return tree.location(found.name), f"class {selector.type}"
    return tree.location(found), f"record {selector.type}"


def _base(tree: PyTree, selector: Classes) -> Found:
    found = tree.classes(selector.base)
    return (tree.location(found[0].name), f"class {selector.base}") if len(found) == 1 else None


def _switch(tree: PyTree, selector: Cases) -> Found:
    switch = one_switch(tree, selector)
    return tree.location(switch.node), f"switch on {switch.subject} in {selector.within}"


def _list(tree: PyTree, selector: ListOf) -> Found:
    _, nodes = elements(tree, selector)
    return (tree.location(nodes[0]), f"list {selector.name}") if nodes else None


_FINDERS: dict[type, Callable[[PyTree, Any], Found]] = {
    Constants: _typed,
    StringMethod: _typed,
    MapKeys: _dict,
    Calls: _within,
    Flags: _within,
    Fields: _record,
    Classes: _base,
    Cases: _switch,
    ListOf: _list,
}
