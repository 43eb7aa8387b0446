"""What the Python selftest mutations share: the module parsed once with the
reader's positions (``Source``), string literals spelled like their neighbours,
elements inserted into a literal with its commas, and a new literal no member has.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import cast

import libcst as cst

from driftguard.model import Fact, Kind, Location, Value
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, last_item
from driftguard.sources.python.tree import PyTree

__all__ = ["Source", "all_nodes", "insert_after", "new_literal", "placed", "quotes", "shown", "string_like"]


class Source:
    """A module parsed once, with the Python reader's positions, for finding the
    statement at a line."""

    def __init__(self, text: str) -> None:
        try:
            self.module = cst.parse_module(text)
        except cst.ParserSyntaxError as exc:
            raise CannotApply(f"the file is not valid Python: {exc.message}") from None
        self.tree = PyTree("", text, self.module)
        self.text = text
        self._parents: dict[int, cst.CSTNode] | None = None

    def line(self, node: cst.CSTNode) -> int:
        return self.tree.line(node)

    def holds(self, klass: cst.ClassDef, line: int) -> bool:
        end = self.tree.end_offset(klass)
        return self.line(klass) <= line <= self.text.count("\n", 0, end) + 1

    def statement_at(self, body: Sequence[cst.BaseStatement], line: int) -> int | None:
        """The index of the statement of ``body`` that ``line`` falls in (from its first
        line, comments included, to the next statement)."""
        found = None
        for i, statement in enumerate(body):
            if self.line(statement) > line:
                break
            found = i
        return found

    def classes(self, name: str) -> list[cst.ClassDef]:
        return self.tree.classes(name)

    def edit(self, old: cst.CSTNode, new: cst.CSTNode, what: str, line: int | None, expect: str | None) -> Edit:
        """The module with ``old`` replaced by ``new``, re-parsed: an edit that breaks the file is refused."""
        code = cast(cst.Module, self.module.deep_replace(old, new)).code
        try:
            cst.parse_module(code)
        except cst.ParserSyntaxError as exc:
            raise CannotApply(f"{what} would break the file: {exc.message}") from None
        return Edit(code, what, line, (expect,) if expect is not None else ())

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        if self._parents is None:
            self._parents = {id(child): outer for outer in all_nodes(self.module) for child in outer.children}
        return self._parents.get(id(node))

    def insert_after(self, node: cst.CSTNode, statement: cst.BaseStatement, what: str,
                     expect: str | None) -> Edit:
        """``statement`` added after the statement holding ``node``, in the innermost block."""
        inner: cst.CSTNode | None = node
        while inner is not None:
            block = self.parent(inner)
            if isinstance(block, (cst.Module, cst.IndentedBlock)):
                at = next(i for i, s in enumerate(block.body) if s is inner)
                body = [*block.body[:at + 1], statement, *block.body[at + 1:]]
                return self.edit(block, block.with_changes(body=body), what, self.line(inner) + 1, expect)
            inner = block
        raise CannotApply(f"no statement holds line {self.line(node)}")

    def at(self, line: int, column: int, kind: type = cst.BaseExpression) -> cst.CSTNode:
        """The outermost node of ``kind`` that starts at ``line`` and ``column``."""
        found = next((n for n in all_nodes(self.module) if isinstance(n, kind)
                      and self.tree.position(n) == (line, column)), None)
        if found is None:
            raise CannotApply(f"nothing the selftest can copy at line {line}")
        return found


def shown(node: cst.CSTNode) -> str:
    """A node's code, as a message shows it: on one line, whitespace folded."""
    return " ".join(cst.Module([]).code_for_node(node).split())


def string_like(like: cst.SimpleString, value: str) -> cst.SimpleString:
    prefix, quote = quotes(like.value)
    return cst.SimpleString(f"{prefix}{quote}{value}{quote}")


def quotes(spelling: str) -> tuple[str, str]:
    """The prefix and quotes of a string literal's spelling."""
    m = re.match(r"([A-Za-z]*)('''|\"\"\"|'|\")", spelling)
    return (m.group(1), m.group(2)) if m else ("", '"')


def new_literal(old: cst.BaseExpression, fact: Fact) -> tuple[cst.BaseExpression, str]:
    """A literal like ``old`` no item has (``dry-run`` -> ``driftguard-selftest``), and its value."""
    taken = {i.value.canonical for i in fact.items}
    if isinstance(old, cst.SimpleString):
        dashed = any("-" in t for t in taken) and not any("_" in t for t in taken)
        base = SELFTEST.replace("_", "-") if dashed else SELFTEST
        value = next(f"{base}{n}" for n in ("", *range(2, 100)) if f"{base}{n}" not in taken)
        return string_like(old, value), value
    if isinstance(old, cst.Integer):
        amount = int(max((float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER), default=0)) + 1
        return cst.Integer(str(amount)), Value(Kind.NUMBER, amount).canonical
    raise NotApplicable("the calls' arguments are neither string nor integer literals; "
                        "the selftest cannot write a new distinct one")


def insert_after(elements: list, at: int, added: cst.CSTNode) -> list:
    """``elements`` of a literal with ``added`` after element ``at``, commas laid out like the neighbours'."""
    current = elements[at]
    if at + 1 < len(elements):
        return [*elements[:at + 1], added.with_changes(comma=current.comma), *elements[at + 1:]]
    sep = elements[at - 1].comma if at > 0 else cst.MaybeSentinel.DEFAULT
    if not isinstance(sep, cst.Comma):
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*elements[:at], current.with_changes(comma=sep), added.with_changes(comma=current.comma)]


def placed(fact: Fact) -> tuple[int, int]:
    """The (line, column) of the member read last in the source (``last_item`` keeps placed items only)."""
    loc = cast(Location, last_item(fact).location)
    return cast(int, loc.line), loc.column or 1


def all_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node inside it, outermost first."""
    yield node
    for child in node.children:
        yield from all_nodes(child)
