"""Selftest mutations of Go source, located with tree-sitter-go.

A set gains a member shaped like its last one: a const or var spec (same
type, indentation and gofmt alignment), a ``case X: return "..."`` before the
``default`` of a ``String`` method, a map key line (of a local map too), or a
copy of the last call a ``calls`` fact read with a new literal argument;
``mutate_flags`` adds flags and environment reads, ``mutate_shapes`` struct
fields, case labels and list elements. A
scalar changes the first number literal of its expression (``10 *
time.Minute`` -> ``11 * time.Minute``), following a named constant to its
definition; a ``true`` is flipped and a string replaced where there is no
number; a value read by a key path is changed where the path leads (a
call's ``path:`` too); an entry of a map (a flag's or variable's default) by
``mutate_flags``. Every edit
is re-parsed and refused when it would introduce a syntax error.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Cases, Constants, Env, Fields, Flags, ListOf, MapKeys, StringMethod
from driftguard.model import Fact, Kind, Value
from driftguard.sources.go.editing import (
    NUMBERS,
    STRINGS,
    GoSource,
    add_element,
    bump,
    first,
    place_copy,
    quoted,
    replace_in,
    spec_value,
    text,
    up,
)
from driftguard.sources.go.mutate_flags import add_env, add_flag, change_default
from driftguard.sources.go.mutate_shapes import add_field, add_label, add_list_element
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, last_item, new_name

_EXPRESSIONS = {"binary_expression", "call_expression", "selector_expression", "index_expression",
                "parenthesized_expression", "unary_expression", "type_conversion_expression"}


# -- sets -----------------------------------------------------------------------


def add_member(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    go, sel = GoSource(text_), spec.selector
    if isinstance(sel, Constants):
        return _add_const(go, sel, fact)
    if isinstance(sel, StringMethod):
        return _add_case(go, fact)
    if isinstance(sel, MapKeys):
        return _add_key(go, sel, fact)
    if isinstance(sel, Calls):
        return _add_call(go, fact)
    return _add_other(text_, spec, fact)


def _add_other(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    """The mutations of ``mutate_flags`` and ``mutate_shapes``."""
    sel = spec.selector
    if isinstance(sel, Flags):
        return add_flag(text_, spec, sel)
    if isinstance(sel, Env):
        return add_env(text_, spec, sel)
    if isinstance(sel, Fields):
        return add_field(text_, spec, sel, fact)
    if isinstance(sel, Cases):
        return add_label(text_, spec, sel, fact)
    if isinstance(sel, ListOf):
        return add_list_element(text_, spec, sel, fact)
    raise NotApplicable(f"a {type(sel).__name__} selector is not a set")


def _add_const(go: GoSource, sel: Constants, fact: Fact) -> Edit:
    ident = go.node_at(last_item(fact).location)
    spec = up(ident, ("const_spec", "var_spec"))
    if spec is None or ident.type != "identifier":
        raise CannotApply(f"no const or var spec at {last_item(fact).location}")
    decl, keyword = spec.parent, "const" if spec.type == "const_spec" else "var"
    name = new_name(text(ident), go.text, sel.name)
    type_node, value_node = spec.child_by_field_name("type"), spec.child_by_field_name("value")
    names = [n for n in spec.children_by_field_name("name") if n.type == "identifier"]
    exprs = value_node.named_children if value_node is not None else []
    expr = exprs[names.index(ident)] if ident in names and names.index(ident) < len(exprs) else None
    value, expect = _new_value(go, expr, fact)
    if sel.values == "names":
        expect = name
    parts = name
    if value is not None:  # keep gofmt's alignment: each token starts where its neighbour's does
        equals = next((c for c in spec.children if c.type == "="), None)
        anchor = type_node or equals
        single = len(names) == 1
        parts = _pad(name, anchor.start_byte - ident.start_byte if anchor is not None and single else 0)
        if type_node is not None:
            parts += _pad(text(type_node), equals.start_byte - type_node.start_byte if equals is not None else 0)
        parts += "= " + value
    indent = go.indent(spec)
    if decl is not None and any(c.type == "(" for c in decl.children) and indent is not None:
        close = next(c for c in decl.children if c.type == ")")
        if go.line(close.start_byte) == go.line(spec.end_byte):
            return go.edit(close.start_byte, close.start_byte, f"; {parts} ", f"added {keyword} `{parts}`",
                           _expect(expect))
        at = go.after_line(spec.end_byte)
        return go.edit(at, at, f"{indent}{parts}{go.nl}", f"added {keyword} `{parts}`", _expect(expect))
    if value is None:
        raise CannotApply(f"`{text(ident)}` is a bare spec outside a {keyword} block")
    at = go.after_line((decl or spec).end_byte)
    return go.edit(at, at, f"{keyword} {parts}{go.nl}", f"added `{keyword} {parts}`", _expect(expect))


def _new_value(go: GoSource, expr: Node | None, fact: Fact) -> tuple[str | None, str | None]:
    """The new spec's value text (None: a bare spec repeating the previous expression)
    and the value the reader should read from it (None: unknown until read)."""
    if expr is None or b"iota" in (expr.text or b""):
        return None, None
    literal = first(expr, STRINGS)
    if literal is not None:
        new = quoted(literal, SELFTEST)
        return replace_in(expr, literal, new), SELFTEST
    numbers = [float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER]
    literal = first(expr, NUMBERS)
    if literal is not None and numbers:
        amount = int(max(numbers)) + 1
        return replace_in(expr, literal, str(amount)), Value(Kind.NUMBER, float(amount)).canonical
    return text(expr), None


def _pad(word: str, width: int) -> str:
    return word.ljust(width) if len(word) < width else word + " "


def _expect(value: str | None) -> tuple[str, ...]:
    return (value,) if value is not None else ()


def _add_case(go: GoSource, fact: Fact) -> Edit:
    returned = go.node_at(last_item(fact).location)
    case = up(returned, ("expression_case", "type_case"))
    if case is None:  # ``return [...]string{...}[k]``: one more element
        literal = up(returned, STRINGS)
        if literal is None:
            raise CannotApply(f"no switch case or string element at {last_item(fact).location}")
        new = quoted(literal, SELFTEST)
        return go.edit(literal.end_byte, literal.end_byte, f", {new}", f"added the element {new}", (SELFTEST,))
    switch = case.parent
    default = next((c for c in switch.named_children if c.type == "default_case"), None) if switch else None
    labels = case.child_by_field_name("value") or case.child_by_field_name("type")
    head = labels.named_children[0] if labels is not None and labels.named_children else labels
    label = _new_label(go, head)
    ret = first(case, ("return_statement",))
    indent = go.indent(case)
    if indent is None or ret is None:
        raise CannotApply(f"the case at line {go.line(case.start_byte)} is not laid out one statement a line")
    body = go.indent(ret) or indent + "\t"
    literal = up(returned, STRINGS)
    block = f"{indent}case {label}:{go.nl}{body}return {quoted(literal, SELFTEST)}{go.nl}"
    at = go.line_start(default.start_byte) if default is not None else go.after_line(case.end_byte)
    return go.edit(at, at, block, f"added `case {label}: return \"{SELFTEST}\"`", (SELFTEST,))


def _new_label(go: GoSource, node: Node | None) -> str:
    kind = node.type if node is not None else ""
    if kind in ("identifier", "type_identifier"):
        return new_name(text(node), go.text)
    if kind in ("selector_expression", "qualified_type"):
        head, _, tail = text(node).rpartition(".")
        return f"{head}.{new_name(tail, go.text)}"
    if kind in STRINGS:
        return quoted(node, SELFTEST)
    if kind == "int_literal":
        return "987654321"
    raise CannotApply(f"cannot write a new case label like `{text(node)}`")


def _add_key(go: GoSource, sel: MapKeys, fact: Fact) -> Edit:
    key = go.node_at(last_item(fact).location)
    element = up(key, ("keyed_element",))
    if element is None or element.parent is None:
        raise CannotApply(f"no map element at {last_item(fact).location}")
    value = element.child_by_field_name("value") or element.named_children[-1]
    extra = ""
    if key.type in STRINGS:
        new_key, expect = quoted(key, SELFTEST), SELFTEST
    elif key.type == "identifier":
        new_key = expect = new_name(text(key), go.text)
        if sel.resolve:  # the key must name a constant of this file
            extra, expect = f"{go.nl}const {new_key} = \"{SELFTEST}\"{go.nl}", SELFTEST
    elif key.type == "selector_expression" and not sel.resolve:
        head, _, tail = text(key).rpartition(".")
        expect = new_name(tail, go.text)
        new_key = f"{head}.{expect}"
    elif key.type == "int_literal":
        new_key = expect = "987654321"
    else:
        raise CannotApply(f"cannot write a new map key like `{text(key)}`")
    entry = f"{new_key}: {text(value)}"
    edit = add_element(go, element, entry, "key", (expect,))
    if extra:  # the constant the new key names, at the end of the file
        body = edit.text if edit.text.endswith(("\n", "\r")) else edit.text + go.nl
        after = GoSource(body)
        edit = after.edit(len(after.src), len(after.src), extra, edit.what + f" and `const {new_key}`",
                          edit.expect, edit.line)
    return edit


def _add_call(go: GoSource, fact: Fact) -> Edit:
    """A copy of the last call read with a new argument, placed by ``place_copy``."""
    arg = go.node_at(last_item(fact).location)
    while arg.parent is not None and arg.parent.type != "argument_list":
        arg = arg.parent
    call = arg.parent.parent if arg.parent is not None else None
    if call is None or call.type != "call_expression":
        raise CannotApply(f"no call argument at {last_item(fact).location}")
    new, expect = _new_argument(arg, fact)
    copy = replace_in(call, arg, new)
    return place_copy(go, call, copy, f"added `{copy}`", (expect,))


def _new_argument(old: Node, fact: Fact) -> tuple[str, str]:
    """A literal like ``old`` no item has (``log-level`` -> ``driftguard-selftest``), and its value."""
    taken = {i.value.canonical for i in fact.items}
    if old.type in STRINGS:
        dashed = any("-" in t for t in taken) and not any("_" in t for t in taken)
        base = SELFTEST.replace("_", "-") if dashed else SELFTEST
        value = next(f"{base}{n}" for n in ("", *range(2, 100)) if f"{base}{n}" not in taken)
        return quoted(old, value), value
    if old.type == "int_literal":
        amount = int(max((float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER), default=0)) + 1
        return str(amount), Value(Kind.NUMBER, amount).canonical
    raise NotApplicable("the calls' arguments are neither string nor integer literals; "
                        "the selftest cannot write a new distinct one")


# -- scalars --------------------------------------------------------------------


def change_scalar(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    if isinstance(spec.selector, (Flags, Env)):  # an entry of a map: its default
        return change_default(text_, spec, fact)
    go = GoSource(text_)
    node = go.node_at(fact.items[0].location)
    if node.type == "identifier" and node.parent is not None and node.parent.type in ("const_spec", "var_spec"):
        expr, owner = spec_value(node.parent, node), text(node)
    else:
        owner = ""
        while node.parent is not None and node.parent.start_byte == node.start_byte \
                and node.parent.type in _EXPRESSIONS:
            node = node.parent
        expr = node
    edit = bump(go, expr, {owner} if owner else set(), owner)
    parent = expr.parent
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    if call is not None and " in `" not in edit.what:  # a literal argument: name the call
        edit = replace(edit, what=f"{edit.what} in `{text(call)}`")
    return edit
