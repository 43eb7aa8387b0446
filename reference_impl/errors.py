"""Structured error vocabulary of the Pulse agent surface and tool results.

Two families of codes exist upstream: the snake case codes an agent-facing
endpoint puts in its error envelope (``AgentErrorCode``), and the upper snake
case codes a chat tool puts in its structured tool response
(``ToolErrorCode``). Agents branch on the code, never on the message.

The shared failure shape is ``{"error": CODE, "message": TEXT}`` with an
optional ``"details"`` object of string values, left out when empty.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum


class AgentErrorCode(str, Enum):
    """Codes an agent-surface endpoint may return in its error envelope."""

    RESOURCE_NOT_FOUND = "resource_not_found"
    OPERATOR_STATE_NOT_SET = "operator_state_not_set"
    OPERATOR_STATE_INVALID = "operator_state_invalid"
    INVALID_FINDING_REQUEST = "invalid_finding_request"
    FINDING_NOT_FOUND = "finding_not_found"
    FINDING_ACTION_NOT_ALLOWED = "finding_action_not_allowed"
    PATROL_UNAVAILABLE = "patrol_unavailable"
    INVALID_ACTION_REQUEST = "invalid_action_request"
    CAPABILITY_NOT_FOUND = "capability_not_found"
    ACTION_EXECUTION_UNAVAILABLE = "action_execution_unavailable"
    ACTION_ACTOR_UNAVAILABLE = "action_actor_unavailable"
    MISSING_ID = "missing_id"
    INVALID_ID = "invalid_id"
    INVALID_ACTION_DECISION = "invalid_action_decision"
    ACTION_NOT_FOUND = "action_not_found"
    ACTION_NOT_PENDING = "action_not_pending"
    ACTION_PLAN_EXPIRED = "action_plan_expired"
    ACTION_APPROVAL_FORBIDDEN = "action_approval_forbidden"
    ACTION_STEP_UP_UNAVAILABLE = "action_step_up_unavailable"
    ACTION_DECISION_CONFLICT = "action_decision_conflict"
    ACTION_SEPARATION_REQUIRED = "action_separation_required"
    ACTION_REPLAN_REQUIRED = "action_replan_required"
    INVALID_ACTION_EXECUTION = "invalid_action_execution"
    ACTION_NOT_APPROVED = "action_not_approved"
    ACTION_ALREADY_EXECUTING = "action_already_executing"
    ACTION_EXECUTION_FINAL = "action_execution_final"
    ACTION_EXECUTION_FORBIDDEN = "action_execution_forbidden"
    ACTION_NOT_EXECUTING = "action_not_executing"
    ACTION_DRY_RUN_ONLY = "action_dry_run_only"
    ACTION_PLAN_DRIFT = "action_plan_drift"
    ACTION_PLAN_IDENTITY_MISMATCH = "action_plan_identity_mismatch"
    ACTION_EMERGENCY_STOP = "action_emergency_stop"
    RESOURCE_REMEDIATION_LOCKED = "resource_remediation_locked"
    MOCK_MODE_ENABLED = "mock_mode_enabled"
    ACTION_EXECUTOR_UNAVAILABLE = "action_executor_unavailable"
    ACTION_QUEUE_UNAVAILABLE = "action_queue_unavailable"
    ACTION_QUEUE_QUERY_FAILED = "action_queue_query_failed"
    ACTION_QUEUE_ENCODE_FAILED = "action_queue_encode_failed"
    INVALID_ACTION_LIST_LIMIT = "invalid_action_list_limit"
    INVALID_ACTION_LIST_VIEW = "invalid_action_list_view"
    ACTION_LIST_FAILED = "action_list_failed"
    ACTION_LIST_ENCODE_FAILED = "action_list_encode_failed"
    ACTION_DETAIL_FAILED = "action_detail_failed"
    ACTION_DETAIL_ENCODE_FAILED = "action_detail_encode_failed"
    RAW_COMMAND_RETIRED = "raw_command_retired"

    def __str__(self) -> str:
        return self.value


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


@dataclass(frozen=True)
class ErrorEnvelope:
    """The stable failure shape: a code, a human message, optional details.

    Empty ``details`` are normalised to ``None`` so that an envelope without
    details always serialises to the two-field shape.
    """

    error: str
    message: str
    details: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        details = dict(self.details) if self.details else None
        object.__setattr__(self, "details", details)

    def to_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"error": str(self.error), "message": self.message}
        if self.details:
            body["details"] = {str(k): str(v) for k, v in sorted(self.details.items())}
        return body

    def to_json(self) -> str:
        """Compact JSON, keys in the order error, message, details."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)


def decode_error_envelope(body: str | bytes) -> ErrorEnvelope | None:
    """Parse ``body`` as the shared envelope, or return ``None``.

    Accepted: a JSON object whose ``error`` and ``message`` are non-empty
    strings and whose ``details``, when present and not null, is an object of
    string values. Unknown keys are ignored. Anything else (bad UTF-8, bad
    JSON, another top-level type, wrong field types) gives ``None``; this
    function never raises.
    """
    try:
        if isinstance(body, (bytes, bytearray)):
            body = bytes(body).decode("utf-8")
        if not isinstance(body, str):
            return None
        data = json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if not isinstance(data, dict):
        return None
    error, message, details = data.get("error"), data.get("message"), data.get("details")
    if not (isinstance(error, str) and error and isinstance(message, str) and message):
        return None
    if details is not None and (
        not isinstance(details, dict) or not all(isinstance(v, str) for v in details.values())
    ):
        return None
    return ErrorEnvelope(error, message, details)
