"""The ``flags`` selector: the command-line options a Python program defines.

Which calls and parameters define an option, and what its name and default are,
is ``cli_options``'s business (argparse, click, typer). Here: ``within: F``
keeps the options defined inside function, method or class ``F``, its
decorators included (a click command's ``@click.option`` stack); a set yields
each long name once, in source order; with ``defaults: true`` a map, one entry
per name, its value the evaluated default (the library's implied one, such as
``False`` for ``store_true``, where the code writes none), ``Value.string("")``
where there is none or it is not a literal.

An option whose name is not a literal is left out, and so is (with defaults) a
default that is not a literal: ``skipped`` lists both.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from driftguard.config.specs import Flags
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.python.cli_options import Flag, declared_flags
from driftguard.sources.python.entries import NO_DEFAULT, merged
from driftguard.sources.python.evaluate import EvalError, fold
from driftguard.sources.python.tree import PyTree

__all__ = ["flags", "left_out", "selected_flags"]


def flags(tree: PyTree, sel: Flags) -> list[Item]:
    items, _ = _read(tree, sel)
    if not items:
        raise FactNotFound(f"no option {_where(sel)} has a literal name", Location(tree.path))
    return merged(items, "the flag") if sel.defaults else unique_items(items)


def left_out(tree: PyTree, sel: Flags) -> list[str]:
    return _read(tree, sel)[1]


def selected_flags(tree: PyTree, sel: Flags) -> list[Flag]:
    """The options ``sel`` reads, in source order; none is ``FactNotFound``."""
    found = declared_flags(tree)
    if sel.within:
        scopes: Sequence[cst.FunctionDef | cst.ClassDef] = tree.functions(sel.within) or tree.classes(sel.within)
        if not scopes:
            raise FactNotFound(f"no function, method or class {sel.within}", Location(tree.path))
        spans = [tree.span(scope, decorators=True) for scope in scopes]
        found = [f for f in found if any(a <= tree.offset(f.site) < b for a, b in spans)]
    if not found:
        raise FactNotFound(f"no argparse, click or typer option is defined {_where(sel)}".rstrip(),
                           Location(tree.path))
    return found


def _where(sel: Flags) -> str:
    return f"in {sel.within}" if sel.within else "in the file"


def _read(tree: PyTree, sel: Flags) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    notes: list[str] = []
    for flag in selected_flags(tree, sel):
        if flag.name is None:
            notes.append(f"line {tree.line(flag.at)}: option name `{_code(tree, flag.at)}` is not a literal; left out")
        elif not sel.defaults:
            items.append(Item(Value.string(flag.name), tree.location(flag.at)))
        else:
            value, note = _default(tree, flag)
            if note:
                notes.append(f"line {tree.line(flag.default or flag.at)}: --{flag.name} {note}; the entry is empty")
            node = flag.default if flag.default is not None and note is None else flag.at
            items.append(Item(value, tree.location(node), label=flag.name))
    return items, notes


def _default(tree: PyTree, flag: Flag) -> tuple[Value, str | None]:
    """The flag's default, or the empty value and why."""
    if flag.default is None or isinstance(flag.default, cst.Name) and flag.default.value == "None":
        return (flag.implied, None) if flag.implied is not None else (NO_DEFAULT, "has no default")
    try:
        return tree.names.evaluate(flag.default), None
    except EvalError as exc:
        return NO_DEFAULT, f"default `{_code(tree, flag.default)}` is not a literal ({exc})"


def _code(tree: PyTree, node: cst.CSTNode) -> str:
    return fold(tree.module.code_for_node(node))
