"""The lines a Python definition spans, for a snippet marked ``symbol=NAME``: a function
or class (``Class.method`` for a method), or a module-level assignment."""

from __future__ import annotations

import libcst as cst

from driftguard.sources.python.tree import PyTree


def symbol_lines(tree: PyTree, name: str, path: str) -> tuple[int, int] | None:
    """(first line, last line) of the one definition named ``name``; None when there is
    none or more than one."""
    found: list[cst.FunctionDef | cst.ClassDef] = [*tree.functions(name), *tree.classes(name)]
    if len(found) == 1:
        node = found[0]
        first = tree.line(node.decorators[0]) if node.decorators else tree.line(node)
        return first, tree.line_at(tree.end_offset(node) - 1)
    if found:
        return None
    for statement in tree.module.body:
        if isinstance(statement, cst.SimpleStatementLine) and any(_assigns(small, name) for small in statement.body):
            return tree.line(statement), tree.line(statement) + tree.module.code_for_node(statement).count("\n") - 1
    return None


def _assigns(node: cst.BaseSmallStatement, name: str) -> bool:
    if isinstance(node, cst.Assign):
        return any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)
    return isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.target.value == name

