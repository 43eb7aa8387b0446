"""Pieces of the agentic loop that need no loop state.

The texts the loop answers refused calls with, the rule that decides when a
turn must run one call at a time, the loop-detection signature, the shapes of
transcript messages, and the final-summary helpers. ``reference_impl.loop``
puts them together.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from reference_impl.tools import (
    PATROL_GET_FINDINGS,
    PATROL_REPORT_FINDING,
    PULSE_QUESTION,
    is_finding_lifecycle_write,
)

if TYPE_CHECKING:
    from reference_impl.loop import ProviderTurn, ToolCall, ToolResult

__all__ = [
    "BUDGET_TEXT",
    "EVIDENCE_TEXT",
    "LOOK_FIRST_TEXT",
    "LOOP_DETECTED_TEXT",
    "MAX_IDENTICAL_CALLS",
    "NON_INTERACTIVE_TEXT",
    "REPORT_BUDGET_TEXT",
    "SKIPPED_TEXT",
    "STRICT_RESOLUTION_CODE",
    "SUMMARY_PROMPT",
    "assistant_message",
    "call_signature",
    "fallback_summary",
    "final_text",
    "has_final_text",
    "is_finding_report",
    "is_question",
    "needs_serial",
    "summary_request",
    "tool_message",
    "user_message",
]

# The same tool with the same arguments is run at most this often per run;
# later repeats are answered with LOOP_DETECTED_TEXT instead.
MAX_IDENTICAL_CALLS = 3

# A failed call whose output carries this code opens a pending recovery, as an
# FSM block does; upstream's executor reports strict-resolution refusals so.
STRICT_RESOLUTION_CODE = "STRICT_RESOLUTION"

SKIPPED_TEXT = (
    "SKIPPED: a pulse_question in this turn is asked first, so this call did not run; "
    "issue it again after the user has answered"
)
LOOK_FIRST_TEXT = (
    "BLOCKED: look before asking. No tool has run in this run yet, so gather what you can with "
    "a read-only tool (pulse_query, pulse_read, pulse_summarize) and ask only what the tools "
    "cannot tell you"
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
REPORT_BUDGET_TEXT = (
    "PATROL_FINDING_REPORT_BUDGET_EXHAUSTED: this run may accept no more finding reports; "
    "summarise the findings already recorded"
)
EVIDENCE_TEXT = (
    "Your last change has not been verified. Read back the affected resource with a query or "
    "read tool before giving a final answer. ({reason})"
)
SUMMARY_PROMPT = (
    "Using only what the tool results above established, answer the user now: say what you "
    "found or changed, any caveats, and the next steps if there are any."
)


def is_question(call: ToolCall) -> bool:
    """Whether ``call`` asks the user (``pulse_question``)."""
    return call.name.strip() == PULSE_QUESTION


def is_finding_report(call: ToolCall) -> bool:
    """Whether ``call`` reports a Patrol finding (the calls ``max_finding_reports`` counts)."""
    return call.name.strip() == PATROL_REPORT_FINDING


def call_signature(call: ToolCall) -> str:
    """A key equal for two calls of the same tool with equal arguments."""
    args = json.dumps(call.args, sort_keys=True, default=repr, separators=(",", ":"))
    return f"{call.name.strip()}:{args}"


def needs_serial(calls: Iterable[ToolCall], *, report_budget: int = 0) -> bool:
    """True when a turn must run its admitted calls one at a time, in the provider's order.

    That is when the turn (every call the provider sent, admitted or not)
    holds ``patrol_get_findings`` together with a finding lifecycle write, in
    either order, so the write sees what the read returned; or when a
    finding-report budget is set and the turn holds a report, so the budget
    is judged on reports already accepted, in order.
    """
    calls = list(calls)
    reads_findings = any(call.name.strip() == PATROL_GET_FINDINGS for call in calls)
    if reads_findings and any(is_finding_lifecycle_write(call.name) for call in calls):
        return True
    return report_budget > 0 and any(is_finding_report(call) for call in calls)


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


def has_final_text(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether assistant text follows the latest tool result and the latest user message."""
    for message in reversed(messages):
        if message["role"] != "assistant":
            return False
        if str(message.get("content") or "").strip():
            return True
    return False


def final_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the latest assistant message that has any, or ``""``."""
    for message in reversed(messages):
        content = str(message.get("content") or "")
        if message["role"] == "assistant" and content.strip():
            return content
    return ""


def summary_request(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The transcript for the final summary call.

    Trailing assistant messages without text or tool calls are dropped (the
    model has already answered them with nothing) and ``SUMMARY_PROMPT`` is
    appended as a user message.
    """
    request = list(messages)
    while request and request[-1]["role"] == "assistant" and not request[-1].get("tool_calls"):
        if str(request[-1].get("content") or "").strip():
            break
        request.pop()
    request.append(user_message(SUMMARY_PROMPT))
    return request


def fallback_summary(messages: Sequence[Mapping[str, Any]]) -> str:
    """A deterministic answer for a run whose model gave none; it never quotes tool output."""
    succeeded = [m["name"] for m in messages if m["role"] == "tool" and not m.get("is_error")]
    failed = sum(1 for m in messages if m["role"] == "tool" and m.get("is_error"))
    if not succeeded and not failed:
        return "The model returned no written answer and no tool ran in this run. Please ask again."
    names = ", ".join(dict.fromkeys(name.strip() for name in succeeded)) or "no tool"
    text = f"The model returned no written answer. {len(succeeded)} tool call(s) succeeded ({names})."
    if failed:
        text += f" {failed} tool call(s) failed."
    return text


def _mapping(args: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return args if args is not None else {}
