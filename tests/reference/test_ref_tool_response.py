"""ToolResponse / ToolError, and reading an error code out of a tool result.

Expected texts follow upstream's tool_response.go and json.Marshal: struct
fields in declaration order, omitempty fields left out, map keys sorted.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.agentcapabilities.tool_response import (
    ToolError,
    ToolErrorCode,
    ToolResponse,
    new_tool_blocked_error,
    tool_response_result,
    tool_result_error_code,
    tool_result_has_error_code,
    tool_result_has_verification_ok,
)
from reference_impl.gocompat.gojson import GoJSONError, marshal

T = ToolErrorCode


def test_blocked_error_is_not_ok_and_only_blocked():
    response = new_tool_blocked_error(T.STRICT_RESOLUTION, "discover first", {"resource_id": "vm:101"})
    assert response.ok is False and response.error is not None
    assert (response.error.blocked, response.error.failed, response.error.retryable) == (True, False, False)
    assert response.to_json() == (
        '{"ok":false,"error":{"code":"STRICT_RESOLUTION","message":"discover first",'
        '"blocked":true,"details":{"resource_id":"vm:101"}}}'
    )


def test_false_flags_and_empty_collections_are_left_out():
    assert ToolResponse(ok=True).to_json() == '{"ok":true}'
    assert ToolResponse(ok=True, meta={}).to_json() == '{"ok":true}'
    assert ToolResponse(ok=False, error=ToolError("NOT_FOUND", "gone", details={})).to_json() == (
        '{"ok":false,"error":{"code":"NOT_FOUND","message":"gone"}}'
    )


def test_empty_data_is_kept_because_only_a_nil_interface_is_empty():
    assert ToolResponse(ok=True, data={}).to_json() == '{"ok":true,"data":{}}'
    assert ToolResponse(ok=True, data=[]).to_json() == '{"ok":true,"data":[]}'


def test_fields_keep_declaration_order_and_maps_sort():
    response = ToolResponse(
        ok=False,
        data={"z": 1, "a": [True, None]},
        error=ToolError(
            "EXECUTION_FAILED", "boom", blocked=True, failed=True, retryable=True, details={"b": 2, "a": 1}
        ),
        meta={"y": "<", "x": 0.5},
    )
    assert response.to_json() == (
        '{"ok":false,"data":{"a":[true,null],"z":1},'
        '"error":{"code":"EXECUTION_FAILED","message":"boom","blocked":true,"failed":true,"retryable":true,'
        '"details":{"a":1,"b":2}},"meta":{"x":0.5,"y":"\\u003c"}}'
    )


def test_result_is_error_exactly_when_not_ok():
    blocked = tool_response_result(new_tool_blocked_error(T.ACTION_NOT_ALLOWED, "not here"))
    assert blocked[1] is True and '"code":"ACTION_NOT_ALLOWED"' in blocked[0]
    ok = tool_response_result(ToolResponse(ok=True, data={"status": "ok"}))
    assert ok == ('{"ok":true,"data":{"status":"ok"}}', False)


@pytest.mark.parametrize(("value", "shown"), [(float("nan"), "NaN"), (float("inf"), "+Inf"), (float("-inf"), "-Inf")])
def test_a_response_go_cannot_encode_becomes_an_error_result(value, shown):
    assert tool_response_result(ToolResponse(ok=True, data={"v": value})) == (f"json: unsupported value: {shown}", True)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (-0.0, "-0"),
        (0.5, "0.5"),
        (100.0, "100"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.25e-10, "1.25e-10"),
        (123456789.0, "123456789"),
        (3, "3"),
        (True, "true"),
        (None, "null"),
    ],
)
def test_numbers_are_written_as_go_writes_float64(value, text):
    assert marshal(value) == text


def test_marshal_refuses_what_go_cannot_encode():
    with pytest.raises(GoJSONError):
        marshal({1: "x"})
    with pytest.raises(GoJSONError):
        marshal(object())


BLOCKED_TEXT = tool_response_result(new_tool_blocked_error(T.FSM_BLOCKED, "verify before writing again"))[0]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (BLOCKED_TEXT, "FSM_BLOCKED"),
        ('Blocked: {"ok":false,"error":{"code":"ROUTING_MISMATCH","message":"choose child"}}', "ROUTING_MISMATCH"),
        ('{"error_code":"EXECUTION_CONTEXT_UNAVAILABLE"}', "EXECUTION_CONTEXT_UNAVAILABLE"),
        ('{"error":{"code":42},"error_code":"NO_AGENT"}', "NO_AGENT"),
        ('{"error":"FSM_BLOCKED","error_code":"NOT_FOUND"}', "NOT_FOUND"),
        ('{"error":{"code":" X "}}', " X "),
        ('{"error":{"code":"A"},"error":{"code":"B"}}', "B"),
        ('{"error":{"code":"A"}}\n\t ', "A"),
        ('{"error":{"code":"A"},"n":1e308}', "A"),
    ],
)
def test_error_code_is_read_from_the_first_brace_to_the_end(text, code):
    assert tool_result_error_code(text) == code
    assert tool_result_has_error_code(text, code)
    assert not tool_result_has_error_code(text, T.NO_AGENT) or code == "NO_AGENT"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no json here",
        '{"ok":true}',
        'Blocked: {"error":{"code":"STRICT_RESOLUTION"}',
        '{"error":{"code":42}}',
        '{"error":{"code":"   "}}',
        '{"error":{"code":"\u3000"}}',
        '{"error_code":"\u2029"}',
        '{"error":{"code":"X"}} and then prose',
        'see {note}: {"error":{"code":"X"}}',
        '{"error":{"code":"X"},"n":1e400}',
        '{"error":{"code":"X"},"n":NaN}',
        '{"error":"FSM_BLOCKED","message":"BLOCKED: call pulse_query first"}',
        '{"Error":{"code":"X"}}',
        '{"error":{"Code":"X"}}',
    ],
)
def test_no_error_code(text):
    assert tool_result_error_code(text) is None
    assert not tool_result_has_error_code(text, "X")


def test_a_code_with_outer_space_that_go_keeps_is_not_blank():
    assert tool_result_error_code('{"error_code":"\\u001c"}') == "\x1c"  # Python's strip would empty it


def test_bytes_with_invalid_utf8_are_read_with_replacements():
    assert tool_result_error_code(b'\xff {"error":{"code":"A\xffB"}}') == "A\ufffdB"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ('{"success":true,"verification":{"ok":true,"method":"exit_code"}}', True),
        ('Action complete: {"verification":{"ok":true}}', True),
        ('{"verification":{"ok":false}}', False),
        ('{"success":true}', False),
        ('Action complete: {"verification":{"ok":true}', False),
        ('{"verification":{"ok":"true"}}', False),
        ('{"verification":{"ok":1}}', False),
        ('{"verification":true}', False),
        ("", False),
    ],
)
def test_verification_ok(text, ok):
    assert tool_result_has_verification_ok(text) is ok


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**15), 10**15) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)


@settings(deadline=None, max_examples=200)
@given(
    code=st.text(min_size=1, max_size=12).filter(lambda c: c.strip(" \t\n\r\v\f") != "" and c.isprintable()),
    data=_json_values,
    prose=st.text(alphabet=st.characters(blacklist_characters="{"), max_size=10),
)
def test_a_responses_own_code_is_read_back_after_any_prose(code, data, prose):
    response = ToolResponse(ok=False, data=data, error=ToolError(code, "m", failed=True))
    text, is_error = tool_response_result(response)
    assert is_error
    assert tool_result_error_code(prose + text) == code
