"""The values the evaluator gives, and what it asks of the tree around an expression:
``Unevaluable`` with its reason, a JavaScript value as a typed ``Value``, an
enum member's written value, whether an expression reads the environment, and
the consts of the blocks around a node.
"""

from __future__ import annotations

import math

from tree_sitter import Node

from driftguard.model import Kind, Value
from driftguard.sources.typescript.jsops import Js
from driftguard.sources.typescript.nodes import env_key, fold, named, short, text, unwrapped


class Unevaluable(Exception):
    """An expression driftguard cannot evaluate; ``node`` is the part that failed."""

    def __init__(self, message: str, node: Node | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def as_value(js: Js, node: Node, shown: str | None = None) -> Value:
    """``js`` as a typed value read at ``node``, written as ``shown`` (default: the node's
    folded text; empty: the value's own spelling)."""
    shown = fold(node) if shown is None else shown
    if js is None:
        raise Unevaluable(f"`{short(node)}` is null or undefined, which is no value to compare", node)
    if isinstance(js, bool):
        return Value(Kind.BOOL, js, shown)
    if isinstance(js, (int, float)):
        if isinstance(js, float) and not math.isfinite(js):
            raise Unevaluable(f"`{short(node)}` is not a finite number", node)
        return Value(Kind.NUMBER, js, shown)
    return Value(Kind.STRING, js, shown)


def unset(node: Node) -> bool:
    """Whether ``node`` is an environment read, or a chain of them (``a ?? b``), whose
    value is not known before the program runs."""
    node = unwrapped(node)
    if env_key(node) is not None:
        return True
    if node.type == "binary_expression" and text(node.child_by_field_name("operator")) in ("??", "||"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return left is not None and right is not None and unset(left) and unset(right)
    return False


def scope_consts(node: Node) -> dict[str, Node]:
    """The consts declared in the blocks around ``node`` (the innermost first), name -> value."""
    out: dict[str, Node] = {}
    parent = node.parent
    while parent is not None and parent.type != "program":
        if parent.type in ("statement_block", "class_static_block", "switch_case"):
            for statement in named(parent):
                if statement.type == "lexical_declaration" and text(statement.child_by_field_name("kind")) == "const":
                    for declarator in named(statement):
                        ident, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                        if ident is not None and ident.type == "identifier" and value is not None:
                            out.setdefault(text(ident), value)
        parent = parent.parent
    return out


def member_text(name_node: Node) -> str:
    """How an enum member's value is written: its initializer, or nothing (an implicit number)."""
    parent = name_node.parent
    value = parent.child_by_field_name("value") if parent is not None and parent.type == "enum_assignment" else None
    return fold(value) if value is not None else ""
