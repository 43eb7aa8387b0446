"""``map_keys``: the keys of the one map literal a name addresses.

``name: N`` looks, in this order, taking the first step that finds anything:

1. a top-level ``var N = T{...}`` (without ``within``);
2. a local ``N := T{...}`` or ``var N = T{...}`` in a function (in ``within`` only, when given);
3. the keyed element ``N: T{...}`` of another composite literal, whose value is a
   keyed literal: ``funcMap: text_template.FuncMap{...}`` inside
   ``return &Expander{...}``, or ``Funcs: template.FuncMap{...}`` inside
   ``New(Options{...})``;
4. a composite literal whose type is ``N`` or ends in ``.N`` (``FuncMap`` for
   ``html_template.FuncMap{...}`` passed straight to ``tmpl.Funcs(...)``).

Two finds in one step are ``ambiguous``, naming their lines; ``within`` narrows.
Keys give a string key's value, an identifier key's name (with ``resolve``, the
value of the constant it names), ``Name`` for a ``pkg.Name`` key, and any other
key's value or source text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import MapKeys
from driftguard.model import DriftguardError, FactNotFound, Item
from driftguard.sources import unique_items
from driftguard.sources.go.calls import in_scope
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.index import ambiguous, local_maps, map_key, map_keys_of, nodes_of, text
from driftguard.sources.go.syntax import check_hidden, check_path, mentioning, not_found

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

Binding = tuple[Node, Node]  # (what holds it, the literal)


def map_keys(tree: GoTree, sel: MapKeys) -> list[Item]:
    what = describe(sel)
    holder, literal = bound_map(tree, sel)
    check_path(tree, [holder], what)
    ev = tree.evaluator()
    keys = []
    for node in map_keys_of(literal):
        try:
            keys.append(map_key(ev, node, sel.resolve))
        except FactNotFound as exc:
            raise FactNotFound(exc.message, exc.location or tree.loc(node)) from None
    if not keys:
        raise FactNotFound(f"{what} has no keys", tree.loc(literal))
    return unique_items(Item(value, tree.loc(node)) for node, value in keys)


def describe(sel: MapKeys) -> str:
    return f"map literal bound to {sel.name}" + (f" within {sel.within}" if sel.within else "")


def local_map(tree: GoTree, sel: MapKeys) -> Binding | None:
    """(holder, literal) of the one map ``sel`` reads, or None."""
    try:
        return bound_map(tree, sel)
    except DriftguardError:
        return None


def bound_map(tree: GoTree, sel: MapKeys) -> Binding:
    what = describe(sel)
    scopes = in_scope(tree, sel.within, f"the map literal bound to {sel.name}")
    steps: list[Callable[[], list[Binding]]] = [
        lambda: [b for fn in (scopes if sel.within else [f for _, _, f in tree.index.funcs])
                 for b in local_maps(fn, sel.name)],
        lambda: [b for scope in scopes for b in keyed_maps(scope, sel.name)],
        lambda: [(lit, lit) for scope in scopes for lit in typed_literals(scope, sel.name)],
    ]
    if not sel.within:
        steps.insert(0, lambda: [(s.decl, s.expr) for s in tree.index.by_name.get(sel.name, [])
                                 if not s.const and s.expr is not None and s.expr.type == "composite_literal"])
    word = mentioning(sel.name)
    check_hidden(tree, word, [], what, scopes if sel.within else None)
    for step in steps:
        found = step()
        if len(found) > 1:
            raise ambiguous(tree, what, [lit for _, lit in found])
        if found:
            return found[0]
    if sel.within:
        raise FactNotFound(f"no {what}", tree.loc(scopes[0]))
    raise not_found(tree, what, word)


def keyed_maps(scope: Node, name: str) -> list[Binding]:
    """(element, literal) of each ``name: T{k: v, ...}`` keyed element inside ``scope``."""
    out = []
    for element in nodes_of(scope, ("keyed_element",)):
        key, value = element.child_by_field_name("key"), element.child_by_field_name("value")
        if key is None or value is None or text(key).strip() != name:
            continue
        inner = named(value)[0] if value.type == "literal_element" and len(named(value)) == 1 else value
        if inner.type == "composite_literal" and map_keys_of(inner):
            out.append((element, inner))
    return out


def typed_literals(scope: Node, name: str) -> list[Node]:
    """Keyed composite literals inside ``scope`` whose type is ``name`` or ``pkg.name``."""
    out = []
    for literal in nodes_of(scope, ("composite_literal",)):
        type_text = text(literal.child_by_field_name("type"))
        if (type_text == name or type_text.endswith("." + name)) and map_keys_of(literal):
            out.append(literal)
    return out
