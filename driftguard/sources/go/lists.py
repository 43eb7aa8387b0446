"""``list``: the elements of the slice or array literal bound to a name.

``list: NAME`` reads ``var NAME = []string{...}`` (or ``[N]T{...}``,
``[...]T{...}``, ``Names{...}`` of a ``type Names []string`` of the file) at the top level, else the
one ``NAME := T{...}`` or ``var NAME = T{...}`` in a function; with ``within:
F``, in ``F`` only. Each element is evaluated (literals and constants of the
file or function; ``[...]string{2: "x"}`` gives ``"x"``); one that is not (a
call, a struct literal, a var) is left out and listed by ``skipped``. A map or
struct literal is no list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import ListOf
from driftguard.model import FactNotFound, Item
from driftguard.sources import unique_items
from driftguard.sources.go.calls import in_scope
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.index import ambiguous, local_maps, text
from driftguard.sources.go.syntax import check_hidden, check_path, mentioning, not_found
from driftguard.sources.go.values import short, value_or_note

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

_SEQUENCES = ("slice_type", "array_type", "implicit_length_array_type")


def list_of(tree: GoTree, sel: ListOf) -> list[Item]:
    items, notes = read_list(tree, sel)
    if not items:
        reason = "; ".join(notes) or "it is empty"
        raise FactNotFound(f"the list bound to {sel.name} has no literal element: {reason}",
                           tree.loc(bound_list(tree, sel)[1]))
    return unique_items(items)


def left_out(tree: GoTree, sel: ListOf) -> list[str]:
    return read_list(tree, sel)[1]


def describe(sel: ListOf) -> str:
    return f"slice or array literal bound to {sel.name}" + (f" within {sel.within}" if sel.within else "")


def is_list(literal: Node, sequences: set[str]) -> bool:
    """Whether ``literal`` is a slice or array literal: its type is written so, or is one
    of ``sequences``, the file's named slice and array types."""
    type_node = literal.child_by_field_name("type")
    if type_node is None:
        return False
    return type_node.type in _SEQUENCES or (type_node.type == "type_identifier" and text(type_node) in sequences)


def sequence_types(root: Node) -> set[str]:
    """The names of the file's slice and array types (``type Names []string``)."""
    return {text(s.child_by_field_name("name")) for d in root.children if d.type == "type_declaration"
            for s in named(d) if s.type == "type_spec" and (s.child_by_field_name("type") or s).type in _SEQUENCES}


def bound_list(tree: GoTree, sel: ListOf) -> tuple[Node, Node]:
    """(the spec or statement binding it, the literal)."""
    what = describe(sel)
    scopes = in_scope(tree, sel.within, what)
    word = mentioning(sel.name)
    check_hidden(tree, word, [], what, scopes if sel.within else None)
    found: list[tuple[Node, Node]] = []
    sequences = sequence_types(tree.root)
    if not sel.within:
        found = [(s.node.parent or s.decl, s.expr) for s in tree.index.by_name.get(sel.name, [])
                 if s.expr is not None and s.expr.type == "composite_literal" and is_list(s.expr, sequences)]
    if not found:
        functions = scopes if sel.within else [fn for _, _, fn in tree.index.funcs]
        found = [b for fn in functions for b in local_maps(fn, sel.name) if is_list(b[1], sequences)]
    if not found:
        if sel.within:
            raise FactNotFound(f"no {what}", tree.loc(scopes[0]))
        raise not_found(tree, what, word)
    if len(found) > 1:
        raise ambiguous(tree, what, [lit for _, lit in found])
    check_path(tree, [found[0][0]], what)
    return found[0]


def read_list(tree: GoTree, sel: ListOf) -> tuple[list[Item], list[str]]:
    what = describe(sel)
    items: list[Item] = []
    notes: list[str] = []
    for element in named(bound_list(tree, sel)[1].child_by_field_name("body")):
        if element.type == "keyed_element":
            element = element.child_by_field_name("value") or element
        value = value_or_note(tree, element, what, notes, f"element `{short(element, 40)}`")
        if value is not None:
            items.append(Item(value, tree.loc(element)))
    return items, notes
