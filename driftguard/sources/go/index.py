"""The Go reader's index of top-level declarations and shape walkers.

The index is built once per tree, in one pass over the top-level nodes: const
and var specs (with Go's implicit repetition applied), functions and methods,
and type names. The shape walkers find switch-case returns, map literal keys
and local map bindings; syntax errors are the business of ``syntax``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter_go
from tree_sitter import Language, Node, Query, QueryCursor

from driftguard.model import AmbiguousFact, FactNotFound, Value
from driftguard.sources.go.evaluate import Evaluator, Unevaluable, fold, named

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

LANGUAGE = Language(tree_sitter_go.language())
CASES = ("expression_case", "type_case")
_QUERIES: dict[str, Query] = {}


@dataclass
class Spec:
    """One name of a const or var spec; ``decl`` is the declaration holding it."""

    name: str
    node: Node
    type: str | None
    expr: Node | None
    iota: int
    decl: Node
    const: bool
    inherited: bool = False  # a bare spec repeating the previous expression


@dataclass
class Index:
    specs: list[Spec] = field(default_factory=list)
    by_name: dict[str, list[Spec]] = field(default_factory=dict)
    funcs: list[tuple[str, str | None, Node]] = field(default_factory=list)  # name, receiver type, node
    types: set[str] = field(default_factory=set)


def build_index(root: Node) -> Index:
    index = Index()
    for node in root.children:
        kind = node.type
        if kind == "const_declaration":
            index.specs += const_specs(node)
        elif kind == "var_declaration":
            index.specs += var_specs(node)
        elif kind == "function_declaration":
            index.funcs.append((text(node.child_by_field_name("name")), None, node))
        elif kind == "method_declaration":
            index.funcs.append((text(node.child_by_field_name("name")), receiver_type(node), node))
        elif kind == "type_declaration":
            index.types.update(text(s.child_by_field_name("name")) for s in named(node))
    for spec in index.specs:
        index.by_name.setdefault(spec.name, []).append(spec)
    return index


def const_specs(decl: Node) -> list[Spec]:
    """The specs of one const declaration; a spec without a value repeats the
    previous spec's type and expressions, with iota incremented."""
    out: list[Spec] = []
    type_: str | None = None
    exprs: list[Node] = []
    for iota, spec in enumerate(c for c in decl.named_children if c.type == "const_spec"):
        value = spec.child_by_field_name("value")
        type_node = spec.child_by_field_name("type")
        inherited = value is None
        if not inherited:
            exprs = named(value)
            type_ = text(type_node) if type_node else None
        elif type_node is not None:
            type_ = text(type_node)
        for i, name in enumerate(_names(spec)):
            expr = exprs[i] if i < len(exprs) else None
            out.append(Spec(text(name), name, type_ or _conversion_type(expr), expr, iota, decl, True, inherited))
    return out


def var_specs(decl: Node) -> list[Spec]:
    specs = [c for c in decl.named_children if c.type == "var_spec"]
    for group in (c for c in decl.named_children if c.type == "var_spec_list"):
        specs += [c for c in group.named_children if c.type == "var_spec"]
    out = []
    for spec in specs:
        exprs = named(spec.child_by_field_name("value"))
        type_node = spec.child_by_field_name("type")
        for i, name in enumerate(_names(spec)):
            expr = exprs[i] if i < len(exprs) else None
            out.append(Spec(text(name), name, text(type_node) if type_node else None, expr, 0, decl, False))
    return out


def _names(spec: Node) -> list[Node]:
    return [n for n in spec.children_by_field_name("name") if n.type == "identifier" and n.text != b"_"]


def _conversion_type(expr: Node | None) -> str | None:
    """``T`` for a spec written ``X = T("x")`` without a declared type."""
    if expr is None or expr.type != "call_expression" or len(named(expr.child_by_field_name("arguments"))) != 1:
        return None
    callee = expr.child_by_field_name("function")
    return text(callee) if callee is not None and callee.type in ("identifier", "selector_expression") else None


def receiver_type(method: Node) -> str:
    """``T`` for a receiver ``(x T)``, ``(x *T)`` or ``(x *T[K])``."""
    params = named(method.child_by_field_name("receiver"))
    type_node = params[0].child_by_field_name("type") if params else None
    return text(type_node).lstrip("*").split("[")[0].strip()


def text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", errors="replace") if node is not None else ""


def type_matches(declared: str | None, wanted: str) -> bool:
    """``SessionState`` matches a declared ``SessionState`` or ``chat.SessionState``."""
    if declared is None:
        return False
    return declared == wanted or ("." not in wanted and declared.rsplit(".", 1)[-1] == wanted)


def nodes_of(node: Node, kinds: tuple[str, ...]) -> list[Node]:
    """Every node of one of ``kinds`` inside ``node``, in source order (a tree-sitter query)."""
    key = " ".join(kinds)
    query = _QUERIES.get(key)
    if query is None:
        query = _QUERIES[key] = Query(LANGUAGE, " ".join(f"({k}) @n" for k in kinds))
    found = QueryCursor(query).captures(node).get("n", [])
    return sorted(found, key=lambda n: n.start_byte)


def top_level(node: Node) -> Node:
    """The top-level declaration holding ``node``."""
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    return node


# -- shapes -----------------------------------------------------------------


def case_returns(body: Node | None) -> list[Node]:
    """The first expression of each return inside a switch case (default cases and
    function literals skipped), and the elements of a ``return [...]string{...}[k]``."""
    out: list[Node] = []
    stack = [(body, False)] if body is not None else []
    while stack:
        node, in_case = stack.pop()
        if node.type == "return_statement":
            exprs = [e for group in named(node) for e in named(group)]
            if exprs and in_case:
                out.append(exprs[0])
            elif exprs and exprs[0].type == "index_expression":
                out += array_elements(exprs[0].child_by_field_name("operand"))
            continue
        for child in reversed(node.named_children):
            if child.type not in ("func_literal", "default_case", "comment"):
                stack.append((child, in_case or child.type in CASES))
    return out


def array_elements(operand: Node | None) -> list[Node]:
    if operand is None or operand.type != "composite_literal":
        return []
    elements = []
    for element in named(operand.child_by_field_name("body")):
        if element.type == "keyed_element":
            element = element.child_by_field_name("value") or element
        elements += named(element) if element.type == "literal_element" else [element]
    return elements


def local_maps(fn: Node, name: str) -> list[tuple[Node, Node]]:
    """(statement, literal) for each ``name := T{...}`` or ``var name = T{...}`` in ``fn``."""
    out = []
    for stmt in nodes_of(fn, ("short_var_declaration", "var_spec")):
        short = stmt.type == "short_var_declaration"
        left = named(stmt.child_by_field_name("left")) if short else stmt.children_by_field_name("name")
        right = named(stmt.child_by_field_name("right" if short else "value"))
        left = [n for n in left if n.type == "identifier"]
        for i, ident in enumerate(left):
            if text(ident) == name and i < len(right) and right[i].type == "composite_literal":
                out.append((stmt, right[i]))
    return out


def map_keys_of(literal: Node) -> list[Node]:
    keys = []
    for element in named(literal.child_by_field_name("body")):
        key = element.child_by_field_name("key") if element.type == "keyed_element" else None
        if key is not None:
            inner = named(key) if key.type == "literal_element" else [key]
            keys += inner[:1]
    return keys


def map_key(ev: Evaluator, node: Node, resolve: bool = False) -> tuple[Node, Value]:
    """A key's value: identifiers give their names, or with ``resolve`` the constants' values."""
    if resolve and node.type == "identifier":
        try:
            return node, ev.value(node)
        except Unevaluable as exc:
            raise FactNotFound(f"map key {text(node)} does not name a constant of this file: {exc}") from None
    if node.type == "identifier":
        return node, Value.string(text(node))
    if node.type == "selector_expression":
        return node, Value.string(text(node.child_by_field_name("field")))
    try:
        return node, ev.value(node)
    except Unevaluable:
        return node, Value.string(fold(node.text))


def ambiguous(tree: GoTree, what: str, nodes: list[Node]) -> AmbiguousFact:
    lines = ", ".join(str(tree.loc(n).line) for n in nodes)
    return AmbiguousFact(f"{what} matches {len(nodes)} places (lines {lines}); narrow the selector",
                         tree.loc(nodes[0]))
