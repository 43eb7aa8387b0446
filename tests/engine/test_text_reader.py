"""The regex fallback reader: sets, scalars, positions and pattern errors."""

from __future__ import annotations

import pytest

from driftguard.config.specs import Constant, Pattern
from driftguard.model import AmbiguousFact, ConfigError, FactNotFound, Kind, PatternError, Value
from driftguard.sources import text as reader

PATH = "conf/limits.toml"
TEXT = """\
# limits
[tools]
name = "pulse_query"
name = "pulse_read"
name = "pulse_query"
timeout = "10 minutes"
cap = 4
ratio = "75%"
label = "RESOLVING"
"""


def read(selector: Pattern, text: str = TEXT) -> list:
    return reader.extract(reader.parse(PATH, text), selector, PATH)


def test_set_takes_the_first_group_of_each_match_deduplicated_in_order():
    items = read(Pattern(r'^name = "(\w+)"'))
    assert [i.value for i in items] == [Value.string("pulse_query"), Value.string("pulse_read")]
    assert [(i.location.line, i.location.column) for i in items] == [(3, 9), (4, 9)]
    assert all(i.location.path == PATH for i in items)


def test_set_values_are_strings_even_when_they_read_as_numbers():
    (item,) = read(Pattern(r"^cap = (\d+)"))
    assert item.value == Value.string("4")


@pytest.mark.parametrize("regex, value, line", [
    (r'^timeout = "([^"]+)"', Value(Kind.DURATION, 600.0), 6),
    (r"^cap = (\d+)", Value(Kind.NUMBER, 4.0), 7),
    (r'^ratio = "([^"]+)"', Value(Kind.NUMBER, 75.0), 8),
    (r'^label = "(\w+)"', Value.string("RESOLVING"), 9),
    (r'name = "(pulse_q\w+)"', Value.string("pulse_query"), 3),  # repeated, one distinct value
])
def test_scalar_reads_a_quantity_where_it_is_one(regex, value, line):
    (item,) = read(Pattern(regex, scalar=True))
    assert item.value == value
    assert item.location.line == line


def test_scalar_keeps_the_matched_spelling():
    (item,) = read(Pattern(r'^timeout = "([^"]+)"', scalar=True))
    assert str(item.value) == "10 minutes"


def test_scalar_with_two_distinct_matches_is_ambiguous_naming_the_lines():
    with pytest.raises(AmbiguousFact, match=r"2 different values \(lines 3, 4\)") as caught:
        read(Pattern(r'^name = "(\w+)"', scalar=True))
    assert caught.value.location.line == 3


@pytest.mark.parametrize("scalar", [False, True])
def test_no_match_is_fact_not_found(scalar):
    with pytest.raises(FactNotFound, match="matches nothing") as caught:
        read(Pattern(r"^missing = (\d+)", scalar=scalar))
    assert caught.value.location.path == PATH


def test_matches_whose_group_did_not_take_part_are_skipped():
    items = read(Pattern(r"^cap = (\d+)|^\[(\w+)\]"))
    assert [i.value.data for i in items] == ["4"]


def test_lines_over_crlf_and_cr_line_ends():
    items = read(Pattern(r"v=(\d)"), "a\r\nv=1\rv=2\n\nxx v=3")
    assert [(i.value.data, i.location.line, i.location.column) for i in items] == [
        ("1", 2, 3), ("2", 3, 3), ("3", 5, 6)]


@pytest.mark.parametrize("regex, message", [
    (r"(unclosed", "does not compile"),
    (r"*x", "does not compile"),
    (r"cap = \d+", r"has no \(group\)"),
    (r"(?:cap) = \d+", r"has no \(group\)"),
])
def test_bad_patterns_are_pattern_errors_naming_the_pattern(regex, message):
    with pytest.raises(PatternError, match=message) as caught:
        read(Pattern(regex))
    assert repr(regex) in caught.value.message
    assert caught.value.kind == "pattern-error"


def test_other_selectors_cannot_read_plain_text():
    with pytest.raises(ConfigError, match="only a `pattern` selector"):
        reader.extract(reader.parse(PATH, TEXT), Constant("cap"), PATH)


def test_a_scalar_reads_as_a_quantity_where_it_is_one_else_as_a_string():
    from driftguard.quantities import read_value

    assert read_value("10 minutes").kind is Kind.DURATION and read_value("10 minutes").data == 600.0
    assert read_value("SessionState") == Value.string("SessionState")
