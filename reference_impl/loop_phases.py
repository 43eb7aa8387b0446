"""Pieces of the agentic loop that need no loop state.

The texts the loop answers refused calls with, the rule that decides when a
turn must run one call at a time, the loop-detection signature, and the
shapes of transcript messages. ``reference_impl.loop`` puts them together.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from reference_impl.errors import ErrorEnvelope
from reference_impl.fsm import FSMBlockedError
from reference_impl.tools import FINDING_LIFECYCLE_TOOLS, PATROL_GET_FINDINGS, PULSE_QUESTION

if TYPE_CHECKING:
    from reference_impl.loop import ProviderTurn, ToolCall, ToolResult

__all__ = [
    "BUDGET_TEXT",
    "EVIDENCE_TEXT",
    "LOOK_FIRST_TEXT",
    "LOOP_DETECTED_TEXT",
    "MAX_IDENTICAL_CALLS",
    "NON_INTERACTIVE_TEXT",
    "SKIPPED_TEXT",
    "assistant_message",
    "blocked_output",
    "call_signature",
    "is_question",
    "needs_serial",
    "tool_message",
    "user_message",
]

# The same tool with the same arguments is run at most this often per run;
# later repeats are answered with LOOP_DETECTED_TEXT instead.
MAX_IDENTICAL_CALLS = 3

SKIPPED_TEXT = (
    "skipped: a pulse_question in this turn is asked on its own, so this call did not run; "
    "issue it again after the user has answered"
)
LOOK_FIRST_TEXT = (
    "refused: look before asking; no tool has been tried in this run yet, so call a query or "
    "read tool to gather what you can, then ask only what the tools cannot tell you"
)
NON_INTERACTIVE_TEXT = (
    "refused: this run is not interactive and no user can answer pulse_question; "
    "decide from the tool results you have"
)
LOOP_DETECTED_TEXT = (
    "refused: loop detected; this exact call (same tool, same arguments) has already run "
    f"{MAX_IDENTICAL_CALLS} times in this run; use the results you have or change the arguments"
)
BUDGET_TEXT = "refused: the tool-call budget of this run is spent; answer with what you have"
EVIDENCE_TEXT = (
    "Your last change has not been verified. Read back the affected resource with a query or "
    "read tool before giving a final answer. ({reason})"
)


def is_question(call: ToolCall) -> bool:
    """Whether ``call`` asks the user (``pulse_question``)."""
    return call.name.strip() == PULSE_QUESTION


def call_signature(call: ToolCall) -> str:
    """A key equal for two calls of the same tool with equal arguments."""
    args = json.dumps(call.args, sort_keys=True, default=repr, separators=(",", ":"))
    return f"{call.name.strip()}:{args}"


def needs_serial(calls: Iterable[ToolCall]) -> bool:
    """True when patrol_get_findings meets a finding lifecycle write in one batch.

    Such a batch runs one call at a time in the provider's order, so the
    write sees the findings the read returned and never races it.
    """
    names = {call.name.strip() for call in calls}
    return PATROL_GET_FINDINGS in names and not names.isdisjoint(FINDING_LIFECYCLE_TOOLS)


def blocked_output(exc: FSMBlockedError, recovery_id: str) -> str:
    """The error envelope (JSON) a call refused by the state machine gets."""
    details = {
        "state": exc.state.value,
        "tool": exc.tool_name,
        "kind": str(exc.tool_kind),
        "recoverable": "true" if exc.recoverable else "false",
        "recovery_id": recovery_id,
    }
    return ErrorEnvelope(exc.code, exc.reason, details).to_json()


def user_message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant_message(turn: ProviderTurn) -> dict[str, Any]:
    """The transcript entry of one provider turn, its tool calls included."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "name": call.name, "args": dict(_mapping(call.args))} for call in turn.tool_calls
        ]
    return message


def tool_message(call: ToolCall, result: ToolResult) -> dict[str, Any]:
    """The transcript entry answering ``call``."""
    return {
        "role": "tool",
        "tool_call_id": call.id,
        "name": call.name,
        "content": result.output,
        "is_error": result.is_error,
    }


def _mapping(args: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return args if args is not None else {}
