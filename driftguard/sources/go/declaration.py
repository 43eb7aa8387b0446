"""Where a Go file declares the set a selector reads: the ``type``, the ``String``
method, the map. A ``missing-in-code`` finding points there, since the value the
document adds belongs there, not beside the set's first member."""

from __future__ import annotations

from driftguard.config.specs import Constants, MapKeys, Selector, StringMethod
from driftguard.model import Location
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.index import text
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
    if isinstance(selector, MapKeys):
        specs = index.by_name.get(selector.name, [])
        return (tree.loc(specs[0].node), f"map {selector.name}") if len(specs) == 1 else None
    return None
