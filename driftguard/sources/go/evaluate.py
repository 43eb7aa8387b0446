"""Evaluate Go constant expressions from a tree-sitter-go tree.

Covers what guarded constants are written in: int, float and rune literals,
interpreted and raw strings, ``true``/``false``, ``iota``, arithmetic, shifts
and bitwise operators, comparisons, references to other constants of the file
(recursively, cycle-safe), conversions (``time.Duration(5)``, ``float64(x)``,
a type of the file, and the project's own types a fact names in ``unwrap``:
``model.Duration(1 * time.Minute)`` is one minute), the ``time`` units and ``errors.New("...")``, whose value is
its message (what ``err.Error()`` returns). Durations follow Go: a duration is
an integer count of nanoseconds, so ``time.Duration(5) * time.Second`` is five
seconds; dividing a duration by a duration gives a plain number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tree_sitter import Node

from driftguard.model import Kind, Value

TIME_UNITS = {
    "Nanosecond": 1,
    "Microsecond": 10**3,
    "Millisecond": 10**6,
    "Second": 10**9,
    "Minute": 60 * 10**9,
    "Hour": 3600 * 10**9,
}
INT_TYPES = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
             "uint32", "uint64", "uintptr", "byte", "rune"}
FLOAT_TYPES = {"float32", "float64"}
MAX_DEPTH = 200
MAX_INT = 2**256
ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "'": 39, '"': 34}
ESCAPE = re.compile(r"\\(?:([abfnrtv\\'\"])|([0-7]{3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")


class Unevaluable(Exception):
    """An expression driftguard cannot evaluate; ``node`` is the part that failed."""

    def __init__(self, message: str, node: Node | None = None, gave_up: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.node = node
        self.gave_up = gave_up  # a bound of the evaluator, not the source's shape


@dataclass(frozen=True)
class Const:
    """A Go value while evaluating: ``tag`` is num, dur (nanoseconds), str or bool."""

    tag: str
    x: int | float | str | bool


class Binding(Protocol):
    """What a name lookup returns: a spec's expression, its iota and its declaration."""

    expr: Node | None
    iota: int
    decl: Node


@dataclass
class Evaluator:
    """Evaluates expressions of one file; ``lookup`` resolves a name to its bindings."""

    lookup: Callable[[str], list[Binding]]
    types: frozenset[str] = frozenset()
    unwrap: tuple[str, ...] = ()  # conversions read through: ``model.Duration``, or ``Duration`` for any package's
    consulted: list[Binding] = field(default_factory=list)
    _active: set[str] = field(default_factory=set)
    _memo: dict[str, Const] = field(default_factory=dict)
    _depth: int = 0

    def value(self, node: Node, iota: int = 0, text: str | None = None, name: str = "") -> Value:
        """The ``Value`` of ``node`` (the expression of ``name``, if given);
        ``text`` defaults to its folded source text."""
        if name:
            self._active.add(name)
        c = self.eval(node, iota)
        shown = fold(node.text) if text is None else text
        if c.tag == "dur":
            return Value(Kind.DURATION, float(c.x) / 1e9, shown)
        if c.tag == "num":
            exact = isinstance(c.x, int) and not isinstance(c.x, bool)
            return Value(Kind.NUMBER, c.x if exact else float(c.x), shown)
        if c.tag == "str":
            return Value(Kind.STRING, str(c.x), shown)
        return Value(Kind.BOOL, bool(c.x), shown)

    def eval(self, node: Node, iota: int = 0) -> Const:
        if self._depth > MAX_DEPTH:
            raise Unevaluable(f"the expression is nested more than {MAX_DEPTH} deep", node, gave_up=True)
        self._depth += 1
        try:
            return self._eval(node, iota)
        finally:
            self._depth -= 1

    def _eval(self, node: Node, iota: int) -> Const:
        kind = node.type
        if kind in LITERALS:
            try:
                return LITERALS[kind](node)
            except (ValueError, OverflowError):
                raise Unevaluable(f"`{_text(node)}` is not a valid literal", node) from None
        if kind in ("true", "false"):
            return Const("bool", kind == "true")
        if kind == "iota":
            return Const("num", iota)
        if kind == "identifier":
            return self._name(node)
        if kind in ("parenthesized_expression", "literal_element"):
            return self.eval(_inner(node), iota)
        if kind == "unary_expression":
            return unary(_text(node.child_by_field_name("operator")), self.eval(_field(node, "operand"), iota), node)
        if kind == "binary_expression":
            left = self.eval(_field(node, "left"), iota)
            right = self.eval(_field(node, "right"), iota)
            return binary(_text(node.child_by_field_name("operator")), left, right, node)
        if kind == "selector_expression":
            return self._selector(node)
        if kind == "call_expression":
            return self._conversion(node, iota)
        raise Unevaluable(f"`{quote(node.text)}` is not a constant expression", node)

    def _name(self, node: Node) -> Const:
        name = _text(node)
        if name in self._memo:
            return self._memo[name]
        if name in self._active:
            raise Unevaluable(f"`{name}` is defined in terms of itself", node)
        found = self.lookup(name)
        if not found:
            raise Unevaluable(f"`{name}` is not a constant of this file", node)
        if len(found) > 1:
            raise Unevaluable(f"`{name}` is declared more than once", node)
        binding = found[0]
        self.consulted.append(binding)
        if binding.expr is None:
            raise Unevaluable(f"`{name}` has no value", node)
        self._active.add(name)
        try:
            self._memo[name] = self.eval(binding.expr, binding.iota)
        finally:
            self._active.discard(name)
        return self._memo[name]

    def _selector(self, node: Node) -> Const:
        operand, attr = _text(node.child_by_field_name("operand")), _text(node.child_by_field_name("field"))
        if operand == "time" and attr in TIME_UNITS:
            return Const("dur", TIME_UNITS[attr])
        raise Unevaluable(f"`{quote(node.text)}` is defined outside this file", node)

    def _conversion(self, node: Node, iota: int) -> Const:
        callee = fold(_field(node, "function").text)
        args = named(_field(node, "arguments"))
        if len(args) != 1:
            raise Unevaluable(f"`{quote(node.text)}` is a call, not a constant expression", node)
        c = self.eval(args[0], iota)
        if callee == "time.Duration":
            return c if c.tag == "dur" else Const("dur", _integral(c, node))
        if callee in INT_TYPES:
            return Const("num", _integral(c, node) if c.tag != "dur" else c.x)
        if callee in FLOAT_TYPES:
            return Const("num", float(_numeric(c, node)))
        if callee in ("string", "errors.New") and c.tag == "str":
            return c
        if callee in self.types or self._unwraps(callee):
            return c
        raise Unevaluable(f"`{quote(node.text)}` is a call, not a constant expression", node)


    def _unwraps(self, callee: str) -> bool:
        last = callee.rsplit(".", 1)[-1]
        return any(callee == name or ("." not in name and last == name) for name in self.unwrap)


def unary(op: str, c: Const, node: Node) -> Const:
    if op in ("-", "+") and c.tag in ("num", "dur"):
        x = _numeric(c, node)
        return Const(c.tag, -x if op == "-" else x)
    if op == "^" and c.tag == "num" and isinstance(c.x, int):
        return Const("num", ~c.x)
    if op == "!" and c.tag == "bool":
        return Const("bool", not c.x)
    raise Unevaluable(f"cannot apply `{op}` in `{quote(node.text)}`", node)


COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
INT_OPS = {"%": lambda a, b: a - b * _quotient(a, b), "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&^": lambda a, b: a & ~b}


def binary(op: str, a: Const, b: Const, node: Node) -> Const:
    if op in COMPARE and a.tag == b.tag:
        return Const("bool", COMPARE[op](a.x, b.x))
    if a.tag == b.tag == "bool" and op in ("&&", "||"):
        return Const("bool", (a.x and b.x) if op == "&&" else (a.x or b.x))
    if a.tag == b.tag == "str" and op == "+":
        return Const("str", str(a.x) + str(b.x))
    if a.tag in ("num", "dur") and b.tag in ("num", "dur"):
        return _checked(_arith(op, a, b, node), node)
    raise Unevaluable(f"cannot apply `{op}` to {a.tag} and {b.tag} in `{quote(node.text)}`", node)


def _arith(op: str, a: Const, b: Const, node: Node) -> Const:
    tag = "dur" if "dur" in (a.tag, b.tag) else "num"
    if op == "/" and a.tag == "num" and b.tag == "dur":
        raise Unevaluable(f"a number divided by a duration in `{quote(node.text)}`", node)
    if op == "/" and a.tag == b.tag == "dur":
        tag = "num"
    x, y = _numeric(a, node), _numeric(b, node)
    if op in ("+", "-", "*"):
        return Const(tag, x + y if op == "+" else x - y if op == "-" else x * y)
    if op in ("/", "%") and y == 0:
        raise Unevaluable(f"division by zero in `{quote(node.text)}`", node)
    if op == "/":
        if isinstance(x, int) and isinstance(y, int):
            return Const(tag, _quotient(x, y))
        return Const(tag, x / y)
    if op in INT_OPS and isinstance(x, int) and isinstance(y, int):
        if op in ("<<", ">>") and not 0 <= y <= 512:
            raise Unevaluable(f"shift count out of range in `{quote(node.text)}`", node)
        return Const(tag, INT_OPS[op](x, y))
    raise Unevaluable(f"cannot apply `{op}` in `{quote(node.text)}`", node)


def _quotient(a: int, b: int) -> int:
    """Go's integer division, which truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _checked(c: Const, node: Node) -> Const:
    x = c.x
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise Unevaluable(f"`{quote(node.text)}` overflows", node)
        if c.tag == "dur" and x.is_integer():
            return Const("dur", int(x))
    elif isinstance(x, int) and abs(x) > MAX_INT:
        raise Unevaluable(f"`{quote(node.text)}` overflows", node)
    return c


def _numeric(c: Const, node: Node) -> int | float:
    if c.tag not in ("num", "dur"):
        raise Unevaluable(f"`{quote(node.text)}` converts a {c.tag} to a number", node)
    if isinstance(c.x, bool) or not isinstance(c.x, (int, float)):
        raise Unevaluable(f"`{quote(node.text)}` is not a number", node)
    return c.x


def _integral(c: Const, node: Node) -> int:
    x = _numeric(c, node)
    if isinstance(x, float):
        if not x.is_integer():
            raise Unevaluable(f"`{quote(node.text)}` truncates a fraction", node)
        return int(x)
    return x


# -- literals ---------------------------------------------------------------


def int_literal(node: Node) -> Const:
    text = _text(node).replace("_", "")
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        return Const("num", int(text, 8))
    return Const("num", int(text, 0))


def float_literal(node: Node) -> Const:
    text = _text(node).replace("_", "")
    value = float.fromhex(text) if text[:2].lower() == "0x" else float(text)
    return _checked(Const("num", value), node)


def imaginary_literal(node: Node) -> Const:
    raise Unevaluable(f"`{_text(node)}` is an imaginary number, which driftguard does not compare", node)


def string_literal(node: Node) -> Const:
    return Const("str", decode_string(node))


def rune_literal(node: Node) -> Const:
    body = _text(node)[1:-1]
    m = ESCAPE.fullmatch(body)
    if m and (m.group(2) or m.group(3)):  # a byte escape is the code point itself in a rune
        return Const("num", int(m.group(2), 8) if m.group(2) else int(m.group(3), 16))
    chars = unescape(body, node)
    if len(chars) != 1:
        raise Unevaluable(f"`{_text(node)}` is not a single character", node)
    return Const("num", ord(chars))


LITERALS: dict[str, Callable[[Node], Const]] = {
    "int_literal": int_literal,
    "float_literal": float_literal,
    "imaginary_literal": imaginary_literal,
    "interpreted_string_literal": string_literal,
    "raw_string_literal": string_literal,
    "rune_literal": rune_literal,
}


def decode_string(node: Node) -> str:
    """The value of a string literal node: raw strings verbatim (minus carriage
    returns, as Go drops them), interpreted strings with escapes decoded."""
    text = _text(node)
    if node.type == "raw_string_literal":
        return text[1:-1].replace("\r", "")
    return unescape(text[1:-1], node)


def unescape(body: str, node: Node) -> str:
    """Decode Go escapes; ``\\ooo`` and ``\\xhh`` are bytes, as in Go."""
    out = bytearray()
    pos = 0
    for m in ESCAPE.finditer(body):
        out += _plain(body[pos:m.start()], node)
        simple, octal, hex2, u4, u8 = m.groups()
        if simple:
            out.append(ESCAPES[simple])
        elif octal or hex2:
            code = int(octal, 8) if octal else int(hex2, 16)
            if code > 255:
                raise Unevaluable(f"invalid escape `{m.group(0)}`", node)
            out.append(code)
        else:
            code = int(u4 or u8, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise Unevaluable(f"invalid escape `{m.group(0)}`", node)
            out += chr(code).encode("utf-8")
        pos = m.end()
    out += _plain(body[pos:], node)
    return out.decode("utf-8", errors="replace")


def _plain(segment: str, node: Node) -> bytes:
    if "\\" in segment:
        raise Unevaluable(f"invalid escape in `{_text(node)}`", node)
    return segment.encode("utf-8")


# -- node helpers -----------------------------------------------------------


def named(node: Node | None) -> list[Node]:
    """The named children of ``node`` without comments."""
    if node is None:
        return []
    return [c for c in node.named_children if c.type != "comment"]


def fold(text: bytes | None) -> str:
    """Source text with every run of whitespace folded to one space."""
    return " ".join((text or b"").decode("utf-8", errors="replace").split())


def quote(text: bytes | None, limit: int = 80) -> str:
    """``fold``ed source text cut to ``limit`` characters, for a message."""
    written = fold(text[:limit * 4] if text is not None else None)
    return written if len(written) <= limit else written[:limit - 3].rstrip() + "..."


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", errors="replace") if node is not None else ""


def _field(node: Node, name: str) -> Node:
    child = node.child_by_field_name(name)
    if child is None:
        raise Unevaluable(f"`{quote(node.text)}` is incomplete", node)
    return child


def _inner(node: Node) -> Node:
    inner = named(node)
    if len(inner) != 1:
        raise Unevaluable(f"`{quote(node.text)}` is not a constant expression", node)
    return inner[0]
