"""``fields``: the fields of a Go struct type of the file, by name or by tag.

``fields: {type: T}`` yields the names of the fields of ``type T struct {...}``
(a top-level type, generic ones too), an embedded field by its type's name
(``*pkg.Base`` is ``Base``). With ``tag: K`` it yields what an encoder reading
tag ``K`` calls each field, as ``encoding/json`` does: the name the tag gives
(``json:"downloadURL,omitempty"`` is ``downloadURL``), else the Go name
(lowercased for ``yaml``, as gopkg.in/yaml does). Left out, and listed by
``skipped``: a field tagged ``-``, an unexported field (encoders skip it), and
an embedded field whose tag gives no name (encoders may inline its fields).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import Fields
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.go.evaluate import Unevaluable, decode_string, named
from driftguard.sources.go.index import ambiguous, text
from driftguard.sources.go.syntax import check_hidden, check_path, mentioning, not_found

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

_TAG = re.compile(r'\s*([^\s:"]+):"((?:[^"\\]|\\.)*)"')


def fields(tree: GoTree, sel: Fields) -> list[Item]:
    items, notes = read_fields(tree, sel)
    if not items:
        reason = "; ".join(notes) or "it has no fields"
        raise FactNotFound(f"struct {sel.type} yields no field names: {reason}", Location(tree.path))
    return unique_items(items)


def left_out(tree: GoTree, sel: Fields) -> list[str]:
    return read_fields(tree, sel)[1]


def struct_of(tree: GoTree, name: str) -> tuple[Node, Node]:
    """The type spec of the struct type ``name`` and its ``field_declaration_list``."""
    what = f"struct type {name}"
    specs = [s for decl in tree.root.children if decl.type == "type_declaration" for s in named(decl)
             if s.type == "type_spec" and text(s.child_by_field_name("name")) == name]
    word = mentioning(name)
    check_hidden(tree, word, specs, what)
    if not specs:
        raise not_found(tree, what, word)
    if len(specs) > 1:
        raise ambiguous(tree, what, specs)
    check_path(tree, specs, what)
    body = specs[0].child_by_field_name("type")
    if body is None or body.type != "struct_type":
        raise FactNotFound(f"type {name} is not a struct: `{text(body)[:60]}`", tree.loc(specs[0]))
    found = next((c for c in body.named_children if c.type == "field_declaration_list"), None)
    if found is None:
        raise FactNotFound(f"struct {name} has no field list", tree.loc(specs[0]))
    return specs[0], found


def read_fields(tree: GoTree, sel: Fields) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    notes: list[str] = []
    for decl in (c for c in struct_of(tree, sel.type)[1].named_children if c.type == "field_declaration"):
        names = list(decl.children_by_field_name("name"))
        embedded = not names
        nodes = names or [n for n in [decl.child_by_field_name("type")] if n is not None]
        tag = _tag_value(decl, sel.tag) if sel.tag else None
        for node in nodes:
            go_name = _embedded_name(node) if embedded else text(node)
            name = go_name if not sel.tag else _encoded(go_name, embedded, tag, sel.tag, tree.line(node), notes)
            if name is not None:
                items.append(Item(Value.string(name), tree.loc(node)))
    return items, notes


def _embedded_name(type_node: Node) -> str:
    """``Base`` for an embedded ``Base``, ``*Base``, ``pkg.Base`` or ``Base[T]``."""
    return text(type_node).lstrip("*").split("[")[0].rsplit(".", 1)[-1].strip()


def _encoded(go_name: str, embedded: bool, tag: str | None, key: str, line: int, notes: list[str]) -> str | None:
    """The name an encoder reading tag ``key`` gives the field, None when it leaves it out."""
    name = (tag or "").split(",")[0]
    if not embedded and not go_name[:1].isupper():
        notes.append(f"line {line}: {go_name} is unexported, which encoders skip; left out")
        return None
    if tag == "-":
        notes.append(f"line {line}: {go_name} is tagged {key}:\"-\"; left out")
        return None
    if name:
        return name
    if embedded:
        notes.append(f"line {line}: embedded {go_name} has no name in its {key} tag (its fields may be "
                     "inlined); left out")
        return None
    return go_name.lower() if key == "yaml" else go_name


def _tag_value(decl: Node, key: str) -> str | None:
    """The value of ``key`` in the field's struct tag, as ``reflect.StructTag.Lookup`` reads it."""
    tag_node = decl.child_by_field_name("tag")
    if tag_node is None:
        return None
    try:
        tag = decode_string(tag_node)
    except Unevaluable:
        return None
    for m in _TAG.finditer(tag):
        if m.group(1) == key:
            return re.sub(r"\\(.)", r"\1", m.group(2))  # the quoted value's escapes decoded
    return None
