"""The baseline's values: quantities in prose and constant expressions in code.

A value is a tuple ``(kind, data)``: ``("num", float)``, ``("dur", seconds)``
or ``("str", text)``. Both readers work on raw text with regexes and a tiny
arithmetic evaluator; nothing here imports driftguard.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Value = tuple[str, object]

ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen").split()
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
UNITS = {"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "s": 1, "sec": 1, "secs": 1,
         "second": 1, "seconds": 1, "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
         "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400,
         "days": 86400, "week": 604800, "weeks": 604800}
_WORD = r"(?:(?:" + "|".join(TENS) + r")(?:-(?:" + "|".join(ONES[1:10]) + r"))?|" + \
        "|".join(sorted(ONES, key=len, reverse=True)) + ")"
_LONG = r"(?:milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)"
QUANTITY = (rf"(?:\b(?:\d+(?:\.\d+)?(?:ms|[smhd])\b|(?:\d+(?:\.\d+)?|{_WORD})"
            rf"(?:\s*%|\s+percent\b|\s+times\b|\s*{_LONG}\b)?)|\bonce\b|\btwice\b)")
_ONE = re.compile(rf"^{QUANTITY}$", re.I)
_PARTS = re.compile(rf"^(\d+(?:\.\d+)?|{_WORD})\s*(.*)$", re.I)


def quantity(text: str) -> Value:
    """``text`` as a quantity, or as a string when it is none."""
    text = " ".join(text.split()).strip().rstrip(".")
    low = text.lower()
    if low in ("once", "twice"):
        return ("num", 1.0 if low == "once" else 2.0)
    m = _PARTS.match(low) if _ONE.match(low) else None
    if not m:
        return ("str", text)
    amount, rest = _number(m.group(1)), m.group(2).strip()
    if rest in ("", "%", "percent", "times"):
        return ("num", amount)
    return ("dur", amount * UNITS[rest]) if rest in UNITS else ("str", text)


def _number(word: str) -> float:
    if word[0].isdigit():
        return float(word)
    head, _, tail = word.partition("-")
    if head in TENS:
        return float(TENS[head] + (ONES.index(tail) if tail else 0))
    return float(ONES.index(word))


# -- code expressions ----------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`)'
                    r"|(timedelta\([^)]*\))|([A-Za-z_][\w.]*)|([-+*/()]))")
GO_TIME = {"time.Nanosecond": 1e-9, "time.Microsecond": 1e-6, "time.Millisecond": 0.001,
           "time.Second": 1, "time.Minute": 60, "time.Hour": 3600}
_TD_KEYS = {"weeks": 604800, "days": 86400, "hours": 3600, "minutes": 60, "seconds": 1,
            "milliseconds": 0.001, "microseconds": 1e-6}


class Unevaluable(Exception):
    pass


def evaluate(expr: str, lookup: Callable[[str], str | None], depth: int = 0) -> Value:
    """Evaluate a constant expression; names are resolved through ``lookup`` (source text)."""
    if depth > 20:
        raise Unevaluable("too deep")
    tokens, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise Unevaluable(expr)
        tokens.append(m)
        pos = m.end()
    parser = _Parser(tokens, lookup, depth)
    value = parser.sum()
    if parser.i != len(tokens):
        raise Unevaluable(expr)
    return value


class _Parser:
    def __init__(self, tokens: list[re.Match[str]], lookup: Callable[[str], str | None], depth: int):
        self.tokens, self.lookup, self.depth, self.i = tokens, lookup, depth, 0

    def _op(self) -> str | None:
        return self.tokens[self.i].group(5) if self.i < len(self.tokens) else None

    def sum(self) -> Value:
        left = self.product()
        while self._op() in ("+", "-"):
            op = self._op()
            self.i += 1
            right = self.product()
            if left[0] == "str" and right[0] == "str" and op == "+":
                left = ("str", str(left[1]) + str(right[1]))
                continue
            left = _arith(left, right, op)  # type: ignore[arg-type]
        return left

    def product(self) -> Value:
        left = self.atom()
        while self._op() in ("*", "/"):
            op = self._op()
            self.i += 1
            left = _arith(left, self.atom(), op)  # type: ignore[arg-type]
        return left

    def atom(self) -> Value:
        if self.i >= len(self.tokens):
            raise Unevaluable("end")
        tok = self.tokens[self.i]
        self.i += 1
        number, string, delta, name, op = tok.groups()
        if number:
            return ("num", float(number))
        if string:
            return ("str", string[1:-1])
        if delta:
            total = 0.0
            for key, amount in re.findall(r"(\w+)\s*=\s*([\d.]+)", delta):
                total += float(amount) * _TD_KEYS[key]
            return ("dur", total)
        if name:
            if name in GO_TIME:
                return ("dur", float(GO_TIME[name]))
            if name in ("True", "False", "true", "false"):
                return ("str", name.lower())
            source = self.lookup(name.rsplit(".", 1)[-1])
            if source is None:
                raise Unevaluable(name)
            return evaluate(source, self.lookup, self.depth + 1)
        if op == "(":
            value = self.sum()
            self.i += 1
            return value
        if op == "-":
            kind, data = self.atom()
            return (kind, -float(data))  # type: ignore[arg-type]
        raise Unevaluable(op or "?")


def _arith(a: Value, b: Value, op: str) -> Value:
    if a[0] == "str" or b[0] == "str":
        raise Unevaluable("string arithmetic")
    x, y = float(a[1]), float(b[1])  # type: ignore[arg-type]
    kind = "dur" if "dur" in (a[0], b[0]) and not (op == "/" and a[0] == b[0]) else "num"
    result = {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else float("nan")}[op]
    return (kind, result)


def same(a: Value, b: Value) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "str":
        return a[1] == b[1]
    return abs(float(a[1]) - float(b[1])) <= 1e-9 * max(1.0, abs(float(a[1])))  # type: ignore[arg-type]


def canonical(v: Value) -> str:
    """A set member's key: strings as they are, numbers without a trailing .0."""
    if v[0] == "str":
        return str(v[1])
    f = float(v[1])  # type: ignore[arg-type]
    return str(int(f)) if f.is_integer() else repr(f)
