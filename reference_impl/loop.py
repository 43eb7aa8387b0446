"""The Assistant's agentic loop: provider turns, tool calls, the FSM gate.

``AgenticLoop.run`` sends the transcript to the provider until it answers
without tool calls. Every turn that carries tool calls goes through three
phases:

1. pre-check, sequential in the provider's order: the FSM gate
   (``SessionFSM.check_tool`` on the live state machine, which no call of
   the turn has moved yet), loop detection (the same tool with the same
   arguments at most ``MAX_IDENTICAL_CALLS`` times per run) and the run's
   tool-call budget (an addition of this reference). A call the FSM blocks
   gets the block's plain text and a pending recovery.
2. execute: the admitted calls run concurrently under
   ``asyncio.Semaphore(MAX_PARALLEL_TOOLS)``, never more than four at once,
   or one at a time in the provider's order when ``needs_serial`` says so.
3. post-process, sequential in the provider's order: FSM transitions for
   successful calls (a read after a write completes the verification at
   once; writes of Patrol's own state, such as the finding lifecycle writes,
   leave the state machine alone), recovery bookkeeping, then the transcript.

A turn holding ``pulse_question`` is different. If no call has been admitted
in the run yet, the look-before-asking gate refuses every question of the
turn (one block per provider turn, at most ``MAX_LOOK_GATE_BLOCKS`` per run)
and the other calls go through the three phases. Otherwise every call of the
turn is still gated and loop-checked in order, every question is asked in
turn, and every other call is answered with ``SKIPPED_TEXT``. The executor
stands for the interface that shows a question and returns the reply; in a
non-interactive run each question is refused instead.

When the run ends without assistant text after the latest tool result, one
more provider call asks for a summary, and a deterministic fallback answers
if that call fails or returns nothing.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from reference_impl.fsm import FSMBlockedError, SessionFSM, ToolKind
from reference_impl.loop_phases import (
    BUDGET_TEXT,
    EVIDENCE_TEXT,
    LOOK_FIRST_TEXT,
    LOOP_DETECTED_TEXT,
    MAX_IDENTICAL_CALLS,
    NON_INTERACTIVE_TEXT,
    REPORT_BUDGET_TEXT,
    SKIPPED_TEXT,
    STRICT_RESOLUTION_CODE,
    assistant_message,
    call_signature,
    fallback_summary,
    final_text,
    has_final_text,
    is_finding_report,
    is_question,
    needs_serial,
    summary_request,
    tool_message,
    user_message,
)
from reference_impl.tools import classify_tool_call, is_state_only_write

__all__ = [
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_MAX_TURNS",
    "MAX_LOOK_GATE_BLOCKS",
    "MAX_PARALLEL_TOOLS",
    "AgenticLoop",
    "LoopResult",
    "Provider",
    "ProviderTurn",
    "ToolCall",
    "ToolResult",
]

MAX_PARALLEL_TOOLS = 4
MAX_LOOK_GATE_BLOCKS = 2
DEFAULT_MAX_TURNS = 20
DEFAULT_MAX_TOOL_CALLS = 64

STOP_FINAL = "final"
STOP_MAX_TURNS = "max_turns"


@dataclass(frozen=True)
class ToolCall:
    """One tool call the provider asked for."""

    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """The answer to the call with id ``call_id``."""

    call_id: str
    output: str
    is_error: bool = False


@dataclass(frozen=True)
class ProviderTurn:
    """What the provider said in one turn: text and the tool calls it wants."""

    text: str = ""
    tool_calls: Sequence[ToolCall] = field(default_factory=list)


@dataclass
class LoopResult:
    """The outcome of a run; ``stop_reason`` is ``"final"`` or ``"max_turns"``.

    ``turns`` counts the loop's provider turns; a final summary call is not
    one of them.
    """

    final_text: str
    messages: list[dict[str, Any]]
    fsm: SessionFSM
    turns: int = 0
    stop_reason: str = STOP_FINAL


class Provider(Protocol):
    async def complete(self, messages: list[dict[str, Any]]) -> ProviderTurn: ...


Executor = Callable[[ToolCall], Awaitable[ToolResult]]
Slots = list[ToolResult | None]


class AgenticLoop:
    """Drives a provider and an executor under the session FSM.

    ``max_finding_reports`` bounds the finding reports a run accepts (0, the
    default, sets no bound).
    """

    def __init__(
        self,
        provider: Provider,
        execute: Executor,
        *,
        interactive: bool = True,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        max_finding_reports: int = 0,
        fsm: SessionFSM | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.provider = provider
        self.execute = execute
        self.interactive = interactive
        self.max_turns = max_turns
        self.max_tool_calls = max_tool_calls
        self.max_finding_reports = max_finding_reports
        self.fsm = fsm if fsm is not None else SessionFSM()
        self._reset_run()

    def _reset_run(self) -> None:
        self._looked = False  # a call other than pulse_question has been admitted in this run
        self._look_blocks = 0
        self._tool_calls = 0
        self._reports_accepted = 0
        self._seen: Counter[str] = Counter()

    async def run(self, prompt: str) -> LoopResult:
        """Run until a final answer the FSM accepts, or ``max_turns`` turns."""
        self._reset_run()
        messages = [user_message(prompt)]
        for turn_no in range(1, self.max_turns + 1):
            turn = await self.provider.complete(list(messages))
            messages.append(assistant_message(turn))
            calls = list(turn.tool_calls)
            if calls:
                results = await self._tool_turn(calls)
                messages.extend(tool_message(call, result) for call, result in zip(calls, results, strict=True))
                continue
            try:
                self.fsm.check_final_answer()
            except FSMBlockedError as exc:
                messages.append(user_message(EVIDENCE_TEXT.format(reason=exc.reason)))
                continue
            return await self._finish(messages, turn_no, STOP_FINAL)
        return await self._finish(messages, self.max_turns, STOP_MAX_TURNS)

    async def _finish(self, messages: list[dict[str, Any]], turns: int, stop_reason: str) -> LoopResult:
        """End the run, asking for a summary first if no assistant text closes it."""
        if not has_final_text(messages):
            messages.append(assistant_message(ProviderTurn(text=await self._summarise(messages))))
        return LoopResult(final_text(messages), messages, self.fsm, turns, stop_reason)

    async def _summarise(self, messages: list[dict[str, Any]]) -> str:
        """One provider call for a closing answer; its tool calls are ignored."""
        try:
            turn = await self.provider.complete(summary_request(messages))
        except Exception:  # a failed summary falls back, it never fails the run
            return fallback_summary(messages)
        return turn.text if turn.text.strip() else fallback_summary(messages)

    async def _tool_turn(self, calls: list[ToolCall]) -> list[ToolResult]:
        """Answer every call of one turn; results come back in the provider's order."""
        results: Slots = [None] * len(calls)
        questions = [i for i, call in enumerate(calls) if is_question(call)]
        if questions and self.interactive and self._look_gate_closed():
            self._look_blocks += 1
            for i in questions:
                results[i] = ToolResult(calls[i].id, LOOK_FIRST_TEXT, is_error=True)
            questions = []
        if questions:
            await self._question_turn(calls, results)
        else:
            await self._work_turn(calls, results)
        done = [r for r in results if r is not None]
        if len(done) != len(calls):  # pragma: no cover - every path above answers every call
            raise RuntimeError("a tool call was left without a result")
        return done

    def _look_gate_closed(self) -> bool:
        """Whether the gate refuses this turn's questions (judged before any call of it runs)."""
        return not self._looked and self._look_blocks < MAX_LOOK_GATE_BLOCKS

    async def _question_turn(self, calls: list[ToolCall], results: Slots) -> None:
        """A turn that asks: gate and loop-check every call, ask each question, skip the rest."""
        for i, call in enumerate(calls):
            kind = classify_tool_call(call.name, call.args)
            refused = self._gate(call, kind) or self._repeated(call)
            if refused is None and not is_question(call):
                refused = ToolResult(call.id, SKIPPED_TEXT, is_error=True)
            if refused is None and not self.interactive:
                refused = ToolResult(call.id, NON_INTERACTIVE_TEXT, is_error=True)
            if refused is not None:
                results[i] = refused
                continue
            result = await self._invoke(call)
            results[i] = result
            if not result.is_error:
                self.fsm.on_tool_success(kind, call.name)

    async def _work_turn(self, calls: list[ToolCall], results: Slots) -> None:
        """The three phases for a turn without a question to ask."""
        admitted = self._precheck(calls, results)
        batch = [calls[i] for i in admitted]
        if needs_serial(calls, report_budget=self.max_finding_reports):
            outcomes = [await self._invoke_in_order(call) for call in batch]
        else:
            outcomes = await self._invoke_concurrently(batch)
        for i, result in zip(admitted, outcomes, strict=True):
            results[i] = result
        self._postprocess([(calls[i], outcomes[n]) for n, i in enumerate(admitted)])

    def _precheck(self, calls: list[ToolCall], results: Slots) -> list[int]:
        """Phase 1: gate, loop detection and budget; returns the admitted indices."""
        admitted: list[int] = []
        for i, call in enumerate(calls):
            if results[i] is not None:
                continue
            refused = self._gate(call, classify_tool_call(call.name, call.args)) or self._repeated(call)
            if refused is None and self._tool_calls >= self.max_tool_calls:
                refused = ToolResult(call.id, BUDGET_TEXT, is_error=True)
            if refused is not None:
                results[i] = refused
                continue
            self._tool_calls += 1
            self._looked = True
            admitted.append(i)
        return admitted

    def _gate(self, call: ToolCall, kind: ToolKind) -> ToolResult | None:
        """The FSM check of one call: ``None`` if it may run, else the block as a result."""
        try:
            self.fsm.check_tool(kind, call.name)
        except FSMBlockedError as exc:
            self.fsm.track_pending_recovery(exc.code, call.name)
            return ToolResult(call.id, str(exc), is_error=True)
        return None

    def _repeated(self, call: ToolCall) -> ToolResult | None:
        """Loop detection: count the call, refuse it past ``MAX_IDENTICAL_CALLS``."""
        signature = call_signature(call)
        self._seen[signature] += 1
        if self._seen[signature] > MAX_IDENTICAL_CALLS:
            return ToolResult(call.id, LOOP_DETECTED_TEXT, is_error=True)
        return None

    async def _invoke_concurrently(self, calls: list[ToolCall]) -> list[ToolResult]:
        """Phase 2: run ``calls`` at most MAX_PARALLEL_TOOLS at once."""
        sem = asyncio.Semaphore(MAX_PARALLEL_TOOLS)

        async def bounded(call: ToolCall) -> ToolResult:
            async with sem:
                return await self._invoke(call)

        return list(await asyncio.gather(*(bounded(call) for call in calls)))

    async def _invoke_in_order(self, call: ToolCall) -> ToolResult:
        """Phase 2 for a serial turn: one call, after the report budget is checked."""
        reports_bounded = self.max_finding_reports > 0 and is_finding_report(call)
        if reports_bounded and self._reports_accepted >= self.max_finding_reports:
            return ToolResult(call.id, REPORT_BUDGET_TEXT, is_error=True)
        result = await self._invoke(call)
        if reports_bounded and not result.is_error:
            self._reports_accepted += 1
        return result

    async def _invoke(self, call: ToolCall) -> ToolResult:
        """Run one call; an executor failure becomes an error result, never an exception."""
        try:
            result = await self.execute(call)
        except Exception as exc:  # the loop must answer every call
            return ToolResult(call.id, f"tool {call.name} failed: {exc}", is_error=True)
        if not isinstance(result, ToolResult):
            return ToolResult(call.id, f"tool {call.name} returned {type(result).__name__}", is_error=True)
        if result.call_id != call.id:
            result = ToolResult(call.id, result.output, result.is_error)
        return result

    def _postprocess(self, ran: list[tuple[ToolCall, ToolResult]]) -> None:
        """Phase 3: FSM transitions and recovery bookkeeping in the provider's order."""
        for call, result in ran:
            if result.is_error:
                if STRICT_RESOLUTION_CODE in result.output:
                    self.fsm.track_pending_recovery(STRICT_RESOLUTION_CODE, call.name)
                continue
            if not is_state_only_write(call.name):
                self.fsm.on_tool_success(classify_tool_call(call.name, call.args), call.name)
                self.fsm.complete_verification()
            self.fsm.check_recovery_success(call.name)
