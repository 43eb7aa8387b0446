"""The selftest's change of a scalar fact in TypeScript and JavaScript source.

A scalar changes where its value is written: a number literal is bumped
(``5173`` -> ``5174``), a boolean flipped, a string replaced (a numeric string
bumped: ``'3000'`` -> ``'3001'``); an environment read's fallback is changed,
not the variable's name; a name is followed to the const it names and changed
there; an enum member without a value gains one.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.config.loader import FactSpec
from driftguard.model import Fact
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit
from driftguard.sources.typescript.edits import TsSource, quoted
from driftguard.sources.typescript.evaluate import unset
from driftguard.sources.typescript.nodes import STRINGS, WRAPPERS, field, fold, named, string_value, text

_EXPRESSIONS = frozenset({"binary_expression", "call_expression", "member_expression", "subscript_expression",
                          "unary_expression", "ternary_expression", "new_expression", *WRAPPERS})


def change_scalar(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    ts = TsSource(spec.file, text_)
    node = ts.node_at(fact.items[0].location)
    if node.parent is not None and node.parent.type == "enum_body":
        return _give_value(ts, node, fact)
    while node.parent is not None and node.parent.start_byte == node.start_byte and node.parent.type in _EXPRESSIONS:
        node = node.parent
    if node.parent is not None and node.parent.type == "variable_declarator" and field(node.parent, "name") == node:
        value = field(node.parent, "value")
        node = value if value is not None else node
    return bump(ts, node, set())


def _give_value(ts: TsSource, member: Node, fact: Fact) -> Edit:
    """An enum member without a value gains one: the next number."""
    data = fact.items[0].value.data
    if not isinstance(data, int) or isinstance(data, bool):
        raise CannotApply(f"the enum member `{text(member)}` has no number to change")
    new = f"{text(member)} = {data + 1}"
    return ts.edit(member.start_byte, member.end_byte, new, f"`{text(member)}` -> `{new}`")


def bump(ts: TsSource, expr: Node, seen: set[str], owner: str = "") -> Edit:
    """The value ``expr`` gives changed where it is written."""
    context = f" in `{owner} = {fold(expr)}`" if owner else ""
    inner = expr
    while inner.type in WRAPPERS and named(inner):
        inner = named(inner)[0]
    if inner.type == "binary_expression" and text(field(inner, "operator")) in ("??", "||"):
        left, right = field(inner, "left"), field(inner, "right")
        if left is not None and right is not None and unset(left):
            return bump(ts, right, seen, owner)
    if inner.type in ("true", "false"):
        flipped = "false" if inner.type == "true" else "true"
        return ts.edit(inner.start_byte, inner.end_byte, flipped, f"`{text(inner)}` -> `{flipped}`{context}")
    literal = inner if inner.type in ("number", *STRINGS) else _first(ts, inner, ("number", "string"))
    if literal is not None and literal.type == "number":
        new = _bumped(text(literal))
        return ts.edit(literal.start_byte, literal.end_byte, new, f"`{text(literal)}` -> `{new}`{context}")
    for ident in [inner] if inner.type == "identifier" else ts.tree.nodes(inner, "identifier"):
        name = text(ident)
        binding = ts.tree.index.const(name)
        if name not in seen and binding is not None and binding.value is not None and binding.keyword == "const":
            return bump(ts, binding.value, seen | {name}, name)
    if literal is not None:
        old = string_value(literal)
        new_text = str(int(old) + 1) if old is not None and old.strip().isdigit() else SELFTEST
        new = quoted(literal, new_text)
        return ts.edit(literal.start_byte, literal.end_byte, new, f"`{text(literal)}` -> `{new}`{context}")
    raise CannotApply(f"no number, boolean, string or const to change in `{fold(expr)}`")


def _first(ts: TsSource, node: Node, kinds: tuple[str, ...]) -> Node | None:
    found = ts.tree.nodes(node, *kinds)
    return found[0] if found else None


def _bumped(written: str) -> str:
    digits = written.replace("_", "")
    if digits.endswith("n"):
        return f"{int(digits[:-1], 0) + 1}n"
    try:
        return str(int(digits, 0) + 1)
    except ValueError:
        try:
            return repr(float(digits) + 1.0)
        except ValueError:
            raise CannotApply(f"cannot read the number `{written}`") from None
