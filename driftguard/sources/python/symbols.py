"""The ``symbols`` selector on Python: every name a module defines, and its string literals.

Names: the module-level functions, classes, and names bound by an assignment
(``X = ...``, ``X: int = ...``, ``X: int``, and the names of a tuple or list
target) or a ``type X = ...`` statement (PEP 695), including those bound inside a module-level ``if``/``try``/``with``/
``for`` (an ``if TYPE_CHECKING:`` block, an ``except ImportError:`` fallback).
A class's members are dotted: ``Class.method``, ``Class.attr`` (an enum's
``Enum.MEMBER``, a dataclass field), ``Outer.Inner`` and ``Outer.Inner.member``.
A method's bare name is not yielded: a document names it with its class.
Functions nested in functions, ``self.x`` attributes and imports are not
definitions of the module.

String literals (labelled ``literal``): every simple string, and a concatenation
(``"a" "b"``) as its joined value. f-strings (with any plain string joined to
one) and bytes are left out, and so are docstrings
(a docstring is prose, not a name the code uses). Names come first, then
literals, each unique (the first kept) in source order, at their line.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence

import libcst as cst

from driftguard.model import NameItems
from driftguard.sources.python.evaluate import block_statements, nested_blocks, small_statements
from driftguard.sources.python.tree import PyTree

__all__ = ["symbols"]

LITERAL = "literal"
Names = dict[str, cst.CSTNode]  # name -> the node giving its line, first definition kept, in source order


def symbols(tree: PyTree, path: str) -> NameItems:
    """The names ``tree`` defines, then its string literals (labelled ``literal``)."""
    names: Names = {}
    _scope(tree.module.body, "", names)
    lines = {name: tree.line(node) for name, node in names.items()}
    literals = _literals(tree.text)
    if literals is None:  # newer syntax than this interpreter's ``ast`` reads (``type X = ...`` before 3.12)
        literals = _cst_literals(tree)
    return NameItems.joined((NameItems.of_file(lines, path), NameItems.of_file(literals, path, LITERAL)))


def _scope(statements: Sequence[cst.CSTNode], prefix: str, names: Names) -> None:
    """The names bound directly in a module or class body, each after ``prefix``."""
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            names.setdefault(prefix + statement.name.value, statement.name)
        elif isinstance(statement, cst.ClassDef):
            qualname = prefix + statement.name.value
            names.setdefault(qualname, statement.name)
            _scope(block_statements(statement.body), qualname + ".", names)
        elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in small_statements([statement]):
                for target in _targets(small):
                    _bind(target, prefix, names)
        else:
            for block in nested_blocks(statement):
                _scope(block, prefix, names)


def _targets(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    if isinstance(small, cst.AnnAssign):
        return [small.target]
    if isinstance(small, cst.TypeAlias):  # PEP 695: ``type Point = tuple[float, float]``
        return [small.name]
    return []


def _bind(target: cst.BaseExpression, prefix: str, names: Names) -> None:
    if isinstance(target, cst.Name):
        names.setdefault(prefix + target.value, target)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _bind(element.value, prefix, names)


def _literals(text: str) -> dict[str, int] | None:
    """String literal value -> line of its first use, docstrings and f-string parts left out.

    Read with the standard ``ast`` (a C parser): walking every node of a libcst tree
    costs several times the parse itself, and a literal needs no concrete syntax."""
    with warnings.catch_warnings():  # "\\d" in the user's strings: their SyntaxWarning, not ours to print
        warnings.simplefilter("ignore")
        try:
            module = ast.parse(text)
        except SyntaxError:
            return None
        except (ValueError, RecursionError, MemoryError):
            return {}
    skipped: set[int] = set()
    found: dict[str, tuple[int, int]] = {}
    for node in ast.walk(module):  # breadth first: a parent marks its docstring before it is reached
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skipped.add(id(first.value))
        elif isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in node.values)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value
                and id(node) not in skipped):
            at = (node.lineno, node.col_offset)
            if node.value not in found or at < found[node.value]:
                found[node.value] = at
    return {value: line for value, (line, _) in sorted(found.items(), key=lambda kv: kv[1])}


def _cst_literals(tree: PyTree) -> dict[str, int]:
    """The same literals read from the libcst tree (slower), for a file ``ast`` cannot parse."""
    owners: list[cst.Module | cst.ClassDef | cst.FunctionDef] = [tree.module, *tree.all_classes(),
                                                                 *tree.all_functions()]
    docstrings = {id(d) for s in owners if (d := _docstring(s)) is not None}
    found: dict[str, int] = {}

    def walk(node: cst.CSTNode) -> None:
        if id(node) in docstrings or isinstance(node, cst.FormattedString):
            return
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            if isinstance(value, str) and value:
                found.setdefault(value, tree.line(node))
            return
        for child in node.children:
            walk(child)

    walk(tree.module)
    return found


def _docstring(owner: cst.Module | cst.ClassDef | cst.FunctionDef) -> cst.CSTNode | None:
    body = owner.body if isinstance(owner, cst.Module) else block_statements(owner.body)
    first = body[0] if body else None
    if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr) \
            and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return first.body[0].value
    return None
