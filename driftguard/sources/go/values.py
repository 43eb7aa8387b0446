"""Evaluation every Go selector shares.

``value_of`` evaluates one expression node; what it cannot evaluate raises
``NoValue`` (a ``FactNotFound`` whose ``reason`` says why, for the set
selectors that leave such a member out), and a syntax error in a constant it
consulted raises ``ParseError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.model import FactNotFound, Location, ParseError, Value
from driftguard.sources.go.evaluate import Unevaluable, quote
from driftguard.sources.go.index import Spec, const_specs, nodes_of, top_level
from driftguard.sources.go.syntax import check_hidden, check_path, mentioning

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree


class NoValue(FactNotFound):
    """An expression driftguard cannot evaluate; ``reason`` is why, without the context."""

    def __init__(self, message: str, location: Location | None, reason: str) -> None:
        super().__init__(message, location)
        self.reason = reason


def evaluate(tree: GoTree, spec: Spec, what: str) -> Value:
    """The value of ``spec``; a bare spec's value shows as its canonical form."""
    if spec.expr is None:
        raise NoValue(f"{what}: `{spec.name}` has no value", tree.loc(spec.node), "it has no value")
    return value_of(tree, spec.expr, what, spec.iota, "" if spec.inherited else None, name=spec.name)


def value_of(tree: GoTree, node: Node, what: str, iota: int = 0, shown: str | None = None,
             local: Iterable[Spec] = (), name: str = "") -> Value:
    """Evaluate ``node``; what it could not evaluate raises NoValue there,
    a syntax error in a const it consulted raises ParseError."""
    ev = tree.evaluator(local)
    try:
        value = ev.value(node, iota, shown, name)
    except Unevaluable as exc:
        check_path(tree, [b.decl for b in ev.consulted], what)
        at = exc.node if exc.node is not None else node
        if at.type == "identifier":  # an unknown name may be hidden by a syntax error
            check_hidden(tree, mentioning((at.text or b"").decode()), [], what)
        inside = node.start_byte <= at.start_byte < node.end_byte
        elsewhere = "" if inside else f" (line {tree.loc(at).line})"
        if exc.gave_up:
            raise ParseError(f"{what}: driftguard gives up on `{quote(node.text)}`: {exc.message}{elsewhere}",
                             tree.loc(at if inside else node)) from None
        raise NoValue(f"{what}: cannot evaluate `{quote(node.text)}`: {exc.message}{elsewhere}",
                      tree.loc(at if inside else node), exc.message + elsewhere) from None
    check_path(tree, [b.decl for b in ev.consulted], what)
    return value


def local_value(tree: GoTree, node: Node, what: str) -> Value:
    """``value_of`` where a name may also be a const of the function holding ``node``."""
    local = [s for d in nodes_of(top_level(node), ("const_declaration",)) for s in const_specs(d)]
    return value_of(tree, node, what, local=local)


def value_or_note(tree: GoTree, node: Node, what: str, notes: list[str], subject: str,
                  outcome: str = "left out") -> Value | None:
    """``local_value`` of ``node``; where it has none, None and a note
    ``line N: {subject} is not a literal ({why}); {outcome}``."""
    try:
        return local_value(tree, node, what)
    except NoValue as exc:
        notes.append(f"line {tree.line(node)}: {subject} is not a literal ({exc.reason}); {outcome}")
        return None


def short(node: Node, limit: int = 60) -> str:
    """``node``'s folded source text, cut to ``limit`` characters."""
    return quote(node.text, limit)
