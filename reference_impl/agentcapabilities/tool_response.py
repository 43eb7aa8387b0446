"""The structured tool response, its error codes, and reading a code out of a tool result.

Upstream's ``ToolResponse`` is what a chat tool returns when its result needs
machine-readable fields inside the plain text result: ``ok``, then ``data``,
``error`` and ``meta``, each left out when empty. Its ``ToolError`` carries a
``ToolErrorCode``, a message, and the flags ``blocked``, ``failed`` and
``retryable`` (each left out when false) with optional ``details``.

``tool_result_error_code(text)`` is how the loop and adapters branch on a
result: it parses the text from its first ``{`` to the end as one JSON object
(leading prose is allowed, trailing text is not), then takes
``error.code``, or failing that the legacy top-level ``error_code``, when it
is a string that is not blank. The code is returned as written, untrimmed.
The shared agent envelope (``{"error": "FSM_BLOCKED", ...}``, a string
``error``) carries no code this parser can see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from reference_impl.gocompat.gojson import GoJSONError, go_text, loads_any, marshal, marshal_string
from reference_impl.gocompat.gostrings import trim_space

__all__ = [
    "ToolError",
    "ToolErrorCode",
    "ToolResponse",
    "new_tool_blocked_error",
    "tool_response_result",
    "tool_result_error_code",
    "tool_result_has_error_code",
    "tool_result_has_verification_ok",
]


class ToolErrorCode(str, Enum):
    """Codes a chat tool may return in its structured tool response."""

    FSM_BLOCKED = "FSM_BLOCKED"
    STRICT_RESOLUTION = "STRICT_RESOLUTION"
    ROUTING_MISMATCH = "ROUTING_MISMATCH"
    EXECUTION_CONTEXT_UNAVAILABLE = "EXECUTION_CONTEXT_UNAVAILABLE"
    NOT_FOUND = "NOT_FOUND"
    ACTION_NOT_ALLOWED = "ACTION_NOT_ALLOWED"
    POLICY_BLOCKED = "POLICY_BLOCKED"
    APPROVAL_REQUIRED = "APPROVAL_REQUIRED"
    INVALID_INPUT = "INVALID_INPUT"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    NO_AGENT = "NO_AGENT"

    def __str__(self) -> str:
        return self.value


def _object(fields: list[tuple[str, str]]) -> str:
    """A JSON object from keys and already encoded values, in the order given."""
    return "{" + ",".join(f"{marshal_string(key)}:{value}" for key, value in fields) + "}"


@dataclass(frozen=True)
class ToolError:
    code: str
    message: str
    blocked: bool = False
    failed: bool = False
    retryable: bool = False
    details: Mapping[str, Any] | None = None

    def to_json(self) -> str:
        body = [("code", marshal(str(self.code))), ("message", marshal(self.message))]
        body += [(name, "true") for name in ("blocked", "failed", "retryable") if getattr(self, name)]
        if self.details:
            body.append(("details", marshal(dict(self.details))))
        return _object(body)


@dataclass(frozen=True)
class ToolResponse:
    ok: bool
    data: Any = None
    error: ToolError | None = None
    meta: Mapping[str, Any] | None = None

    def to_json(self) -> str:
        """``json.Marshal`` of the response; raises ``GoJSONError`` where Go's would fail."""
        body = [("ok", marshal(self.ok))]
        if self.data is not None:
            body.append(("data", marshal(self.data)))
        if self.error is not None:
            body.append(("error", self.error.to_json()))
        if self.meta:
            body.append(("meta", marshal(dict(self.meta))))
        return _object(body)


def new_tool_blocked_error(code: str, message: str, details: Mapping[str, Any] | None = None) -> ToolResponse:
    """A policy or validation block: ``ok`` false, the error marked ``blocked``."""
    return ToolResponse(ok=False, error=ToolError(code, message, blocked=True, details=details))


def tool_response_result(response: ToolResponse) -> tuple[str, bool]:
    """The result text and ``is_error`` a tool returns for ``response``.

    As upstream, a response Go cannot encode (NaN, an infinity) becomes an
    error result whose text is the encoder's message.
    """
    try:
        return response.to_json(), not response.ok
    except GoJSONError as exc:
        return str(exc), True


def _result_object(text: str | bytes) -> dict[str, Any] | None:
    text = go_text(text) if text else ""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value = loads_any(text[start:])
    except GoJSONError:
        return None
    return value if isinstance(value, dict) else None


def tool_result_error_code(text: str | bytes) -> str | None:
    """The ``ToolResponse`` error code a result text carries, or ``None``."""
    obj = _result_object(text)
    if obj is None:
        return None
    error = obj.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        if isinstance(code, str) and trim_space(code):
            return code
    legacy = obj.get("error_code")
    if isinstance(legacy, str) and trim_space(legacy):
        return legacy
    return None


def tool_result_has_error_code(text: str | bytes, code: str | ToolErrorCode) -> bool:
    found = tool_result_error_code(text)
    return found is not None and found == str(code)


def tool_result_has_verification_ok(text: str | bytes) -> bool:
    """Whether the result carries ``{"verification": {"ok": true}}`` (after any prose)."""
    obj = _result_object(text)
    verification = obj.get("verification") if obj else None
    return isinstance(verification, dict) and verification.get("ok") is True
