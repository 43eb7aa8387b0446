"""The loop and the session FSM: the same-turn gate, verification, lifecycle writes,
blocked-call results, recoveries, ordered execution and the run's budgets."""

from __future__ import annotations

import json

import pytest

from reference_impl.agentcapabilities.tool_names import (
    PATROL_ASSESS_FINDING,
    PATROL_GET_FINDINGS,
    PATROL_PROPOSE_OBSERVER,
    PATROL_REPORT_FINDING,
    PATROL_RESOLVE_FINDING,
    PULSE_CONTROL,
    PULSE_METRICS,
    PULSE_QUERY,
    PULSE_READ,
)
from reference_impl.ai.chat.agentic import DEFAULT_MAX_TOOL_CALLS
from reference_impl.ai.chat.fsm import SessionState
from reference_impl.ai.chat.phases import (
    BUDGET_TEXT,
    MAX_IDENTICAL_CALLS,
    call_signature,
    loop_detected_text,
    needs_serial,
    report_budget_text,
)
from reference_impl.ai.chat.types import ToolCall
from tests.reference.test_ref_loop import (
    Recorder,
    ScriptedProvider,
    calls_turn,
    get_findings,
    query,
    read,
    report,
    restart,
    run,
    tool_messages,
)

UPSTREAM_BLOCK_PREFIX = "FSM blocked tool '{tool}' ({kind}) in state {state}: "


def assert_plain_block(content: str, *, tool: str, state: str) -> None:
    """Upstream sends the block's error text itself: no JSON, no recovery id."""
    assert content.startswith(UPSTREAM_BLOCK_PREFIX.format(tool=tool, kind="write", state=state))
    with pytest.raises(ValueError):
        json.loads(content)
    assert "recovery_id" not in content


# -- the same-turn write gate checks the live state machine --------------------


def test_two_writes_in_reading_both_run() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w1"), restart("w2")), calls_turn(read("v"))])
    recorder = Recorder()
    result = run(provider, recorder)
    assert sorted(recorder.ran[1:3]) == ["w1", "w2"] and recorder.ran[3] == "v"
    assert not any(m["is_error"] for m in tool_messages(result).values())
    assert result.fsm.state is SessionState.READING and result.stop_reason == "final"


def test_a_write_beside_the_resolve_that_would_target_it_is_blocked_in_resolving() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(query("q"), restart("w"))]), recorder)
    assert_plain_block(tool_messages(result)["w"]["content"], tool=PULSE_CONTROL, state="RESOLVING")
    assert tool_messages(result)["w"]["is_error"] and recorder.ran == ["q"]


def test_a_write_in_verifying_is_blocked_until_a_later_turn_reads() -> None:
    provider = ScriptedProvider(
        [calls_turn(query("look")), calls_turn(restart("w1")), calls_turn(restart("w2")), calls_turn(read("v")), calls_turn(restart("w3"))]
    )
    recorder = Recorder()
    result = run(provider, recorder)
    assert_plain_block(tool_messages(result)["w2"]["content"], tool=PULSE_CONTROL, state="VERIFYING")
    assert recorder.ran == ["look", "w1", "v", "w3"]
    assert result.fsm.state is SessionState.VERIFYING  # w3 ran and was never read back


# -- a read after a write in the same turn verifies it --------------------------


def test_read_after_write_in_one_turn_verifies_and_returns_to_reading() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"), read("v"))])
    result = run(provider, Recorder())
    assert result.fsm.state is SessionState.READING and not result.fsm.read_after_write
    assert result.fsm.wrote_this_episode and result.fsm.last_read_tool == PULSE_READ
    assert result.stop_reason == "final" and result.turns == 3


def test_read_before_write_in_one_turn_does_not_verify() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(read("v"), restart("w"))])
    result = run(provider, Recorder(), max_turns=4)
    assert result.fsm.state is SessionState.VERIFYING and not result.fsm.read_after_write


def test_a_failed_read_after_the_write_does_not_verify() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"), read("v"))])
    result = run(provider, Recorder(fail=["v"]), max_turns=3)
    assert result.fsm.state is SessionState.VERIFYING


# -- writes of Patrol's own state (finding lifecycle, observer proposals) leave the state machine alone ---------------------


@pytest.mark.parametrize("tool", [PATROL_REPORT_FINDING, PATROL_ASSESS_FINDING, PATROL_RESOLVE_FINDING, PATROL_PROPOSE_OBSERVER])
def test_a_patrol_state_write_keeps_reading(tool: str) -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(ToolCall("f", tool, {"finding_id": "x"}))])
    recorder = Recorder()
    result = run(provider, recorder)
    assert recorder.ran == ["look", "f"]
    assert result.fsm.state is SessionState.READING
    assert not result.fsm.wrote_this_episode and result.fsm.last_write_tool == ""
    assert result.stop_reason == "final" and result.turns == 3  # no evidence request was needed


def test_a_finding_lifecycle_write_does_not_satisfy_an_open_verification() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w")), calls_turn(report("r"))])
    result = run(provider, Recorder(), max_turns=4)
    assert result.fsm.state is SessionState.VERIFYING and not result.fsm.read_after_write


def test_a_finding_lifecycle_write_is_still_gated_as_a_write() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(report("r"))]), recorder)
    assert_plain_block(tool_messages(result)["r"]["content"], tool=PATROL_REPORT_FINDING, state="RESOLVING")
    assert recorder.ran == []


# -- blocked calls and pending recoveries ---------------------------------------


def test_a_blocked_write_opens_a_pending_recovery() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(restart("w"))]), recorder)
    pending = list(result.fsm.pending_recoveries.values())
    assert [(p.tool, p.error_code) for p in pending] == [(PULSE_CONTROL, "FSM_BLOCKED")]
    assert recorder.ran == []


def test_the_pending_recovery_is_cleared_by_the_tools_later_success() -> None:
    provider = ScriptedProvider([calls_turn(restart("w1")), calls_turn(query("q")), calls_turn(restart("w2")), calls_turn(read("v"))])
    recorder = Recorder()
    result = run(provider, recorder)
    assert recorder.ran == ["q", "w2", "v"] and result.fsm.pending_recoveries == {}


def test_a_strict_resolution_failure_opens_a_pending_recovery() -> None:
    recorder = Recorder(fail=["w"])
    response = {"ok": False, "error": {"code": "STRICT_RESOLUTION", "message": "name the target exactly"}}
    recorder.outputs["w"] = "refused: " + json.dumps(response)
    result = run(ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"))]), recorder)
    pending = list(result.fsm.pending_recoveries.values())
    assert [(p.error_code, p.tool) for p in pending] == [("STRICT_RESOLUTION", PULSE_CONTROL)]
    assert result.fsm.state is SessionState.READING  # the failed write moved nothing


@pytest.mark.parametrize(
    "output",
    [
        '{"error": "STRICT_RESOLUTION", "message": "the envelope\'s error is a string, not a code"}',
        "STRICT_RESOLUTION: the code in prose is no structured code",
        '{"error": {"code": "STRICT_RESOLUTION"}} and text after the object',
    ],
)
def test_only_a_structured_strict_resolution_code_opens_a_recovery(output: str) -> None:
    # agentic.go asks ToolResultHasErrorCode, which reads the ToolResponse shape only
    recorder = Recorder(fail=["w"])
    recorder.outputs["w"] = output
    result = run(ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"))]), recorder)
    assert result.fsm.pending_recoveries == {}


def test_another_failure_opens_no_recovery() -> None:
    result = run(ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"))]), Recorder(fail=["w"]))
    assert result.fsm.pending_recoveries == {}


# -- ordered execution -----------------------------------------------------------

ORDERING_CASES = [
    ([PULSE_QUERY, PULSE_READ], False),
    ([PATROL_REPORT_FINDING, PATROL_REPORT_FINDING], False),
    ([PATROL_GET_FINDINGS, PATROL_ASSESS_FINDING], True),
    ([PATROL_GET_FINDINGS, PATROL_REPORT_FINDING], True),
    ([PATROL_RESOLVE_FINDING, PATROL_GET_FINDINGS], True),
    ([PATROL_GET_FINDINGS, PULSE_METRICS], False),
]


@pytest.mark.parametrize(("names", "serial"), ORDERING_CASES)
def test_ordering_rule_matches_upstream_cases(names: list[str], serial: bool) -> None:
    assert needs_serial([ToolCall(f"c{i}", name) for i, name in enumerate(names)]) is serial


def test_a_report_budget_orders_any_turn_holding_a_report() -> None:
    reports = [ToolCall("a", PATROL_REPORT_FINDING), ToolCall("b", PATROL_REPORT_FINDING)]
    assert needs_serial(reports, report_budget=1)
    assert not needs_serial([ToolCall("a", PULSE_READ), ToolCall("b", PULSE_QUERY)], report_budget=1)


def test_findings_read_and_lifecycle_write_run_strictly_in_provider_order() -> None:
    batch = [get_findings("f1"), report("r1"), get_findings("f2"), read("p1")]
    recorder = Recorder(delay=lambda call: 0.02 if call.id == "f1" else 0.005)
    run(ScriptedProvider([calls_turn(query("q")), calls_turn(*batch)]), recorder)
    assert recorder.peak == 1
    expected = [event for call in ["q", *(c.id for c in batch)] for event in (("start", call), ("end", call))]
    assert recorder.events == expected


def test_ordering_is_judged_on_every_call_of_the_turn_even_a_blocked_one() -> None:
    # in RESOLVING the report is blocked, yet its presence still orders the reads beside it
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(get_findings("f"), report("r"), read("a"))]), recorder)
    assert_plain_block(tool_messages(result)["r"]["content"], tool=PATROL_REPORT_FINDING, state="RESOLVING")
    assert recorder.peak == 1 and recorder.ran == ["f", "a"]


def test_findings_read_without_lifecycle_write_runs_concurrently() -> None:
    batch = [get_findings("f1"), read("p1"), ToolCall("m1", PULSE_METRICS, {})]
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(*batch)]), recorder)
    assert recorder.peak == 3


def test_same_turn_reports_beyond_the_budget_are_refused_in_order() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(report("r1"), report("r2"), read("a"))])
    recorder = Recorder()
    result = run(provider, recorder, max_finding_reports=1)
    answers = tool_messages(result)
    assert not answers["r1"]["is_error"]
    assert answers["r2"]["content"] == report_budget_text(1) and answers["r2"]["is_error"]
    assert recorder.ran == ["look", "r1", "a"] and recorder.peak == 1


def test_a_refused_report_is_upstreams_json_error_result() -> None:
    # agentic.go answers the report with NewToolJSONResultWithIsError({"error": {"code", "message"}}, true)
    assert report_budget_text(2) == (
        '{"error":{"code":"PATROL_FINDING_REPORT_BUDGET_EXHAUSTED","message":"This evaluation has already '
        'accepted its maximum of 2 finding reports. Summarize the accepted results without another report call."}}'
    )


def test_a_rejected_report_does_not_use_the_budget() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(report("r1"), report("r2")), calls_turn(report("r3"))])
    recorder = Recorder(fail=["r1"])
    result = run(provider, recorder, max_finding_reports=1)
    answers = tool_messages(result)
    assert not answers["r2"]["is_error"] and answers["r3"]["content"] == report_budget_text(1)
    assert recorder.ran == ["look", "r1", "r2"]


def test_without_a_budget_reports_run_concurrently_and_unbounded() -> None:
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(query("look")), calls_turn(report("r1"), report("r2"), report("r3"))]), recorder)
    assert recorder.peak == 3 and len(recorder.ran) == 4


# -- loop detection and the tool-call budget (the budget is this reference's addition) --


def test_the_loop_key_is_the_untrimmed_name_and_the_arguments_as_go_marshals_them() -> None:
    # agentic_verification.go: toolCallKey is name + ":" + json.Marshal(input), or the name alone
    assert call_signature(ToolCall("a", "pulse_read", {"b": "<", "a": 1.0})) == 'pulse_read:{"a":1,"b":"\\u003c"}'
    assert call_signature(ToolCall("a", " pulse_read", {})) == " pulse_read:{}"
    assert call_signature(ToolCall("a", "pulse_read", {"x": float("nan"), "y": 1})) == "pulse_read"


def test_calls_go_cannot_encode_count_together_under_their_name() -> None:
    nan = float("nan")
    calls = [ToolCall(f"c{i}", PULSE_READ, {"x": nan, "i": i}) for i in range(MAX_IDENTICAL_CALLS + 1)]
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(call) for call in calls]), recorder)
    assert tool_messages(result)[f"c{MAX_IDENTICAL_CALLS}"]["content"].startswith("LOOP_DETECTED: ")
    assert len(recorder.ran) == MAX_IDENTICAL_CALLS


def test_a_name_with_spaces_is_another_loop_key() -> None:
    spaced = [ToolCall(f"s{i}", " pulse_read", {"resource_id": "same"}) for i in range(MAX_IDENTICAL_CALLS)]
    plain = [ToolCall(f"p{i}", PULSE_READ, {"resource_id": "same"}) for i in range(MAX_IDENTICAL_CALLS)]
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(call) for call in [*spaced, *plain]]), recorder)
    assert len(recorder.ran) == 2 * MAX_IDENTICAL_CALLS


def test_repeated_identical_call_is_refused_as_a_loop() -> None:
    repeats = MAX_IDENTICAL_CALLS + 2
    provider = ScriptedProvider([calls_turn(read("same")) for _ in range(repeats)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = [m["content"] for m in result.messages if m["role"] == "tool"]
    refusals = [loop_detected_text(PULSE_READ, count) for count in (MAX_IDENTICAL_CALLS + 1, MAX_IDENTICAL_CALLS + 2)]
    assert answers == ["out:same"] * MAX_IDENTICAL_CALLS + refusals
    assert refusals[0] == (
        "LOOP_DETECTED: You have called pulse_read with the same arguments 4 times. "
        "This call is blocked. Try a different tool or approach."
    )
    assert len(recorder.ran) == MAX_IDENTICAL_CALLS


def test_a_blocked_call_is_not_counted_by_loop_detection() -> None:
    blocked = [calls_turn(restart("w")) for _ in range(MAX_IDENTICAL_CALLS + 1)]
    provider = ScriptedProvider([*blocked, calls_turn(query("q")), calls_turn(restart("w"))])
    recorder = Recorder()
    run(provider, recorder)
    assert recorder.ran == ["q", "w"]


def test_tool_call_budget_per_run() -> None:
    assert DEFAULT_MAX_TOOL_CALLS == 64
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(read("a"), read("b"), read("c"))]), recorder, max_tool_calls=2)
    assert tool_messages(result)["c"]["content"] == BUDGET_TEXT
    assert recorder.ran == ["a", "b"]
