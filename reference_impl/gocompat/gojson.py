"""Go's ``encoding/json`` semantics, as far as the envelope and tool results use them.

Decoding (``go_text``, ``loads_pairs``, ``loads_any``):

- the input is bytes as Go sees them: each byte that does not start a valid
  UTF-8 sequence becomes one U+FFFD (Python's ``errors="replace"`` folds a
  truncated sequence into one), and a ``\\u`` escape of a lone surrogate
  becomes U+FFFD;
- ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON;
- ``loads_pairs`` keeps every key/value pair in order, so a caller can apply
  Go's struct rules (keys match fields case-insensitively, the last
  duplicate wins, ``null`` leaves a string field alone); numbers stay
  unconverted, since Go only converts the values it stores;
- ``loads_any`` is decoding into ``map[string]any``: numbers become floats and
  one outside the float64 range fails the whole decode.

Encoding (``marshal``) is ``json.Marshal``: compact, map keys sorted, ``<``,
``>``, ``&``, U+2028 and U+2029 escaped as ``\\u003c`` and so on, a lone
surrogate written as ``\\ufffd``, floats in Go's shortest form (``1`` not
``1.0``, ``1e+21``, ``1e-7``), and NaN or an infinity refused. ``json.Encoder``
writes the same text followed by a newline.

Nesting deeper than Python's recursion limit (about 1000 levels, where Go
allows 10000) is refused as malformed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

__all__ = ["GoJSONError", "Number", "Object", "go_text", "loads_any", "loads_pairs", "marshal", "marshal_string"]

Pairs = list[tuple[str, Any]]


class GoJSONError(ValueError):
    """The text is not JSON Go would decode, or a value Go cannot encode."""


class Number:
    """A JSON number left unconverted (``loads_pairs``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Object(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in document order (``loads_pairs``)."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_sequence_length(data: bytes, i: int) -> int:
    """The length of the valid UTF-8 sequence at ``data[i]``, or 0."""
    lead = data[i]
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        size, low, high = 2, 0x80, 0xBF
    elif 0xE0 <= lead <= 0xEF:
        size = 3
        low, high = (0xA0, 0xBF) if lead == 0xE0 else (0x80, 0x9F) if lead == 0xED else (0x80, 0xBF)
    elif 0xF0 <= lead <= 0xF4:
        size = 4
        low, high = (0x90, 0xBF) if lead == 0xF0 else (0x80, 0x8F) if lead == 0xF4 else (0x80, 0xBF)
    else:
        return 0
    tail = data[i + 1 : i + size]
    if len(tail) != size - 1 or not low <= tail[0] <= high or any(not 0x80 <= b <= 0xBF for b in tail[1:]):
        return 0
    return size


def go_text(body: str | bytes) -> str:
    """``body`` as text, with invalid UTF-8 replaced byte by byte as Go does."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    i = 0
    while i < len(data):
        size = _valid_sequence_length(data, i)
        out.append(data[i : i + size].decode("utf-8") if size else "\ufffd")
        i += size or 1
    return "".join(out)


def _refuse_constant(name: str) -> Any:
    raise GoJSONError(f"{name} is not JSON")


def _clean(value: Any) -> Any:
    """Lone surrogates (from ``\\u`` escapes) replaced, inside arrays too."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if type(value) is list:
        return [_clean(item) for item in value]
    return value


def _pairs_hook(pairs: Pairs) -> Object:
    return Object((_clean(key), _clean(value)) for key, value in pairs)


def loads_pairs(text: str) -> Any:
    """Parse ``text``; objects become ``Object`` pair lists, numbers ``Number``."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs_hook,
            parse_int=Number,
            parse_float=Number,
            parse_constant=_refuse_constant,
        )
    except RecursionError as exc:
        raise GoJSONError("nested too deeply") from exc
    except ValueError as exc:
        raise GoJSONError(str(exc)) from exc
    return _clean(value)


def _go_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise GoJSONError(f"number {text} is out of the float64 range")
    return value


def _dict_hook(pairs: Pairs) -> dict[str, Any]:
    return {_clean(key): _clean(value) for key, value in pairs}


def loads_any(text: str) -> Any:
    """Parse ``text`` as Go decodes into ``any``: objects are dicts, numbers floats."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_dict_hook,
            parse_int=_go_float,
            parse_float=_go_float,
            parse_constant=_refuse_constant,
        )
    except RecursionError as exc:
        raise GoJSONError("nested too deeply") from exc
    except ValueError as exc:
        raise GoJSONError(str(exc)) from exc
    return _clean(value)


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029\ud800-\udfff]')


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _ESCAPES:
        return _ESCAPES[char]
    return "\\ufffd" if "\ud800" <= char <= "\udfff" else f"\\u{ord(char):04x}"


def marshal_string(text: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _marshal_float(value: float) -> str:
    if not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"
        raise GoJSONError(f"json: unsupported value: {shown}")
    if value != 0 and not 1e-6 <= abs(value) < 1e21:
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if exponent.startswith("-0"):
            exponent = "-" + exponent[2:]
        return f"{mantissa}e{exponent}"
    text = format(Decimal(repr(value)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def marshal(value: Any) -> str:
    """``value`` (None, bool, int, float, str, list, tuple or str-keyed mapping) as Go writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _marshal_float(value)
    if isinstance(value, str):
        return marshal_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(marshal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise GoJSONError("json: unsupported map key type")
        items = sorted(value.items())
        return "{" + ",".join(f"{marshal_string(key)}:{marshal(item)}" for key, item in items) + "}"
    raise GoJSONError(f"json: unsupported type: {type(value).__name__}")
