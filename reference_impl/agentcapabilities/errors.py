"""The agent surface's error codes and its error envelope (upstream's ``errors.go``).

``AgentErrorCode`` holds the 47 snake case codes an agent-facing endpoint
puts in its error envelope, in upstream's order. The upper snake case codes a
chat tool puts in its structured tool response are ``ToolErrorCode`` in
``reference_impl.agentcapabilities.tool_response``. Agents branch on the
code, never on the message.

The envelope is ``{"error": CODE, "message": TEXT}`` with an optional
``"details"`` object of string values, left out when empty. It is written as
Go's ``json.Marshal`` writes it and read back as ``json.Unmarshal`` reads it
into upstream's struct (see ``decode_error_envelope``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from reference_impl.gocompat.gojson import GoJSONError, Object, go_text, loads_pairs, marshal, marshal_string
from reference_impl.gocompat.gostrings import fold_name


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
    ACTION_EXECUTION_AVAILABILITY_FAILED = "action_execution_availability_failed"
    ACTION_PLAN_DRIFT = "action_plan_drift"
    ACTION_PLAN_IDENTITY_MISMATCH = "action_plan_identity_mismatch"
    ACTION_REFRESH_NOT_ALLOWED = "action_refresh_not_allowed"
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
        """``json.Marshal`` of upstream's struct: keys in the order error, message, details."""
        fields = [f"{marshal_string(key)}:{marshal(value)}" for key, value in self.to_dict().items()]
        return "{" + ",".join(fields) + "}"


class _TypeMismatch(Exception):
    """A value whose JSON type the target field cannot hold."""


_FIELDS = {fold_name(name): name for name in ("error", "message", "details")}


def _string_field(value: Any, current: str) -> str:
    if value is None:
        return current  # Go leaves a string field alone on null
    if not isinstance(value, str):
        raise _TypeMismatch
    return value


def _details_field(value: Any, current: dict[str, str] | None) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Object):
        raise _TypeMismatch
    merged = {} if current is None else current  # Go decodes into the map it already has
    mismatch = False
    for key, item in value:
        if item is not None and not isinstance(item, str):
            mismatch = True
            continue
        merged[key] = item or ""
    if mismatch:
        raise _TypeMismatch
    return merged


def _envelope_fields(data: Object) -> tuple[str, str, dict[str, str] | None] | None:
    error = message = ""
    details: dict[str, str] | None = None
    mismatch = False
    for key, value in data:
        field = _FIELDS.get(fold_name(key))
        try:
            if field == "error":
                error = _string_field(value, error)
            elif field == "message":
                message = _string_field(value, message)
            elif field == "details":
                details = _details_field(value, details)
        except _TypeMismatch:
            mismatch = True  # Go keeps decoding, then reports the first mismatch
    return None if mismatch else (error, message, details)


def decode_error_envelope(body: str | bytes) -> ErrorEnvelope | None:
    """Parse ``body`` as upstream's ``DecodeErrorEnvelope`` does, or return ``None``.

    It follows ``json.Unmarshal`` into the envelope struct: a key matches a
    field without regard to case (``"Error"``, ``"MESSAGE"``, even ``"meſſage"``),
    the last duplicate wins, ``null`` leaves ``error`` and ``message`` as they
    were and clears ``details``, a ``null`` detail value becomes ``""``, two
    ``details`` objects merge, unknown keys are skipped whatever they hold, and
    invalid UTF-8 becomes U+FFFD. A value of the wrong type anywhere in the
    three fields, JSON that is not an object, ``NaN``, and an empty ``error``
    or ``message`` give ``None``. It never raises.
    """
    if not isinstance(body, (str, bytes, bytearray)):
        return None
    try:
        data = loads_pairs(go_text(body))
    except GoJSONError:
        return None
    if data is None:
        return None  # Go decodes null into the zero struct, whose error is empty
    if not isinstance(data, Object):
        return None
    fields = _envelope_fields(data)
    if fields is None or not fields[0] or not fields[1]:
        return None
    return ErrorEnvelope(*fields)
