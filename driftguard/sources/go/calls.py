"""The ``call`` and ``calls`` selectors: a literal argument of the calls of a function.

Both match calls the same way (``matching_calls``): the callee's full text
(``flag.Duration``) or its last part (``Duration``), optionally only inside a
function or method (``within``: ``Type.Method`` or a bare name) and only where
the ``where`` arguments have the given source text. ``call`` takes the one
match; ``calls`` takes every match in source order, each value once, leaving
out a call whose argument is not a literal (``left_out`` says which). An
argument may name a const of the function that holds the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import Call, Calls
from driftguard.model import ConfigError, FactNotFound, Item, Location
from driftguard.sources import unique_items
from driftguard.sources.go.evaluate import fold, named
from driftguard.sources.go.index import ambiguous, nodes_of, text
from driftguard.sources.go.keyed import follow
from driftguard.sources.go.syntax import calling, check_hidden, check_path, mentioning, not_found
from driftguard.sources.go.values import NoValue, local_value, short

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree


def call(tree: GoTree, sel: Call) -> list[Item]:
    what = describe(sel)
    matches = matching_calls(tree, sel)
    if len(matches) > 1:
        raise ambiguous(tree, what, matches)
    return [_argument(tree, matches[0], sel, what)]


def calls(tree: GoTree, sel: Calls) -> list[Item]:
    items, notes = _read(tree, sel)
    if not items:
        raise FactNotFound(f"no {describe(sel)} has a literal argument {sel.arg}: " + "; ".join(notes),
                           Location(tree.path))
    return unique_items(items)


def left_out(tree: GoTree, sel: Calls) -> list[str]:
    """The matching calls ``calls`` leaves out, ``line N: ...; left out``."""
    return [f"{note}; left out" for note in _read(tree, sel)[1]]


def _read(tree: GoTree, sel: Calls) -> tuple[list[Item], list[str]]:
    """The literal arguments of the matching calls, and a note for each that is not one."""
    what = describe(sel)
    items: list[Item] = []
    notes: list[str] = []
    for found in matching_calls(tree, sel):
        try:
            items.append(_argument(tree, found, sel, what))
        except PathMissing as exc:
            notes.append(f"line {tree.line(found)}: `{short(found)}`: {exc.reason}")
        except NoValue as exc:
            arg = named(found.child_by_field_name("arguments"))[position(sel)]
            notes.append(f"line {tree.line(arg)}: argument {sel.arg} `{short(arg)}` of "
                         f"`{short(found)}` is not a literal ({exc.reason})")
    return items, notes


class PathMissing(NoValue):
    """The argument holds no value at the selector's ``path``."""


def _argument(tree: GoTree, found: Node, sel: Call | Calls, what: str) -> Item:
    arg = named(found.child_by_field_name("arguments"))[position(sel)]
    if sel.path:
        try:
            arg = follow(tree, arg, sel.path, f"arg{sel.arg}")
        except FactNotFound as exc:
            raise PathMissing(f"{what}: {exc.message}", exc.location, exc.message) from None
    return Item(local_value(tree, arg, what), tree.loc(arg))


def matching_calls(tree: GoTree, sel: Call | Calls) -> list[Node]:
    """The calls ``sel`` selects, in source order, each checked for syntax errors on
    its path; none is ``FactNotFound`` (naming ``within`` when that is what is missing)."""
    what = describe(sel)
    scopes = in_scope(tree, sel.within, what)
    matches = [c for s in scopes for c in nodes_of(s, ("call_expression",)) if _matches(c, sel)]
    check_path(tree, matches, what)
    word = calling(sel.function.rsplit(".", 1)[-1])
    check_hidden(tree, word, matches, what, scopes)
    if not matches:
        raise not_found(tree, what, word)
    return matches


def in_scope(tree: GoTree, within: str | None, what: str) -> list[Node]:
    """The nodes a selector searches: the functions and methods ``within`` names, else the file."""
    if not within:
        return [tree.root]
    scopes = scopes_named(tree, within)
    if not scopes:
        raise not_found(tree, f"function or method {within} (looked for {what})",
                        mentioning(within.rsplit(".", 1)[-1]))
    return scopes


def scopes_named(tree: GoTree, within: str) -> list[Node]:
    """The functions and methods ``within`` names (``Type.Method`` or a bare name)."""
    return [n for name, recv, n in tree.index.funcs if within_matches(within, name, recv)]


def within_matches(within: str, name: str, receiver: str | None) -> bool:
    if "." in within:
        type_, method = within.rsplit(".", 1)
        return receiver == type_ and name == method
    return name == within


def _matches(node: Node, sel: Call | Calls) -> bool:
    fn = node.child_by_field_name("function")
    if fn is None:
        return False
    if fold(fn.text) != sel.function and not (
        fn.type == "selector_expression" and text(fn.child_by_field_name("field")) == sel.function
    ):
        return False
    args = named(node.child_by_field_name("arguments"))
    if len(args) <= position(sel):
        return False
    return all(n < len(args) and fold(args[n].text) == fold(want.encode()) for n, want in sel.where)


def position(sel: Call | Calls) -> int:
    """The argument's position; Go calls pass no argument by name."""
    if isinstance(sel.arg, str):
        raise ConfigError(f"`arg: {sel.arg}`: a Go call passes its arguments by position; give `arg` a number",
                          Location(""))
    return sel.arg


def describe(sel: Call | Calls) -> str:
    parts = [f"call of {sel.function}"]
    if sel.path:
        parts.append("at " + "".join(f'["{k}"]' if isinstance(k, str) else f"[{k}]" for k in sel.path))
    if sel.within:
        parts.append(f"within {sel.within}")
    parts += [f"with arg{n} `{want}`" for n, want in sel.where]
    return " ".join(parts) + f" (reading arg{sel.arg})"
