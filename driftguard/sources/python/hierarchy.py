"""The ``classes`` selector: every class deriving from a base, directly or through
another class of the file.

A base is matched by its dotted text or its last part (``base: HTTPError`` matches
``class RequestError(HTTPError)`` and ``class X(httpx.HTTPError)``;
``Generic[T]``-style subscripts are read through). Classes at any depth are
read, each by its own name, in source order; the base itself is not a member.

The engine extracts each file of a glob on its own, so a class of file B
deriving from a class of file A is found only when B also names the base
through a class of its own: within one file the closure is complete.
"""

from __future__ import annotations

import libcst as cst

from driftguard.config.specs import Classes
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.python.evaluate import dotted_name
from driftguard.sources.python.tree import PyTree

__all__ = ["classes", "derived"]


def classes(tree: PyTree, sel: Classes) -> list[Item]:
    found = derived(tree, sel.base)
    if not found:
        raise FactNotFound(f"no class of this file derives from {sel.base}", Location(tree.path))
    return unique_items(Item(Value.string(c.name.value), tree.location(c.name)) for c in found)


def derived(tree: PyTree, base: str) -> list[cst.ClassDef]:
    """The classes deriving from ``base`` through classes of the file, in source order."""
    names = {base, base.rsplit(".", 1)[-1]}
    every = tree.all_classes()
    found: dict[int, cst.ClassDef] = {}
    grown = True
    while grown:
        grown = False
        for klass in every:
            if id(klass) not in found and any(_named(b, names) for b in klass.bases if b.keyword is None):
                found[id(klass)] = klass
                names.add(klass.name.value)
                grown = True
    return [c for c in every if id(c) in found]


def _named(base: cst.Arg, names: set[str]) -> bool:
    node = base.value.value if isinstance(base.value, cst.Subscript) else base.value
    written = dotted_name(node)
    return written is not None and (written in names or written.rsplit(".", 1)[-1] in names)
