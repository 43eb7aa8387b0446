"""Where a Go file declares the set a selector reads: the ``type``, the ``String``
method, the map, the struct of ``fields``, the literal of ``list``, the function
``calls``, ``flags``, ``cases`` and ``map_keys`` look ``within``. A
``missing-in-code`` finding points there, since the value the document adds
belongs there, not beside the set's first member."""

from __future__ import annotations

from driftguard.config.specs import Calls, Cases, Constants, Fields, Flags, ListOf, MapKeys, Selector, StringMethod
from driftguard.model import DriftguardError, Location
from driftguard.sources.go.calls import scopes_named
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.fields import struct_of
from driftguard.sources.go.index import text
from driftguard.sources.go.lists import bound_list
from driftguard.sources.go.maps import local_map
from driftguard.sources.go.reader import GoTree


def declaration(tree: GoTree, selector: Selector, path: str) -> tuple[Location, str] | None:
    """(location, label such as ``type SessionState``), or None where the file has none."""
    index = tree.index
    if isinstance(selector, Constants) and selector.type:
        for node in tree.root.children:
            if node.type == "type_declaration":
                for spec in named(node):
                    if text(spec.child_by_field_name("name")) == selector.type:
                        return tree.loc(spec), f"type {selector.type}"
        typed = [s for s in index.specs if s.type == selector.type]
        return (tree.loc(typed[0].decl), f"const block of type {selector.type}") if typed else None
    if isinstance(selector, StringMethod):
        for name, receiver, node in index.funcs:
            if name == "String" and receiver == selector.type:
                return tree.loc(node), f"func ({selector.type}) String"
        return None
    if isinstance(selector, MapKeys) and selector.within:
        found = local_map(tree, selector)
        return (tree.loc(found[0]), f"map {selector.name} in {_func(selector.within)}") if found else None
    if isinstance(selector, MapKeys):
        specs = index.by_name.get(selector.name, [])
        if len(specs) == 1:
            return tree.loc(specs[0].node), f"map {selector.name}"
        found = local_map(tree, selector)
        return (tree.loc(found[0]), f"map {selector.name}") if found else None
    if isinstance(selector, (Calls, Flags, Cases)) and selector.within:
        scopes = scopes_named(tree, selector.within)
        return (tree.loc(scopes[0]), _func(selector.within)) if len(scopes) == 1 else None
    return _shape(tree, selector)


def _shape(tree: GoTree, selector: Selector) -> tuple[Location, str] | None:
    """The struct ``fields`` reads, the literal ``list`` reads."""
    try:
        if isinstance(selector, Fields):
            return tree.loc(struct_of(tree, selector.type)[0]), f"type {selector.type} struct"
        if isinstance(selector, ListOf):
            return tree.loc(bound_list(tree, selector)[0]), f"list {selector.name}"
    except DriftguardError:
        return None
    return None


def _func(within: str) -> str:
    """``func (T) Method`` or ``func name``, as Go declares it."""
    type_, _, method = within.rpartition(".")
    return f"func ({type_}) {method}" if type_ else f"func {within}"
