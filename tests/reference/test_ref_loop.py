"""Contract tests of reference_impl.loop, measured with an instrumented executor."""

from __future__ import annotations

import ast
import asyncio
import inspect
from collections.abc import Callable, Iterable, Sequence

import pytest

import reference_impl.loop as loop_module
from reference_impl.errors import decode_error_envelope
from reference_impl.fsm import SessionState
from reference_impl.loop import (
    MAX_LOOK_GATE_BLOCKS,
    MAX_PARALLEL_TOOLS,
    AgenticLoop,
    LoopResult,
    ProviderTurn,
    ToolCall,
    ToolResult,
)
from reference_impl.loop_phases import (
    BUDGET_TEXT,
    LOOK_FIRST_TEXT,
    LOOP_DETECTED_TEXT,
    MAX_IDENTICAL_CALLS,
    NON_INTERACTIVE_TEXT,
    SKIPPED_TEXT,
)
from reference_impl.tools import (
    PATROL_GET_FINDINGS,
    PATROL_REPORT_FINDING,
    PULSE_CONTROL,
    PULSE_METRICS,
    PULSE_QUERY,
    PULSE_QUESTION,
    PULSE_READ,
)

FINAL = ProviderTurn(text="all done")


class ScriptedProvider:
    """Plays back a list of turns; after the script it keeps giving ``after``."""

    def __init__(self, turns: Iterable[ProviderTurn], after: ProviderTurn = FINAL) -> None:
        self.turns = list(turns)
        self.after = after
        self.seen: list[list[dict]] = []

    async def complete(self, messages: list[dict]) -> ProviderTurn:
        self.seen.append(messages)
        return self.turns.pop(0) if self.turns else self.after


class Recorder:
    """An executor that sleeps, counts calls in flight and records start/end order."""

    def __init__(
        self, delay: Callable[[ToolCall], float] = lambda call: 0.01, fail: Sequence[str] = ()
    ) -> None:
        self.delay = delay
        self.fail = set(fail)
        self.in_flight = 0
        self.peak = 0
        self.events: list[tuple[str, str]] = []

    @property
    def ran(self) -> list[str]:
        return [call_id for what, call_id in self.events if what == "start"]

    async def __call__(self, call: ToolCall) -> ToolResult:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.events.append(("start", call.id))
        try:
            await asyncio.sleep(self.delay(call))
        finally:
            self.in_flight -= 1
            self.events.append(("end", call.id))
        return ToolResult(call.id, f"out:{call.id}", is_error=call.id in self.fail)


def calls_turn(*calls: ToolCall) -> ProviderTurn:
    return ProviderTurn(text="", tool_calls=list(calls))


def read(call_id: str, **args: object) -> ToolCall:
    return ToolCall(call_id, PULSE_READ, {"resource_id": call_id, **args})


def question(call_id: str) -> ToolCall:
    return ToolCall(call_id, PULSE_QUESTION, {"question": f"which one ({call_id})?"})


def restart(call_id: str) -> ToolCall:
    return ToolCall(call_id, PULSE_CONTROL, {"action": "restart", "target": call_id})


def run(provider: ScriptedProvider, execute: Recorder, **kwargs: object) -> LoopResult:
    result = asyncio.run(AgenticLoop(provider, execute, **kwargs).run("check my fleet"))
    assert_paired(result.messages)
    return result


def assert_paired(messages: list[dict]) -> None:
    """Every assistant tool call is answered by exactly one tool message, right after, in order."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"unpaired tool message at {i}: {message}"
        i += 1
        if message["role"] == "assistant":
            ids = [call["id"] for call in message.get("tool_calls", [])]
            answers = [m.get("tool_call_id") for m in messages[i : i + len(ids)] if m["role"] == "tool"]
            assert answers == ids
            i += len(ids)


def tool_messages(result: LoopResult) -> dict[str, dict]:
    return {m["tool_call_id"]: m for m in result.messages if m["role"] == "tool"}


# -- phase 2: concurrency ----------------------------------------------------


def test_ten_independent_reads_peak_exactly_four_and_results_in_provider_order() -> None:
    calls = [read(f"c{i}") for i in range(10)]
    # later calls finish sooner, so completion order differs from provider order
    recorder = Recorder(delay=lambda call: 0.01 + 0.003 * (9 - int(call.id[1:])))
    result = run(ScriptedProvider([calls_turn(*calls)]), recorder)
    assert recorder.peak == MAX_PARALLEL_TOOLS == 4
    assert sorted(recorder.ran) == sorted(c.id for c in calls)
    assert recorder.ran[:4] == ["c0", "c1", "c2", "c3"]
    answers = [m for m in result.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answers] == [c.id for c in calls]
    assert [m["content"] for m in answers] == [f"out:{c.id}" for c in calls]
    assert result.stop_reason == "final" and result.final_text == "all done"


@pytest.mark.parametrize("count", [1, 3, 4, 5, 10])
def test_peak_in_flight_is_min_of_count_and_cap(count: int) -> None:
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(*(read(f"c{i}") for i in range(count)))]), recorder)
    assert recorder.peak == min(count, MAX_PARALLEL_TOOLS)
    assert len(recorder.ran) == count


def test_the_semaphore_is_what_bounds_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop_module, "MAX_PARALLEL_TOOLS", 2)
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(*(read(f"c{i}") for i in range(6)))]), recorder)
    assert recorder.peak == 2


def test_exactly_one_semaphore_call_inside_agentic_loop() -> None:
    tree = ast.parse(inspect.getsource(loop_module))
    found = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "asyncio.Semaphore":
                found.append((cls.name, ast.unparse(node)))
    everywhere = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and "Semaphore" in ast.unparse(n.func)]
    assert found == [("AgenticLoop", "asyncio.Semaphore(MAX_PARALLEL_TOOLS)")]
    assert len(everywhere) == 1
    assert MAX_LOOK_GATE_BLOCKS == 2


def test_findings_read_before_write_batch_runs_strictly_in_order() -> None:
    batch = [
        ToolCall("f1", PATROL_GET_FINDINGS, {}),
        ToolCall("r1", PATROL_REPORT_FINDING, {"title": "disk full"}),
        ToolCall("f2", PATROL_GET_FINDINGS, {"status": "open"}),
        read("p1"),
    ]
    recorder = Recorder(delay=lambda call: 0.02 if call.id == "f1" else 0.005)
    provider = ScriptedProvider([calls_turn(ToolCall("q", PULSE_QUERY, {})), calls_turn(*batch)])
    result = run(provider, recorder)
    assert recorder.peak == 1
    expected = []
    for call in [ToolCall("q", PULSE_QUERY, {}), *batch]:
        expected += [("start", call.id), ("end", call.id)]
    assert recorder.events == expected
    # the read after the write ran after it, so it verified it: the final answer is accepted
    assert result.stop_reason == "final" and result.turns == 3
    assert result.fsm.state is SessionState.READING and result.fsm.wrote_this_episode


def test_findings_read_without_lifecycle_write_runs_concurrently() -> None:
    batch = [ToolCall("f1", PATROL_GET_FINDINGS, {}), read("p1"), ToolCall("m1", PULSE_METRICS, {})]
    recorder = Recorder()
    run(ScriptedProvider([calls_turn(*batch)]), recorder)
    assert recorder.peak == 3


# -- pulse_question and the look-before-asking gate ---------------------------


def test_question_is_asked_alone_and_siblings_are_skipped() -> None:
    provider = ScriptedProvider(
        [calls_turn(read("look")), calls_turn(read("a"), question("ask"), ToolCall("m", PULSE_METRICS, {}))]
    )
    recorder = Recorder()
    result = run(provider, recorder)
    assert recorder.ran == ["look", "ask"]
    answers = tool_messages(result)
    assert answers["ask"]["content"] == "out:ask" and not answers["ask"]["is_error"]
    for skipped in ("a", "m"):
        assert answers[skipped]["content"] == SKIPPED_TEXT and answers[skipped]["is_error"]


def test_two_gate_refusals_then_the_question_passes() -> None:
    provider = ScriptedProvider([calls_turn(question(f"q{i}")) for i in range(1, MAX_LOOK_GATE_BLOCKS + 2)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = tool_messages(result)
    assert [answers[f"q{i}"]["content"] for i in (1, 2)] == [LOOK_FIRST_TEXT] * 2
    assert all(answers[f"q{i}"]["is_error"] for i in (1, 2))
    assert answers["q3"]["content"] == "out:q3"
    assert recorder.ran == ["q3"]


def test_any_real_attempt_satisfies_the_gate_even_a_blocked_one() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(restart("w")), calls_turn(question("q"))]), recorder)
    assert decode_error_envelope(tool_messages(result)["w"]["content"]).error == "FSM_BLOCKED"
    assert recorder.ran == ["q"]


def test_refused_question_lets_its_siblings_run() -> None:
    provider = ScriptedProvider([calls_turn(question("q1"), read("a")), calls_turn(question("q2"))])
    recorder = Recorder()
    result = run(provider, recorder)
    assert tool_messages(result)["q1"]["content"] == LOOK_FIRST_TEXT
    assert recorder.ran == ["a", "q2"]


def test_non_interactive_question_refused_while_siblings_run() -> None:
    provider = ScriptedProvider(
        [calls_turn(read("a"), question("q"), ToolCall("m", PULSE_METRICS, {})), calls_turn(question("q2"))]
    )
    recorder = Recorder()
    result = run(provider, recorder, interactive=False)
    answers = tool_messages(result)
    for refused in ("q", "q2"):
        assert answers[refused]["content"] == NON_INTERACTIVE_TEXT and answers[refused]["is_error"]
    assert sorted(recorder.ran) == ["a", "m"]
    assert recorder.peak == 2


# -- phase 1: FSM gate, loop detection, budget --------------------------------


def test_write_before_any_target_is_fsm_blocked_and_recovers() -> None:
    provider = ScriptedProvider(
        [
            calls_turn(restart("w1")),
            calls_turn(ToolCall("q", PULSE_QUERY, {})),
            calls_turn(restart("w2")),
            calls_turn(read("check")),
        ]
    )
    recorder = Recorder()
    result = run(provider, recorder)
    envelope = decode_error_envelope(tool_messages(result)["w1"]["content"])
    assert envelope is not None and envelope.error == "FSM_BLOCKED"
    assert envelope.details["state"] == "RESOLVING" and envelope.details["tool"] == PULSE_CONTROL
    assert envelope.details["recovery_id"]
    assert recorder.ran == ["q", "w2", "check"]
    # the recovery opened by the block was cleared by w2's success
    assert result.fsm.pending_recoveries == {}
    assert len(provider.seen) == 5 and result.stop_reason == "final"


def test_blocked_write_is_tracked_for_recovery() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(restart("w"))]), recorder)
    pending = list(result.fsm.pending_recoveries.values())
    assert [(p.tool, p.error_code) for p in pending] == [(PULSE_CONTROL, "FSM_BLOCKED")]
    assert recorder.ran == []


def test_write_beside_the_resolve_that_would_target_it_is_blocked() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(ToolCall("q", PULSE_QUERY, {}), restart("w"))]), recorder)
    assert decode_error_envelope(tool_messages(result)["w"]["content"]).error == "FSM_BLOCKED"
    assert recorder.ran == ["q"]


def test_second_write_in_one_turn_is_blocked() -> None:
    provider = ScriptedProvider(
        [calls_turn(read("look")), calls_turn(restart("w1"), restart("w2")), calls_turn(read("v"))]
    )
    recorder = Recorder()
    result = run(provider, recorder)
    envelope = decode_error_envelope(tool_messages(result)["w2"]["content"])
    assert envelope.error == "FSM_BLOCKED" and envelope.details["state"] == "VERIFYING"
    assert recorder.ran == ["look", "w1", "v"]


def test_repeated_identical_call_is_refused_as_a_loop() -> None:
    repeats = MAX_IDENTICAL_CALLS + 2
    provider = ScriptedProvider([calls_turn(read("same")) for _ in range(repeats)])
    recorder = Recorder()
    result = run(provider, recorder)
    answers = [m["content"] for m in result.messages if m["role"] == "tool"]
    assert answers == ["out:same"] * MAX_IDENTICAL_CALLS + [LOOP_DETECTED_TEXT] * 2
    assert len(recorder.ran) == MAX_IDENTICAL_CALLS


def test_tool_call_budget_per_run() -> None:
    recorder = Recorder()
    result = run(ScriptedProvider([calls_turn(read("a"), read("b"), read("c"))]), recorder, max_tool_calls=2)
    assert tool_messages(result)["c"]["content"] == BUDGET_TEXT
    assert recorder.ran == ["a", "b"]


def test_executor_failure_becomes_an_error_result() -> None:
    async def broken(call: ToolCall) -> ToolResult:
        raise OSError("connection reset")

    result = asyncio.run(AgenticLoop(ScriptedProvider([calls_turn(read("a"))]), broken).run("x"))
    assert_paired(result.messages)
    answer = tool_messages(result)["a"]
    assert answer["is_error"] and "connection reset" in answer["content"]
    assert result.fsm.state is SessionState.RESOLVING  # a failed read establishes nothing


# -- final answers and max_turns ----------------------------------------------


def test_final_answer_after_unverified_write_sends_the_model_back() -> None:
    unverified = ProviderTurn(text="restarted")
    script = [calls_turn(read("look")), calls_turn(restart("w")), unverified, calls_turn(read("v"))]
    provider = ScriptedProvider(script)
    result = run(provider, Recorder())
    roles = [m["role"] for m in result.messages]
    refused_at = next(i for i, m in enumerate(result.messages) if m.get("content") == "restarted")
    assert roles[refused_at + 1] == "user" and "verified" in result.messages[refused_at + 1]["content"]
    assert result.stop_reason == "final" and result.turns == 5 and result.final_text == "all done"


def test_read_beside_the_write_does_not_verify_it() -> None:
    provider = ScriptedProvider([calls_turn(read("look")), calls_turn(restart("w"), read("v"))])
    result = run(provider, Recorder(), max_turns=4)
    assert result.fsm.state is SessionState.VERIFYING
    assert result.stop_reason == "max_turns" and result.turns == 4


def test_max_turns_bounds_a_model_that_never_stops_calling_tools() -> None:
    counter = iter(range(1000))

    class Endless(ScriptedProvider):
        async def complete(self, messages: list[dict]) -> ProviderTurn:
            self.seen.append(messages)
            return calls_turn(read(f"r{next(counter)}"))

    provider = Endless([])
    result = run(provider, Recorder(delay=lambda call: 0), max_turns=3)
    assert len(provider.seen) == 3 and result.turns == 3 and result.stop_reason == "max_turns"


def test_max_turns_bounds_evidence_requests() -> None:
    script = [calls_turn(read("look")), calls_turn(restart("w"))]
    provider = ScriptedProvider(script, after=ProviderTurn(text="done"))
    result = run(provider, Recorder(), max_turns=5)
    assert len(provider.seen) == 5 and result.stop_reason == "max_turns"
    assert sum(1 for m in result.messages if m["role"] == "user") == 1 + 3


def test_provider_sees_each_result_before_its_next_turn() -> None:
    provider = ScriptedProvider([calls_turn(read("a"), question("q"))])
    run(provider, Recorder())
    second = provider.seen[1]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second[2:]] == ["a", "q"]


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(ValueError):
        AgenticLoop(ScriptedProvider([]), Recorder(), max_turns=0)
