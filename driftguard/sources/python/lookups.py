"""The lookups the Python selectors share: one class, one binding (at the top
level, in a class body, or local to a function), and evaluation of a bound
expression, each raising ``FactNotFound`` / ``AmbiguousFact`` at the file."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from driftguard.model import AmbiguousFact, FactNotFound, Location, ParseError, Value
from driftguard.sources.python.evaluate import EvalError, GaveUp, block_statements, nested_blocks
from driftguard.sources.python.scopes import Binding, bindings
from driftguard.sources.python.tree import PyTree


def evaluate_binding(tree: PyTree, binding: Binding, klass: cst.ClassDef | None, where: str) -> Value:
    """The value bound; ``where`` names it in the message when it cannot be evaluated."""
    try:
        if binding.value is None:
            raise EvalError("it is not a plain assignment")
        return tree.names.evaluate(binding.value, klass)
    except GaveUp as exc:
        raise ParseError(f"driftguard gives up on {where}: {exc}", Location(tree.path)) from None
    except EvalError as exc:
        raise FactNotFound(f"{where} cannot be evaluated: {exc}", Location(tree.path)) from None


def one_class(tree: PyTree, name: str) -> cst.ClassDef:
    found = tree.classes(name)
    if not found:
        raise FactNotFound(f"no class {name}", Location(tree.path))
    if len(found) > 1:
        raise ambiguous(tree, f"{len(found)} classes are named {name}", [c.name for c in found])
    return found[0]


def one_binding(tree: PyTree, name: str) -> tuple[Binding, cst.ClassDef | None]:
    """The single assignment to ``name`` (``Class.NAME`` for a class attribute)."""
    owner, _, attribute = name.rpartition(".")
    klass = one_class(tree, owner) if owner else None
    scope = tree.names.scope(klass)
    found = scope.get(attribute, [])
    if not found:
        where = f"class {owner}" if owner else "the module's top level"
        raise FactNotFound(f"no assignment to {attribute} at {where}", Location(tree.path))
    if len(found) > 1:
        raise ambiguous(tree, f"{name} is assigned {len(found)} times", [b.target for b in found])
    return found[0], klass


def one_function(tree: PyTree, name: str, wanted: str) -> cst.FunctionDef:
    """The one function or method ``name`` (``Type.method`` or a bare name) ``wanted`` is in."""
    found = tree.functions(name)
    if not found:
        raise FactNotFound(f"no function or method {name} (to read {wanted} inside)", Location(tree.path))
    if len(found) > 1:
        raise ambiguous(tree, f"{len(found)} functions are named {name}", [f.name for f in found])
    return found[0]


def local_binding(tree: PyTree, function: str, name: str) -> Binding:
    """The single assignment to ``name`` inside ``function``, in any of its blocks
    (``if``, ``with``, ``try``), not inside a nested function or class."""
    scope = one_function(tree, function, name)
    found = [b for b in local_bindings(block_statements(scope.body)) if b.name == name]
    if not found:
        raise FactNotFound(f"no assignment to {name} inside {function}", tree.location(scope.name))
    if len(found) > 1:
        raise ambiguous(tree, f"{name} is assigned {len(found)} times inside {function}",
                        [b.target for b in found])
    return found[0]


def local_bindings(statements: Sequence[cst.CSTNode]) -> list[Binding]:
    """The names bound in ``statements`` and the blocks nested in them, in source order."""
    found: list[Binding] = []
    for statement in statements:
        found += bindings([statement])
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            for block in nested_blocks(statement):
                found += local_bindings(block)
    return found


def ambiguous(tree: PyTree, what: str, nodes: Sequence[cst.CSTNode]) -> AmbiguousFact:
    lines = ", ".join(str(tree.line(n)) for n in nodes)
    return AmbiguousFact(f"{what} (lines {lines})", tree.location(nodes[0]))
