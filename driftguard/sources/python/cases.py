"""The ``cases`` selector: the literal labels of the ``match`` in a function.

``within: F`` names the function or method (``Type.method`` or a bare name); its
body is searched, nested blocks included, nested functions and classes not.
A switch is a ``match`` statement, or an ``if``/``elif`` chain of two or more
branches that each compare the same expression with literals
(``if kind == "a": ... elif kind in ("b", "c"): ...``, ``or`` of such tests
too); a chain's ``else`` is its default. ``switch: EXPR`` picks the one whose
subject's text (whitespace folded) is EXPR when ``F`` holds several; otherwise
several are ambiguous.

A case's labels: a literal pattern (``case "a":``, ``case -1:``), each
alternative of ``case "a" | "b":``, the pattern under ``as``, ``True`` and
``False``, and a dotted value pattern (``case Color.RED:``) evaluated through
the file's constants. ``case _:`` and capture patterns are the default and left
out; ``None``, class, sequence and mapping patterns are left out and listed by
``skipped``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from driftguard.config.specs import Cases
from driftguard.model import FactNotFound, Item
from driftguard.sources import unique_items
from driftguard.sources.python.evaluate import EvalError, block_statements, fold, nested_blocks
from driftguard.sources.python.lookups import ambiguous, one_function
from driftguard.sources.python.tree import PyTree

__all__ = ["Switch", "cases", "left_out", "one_switch"]


@dataclass(frozen=True)
class Switch:
    node: cst.Match | cst.If
    subject: str  # the switched expression's text, whitespace folded
    labels: tuple[tuple[cst.CSTNode, cst.BaseExpression | None], ...]  # (the case or branch, a label; None: not read)


def cases(tree: PyTree, sel: Cases) -> list[Item]:
    switch = one_switch(tree, sel)
    items, _ = _labels(tree, switch)
    if not items:
        raise FactNotFound(f"the switch on {switch.subject} in {sel.within} has no literal case",
                           tree.location(switch.node))
    return unique_items(items)


def left_out(tree: PyTree, sel: Cases) -> list[str]:
    return _labels(tree, one_switch(tree, sel))[1]


def one_switch(tree: PyTree, sel: Cases) -> Switch:
    function = one_function(tree, sel.within, "its cases")
    found = list(_switches(tree, block_statements(function.body)))
    if sel.switch is not None:
        subjects = sorted({s.subject for s in found})
        found = [s for s in found if s.subject == fold(sel.switch)]
        if not found:
            listed = ", ".join(subjects) or "none"
            raise FactNotFound(f"no match on {sel.switch} in {sel.within} (its switches: {listed})",
                               tree.location(function.name))
    if not found:
        raise FactNotFound(f"{sel.within} holds no match statement or if/elif chain on one expression",
                           tree.location(function.name))
    if len(found) > 1:
        raise ambiguous(tree, f"{sel.within} holds {len(found)} switches; pick one with `switch:`",
                        [s.node for s in found])
    return found[0]


def _labels(tree: PyTree, switch: Switch) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    notes: list[str] = []
    for owner, node in switch.labels:
        if node is None:
            notes.append(f"line {tree.line(owner)}: `{_code(tree, owner)}` is not a literal pattern; left out")
            continue
        try:
            items.append(Item(tree.names.evaluate(node), tree.location(node)))
        except EvalError as exc:
            notes.append(f"line {tree.line(node)}: `{_code(tree, node)}` is not a literal ({exc}); left out")
    return items, notes


def _switches(tree: PyTree, statements: Sequence[cst.CSTNode]) -> Iterator[Switch]:
    for statement in statements:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.Match):
            labels = tuple(found for case in statement.cases for found in _patterns(case.pattern))
            yield Switch(statement, _code(tree, statement.subject), labels)
        elif isinstance(statement, cst.If):
            chain = _chain(tree, statement)
            if chain is not None:
                yield chain
        for block in nested_blocks(statement):
            yield from _switches(tree, block)


def _patterns(pattern: cst.MatchPattern) -> Iterator[tuple[cst.CSTNode, cst.BaseExpression | None]]:
    """(pattern, its label expression) of each alternative; None for a pattern that is no literal;
    nothing for a wildcard or a capture."""
    if isinstance(pattern, cst.MatchOr):
        for element in pattern.patterns:
            yield from _patterns(element.pattern)
    elif isinstance(pattern, cst.MatchAs):
        if pattern.pattern is not None:
            yield from _patterns(pattern.pattern)
    elif isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
        yield pattern, pattern.value  # ``None`` is then said to be no value
    else:
        yield pattern, None


def _chain(tree: PyTree, statement: cst.If) -> Switch | None:
    """An if/elif chain comparing one expression with literals, or None."""
    subject: str | None = None
    labels: list[tuple[cst.CSTNode, cst.BaseExpression | None]] = []
    branch: cst.If | cst.Else | None = statement
    while isinstance(branch, cst.If):
        tested = _tests(tree, branch.test)
        if tested is None or subject is not None and tested[0] != subject:
            break
        subject = tested[0]
        labels += [(branch.test, node) for node in tested[1]]
        branch = branch.orelse
    if subject is None or len({id(owner) for owner, _ in labels}) < 2:
        return None
    return Switch(statement, subject, tuple(labels))


def _tests(tree: PyTree, test: cst.BaseExpression) -> tuple[str, list[cst.BaseExpression]] | None:
    """(subject, literals) of ``x == "a"``, ``"a" == x``, ``x in ("a", "b")`` and ``or`` of them."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left, right = _tests(tree, test.left), _tests(tree, test.right)
        if left is None or right is None or left[0] != right[0]:
            return None
        return left[0], left[1] + right[1]
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    operator, other = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(operator, cst.Equal):
        literal, subject = (test.left, other) if _literal(test.left) else (other, test.left)
        return (_code(tree, subject), [literal]) if _literal(literal) and not _literal(subject) else None
    if isinstance(operator, cst.In) and isinstance(other, (cst.Tuple, cst.List, cst.Set)) and not _literal(test.left):
        values = [e.value for e in other.elements]
        return (_code(tree, test.left), values) if values and all(_literal(v) for v in values) else None
    return None


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        return _literal(node.expression)
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float))


def _code(tree: PyTree, node: cst.CSTNode) -> str:
    return fold(tree.module.code_for_node(node))
