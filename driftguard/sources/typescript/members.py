"""The selftest's new member of a set fact in TypeScript and JavaScript source, shaped
like the member the fact read last:

- ``constants``: an enum member, a union member (``| 'driftguard_selftest'``),
  an object key, or a top-level const whose name the regex matches;
- ``map_keys``: a key; ``list``: an element; ``fields``: a property (a
  parameter property beside a constructor's);
- ``calls``: a copy of the last call with a new argument (chained after it
  when the call is part of a chain, a statement or element of its own else);
- ``flags``: a copy of the last option with a new name (a key of ``.options``);
- ``cases``: a new ``case`` label falling through to the last one;
- ``classes``: a class extending the last one read;
- ``env``: a read of a new variable, in the same spelling as the last one.

A new string is ``driftguard_selftest`` (dashed or camel-cased where the
neighbours are), a new number one past the largest.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Cases, Classes, Constants, Env, Fields, Flags, ListOf, MapKeys
from driftguard.model import Fact, Kind
from driftguard.sources.mutation import IDENTIFIER, SELFTEST, CannotApply, Edit, NotApplicable, last_item, new_name
from driftguard.sources.typescript.edits import TsSource, quoted, up
from driftguard.sources.typescript.nodes import named, text

_ENTRIES = ("pair", "shorthand_property_identifier", "method_definition")


def add_member(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    ts, sel = TsSource(spec.file, text_), spec.selector
    at = ts.node_at(last_item(fact).location)
    if isinstance(sel, Constants):
        return _constant(ts, sel, fact, at)
    if isinstance(sel, MapKeys):
        return _key(ts, at, fact)
    if isinstance(sel, Flags):
        return _option(ts, at, fact)
    if isinstance(sel, ListOf):
        return ts.after_element(at, _literal(at, fact), f"added the element {_literal(at, fact)}",
                                (_expected(_literal(at, fact)),))
    if isinstance(sel, Calls):
        return _call(ts, at, fact)
    if isinstance(sel, Fields):
        return _field(ts, at, fact)
    if isinstance(sel, Cases):
        return _case(ts, at, fact)
    if isinstance(sel, Classes):
        return _class(ts, at)
    if isinstance(sel, Env):
        return _env(ts, at, fact)
    raise NotApplicable(f"a {type(sel).__name__} selector is not a set")


def _literal(like: Node, fact: Fact) -> str:
    """A literal no item has, in the kind of ``like`` (a string, else a number)."""
    numbers = [i.value.data for i in fact.items if i.value.kind is Kind.NUMBER]
    if like.type == "number" and numbers:
        return str(int(max(float(n) for n in numbers)) + 1)
    if like.type in ("string", "template_string") or not numbers:
        return quoted(like, _fresh(fact))
    raise NotApplicable(f"cannot write a new member like `{text(like)}`")


def _fresh(fact: Fact) -> str:
    taken = {i.value.canonical for i in fact.items} | {i.label for i in fact.items}
    shown = [t for t in taken if t]
    if shown and all("-" in t or t.islower() for t in shown) and any("-" in t for t in shown):
        base = SELFTEST.replace("_", "-")
    elif shown and any(t[:1].islower() and any(c.isupper() for c in t) for t in shown):
        base = "driftguardSelftest"
    else:
        base = SELFTEST
    return next(f"{base}{n}" for n in ("", *range(2, 100)) if f"{base}{n}" not in taken)


def _expected(literal: str) -> str:
    return literal.strip("'\"`")


def _constant(ts: TsSource, sel: Constants, fact: Fact, at: Node) -> Edit:
    literal = up(at, ("literal_type",))
    if literal is not None:  # a union member
        new = _literal(named(literal)[0] if named(literal) else literal, fact)
        return ts.edit(literal.end_byte, literal.end_byte, f" | {new}", f"added `| {new}` to type {sel.type}",
                       (_expected(new),))
    member = up(at, ("pair", "enum_assignment", "enum_body"))
    if member is not None and member.type == "enum_body":
        member = at
    if member is not None and member.type in ("enum_assignment", "property_identifier", "string"):
        return _enum_member(ts, sel, fact, member)
    if member is not None and member.type == "pair":
        value = member.child_by_field_name("value")
        return _key(ts, at, fact, None if value is None or sel.values == "names" else _literal(value, fact))
    declarator = up(at, ("variable_declarator",))
    statement = up(declarator, ("lexical_declaration",))
    if declarator is None or statement is None:
        raise CannotApply(f"no enum, union, object or const at {last_item(fact).location}")
    if statement.parent is not None and statement.parent.type == "export_statement":
        statement = statement.parent
    ident, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
    name = new_name(text(ident), ts.text, sel.name)
    copy = text(statement)
    copy = copy.replace(text(ident), name, 1)
    expect = name
    if value is not None and sel.values != "names":
        new = _literal(value, fact)
        head = text(statement)[:value.start_byte - statement.start_byte].replace(text(ident), name, 1)
        copy, expect = head + new + text(statement)[value.end_byte - statement.start_byte:], _expected(new)
    at_ = ts.after_line(statement.end_byte)
    return ts.edit(at_, at_, copy + ts.nl, f"added `{copy.splitlines()[0]}`", (expect,))


def _enum_member(ts: TsSource, sel: Constants, fact: Fact, member: Node) -> Edit:
    name_node = member.child_by_field_name("name") if member.type == "enum_assignment" else member
    name = new_name(text(name_node), ts.text, sel.name)
    value = member.child_by_field_name("value") if member.type == "enum_assignment" else None
    entry, expect = name, name
    if value is not None:
        new = _literal(value, fact)
        entry = f"{name} = {new}"
        expect = name if sel.values == "names" else _expected(new)
    elif sel.values != "names":
        expect = ""
    return ts.after_element(member, entry, f"added the enum member `{entry}`", (expect,) if expect else ())


def _key(ts: TsSource, at: Node, fact: Fact, value: str | None = None) -> Edit:
    """A new entry after the one around ``at``: its value copied, or ``value`` (the
    member the selftest expects, when the fact reads the values)."""
    entry = up(at, _ENTRIES)
    if entry is None or entry.parent is None or entry.parent.type != "object":
        raise CannotApply(f"no object entry at {last_item(fact).location}")
    key = entry.child_by_field_name("key") or entry.child_by_field_name("name") or entry
    fresh = _fresh(fact) if value is None else new_name(text(key), ts.text)
    new_key = quoted(key, fresh) if key.type == "string" or "-" in fresh else fresh
    copied = entry.child_by_field_name("value")
    if entry.type == "method_definition":
        new = f"{new_key}() {{}}"
    else:
        new = f"{new_key}: {value or (text(copied) if copied is not None else 'null')}"
    expect = fresh if value is None else _expected(value)
    return ts.after_element(entry, new, f"added the key `{new_key}`", (expect,))


def _call(ts: TsSource, at: Node, fact: Fact) -> Edit:
    call = up(at, ("call_expression", "new_expression"))
    while call is not None and not any(_inside(at, a) for a in _arguments(call)):
        call = up(call.parent, ("call_expression", "new_expression"))
    if call is None:
        raise CannotApply(f"no call around {last_item(fact).location}")
    new = _literal(at, fact)
    return _copied(ts, call, at, new, _expected(new), _chained(call))


def _option(ts: TsSource, at: Node, fact: Fact) -> Edit:
    """A copy of the option defined around ``at``, with a new name."""
    node: Node | None = at
    while node is not None:
        if node.type == "pair" and _options_call(node):
            return _key(ts, node.child_by_field_name("key") or node, fact)
        if node.type in ("call_expression", "new_expression") and _arguments(node) and (
                node.type == "new_expression" or text(node.child_by_field_name("function")).endswith("ption")):
            flag = _arguments(node)[0]
            fresh = _fresh(fact)
            new = _flag(text(flag), fresh)
            if node.type == "call_expression":
                return _copied(ts, node, flag, new, fresh, True)
            built = node  # ``new Option(...)``, with what is chained on it (``.default(4)``)
            while built.parent is not None and built.parent.type in ("member_expression", "call_expression"):
                built = built.parent
            holder = built.parent.parent if built.parent is not None else None
            if holder is None or built.parent is None or built.parent.type != "arguments":
                raise CannotApply(f"`new Option(...)` at line {ts.line(node.start_byte)} is passed to no call")
            copy = text(built).replace(text(flag), new, 1)
            return _copied(ts, holder, built, copy, fresh, True)
        node = node.parent
    raise CannotApply(f"no option defined around {last_item(fact).location}")


def _options_call(pair: Node) -> bool:
    """Whether ``pair`` is a key of the object given to ``.options({...})``."""
    args = pair.parent.parent if pair.parent is not None else None
    call = args.parent if args is not None and args.type == "arguments" else None
    return call is not None and text(call.child_by_field_name("function")).endswith(".options")


def _copied(ts: TsSource, call: Node, target: Node, new: str, expect: str, chain: bool) -> Edit:
    """A copy of ``call`` with ``target`` replaced by ``new``: chained after it (``chain``),
    an element after it, or a statement after the one holding it."""
    copy = text(call)[:target.start_byte - call.start_byte] + new + text(call)[target.end_byte - call.start_byte:]
    what = f"added `{_first_line(copy)}`"
    callee = call.child_by_field_name("function")
    owner = callee.child_by_field_name("object") if callee is not None and callee.type == "member_expression" \
        else None
    if owner is not None and call.type == "call_expression" and chain:
        tail = copy[owner.end_byte - call.start_byte:]
        return ts.edit(call.end_byte, call.end_byte, tail, f"added `{_first_line(tail)}`", (expect,))
    holder = call.parent
    if holder is not None and holder.type in ("array", "arguments"):
        return ts.after_element(call, copy, what, (expect,))
    statement = call
    while statement.parent is not None and statement.parent.type not in ("program", "statement_block",
                                                                            "switch_case", "class_body"):
        statement = statement.parent
    indent = ts.indent(statement) or ""
    end = ts.after_line(statement.end_byte)
    return ts.edit(end, end, f"{indent}{copy};{ts.nl}", what, (expect,))


def _first_line(written: str, limit: int = 100) -> str:
    """``written`` on one line, white space folded, cut to ``limit`` characters."""
    folded = " ".join(written.split())
    return folded if len(folded) <= limit else folded[:limit - 3].rstrip() + "..."


def _flag(written: str, name: str) -> str:
    """The flags text ``written`` with its name replaced: ``'-p, --port <n>'`` -> ``'--name <n>'``."""
    quote, body = written[:1], written[1:-1]
    dashes = "--" if body.lstrip().startswith("-") else ""
    rest = body.split("<", 1)[1] if "<" in body else body.split("[", 1)[1] if "[" in body else ""
    bracket = "<" if "<" in body else "[" if "[" in body else ""
    return f"{quote}{dashes}{name}{' ' + bracket + rest if bracket else ''}{quote}"


def _chained(call: Node) -> bool:
    parent = call.parent
    return parent is not None and parent.type == "member_expression" and parent.parent is not None \
        and parent.parent.type == "call_expression"


def _arguments(call: Node) -> list[Node]:
    return named(call.child_by_field_name("arguments"))


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _field(ts: TsSource, at: Node, fact: Fact) -> Edit:
    member = up(at, ("property_signature", "public_field_definition", "field_definition", "required_parameter",
                     "optional_parameter"))
    if member is None:
        raise CannotApply(f"no property or field at {last_item(fact).location}")
    name = new_name(text(at), ts.text)
    if member.type in ("required_parameter", "optional_parameter"):
        return ts.after_element(member, f"public {name}?: string", f"added the parameter property `{name}`",
                                (name,))
    typed = ts.tree.grammar.name != "JavaScript"
    new = f"{name}?: string" if typed else f"{name} = null"
    gap = ts.src[member.end_byte:member.end_byte + 1]
    separator = gap.decode() if gap in (b";", b",") else ""
    indent = ts.indent(member)
    if indent is None:
        at_ = member.end_byte + len(separator)
        return ts.edit(at_, at_, f" {new}{separator or ';'}", f"added the property `{new}`", (name,))
    at_ = ts.after_line(member.end_byte)
    return ts.edit(at_, at_, f"{indent}{new}{separator}{ts.nl}", f"added the property `{new}`", (name,))


def _case(ts: TsSource, at: Node, fact: Fact) -> Edit:
    case = up(at, ("switch_case",))
    if case is None:
        raise CannotApply(f"no case at {last_item(fact).location}")
    numbers = all(i.value.kind is Kind.NUMBER for i in fact.items)
    label = str(int(max(float(i.value.data) for i in fact.items)) + 1) if numbers else quoted(at, _fresh(fact))
    indent = ts.indent(case)
    if indent is None:
        return ts.edit(case.start_byte, case.start_byte, f"case {label}: ", f"added `case {label}:`",
                       (_expected(label),))
    start = ts.line_start(case.start_byte)
    return ts.edit(start, start, f"{indent}case {label}:{ts.nl}", f"added `case {label}:`", (_expected(label),))


def _class(ts: TsSource, at: Node) -> Edit:
    name = new_name(text(at), ts.text)
    end = ts.text if ts.text.endswith(("\n", "\r")) or not ts.text else ts.text + ts.nl
    new = f"class {name} extends {text(at)} {{}}"
    after = TsSource(ts.path, end)
    return after.edit(len(after.src), len(after.src), f"{ts.nl}{new}{ts.nl}", f"added `{new}`", (name,))


def _env(ts: TsSource, at: Node, fact: Fact) -> Edit:
    read = up(at, ("member_expression", "subscript_expression"))
    spelling = "import.meta.env" if read is not None and "import.meta" in text(read) else "process.env"
    taken = {i.label or str(i.value.data) for i in fact.items} | set(IDENTIFIER.findall(ts.text))
    name = new_name(text(at).strip("'\"`") or "DRIFTGUARD", taken)
    end = ts.text if ts.text.endswith(("\n", "\r")) or not ts.text else ts.text + ts.nl
    after = TsSource(ts.path, end)
    new = f"void {spelling}.{name}"
    return after.edit(len(after.src), len(after.src), f"{new}{ts.nl}", f"added `{new}`", (name,))
