"""``constant`` with a key path: one value read out of the literal bound to a name.

``DefaultConfig["Installer"]["MaxWorkers"]`` follows the composite literal
bound to ``var DefaultConfig`` (``Config{...}`` or ``&Config{...}``), or the
one a ``func DefaultConfig()`` returns, key by key, as deep as written: a str
key is a struct field name or a map key (its value, or the constant naming
it), an int key an index of a slice or array literal (``[...]T{2: x}`` too)
or an int map key. A nested literal may elide its type (``{Parallel: true}``).
A key that is not there is ``FactNotFound`` naming the path reached and the
keys found there. ``follow`` walks the same keys inside any literal, such as a
call's argument (``call: {function: New, path: 'Port'}`` reads
``New(Config{Port: 8080})``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import Constant
from driftguard.model import FactNotFound, Item
from driftguard.sources.go.evaluate import Unevaluable, named
from driftguard.sources.go.index import ambiguous, nodes_of, text
from driftguard.sources.go.syntax import check_path, mentioning, not_found
from driftguard.sources.go.values import short, value_of

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

_WRAPPERS = ("parenthesized_expression", "literal_element")


def keyed_constant(tree: GoTree, sel: Constant) -> list[Item]:
    """The value at ``sel.keys`` inside the literal bound to ``sel.name``."""
    holder, node = bound_literal(tree, sel.name)
    check_path(tree, [holder], f"`{sel.written}`")
    node = follow(tree, node, sel.keys, sel.name)
    reached = sel.name + "".join(map(written_key, sel.keys))
    where = f"`{reached}` (line {tree.line(node)})"
    if node.type == "nil":
        raise FactNotFound(f"{where} is nil, which is no value to compare", tree.loc(node))
    return [Item(value_of(tree, node, where), tree.loc(node))]


def written_key(key: str | int) -> str:
    """``["Installer"]`` or ``[0]``, as a path is written."""
    return f'["{key}"]' if isinstance(key, str) else f"[{key}]"


def bound_literal(tree: GoTree, name: str) -> tuple[Node, Node]:
    """(declaration, expression) of the top-level const or var ``name``, else of the
    one composite literal a function ``name`` returns."""
    specs = tree.index.by_name.get(name, [])
    if len(specs) > 1:
        raise ambiguous(tree, f"var {name}", [s.node for s in specs])
    if specs:
        spec = specs[0]
        if spec.expr is None:
            raise FactNotFound(f"`{name}` (line {tree.line(spec.node)}) has no value", tree.loc(spec.node))
        return spec.decl, spec.expr
    funcs = [fn for fname, receiver, fn in tree.index.funcs if fname == name and receiver is None]
    if not funcs:
        raise not_found(tree, f"const, var or func {name}", mentioning(name))
    returned = [e for e in _returns(funcs[0]) if body_of(e) is not None]
    if not returned:
        raise FactNotFound(f"func {name} (line {tree.line(funcs[0])}) returns no composite literal",
                           tree.loc(funcs[0]))
    if len(returned) > 1:
        raise ambiguous(tree, f"composite literal returned by func {name}", returned)
    return funcs[0], returned[0]


def _returns(fn: Node) -> list[Node]:
    """The first expression of each return of ``fn`` itself (not of a function literal in it)."""
    out = []
    for ret in nodes_of(fn, ("return_statement",)):
        inner, node = False, ret.parent
        while node is not None and node != fn:
            inner = inner or node.type == "func_literal"
            node = node.parent
        exprs = [e for group in named(ret) for e in named(group)]
        if exprs and not inner:
            out.append(exprs[0])
    return out


def body_of(node: Node) -> Node | None:
    """The ``{...}`` of a composite literal, through parentheses and ``&``; None for anything else."""
    node = unwrapped(node)
    if node.type == "unary_expression" and text(node.child_by_field_name("operator")) == "&":
        node = unwrapped(node.child_by_field_name("operand") or node)
    if node.type == "composite_literal":
        return node.child_by_field_name("body")
    return node if node.type == "literal_value" else None


def unwrapped(node: Node) -> Node:
    while node.type in _WRAPPERS and len(named(node)) == 1:
        node = named(node)[0]
    return node


def follow(tree: GoTree, node: Node, keys: tuple[str | int, ...], reached: str) -> Node:
    """The expression at ``keys`` inside the literal ``node`` (``reached`` names ``node`` in messages)."""
    for key in keys:
        node = _step(tree, node, key, reached)
        reached += written_key(key)
    return node


def _step(tree: GoTree, node: Node, key: str | int, reached: str) -> Node:
    body = body_of(node)
    if body is None:
        raise FactNotFound(f"`{reached}` (line {tree.line(node)}) is not a composite literal: `{short(node)}`",
                           tree.loc(node))
    elements = named(body)
    keyed = [e for e in elements if e.type == "keyed_element"]
    if isinstance(key, int) and not keyed:
        if not 0 <= key < len(elements):
            raise FactNotFound(f"`{reached}` (line {tree.line(body)}) has no element {key} "
                               f"(it has {len(elements)})", tree.loc(body))
        return unwrapped(elements[key])
    listed = []
    for element in keyed:
        key_node, value = element.child_by_field_name("key"), element.child_by_field_name("value")
        if key_node is None or value is None:
            continue
        names = _key_names(tree, unwrapped(key_node))
        if key in names:
            return unwrapped(value)
        listed.append(str(names[-1]))
    shown = ", ".join(listed) or "none, it is empty"
    raise FactNotFound(f"`{reached}` (line {tree.line(body)}) has no key {written_key(key)[1:-1]} "
                       f"(its keys: {shown})", tree.loc(body))


def _key_names(tree: GoTree, node: Node) -> list[str | int]:
    """What a path may call a key: an identifier's name (a field), and the value it
    evaluates to (a map key, a constant naming one), the last one listed in messages."""
    names: list[str | int] = [text(node)] if node.type == "identifier" else []
    try:
        data = tree.evaluator().eval(node).x
    except Unevaluable:
        return names or [short(node, 40)]
    if isinstance(data, (str, int)) and not isinstance(data, bool):
        names.append(data)
    return names or [short(node, 40)]
