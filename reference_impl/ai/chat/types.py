"""What a run passes around: tool calls and their results, provider turns, the
outcome of a run, and the shapes of the transcript's messages.

A leaf of the chat package (upstream keeps the same records in ``types.go``):
the loop, its phases and the final-summary helpers all import from here and
nothing here imports them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from reference_impl.ai.chat.fsm import SessionFSM

__all__ = [
    "STOP_FINAL",
    "STOP_MAX_TURNS",
    "Executor",
    "LoopResult",
    "Provider",
    "ProviderTurn",
    "ToolCall",
    "ToolResult",
    "assistant_message",
    "tool_message",
    "user_message",
]

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
