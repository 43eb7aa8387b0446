"""Tool output decoded the way upstream's ``json.Unmarshal`` fills a Go struct.

Each detector upstream unmarshals the whole output into its own minimal
struct. ``unmarshal(text, shape)`` does the same against a ``Shape`` and
returns a plain tree (``dict`` / ``list`` / ``str`` / ``float`` / ``int`` /
``None``) with every field of the shape present, or ``None`` when Go would
have returned an error. The rules carried over:

- the text must be JSON as Go reads it: ``NaN`` and ``Infinity`` are refused;
- a value of the wrong JSON type for its field (a string for a number, a
  number for a string, ``1.5`` for an integer, a number out of range) fails
  the whole decode, not only that record;
- ``null`` leaves a field at its zero value (``""``, ``0``, empty list) and
  sets an optional integer to ``None``;
- object keys match field names exactly, else case-insensitively; a later
  duplicate key overwrites, and decodes into, the earlier value;
- keys the shape does not name are ignored;
- a vmid field takes a string (trimmed) or a number (its literal text).

When the whole text does not decode, the search that upstream calls
embedded-JSON parsing runs: from the first ``{``, every prefix that ends in
``}`` is tried, longest first, and the first that decodes wins. That also
finds an object wrapped in a JSON array.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Union

from reference_impl.gocompat.gostrings import fold_name
from reference_impl.gocompat.gostrings import trim_space as go_trim

_INT64 = (-(2**63), 2**63 - 1)


class Scalar(Enum):
    """Go field types a shape can name."""

    STRING = "string"
    FLOAT = "float64"
    INT = "int"
    OPTIONAL_INT = "*int64"
    VMID = "VMIDValue"


@dataclass(frozen=True)
class ListOf:
    item: Shape


@dataclass(frozen=True)
class Struct:
    fields: Mapping[str, Shape]


Shape = Union[Scalar, ListOf, Struct]


class JsonNumber:
    """A JSON number kept as its literal text, as ``json.Number`` keeps it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Pairs(list):
    """A JSON object as its key/value pairs in order, duplicates kept."""


class DecodeError(ValueError):
    """The value does not fit the shape (Go's UnmarshalTypeError)."""


def loads(text: str) -> object:
    """Parse JSON as Go accepts it; raise ``ValueError`` when it does not."""
    try:
        return json.loads(
            text, parse_float=JsonNumber, parse_int=JsonNumber,
            parse_constant=_refuse_constant, object_pairs_hook=_Pairs,
        )
    except RecursionError as error:
        raise ValueError("nested too deeply") from error


def _refuse_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def zero(shape: Shape) -> object:
    if isinstance(shape, Struct):
        return {name: zero(field) for name, field in shape.fields.items()}
    if isinstance(shape, ListOf):
        return []
    return {Scalar.STRING: "", Scalar.FLOAT: 0.0, Scalar.INT: 0, Scalar.OPTIONAL_INT: None, Scalar.VMID: ""}[shape]


def decode(value: object, shape: Shape, current: object = None) -> object:
    """``value`` (from ``loads``) decoded into ``current`` (a zero value when None)."""
    base = zero(shape) if current is None else current
    if isinstance(shape, Struct):
        return _decode_struct(value, shape, base)
    if isinstance(shape, ListOf):
        return _decode_list(value, shape, base)
    return _decode_scalar(value, shape, base)


def _decode_struct(value: object, shape: Struct, base: object) -> object:
    if value is None:
        return base
    if not isinstance(value, _Pairs):
        raise DecodeError("not an object")
    result = dict(base) if isinstance(base, dict) else {}
    for key, item in value:
        name = _field_for(key, shape)
        if name is not None:
            result[name] = decode(item, shape.fields[name], result[name])
    return result


def _field_for(key: str, shape: Struct) -> str | None:
    if key in shape.fields:
        return key
    folded = fold_name(key)
    return next((name for name in shape.fields if fold_name(name) == folded), None)


def _decode_list(value: object, shape: ListOf, base: object) -> object:
    if value is None:
        return []
    if not isinstance(value, list) or isinstance(value, _Pairs):
        raise DecodeError("not an array")
    previous = base if isinstance(base, list) else []
    return [decode(item, shape.item, previous[i] if i < len(previous) else None) for i, item in enumerate(value)]


def _decode_scalar(value: object, shape: Scalar, base: object) -> object:
    if value is None:
        return None if shape is Scalar.OPTIONAL_INT else "" if shape is Scalar.VMID else base
    if shape is Scalar.STRING and isinstance(value, str):
        return value
    if shape is Scalar.VMID and isinstance(value, (str, JsonNumber)):
        return go_trim(value) if isinstance(value, str) else value.text
    if isinstance(value, JsonNumber) and shape is Scalar.FLOAT:
        number = float(value.text)
        if math.isinf(number):
            raise DecodeError(f"number {value.text} is not float64")
        return number
    if isinstance(value, JsonNumber) and shape in (Scalar.INT, Scalar.OPTIONAL_INT):
        return _integer(value.text)
    raise DecodeError(f"{type(value).__name__} does not fit {shape.value}")


def _integer(text: str) -> int:
    if any(mark in text for mark in ".eE"):
        raise DecodeError(f"number {text} is not an integer")
    number = int(text)
    if not _INT64[0] <= number <= _INT64[1]:
        raise DecodeError(f"number {text} overflows int64")
    return number


def unmarshal(text: str, shape: Struct) -> dict | None:
    """The decoded struct, or None when neither the text nor an embedded object fits."""
    decoded = _try(text, shape)
    if decoded is not None:
        return decoded
    start = text.find("{")
    if start < 0:
        return None
    for end in range(len(text), start, -1):
        if text[end - 1] == "}":
            decoded = _try(text[start:end], shape)
            if decoded is not None:
                return decoded
    return None


def _try(text: str, shape: Struct) -> dict | None:
    try:
        decoded = decode(loads(text), shape)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def string_field(text: str, field: str) -> str:
    """A string value of a tool input's top-level ``field``, else ``""``.

    Upstream unmarshals the input into a ``map[string]interface{}``: keys match
    exactly, a number out of float64 range fails the whole input, and a value
    that is not a string reads as ``""``.
    """
    if text == "":
        return ""
    try:
        value = loads(text)
        _check_numbers(value)
    except ValueError:
        return ""
    if not isinstance(value, _Pairs):
        return ""
    found = dict(value).get(field)
    return found if isinstance(found, str) else ""


def _check_numbers(value: object) -> None:
    if isinstance(value, JsonNumber) and math.isinf(float(value.text)):
        raise DecodeError(f"number {value.text} is not float64")
    if isinstance(value, _Pairs):
        value = [item for _, item in value]
    if isinstance(value, list):
        for item in value:
            _check_numbers(item)
