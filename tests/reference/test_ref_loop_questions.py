"""Turns that hold pulse_question: the look-before-asking gate and the question turn."""

from __future__ import annotations

import asyncio

from reference_impl.agentcapabilities.tool_names import PULSE_CONTROL, PULSE_METRICS
from reference_impl.ai.chat.agentic import MAX_LOOK_GATE_BLOCKS, AgenticLoop
from reference_impl.ai.chat.fsm import SessionState
from reference_impl.ai.chat.phases import (
    LOOK_FIRST_TEXT,
    MAX_IDENTICAL_CALLS,
    NON_INTERACTIVE_TEXT,
    SKIPPED_TEXT,
    loop_detected_text,
)
from reference_impl.ai.chat.types import ToolCall
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
    assert tool_messages(result)["same"]["content"] == loop_detected_text("pulse_read", MAX_IDENTICAL_CALLS + 1)


def test_the_same_question_asked_too_often_is_refused_as_a_loop() -> None:
    provider = ScriptedProvider([calls_turn(read("look"))] + [calls_turn(question("q")) for _ in range(MAX_IDENTICAL_CALLS + 1)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = [m["content"] for m in result.messages if m["role"] == "tool"][1:]
    assert answers == ["out:q"] * MAX_IDENTICAL_CALLS + [loop_detected_text("pulse_question", MAX_IDENTICAL_CALLS + 1)]
    assert recorder.ran.count("q") == MAX_IDENTICAL_CALLS


def test_an_asked_question_leaves_the_state_machine_alone() -> None:
    result = run(ScriptedProvider([calls_turn(read("look")), calls_turn(question("q"))]), Recorder())
    assert result.fsm.state is SessionState.READING and result.fsm.last_read_tool == "pulse_read"


# -- non-interactive runs ------------------------------------------------------------
# Written from upstream's agentic.go at c313a80da, the block under "Non-interactive
# profiles (Patrol detection/investigation) cannot wait for user input": each
# pulse_question call is answered with the non-interactive error before anything
# else sees it, the other calls of the provider turn go on through the pipeline,
# and a turn left with no other call ends as the interactive question turn does.

UPSTREAM_NON_INTERACTIVE = (
    "pulse_question is unavailable: this is a non-interactive run and no user can answer. "
    "Continue with the available evidence."
)


def test_a_non_interactive_question_is_refused_and_the_rest_of_its_turn_runs() -> None:
    provider = ScriptedProvider([calls_turn(read("a"), question("q"), ToolCall("m", PULSE_METRICS, {}))])
    recorder = Recorder()
    result = run(provider, recorder, interactive=False)
    answers = tool_messages(result)
    assert NON_INTERACTIVE_TEXT == UPSTREAM_NON_INTERACTIVE
    assert answers["q"] == {**answers["q"], "content": UPSTREAM_NON_INTERACTIVE, "is_error": True}
    assert (answers["a"]["content"], answers["m"]["content"]) == ("out:a", "out:m")
    assert sorted(recorder.ran) == ["a", "m"] and recorder.peak == 2  # the rest runs as any turn does
    assert result.fsm.state is SessionState.READING and result.final_text == "all done"


def test_a_non_interactive_turn_of_only_questions_ends_that_turn() -> None:
    provider = ScriptedProvider([calls_turn(question("q1"), question("q2")), calls_turn(read("a"))])
    recorder = Recorder()
    result = run(provider, recorder, interactive=False)
    answers = tool_messages(result)
    assert [answers[q]["content"] for q in ("q1", "q2")] == [UPSTREAM_NON_INTERACTIVE] * 2
    assert recorder.ran == ["a"] and len(provider.seen) == 3  # the next provider turn was asked
    assert result.turns == 3 and result.stop_reason == "final"


def test_a_non_interactive_sibling_write_is_gated_not_skipped() -> None:
    provider = ScriptedProvider([calls_turn(question("q"), restart("w"), query("r"))])
    recorder = Recorder()
    result = run(provider, recorder, interactive=False)
    answers = tool_messages(result)
    assert answers["w"]["content"].startswith("FSM blocked tool 'pulse_control' (write) in state RESOLVING: ")
    assert answers["r"]["content"] == "out:r" and recorder.ran == ["r"]
    assert [(p.tool, p.error_code) for p in result.fsm.pending_recoveries.values()] == [(PULSE_CONTROL, "FSM_BLOCKED")]


def test_non_interactive_questions_are_refused_before_loop_detection() -> None:
    provider = ScriptedProvider([calls_turn(question("q")) for _ in range(MAX_IDENTICAL_CALLS + 2)])
    result = run(provider, Recorder(), interactive=False)
    answers = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert answers == [UPSTREAM_NON_INTERACTIVE] * (MAX_IDENTICAL_CALLS + 2)


def test_a_non_interactive_question_neither_counts_a_gate_block_nor_satisfies_the_gate() -> None:
    provider = ScriptedProvider([calls_turn(question(f"q{i}")) for i in range(1, MAX_LOOK_GATE_BLOCKS + 2)])
    loop = AgenticLoop(provider, Recorder(), interactive=False)
    result = asyncio.run(loop.run("patrol"))
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [UPSTREAM_NON_INTERACTIVE] * 3
    assert (loop._look_blocks, loop._looked) == (0, False)


def test_a_question_named_with_spaces_is_no_question_to_the_loop() -> None:
    # agentic.go compares tc.Name with pulse_question exactly; classification trims it to user_input
    spaced = ToolCall("q", " pulse_question", {"question": "which vm?"})
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(spaced, read("a"))]), recorder, interactive=False)
    assert sorted(recorder.ran) == ["a", "q"] and tool_messages(result)["q"]["content"] == "out:q"
