"""The selectors that read a literal bound to a name: ``constant`` (with a key path),
``map_keys`` and ``list``.

A name is found, in this order:

1. with ``within: F``, a ``const``/``let`` declared inside function or method F,
   else a property of that name of an object literal inside F;
2. a top-level ``const`` (exported or not); ``A.B`` reads key ``B`` of ``A``
   (a static field of class ``A``, a member of enum ``A``);
3. for ``map_keys`` and ``list`` only: the one property of that name of an
   object literal anywhere in the file (``alias`` in ``defineConfig({resolve:
   {alias: {...}}})``); two such properties are ambiguous.

The value is read through ``as``, ``as const``, ``satisfies``, parentheses,
``Object.freeze(...)`` and ``unwrap:`` calls, and a name it holds is followed
to its const. ``NAME["key"][0]`` then steps into object keys (an identifier,
string, number or evaluable computed key) and array indexes (negative ones
count from the end); a key that is not there is ``FactNotFound`` naming the
path reached and the keys found there.

``map_keys`` yields each key once: an identifier or string key as a string, a
number key as a number, a computed key as its value (JavaScript's own
meaning, so ``resolve:`` changes nothing); a computed key that cannot be
evaluated and a spread (``...base``) are left out and listed by ``skipped``.
``list`` yields the elements' values (of ``new Set([...])`` too); a spread, a
nested literal or an element without a value is left out and listed.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.config.selectors import key_path
from driftguard.config.specs import Constant, ListOf, MapKeys
from driftguard.model import FactNotFound, Item, Kind, Location, Value
from driftguard.sources.typescript.errors import ambiguous, check_hidden, check_path, not_found, word
from driftguard.sources.typescript.evaluate import Evaluator, Missing, Unevaluable, as_value, member_text
from driftguard.sources.typescript.gather import Read, evaluated, outside_nested, scopes_named
from driftguard.sources.typescript.jsops import number_literal
from driftguard.sources.typescript.literal import index_elements
from driftguard.sources.typescript.nodes import CLASSES, callee_matches, key_name, named, short, text, unwrapped
from driftguard.sources.typescript.tree import TsTree

Bound = tuple[Node, Node, str]  # (the declaration holding it, the node reached, the path as written)


def constant(tree: TsTree, sel: Constant) -> list[Item]:
    ev = Evaluator(tree, sel.unwrap)
    owner, _, member = sel.name.partition(".")
    if member and not sel.keys and owner in tree.index.enums and owner not in tree.index.bindings:
        try:
            name_node, js = ev.enum_member(owner, member)
            item = Item(as_value(js, name_node, member_text(name_node)), tree.loc(name_node))
        except Unevaluable as exc:
            raise FactNotFound(f"`{sel.name}` cannot be evaluated: {exc.message}", Location(tree.path)) from None
        check_path(tree, ev.consulted, f"`{sel.name}`")
        return [item]
    holder, node, reached = bound(tree, ev, sel.name, sel.keys, None, properties=False)
    where = f"`{reached}` (line {tree.line(node)})"
    ev.consulted.clear()  # the literals stepped through were checked key by key
    try:
        value = ev.value(node)
    except Unevaluable as exc:
        check_path(tree, ev.consulted, where)
        raise FactNotFound(f"{where} cannot be evaluated: {exc.message}",
                           tree.loc(exc.node if exc.node is not None else node)) from None
    check_path(tree, ev.consulted, where)
    return [Item(value, tree.loc(node))]


def map_keys(tree: TsTree, sel: MapKeys) -> Read:
    ev, obj = _bound_literal(tree, sel, "object")
    items: list[Item] = []
    notes: list[str] = []
    for entry in ev.entries(obj):
        line = tree.line(entry.node)
        if entry.kind == "spread":
            notes.append(f"line {line}: the spread `{short(entry.node, 40)}`: its keys are not read; left out")
        elif entry.name is None:
            notes.append(f"line {line}: the computed key `{short(entry.key, 40)}` cannot be evaluated; left out")
        else:
            assert entry.key is not None
            key = Value(Kind.NUMBER, number_literal(entry.name), entry.name) if entry.key.type == "number" \
                else Value.string(entry.name)
            items.append(Item(key, tree.loc(entry.key)))
    return items, notes


def list_of(tree: TsTree, sel: ListOf) -> Read:
    ev, array = _bound_literal(tree, sel, "array")
    elements = [e for e in index_elements(array) if e is not None]
    spreads = [e for e in elements if e.type == "spread_element"]
    items, notes = evaluated(tree, ev, [e for e in elements if e.type != "spread_element"])
    notes += [f"line {tree.line(s)}: the spread `{short(s, 40)}`: its elements are not read; left out" for s in spreads]
    check_path(tree, ev.consulted, f"`{sel.name}`")
    return items, notes


def _bound_literal(tree: TsTree, sel: MapKeys | ListOf, kind: str) -> tuple[Evaluator, Node]:
    """The evaluator and the object or array literal (``kind``) the selector's name is bound to."""
    name, keys = written(sel.name)
    ev = Evaluator(tree, sel.unwrap)
    _, node, reached = bound(tree, ev, name, keys, sel.within)
    literal = _array(tree, ev, node, reached) if kind == "array" else _literal(tree, ev, node, reached)
    if literal.type != kind:
        raise FactNotFound(f"`{reached}` (line {tree.line(literal)}) is not an {kind} literal: `{short(literal)}`",
                           tree.loc(literal))
    ev.consulted.clear()  # the literals stepped through were checked key by key
    return ev, literal


def _array(tree: TsTree, ev: Evaluator, node: Node, reached: str) -> Node:
    """The array literal ``node`` stands for, read through ``new Set([...])`` too."""
    node = _literal(tree, ev, node, reached)
    if node.type == "new_expression":
        callee = node.child_by_field_name("constructor")
        args = named(node.child_by_field_name("arguments"))
        if callee is not None and callee_matches(callee, "Set") and args:
            return _literal(tree, ev, args[0], reached)
    return node


def _literal(tree: TsTree, ev: Evaluator, node: Node, reached: str) -> Node:
    """What ``node`` stands for, read through names and wrappers; a name that cannot be
    followed is ``FactNotFound`` saying why."""
    try:
        return ev.deref(node)
    except Unevaluable as exc:
        raise FactNotFound(f"`{reached}` cannot be read: {exc.message}",
                           tree.loc(exc.node if exc.node is not None else node)) from None


def written(name: str) -> tuple[str, tuple[str | int, ...]]:
    found = key_path(name)
    return found if found is not None else (name, ())


def bound(tree: TsTree, ev: Evaluator, name: str, keys: tuple[str | int, ...], within: str | None,
          properties: bool = True) -> Bound:
    """(holder, node, path) of the value at ``keys`` inside what ``name`` is bound to."""
    head, *rest = [name] if within else name.split(".")
    holder, node = _head(tree, head, within, properties, name)
    reached = head
    path: list[tuple[str | int, str]] = [(k, f".{k}") for k in rest] + [(k, _written_key(k)) for k in keys]
    if not path:
        check_path(tree, [holder], f"`{name}`")
    for key, written in path:
        literal = node if node.type in CLASSES else _literal(tree, ev, node, reached)
        try:
            node = ev.step(literal, key)
            if isinstance(key, int):  # an error may shift the elements
                check_path(tree, [literal], f"`{reached}{written}`")
            check_hidden(tree, word(str(key)), [node], f"`{reached}{written}`", within=literal)
        except Missing as exc:
            raise FactNotFound(f"`{reached}` (line {tree.line(exc.node)}) {exc.message}", tree.loc(exc.node)) \
                from None
        except Unevaluable as exc:
            raise FactNotFound(f"`{reached}` cannot be read: {exc.message}",
                               tree.loc(exc.node) if exc.node is not None else Location(tree.path)) from None
        reached += written
    check_path(tree, [node], f"`{reached}`")
    return holder, node, reached


def _written_key(key: str | int) -> str:
    return f'["{key}"]' if isinstance(key, str) else f"[{key}]"


def _head(tree: TsTree, head: str, within: str | None, properties: bool, written: str) -> tuple[Node, Node]:
    """(holder, value node) of the name a path starts with."""
    if within:
        return _local(tree, head, within)
    index = tree.index
    found = index.bindings.get(head, [])
    if len(found) > 1:
        raise ambiguous(tree, f"const {head}", [b.node for b in found])
    if found:
        binding = found[0]
        if binding.value is None:
            raise FactNotFound(f"`{head}` (line {tree.line(binding.node)}) has no value", tree.loc(binding.node))
        return binding.statement, binding.value
    for kind in ("classes", "enums"):
        nodes = getattr(index, kind).get(head, [])
        if nodes and written != head:
            return nodes[0], nodes[0]
    if properties:
        pairs = property_values(tree, tree.root, head)
        if len(pairs) > 1:
            raise ambiguous(tree, f"property {head}", [p for p, _ in pairs])
        if pairs:
            return pairs[0]
    what = f"const {head}" + (" (or a property of that name)" if properties else "")
    if head in index.imports:
        raise FactNotFound(f"`{head}` is imported from '{index.imports[head]}'; read it in that file",
                           Location(tree.path))
    raise not_found(tree, what, head)


def _local(tree: TsTree, head: str, within: str) -> tuple[Node, Node]:
    scopes = scopes_named(tree, within)
    if not scopes:
        raise not_found(tree, f"function or method {within} (to read {head} inside)", within)
    check_path(tree, scopes, f"{head} inside {within}")
    found = []
    for scope in scopes:
        for declarator in tree.nodes(scope, "variable_declarator"):
            ident, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if text(ident) == head and value is not None and outside_nested(declarator, scope):
                found.append((declarator, value))
    if not found:
        found = [p for scope in scopes for p in property_values(tree, scope, head)]
    if not found:
        raise FactNotFound(f"no const or property {head} inside {within}", tree.loc(scopes[0]))
    if len(found) > 1:
        raise ambiguous(tree, f"{head} inside {within}", [n for n, _ in found])
    return found[0]


def property_values(tree: TsTree, scope: Node, name: str) -> list[tuple[Node, Node]]:
    """(pair, value) of every property ``name`` of an object literal inside ``scope``."""
    out = []
    for pair in tree.nodes(scope, "pair"):
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is not None and value is not None and pair.parent is not None and pair.parent.type == "object" \
                and key_name(key) == name:
            out.append((pair, unwrapped(value)))
    return out
