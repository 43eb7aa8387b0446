"""Turns that hold pulse_question: the look-before-asking gate and the question turn."""

from __future__ import annotations

import asyncio

from reference_impl.fsm import SessionState
from reference_impl.loop import MAX_LOOK_GATE_BLOCKS, AgenticLoop, ToolCall
from reference_impl.loop_phases import (
    LOOK_FIRST_TEXT,
    LOOP_DETECTED_TEXT,
    MAX_IDENTICAL_CALLS,
    NON_INTERACTIVE_TEXT,
    SKIPPED_TEXT,
)
from reference_impl.tools import PULSE_CONTROL, PULSE_METRICS
from tests.reference.test_ref_loop import (
    FINAL,
    Recorder,
    ScriptedProvider,
    calls_turn,
    query,
    question,
    read,
    restart,
    run,
    tool_messages,
)

# -- the look-before-asking gate ---------------------------------------------------


def test_a_first_action_question_is_refused_and_the_run_goes_on() -> None:
    provider = ScriptedProvider([calls_turn(question("q")), calls_turn(query("r"))])
    recorder = Recorder()
    result = run(provider, recorder)
    refusal = tool_messages(result)["q"]
    assert refusal["content"] == LOOK_FIRST_TEXT and refusal["is_error"]
    assert LOOK_FIRST_TEXT.startswith("BLOCKED") and "pulse_summarize" in LOOK_FIRST_TEXT
    assert recorder.ran == ["r"] and result.final_text == "all done"


def test_a_refused_question_lets_its_siblings_run() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(question("q"), query("r"), ToolCall("m", PULSE_METRICS, {}))]), recorder)
    assert tool_messages(result)["q"]["content"] == LOOK_FIRST_TEXT
    assert sorted(recorder.ran) == ["m", "r"] and recorder.peak == 2


def test_the_gate_fails_open_after_its_bound() -> None:
    provider = ScriptedProvider([calls_turn(question(f"q{i}")) for i in range(1, MAX_LOOK_GATE_BLOCKS + 2)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = tool_messages(result)
    assert [answers[f"q{i}"]["content"] for i in range(1, MAX_LOOK_GATE_BLOCKS + 1)] == [LOOK_FIRST_TEXT] * 2
    assert answers["q3"]["content"] == "out:q3" and recorder.ran == ["q3"]


def test_one_block_per_provider_turn_refuses_every_question_of_it() -> None:
    provider = ScriptedProvider(
        [calls_turn(question("q1"), question("q2")), calls_turn(question("q3")), calls_turn(question("q4"))]
    )
    recorder = Recorder()
    result = run(provider, recorder)
    answers = tool_messages(result)
    assert [answers[q]["content"] for q in ("q1", "q2", "q3")] == [LOOK_FIRST_TEXT] * 3
    assert recorder.ran == ["q4"]  # two provider turns used the two blocks


def test_a_blocked_write_does_not_satisfy_the_gate() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(restart("w")), calls_turn(question("q"))]), recorder)
    assert tool_messages(result)["q"]["content"] == LOOK_FIRST_TEXT
    assert recorder.ran == []


def test_a_call_over_the_budget_does_not_satisfy_the_gate() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(read("a")), calls_turn(question("q"))]), recorder, max_tool_calls=0)
    assert tool_messages(result)["q"]["content"] == LOOK_FIRST_TEXT


def test_an_admitted_call_satisfies_the_gate_even_when_it_fails() -> None:
    recorder = Recorder(fail=["a"])
    result = run(ScriptedProvider([calls_turn(read("a")), calls_turn(question("q"))]), recorder)
    assert tool_messages(result)["q"]["content"] == "out:q"
    assert recorder.ran == ["a", "q"]


def test_a_read_beside_the_question_satisfies_the_gate_only_from_the_next_turn() -> None:
    provider = ScriptedProvider([calls_turn(question("q1"), read("a")), calls_turn(question("q2"))])
    recorder = Recorder()
    result = run(provider, recorder)
    assert tool_messages(result)["q1"]["content"] == LOOK_FIRST_TEXT
    assert recorder.ran == ["a", "q2"]


def test_the_gate_counts_again_from_zero_in_each_run() -> None:
    script = [calls_turn(question("q1")), FINAL, calls_turn(question("q2")), calls_turn(question("q3")), calls_turn(question("q4"))]
    loop = AgenticLoop(ScriptedProvider(script), Recorder())
    first = asyncio.run(loop.run("first"))
    assert tool_messages(first)["q1"]["content"] == LOOK_FIRST_TEXT
    second = asyncio.run(loop.run("second"))
    answers = tool_messages(second)
    assert [answers[q]["content"] for q in ("q2", "q3", "q4")] == [LOOK_FIRST_TEXT, LOOK_FIRST_TEXT, "out:q4"]


# -- a turn that asks ----------------------------------------------------------------


def test_every_question_is_asked_in_order_and_siblings_are_skipped() -> None:
    provider = ScriptedProvider([calls_turn(read("look")), calls_turn(question("q1"), read("b"), question("q2"), ToolCall("m", PULSE_METRICS, {}))])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = tool_messages(result)
    assert recorder.ran == ["look", "q1", "q2"] and recorder.peak == 1
    assert [answers[q]["content"] for q in ("q1", "q2")] == ["out:q1", "out:q2"]
    for skipped in ("b", "m"):
        assert answers[skipped]["content"] == SKIPPED_TEXT and answers[skipped]["is_error"]


def test_a_sibling_write_is_fsm_checked_before_it_is_skipped() -> None:
    provider = ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w1")), calls_turn(question("q"), restart("w2"))])
    recorder = Recorder()
    result = run(provider, recorder, max_turns=3)
    blocked = tool_messages(result)["w2"]
    assert blocked["is_error"] and blocked["content"].startswith("FSM blocked tool 'pulse_control' (write) in state VERIFYING: ")
    assert [(p.tool, p.error_code) for p in result.fsm.pending_recoveries.values()] == [(PULSE_CONTROL, "FSM_BLOCKED")]
    assert result.fsm.consecutive_verify_blocks == 1
    assert recorder.ran == ["look", "w1", "q"]


def test_a_sibling_write_the_fsm_allows_is_skipped_without_a_recovery() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(query("look")), calls_turn(restart("w"), question("q"))]), recorder)
    assert tool_messages(result)["w"]["content"] == SKIPPED_TEXT
    assert result.fsm.pending_recoveries == {} and result.fsm.state is SessionState.READING


def test_loop_detection_applies_to_a_question_turn() -> None:
    seen_enough = [calls_turn(read("same")) for _ in range(MAX_IDENTICAL_CALLS)]
    provider = ScriptedProvider([*seen_enough, calls_turn(question("q"), read("same"))])
    result = run(provider, Recorder())
    assert tool_messages(result)["same"]["content"] == LOOP_DETECTED_TEXT


def test_the_same_question_asked_too_often_is_refused_as_a_loop() -> None:
    provider = ScriptedProvider([calls_turn(read("look"))] + [calls_turn(question("q")) for _ in range(MAX_IDENTICAL_CALLS + 1)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = [m["content"] for m in result.messages if m["role"] == "tool"][1:]
    assert answers == ["out:q"] * MAX_IDENTICAL_CALLS + [LOOP_DETECTED_TEXT]
    assert recorder.ran.count("q") == MAX_IDENTICAL_CALLS


def test_an_asked_question_leaves_the_state_machine_alone() -> None:
    result = run(ScriptedProvider([calls_turn(read("look")), calls_turn(question("q"))]), Recorder())
    assert result.fsm.state is SessionState.READING and result.fsm.last_read_tool == "pulse_read"


# -- non-interactive runs -----------------------------------------------------------


def test_non_interactive_questions_are_refused_and_their_siblings_skipped() -> None:
    provider = ScriptedProvider([calls_turn(read("a"), question("q"), ToolCall("m", PULSE_METRICS, {})), calls_turn(read("b"))])
    recorder = Recorder()
    result = run(provider, recorder, interactive=False)
    answers = tool_messages(result)
    assert answers["q"]["content"] == NON_INTERACTIVE_TEXT and answers["q"]["is_error"]
    assert answers["a"]["content"] == SKIPPED_TEXT and answers["m"]["content"] == SKIPPED_TEXT
    assert recorder.ran == ["b"]


def test_the_gate_is_not_consulted_in_a_non_interactive_run() -> None:
    provider = ScriptedProvider([calls_turn(question(f"q{i}")) for i in range(1, 4)])
    result = run(provider, Recorder(), interactive=False)
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [NON_INTERACTIVE_TEXT] * 3
