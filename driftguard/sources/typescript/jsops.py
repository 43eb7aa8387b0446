"""JavaScript's operators and conversions on the values constants are written in.

A value is an ``int`` (a whole number written exactly: ``1_000``, ``0x10``,
``2 ** 53 + 1``), a ``float``, a ``str``, a ``bool`` or ``None`` (``null`` and
``undefined``). JavaScript has one number type; driftguard keeps whole numbers
exact, as the document compares them, and gives a float only where a float
operand or an inexact division does. The bitwise operators work on 32-bit
integers, as JavaScript's do. What cannot be computed (``'a' * 2``, a division
by zero) raises ``JsError``.
"""

from __future__ import annotations

import math
import operator
import re

Js = int | float | str | bool | None

_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_INT_PREFIX = re.compile(r"\s*([+-]?)(0[xX])?([0-9a-zA-Z]*)")


class JsError(Exception):
    """A value JavaScript would not give as a finite constant."""


def number_literal(written: str) -> int | float:
    """A numeric literal's value: ``1_000``, ``0x1F``, ``0o17``, ``0b101``, ``1e3``, ``.5``, ``10n``."""
    digits = written.replace("_", "")
    if digits.endswith("n"):
        return int(digits[:-1], 0)
    if digits[:2].lower() in ("0x", "0o", "0b"):
        return int(digits, 0)
    if re.fullmatch(r"0[0-7]+", digits):  # a legacy octal literal
        return int(digits, 8)
    if any(c in digits for c in ".eE"):
        return float(digits)
    return int(digits)


def to_string(v: Js) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise JsError("is not a finite number")
        if v.is_integer() and abs(v) < 1e21:
            return str(int(v))
        mantissa, _, exponent = repr(v).partition("e")
        return f"{mantissa}e{int(exponent):+d}" if exponent else mantissa
    if v is None:
        raise JsError("is null or undefined, which has no text")
    return v


def to_number(v: Js) -> int | float:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    if v is None:
        raise JsError("is null or undefined, not a number")
    written = v.strip()
    if not written:
        return 0
    try:
        if written[:2].lower() in ("0x", "0o", "0b"):
            return int(written, 0)
    except ValueError:
        raise JsError(f"`{v}` is not a number") from None
    if not _DECIMAL.fullmatch(written) or "Infinity" in written:
        raise JsError(f"`{v}` is not a finite number")
    return number_literal(written)


def parse_int(v: Js, radix: int | None = None) -> int:
    """JavaScript's ``parseInt``: the leading digits of the text in ``radix``."""
    m = _INT_PREFIX.match(to_string(v))
    assert m is not None  # every part of the pattern may be empty
    sign, prefix, rest = m.groups()
    base = radix or (16 if prefix else 10)
    if not 2 <= base <= 36:
        raise JsError(f"parses in base {base}, which JavaScript refuses")
    if prefix and base != 16:
        rest = "0"
    digits = ""
    for c in rest:
        if not c.isdigit() and not c.isalpha() or int(c, 36) >= base:
            break
        digits += c
    if not digits:
        raise JsError(f"`{to_string(v)}` has no digits to parse")
    return int(sign + digits, base)


def parse_float(v: Js) -> int | float:
    m = _DECIMAL.match(to_string(v).lstrip())
    if m is None or "Infinity" in m.group(0):
        raise JsError(f"`{to_string(v)}` is not a finite number")
    return number_literal(m.group(0))


def truthy(v: Js) -> bool:
    if isinstance(v, float) and math.isnan(v):
        return False
    return bool(v) if v is not None else False


def unary(op: str, v: Js) -> Js:
    if op == "!":
        return not truthy(v)
    if op == "typeof":
        raise JsError("`typeof` is not a constant expression")
    n = to_number(v)
    if op == "-":
        return -n
    if op == "+":
        return n
    if op == "~":
        return ~_int32(n)
    raise JsError(f"`{op}` is not a constant operator")


def binary(op: str, a: Js, b: Js) -> Js:
    found = _binary(op, a, b)
    if isinstance(found, int) and not isinstance(found, bool) and abs(found) > _MAX_INT:
        raise JsError("is too large a number to compute")
    return checked_length(found) if isinstance(found, str) else found


def checked_length(text: str) -> str:
    """``text``, unless it is longer than a constant a document states could be."""
    if len(text) > _MAX_TEXT:
        raise JsError("is too long a string to compute")
    return text


def _binary(op: str, a: Js, b: Js) -> Js:
    if op == "+" and (isinstance(a, str) or isinstance(b, str)):
        return to_string(a) + to_string(b)
    if op in _COMPARE:
        return _compare(op, a, b)
    x, y = to_number(a), to_number(b)
    if op in _BITWISE:
        return _bitwise(op, _int32(x), _int32(y))
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "/":
        if y == 0:
            raise JsError("divides by zero")
        exact = isinstance(x, int) and isinstance(y, int) and x % y == 0
        return x // y if exact else x / y
    if op == "%":
        if y == 0:
            raise JsError("divides by zero")
        if isinstance(x, float) or isinstance(y, float):
            return math.fmod(x, y)
        return abs(x) % abs(y) * (-1 if x < 0 else 1)
    if op == "**":
        return _power(x, y)
    raise JsError(f"`{op}` is not a constant operator")


def _power(x: int | float, y: int | float) -> int | float:
    if isinstance(x, int) and isinstance(y, int) and y >= 0:
        if abs(x) > 1 and y > _MAX_EXPONENT:
            raise JsError("is too large a number to compute")
        return int(pow(x, y))
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):  # too large, or NaN as a negative number's fractional power
        raise JsError("is not a finite number") from None


_MAX_EXPONENT = 4096
_MAX_TEXT = 1 << 20
_MAX_INT = 2**1100  # past a double's range (2**1024); BigInt constants are not this large
_COMPARE = frozenset({"===", "!==", "==", "!=", "<", "<=", ">", ">="})
_BITWISE = frozenset({"<<", ">>", ">>>", "&", "|", "^"})
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _compare(op: str, a: Js, b: Js) -> bool:
    if op in ("===", "=="):
        return a == b and type(a) is type(b) or op == "==" and _loose(a, b)
    if op in ("!==", "!="):
        return not _compare("===" if op == "!==" else "==", a, b)
    order = _ORDER[op]
    if isinstance(a, str) and isinstance(b, str):
        return bool(order(a, b))
    return bool(order(to_number(a), to_number(b)))


def _loose(a: Js, b: Js) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return to_number(a) == to_number(b)
    except JsError:
        return False


def _int32(n: int | float) -> int:
    if isinstance(n, float):
        if math.isnan(n) or math.isinf(n):
            return 0
        n = int(n)
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def _bitwise(op: str, x: int, y: int) -> int:
    if op == "<<":
        return _int32(x << (y & 31))
    if op == ">>":
        return x >> (y & 31)
    if op == ">>>":
        return (x & 0xFFFFFFFF) >> (y & 31)
    return _int32({"&": x & y, "|": x | y, "^": x ^ y}[op])
