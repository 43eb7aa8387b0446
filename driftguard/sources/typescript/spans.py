"""The lines a TypeScript or JavaScript declaration spans, for a snippet marked
``symbol=NAME``: a function, class, interface, type alias, enum or const (exported or
not), or a method or property of a class (``Class.method``)."""

from __future__ import annotations

from tree_sitter import Node

from driftguard.sources.typescript.reader import TsTree

_DECLARATIONS = ("function_declaration", "generator_function_declaration", "class_declaration",
                 "abstract_class_declaration", "interface_declaration", "type_alias_declaration", "enum_declaration")


def symbol_lines(tree: TsTree, name: str, path: str) -> tuple[int, int] | None:
    """(first line, last line) of the one top-level declaration (or class member) named ``name``."""
    owner, _, member = name.rpartition(".")
    found: list[Node] = []
    for statement in tree.root.named_children:
        node = _unexported(statement)
        if owner and node.type in ("class_declaration", "abstract_class_declaration") and _name(node) == owner:
            body = node.child_by_field_name("body")
            found += [m for m in (body.named_children if body else []) if _name(m) == member]
        elif not owner and node.type in _DECLARATIONS and _name(node) == name:
            found.append(statement)
        elif not owner and node.type in ("lexical_declaration", "variable_declaration"):
            found += [statement for d in node.named_children if d.type == "variable_declarator" and _name(d) == name]
    if len(found) != 1:
        return None
    return found[0].start_point[0] + 1, found[0].end_point[0] + 1


def _unexported(node: Node) -> Node:
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        if inner is not None:
            return inner
    return node


def _name(node: Node) -> str:
    named = node.child_by_field_name("name")
    return named.text.decode("utf-8", "replace") if named is not None and named.text is not None else ""
