"""The error vocabulary and the shared envelope's JSON shape."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.agentcapabilities import errors, tool_response
from reference_impl.agentcapabilities.errors import AgentErrorCode, ErrorEnvelope, decode_error_envelope
from reference_impl.agentcapabilities.tool_response import ToolErrorCode

# Upstream rcourtman/Pulse internal/agentcapabilities/errors.go at c313a80da, in its order
# (AgentErrCodeActionReadinessCheckFailed's value is action_execution_availability_failed).
UPSTREAM_AGENT_CODES = """
resource_not_found operator_state_not_set operator_state_invalid invalid_finding_request
finding_not_found finding_action_not_allowed patrol_unavailable invalid_action_request
capability_not_found action_execution_unavailable action_actor_unavailable missing_id invalid_id
invalid_action_decision action_not_found action_not_pending action_plan_expired
action_approval_forbidden action_step_up_unavailable action_decision_conflict
action_separation_required action_replan_required invalid_action_execution action_not_approved
action_already_executing action_execution_final action_execution_forbidden action_not_executing
action_dry_run_only action_execution_availability_failed action_plan_drift
action_plan_identity_mismatch action_refresh_not_allowed action_emergency_stop
resource_remediation_locked mock_mode_enabled action_executor_unavailable action_queue_unavailable
action_queue_query_failed action_queue_encode_failed invalid_action_list_limit
invalid_action_list_view action_list_failed action_list_encode_failed action_detail_failed
action_detail_encode_failed raw_command_retired
""".split()

TOOL_CODES = [
    "FSM_BLOCKED", "STRICT_RESOLUTION", "ROUTING_MISMATCH", "EXECUTION_CONTEXT_UNAVAILABLE", "NOT_FOUND",
    "ACTION_NOT_ALLOWED", "POLICY_BLOCKED", "APPROVAL_REQUIRED", "INVALID_INPUT", "EXECUTION_FAILED", "NO_AGENT",
]


def test_agent_codes_are_upstreams_47():
    assert [code.value for code in AgentErrorCode] == UPSTREAM_AGENT_CODES
    assert len(AgentErrorCode) == 47
    assert AgentErrorCode.RESOURCE_NOT_FOUND == "resource_not_found"
    assert AgentErrorCode("action_execution_availability_failed") is AgentErrorCode.ACTION_EXECUTION_AVAILABILITY_FAILED
    assert AgentErrorCode("action_refresh_not_allowed") is AgentErrorCode.ACTION_REFRESH_NOT_ALLOWED


def test_agent_code_names_are_their_values_in_upper_case():
    assert all(code.name == code.value.upper() for code in AgentErrorCode)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)+", code.value) for code in AgentErrorCode)


def test_tool_codes_are_the_eleven_upper_snake_codes():
    assert [code.value for code in ToolErrorCode] == TOOL_CODES
    assert all(code.name == code.value for code in ToolErrorCode)


def test_codes_are_strings_that_print_as_their_value():
    assert isinstance(ToolErrorCode.FSM_BLOCKED, str)
    assert str(ToolErrorCode.FSM_BLOCKED) == "FSM_BLOCKED"
    assert f"{AgentErrorCode.MISSING_ID}" == "missing_id"
    assert json.dumps(AgentErrorCode.MISSING_ID) == '"missing_id"'


def test_members_are_written_as_literal_assignments():
    """A source parser (driftguard's Python reader) must see every value as a literal."""
    for enum, module in ((AgentErrorCode, errors), (ToolErrorCode, tool_response)):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        [cls] = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == enum.__name__]
        literal = {
            stmt.targets[0].id: stmt.value.value
            for stmt in cls.body
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
        }
        assert literal == {code.name: code.value for code in enum}


def test_envelope_without_details_is_exactly_two_fields():
    body = ErrorEnvelope(AgentErrorCode.MISSING_ID, "id is required").to_json()
    assert body == '{"error":"missing_id","message":"id is required"}'


@pytest.mark.parametrize("empty", [None, {}])
def test_empty_details_are_left_out(empty):
    envelope = ErrorEnvelope("missing_id", "m", empty)
    assert envelope.details is None
    assert "details" not in json.loads(envelope.to_json())


def test_details_are_an_object_of_strings_with_sorted_keys():
    body = ErrorEnvelope(ToolErrorCode.APPROVAL_REQUIRED, "needs approval", {"z": "1", "a": "2"}).to_json()
    assert body == '{"error":"APPROVAL_REQUIRED","message":"needs approval","details":{"a":"2","z":"1"}}'
    assert list(json.loads(body)) == ["error", "message", "details"]


def test_envelope_keeps_its_own_copy_of_details():
    details = {"field": "id"}
    envelope = ErrorEnvelope("invalid_id", "bad", details)
    details["field"] = "changed"
    assert envelope.details == {"field": "id"}


_text = st.text(min_size=1)


@settings(deadline=None, max_examples=200)
@given(_text, _text, st.dictionaries(st.text(), st.text(), max_size=4))
def test_round_trip(code, message, details):
    envelope = ErrorEnvelope(code, message, details)
    decoded = decode_error_envelope(envelope.to_json())
    assert decoded == envelope
    assert decode_error_envelope(envelope.to_json().encode("utf-8")) == envelope


def test_round_trip_with_enum_codes_compares_equal_to_plain_strings():
    envelope = ErrorEnvelope(AgentErrorCode.ACTION_PLAN_DRIFT, "drifted", {"resourceId": "vm/101"})
    decoded = decode_error_envelope(envelope.to_json())
    assert decoded is not None
    assert decoded.error == "action_plan_drift"
    assert type(decoded.error) is str
    assert decoded == envelope


def test_decode_ignores_unknown_keys_and_null_details():
    decoded = decode_error_envelope('{"error":"x","message":"y","extra":1,"details":null}')
    assert decoded == ErrorEnvelope("x", "y")


@pytest.mark.parametrize(
    "body",
    [
        "",
        "not json",
        "{",
        "[]",
        '["error","message"]',
        '"missing_id"',
        "null",
        "42",
        "{}",
        '{"error":"missing_id"}',
        '{"message":"only a message"}',
        '{"error":"","message":"m"}',
        '{"error":"e","message":""}',
        '{"error":null,"message":"m"}',
        '{"error":1,"message":"m"}',
        '{"error":"e","message":["m"]}',
        '{"error":{"code":"e"},"message":"m"}',
        '{"error":"e","message":"m","details":"text"}',
        '{"error":"e","message":"m","details":["a"]}',
        '{"error":"e","message":"m","details":{"n":1}}',
        '{"error":1,"error":"e","message":"m"}',
        '{"error":"e","message":"m","details":{"a":"1"},"details":7}',
        '{"error":"e","message":"m","details":{"a":"1","n":2}}',
        '{"error":"e","message":"m","x":NaN}',
        '{"error":"e","message":"m","x":Infinity}',
        '{"error":"e","message":"m","x":-Infinity}',
        '{"error":"e","message":"m"} trailing',
        '\ufeff{"error":"e","message":"m"}',
        '{"error":"e","message":null}',
        b"\xff\xfe not utf-8",
        b'{"error":"e",\xff"message":"m"}',
        "[" * 100_000,
    ],
)
def test_decode_refuses_anything_but_the_shared_shape(body):
    assert decode_error_envelope(body) is None


def test_decode_refuses_non_text_input():
    assert decode_error_envelope(None) is None  # type: ignore[arg-type]
    assert decode_error_envelope(123) is None  # type: ignore[arg-type]


@settings(deadline=None, max_examples=300)
@given(st.one_of(st.text(), st.binary()))
def test_decode_never_raises(body):
    result = decode_error_envelope(body)
    assert result is None or (result.error and result.message)


# --- Go's encoding/json, as upstream's DecodeErrorEnvelope and json.Marshal use it ---


@pytest.mark.parametrize(
    "body",
    [
        '{"ERROR":"e","Message":"m"}',
        '{"eRRoR":"e","MESSAGE":"m"}',
        '{"error":"e","me\u017f\u017fage":"m"}',  # LATIN SMALL LETTER LONG S folds to s
    ],
)
def test_keys_match_the_fields_without_regard_to_case(body):
    assert decode_error_envelope(body) == ErrorEnvelope("e", "m")


def test_details_key_folds_too_and_its_own_keys_stay_exact():
    decoded = decode_error_envelope('{"error":"e","message":"m","DETAIL\u017f":{"Field":"id","field":"x"}}')
    assert decoded == ErrorEnvelope("e", "m", {"Field": "id", "field": "x"})


def test_a_key_that_only_looks_alike_is_unknown():
    assert decode_error_envelope('{"error":"e","messages":"m"}') is None
    assert decode_error_envelope('{"error":"e","m\u00e9ssage":"m"}') is None


def test_the_last_duplicate_wins_and_null_keeps_a_string():
    assert decode_error_envelope('{"error":"a","Error":"b","message":"m"}') == ErrorEnvelope("b", "m")
    assert decode_error_envelope('{"error":"a","error":null,"message":"m"}') == ErrorEnvelope("a", "m")


def test_a_null_detail_value_is_an_empty_string():
    decoded = decode_error_envelope('{"error":"e","message":"m","details":{"n":null,"k":"v"}}')
    assert decoded is not None and decoded.details == {"n": "", "k": "v"}


def test_two_details_objects_merge_and_null_clears_them():
    merged = decode_error_envelope('{"error":"e","message":"m","details":{"a":"1","b":"2"},"details":{"b":"3"}}')
    assert merged is not None and merged.details == {"a": "1", "b": "3"}
    cleared = decode_error_envelope('{"error":"e","message":"m","details":{"a":"1"},"Details":null}')
    assert cleared == ErrorEnvelope("e", "m")


def test_unknown_keys_are_skipped_whatever_number_they_hold():
    huge = "9" * 5000
    assert decode_error_envelope('{"error":"e","message":"m","x":1e400}') == ErrorEnvelope("e", "m")
    assert decode_error_envelope('{"error":"e","message":"m","x":' + huge + "}") == ErrorEnvelope("e", "m")
    assert decode_error_envelope('{"error":"e","message":"m","x":{"y":[1,{"z":null}]}}') == ErrorEnvelope("e", "m")


def test_invalid_utf8_in_a_string_becomes_one_replacement_per_byte():
    # E2 82 is a truncated three-byte sequence: Go replaces each byte, Python's "replace" folds them.
    decoded = decode_error_envelope(b'{"error":"a\xe2\x82b","message":"\xff\xfe"}')
    assert decoded == ErrorEnvelope("a\ufffd\ufffdb", "\ufffd\ufffd")
    surrogate = decode_error_envelope(b'{"error":"\xed\xa0\x80","message":"m"}')  # UTF-8 of U+D800
    assert surrogate == ErrorEnvelope("\ufffd\ufffd\ufffd", "m")


def test_a_lone_surrogate_escape_becomes_a_replacement_and_a_pair_is_kept():
    decoded = decode_error_envelope('{"error":"\\ud800x","message":"\\ud83d\\ude00","details":{"\\udc00":"\\ud800"}}')
    assert decoded == ErrorEnvelope("\ufffdx", "\U0001f600", {"\ufffd": "\ufffd"})


def test_whitespace_around_the_object_is_allowed():
    assert decode_error_envelope(' \t\r\n{"error":"e","message":"m"}\n') == ErrorEnvelope("e", "m")


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
        ("\x01", "\\u0001"),
        ("\x1f", "\\u001f"),
        ("\b\f\n\r\t", "\\b\\f\\n\\r\\t"),
        ('"\\', '\\"\\\\'),
        ("\x7f\u00e9\U0001f600", "\x7f\u00e9\U0001f600"),
        ("\ud800", "\\ufffd"),
    ],
)
def test_encoding_escapes_as_go_does(text, escaped):
    body = ErrorEnvelope("e", text, {"k": text}).to_json()
    assert body == f'{{"error":"e","message":"{escaped}","details":{{"k":"{escaped}"}}}}'


def test_an_html_fragment_in_a_message_round_trips_through_its_escapes():
    envelope = ErrorEnvelope("invalid_id", "id <vm/1> & more\u2028")
    body = envelope.to_json()
    assert "<" not in body and ">" not in body and "&" not in body and "\u2028" not in body
    assert decode_error_envelope(body) == envelope
