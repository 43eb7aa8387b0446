"""The ``call`` and ``calls`` selectors: an argument of the calls of a function.

A call matches when its callee's whole text (``cli.option``, whitespace
folded) or its last part (``option``) is ``function``; ``new Option(...)``
is a call of ``Option``. ``within`` limits the search to a function, method or
class (``Class.method`` or a bare name; a const bound to an arrow function is a
function), nested functions included; ``where`` keeps the calls whose argument
N has exactly that source text, whitespace folded.

``arg`` is a position from 0, or a name: the property of that name of the
first object literal argument that has it (``fetch(url, {method: 'POST'})``
with ``arg: method``). ``path`` then reads inside the literal
(``defineConfig({server: {port: 5173}})`` with ``path: 'server["port"]'``).
A call without that argument does not match. The argument is evaluated with
the consts of the blocks around the call and of the file in scope.

``call`` takes the one match (two are ambiguous); ``calls`` takes each match's
value once, in source order, leaving out (and listing in ``skipped``) a call
whose argument has no value.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from driftguard.config.specs import Call, Calls
from driftguard.model import FactNotFound, Item
from driftguard.sources.typescript.errors import ambiguous, check_hidden, check_path, not_found, word
from driftguard.sources.typescript.evaluate import Evaluator, Missing, Unevaluable, scope_consts
from driftguard.sources.typescript.gather import Read, reason, scopes_named
from driftguard.sources.typescript.literal import entries
from driftguard.sources.typescript.nodes import callee_matches, fold, named, short, unwrapped
from driftguard.sources.typescript.tree import TsTree


def call(tree: TsTree, sel: Call) -> list[Item]:
    what = describe(sel)
    matches = matching_calls(tree, sel)
    if len(matches) > 1:
        raise ambiguous(tree, what, [c for c, _ in matches])
    found, node = matches[0]
    try:
        return [_argument(tree, found, node, sel)]
    except Unevaluable as exc:
        raise FactNotFound(f"the {what} at line {tree.line(found)}: argument `{short(node)}` has no value "
                           f"({reason(exc, node)})", tree.loc(node)) from None


def calls(tree: TsTree, sel: Calls) -> Read:
    items: list[Item] = []
    notes: list[str] = []
    for found, node in matching_calls(tree, sel):
        try:
            items.append(_argument(tree, found, node, sel))
        except Unevaluable as exc:
            notes.append(f"line {tree.line(node)}: argument {_arg(sel)} `{short(node, 40)}` of "
                         f"`{short(found, 40)}` is not a literal ({reason(exc, node)}); left out")
    return items, notes


def _argument(tree: TsTree, found: Node, node: Node, sel: Call | Calls) -> Item:
    ev = Evaluator(tree, sel.unwrap, local=scope_consts(found))
    reached = _arg(sel)
    for key in sel.path:
        try:
            node = ev.step(node, key)
        except Missing as exc:
            raise Unevaluable(f"`{reached}` (line {tree.line(exc.node)}) {exc.message}", exc.node) from None
        reached += f'["{key}"]' if isinstance(key, str) else f"[{key}]"
    value = ev.value(node)
    check_path(tree, ev.consulted, describe(sel))
    return Item(value, tree.loc(node))


def matching_calls(tree: TsTree, sel: Call | Calls) -> list[tuple[Node, Node]]:
    """(call, argument) of each call ``sel`` selects, in source order; none is
    ``FactNotFound`` (naming ``within`` when that is what is missing)."""
    what = describe(sel)
    scopes = [tree.root]
    if sel.within:
        scopes = scopes_named(tree, sel.within)
        if not scopes:
            raise not_found(tree, f"function, method or class {sel.within} (looked for the {what})", sel.within)
        check_path(tree, scopes, what)
    found = []
    for scope in scopes:
        for node in tree.nodes(scope, "call_expression", "new_expression"):
            arg = _match(node, sel)
            if arg is not None:
                found.append((node, arg))
    if not sel.within:
        check_hidden(tree, re.compile(word(sel.function).pattern + rb"\s*[(<]"), [c for c, _ in found], what)
    if not found:
        raise not_found(tree, what, sel.function)
    check_path(tree, [c for c, _ in found], what)
    return found


def _match(node: Node, sel: Call | Calls) -> Node | None:
    """The argument ``sel`` reads of ``node``, when ``node`` is a call it selects."""
    callee = node.child_by_field_name("function" if node.type == "call_expression" else "constructor")
    arguments = node.child_by_field_name("arguments")
    if callee is None or arguments is None or arguments.type != "arguments" or not callee_matches(callee,
                                                                                                 sel.function):
        return None
    args = named(arguments)
    if not all(n < len(args) and fold(args[n]) == " ".join(want.split()) for n, want in sel.where):
        return None
    if isinstance(sel.arg, int):
        return args[sel.arg] if sel.arg < len(args) else None
    for arg in args:
        literal = unwrapped(arg)
        if literal.type == "object":
            hit = [e.value for e in entries(literal, _uncomputed) if e.name == sel.arg and e.value is not None]
            if hit:
                return hit[-1]
    return None


def _uncomputed(key: Node) -> None:
    return None


def _arg(sel: Call | Calls) -> str:
    return f"arg{sel.arg}" if isinstance(sel.arg, int) else sel.arg


def describe(sel: Call | Calls) -> str:
    parts = [f"call of {sel.function}"]
    if sel.within:
        parts.append(f"within {sel.within}")
    parts += [f"with arg{n} `{want}`" for n, want in sel.where]
    return " ".join(parts) + f" (reading {_arg(sel)})"
