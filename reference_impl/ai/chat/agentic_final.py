"""How a run closes: whether assistant text already answers it, the summary request, the fallback.

Upstream keeps these in ``agentic_final.go`` (``ensureFinalTextResponse``,
``hasFinalAssistantText``, ``buildAutomaticFallbackSummary``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reference_impl.ai.chat.types import user_message

__all__ = ["SUMMARY_PROMPT", "fallback_summary", "final_text", "has_final_text", "summary_request"]

SUMMARY_PROMPT = (
    "Based on what you've investigated above, provide a complete response to the user. Explain what you "
    "found or did, mention any issues or caveats they should know about, and suggest next steps if relevant."
)


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
