"""Selftest mutations of Go source, located with tree-sitter-go.

A set gains a member shaped like its last one: a const or var spec (same
type, indentation and gofmt alignment), a ``case X: return "..."`` before the
``default`` of a ``String`` method, a map key line (of a local map too), or a
copy of the last call a ``calls`` fact read with a new literal argument. A
scalar changes the first number literal of its expression (``10 *
time.Minute`` -> ``11 * time.Minute``), following a named constant to its
definition; a ``true`` is flipped and a string replaced where there is no
number; a value read by a key path is changed where the path leads. Every edit
is re-parsed and refused when it would introduce a syntax error.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node, Parser

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Constants, MapKeys, StringMethod
from driftguard.model import Fact, Kind, Location, Value
from driftguard.sources.go.index import LANGUAGE, nodes_of
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, last_item, new_name, newline_of

_STRINGS = ("interpreted_string_literal", "raw_string_literal")
_NUMBERS = ("int_literal", "float_literal")
_EXPRESSIONS = {"binary_expression", "call_expression", "selector_expression", "index_expression",
                "parenthesized_expression", "unary_expression", "type_conversion_expression"}


class GoSource:
    """A Go file as bytes with its syntax tree, and byte-level edit helpers."""

    def __init__(self, text: str) -> None:
        self.text, self.src = text, text.encode("utf-8")
        self.root = Parser(LANGUAGE).parse(self.src).root_node
        self.nl = newline_of(text)

    def node_at(self, loc: Location | None) -> Node:
        if loc is None or loc.line is None:
            raise CannotApply("the fact's value has no location")
        lines = self.src.split(b"\n")
        if loc.line > len(lines):
            raise CannotApply(f"no line {loc.line} in {loc.path}")
        start = sum(len(x) + 1 for x in lines[:loc.line - 1])
        chars = lines[loc.line - 1].decode("utf-8", errors="replace")[:max((loc.column or 1) - 1, 0)]
        offset = start + len(chars.encode("utf-8"))
        node = self.root.named_descendant_for_byte_range(offset, offset)
        if node is None:
            raise CannotApply(f"nothing at {loc}")
        return node

    def line_start(self, at: int) -> int:
        return self.src.rfind(b"\n", 0, at) + 1

    def after_line(self, at: int) -> int:
        """The offset just after the line break ending the line that holds ``at``."""
        end = self.src.find(b"\n", at)
        return len(self.src) if end < 0 else end + 1

    def indent(self, node: Node) -> str | None:
        """The whitespace before ``node`` on its line, or None when code precedes it."""
        lead = self.src[self.line_start(node.start_byte):node.start_byte]
        return lead.decode() if not lead.strip() else None

    def line(self, at: int) -> int:
        return self.src.count(b"\n", 0, at) + 1

    def edit(self, at: int, end: int, insert: str, what: str, expect: tuple[str, ...] = (),
             line: int | None = None) -> Edit:
        """Replace bytes ``[at, end)`` with ``insert``; refused when the result no longer parses."""
        data = self.src[:at] + insert.encode("utf-8") + self.src[end:]
        if Parser(LANGUAGE).parse(data).root_node.has_error and not self.root.has_error:
            raise CannotApply(f"the mutated Go file would not parse ({what})")
        return Edit(data.decode("utf-8"), what, line or self.line(at), expect)


def text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", errors="replace") if node is not None else ""


def _up(node: Node | None, kinds: tuple[str, ...]) -> Node | None:
    while node is not None and node.type not in kinds:
        node = node.parent
    return node


def _first(node: Node, kinds: tuple[str, ...]) -> Node | None:
    found = nodes_of(node, kinds)
    return found[0] if found else None


def _quoted(like: Node | None, value: str) -> str:
    return f"`{value}`" if like is not None and like.type == "raw_string_literal" else f'"{value}"'


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
    raise NotApplicable(f"a {type(sel).__name__} selector is not a set")


def _add_const(go: GoSource, sel: Constants, fact: Fact) -> Edit:
    ident = go.node_at(last_item(fact).location)
    spec = _up(ident, ("const_spec", "var_spec"))
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
    literal = _first(expr, _STRINGS)
    if literal is not None:
        new = _quoted(literal, SELFTEST)
        return _replace_in(expr, literal, new), SELFTEST
    numbers = [float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER]
    literal = _first(expr, _NUMBERS)
    if literal is not None and numbers:
        amount = int(max(numbers)) + 1
        return _replace_in(expr, literal, str(amount)), Value(Kind.NUMBER, float(amount)).canonical
    return text(expr), None


def _replace_in(expr: Node, part: Node, new: str) -> str:
    whole = expr.text or b""
    a, b = part.start_byte - expr.start_byte, part.end_byte - expr.start_byte
    return (whole[:a] + new.encode() + whole[b:]).decode("utf-8")


def _pad(word: str, width: int) -> str:
    return word.ljust(width) if len(word) < width else word + " "


def _expect(value: str | None) -> tuple[str, ...]:
    return (value,) if value is not None else ()


def _add_case(go: GoSource, fact: Fact) -> Edit:
    returned = go.node_at(last_item(fact).location)
    case = _up(returned, ("expression_case", "type_case"))
    if case is None:  # ``return [...]string{...}[k]``: one more element
        literal = _up(returned, _STRINGS)
        if literal is None:
            raise CannotApply(f"no switch case or string element at {last_item(fact).location}")
        new = _quoted(literal, SELFTEST)
        return go.edit(literal.end_byte, literal.end_byte, f", {new}", f"added the element {new}", (SELFTEST,))
    switch = case.parent
    default = next((c for c in switch.named_children if c.type == "default_case"), None) if switch else None
    labels = case.child_by_field_name("value") or case.child_by_field_name("type")
    first = labels.named_children[0] if labels is not None and labels.named_children else labels
    label = _new_label(go, first)
    ret = _first(case, ("return_statement",))
    indent = go.indent(case)
    if indent is None or ret is None:
        raise CannotApply(f"the case at line {go.line(case.start_byte)} is not laid out one statement a line")
    body = go.indent(ret) or indent + "\t"
    literal = _up(returned, _STRINGS)
    block = f"{indent}case {label}:{go.nl}{body}return {_quoted(literal, SELFTEST)}{go.nl}"
    at = go.line_start(default.start_byte) if default is not None else go.after_line(case.end_byte)
    return go.edit(at, at, block, f"added `case {label}: return \"{SELFTEST}\"`", (SELFTEST,))


def _new_label(go: GoSource, node: Node | None) -> str:
    kind = node.type if node is not None else ""
    if kind in ("identifier", "type_identifier"):
        return new_name(text(node), go.text)
    if kind in ("selector_expression", "qualified_type"):
        head, _, tail = text(node).rpartition(".")
        return f"{head}.{new_name(tail, go.text)}"
    if kind in _STRINGS:
        return _quoted(node, SELFTEST)
    if kind == "int_literal":
        return "987654321"
    raise CannotApply(f"cannot write a new case label like `{text(node)}`")


def _add_key(go: GoSource, sel: MapKeys, fact: Fact) -> Edit:
    key = go.node_at(last_item(fact).location)
    element = _up(key, ("keyed_element",))
    if element is None or element.parent is None:
        raise CannotApply(f"no map element at {last_item(fact).location}")
    value = element.child_by_field_name("value") or element.named_children[-1]
    extra = ""
    if key.type in _STRINGS:
        new_key, expect = _quoted(key, SELFTEST), SELFTEST
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
    close = next((c for c in element.parent.children if c.type == "}"), None)
    indent = go.indent(element)
    if close is None or indent is None or go.line(close.start_byte) == go.line(element.end_byte):
        edit = go.edit(element.end_byte, element.end_byte, f", {entry}", f"added the key `{entry}`", (expect,))
    else:
        at = go.after_line(element.end_byte)
        edit = go.edit(at, at, f"{indent}{entry},{go.nl}", f"added the key line `{entry},`", (expect,))
    if extra:  # the constant the new key names, at the end of the file
        body = edit.text if edit.text.endswith(("\n", "\r")) else edit.text + go.nl
        after = GoSource(body)
        edit = after.edit(len(after.src), len(after.src), extra, edit.what + f" and `const {new_key}`",
                          edit.expect, edit.line)
    return edit


def _add_call(go: GoSource, fact: Fact) -> Edit:
    """A copy of the last call read with a new argument: a statement after its statement
    (``_ =`` where the call is assigned), or an element after it in its list."""
    arg = go.node_at(last_item(fact).location)
    while arg.parent is not None and arg.parent.type != "argument_list":
        arg = arg.parent
    call = arg.parent.parent if arg.parent is not None else None
    if call is None or call.type != "call_expression":
        raise CannotApply(f"no call argument at {last_item(fact).location}")
    new, expect = _new_argument(arg, fact)
    copy = _replace_in(call, arg, new)
    what = f"added `{copy}`"
    holder = call.parent
    statement = holder.parent if holder is not None and holder.type == "expression_list" else holder
    kind = statement.type if statement is not None else ""
    if statement is not None and kind in ("expression_statement", "short_var_declaration",
                                          "assignment_statement", "var_spec"):
        indent = go.indent(statement)
        if indent is None:
            raise CannotApply(f"the call at line {go.line(call.start_byte)} does not start its line")
        lead = "" if kind == "expression_statement" else "_ = "
        if kind == "var_spec" and statement.parent is not None and statement.parent.type == "var_declaration":
            statement, lead = statement.parent, "var _ = "
        at = go.after_line(statement.end_byte)
        return go.edit(at, at, f"{indent}{lead}{copy}{go.nl}", what, (expect,))
    if holder is None or holder.type not in ("literal_element", "argument_list"):
        raise CannotApply(f"the call at line {go.line(call.start_byte)} is neither a statement nor an element")
    element = holder if holder.type == "literal_element" else call
    close = element.parent.children[-1] if element.parent is not None else None
    indent = go.indent(element)
    if indent is not None and close is not None and go.line(close.start_byte) != go.line(element.end_byte):
        at = go.after_line(element.end_byte)
        return go.edit(at, at, f"{indent}{copy},{go.nl}", what, (expect,))
    return go.edit(element.end_byte, element.end_byte, f", {copy}", what, (expect,))


def _new_argument(old: Node, fact: Fact) -> tuple[str, str]:
    """A literal like ``old`` no item has (``log-level`` -> ``driftguard-selftest``), and its value."""
    taken = {i.value.canonical for i in fact.items}
    if old.type in _STRINGS:
        dashed = any("-" in t for t in taken) and not any("_" in t for t in taken)
        base = SELFTEST.replace("_", "-") if dashed else SELFTEST
        value = next(f"{base}{n}" for n in ("", *range(2, 100)) if f"{base}{n}" not in taken)
        return _quoted(old, value), value
    if old.type == "int_literal":
        amount = int(max((float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER), default=0)) + 1
        return str(amount), Value(Kind.NUMBER, amount).canonical
    raise NotApplicable("the calls' arguments are neither string nor integer literals; "
                        "the selftest cannot write a new distinct one")


# -- scalars --------------------------------------------------------------------


def change_scalar(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    go = GoSource(text_)
    node = go.node_at(fact.items[0].location)
    if node.type == "identifier" and node.parent is not None and node.parent.type in ("const_spec", "var_spec"):
        expr, owner = _spec_value(node.parent, node), text(node)
    else:
        owner = ""
        while node.parent is not None and node.parent.start_byte == node.start_byte \
                and node.parent.type in _EXPRESSIONS:
            node = node.parent
        expr = node
    edit = _bump(go, expr, {owner} if owner else set(), owner)
    parent = expr.parent
    call = parent.parent if parent is not None and parent.type == "argument_list" else None
    if call is not None and " in `" not in edit.what:  # a literal argument: name the call
        edit = replace(edit, what=f"{edit.what} in `{text(call)}`")
    return edit


def _spec_value(spec: Node, ident: Node) -> Node:
    names = [n for n in spec.children_by_field_name("name") if n.type == "identifier"]
    value = spec.child_by_field_name("value")
    exprs = value.named_children if value is not None else []
    index = names.index(ident) if ident in names else 0
    if index >= len(exprs):
        raise CannotApply(f"`{text(ident)}` repeats the previous spec's value; the selftest cannot change it alone")
    return exprs[index]


def _bump(go: GoSource, expr: Node, seen: set[str], owner: str = "") -> Edit:
    """The first number literal of ``expr`` changed, else the first constant it names,
    else the whole expression doubled; ``owner`` names the const ``expr`` defines."""
    context = f"{owner} = {text(expr)}" if owner else text(expr)
    where = f" in `{context}`" if context != text(expr) else ""
    if expr.type in ("true", "false"):
        flipped = "false" if expr.type == "true" else "true"
        return go.edit(expr.start_byte, expr.end_byte, flipped, f"`{text(expr)}` -> `{flipped}`{where}")
    literal = _first(expr, _NUMBERS) if expr.type not in _NUMBERS else expr
    if literal is not None:
        old = text(literal)
        new = _bumped_literal(old, literal.type)
        where = f" in `{context}`" if context != old else ""
        return go.edit(literal.start_byte, literal.end_byte, new, f"`{old}` -> `{new}`{where}")
    for ident in ([expr] if expr.type == "identifier" else nodes_of(expr, ("identifier",))):
        name = text(ident)
        if name in seen:
            continue
        specs = [s for s in nodes_of(go.root, ("const_spec",))
                 if any(text(n) == name for n in s.children_by_field_name("name"))]
        if len(specs) == 1:
            target = next(n for n in specs[0].children_by_field_name("name") if text(n) == name)
            return _bump(go, _spec_value(specs[0], target), seen | {name}, name)
    string = expr if expr.type in _STRINGS else None
    if string is not None or (expr.type == "call_expression" and (string := _first(expr, _STRINGS)) is not None):
        new = _quoted(string, SELFTEST)
        return go.edit(string.start_byte, string.end_byte, new, f"`{text(string)}` -> `{new}`{where}")
    if expr.type in ("identifier", "selector_expression"):
        whole = text(expr)
        return go.edit(expr.start_byte, expr.end_byte, f"2 * {whole}", f"`{context}` -> `2 * {whole}`")
    raise CannotApply(f"no number or constant to change in `{context}`")


def _bumped_literal(old: str, kind: str) -> str:
    digits = old.replace("_", "")
    if kind == "int_literal":
        try:
            return str(int(digits, 0) + 1)
        except ValueError:
            return str(int(digits.lstrip("0") or "0", 8 if digits.startswith("0") else 10) + 1)
    try:
        return repr(float(digits) + 1.0)
    except ValueError:
        raise CannotApply(f"cannot read the number `{old}`") from None
