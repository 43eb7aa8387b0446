"""``cases``: the labels of a ``switch`` statement in a Go function or method.

``cases: {within: F}`` reads the one expression switch in ``F`` (``Type.method``
or a bare name; a switch in a function literal inside ``F`` counts); a type
switch is not read. When ``F`` holds several, ``switch: EXPR`` picks the one
whose switched expression has that text (whitespace folded); without it the
fact is ``ambiguous``, naming each switch's line and expression. Whitespace
does not count in the comparison: ``switch: b+1`` picks ``switch b + 1 {``.

Each label of each ``case`` (``case "a", "b":`` gives both) is evaluated: string,
number and rune literals and constants of the file (or of the function).
``default`` has no label. A label that does not evaluate (a var such as
``errorBadData = errorType{...}``, a call, a condition of a ``switch {}``) is
left out and listed by ``skipped``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import Cases
from driftguard.model import AmbiguousFact, FactNotFound, Item
from driftguard.sources import unique_items
from driftguard.sources.go.calls import in_scope
from driftguard.sources.go.evaluate import fold, named
from driftguard.sources.go.index import nodes_of
from driftguard.sources.go.syntax import check_hidden, check_path, mentioning
from driftguard.sources.go.values import short, value_or_note

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree


def cases(tree: GoTree, sel: Cases) -> list[Item]:
    items, notes = read_cases(tree, sel)
    if not items:
        raise FactNotFound(f"no label of the {describe(sel)} has a literal value: " + "; ".join(notes),
                           tree.loc(the_switch(tree, sel)))
    return unique_items(items)


def left_out(tree: GoTree, sel: Cases) -> list[str]:
    return read_cases(tree, sel)[1]


def describe(sel: Cases) -> str:
    return f"switch on `{sel.switch}` within {sel.within}" if sel.switch else f"switch within {sel.within}"


def switched(switch: Node) -> str:
    """The switched expression's text, whitespace folded; empty for ``switch {``."""
    value = switch.child_by_field_name("value")
    return fold(value.text) if value is not None else ""


def the_switch(tree: GoTree, sel: Cases) -> Node:
    what = describe(sel)
    scopes = in_scope(tree, sel.within, what)
    word = mentioning("switch", "case")
    check_hidden(tree, word, [], what, scopes)
    found = [s for scope in scopes for s in nodes_of(scope, ("expression_switch_statement",))]
    if sel.switch is not None:
        wanted = "".join(sel.switch.split())
        chosen = [s for s in found if switched(s).replace(" ", "") == wanted]
        if not chosen:
            seen = ", ".join(f"`{switched(s)}` (line {tree.line(s)})" for s in found) or "none"
            raise FactNotFound(f"no switch on `{sel.switch}` within {sel.within}; its switches: {seen}",
                               tree.loc(scopes[0]))
        found = chosen
    if not found:
        raise FactNotFound(f"no expression switch within {sel.within}", tree.loc(scopes[0]))
    if len(found) > 1:
        listed = ", ".join(f"line {tree.line(s)}: `{f'switch {switched(s)}'.strip()}`" for s in found)
        raise AmbiguousFact(f"{sel.within} holds {len(found)} switches ({listed}); name one with `switch:`",
                            tree.loc(found[0]))
    check_path(tree, found, what)
    return found[0]


def read_cases(tree: GoTree, sel: Cases) -> tuple[list[Item], list[str]]:
    what = describe(sel)
    items: list[Item] = []
    notes: list[str] = []
    for case in (c for c in the_switch(tree, sel).named_children if c.type == "expression_case"):
        for label in named(case.child_by_field_name("value")):
            value = value_or_note(tree, label, what, notes, f"case {short(label, 40)}")
            if value is not None:
                items.append(Item(value, tree.loc(label)))
    return items, notes
