"""The ``call`` and ``calls`` selectors: a literal argument of the calls of a function.

Both match calls the same way (``matching_calls``): the callee's full text or
its last part, optionally only inside a function, method or class body
(``within``; a class body holds ``options = [option("short", ...), ...]``) and
only where the ``where`` arguments have the given source text. ``call`` takes
the one match; ``calls`` takes every match in source order, leaving out a call
whose argument is not a literal (``left_out`` says which).
"""

from __future__ import annotations

import libcst as cst

from driftguard.config.specs import Call, Calls
from driftguard.model import FactNotFound, Item, Location
from driftguard.sources import unique_items
from driftguard.sources.python.evaluate import EvalError, fold, last_name
from driftguard.sources.python.keyed import keyed_value
from driftguard.sources.python.lookups import ambiguous, evaluate_binding
from driftguard.sources.python.scopes import Binding
from driftguard.sources.python.tree import PyTree


def call(tree: PyTree, sel: Call) -> list[Item]:
    calls = matching_calls(tree, sel)
    if len(calls) > 1:
        raise ambiguous(tree, f"{len(calls)} calls match the {_where(sel)}", calls)
    node = argument(calls[0], sel.arg)
    assert node is not None  # matching_calls keeps calls that have it
    if sel.path:
        return [keyed_value(tree, node, sel.path, f"argument {sel.arg} of {sel.function}", None)]
    what = f"argument {sel.arg} of the {_where(sel)} (line {tree.line(node)})"
    return [Item(evaluate_binding(tree, Binding(sel.function, node, node), None, what), tree.location(node))]


def calls(tree: PyTree, sel: Calls) -> list[Item]:
    items, notes = _read(tree, sel)
    if not items:
        raise FactNotFound(f"no {_where(sel)} has a literal argument {sel.arg}: " + "; ".join(notes),
                           Location(tree.path))
    return unique_items(items)


def left_out(tree: PyTree, sel: Calls) -> list[str]:
    """The matching calls ``calls`` leaves out, ``line N: ...; left out``."""
    return [f"{note}; left out" for note in _read(tree, sel)[1]]


def _read(tree: PyTree, sel: Calls) -> tuple[list[Item], list[str]]:
    """The literal arguments of the matching calls, and a note for each that is not one."""
    items: list[Item] = []
    notes: list[str] = []
    for found in matching_calls(tree, sel):
        node = argument(found, sel.arg)
        assert node is not None
        try:
            if sel.path:
                items.append(keyed_value(tree, node, sel.path, f"argument {sel.arg} of {sel.function}", None))
            else:
                items.append(Item(tree.names.evaluate(node), tree.location(node)))
        except FactNotFound as exc:
            notes.append(f"line {tree.line(node)}: {exc.message}")
        except EvalError as exc:
            source = fold(tree.module.code_for_node(node))
            notes.append(f"line {tree.line(node)}: argument {sel.arg} `{source}` is not a literal ({exc})")
    return items, notes


def matching_calls(tree: PyTree, sel: Call | Calls) -> list[cst.Call]:
    """The calls ``sel`` selects, in source order; none is ``FactNotFound``."""
    tail = sel.function.rsplit(".", 1)[-1]
    found = [c for c in tree.all_calls() if last_name(c.func) == tail
             and (tail == sel.function or fold(tree.module.code_for_node(c.func)) == sel.function)]
    if sel.within:
        scopes = tree.functions(sel.within) or tree.classes(sel.within)
        if not scopes:
            raise FactNotFound(f"no function, method or class {sel.within}", Location(tree.path))
        spans = [(tree.offset(f.body), tree.end_offset(f)) for f in scopes]
        found = [c for c in found if any(a <= tree.offset(c) < b for a, b in spans)]
    found = [c for c in found if _arguments_match(tree, c, sel)]
    if not found:
        raise FactNotFound(f"no {_where(sel)} with an argument {sel.arg} matches", Location(tree.path))
    return found


def positional(node: cst.Call) -> list[cst.Arg]:
    return [a for a in node.args if a.keyword is None and not a.star]


def argument(node: cst.Call, arg: int | str) -> cst.BaseExpression | None:
    """The argument at position ``arg``, or passed by keyword ``arg``; None when absent."""
    if isinstance(arg, str):
        return next((a.value for a in node.args if a.keyword is not None and a.keyword.value == arg), None)
    args = positional(node)
    return args[arg].value if arg < len(args) else None


def _where(sel: Call | Calls) -> str:
    return f"call of {sel.function}" + (f" in {sel.within}" if sel.within else "")


def _arguments_match(tree: PyTree, node: cst.Call, sel: Call | Calls) -> bool:
    if argument(node, sel.arg) is None:
        return False
    args = positional(node)
    code = tree.module.code_for_node
    return all(n < len(args) and fold(code(args[n].value)) == fold(text) for n, text in sel.where)
