"""The Assistant's agentic loop: provider turns, tool calls, the FSM gate.

``AgenticLoop.run`` sends the transcript to the provider until it answers
without tool calls. Every turn that carries tool calls goes through three
phases:

1. pre-check, sequential in the provider's order: the FSM gate
   (``SessionFSM.check_tool``), loop detection (the same tool with the same
   arguments at most ``MAX_IDENTICAL_CALLS`` times per run) and the run's
   tool-call budget. A refused call gets an error result; a call the FSM
   blocks gets an ``FSM_BLOCKED`` envelope and a pending recovery.
2. execute: the admitted calls run concurrently under
   ``asyncio.Semaphore(MAX_PARALLEL_TOOLS)``, never more than four at once.
   A batch holding ``patrol_get_findings`` and a finding lifecycle write
   runs one call at a time in the provider's order.
3. post-process, sequential in the provider's order: FSM transitions for
   successful calls, recovery bookkeeping, then the transcript.

Questions to the user (``pulse_question``) are answered by the executor too:
it stands for the interface that shows the question and returns the reply.
A question never runs beside other tools. When one is asked, the other
calls of its turn are answered with ``SKIPPED_TEXT`` and do not run. In a
non-interactive run every question is refused and the rest of the turn
proceeds. The look-before-asking gate refuses a question while no real tool
has been attempted in the run (judged at the start of the turn), at most
``MAX_LOOK_GATE_BLOCKS`` times per run; a refused question is not asked, so
the other calls of its turn run normally.

Within one turn the gate also accounts for writes it has already admitted:
a second write is blocked as if the first had run, and a read that ran
concurrently with a write does not count as verifying it.
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
    SKIPPED_TEXT,
    assistant_message,
    blocked_output,
    call_signature,
    is_question,
    needs_serial,
    tool_message,
    user_message,
)
from reference_impl.tools import classify_tool_call

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

_LOOKS = (ToolKind.READ, ToolKind.RESOLVE)


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
    """The outcome of a run; ``stop_reason`` is ``"final"`` or ``"max_turns"``."""

    final_text: str
    messages: list[dict[str, Any]]
    fsm: SessionFSM
    turns: int = 0
    stop_reason: str = STOP_FINAL


class Provider(Protocol):
    async def complete(self, messages: list[dict[str, Any]]) -> ProviderTurn: ...


Executor = Callable[[ToolCall], Awaitable[ToolResult]]


class AgenticLoop:
    """Drives a provider and an executor under the session FSM."""

    def __init__(
        self,
        provider: Provider,
        execute: Executor,
        *,
        interactive: bool = True,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        fsm: SessionFSM | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.provider = provider
        self.execute = execute
        self.interactive = interactive
        self.max_turns = max_turns
        self.max_tool_calls = max_tool_calls
        self.fsm = fsm if fsm is not None else SessionFSM()
        self._reset_run()

    def _reset_run(self) -> None:
        self._looked = False  # a real tool has been attempted in this run
        self._look_blocks = 0
        self._tool_calls = 0
        self._seen: Counter[str] = Counter()

    async def run(self, prompt: str) -> LoopResult:
        """Run until a final answer the FSM accepts, or ``max_turns`` turns."""
        self._reset_run()
        messages = [user_message(prompt)]
        final_text = ""
        for turn_no in range(1, self.max_turns + 1):
            turn = await self.provider.complete(list(messages))
            messages.append(assistant_message(turn))
            final_text = turn.text
            calls = list(turn.tool_calls)
            if not calls:
                try:
                    self.fsm.check_final_answer()
                except FSMBlockedError as exc:
                    messages.append(user_message(EVIDENCE_TEXT.format(reason=exc.reason)))
                    continue
                return LoopResult(final_text, messages, self.fsm, turn_no, STOP_FINAL)
            results = await self._tool_turn(calls)
            messages.extend(tool_message(call, result) for call, result in zip(calls, results, strict=False))
        return LoopResult(final_text, messages, self.fsm, self.max_turns, STOP_MAX_TURNS)

    async def _tool_turn(self, calls: list[ToolCall]) -> list[ToolResult]:
        """The three phases for one turn; results come back in the provider's order."""
        results: list[ToolResult | None] = [None] * len(calls)
        asking = self._route_questions(calls, results)
        if asking is not None:
            for i, call in enumerate(calls):
                if results[i] is None and i != asking:
                    results[i] = ToolResult(call.id, SKIPPED_TEXT, is_error=True)
            admitted = [asking]
        else:
            admitted = self._precheck(calls, results)
        batch = [calls[i] for i in admitted]
        serial = needs_serial(batch)
        for i, result in zip(admitted, await self._execute_batch(batch, serial), strict=False):
            results[i] = result
        done = [r for r in results if r is not None]
        if len(done) != len(calls):  # pragma: no cover - every path above answers every call
            raise RuntimeError("a tool call was left without a result")
        self._postprocess(calls, done, set(admitted), serial)
        return done

    def _route_questions(self, calls: list[ToolCall], results: list[ToolResult | None]) -> int | None:
        """Answer refused questions; return the index of the question to ask alone."""
        looked = self._looked  # judged at the start of the turn
        asking: int | None = None
        for i, call in enumerate(calls):
            if not is_question(call):
                continue
            if not self.interactive:
                results[i] = ToolResult(call.id, NON_INTERACTIVE_TEXT, is_error=True)
            elif asking is not None:
                continue  # skipped with the other siblings
            elif not looked and self._look_blocks < MAX_LOOK_GATE_BLOCKS:
                self._look_blocks += 1
                results[i] = ToolResult(call.id, LOOK_FIRST_TEXT, is_error=True)
            else:
                asking = i
        return asking

    def _precheck(self, calls: list[ToolCall], results: list[ToolResult | None]) -> list[int]:
        """Phase 1: gate, loop detection and budget; returns the admitted indices."""
        admitted: list[int] = []
        gate = self.fsm
        for i, call in enumerate(calls):
            if results[i] is not None:
                continue
            self._looked = True
            kind = classify_tool_call(call.name, call.args)
            try:
                gate.check_tool(kind, call.name)
            except FSMBlockedError as exc:
                recovery_id = self.fsm.track_pending_recovery(exc.code, call.name)
                results[i] = ToolResult(call.id, blocked_output(exc, recovery_id), is_error=True)
                continue
            signature = call_signature(call)
            self._seen[signature] += 1
            if self._seen[signature] > MAX_IDENTICAL_CALLS:
                results[i] = ToolResult(call.id, LOOP_DETECTED_TEXT, is_error=True)
                continue
            if self._tool_calls >= self.max_tool_calls:
                results[i] = ToolResult(call.id, BUDGET_TEXT, is_error=True)
                continue
            self._tool_calls += 1
            admitted.append(i)
            if kind is ToolKind.WRITE:
                gate = _after_write(call.name)
        return admitted

    async def _execute_batch(self, calls: list[ToolCall], serial: bool) -> list[ToolResult]:
        """Phase 2: run ``calls``, at most MAX_PARALLEL_TOOLS at once, or one by one."""
        if serial:
            return [await self._invoke(call) for call in calls]
        sem = asyncio.Semaphore(MAX_PARALLEL_TOOLS)

        async def bounded(call: ToolCall) -> ToolResult:
            async with sem:
                return await self._invoke(call)

        return list(await asyncio.gather(*(bounded(call) for call in calls)))

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

    def _postprocess(
        self, calls: list[ToolCall], results: list[ToolResult], executed: set[int], serial: bool
    ) -> None:
        """Phase 3: FSM transitions in the provider's order."""
        wrote = False
        for i, (call, result) in enumerate(zip(calls, results, strict=False)):
            if i not in executed or result.is_error:
                continue
            kind = classify_tool_call(call.name, call.args)
            if not (kind in _LOOKS and wrote and not serial):
                self.fsm.on_tool_success(kind, call.name)
            wrote = wrote or kind is ToolKind.WRITE
            self.fsm.check_recovery_success(call.name)
        self.fsm.complete_verification()


def _after_write(tool_name: str) -> SessionFSM:
    """A gate standing for the state once the admitted write has run."""
    projected = SessionFSM()
    projected.on_tool_success(ToolKind.WRITE, tool_name)
    return projected
