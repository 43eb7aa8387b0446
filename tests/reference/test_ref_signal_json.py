"""Tool output decoded as Go's json.Unmarshal fills upstream's minimal structs, and the
embedded-JSON search that runs when the whole output does not decode."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from reference_impl.ai.patrol_signals.detect import detect_signals
from reference_impl.ai.patrol_signals.types import ToolCallRecord
from reference_impl.ai.patrol_signals.unmarshal import ListOf, Scalar, Struct, string_field, unmarshal

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
POOL = Struct({"pools": ListOf(Struct({"name": Scalar.STRING, "usage_percent": Scalar.FLOAT})), "node": Scalar.STRING})


def pools_read(output: str) -> list[tuple[str, str]]:
    record = ToolCallRecord("pulse_storage", output, True, '{"type": "pools"}')
    return [(s.resource_id, s.severity) for s in detect_signals([record], now=NOW)]


# --- what decodes --------------------------------------------------------------------------


def test_fields_missing_or_null_take_their_zero_value():
    assert unmarshal('{"pools": [{"name": null}, {}], "node": null}', POOL) == {
        "pools": [{"name": "", "usage_percent": 0.0}, {"name": "", "usage_percent": 0.0}], "node": "",
    }
    assert unmarshal("null", POOL) == {"pools": [], "node": ""}
    assert unmarshal('{"pools": null}', POOL) == {"pools": [], "node": ""}


@pytest.mark.parametrize(
    "output",
    ['{"pools": [{"name": "x", "usage_percent": "99"}]}', '{"pools": [{"name": "x", "usage_percent": true}]}',
     '{"pools": [{"name": 5, "usage_percent": 99}]}', '{"pools": {"name": "x"}}', '{"pools": "many"}',
     '{"pools": [1]}', '{"pools": [{"usage_percent": 99}], "node": 3}', '{"pools": [{"usage_percent": 1e400}]}',
     '{"pools": [{"usage_percent": NaN}]}', '{"pools": [{"usage_percent": Infinity}]}', '"pools"', "42", "[]", "", "{",
     '{"pools": [{"usage_percent": "99"}]} and {"pools": []}'],
)
def test_a_value_of_the_wrong_type_or_not_json_fails_the_whole_decode(output):
    assert unmarshal(output, POOL) is None


def test_unknown_keys_are_ignored_even_with_values_go_would_not_decode_into_a_field():
    assert unmarshal('{"pools": [{"usage_percent": 99, "extra": 1e400}], "x": [true]}', POOL) == {
        "pools": [{"name": "", "usage_percent": 99.0}], "node": "",
    }


def test_keys_match_exactly_else_case_insensitively_and_the_last_duplicate_wins():
    got = unmarshal('{"POOLS": [{"Name": "a", "USAGE_PERCENT": 90}], "Node": "n1", "node": "n2"}', POOL)
    assert got == {"pools": [{"name": "a", "usage_percent": 90.0}], "node": "n2"}
    kelvin = unmarshal('{"pools": [{"name": "a"}], "\u212aey": 1, "no\u017fe": 1, "NODE": "k"}', POOL)
    assert kelvin is not None and kelvin["node"] == "k"


def test_a_duplicate_key_decodes_into_the_earlier_value():
    got = unmarshal('{"pools": [{"name": "a", "usage_percent": 90}], "pools": [{"usage_percent": 80}]}', POOL)
    assert got == {"pools": [{"name": "a", "usage_percent": 80.0}], "node": ""}
    assert unmarshal('{"node": "n", "node": null}', POOL) == {"pools": [], "node": "n"}


def test_one_reader_failing_costs_only_its_own_signals():
    output = json.dumps({"pools": [{"id": "p", "usage_percent": 99}], "disks": [{"id": "d", "health": 7}]})
    found = detect_signals([ToolCallRecord("pulse_storage", output)], now=NOW)
    assert [(s.signal_type.value, s.resource_id) for s in found] == [("high_disk", "p")]


# --- embedded JSON ---------------------------------------------------------------------------


def test_json_embedded_in_text_is_read():
    text = 'Storage pools:\n{"pools": [{"name": "tank", "usage_percent": 97.5}]}\n(2 pools shown)'
    assert pools_read(text) == [("tank", "critical")]


def test_an_array_wrapping_an_object_is_searched_for_the_object():
    assert pools_read('[{"pools": [{"name": "tank", "usage_percent": 80}]}]') == [("tank", "warning")]
    assert pools_read('[{"pools": [{"name": "a", "usage_percent": 80}]}, {"pools": [{"name": "b", "usage_percent": 99}]}]') == [
        ("a", "warning"),
    ]


def test_the_longest_decodable_prefix_from_the_first_brace_wins():
    text = 'x {"pools": [{"name": "a", "usage_percent": 80}]} and {"note": "}"}'
    assert pools_read(text) == [("a", "warning")]
    assert pools_read('{"pools": [{"name": "a", "usage_percent": 80}], "node": {"n": 1}}') == []


def test_the_search_starts_at_the_first_brace_only():
    assert pools_read('{broken {"pools": [{"name": "a", "usage_percent": 80}]}') == []


@pytest.mark.parametrize(
    "output",
    ["[" * 50_000, '{"a":' * 50_000, "\x00\xff garbage", "1" * 5000, "{" * 300 + "}" * 300, '{"pools": [' + "[" * 3000 + "]"],
)
def test_hostile_output_gives_nothing_and_never_raises(output):
    assert pools_read(output) == []


# --- the input's type field ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [('{"type": "pools"}', "pools"), ('{"type": " pools "}', " pools "), ('{"type": 1}', ""), ('{"TYPE": "pools"}', ""),
     ("", ""), ("null", ""), ("[]", ""), ('{"type": "pools"', ""), ('{"type": "a", "x": -1e309}', ""),
     ('{"type": "b", "x": 1e308}', "b"), ('{"type": "a", "type": "b"}', "b")],
)
def test_string_field(text, expected):
    assert string_field(text, "type") == expected
