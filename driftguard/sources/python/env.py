"""The ``env`` selector: the environment variables a Python module reads.

A read is ``os.getenv("X")``, ``os.environ["X"]``, ``os.environ.get("X")``,
``os.environ.setdefault("X", ...)`` or ``"X" in os.environ``, whatever the
names are imported as (``from os import getenv, environ``; ``import os as
system``). Writing ``os.environ["X"] = ...`` and ``del os.environ["X"]`` are
not reads. The name is evaluated as any value is, so ``os.getenv(ENV_NAME)``
with a constant of the file is read; a name that is not a literal
(``os.environ.get(self.envvar)``) is left out and listed by ``skipped``.

With ``defaults: true`` the fact is a map from name to default: the second
argument (or ``default=``) of ``getenv``/``get``/``setdefault``, read through the
conversions around the read (``int(os.getenv("X", "15"))`` is the number 15);
``Value.string("")`` where the read gives none (``None``, a subscript, a
membership test) or it is not a literal, the latter listed by ``skipped``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from driftguard.config.specs import Env
from driftguard.model import FactNotFound, Item, Kind, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.python.calls import argument, positional
from driftguard.sources.python.entries import NO_DEFAULT, merged
from driftguard.sources.python.evaluate import EvalError, dotted_name, fold, names_callee
from driftguard.sources.python.tree import PyTree

__all__ = ["Read", "env", "env_reads", "left_out"]

_WITH_DEFAULT = frozenset({"os.getenv", "os.environ.get", "os.environ.setdefault"})
_CONVERSIONS = frozenset({"int", "float", "str", "bool"})


@dataclass(frozen=True)
class Read:
    name: cst.BaseExpression  # the variable's name as written
    default: cst.BaseExpression | None  # the default argument; None where the read gives none
    outer: cst.BaseExpression  # the read with the conversions around it: what the default is evaluated through
    node: cst.BaseExpression  # the read itself (a call, subscript or comparison)


def env(tree: PyTree, sel: Env) -> list[Item]:
    items, notes = _read(tree, sel)
    if not items:
        why = ": " + "; ".join(notes) if notes else ""
        raise FactNotFound(f"no environment variable is read by a literal name{why}", Location(tree.path))
    return merged(items, "the variable") if sel.defaults else unique_items(items)


def left_out(tree: PyTree, sel: Env) -> list[str]:
    return _read(tree, sel)[1]


def _read(tree: PyTree, sel: Env) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    notes: list[str] = []
    for read in env_reads(tree):
        try:
            name = tree.names.evaluate(read.name)
        except EvalError:
            name = None
        if name is None or name.kind is not Kind.STRING:
            notes.append(f"line {tree.line(read.name)}: the name `{_code(tree, read.name)}` is not a literal; left out")
        elif not sel.defaults:
            items.append(Item(Value.string(str(name.data)), tree.location(read.name)))
        else:
            value, note = _default(tree, read)
            if note:
                notes.append(f"line {tree.line(read.default or read.name)}: {name.data} {note}; the entry is empty")
            node = read.default if read.default is not None and note is None else read.name
            items.append(Item(value, tree.location(node), label=str(name.data)))
    return items, notes


def _default(tree: PyTree, read: Read) -> tuple[Value, str | None]:
    """The default, converted as the code converts the read (the evaluator knows ``getenv``
    and ``environ.get`` by name; another read's default is taken as written)."""
    if read.default is None:
        return NO_DEFAULT, None
    for node in dict.fromkeys([read.outer, read.default]):
        try:
            return tree.names.evaluate(node), None
        except EvalError as exc:
            reason = str(exc)
    return NO_DEFAULT, f"default `{_code(tree, read.default)}` is not a literal ({reason})"


def env_reads(tree: PyTree) -> list[Read]:
    """Every read of an environment variable, in source order."""
    nodes = list(_walk(tree.module))
    written = {id(target) for node in nodes for target in _targets(node)}
    outer = _conversions(tree)
    reads = [read for node in nodes if id(node) not in written
             and (read := _as_read(tree, node, outer.get(id(node)))) is not None]
    return sorted(reads, key=lambda r: tree.offset(r.node))


def _as_read(tree: PyTree, node: cst.CSTNode, outer: cst.Call | None) -> Read | None:
    canonical = tree.names.imports.canonical
    if isinstance(node, cst.Call) and (callee := dotted_name(node.func)) is not None:
        name = argument(node, 0) or argument(node, "key")
        if canonical(callee) in _WITH_DEFAULT and name is not None:
            default = argument(node, 1) or argument(node, "default")
            none = isinstance(default, cst.Name) and default.value == "None"
            return Read(name, None if none else default, outer or node, node)
    elif (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
          and canonical(dotted_name(node.value) or "") == "os.environ"):
        return Read(node.slice[0].slice.value, None, node, node)
    elif (isinstance(node, cst.Comparison) and len(node.comparisons) == 1
          and isinstance(node.comparisons[0].operator, (cst.In, cst.NotIn))
          and canonical(dotted_name(node.comparisons[0].comparator) or "") == "os.environ"):
        return Read(node.left, None, node, node)
    return None


def _targets(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """What a statement assigns to or deletes: ``os.environ["X"] = "1"`` and ``del os.environ["X"]``
    write the variable; they do not read it."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.Del)):
        return [node.target]
    return []


def _conversions(tree: PyTree) -> dict[int, cst.Call]:
    """Read call id -> the outermost conversion around it (``int(os.getenv(...))``, or a fact's
    ``unwrap:``), whose value is the converted default."""
    found: dict[int, cst.Call] = {}
    for call in tree.all_calls():  # outer calls come first
        callee = dotted_name(call.func) or ""
        args = positional(call)
        if (callee in _CONVERSIONS or names_callee(tree.names.unwrap, callee)) and len(call.args) == len(args) == 1:
            inner = args[0].value
            if isinstance(inner, cst.Call):
                found[id(inner)] = found.get(id(call), call)
    return found


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _code(tree: PyTree, node: cst.CSTNode) -> str:
    return fold(tree.module.code_for_node(node))
