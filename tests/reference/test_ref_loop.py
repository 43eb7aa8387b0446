"""Contract tests of reference_impl.ai.chat.agentic: concurrency, the run, final answers and the summary call.

The harness (scripted provider, instrumented executor, call builders) lives here and is
shared by the other ``test_ref_loop_*`` modules.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

import reference_impl.ai.chat.agentic as loop_module
from reference_impl.agentcapabilities.tool_names import (
    PATROL_GET_FINDINGS,
    PATROL_REPORT_FINDING,
    PULSE_CONTROL,
    PULSE_METRICS,
    PULSE_QUERY,
    PULSE_QUESTION,
    PULSE_READ,
)
from reference_impl.ai.chat.agentic import MAX_LOOK_GATE_BLOCKS, MAX_PARALLEL_TOOLS, AgenticLoop
from reference_impl.ai.chat.agentic_final import SUMMARY_PROMPT
from reference_impl.ai.chat.fsm import SessionFSM, SessionState, ToolKind
from reference_impl.ai.chat.types import LoopResult, ProviderTurn, ToolCall, ToolResult

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
        self.outputs: dict[str, str] = {}
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
        return ToolResult(call.id, self.outputs.get(call.id, f"out:{call.id}"), is_error=call.id in self.fail)


def calls_turn(*calls: ToolCall, text: str = "") -> ProviderTurn:
    return ProviderTurn(text=text, tool_calls=list(calls))


def read(call_id: str, **args: object) -> ToolCall:
    return ToolCall(call_id, PULSE_READ, {"resource_id": call_id, **args})


def query(call_id: str) -> ToolCall:
    return ToolCall(call_id, PULSE_QUERY, {"action": "search", "query": call_id})


def question(call_id: str) -> ToolCall:
    return ToolCall(call_id, PULSE_QUESTION, {"question": f"which one ({call_id})?"})


def restart(call_id: str) -> ToolCall:
    return ToolCall(call_id, PULSE_CONTROL, {"action": "restart", "target": call_id})


def report(call_id: str) -> ToolCall:
    return ToolCall(call_id, PATROL_REPORT_FINDING, {"resource_id": call_id, "title": "disk full"})


def get_findings(call_id: str) -> ToolCall:
    return ToolCall(call_id, PATROL_GET_FINDINGS, {"marker": call_id})


def run(provider: ScriptedProvider, execute: Recorder, **kwargs: Any) -> LoopResult:
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


def test_executor_failure_becomes_an_error_result() -> None:
    async def broken(call: ToolCall) -> ToolResult:
        raise OSError("connection reset")

    result = asyncio.run(AgenticLoop(ScriptedProvider([calls_turn(read("a"))]), broken).run("x"))
    assert_paired(result.messages)
    answer = tool_messages(result)["a"]
    assert answer["is_error"] and answer["content"] == "Error: connection reset"  # agentic.go: "Error: %v"
    assert result.fsm.state is SessionState.RESOLVING  # a failed read establishes nothing


def test_provider_sees_each_result_before_its_next_turn() -> None:
    provider = ScriptedProvider([calls_turn(read("a"), ToolCall("m", PULSE_METRICS, {}))])
    run(provider, Recorder())
    second = provider.seen[1]
    assert [m["role"] for m in second] == ["user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second[2:]] == ["a", "m"]


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(ValueError):
        AgenticLoop(ScriptedProvider([]), Recorder(), max_turns=0)


# -- final answers, max_turns and the final summary call -----------------------


def test_final_answer_after_unverified_write_sends_the_model_back() -> None:
    unverified = ProviderTurn(text="restarted")
    script = [calls_turn(read("look")), calls_turn(restart("w")), unverified, calls_turn(read("v"))]
    provider = ScriptedProvider(script)
    result = run(provider, Recorder())
    roles = [m["role"] for m in result.messages]
    refused_at = next(i for i, m in enumerate(result.messages) if m.get("content") == "restarted")
    assert roles[refused_at + 1] == "user"
    assert result.messages[refused_at + 1]["content"] == (  # agentic.go's prompt, naming the last write tool
        "Verification evidence is required before responding about the write result for pulse_control. "
        "Decide what available evidence or tool call is appropriate to verify the current state."
    )
    assert result.stop_reason == "final" and result.turns == 5 and result.final_text == "all done"


def test_an_accepted_final_answer_closes_a_verification_a_read_satisfied() -> None:
    # agentic.go completes the verification when the final answer passes CanFinalAnswer
    fsm = SessionFSM()
    for kind, tool in ((ToolKind.RESOLVE, "pulse_query"), (ToolKind.WRITE, "pulse_control"), (ToolKind.READ, "pulse_read")):
        fsm.on_tool_success(kind, tool)
    assert (fsm.state, fsm.read_after_write) == (SessionState.VERIFYING, True)
    result = asyncio.run(AgenticLoop(ScriptedProvider([FINAL]), Recorder(), fsm=fsm).run("x"))
    assert result.fsm.state is SessionState.READING and not result.fsm.read_after_write


def test_the_summary_request_is_upstreams() -> None:
    # agentic_final.go appends this user message to the summary call's transcript
    assert SUMMARY_PROMPT == (
        "Based on what you've investigated above, provide a complete response to the user. Explain what you "
        "found or did, mention any issues or caveats they should know about, and suggest next steps if relevant."
    )


def test_max_turns_ends_with_one_summary_call_without_tools() -> None:
    counter = iter(range(1000))

    class Endless(ScriptedProvider):
        async def complete(self, messages: list[dict]) -> ProviderTurn:
            self.seen.append(messages)
            if messages[-1]["content"] == SUMMARY_PROMPT:
                return calls_turn(read("ignored"), text="three reads, all healthy")
            return calls_turn(read(f"r{next(counter)}"))

    provider = Endless([])
    recorder = Recorder(delay=lambda call: 0)
    result = run(provider, recorder, max_turns=3)
    assert result.turns == 3 and result.stop_reason == "max_turns"
    assert len(provider.seen) == 4  # three loop turns, then the summary
    summary_request = provider.seen[3]
    assert summary_request[-1] == {"role": "user", "content": SUMMARY_PROMPT}
    assert summary_request[:-1] == result.messages[:-1]  # the prompt is not kept in the transcript
    assert recorder.ran == ["r0", "r1", "r2"]  # the summary's tool call never runs
    assert result.messages[-1] == {"role": "assistant", "content": "three reads, all healthy"}
    assert result.final_text == "three reads, all healthy"


def test_max_turns_bounds_evidence_requests_then_asks_for_a_summary() -> None:
    script = [calls_turn(read("look")), calls_turn(restart("w"))]
    provider = ScriptedProvider(script, after=ProviderTurn(text="done"))
    result = run(provider, Recorder(), max_turns=5)
    assert result.stop_reason == "max_turns" and result.turns == 5
    # 1 prompt + 3 refused answers, each followed by an evidence request; the summary is asked last
    assert sum(1 for m in result.messages if m["role"] == "user") == 1 + 3
    assert len(provider.seen) == 6 and provider.seen[5][-1]["content"] == SUMMARY_PROMPT
    assert result.final_text == "done"


def test_final_turn_without_text_after_tools_gets_a_summary() -> None:
    provider = ScriptedProvider([calls_turn(read("a")), ProviderTurn(text="   ")], after=ProviderTurn(text="a is fine"))
    result = run(provider, Recorder())
    assert result.stop_reason == "final" and result.turns == 2
    assert len(provider.seen) == 3
    # the empty answer is dropped from the summary request, which ends with the prompt
    assert [m["role"] for m in provider.seen[2]] == ["user", "assistant", "tool", "user"]
    assert result.final_text == "a is fine"


def test_text_written_before_the_tool_results_is_not_a_final_answer() -> None:
    provider = ScriptedProvider([calls_turn(read("a"), text="checking a"), ProviderTurn()], after=ProviderTurn(text="ok"))
    result = run(provider, Recorder())
    assert len(provider.seen) == 3 and result.final_text == "ok"


def test_a_final_answer_with_text_makes_no_summary_call() -> None:
    provider = ScriptedProvider([calls_turn(read("a"))], after=ProviderTurn(text="a is fine"))
    result = run(provider, Recorder())
    assert len(provider.seen) == 2 and result.final_text == "a is fine"


def test_failed_summary_call_falls_back_without_quoting_tool_output() -> None:
    class Failing(ScriptedProvider):
        async def complete(self, messages: list[dict]) -> ProviderTurn:
            if messages[-1]["content"] == SUMMARY_PROMPT:
                raise TimeoutError("provider stalled")
            return await super().complete(messages)

    provider = Failing([calls_turn(read("a"), read("b")), ProviderTurn()])
    result = run(provider, Recorder(fail=["b"]))
    fallback = result.final_text
    assert result.messages[-1] == {"role": "assistant", "content": fallback}
    assert "1 tool call(s) succeeded (pulse_read)" in fallback and "1 tool call(s) failed" in fallback
    assert "out:a" not in fallback and "out:b" not in fallback


def test_empty_summary_falls_back_even_when_no_tool_ran() -> None:
    provider = ScriptedProvider([], after=ProviderTurn())
    result = run(provider, Recorder())
    assert len(provider.seen) == 2 and result.stop_reason == "final"
    assert "no tool ran" in result.final_text
