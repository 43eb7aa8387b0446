"""Constant evaluation for the Python reader (libcst nodes).

``Evaluator`` turns the expressions documentation makes claims about into
typed values: numbers, strings, booleans, ``+ - * / // % **``, names of other
constants, ``timedelta(...)``, the default of ``os.getenv`` / ``os.environ.get``
(what the code uses when the variable is unset) and the conversions
``int() float() str() bool()`` of a value, and the project's own wrappers a
fact names in ``unwrap:`` (``Seconds(30)`` is 30). Everything else raises ``EvalError``
with the reason, so a fact is never guessed. Only ``driftguard.sources.python`` imports
this module (it imports libcst).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import libcst as cst

from driftguard.model import Kind, Value


class EvalError(Exception):
    """An expression that is not a constant this reader can evaluate."""


class GaveUp(EvalError):
    """An expression past a bound of the evaluator: an error of the fact, not a change of shape."""


Lookup = Callable[[str], Value]
"""Resolves a (possibly dotted) name to its value, or raises ``EvalError``."""

_MICROSECONDS = {
    "weeks": 604800e6,
    "days": 86400e6,
    "hours": 3600e6,
    "minutes": 60e6,
    "seconds": 1e6,
    "milliseconds": 1e3,
    "microseconds": 1.0,
}
_TIMEDELTA_ORDER = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")

_OPERATORS: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    cst.Add: ("+", operator.add),
    cst.Subtract: ("-", operator.sub),
    cst.Multiply: ("*", operator.mul),
    cst.Divide: ("/", operator.truediv),
    cst.FloorDivide: ("//", operator.floordiv),
    cst.Modulo: ("%", operator.mod),
    cst.Power: ("**", operator.pow),
    cst.LeftShift: ("<<", operator.lshift),
    cst.RightShift: (">>", operator.rshift),
    cst.BitOr: ("|", operator.or_),
    cst.BitAnd: ("&", operator.and_),
    cst.BitXor: ("^", operator.xor),
}
_BITWISE = ("<<", ">>", "|", "&", "^")

_ENV_LOOKUPS = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get", "os.environ.setdefault",
                          "environ.setdefault"})
"""Environment lookups whose default argument is the value when the variable is unset."""

N, D, S = Kind.NUMBER, Kind.DURATION, Kind.STRING
_RESULT_KIND: dict[tuple[Kind, str, Kind], Kind] = {
    **{(N, op, N): N for op in ("+", "-", "*", "/", "//", "%", "**", *_BITWISE)},
    (S, "+", S): S,
    (D, "+", D): D,
    (D, "-", D): D,
    (D, "%", D): D,
    (D, "/", D): N,
    (D, "//", D): N,
    (N, "*", D): D,
    (D, "*", N): D,
    (D, "/", N): D,
    (D, "//", N): D,
}
"""What an operator gives for each pair of operand kinds; absent pairs are refused."""

_CONVERSIONS: dict[str, tuple[tuple[Kind, ...], Kind, Callable[[Any], Any]]] = {
    "int": ((N, S), N, int),
    "float": ((N, S), N, float),
    "str": ((N, S, Kind.BOOL), S, str),
    "bool": ((N, S, Kind.BOOL), Kind.BOOL, bool),
}
"""Conversion -> (the kinds it takes, the kind it gives, how Python computes it)."""


def fold(text: str) -> str:
    """Whitespace runs (line breaks included) folded to one space."""
    return " ".join(text.split())


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of plain names, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def names_callee(names: Sequence[str], callee: str) -> bool:
    """Whether one of ``names`` is the callee's full dotted text or, written without a
    dot, its last part (``Seconds`` names ``units.Seconds``)."""
    tail = callee.rsplit(".", 1)[-1]
    return any(name == callee or "." not in name and name == tail for name in names)


def last_name(node: cst.BaseExpression) -> str | None:
    """The last part of a callee: ``Semaphore`` for ``asyncio.Semaphore``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


class Evaluator:
    """Evaluates expressions of one module; names go through ``lookup``."""

    def __init__(self, module: cst.Module, lookup: Lookup, unwrap: tuple[str, ...] = ()) -> None:
        self.module = module
        self.lookup = lookup
        self.unwrap = unwrap

    def value(self, node: cst.BaseExpression) -> Value:
        """The typed value; ``text`` is the folded source (a string keeps its
        quotes), or for a bare name the named constant's own text."""
        try:
            result = self._eval(node)
        except RecursionError:
            raise GaveUp("the expression is nested too deeply") from None
        except (ArithmeticError, ValueError) as exc:
            raise EvalError(f"`{self.quoted(node)}` cannot be computed: {exc}") from None
        if result.kind in (N, D) and not _exact(result) and not math.isfinite(float(result.data)):
            raise EvalError(f"`{self.quoted(node)}` is not a finite number")
        if dotted_name(node) is not None:
            return result  # a named constant keeps its own spelling
        if isinstance(node, cst.SimpleString):
            return replace(result, text=node.value)  # folding would change its spelling
        return replace(result, text=self.source(node))

    def source(self, node: cst.CSTNode) -> str:
        return fold(self.module.code_for_node(node))

    def quoted(self, node: cst.CSTNode, limit: int = 80) -> str:
        """``source`` cut to ``limit`` characters, for a message."""
        written = self.source(node)
        return written if len(written) <= limit else written[:limit - 3].rstrip() + "..."

    def _eval(self, node: cst.BaseExpression) -> Value:
        if isinstance(node, cst.Integer):
            return Value(N, int(node.value, 0))
        if isinstance(node, cst.Float):
            return Value(N, float(node.value))
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            return self._string(node)
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return Value(Kind.BOOL, node.value == "True", node.value)
        name = dotted_name(node)
        if name == "None":
            raise EvalError("None is not a value")
        if name is not None:
            return self.lookup(name)
        if isinstance(node, cst.UnaryOperation):
            return self._unary(node)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        raise EvalError(f"`{self.quoted(node)}` is not a constant expression")

    def _string(self, node: cst.SimpleString | cst.ConcatenatedString) -> Value:
        data = node.evaluated_value
        if not isinstance(data, str):
            what = "an f-string" if data is None else "a bytes literal"
            raise EvalError(f"`{self.quoted(node)}` is {what}")
        return Value.string(data)

    def _unary(self, node: cst.UnaryOperation) -> Value:
        operand = self._eval(node.expression)
        if operand.kind not in (N, D) or not isinstance(node.operator, (cst.Minus, cst.Plus)):
            raise EvalError(f"`{self.quoted(node)}` is not a constant expression")
        sign = -1 if isinstance(node.operator, cst.Minus) else 1
        return Value(operand.kind, sign * _amount(operand))

    def _binary(self, node: cst.BinaryOperation) -> Value:
        symbol, apply = _OPERATORS.get(type(node.operator), ("", None))
        if apply is None:
            raise EvalError(f"`{self.quoted(node)}`: operator not supported")
        left, right = self._eval(node.left), self._eval(node.right)
        kind = _RESULT_KIND.get((left.kind, symbol, right.kind))
        if kind is None:
            raise EvalError(
                f"`{self.quoted(node)}`: cannot apply {symbol} to a {left.kind.value} "
                f"and a {right.kind.value}"
            )
        if kind is S:
            return Value.string(str(left.data) + str(right.data))
        if symbol == "**" and abs(float(right.data)) > 1024:
            raise EvalError(f"`{self.quoted(node)}`: exponent too large")
        exact = kind is N and _exact(left) and _exact(right) and symbol != "/"
        if symbol in _BITWISE and not exact:
            raise EvalError(f"`{self.quoted(node)}`: {symbol} takes integers")
        if symbol == "<<" and _amount(right) > 4096:
            raise EvalError(f"`{self.quoted(node)}`: the result is too large")
        if exact and symbol == "**" and _amount(right) < 0:
            exact = False
        if exact and symbol == "**" and _bits(left, right) > 4096:
            raise EvalError(f"`{self.quoted(node)}`: the result is too large")
        result = apply(_amount(left), _amount(right)) if exact else apply(float(left.data), float(right.data))
        if isinstance(result, complex):
            raise EvalError(f"`{self.quoted(node)}` is not a real number")
        if kind is D and symbol == "//" and right.kind is N:
            result = math.floor(float(left.data) * 1e6 / float(right.data)) / 1e6
        return Value(kind, result if exact else float(result))

    def _call(self, node: cst.Call) -> Value:
        callee = dotted_name(node.func)
        if last_name(node.func) == "timedelta":
            return self._timedelta(node)
        if callee in _ENV_LOOKUPS:
            return self._eval(self._env_default(node))
        single = len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star
        if callee in _CONVERSIONS and single:
            return self._convert(callee, node)
        if single and callee is not None and names_callee(self.unwrap, callee):
            return self._eval(node.args[0].value)
        raise EvalError(f"`{self.quoted(node)}` is a call, not a constant expression")

    def _env_default(self, node: cst.Call) -> cst.BaseExpression:
        """The default of ``os.getenv(NAME, DEFAULT)``: the value when NAME is unset."""
        positional = [a for a in node.args if a.keyword is None and not a.star]
        named = [a for a in node.args if a.keyword is not None and a.keyword.value == "default"]
        found = (positional[1:2] or named)[:1]
        if not found or dotted_name(found[0].value) == "None":
            raise EvalError(f"`{self.quoted(node)}` has no default: its value comes from the environment")
        return found[0].value

    def _convert(self, name: str, node: cst.Call) -> Value:
        """``int("15")`` -> 15: a conversion the value survives, as Python computes it."""
        inner = self._eval(node.args[0].value)
        kinds, kind, apply = _CONVERSIONS[name]
        if inner.kind not in kinds:
            raise EvalError(f"`{self.quoted(node)}`: {name}() of a {inner.kind.value} is not supported")
        data = apply(inner.data)
        if isinstance(data, float) and not math.isfinite(data):
            raise EvalError(f"`{self.quoted(node)}` is not a finite number")
        return Value.string(data) if kind is S else Value(kind, data)

    def _timedelta(self, node: cst.Call) -> Value:
        total, seen = 0.0, set()
        positional = iter(_TIMEDELTA_ORDER)
        for arg in node.args:
            unit = next(positional, None) if arg.keyword is None else arg.keyword.value
            if arg.star or unit not in _MICROSECONDS or unit in seen:
                raise EvalError(f"`{self.quoted(node)}`: unsupported timedelta argument")
            seen.add(unit)
            amount = self._eval(arg.value)
            if amount.kind is not N:
                raise EvalError(f"`{self.quoted(node)}`: timedelta takes numbers")
            total += float(amount.data) * _MICROSECONDS[unit]
        return Value(D, total / 1e6)


def _exact(value: Value) -> bool:
    return isinstance(value.data, int) and not isinstance(value.data, bool)


def _bits(base: Value, exponent: Value) -> float:
    """About how many bits ``base ** exponent`` takes, without computing it."""
    size = abs(_amount(base))
    return _amount(exponent) * math.log2(size) if size > 1 else 0.0


def _amount(value: Value) -> int | float:
    """The number a numeric ``Value`` holds: exact ints stay ints."""
    data = value.data
    return data if isinstance(data, int) and not isinstance(data, bool) else float(data)


# -- blocks -------------------------------------------------------------------
def small_statements(statements: Sequence[cst.CSTNode]) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements directly in a block (compound statements skipped)."""
    for statement in statements:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from statement.body


def block_statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of an indented block, or the one-line suite itself."""
    return suite.body if isinstance(suite, cst.IndentedBlock) else [suite]


def nested_blocks(node: cst.CSTNode) -> list[Sequence[cst.CSTNode]]:
    """The statement lists inside a compound statement (if/for/while/with/try/match)."""
    blocks: list[Sequence[cst.CSTNode]] = []
    body = getattr(node, "body", None)
    if isinstance(body, cst.BaseSuite):
        blocks.append(block_statements(body))
    parts = [getattr(node, "orelse", None), getattr(node, "finalbody", None)]
    parts += [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]
    for part in parts:
        if part is not None:
            blocks.extend(nested_blocks(part))
    return blocks
