"""The ``env`` selector: the environment variables a file reads.

A read is ``process.env.X``, ``process.env['X']`` (a key that is a const of the
file counts), ``process.env?.X``, ``import.meta.env.X`` and
``import.meta.env['X']``, and each name an object destructuring of
``process.env`` or ``import.meta.env`` binds (``const { PORT, HOST: host =
'localhost' } = process.env``). An assignment to the variable
(``process.env.X = ...``) and a ``delete`` are writes, not reads; they and a
key that is no constant are left out and listed by ``skipped``. Each name is
read once, at its first read.

With ``defaults: true`` the fact maps each name to the value the code falls
back to when the variable is unset: the right side of ``??`` or ``||``
(``process.env.PORT ?? 5173``; through a chain of reads,
``process.env.A ?? process.env.B ?? 5173`` gives 5173 to both, and through a
conversion, ``Number(process.env.PORT) || 5173``), or a destructuring default.
A name without one maps to ``""`` and is listed; a name given two different
defaults keeps the first, and the other is listed.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from driftguard.config.specs import Env
from driftguard.model import Item, Value
from driftguard.sources.typescript.errors import check_hidden, check_path, not_found
from driftguard.sources.typescript.evaluate import CONVERSIONS, Evaluator, Unevaluable, scope_consts, unset
from driftguard.sources.typescript.gather import Read
from driftguard.sources.typescript.nodes import WRAPPERS, env_key, field, fold, is_env, key_name, named, short, text
from driftguard.sources.typescript.tree import TsTree

_ENV_WORD = re.compile(rb"\.\s*env\b")

EnvRead = tuple[Node, str, Node | None, Node]  # (the key as written, the name, the default, the read)


def env(tree: TsTree, sel: Env) -> Read:
    notes: list[str] = []
    reads = _reads(tree, sel, notes)
    check_hidden(tree, _ENV_WORD, [read for _, _, _, read in reads], "environment reads")
    if not reads and not notes:
        raise not_found(tree, "read of process.env or import.meta.env")
    check_path(tree, [at for at, _, _, _ in reads], "environment reads")
    items: list[Item] = []
    seen: dict[str, Item] = {}
    for at, name, default, _ in reads:
        if not sel.defaults:
            if name not in seen:
                seen[name] = Item(Value.string(name), tree.loc(at))
                items.append(seen[name])
            continue
        item = _entry(tree, sel, at, name, default)
        first = seen.get(name)
        if first is None:
            seen[name] = item
            items.append(item)
        elif item.value.data != "" and not first.value.same(item.value):
            notes.append(f"line {tree.line(at)}: {name} falls back to `{item.value}` here, to `{first.value}` at "
                         f"line {first.location.line if first.location else '?'}; the first is kept")
    if sel.defaults:
        notes += [f"line {i.location.line if i.location else '?'}: {i.label} has no default; it maps to \"\""
                  for i in items if i.value.data == ""]
    return items, notes


def _entry(tree: TsTree, sel: Env, at: Node, name: str, default: Node | None) -> Item:
    if default is not None:
        ev = Evaluator(tree, sel.unwrap, local=scope_consts(default))
        try:
            return Item(ev.value(default), tree.loc(default), label=name)
        except Unevaluable:
            pass
    return Item(Value.string(""), tree.loc(at), label=name)


def _reads(tree: TsTree, sel: Env, notes: list[str]) -> list[EnvRead]:
    out: list[EnvRead] = []
    ev = Evaluator(tree, sel.unwrap)
    for node in tree.nodes(tree.root, "member_expression", "subscript_expression", "variable_declarator"):
        if node.type == "variable_declarator":
            out += _destructured(node)
            continue
        key = env_key(node)
        if key is None:
            continue
        name = text(key) if node.type == "member_expression" else _key(ev, key)
        written = _written(node)
        if name is None:
            notes.append(f"line {tree.line(node)}: `{short(node, 40)}` reads a name that is no constant; left out")
        elif written:
            notes.append(f"line {tree.line(node)}: `{short(node, 40)}` is {written}, not read; left out")
        else:
            out.append((key, name, fallback(node), node))
    return out


def _key(ev: Evaluator, key: Node) -> str | None:
    try:
        value = ev.eval(key)
    except Unevaluable:
        return None
    return value if isinstance(value, str) else None


def _written(node: Node) -> str:
    parent = node.parent
    if parent is None:
        return ""
    if parent.type in ("assignment_expression", "augmented_assignment_expression") and field(parent, "left") == node:
        return "assigned"
    if parent.type == "unary_expression" and text(field(parent, "operator")) == "delete":
        return "deleted"
    return ""


def _destructured(declarator: Node) -> list[EnvRead]:
    pattern, value = field(declarator, "name"), field(declarator, "value")
    if pattern is None or value is None or pattern.type != "object_pattern" or not is_env(value):
        return []
    out: list[EnvRead] = []
    for part in named(pattern):
        if part.type == "shorthand_property_identifier_pattern":
            out.append((part, text(part), None, declarator))
        elif part.type == "object_assignment_pattern":
            left = field(part, "left")
            if left is not None:
                out.append((left, text(left), field(part, "right"), declarator))
        elif part.type == "pair_pattern":
            key, inner = field(part, "key"), field(part, "value")
            name = key_name(key) if key is not None else None
            if key is not None and name is not None:
                default = field(inner, "right") if inner is not None and inner.type == "assignment_pattern" else None
                out.append((key, name, default, declarator))
    return out


def fallback(node: Node) -> Node | None:
    """The expression the code falls back to when the variable ``node`` reads is unset."""
    current = node
    parent = current.parent
    while parent is not None:
        if parent.type in WRAPPERS:
            pass
        elif parent.type == "binary_expression" and text(field(parent, "operator")) in ("??", "||"):
            right = field(parent, "right")
            if field(parent, "left") == current and right is not None and not unset(right):
                return right
        elif parent.type == "arguments" and parent.parent is not None and \
                fold(field(parent.parent, "function")) in CONVERSIONS:
            parent = parent.parent
        else:
            return None
        current, parent = parent, parent.parent
    return None
