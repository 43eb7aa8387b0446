"""The ``symbols`` selector on Go: every name a file defines, and its string literals.

Names, from the top-level declarations only (one pass over the root's children,
no recursion into function bodies): funcs, types (aliases included), consts and
vars (``_`` left out), methods as ``Type.Method`` (the receiver type without
``*`` or type parameters), struct fields as ``Type.Field`` and as the bare
``Field``, with their ``json:"..."``/``yaml:"..."`` tag names (the part before
the comma; ``-`` and empty names left out), interface methods as
``Iface.Method``. An embedded field is named by its type (``*pkg.Base`` gives
``Base``); a field of an anonymous struct type is ``Type.Field.Sub`` and ``Sub``.

String literals are every interpreted and raw string of the file (imports and
struct tags included), labelled ``literal``: interpreted strings with their
escapes decoded (the source text where an escape is invalid), raw strings
verbatim (carriage returns dropped, as Go does); empty strings are left out.
They are found by one tree-sitter query, compiled once (measured a little
faster than a cursor walk in Python, which must visit every node).

Symbols are best-effort: a declaration broken by a syntax error gives what
tree-sitter recovered of it, and no error fails the fact. Names come first,
then literals, each unique (the first kept) in source order, so a literal never
hides a name of the same spelling.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node, Query, QueryCursor

from driftguard.model import NameItems
from driftguard.sources import name_items
from driftguard.sources.go.evaluate import Unevaluable, decode_string
from driftguard.sources.go.index import LANGUAGE, receiver_type, text

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

__all__ = ["symbols"]

LITERAL = "literal"
_STRINGS = Query(LANGUAGE, "[(interpreted_string_literal) (raw_string_literal)] @s")
_TAG = re.compile(r'(?:^|\s)(?:json|yaml):"([^"]*)"')

Names = dict[str, int]  # name -> the line of its first definition, in source order


def symbols(tree: GoTree, path: str) -> NameItems:
    """The names ``tree`` defines, then its string literals (labelled ``literal``)."""
    names: Names = {}
    for node in tree.root.children:
        kind = node.type
        if kind == "function_declaration":
            _put(names, "", node.child_by_field_name("name"))
        elif kind == "method_declaration":
            _put(names, receiver_type(node) + ".", node.child_by_field_name("name"))
        elif kind == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _type_names(spec, names)
        elif kind == "const_declaration" or kind == "var_declaration":
            _spec_names(node, names)
    return NameItems.joined((name_items(names, path), name_items(literals(tree), path, LITERAL)))


def literals(tree: GoTree) -> Names:
    """Every distinct non-empty string literal of ``tree`` -> its first line, in
    source order. Spellings are deduplicated before any is decoded: most literals
    of a large file repeat."""
    nodes = QueryCursor(_STRINGS).captures(tree.root).get("s", [])
    nodes.sort(key=_start)
    source = tree.source
    seen: set[bytes] = set()
    out: Names = {}
    for node in nodes:
        raw = source[node.start_byte + 1:node.end_byte - 1]
        if not raw or raw in seen:
            continue
        seen.add(raw)
        if b"\\" in raw and node.type == "interpreted_string_literal":
            try:
                value = decode_string(node)
            except Unevaluable:
                value = raw.decode("utf-8", errors="replace")
        else:
            value = raw.decode("utf-8", errors="replace").replace("\r", "")
        if value and value not in out:
            out[value] = node.start_point[0] + 1
    return out


def _start(node: Node) -> int:
    return node.start_byte


def _put(names: Names, prefix: str, node: Node | None, line: int = 0) -> None:
    """Add ``prefix`` + the text of ``node`` at the node's line (or ``line``), unless known."""
    if node is not None:
        name = prefix + (node.text or b"").decode("utf-8", errors="replace")
        if name not in names:
            names[name] = line or node.start_point[0] + 1


def _spec_names(decl: Node, names: Names) -> None:
    """The names of a const or var declaration's specs (grouped or not), ``_`` left out."""
    for spec in decl.named_children:
        if spec.type == "var_spec_list":
            _spec_names(spec, names)
        elif spec.type in ("const_spec", "var_spec"):
            for name in spec.children_by_field_name("name"):
                if name.type == "identifier" and name.text != b"_":
                    _put(names, "", name)


def _type_names(spec: Node, names: Names) -> None:
    """A type's name, and its fields or interface methods as ``Type.Member``."""
    name = spec.child_by_field_name("name")
    if name is None:
        return
    owner = text(name)
    _put(names, "", name)
    body = spec.child_by_field_name("type")
    if body is None:
        return
    if body.type == "struct_type":
        _fields(body, owner, names)
    elif body.type == "interface_type":
        for elem in body.named_children:
            if elem.type in ("method_elem", "method_spec"):
                _put(names, owner + ".", elem.child_by_field_name("name"))


def _fields(struct: Node, owner: str, names: Names) -> None:
    """``Owner.Field``, ``Field`` and the tag names of each field of ``struct``."""
    body = next((c for c in struct.named_children if c.type == "field_declaration_list"), None)
    if body is None:
        return
    prefix = owner + "."
    for field in body.named_children:
        if field.type != "field_declaration":
            continue
        line = field.start_point[0] + 1
        type_node = field.child_by_field_name("type")
        idents = field.children_by_field_name("name")
        if not idents and type_node is not None:
            embedded = _embedded_name(type_node)
            idents = [embedded] if embedded is not None else []
        for ident in idents:
            _put(names, prefix, ident, line)
            _put(names, "", ident, line)
        tag = field.child_by_field_name("tag")
        if tag is not None:
            for tag_name in _TAG.findall(text(tag)[1:-1]):
                tag_name = tag_name.split(",", 1)[0]
                if tag_name and tag_name != "-" and tag_name not in names:
                    names[tag_name] = line
        if type_node is not None and type_node.type == "struct_type" and len(idents) == 1:
            _fields(type_node, prefix + text(idents[0]), names)


def _embedded_name(type_node: Node) -> Node | None:
    """The identifier naming an embedded field: ``T``, ``*T``, ``pkg.T``, ``T[K]``."""
    node: Node | None = type_node
    while node is not None and node.type != "type_identifier":
        if node.type == "qualified_type":
            node = node.child_by_field_name("name")
        elif node.type == "generic_type":
            node = node.child_by_field_name("type")
        elif node.type == "pointer_type":
            node = node.named_children[0] if node.named_children else None
        else:
            return None
    return node
