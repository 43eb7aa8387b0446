"""The ``default`` selector: the default of one parameter of a function, method or constructor.

``function`` names a function (``request``), a method (``Client.send``), a
constructor (``Client.__init__``) or a class alone (``Client``: its
``__init__``). A class without an ``__init__`` of its own gives the default of
its field ``param`` (a dataclass, attrs class, pydantic model or NamedTuple:
``port: int = 8080``, ``field(default=8080)``, ``Field(8080)``; see ``fields``).
Positional, positional-only and keyword-only parameters are all read.

Definitions decorated ``@overload`` declare no default the code runs, and are
left out; when more than one definition remains (a function defined in both
branches of an ``if``), the fact is ambiguous.

The default is evaluated as any value is: through the constants of the file (a
method's defaults see its class body first, as Python evaluates them there),
the conversions and the fact's ``unwrap:``. ``None`` is no value to compare, and
neither is an object built by a call: ``timeout=DEFAULT_TIMEOUT_CONFIG`` with
``DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)`` is refused with a message
naming the call to read instead (``call: {function: Timeout, arg: timeout}``). A
name imported from another module is named with its origin
(``._config.DEFAULT_MAX_REDIRECTS``), so the fact can point at that file.
"""

from __future__ import annotations

import libcst as cst

from driftguard.config.specs import Default
from driftguard.model import FactNotFound, Item, Location, ParseError
from driftguard.sources.python.evaluate import EvalError, GaveUp, dotted_name, last_name
from driftguard.sources.python.fields import record_fields
from driftguard.sources.python.lookups import ambiguous
from driftguard.sources.python.tree import PyTree

__all__ = ["default", "default_node", "parameters"]


def default(tree: PyTree, sel: Default) -> list[Item]:
    node, klass, where = default_node(tree, sel)
    try:
        value = tree.names.evaluate(node, klass)
    except GaveUp as exc:
        raise ParseError(f"driftguard gives up on {where}: {exc}", tree.location(node)) from None
    except EvalError as exc:
        why = _why(tree, node, klass, exc)
        raise FactNotFound(f"{where} cannot be evaluated: {why}", tree.location(node)) from None
    return [Item(value, tree.location(node))]


def default_node(tree: PyTree, sel: Default) -> tuple[cst.BaseExpression, cst.ClassDef | None, str]:
    """The default expression, the class it is evaluated in, and how messages name it."""
    functions = _definitions(tree, sel.function)
    if functions:
        function = _one(tree, functions, sel.function)
        params = parameters(function)
        param = next((p for p in params if p.name.value == sel.param), None)
        if param is None:
            listed = ", ".join(p.name.value for p in params if p.name.value not in ("self", "cls")) or "none"
            raise FactNotFound(f"{sel.function} (line {tree.line(function.name)}) has no parameter {sel.param} "
                               f"(its parameters: {listed})", tree.location(function.name))
        where = f"the default of {sel.param} of {sel.function} (line {tree.line(param.name)})"
        if param.default is None:
            raise FactNotFound(f"parameter {sel.param} of {sel.function} (line {tree.line(param.name)}) has no default",
                               tree.location(param.name))
        return _checked(tree, param.default, where), tree.owner(function), where
    return _field_default(tree, sel)


def parameters(function: cst.FunctionDef) -> list[cst.Param]:
    """Every named parameter, in order: positional-only, positional, keyword-only."""
    p = function.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _definitions(tree: PyTree, name: str) -> list[cst.FunctionDef]:
    """The definitions ``name`` names, ``@overload`` stubs left out; a class's ``__init__`` for a class."""
    found = tree.functions(name) or (tree.functions(f"{name}.__init__") if tree.classes(name) else [])
    return [f for f in found if not any(last_name(d.decorator) == "overload" for d in f.decorators)]


def _one(tree: PyTree, functions: list[cst.FunctionDef], name: str) -> cst.FunctionDef:
    if len(functions) > 1:
        raise ambiguous(tree, f"{len(functions)} functions are named {name}", [f.name for f in functions])
    return functions[0]


def _field_default(tree: PyTree, sel: Default) -> tuple[cst.BaseExpression, cst.ClassDef | None, str]:
    classes = tree.classes(sel.function)
    if not classes:
        raise FactNotFound(f"no function, method or class {sel.function}", Location(tree.path))
    if len(classes) > 1:
        raise ambiguous(tree, f"{len(classes)} classes are named {sel.function}", [c.name for c in classes])
    klass = classes[0]
    fields, _ = record_fields(tree, klass)
    field = next((f for f in fields if f.name == sel.param), None)
    if field is None:
        listed = ", ".join(f.name for f in fields) or "none"
        raise FactNotFound(f"class {sel.function} (line {tree.line(klass.name)}) has no __init__ and no field "
                           f"{sel.param} (its fields: {listed})", tree.location(klass.name))
    where = f"the default of field {sel.param} of {sel.function} (line {tree.line(field.node)})"
    if field.default is None:
        raise FactNotFound(f"field {sel.param} of {sel.function} (line {tree.line(field.node)}) has no default "
                           "(a default_factory is none either)", tree.location(field.node))
    return _checked(tree, field.default, where), klass, where


def _checked(tree: PyTree, node: cst.BaseExpression, where: str) -> cst.BaseExpression:
    if isinstance(node, cst.Name) and node.value == "None":
        raise FactNotFound(f"{where} is None, which is no value to compare", tree.location(node))
    return node


def _why(tree: PyTree, node: cst.BaseExpression, klass: cst.ClassDef | None, exc: EvalError) -> str:
    """The evaluator's reason, and for an object built by a call, which call to read instead."""
    seen = 0
    while isinstance(node, (cst.Name, cst.Attribute)) and seen < 20:
        bound = tree.names.scope(klass).get(dotted_name(node) or "", []) or tree.names.scope(None).get(
            dotted_name(node) or "", [])
        if len(bound) != 1 or bound[0].value is None:
            break
        node, seen = bound[0].value, seen + 1
    if isinstance(node, cst.Call) and seen:
        callee = dotted_name(node.func) or tree.module.code_for_node(node.func)
        keyword = next((a.keyword.value for a in node.args if a.keyword is not None), None)
        arg = keyword if keyword is not None else 0
        return (f"it is `{' '.join(tree.module.code_for_node(node).split())}` (line {tree.line(node)}), an object "
                f"built by a call; read one of its arguments with `call: {{function: {callee}, arg: {arg}}}`")
    return str(exc)
