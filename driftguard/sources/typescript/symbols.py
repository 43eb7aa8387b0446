"""The ``symbols`` selector on TypeScript and JavaScript: the names a file defines,
and its string literals.

Names, from the top-level statements (``export`` and ``declare`` unwrapped, no
recursion into function bodies): functions (generators and overload signatures
included), classes and their members as ``Class.member`` (methods, accessors,
fields, ``#private`` fields; ``constructor`` and computed names left out),
the names a ``const``/``let``/``var`` binds (destructuring included),
interfaces and their properties and methods as ``Iface.member``, type aliases,
enums and their members as ``Enum.Member``, and namespaces, whose declarations
are ``Namespace.name``. The declarations of a ``declare module "m"`` block are
bare names.

String literals (labelled ``literal``): every quoted string, with its escapes
decoded, and every template string: one without substitutions whole, one with
substitutions as its literal parts (``/api/${id}/state`` gives ``/api/`` and
``/state``). Empty strings are left out. One tree-sitter query per grammar,
compiled once, finds them.

Best-effort, like the reader: a broken region gives what tree-sitter recovered
of it. Names come first, then literals, each unique (the first kept) in source
order, at their line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node, QueryCursor

from driftguard.model import NameItems
from driftguard.sources import name_items
from driftguard.sources.typescript.nodes import unescape

if TYPE_CHECKING:
    from driftguard.sources.typescript.tree import TsTree

__all__ = ["symbols"]

LITERAL = "literal"
Names = dict[str, int]  # name -> the line of its first definition, in source order

FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_signature"})
CLASSES = frozenset({"class_declaration", "abstract_class_declaration"})
VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
WRAPPERS = frozenset({"export_statement", "ambient_declaration", "expression_statement", "ERROR"})
CLASS_MEMBERS = frozenset({"method_definition", "method_signature", "abstract_method_signature",
                           "public_field_definition", "field_definition"})
INTERFACE_MEMBERS = frozenset({"property_signature", "method_signature"})
NAMES = frozenset({"identifier", "type_identifier", "property_identifier", "private_property_identifier",
                   "nested_identifier", "shorthand_property_identifier_pattern"})


def symbols(tree: TsTree, path: str) -> NameItems:
    """The names ``tree`` defines, then its string literals (labelled ``literal``)."""
    names: Names = {}
    _statements(tree.root.named_children, "", names)
    return NameItems.joined((name_items(names, path), name_items(literals(tree), path, LITERAL)))


def _statements(nodes: list[Node], prefix: str, names: Names) -> None:
    for node in nodes:
        kind = node.type
        if kind in WRAPPERS:
            _statements(node.named_children, prefix, names)
        elif kind in FUNCTIONS or kind == "type_alias_declaration":
            _put(names, prefix, node.child_by_field_name("name"))
        elif kind in CLASSES:
            _owner(node, prefix, names, CLASS_MEMBERS)
        elif kind == "interface_declaration":
            _owner(node, prefix, names, INTERFACE_MEMBERS)
        elif kind == "enum_declaration":
            _enum(node, prefix, names)
        elif kind in VARIABLES:
            for declarator in node.named_children:
                if declarator.type == "variable_declarator":
                    _bound(declarator.child_by_field_name("name"), prefix, names)
        elif kind in ("internal_module", "module"):
            _namespace(node, prefix, names)


def _owner(node: Node, prefix: str, names: Names, members: frozenset[str]) -> None:
    """A class or interface, and its members as ``Owner.member``."""
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name is None:
        return
    owner = _put(names, prefix, name)
    for member in body.named_children if body is not None else ():
        if member.type in members:
            field = member.child_by_field_name("name") or member.child_by_field_name("property")
            if field is not None and field.text != b"constructor":
                _put(names, owner + ".", field)


def _enum(node: Node, prefix: str, names: Names) -> None:
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name is None:
        return
    owner = _put(names, prefix, name)
    for member in body.named_children if body is not None else ():
        if member.type == "enum_assignment":
            member = member.child_by_field_name("name") or member
        _put(names, owner + ".", member)


def _namespace(node: Node, prefix: str, names: Names) -> None:
    """``namespace N {}`` gives ``N`` and ``N.member``; ``declare module "m" {}`` its bare members."""
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    inner = prefix
    if name is not None and name.type != "string":
        inner = _put(names, prefix, name) + "."
    if body is not None:
        _statements(body.named_children, inner, names)


def _bound(pattern: Node | None, prefix: str, names: Names) -> None:
    """The names a binding pattern binds: ``x``, ``{a, b: c, ...d}``, ``[e, f = 1]``."""
    stack = [pattern] if pattern is not None else []
    found = []
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            found.append(node)
        elif kind == "pair_pattern":
            stack += [n for n in (node.child_by_field_name("value"),) if n is not None]
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            stack += [n for n in (node.child_by_field_name("left"),) if n is not None]
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            stack += reversed(node.named_children)
    for node in found:
        _put(names, prefix, node)


def _put(names: Names, prefix: str, node: Node | None) -> str:
    """Add ``prefix`` + the name ``node`` spells at its line, unless known; the name."""
    if node is None:
        return ""
    raw = node.text or b""
    if node.type == "string":
        raw = raw[1:-1]
    elif node.type not in NAMES:
        return ""
    name = prefix + raw.decode("utf-8", errors="replace")
    if raw and name not in names:
        names[name] = node.start_point[0] + 1
    return name


def literals(tree: TsTree) -> Names:
    """Every distinct non-empty string and template part of ``tree`` -> its first line."""
    nodes = QueryCursor(tree.grammar.strings).captures(tree.root).get("s", [])
    nodes.sort(key=_start)
    source = tree.source
    out: Names = {}
    for node in nodes:
        start, line = node.start_byte + 1, node.start_point[0] + 1
        if node.type == "template_string":
            for sub in node.named_children:
                if sub.type == "template_substitution":
                    _literal(source[start:sub.start_byte], line, out)
                    start = sub.end_byte
        _literal(source[start:node.end_byte - 1], line, out)
    return out


def _literal(raw: bytes, line: int, out: Names) -> None:
    if raw:
        value = raw.decode("utf-8", errors="replace")
        if "\\" in value:
            value = unescape(value)
        if value and value not in out:
            out[value] = line


def _start(node: Node) -> int:
    return node.start_byte
