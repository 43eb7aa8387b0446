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

``pulse_question`` is sorted out before the phases. In a non-interactive run
each question is answered with ``NON_INTERACTIVE_TEXT`` and the rest of the
turn goes through the three phases; a turn that held only questions ends
there. In an interactive run, if no call has been admitted in the run yet,
the look-before-asking gate refuses every question of the turn (one block
per provider turn, at most ``MAX_LOOK_GATE_BLOCKS`` per run) and the other
calls go through the three phases. Otherwise every call of the turn is still
gated and loop-checked in order, every question is asked in turn, and every
other call is answered with ``SKIPPED_TEXT``; the executor stands for the
interface that shows a question and returns the reply.

When the run ends without assistant text after the latest tool result, one
more provider call asks for a summary, and a deterministic fallback answers
if that call fails or returns nothing.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from reference_impl.agentcapabilities.invocation import classify_tool_call
from reference_impl.agentcapabilities.tool_response import tool_result_has_error_code
from reference_impl.ai.chat.agentic_final import fallback_summary, final_text, has_final_text, summary_request
from reference_impl.ai.chat.fsm import FSMBlockedError, SessionFSM, ToolKind
from reference_impl.ai.chat.phases import (
    BUDGET_TEXT,
    LOOK_FIRST_TEXT,
    MAX_IDENTICAL_CALLS,
    NON_INTERACTIVE_TEXT,
    SKIPPED_TEXT,
    STRICT_RESOLUTION_CODE,
    call_signature,
    is_finding_report,
    is_question,
    is_state_only_write,
    loop_detected_text,
    needs_serial,
    report_budget_text,
    verification_prompt,
)
from reference_impl.ai.chat.types import (
    STOP_FINAL,
    STOP_MAX_TURNS,
    Executor,
    LoopResult,
    Provider,
    ProviderTurn,
    ToolCall,
    ToolResult,
    assistant_message,
    tool_message,
    user_message,
)

__all__ = ["DEFAULT_MAX_TOOL_CALLS", "DEFAULT_MAX_TURNS", "MAX_LOOK_GATE_BLOCKS", "MAX_PARALLEL_TOOLS", "AgenticLoop"]

MAX_PARALLEL_TOOLS = 4
MAX_LOOK_GATE_BLOCKS = 2
DEFAULT_MAX_TURNS = 20
DEFAULT_MAX_TOOL_CALLS = 64

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
            except FSMBlockedError:
                messages.append(user_message(verification_prompt(self.fsm.last_write_tool)))
                continue
            self.fsm.complete_verification()
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
        if questions and not self.interactive:
            self._refuse(calls, questions, results, NON_INTERACTIVE_TEXT)
        elif questions and self._look_gate_closed():
            self._look_blocks += 1
            self._refuse(calls, questions, results, LOOK_FIRST_TEXT)
        elif questions:
            await self._question_turn(calls, results)
        if any(result is None for result in results):
            await self._work_turn(calls, results)
        done = [r for r in results if r is not None]
        if len(done) != len(calls):  # pragma: no cover - every path above answers every call
            raise RuntimeError("a tool call was left without a result")
        return done

    @staticmethod
    def _refuse(calls: list[ToolCall], indices: list[int], results: Slots, text: str) -> None:
        """Answer the calls at ``indices`` with ``text`` as an error, before any phase sees them."""
        for i in indices:
            results[i] = ToolResult(calls[i].id, text, is_error=True)

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
            if refused is not None:
                results[i] = refused
                continue
            result = await self._invoke(call)
            results[i] = result
            if not result.is_error:
                self.fsm.on_tool_success(kind, call.name)

    async def _work_turn(self, calls: list[ToolCall], results: Slots) -> None:
        """The three phases for the calls of a turn that nothing has answered yet."""
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
        count = self._seen[signature]
        if count > MAX_IDENTICAL_CALLS:
            return ToolResult(call.id, loop_detected_text(call.name, count), is_error=True)
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
            return ToolResult(call.id, report_budget_text(self.max_finding_reports), is_error=True)
        result = await self._invoke(call)
        if reports_bounded and not result.is_error:
            self._reports_accepted += 1
        return result

    async def _invoke(self, call: ToolCall) -> ToolResult:
        """Run one call; an executor failure becomes an error result, never an exception."""
        try:
            result = await self.execute(call)
        except Exception as exc:  # the loop must answer every call
            return ToolResult(call.id, f"Error: {exc}", is_error=True)
        if not isinstance(result, ToolResult):
            return ToolResult(call.id, f"tool {call.name} returned {type(result).__name__}", is_error=True)
        if result.call_id != call.id:
            result = ToolResult(call.id, result.output, result.is_error)
        return result

    def _postprocess(self, ran: list[tuple[ToolCall, ToolResult]]) -> None:
        """Phase 3: FSM transitions and recovery bookkeeping in the provider's order."""
        for call, result in ran:
            if result.is_error:
                if tool_result_has_error_code(result.output, STRICT_RESOLUTION_CODE):
                    self.fsm.track_pending_recovery(STRICT_RESOLUTION_CODE, call.name)
                continue
            if not is_state_only_write(call.name):
                self.fsm.on_tool_success(classify_tool_call(call.name, call.args), call.name)
                self.fsm.complete_verification()
            self.fsm.check_recovery_success(call.name)
