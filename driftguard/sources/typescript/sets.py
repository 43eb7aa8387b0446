"""The set selectors on declarations: ``constants``, ``fields`` and ``classes``.

``constants: {type: T}`` reads, the first that the file declares:

- the members of enum ``T`` (every ``enum T`` of the file): a string or number
  initializer, evaluated with the members before it in scope, or the previous
  number plus one (``values: names`` gives the member names);
- the values of the object literal bound to the const ``T`` (``as const``,
  ``Object.freeze(...)`` and ``satisfies`` read through; ``values: names``
  gives the keys), a value that is no constant (a nested object, a function)
  left out and listed by ``skipped``;
- the literal members of the union type ``T`` (``'spa' | 'mpa' | 3``,
  parenthesized unions flattened); a member that is another type
  (``LogType | 'silent'``) or a template literal type is not a literal: left
  out and listed.

With ``name: REGEX`` beside ``type`` only the members (or keys) whose names
match are read; alone, it reads the top-level consts whose names match, each
evaluated (one without a value is left out and listed).

``fields: {type: T}`` reads the properties of interface ``T`` (every
declaration of it), of type alias ``T`` of an object type (the object parts of
an intersection), or of class ``T``: its instance fields and its constructor's
parameter properties (``constructor(public port: number)``). Methods,
accessors, index and call signatures, static and ``#private`` fields, and the
members of the types ``T`` extends are left out and listed by ``skipped``.

``classes: {base: X}`` reads every class of the file that extends ``X`` (its
whole name, or its last part: ``errors.HttpError`` is ``HttpError``), directly
or through another class of the file; a class expression bound to a const takes
the const's name, an anonymous class is left out and listed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tree_sitter import Node

from driftguard.config.specs import Classes, Constants, Fields
from driftguard.model import ConfigError, FactNotFound, Item, Location, Value
from driftguard.sources.typescript.errors import check_hidden, check_path, not_found
from driftguard.sources.typescript.evaluate import Evaluator, Unevaluable, as_value, member_text
from driftguard.sources.typescript.gather import Read, class_name, evaluated, reason
from driftguard.sources.typescript.nodes import CLASSES, key_name, named, short, text, unwrapped
from driftguard.sources.typescript.tree import TsTree
from driftguard.user_regex import Compiled, compile_user_regex, search_each

_IDENT = re.compile(rb"[A-Za-z_$][\w$]*")
_CLASS = re.compile(rb"\bclass\b")
_LITERAL_TYPES = frozenset({"string", "number", "true", "false", "unary_expression"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})
_LEFT_OUT = {"method_signature": "method", "method_definition": "method", "index_signature": "index signature",
             "call_signature": "call signature", "construct_signature": "construct signature",
             "abstract_method_signature": "method"}


def constants(tree: TsTree, sel: Constants) -> Read:
    pattern = compile_user_regex(sel.name, Location(tree.path), what="name pattern") if sel.name else None
    if not sel.type:
        assert pattern is not None  # the config requires type or name
        return _named(tree, sel, pattern)
    ev = Evaluator(tree, sel.unwrap)
    index = tree.index
    if sel.type in index.enums:
        read = _enum(tree, ev, sel)
    elif (obj := _const_object(ev, sel.type)) is not None:
        check_path(tree, [obj], f"const {sel.type}")
        read = _object(tree, ev, obj, sel)
    elif sel.type in index.aliases:
        read = _union(tree, sel)
    else:
        raise not_found(tree, f"enum, const object or union type {sel.type}", sel.type)
    items, notes = read
    if pattern is not None:
        hits = search_each(pattern, [i.label for i in items], Location(tree.path))
        items = [i for i, hit in zip(items, hits) if hit]
    return [replace(i, label="") for i in items], notes


def _const_object(ev: Evaluator, name: str) -> Node | None:
    """The object literal the const ``name`` is bound to, or None."""
    binding = ev.tree.index.const(name)
    if binding is None or binding.value is None:
        return None
    try:
        found = ev.deref(binding.value)
    except Unevaluable:
        return None
    return found if found.type == "object" else None


def _enum(tree: TsTree, ev: Evaluator, sel: Constants) -> Read:
    items: list[Item] = []
    notes: list[str] = []
    for enum in tree.index.enums[str(sel.type)]:
        check_path(tree, [enum], f"enum {sel.type}")
        for name_node, name, js in ev.enum_values(enum):
            if sel.values == "names":
                items.append(Item(Value.string(name), tree.loc(name_node), label=name))
            elif isinstance(js, Unevaluable):
                notes.append(f"member {name} (line {tree.line(name_node)}): {reason(js, name_node)}; left out")
            else:
                try:
                    items.append(Item(as_value(js, name_node, member_text(name_node)), tree.loc(name_node),
                                      label=name))
                except Unevaluable as exc:
                    notes.append(f"member {name} (line {tree.line(name_node)}): {exc.message}; left out")
    return items, notes


def _object(tree: TsTree, ev: Evaluator, obj: Node, sel: Constants) -> Read:
    items: list[Item] = []
    notes: list[str] = []
    for entry in ev.entries(obj):
        if entry.name is None or entry.value is None:
            notes.append(f"line {tree.line(entry.node)}: `{short(entry.node, 40)}` has no key to read; left out")
        elif sel.values == "names":
            assert entry.key is not None
            items.append(Item(Value.string(entry.name), tree.loc(entry.key), label=entry.name))
        else:
            found, left = evaluated(tree, ev, [entry.value], label=entry.name, who=f"key {entry.name}")
            items += found
            notes += left
    return items, notes


def _union(tree: TsTree, sel: Constants) -> Read:
    items: list[Item] = []
    notes: list[str] = []
    ev = Evaluator(tree)
    for alias in tree.index.aliases[str(sel.type)]:
        check_path(tree, [alias], f"type {sel.type}")
        value = alias.child_by_field_name("value")
        if value is not None and value.type in ("object_type", "intersection_type"):
            raise FactNotFound(f"type {sel.type} (line {tree.line(alias)}) is an object type, not a union of "
                               "literals; `fields` reads its properties", tree.loc(alias))
        for member in _members(value):
            inner = named(member)
            if member.type == "literal_type" and inner and inner[0].type in _LITERAL_TYPES:
                try:
                    read = ev.value(inner[0])
                    items.append(Item(read, tree.loc(inner[0]), label=str(read.data)))
                    continue
                except Unevaluable:
                    pass
            notes.append(f"line {tree.line(member)}: `{short(member, 40)}` is not a literal type; left out")
    return items, notes


def _members(node: Node | None) -> list[Node]:
    """The members of a union type, nested and parenthesized unions flattened."""
    out: list[Node] = []
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if current.type in ("union_type", "parenthesized_type"):
            stack.extend(reversed(named(current)))
        else:
            out.append(current)
    return out


def _named(tree: TsTree, sel: Constants, pattern: Compiled[str]) -> Read:
    names = [n for n, found in tree.index.bindings.items() if any(b.keyword == "const" for b in found)]
    hits = search_each(pattern, names, Location(tree.path))
    bindings = [b for n, hit in zip(names, hits) if hit for b in tree.index.bindings[n] if b.keyword == "const"]
    def matches(written: bytes) -> bool:
        return any(search_each(pattern, [written.decode("utf-8", errors="replace")], Location(tree.path)))

    check_hidden(tree, _IDENT, [b.node for b in bindings], f"consts named /{sel.name}/", matches)
    if not bindings:
        raise not_found(tree, f"const named /{sel.name}/")
    check_path(tree, [b.statement for b in bindings], f"consts named /{sel.name}/")
    if sel.values == "names":
        return [Item(Value.string(b.name), tree.loc(b.node)) for b in bindings], []
    ev = Evaluator(tree, sel.unwrap)
    items: list[Item] = []
    notes: list[str] = []
    for b in bindings:
        if b.value is None:
            notes.append(f"const {b.name} (line {tree.line(b.node)}) has no value; left out")
            continue
        found, left = evaluated(tree, ev, [b.value], who=f"const {b.name}")
        items += found
        notes += left
    return items, notes


# -- fields ---------------------------------------------------------------------


def fields(tree: TsTree, sel: Fields) -> Read:
    if sel.tag:
        raise ConfigError(f"{tree.path}: `tag: {sel.tag}` reads Go struct tags; a TypeScript field has none",
                          Location(tree.path))
    index = tree.index
    owners = index.interfaces.get(sel.type) or [a for a in index.aliases.get(sel.type, [])] \
        or index.classes.get(sel.type, [])
    if not owners:
        raise not_found(tree, f"interface, type or class {sel.type}", sel.type)
    check_path(tree, owners, f"the fields of {sel.type}")
    items: list[Item] = []
    notes: list[str] = []
    for owner in owners:
        for clause in (c for c in named(owner) if c.type in ("extends_type_clause", "class_heritage")):
            notes.append(f"line {tree.line(clause)}: `{short(clause, 40)}`: the fields it brings are not read")
        for body in _bodies(owner, notes, tree):
            for member in named(body):
                _member(tree, member, items, notes)
    return items, notes


def _bodies(owner: Node, notes: list[str], tree: TsTree) -> list[Node]:
    body = owner.child_by_field_name("body") or owner.child_by_field_name("value")
    if body is None:
        return []
    if body.type == "intersection_type":
        parts = named(body)
        notes += [f"line {tree.line(p)}: `{short(p, 40)}`: the fields it brings are not read" for p in parts
                  if p.type != "object_type"]
        return [p for p in parts if p.type == "object_type"]
    return [body] if body.type in ("interface_body", "object_type", "class_body") else []


def _member(tree: TsTree, member: Node, items: list[Item], notes: list[str]) -> None:
    kind = member.type
    name_node = member.child_by_field_name("name") or member.child_by_field_name("property")
    name = key_name(name_node) if name_node is not None else None
    if kind == "method_definition" and name == "constructor":
        for param in named(member.child_by_field_name("parameters")):
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier" and any(
                    c.type in ("accessibility_modifier", "readonly", "override_modifier") for c in param.children):
                items.append(Item(Value.string(text(pattern)), tree.loc(pattern)))
        return
    if kind in ("property_signature", *_FIELDS) and name is not None:
        static = any(c.type == "static" for c in member.children)
        if static or name.startswith("#"):
            notes.append(f"line {tree.line(member)}: {'static' if static else 'private'} field {name} left out")
        else:
            items.append(Item(Value.string(name), tree.loc(name_node or member)))
    elif kind in _LEFT_OUT:
        notes.append(f"line {tree.line(member)}: {_LEFT_OUT[kind]} `{short(member, 40)}` left out")


# -- classes --------------------------------------------------------------------


def classes(tree: TsTree, sel: Classes) -> Read:
    found: list[tuple[Node, str, str]] = []  # (class, name, base)
    notes: list[str] = []
    nodes = tree.nodes(tree.root, "class_declaration", "abstract_class_declaration", "class")
    check_hidden(tree, _CLASS, nodes, f"classes extending {sel.base}")
    for node in nodes:
        base = base_of(node)
        if base:
            found.append((node, class_name(node), base))
    derived = {sel.base, sel.base.rsplit(".", 1)[-1]}
    members: list[tuple[Node, str]] = []
    changed = True
    while changed:
        changed = False
        for node, name, base in found:
            if (base in derived or base.rsplit(".", 1)[-1] in derived) and all(node != m for m, _ in members):
                members.append((node, name))
                derived.add(name or "(anonymous)")
                changed = True
    items = []
    for node, name in sorted(members, key=lambda m: m[0].start_byte):
        check_path(tree, [node], f"class {name or '(anonymous)'}")
        if not name:
            notes.append(f"line {tree.line(node)}: an anonymous class extends {base_of(node)}; left out")
            continue
        items.append(Item(Value.string(name), tree.loc(_name_node(node))))
    return items, notes


def _name_node(cls: Node) -> Node:
    """The name of a class declaration, or of the const a class expression is bound to."""
    name = cls.child_by_field_name("name")
    parent = cls.parent
    if name is None and parent is not None and parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
    return name or cls


def base_of(cls: Node) -> str:
    """The class ``cls`` extends, as written without type arguments (empty for none)."""
    heritage = next((c for c in named(cls) if c.type == "class_heritage"), None)
    if heritage is None:
        return ""
    clause = next((c for c in named(heritage) if c.type == "extends_clause"), None)
    parts = named(heritage)
    value = clause.child_by_field_name("value") if clause is not None else parts[0] if parts else None
    return text(unwrapped(value)) if value is not None and value.type != "call_expression" else ""


__all__ = ["CLASSES", "base_of", "classes", "constants", "fields"]
