"""The ``fields`` and ``cases`` selectors on the shapes real code writes: dataclasses,
attrs classes, pydantic models, TypedDicts and NamedTuples (class syntax and the
functional forms), inherited fields; the literal patterns of a ``match`` and an
``if``/``elif`` chain on one expression."""

from __future__ import annotations

import textwrap

import pytest

from driftguard.config.specs import Cases, Fields
from driftguard.model import AmbiguousFact
from driftguard.sources import python as reader
from tests.engine.python_source import SourceReader

PATH = "httpish/_models.py"


SOURCE = SourceReader(PATH)
read = SOURCE.read
values = SOURCE.values
not_found = SOURCE.not_found
skipped = SOURCE.skipped


# -- fields -------------------------------------------------------------------------

RECORDS = '''\
import dataclasses
from collections import namedtuple
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import ClassVar, NamedTuple, TypedDict

import attr
import attrs
from pydantic import BaseModel, Field

from .base import RemoteBase


@dataclasses.dataclass(frozen=True)
class ProxySettings:
    url: str
    verify: bool = True
    kind: ClassVar[str] = "proxy"


@dataclass
class ClientSettings(ProxySettings, RemoteBase):
    http2: bool = False
    _: KW_ONLY
    verify: bool = False
    seed: InitVar[int] = 0
    other: "ClassVar[int]" = 1
    tags: list = field(default_factory=list)


@attr.s
class Legacy:
    x = attr.ib(default=3)
    y = attr.ib()
    z = 4


@attrs.define
class Modern:
    a: int
    b: str = attrs.field(default="b")


class Base(BaseModel):
    id: int


class Retry(Base):
    attempts: int = Field(3, ge=0)
    _cache: dict = {}
    model_config = {"frozen": True}


class Cookie(TypedDict, total=False):
    name: str
    value: str


class Address(NamedTuple):
    host: str
    port: int = 443


Movie = TypedDict("Movie", {"title": str, "year": int})
Point = namedtuple("Point", "x y, z")
Pair = namedtuple("Pair", ["left", "right"])
Row = NamedTuple("Row", [("key", str), ("value", int)])
Legacy2 = TypedDict("Legacy2", name=str, size=int)
'''


@pytest.mark.parametrize(("type_", "fields"), [
    ("ProxySettings", ["url", "verify"]),
    ("ClientSettings", ["url", "verify", "http2", "tags"]),  # inherited first, a redefinition keeps its place
    ("Legacy", ["x", "y"]),
    ("Modern", ["a", "b"]),
    ("Retry", ["id", "attempts"]),  # pydantic: _private and unannotated left out
    ("Cookie", ["name", "value"]),
    ("Address", ["host", "port"]),
    ("Movie", ["title", "year"]),
    ("Point", ["x", "y", "z"]),
    ("Pair", ["left", "right"]),
    ("Row", ["key", "value"]),
    ("Legacy2", ["name", "size"]),
])
def test_the_fields_of_each_record_shape_in_declaration_order(type_: str, fields: list[str]) -> None:
    assert values(RECORDS, Fields(type_)) == fields


def test_a_field_is_located_at_its_name() -> None:
    assert [i.location.line for i in read(RECORDS, Fields("ClientSettings"))] == [15, 24, 22, 27]


def test_a_base_class_of_another_file_is_said_to_be_unread() -> None:
    assert skipped(RECORDS, Fields("ClientSettings")) == [
        "line 21: base RemoteBase of ClientSettings is not a class of this file; the fields it declares are not read"]
    assert skipped(RECORDS, Fields("ProxySettings")) == []


def test_a_class_with_no_fields_or_no_class_is_fact_not_found() -> None:
    assert not_found("class Empty:\n    x = 1\n", Fields("Empty")) == "Empty declares no fields"
    assert not_found(RECORDS, Fields("Missing")) == (
        "no class Missing, and no TypedDict, NamedTuple or namedtuple bound to Missing")


def test_declaration_of_fields_is_the_class() -> None:
    tree = reader.parse(PATH, textwrap.dedent(RECORDS))
    where, label = reader.declaration(tree, Fields("Cookie"), PATH)
    assert (where.line, label) == (53, "class Cookie")


# -- cases ---------------------------------------------------------------------------

MATCHES = '''\
from enum import Enum

class Color(Enum):
    RED = "red"

LIMIT = 10

def auth_scheme(header):
    match header.split(" ", 1)[0].lower():
        case "basic":
            return "BasicAuth"
        case "digest" | "bearer" as name if name:
            return "TokenAuth"
        case Color.RED:
            return "red"
        case -1 | 0:
            return "number"
        case True | None:
            return "flag"
        case Point(x=0):
            return "point"
        case [first, *rest]:
            return "list"
        case _:
            return "unknown"

def status_class(code):
    if code == 200:
        return "ok"
    elif code in (301, 302, 307) or code == 308:
        return "redirect"
    elif 404 == code:
        return "missing"
    elif code > 500:
        return "error"
    else:
        return "other"

def two(kind, mode):
    match kind:
        case "a":
            pass
    def nested(x):
        match x:
            case "not read":
                pass
    if mode == "x":
        pass
    elif mode == "y":
        pass
'''


def test_the_literal_patterns_of_a_match_are_its_cases() -> None:
    items = read(MATCHES, Cases("auth_scheme"))
    assert [i.value.data for i in items] == ["basic", "digest", "bearer", "red", -1, 0, True]
    assert [i.location.line for i in items][:3] == [10, 12, 12]


def test_patterns_that_are_not_literals_are_left_out_and_said() -> None:
    assert skipped(MATCHES, Cases("auth_scheme")) == [
        "line 18: `None` is not a literal (None is not a value); left out",
        "line 20: `Point(x=0)` is not a literal pattern; left out",
        "line 22: `[first, *rest]` is not a literal pattern; left out",
    ]


def test_an_if_elif_chain_on_one_expression_is_a_switch() -> None:
    assert values(MATCHES, Cases("status_class")) == [200, 301, 302, 307, 308, 404]


def test_several_switches_are_ambiguous_until_switch_picks_one() -> None:
    with pytest.raises(AmbiguousFact, match=r"two holds 2 switches; pick one with `switch:` \(lines 40, 47\)"):
        read(MATCHES, Cases("two"))
    assert values(MATCHES, Cases("two", switch="kind")) == ["a"]
    assert values(MATCHES, Cases("two", switch="mode")) == ["x", "y"]
    assert not_found(MATCHES, Cases("two", switch="other")) == "no match on other in two (its switches: kind, mode)"


def test_a_function_without_a_switch_is_fact_not_found() -> None:
    assert not_found("def f(x):\n    return x\n", Cases("f")) == (
        "f holds no match statement or if/elif chain on one expression")


def test_declaration_of_cases_is_the_switch() -> None:
    tree = reader.parse(PATH, textwrap.dedent(MATCHES))
    where, label = reader.declaration(tree, Cases("status_class"), PATH)
    assert (where.line, label) == (28, "switch on code in status_class")
