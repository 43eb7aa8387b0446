"""The ``list`` selector: the elements of the list or tuple literal bound to a name.

``list: NAME`` reads a module-level name (``__all__``), ``Class.NAME`` a class
attribute, and ``{name: NAME, within: F}`` a local of function or method ``F``.
The statements of that scope (its nested ``if``/``try`` blocks included, in
source order) build the list as Python would: ``NAME = [...]`` (a list, tuple or
set literal, or a ``+`` of them and of other such names) starts it again,
``NAME += [...]``, ``NAME.extend([...])`` and ``NAME.append(x)`` add to it.
``*OTHER`` inside a literal adds the elements bound to ``OTHER`` in the same scope.

Each element is evaluated (a string, a number, a constant of the file); one
that is not a literal is left out and listed by ``skipped``.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from driftguard.config.specs import ListOf
from driftguard.model import FactNotFound, Item, Location
from driftguard.sources import unique_items
from driftguard.sources.python.evaluate import (
    EvalError,
    block_statements,
    dotted_name,
    fold,
    nested_blocks,
    small_statements,
)
from driftguard.sources.python.lookups import one_class, one_function
from driftguard.sources.python.tree import PyTree

__all__ = ["elements", "left_out", "listed"]

_SEQUENCES = (cst.List, cst.Tuple, cst.Set)


def listed(tree: PyTree, sel: ListOf) -> list[Item]:
    items, notes = _read(tree, sel)
    if not items:
        why = ": " + "; ".join(notes) if notes else ""
        raise FactNotFound(f"{sel.name} holds no literal element{why}", Location(tree.path))
    return unique_items(items)


def left_out(tree: PyTree, sel: ListOf) -> list[str]:
    return _read(tree, sel)[1]


def _read(tree: PyTree, sel: ListOf) -> tuple[list[Item], list[str]]:
    klass, nodes = elements(tree, sel)
    items: list[Item] = []
    notes: list[str] = []
    for node in nodes:
        try:
            items.append(Item(tree.names.evaluate(node, klass), tree.location(node)))
        except EvalError as exc:
            notes.append(f"line {tree.line(node)}: `{fold(tree.module.code_for_node(node))}` is not a literal "
                         f"({exc}); left out")
    return items, notes


def elements(tree: PyTree, sel: ListOf) -> tuple[cst.ClassDef | None, list[cst.BaseExpression]]:
    """The class whose body holds the list (None: the module or a function), and its element nodes."""
    owner, _, name = sel.name.rpartition(".")
    klass = one_class(tree, owner) if owner and not sel.within else None
    scope = klass.body if klass else one_function(tree, sel.within, sel.name).body if sel.within else None
    statements = block_statements(scope) if scope is not None else tree.module.body
    found = _built(statements, name if not sel.within else sel.name)
    if found is None:
        where = f" inside {sel.within}" if sel.within else f" in class {owner}" if owner else ""
        raise FactNotFound(f"no list, tuple or set literal is assigned to {name}{where}", Location(tree.path))
    return klass, found


def _built(statements: Sequence[cst.CSTNode], name: str) -> list[cst.BaseExpression] | None:
    """The element nodes ``name`` holds after ``statements``; None where no literal is assigned to it."""
    bound: dict[str, list[cst.BaseExpression]] = {}
    for statement in _flat(statements):
        for small in small_statements([statement]):
            target, value, adds = _assignment(small)
            if target is None or value is None:
                continue
            found = _literal(value, bound)
            if found is not None:
                bound[target] = [*bound.get(target, []), *found] if adds else found
    return bound.get(name)


def _flat(statements: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """The statements and those of their nested blocks, in source order, without functions and classes."""
    out: list[cst.CSTNode] = []
    for statement in statements:
        out.append(statement)
        if not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            for block in nested_blocks(statement):
                out += _flat(block)
    return out


def _assignment(small: cst.BaseSmallStatement) -> tuple[str | None, cst.BaseExpression | None, bool]:
    """(name, value, whether it adds) of ``NAME = v``, ``NAME += v``, ``NAME.extend(v)``, ``NAME.append(x)``."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value, False
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value, small.value, False
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and isinstance(small.operator,
                                                                                              cst.AddAssign):
        return small.target.value, small.value, True
    if (isinstance(small, cst.Expr) and isinstance(call := small.value, cst.Call)
            and isinstance(method := call.func, cst.Attribute)):
        owner = dotted_name(method.value)
        if owner is not None and len(call.args) == 1 and method.attr.value in ("extend", "append"):
            value = call.args[0].value
            return owner, (cst.List([cst.Element(value)]) if method.attr.value == "append" else value), True
    return None, None, False


def _literal(node: cst.BaseExpression, bound: dict[str, list[cst.BaseExpression]]) -> list[cst.BaseExpression] | None:
    """The element nodes of a literal, a ``+`` of literals, or a name bound before; None otherwise."""
    if isinstance(node, _SEQUENCES):
        out: list[cst.BaseExpression] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                inner = _literal(element.value, bound)
                out += inner if inner is not None else [element.value]
            else:
                out.append(element.value)
        return out
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = _literal(node.left, bound), _literal(node.right, bound)
        return left + right if left is not None and right is not None else None
    if isinstance(node, cst.Name) and node.value in bound:
        return list(bound[node.value])
    return None
