"""What the selectors share: evaluating many nodes into items (leaving out, with a note,
what has no value), finishing a set, and finding the functions ``within`` names.

A set selector returns ``Read``: its items and one note for each thing it saw and
left out (``line 12: `[key]` is a computed key that cannot be evaluated; left
out``); ``extract`` raises when nothing was read and ``skipped`` returns the notes.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.model import FactNotFound, Item, Location
from driftguard.sources import unique_items
from driftguard.sources.typescript.evaluate import Evaluator, Unevaluable
from driftguard.sources.typescript.nodes import CLASSES, FUNCTIONS, enclosing, short, text
from driftguard.sources.typescript.tree import TsTree

Read = tuple[list[Item], list[str]]

_CALLABLE_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


def evaluated(tree: TsTree, ev: Evaluator, nodes: list[Node], label: str = "", who: str = "") -> Read:
    """Each node's value as an item at the node; one that does not evaluate is left out
    with a note (``who (line N)`` names it, else its text)."""
    items: list[Item] = []
    notes: list[str] = []
    for node in nodes:
        try:
            items.append(Item(ev.value(node), tree.loc(node), label=label))
        except Unevaluable as exc:
            named_as = f"{who} (line {tree.line(node)}): `{short(node, 40)}`" if who else \
                f"line {tree.line(node)}: `{short(node, 50)}`"
            notes.append(f"{named_as} has no value ({reason(exc, node)}); left out")
    return items, notes


def reason(exc: Unevaluable, node: Node) -> str:
    """Why ``node`` has no value, without repeating its text."""
    message = exc.message
    prefix = f"`{short(node)}` "
    same = exc.node is None or exc.node == node
    return message[len(prefix):] if same and message.startswith(prefix) else message


def finish(read: Read, what: str, where: Location, unique: bool = True) -> list[Item]:
    """The items of a set, each value once (unless ``unique`` is off: a map's entries);
    none is ``FactNotFound`` saying what was left out."""
    items, notes = read
    if not items:
        detail = f": {'; '.join(notes[:5])}" if notes else ""
        raise FactNotFound(f"{what} has no member with a value{detail}", where)
    return unique_items(items) if unique else items


def scopes_named(tree: TsTree, within: str) -> list[Node]:
    """The functions, methods and classes ``within`` names: ``Class.method``, or a bare
    name (a function, a const bound to a function, a method of any class, a class)."""
    owner, _, name = within.rpartition(".")
    found = []
    for node in tree.nodes(tree.root, "function_declaration", "generator_function_declaration", "method_definition",
                           "variable_declarator", "class_declaration", "abstract_class_declaration"):
        if node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is None or value.type not in _CALLABLE_VALUES:
                continue
        if text(node.child_by_field_name("name")) != name:
            continue
        if owner and class_name(enclosing(node, CLASSES)) != owner:
            continue
        found.append(node)
    return found


def class_name(node: Node | None) -> str:
    """The name of a class declaration, or of the const a class expression is bound to."""
    if node is None:
        return ""
    name = node.child_by_field_name("name")
    if name is not None:
        return text(name)
    parent = node.parent
    return text(parent.child_by_field_name("name")) if parent is not None and parent.type == "variable_declarator" \
        else ""


def function_of(scope: Node) -> Node:
    """The function node a scope found by ``scopes_named`` stands for (a const's arrow function)."""
    if scope.type == "variable_declarator":
        value = scope.child_by_field_name("value")
        if value is not None:
            return value
    return scope


def outside_nested(node: Node, scope: Node) -> bool:
    """Whether ``node`` lies in ``scope`` itself, not in a function or class nested in it."""
    parent = node.parent
    body = function_of(scope)
    while parent is not None and parent != body and parent != scope:
        if parent.type in FUNCTIONS or parent.type in CLASSES:
            return False
        parent = parent.parent
    return True
