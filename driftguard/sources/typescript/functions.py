"""The selectors that read inside one function: ``default`` and ``cases``.

``default: {function: F, param: p}`` reads the default of parameter ``p`` of
function, method or arrow function ``F`` (``Class.method``; a class's
constructor is ``Class.constructor`` or the class's own name). ``p`` is a
plain parameter (``level = 'info'``), a name inside a destructured one
(``function f({ port = 5173, host: h = 'localhost' } = {})``, where ``host``
is found by its key or its local name), or, failing both, a name an object
destructuring of a parameter at the top of the body gives a default
(``const { prefix = '[vite]' } = options``). Overload signatures are not
functions; two functions of that name are ambiguous.

``cases: {within: F, switch: EXPR}`` reads the labels of the ``switch`` in F
(nested blocks and callbacks included); ``switch`` picks one by the switched
expression's text, whitespace folded, parentheses aside. Each label is
evaluated (``case Mode.Spa:`` gives the member's value); ``default`` and a
label without a value are left out, the latter listed by ``skipped``.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.config.specs import Cases, Default
from driftguard.model import FactNotFound, Item
from driftguard.sources.typescript.errors import ambiguous, check_path, not_found
from driftguard.sources.typescript.evaluate import Evaluator, Unevaluable, scope_consts
from driftguard.sources.typescript.gather import Read, evaluated, function_of, scopes_named
from driftguard.sources.typescript.nodes import CLASSES, fold, key_name, named, short, text, unwrapped
from driftguard.sources.typescript.tree import TsTree

_PARAMETERS = frozenset({"required_parameter", "optional_parameter"})


def default(tree: TsTree, sel: Default) -> list[Item]:
    what = f"parameter {sel.param} of {sel.function}"
    function = one_function(tree, sel.function, what)
    params = named(function.child_by_field_name("parameters"))
    found = _in_parameters(params, sel.param) or _in_body(function, params, sel.param)
    if found is None:
        listed = ", ".join(n for p in params for n in _names(p)) or "none"
        raise FactNotFound(f"{sel.function} (line {tree.line(function)}) has no parameter {sel.param} "
                           f"(its parameters: {listed})", tree.loc(function))
    name_node, value = found
    if value is None:
        raise FactNotFound(f"{what} (line {tree.line(name_node)}) has no default", tree.loc(name_node))
    ev = Evaluator(tree, sel.unwrap, local=scope_consts(function))
    try:
        item = Item(ev.value(value), tree.loc(value))
    except Unevaluable as exc:
        check_path(tree, ev.consulted, what)
        raise FactNotFound(f"the default of {what} (line {tree.line(value)}) cannot be evaluated: "
                           f"{exc.message}", tree.loc(value)) from None
    check_path(tree, ev.consulted, what)
    return [item]


def one_function(tree: TsTree, name: str, what: str) -> Node:
    """The one function, method or constructor ``name`` names, checked for syntax errors."""
    found = []
    for scope in scopes_named(tree, name):
        if scope.type in CLASSES:
            scope = _constructor(scope) or scope
        function = function_of(scope)
        if function.child_by_field_name("parameters") is not None and function not in found:
            found.append(function)
    if not found:
        raise not_found(tree, f"function or method {name} (looked for the {what})", name)
    if len(found) > 1:
        raise ambiguous(tree, f"function {name}", found)
    check_path(tree, found, what)
    return found[0]


def _constructor(cls: Node) -> Node | None:
    if cls.type not in CLASSES:
        return None
    body = cls.child_by_field_name("body")
    return next((m for m in named(body) if m.type == "method_definition"
                 and text(m.child_by_field_name("name")) == "constructor"), None)


def _in_parameters(params: list[Node], wanted: str) -> tuple[Node, Node | None] | None:
    for param in params:
        pattern, value = param, None
        if param.type in _PARAMETERS:
            pattern, value = param.child_by_field_name("pattern") or param, param.child_by_field_name("value")
        elif param.type == "assignment_pattern":
            pattern, value = param.child_by_field_name("left") or param, param.child_by_field_name("right")
        if pattern.type == "identifier" and text(pattern) == wanted:
            return pattern, value
        found = _destructured(pattern, wanted)
        if found is not None:
            return found
    return None


def _destructured(pattern: Node, wanted: str) -> tuple[Node, Node | None] | None:
    """(name, default) of ``wanted`` inside an object pattern, by key or local name."""
    if pattern.type != "object_pattern":
        return None
    for part in named(pattern):
        if part.type == "object_assignment_pattern":
            left = part.child_by_field_name("left")
            if left is not None and text(left) == wanted:
                return left, part.child_by_field_name("right")
        elif part.type == "shorthand_property_identifier_pattern" and text(part) == wanted:
            return part, None
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is None or value is None:
                continue
            inner, default_value = value, None
            if value.type == "assignment_pattern":
                inner, default_value = value.child_by_field_name("left") or value, value.child_by_field_name("right")
            if key_name(key) == wanted or inner.type == "identifier" and text(inner) == wanted:
                return key, default_value
            found = _destructured(inner, wanted)
            if found is not None:
                return found
    return None


def _in_body(function: Node, params: list[Node], wanted: str) -> tuple[Node, Node | None] | None:
    """``const { wanted = x } = param`` among the statements at the top of the body."""
    names = {n for p in params for n in _names(p)}
    body = function.child_by_field_name("body")
    for statement in named(body) if body is not None and body.type == "statement_block" else []:
        if statement.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in named(statement):
            pattern, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if pattern is not None and value is not None and text(unwrapped(value)) in names:
                found = _destructured(pattern, wanted)
                if found is not None and found[1] is not None:
                    return found
    return None


def _names(param: Node) -> list[str]:
    """The names a parameter binds at its top: ``x``, or the keys of ``{a, b}``."""
    pattern = param.child_by_field_name("pattern") or param.child_by_field_name("left") or param
    if pattern.type == "assignment_pattern":
        pattern = pattern.child_by_field_name("left") or pattern
    if pattern.type == "identifier":
        return [text(pattern)]
    if pattern.type == "object_pattern":
        out = []
        for part in named(pattern):
            key = part.child_by_field_name("left") or part.child_by_field_name("key") or part
            out.append(text(key))
        return out
    return []


# -- cases ----------------------------------------------------------------------


def cases(tree: TsTree, sel: Cases) -> Read:
    switch = one_switch(tree, sel)
    labels = [c.child_by_field_name("value") for c in named(switch.child_by_field_name("body"))
              if c.type == "switch_case"]
    ev = Evaluator(tree, sel.unwrap, local=scope_consts(switch))
    items, notes = evaluated(tree, ev, [label for label in labels if label is not None])
    check_path(tree, ev.consulted, f"the switch in {sel.within}")
    return items, notes


def one_switch(tree: TsTree, sel: Cases) -> Node:
    what = f"switch in {sel.within}" + (f" on `{sel.switch}`" if sel.switch else "")
    scopes = scopes_named(tree, sel.within)
    if not scopes:
        raise not_found(tree, f"function or method {sel.within} (looked for the {what})", sel.within)
    check_path(tree, scopes, what)
    switches = [s for scope in scopes for s in tree.nodes(scope, "switch_statement")]
    if sel.switch:
        wanted = " ".join(sel.switch.split())
        switches = [s for s in switches if _switched(s) in (wanted, wanted.strip("()"))]
    if not switches:
        raise FactNotFound(f"no {what}", tree.loc(scopes[0]))
    if len(switches) > 1:
        shown = ", ".join(f"`{_switched(s)}`" for s in switches[:5])
        raise ambiguous(tree, f"{what} (switches on {shown}; pick one with `switch:`)", switches)
    check_path(tree, switches, what)
    return switches[0]


def _switched(switch: Node) -> str:
    value = switch.child_by_field_name("value")
    return fold(unwrapped(value)) if value is not None else short(switch)
