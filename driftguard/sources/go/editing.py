"""What the Go selftest mutators share: a Go file as bytes with its tree, and the
edits that place new code in the style of its neighbours. Every edit is
re-parsed and refused when it would introduce a syntax error."""

from __future__ import annotations

from tree_sitter import Node, Parser

from driftguard.model import Location
from driftguard.sources.go.index import LANGUAGE, nodes_of
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, newline_of

STRINGS = ("interpreted_string_literal", "raw_string_literal")
NUMBERS = ("int_literal", "float_literal")
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


def up(node: Node | None, kinds: tuple[str, ...]) -> Node | None:
    while node is not None and node.type not in kinds:
        node = node.parent
    return node


def first(node: Node, kinds: tuple[str, ...]) -> Node | None:
    found = nodes_of(node, kinds)
    return found[0] if found else None


def quoted(like: Node | None, value: str) -> str:
    return f"`{value}`" if like is not None and like.type == "raw_string_literal" else f'"{value}"'


def replace_in(expr: Node, part: Node, new: str) -> str:
    whole = expr.text or b""
    a, b = part.start_byte - expr.start_byte, part.end_byte - expr.start_byte
    return (whole[:a] + new.encode() + whole[b:]).decode("utf-8")


def place_copy(go: GoSource, expr: Node, copy: str, what: str, expect: tuple[str, ...]) -> Edit:
    """``copy`` (an expression like ``expr``) placed after ``expr``: a statement after its
    statement (``_ =`` where ``expr`` is assigned, ``var _ =`` at the top level), or an
    element after it in its list."""
    holder = expr.parent
    statement = holder.parent if holder is not None and holder.type == "expression_list" else holder
    kind = statement.type if statement is not None else ""
    if statement is not None and kind in ("expression_statement", "short_var_declaration",
                                          "assignment_statement", "var_spec"):
        indent = go.indent(statement)
        if indent is None:
            raise CannotApply(f"the code at line {go.line(expr.start_byte)} does not start its line")
        lead = "" if kind == "expression_statement" else "_ = "
        if kind == "var_spec" and statement.parent is not None and statement.parent.type == "var_declaration":
            statement, lead = statement.parent, "var _ = "
        at = go.after_line(statement.end_byte)
        return go.edit(at, at, f"{indent}{lead}{copy}{go.nl}", what, expect)
    if holder is None or holder.type not in ("literal_element", "argument_list"):
        raise CannotApply(f"the code at line {go.line(expr.start_byte)} is neither a statement nor an element")
    element = holder if holder.type == "literal_element" else expr
    close = element.parent.children[-1] if element.parent is not None else None
    indent = go.indent(element)
    if indent is not None and close is not None and go.line(close.start_byte) != go.line(element.end_byte):
        at = go.after_line(element.end_byte)
        return go.edit(at, at, f"{indent}{copy},{go.nl}", what, expect)
    return go.edit(element.end_byte, element.end_byte, f", {copy}", what, expect)


def add_element(go: GoSource, element: Node, entry: str, kind: str, expect: tuple[str, ...]) -> Edit:
    """``entry`` added to the literal holding ``element``, right after it: on its own line
    when ``element`` has one, else after a comma on the same line."""
    parent = element.parent
    close = next((c for c in parent.children if c.type == "}"), None) if parent is not None else None
    indent = go.indent(element)
    if close is None or indent is None or go.line(close.start_byte) == go.line(element.end_byte):
        return go.edit(element.end_byte, element.end_byte, f", {entry}", f"added the {kind} `{entry}`", expect)
    at = go.after_line(element.end_byte)
    return go.edit(at, at, f"{indent}{entry},{go.nl}", f"added the {kind} line `{entry},`", expect)


def spec_value(spec: Node, ident: Node) -> Node:
    names = [n for n in spec.children_by_field_name("name") if n.type == "identifier"]
    value = spec.child_by_field_name("value")
    exprs = value.named_children if value is not None else []
    index = names.index(ident) if ident in names else 0
    if index >= len(exprs):
        raise CannotApply(f"`{text(ident)}` repeats the previous spec's value; the selftest cannot change it alone")
    return exprs[index]


def bump(go: GoSource, expr: Node, seen: set[str], owner: str = "") -> Edit:
    """The first number literal of ``expr`` changed, else the first constant it names,
    else the whole expression doubled; ``owner`` names the const ``expr`` defines."""
    context = f"{owner} = {text(expr)}" if owner else text(expr)
    where = f" in `{context}`" if context != text(expr) else ""
    if expr.type in ("true", "false"):
        flipped = "false" if expr.type == "true" else "true"
        return go.edit(expr.start_byte, expr.end_byte, flipped, f"`{text(expr)}` -> `{flipped}`{where}")
    literal = first(expr, NUMBERS) if expr.type not in NUMBERS else expr
    if literal is not None:
        old = text(literal)
        new = bumped_literal(old, literal.type)
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
            return bump(go, spec_value(specs[0], target), seen | {name}, name)
    string = expr if expr.type in STRINGS else None
    if string is not None or (expr.type == "call_expression" and (string := first(expr, STRINGS)) is not None):
        new = quoted(string, SELFTEST)
        return go.edit(string.start_byte, string.end_byte, new, f"`{text(string)}` -> `{new}`{where}")
    if expr.type in ("identifier", "selector_expression"):
        whole = text(expr)
        return go.edit(expr.start_byte, expr.end_byte, f"2 * {whole}", f"`{context}` -> `2 * {whole}`")
    raise CannotApply(f"no number or constant to change in `{context}`")


def bumped_literal(old: str, kind: str) -> str:
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
