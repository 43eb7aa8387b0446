"""The lines a Go declaration spans, for a snippet marked ``symbol=NAME``: a function,
a method (``Type.Method``), a type, or a const or var of that name."""

from __future__ import annotations

from tree_sitter import Node

from driftguard.sources.go.index import receiver_type, text
from driftguard.sources.go.reader import GoTree


def symbol_lines(tree: GoTree, name: str, path: str) -> tuple[int, int] | None:
    """(first line, last line) of the one top-level declaration named ``name``."""
    found = [node for node in tree.root.named_children for node in _named(node, name)]
    if len(found) != 1:
        return None
    return found[0].start_point[0] + 1, found[0].end_point[0] + 1


def _named(node: Node, name: str) -> list[Node]:
    owner, _, member = name.rpartition(".")
    if node.type == "method_declaration":
        return [node] if owner and text(node.child_by_field_name("name")) == member \
            and receiver_type(node) == owner else []
    if node.type == "function_declaration":
        return [node] if not owner and text(node.child_by_field_name("name")) == name else []
    if node.type in ("type_declaration", "const_declaration", "var_declaration") and not owner:
        specs = [c for c in node.named_children if c.type.endswith("_spec")]
        hits = [s for s in specs if name in _spec_names(s)]
        return [node if len(specs) == 1 else hits[0]] if hits else []
    return []


def _spec_names(spec: Node) -> list[str]:
    named = spec.child_by_field_name("name")
    if spec.type == "type_spec" or named is not None and spec.type != "const_spec" and spec.type != "var_spec":
        return [text(named)]
    return [text(c) for c in spec.children_by_field_name("name")]
