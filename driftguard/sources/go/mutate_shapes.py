"""Selftest mutations of the struct fields, switch labels and list elements a Go file holds.

A struct gains a field after its last one, of the same type, named like its
fields (``TimeoutSelftest``) and, when the fact reads a tag, tagged with a
new name in the tag names' style (``driftguard_selftest``, ``driftguardSelftest``)
in the last field's tag layout. The last ``case`` of the switch gains a label
(``case "a", "driftguard_selftest":``, or a number no label has), and a list a
last element of the same kind.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Cases, Fields, ListOf
from driftguard.model import Fact, Kind, Value
from driftguard.sources.go.cases import the_switch
from driftguard.sources.go.editing import STRINGS, GoSource, add_element, quoted, text
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.fields import struct_of
from driftguard.sources.go.lists import bound_list
from driftguard.sources.go.reader import parse
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, new_name


def add_field(text_: str, spec: FactSpec, sel: Fields, fact: Fact) -> Edit:
    go = GoSource(text_)
    _, body = struct_of(parse(spec.file, text_), sel.type)
    fields = [d for d in body.named_children if d.type == "field_declaration"]
    named_fields = [d for d in fields if d.child_by_field_name("name") is not None
                    and (not sel.tag or text(d.child_by_field_name("name"))[:1].isupper())]  # encoders skip the rest
    model = named_fields[-1] if named_fields else None
    last_name = text(model.child_by_field_name("name")) if model is not None else "DriftguardSelftest"
    name = new_name(last_name, go.text)
    type_text = text(model.child_by_field_name("type")) if model is not None else "int"
    expect = name
    tag = ""
    if sel.tag:
        expect = _tag_name([i.value.canonical for i in fact.items])
        tag = " " + _tag(model, sel.tag, expect)
    line = f"{name} {type_text}{tag}"
    anchor = fields[-1] if fields else None
    close = next((c for c in body.children if c.type == "}"), None)
    indent = go.indent(anchor) if anchor is not None else None
    if anchor is None or close is None or indent is None or go.line(close.start_byte) == go.line(anchor.end_byte):
        at = close.start_byte if close is not None else body.end_byte
        return go.edit(at, at, f"; {line} ", f"added the field `{line}`", (expect,))
    at = go.after_line(anchor.end_byte)
    return go.edit(at, at, f"{indent}{line}{go.nl}", f"added the field `{line}`", (expect,))


def _tag_name(taken: list[str]) -> str:
    if any("_" in t for t in taken):
        return SELFTEST
    if any("-" in t for t in taken):
        return SELFTEST.replace("_", "-")
    if any(t[:1].islower() and t != t.lower() for t in taken):
        return "driftguardSelftest"
    return SELFTEST.replace("_", "") if taken and all(t == t.lower() for t in taken) else "DriftguardSelftest"


def _tag(model: Node | None, key: str, name: str) -> str:
    """The last field's tag with ``key``'s name replaced (or ``key`` added), else a new tag."""
    tag_node = model.child_by_field_name("tag") if model is not None else None
    if tag_node is None or tag_node.type != "raw_string_literal":
        return f'`{key}:"{name}"`'
    body = text(tag_node)[1:-1]
    pattern = re.compile(rf'(^|\s){re.escape(key)}:"[^",]*')
    if pattern.search(body):
        return "`" + pattern.sub(lambda m: f'{m.group(1)}{key}:"{name}', body, count=1) + "`"
    return f'`{body} {key}:"{name}"`'


def add_label(text_: str, spec: FactSpec, sel: Cases, fact: Fact) -> Edit:
    go = GoSource(text_)
    switch = the_switch(parse(spec.file, text_), sel)  # offsets are those of ``go``: the same text
    labelled = [c for c in switch.named_children if c.type == "expression_case"]
    if not labelled:
        raise CannotApply(f"the switch at line {go.line(switch.start_byte)} has no case to add a label to")
    last = named(labelled[-1].child_by_field_name("value"))[-1]
    label, expect = _new_value(last, fact)
    return go.edit(last.end_byte, last.end_byte, f", {label}", f"added the case label {label}", (expect,))


def add_list_element(text_: str, spec: FactSpec, sel: ListOf, fact: Fact) -> Edit:
    go = GoSource(text_)
    literal = bound_list(parse(spec.file, text_), sel)[1]
    elements = named(literal.child_by_field_name("body"))
    if not elements:
        raise CannotApply(f"the list {sel.name} is empty; the selftest has no element to write like")
    value, expect = _new_value(elements[-1], fact)
    return add_element(go, elements[-1], value, "element", (expect,))


def _new_value(like: Node, fact: Fact) -> tuple[str, str]:
    """A literal of the fact's kind no item has, written like ``like``, and its value."""
    numbers = [i.value.data for i in fact.items if i.value.kind is Kind.NUMBER]
    if fact.items and len(numbers) == len(fact.items):
        amount = int(max(float(n) for n in numbers)) + 1
        return str(amount), Value(Kind.NUMBER, amount).canonical
    inner = named(like)[0] if like.type == "literal_element" and named(like) else like
    return quoted(inner if inner.type in STRINGS else None, SELFTEST), SELFTEST
