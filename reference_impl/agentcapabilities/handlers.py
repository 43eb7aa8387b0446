"""The agent-surface handlers: resources, findings and governed actions.

Each handler takes a ``Surface`` and a request mapping and returns a payload
``dict`` or an ``ErrorEnvelope``; ``@emits`` lists the codes it may return.
Helpers that produce codes live here with the handlers that call them, since
``referenced_codes`` follows only helpers of the handler's own module.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from reference_impl.agentcapabilities.errors import AgentErrorCode as A
from reference_impl.agentcapabilities.errors import ErrorEnvelope
from reference_impl.agentcapabilities.surface import (
    Action,
    ErrorCode,
    ExecutionError,
    Resource,
    Result,
    StoreError,
    Surface,
    emits,
    fail,
)

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9:._/-]{0,127}")
_LIST_VIEWS = ("summary", "full")
_FINAL_STATUSES = ("completed", "failed", "rejected")
PLAN_TTL = timedelta(minutes=15)  # how long a plan stays valid for a decision
MAX_LIST_LIMIT = 200


def _require_id(req: Mapping[str, Any], key: str) -> str | ErrorEnvelope:
    value = req.get(key)
    if value is None or value == "":
        return fail(A.MISSING_ID, f"{key} is required", field=key)
    if not isinstance(value, str) or not _ID.fullmatch(value):
        return fail(A.INVALID_ID, f"{key} is not a valid id", field=key)
    return value


def _lookup_resource(s: Surface, req: Mapping[str, Any]) -> Resource | ErrorEnvelope:
    rid = _require_id(req, "resourceId")
    if isinstance(rid, ErrorEnvelope):
        return rid
    resource = s.resources.get(rid)
    return resource or fail(A.RESOURCE_NOT_FOUND, f"no resource {rid}", resourceId=rid)


def _load_action(s: Surface, req: Mapping[str, Any], on_failure: ErrorCode) -> Action | ErrorEnvelope:
    aid = _require_id(req, "actionId")
    if isinstance(aid, ErrorEnvelope):
        return aid
    if s.actions is None:
        return fail(A.ACTION_QUEUE_UNAVAILABLE, "the action queue is not configured")
    try:
        action = s.actions.get(aid)
    except StoreError as exc:
        return fail(on_failure, f"reading action {aid} failed: {exc}")
    return action or fail(A.ACTION_NOT_FOUND, f"no action {aid}", actionId=aid)


def _encoded(payload: dict, on_failure: ErrorCode) -> Result:
    try:
        json.dumps(payload)
    except (TypeError, ValueError) as exc:
        return fail(on_failure, f"the response could not be encoded: {exc}")
    return payload


def _view(action: Action, full: bool = True) -> dict[str, object]:
    view: dict[str, object] = {"id": action.id, "status": action.status, "capability": action.capability}
    if full:
        view.update(resourceId=action.resource_id, requestedBy=action.requested_by, metadata=action.metadata)
    return view


@emits(A.MISSING_ID, A.INVALID_ID, A.RESOURCE_NOT_FOUND)
def get_resource_context(s: Surface, req: Mapping[str, Any]) -> Result:
    resource = _lookup_resource(s, req)
    if isinstance(resource, ErrorEnvelope):
        return resource
    return {"canonicalId": resource.id, "capabilities": sorted(resource.capabilities)}


@emits(A.MISSING_ID, A.INVALID_ID, A.RESOURCE_NOT_FOUND, A.OPERATOR_STATE_NOT_SET, A.OPERATOR_STATE_INVALID)
def operator_state(s: Surface, req: Mapping[str, Any]) -> Result:
    """Read the operator state, or replace it when the request has ``state``."""
    resource = _lookup_resource(s, req)
    if isinstance(resource, ErrorEnvelope):
        return resource
    if "state" not in req:
        if resource.operator_state is None:
            return fail(A.OPERATOR_STATE_NOT_SET, f"no operator state for {resource.id}")
        return dict(resource.operator_state)
    state = req["state"]
    flags = ("intentionallyOffline", "neverAutoRemediate")
    if (
        not isinstance(state, dict)
        or not set(state) <= {*flags, "criticality", "note"}
        or any(not isinstance(state.get(flag, False), bool) for flag in flags)
        or state.get("criticality", "") not in ("", "high", "medium", "low")
        or not isinstance(state.get("note", ""), str)
    ):
        return fail(A.OPERATOR_STATE_INVALID, "state has unknown keys or wrong types")
    resource.operator_state = dict(state)
    resource.never_auto_remediate = bool(state.get("neverAutoRemediate", False))
    return dict(state)


@emits(A.MISSING_ID, A.INVALID_ID, A.RESOURCE_NOT_FOUND, A.CAPABILITY_NOT_FOUND)
def describe_capability(s: Surface, req: Mapping[str, Any]) -> Result:
    resource = _lookup_resource(s, req)
    if isinstance(resource, ErrorEnvelope):
        return resource
    name = req.get("capability")
    if name not in resource.capabilities:
        return fail(A.CAPABILITY_NOT_FOUND, f"{resource.id} has no capability {name!r}")
    return {"resourceId": resource.id, "capability": name, "dryRunOnly": name in resource.dry_run_only}


_FINDING_MOVES = {
    "acknowledge": ({"active"}, "acknowledged"),
    "dismiss": ({"active", "acknowledged"}, "dismissed"),
    "resolve": ({"active", "acknowledged"}, "resolved"),
    "reopen": ({"dismissed", "resolved"}, "active"),
}


@emits(A.PATROL_UNAVAILABLE, A.INVALID_FINDING_REQUEST, A.FINDING_NOT_FOUND, A.FINDING_ACTION_NOT_ALLOWED)
def act_on_finding(s: Surface, req: Mapping[str, Any]) -> Result:
    if not s.patrol_available:
        return fail(A.PATROL_UNAVAILABLE, "Patrol is not running")
    fid, verb = req.get("findingId"), req.get("action")
    if not isinstance(fid, str) or not fid or verb not in _FINDING_MOVES:
        return fail(A.INVALID_FINDING_REQUEST, "findingId and a known action are required")
    if fid not in s.findings:
        return fail(A.FINDING_NOT_FOUND, f"no finding {fid}", findingId=fid)
    sources, target = _FINDING_MOVES[verb]
    if s.findings[fid] not in sources:
        return fail(A.FINDING_ACTION_NOT_ALLOWED, f"cannot {verb} a finding that is {s.findings[fid]}")
    s.findings[fid] = target
    return {"success": True, "message": f"finding {fid} is {target}"}


@emits(
    A.INVALID_ACTION_REQUEST, A.ACTION_ACTOR_UNAVAILABLE, A.ACTION_QUEUE_UNAVAILABLE,
    A.RESOURCE_NOT_FOUND, A.CAPABILITY_NOT_FOUND, A.RESOURCE_REMEDIATION_LOCKED,
)
def plan_action(s: Surface, req: Mapping[str, Any]) -> Result:
    rid, name, request_id = req.get("resourceId"), req.get("capability"), req.get("requestId")
    if not (isinstance(rid, str) and rid and isinstance(name, str) and name
            and isinstance(request_id, str) and request_id):
        return fail(A.INVALID_ACTION_REQUEST, "resourceId, capability and requestId are required strings")
    if s.actor is None:
        return fail(A.ACTION_ACTOR_UNAVAILABLE, "no authenticated actor")
    if s.actions is None:
        return fail(A.ACTION_QUEUE_UNAVAILABLE, "the action queue is not configured")
    resource = s.resources.get(rid)
    if resource is None:
        return fail(A.RESOURCE_NOT_FOUND, f"no resource {rid}", resourceId=rid)
    if name not in resource.capabilities:
        return fail(A.CAPABILITY_NOT_FOUND, f"{rid} has no capability {name!r}")
    if resource.never_auto_remediate:
        return fail(A.RESOURCE_REMEDIATION_LOCKED, f"{rid} is locked against remediation")
    plan_hash = f"{rid}:{name}:{resource.version}"
    action = Action(request_id, rid, name, s.actor, s.now + PLAN_TTL, plan_hash, resource.version)
    s.actions.add(action)
    return {"actionId": action.id, "planHash": plan_hash, "expiresAt": action.expires_at.isoformat()}


@emits(
    A.MISSING_ID, A.INVALID_ID, A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_NOT_FOUND, A.ACTION_QUEUE_QUERY_FAILED,
    A.INVALID_ACTION_DECISION, A.ACTION_ACTOR_UNAVAILABLE, A.ACTION_NOT_PENDING, A.ACTION_PLAN_EXPIRED,
    A.ACTION_DECISION_CONFLICT, A.ACTION_SEPARATION_REQUIRED, A.ACTION_APPROVAL_FORBIDDEN,
    A.ACTION_STEP_UP_UNAVAILABLE,
)
def decide_action(s: Surface, req: Mapping[str, Any]) -> Result:
    """Approve or reject a pending action; ``expectedVersion`` guards races."""
    action = _load_action(s, req, A.ACTION_QUEUE_QUERY_FAILED)
    if isinstance(action, ErrorEnvelope):
        return action
    decision = req.get("decision")
    if decision not in ("approve", "reject"):
        return fail(A.INVALID_ACTION_DECISION, "decision must be approve or reject")
    if s.actor is None:
        return fail(A.ACTION_ACTOR_UNAVAILABLE, "no authenticated actor")
    if action.status != "pending":
        return fail(A.ACTION_NOT_PENDING, f"action {action.id} is {action.status}")
    if s.now >= action.expires_at:
        return fail(A.ACTION_PLAN_EXPIRED, f"the plan of {action.id} expired; refresh it")
    if req.get("expectedVersion", action.version) != action.version:
        return fail(A.ACTION_DECISION_CONFLICT, f"action {action.id} changed since it was read")
    if s.actor == action.requested_by:
        return fail(A.ACTION_SEPARATION_REQUIRED, "the requester cannot decide their own action")
    if s.actor not in s.approvers:
        return fail(A.ACTION_APPROVAL_FORBIDDEN, f"{s.actor} may not decide actions")
    if action.high_risk and decision == "approve" and not s.step_up_available:
        return fail(A.ACTION_STEP_UP_UNAVAILABLE, "high-risk approval needs step-up authentication")
    action.status = "approved" if decision == "approve" else "rejected"
    action.decided_by, action.version = s.actor, action.version + 1
    return {"actionId": action.id, "status": action.status}


def _execution_gate(s: Surface) -> ErrorEnvelope | None:
    if s.emergency_stop:
        return fail(A.ACTION_EMERGENCY_STOP, "the emergency stop is engaged")
    if s.mock_mode:
        return fail(A.MOCK_MODE_ENABLED, "mock mode is on; nothing real can run")
    if not s.execution_enabled or s.executor is None:
        return fail(A.ACTION_EXECUTION_UNAVAILABLE, "execution is disabled or not connected on this surface")
    return None


def _plan_check(s: Surface, action: Action, plan_hash: object) -> ErrorEnvelope | None:
    if action.status == "approved" and s.now >= action.expires_at:
        return fail(A.ACTION_REPLAN_REQUIRED, f"the approved plan of {action.id} expired; plan again")
    if plan_hash != action.plan_hash:
        return fail(A.ACTION_PLAN_IDENTITY_MISMATCH, "planHash does not match the approved plan")
    resource = s.resources.get(action.resource_id)
    if resource is None or resource.version != action.resource_version:
        return fail(A.ACTION_PLAN_DRIFT, f"{action.resource_id} changed since the plan was made")
    if resource.never_auto_remediate:
        return fail(A.RESOURCE_REMEDIATION_LOCKED, f"{resource.id} is locked against remediation")
    return None


def _status_check(action: Action) -> ErrorEnvelope | None:
    if action.status == "executing":
        return fail(A.ACTION_ALREADY_EXECUTING, f"action {action.id} is already running")
    if action.status in _FINAL_STATUSES:
        return fail(A.ACTION_EXECUTION_FINAL, f"action {action.id} is {action.status}")
    if action.status != "approved":
        return fail(A.ACTION_NOT_APPROVED, f"action {action.id} is not approved")
    return None


def _ready_agent(s: Surface, resource: Resource) -> str | ErrorEnvelope:
    """The agent that can run the action now; a probe that fails is its own code."""
    agent, probe = resource.agent, s.availability_probe
    if agent is None or not resource.agent_ready:
        return fail(A.ACTION_EXECUTOR_UNAVAILABLE, f"no ready agent can run it on {resource.id}")
    if probe is None:
        return agent
    try:
        ready = probe(agent)
    except ExecutionError as exc:
        return fail(A.ACTION_EXECUTION_AVAILABILITY_FAILED, f"checking {agent} failed: {exc}")
    return agent if ready else fail(A.ACTION_EXECUTOR_UNAVAILABLE, f"{agent} cannot run actions now")


@emits(
    A.MISSING_ID, A.INVALID_ID, A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_NOT_FOUND, A.ACTION_QUEUE_QUERY_FAILED,
    A.INVALID_ACTION_EXECUTION, A.ACTION_EMERGENCY_STOP, A.MOCK_MODE_ENABLED, A.ACTION_EXECUTION_UNAVAILABLE,
    A.ACTION_EXECUTOR_UNAVAILABLE, A.ACTION_ACTOR_UNAVAILABLE, A.ACTION_EXECUTION_FORBIDDEN,
    A.ACTION_ALREADY_EXECUTING, A.ACTION_EXECUTION_FINAL, A.ACTION_NOT_APPROVED, A.ACTION_REPLAN_REQUIRED,
    A.ACTION_PLAN_IDENTITY_MISMATCH, A.ACTION_PLAN_DRIFT, A.RESOURCE_REMEDIATION_LOCKED,
    A.ACTION_DRY_RUN_ONLY, A.ACTION_EXECUTION_AVAILABILITY_FAILED,
)
def execute_action(s: Surface, req: Mapping[str, Any]) -> Result:
    """Run an approved action through the executor (or dry-run it)."""
    action = _load_action(s, req, A.ACTION_QUEUE_QUERY_FAILED)
    if isinstance(action, ErrorEnvelope):
        return action
    dry_run = req.get("dryRun", False)
    if not isinstance(dry_run, bool) or not isinstance(req.get("planHash"), str):
        return fail(A.INVALID_ACTION_EXECUTION, "planHash (string) is required; dryRun must be a boolean")
    blocked = _execution_gate(s)
    if blocked is None and s.actor is None:
        blocked = fail(A.ACTION_ACTOR_UNAVAILABLE, "no authenticated actor")
    if blocked is None and s.actor not in (action.requested_by, action.decided_by):
        blocked = fail(A.ACTION_EXECUTION_FORBIDDEN, f"{s.actor} may not run action {action.id}")
    blocked = blocked or _status_check(action) or _plan_check(s, action, req["planHash"])
    if blocked is not None:
        return blocked
    executor = s.executor
    if executor is None:  # pragma: no cover - _execution_gate refuses a surface without an executor first
        return fail(A.ACTION_EXECUTION_UNAVAILABLE, "execution is disabled or not connected on this surface")
    resource = s.resources[action.resource_id]
    if not dry_run and action.capability in resource.dry_run_only:
        return fail(A.ACTION_DRY_RUN_ONLY, f"{action.capability} may only be dry-run on {resource.id}")
    agent = _ready_agent(s, resource)
    if isinstance(agent, ErrorEnvelope):
        return agent
    if dry_run:
        return {"actionId": action.id, "status": action.status, "dryRun": True}
    action.status = "executing"
    try:
        output = executor(agent, action.capability, {"actionId": action.id})
        action.status = "completed"
    except ExecutionError as exc:
        action.status, output = "failed", str(exc)
    return {"actionId": action.id, "status": action.status, "output": output}


@emits(
    A.MISSING_ID, A.INVALID_ID, A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_NOT_FOUND, A.ACTION_QUEUE_QUERY_FAILED,
    A.INVALID_ACTION_EXECUTION, A.ACTION_NOT_EXECUTING,
)
def finish_action(s: Surface, req: Mapping[str, Any]) -> Result:
    """Record the end of an execution the executor reported asynchronously."""
    action = _load_action(s, req, A.ACTION_QUEUE_QUERY_FAILED)
    if isinstance(action, ErrorEnvelope):
        return action
    succeeded = req.get("succeeded")
    if not isinstance(succeeded, bool):
        return fail(A.INVALID_ACTION_EXECUTION, "succeeded must be a boolean")
    if action.status != "executing":
        return fail(A.ACTION_NOT_EXECUTING, f"action {action.id} is {action.status}")
    action.status = "completed" if succeeded else "failed"
    return {"actionId": action.id, "status": action.status}


@emits(
    A.MISSING_ID, A.INVALID_ID, A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_NOT_FOUND, A.ACTION_QUEUE_QUERY_FAILED,
    A.ACTION_REFRESH_NOT_ALLOWED,
)
def refresh_action(s: Surface, req: Mapping[str, Any]) -> Result:
    """Renew an expired or drifted plan for a new review; a current plan refuses, as upstream's does."""
    action = _load_action(s, req, A.ACTION_QUEUE_QUERY_FAILED)
    if isinstance(action, ErrorEnvelope):
        return action
    resource = s.resources.get(action.resource_id)
    drifted = resource is not None and resource.version != action.resource_version
    if s.now < action.expires_at and not drifted:
        return fail(A.ACTION_REFRESH_NOT_ALLOWED, "Only expired or drifted action plans can be refreshed")
    if resource is not None:
        action.resource_version = resource.version
    action.expires_at, action.version = s.now + PLAN_TTL, action.version + 1
    action.status, action.decided_by = "pending", None
    return {"actionId": action.id, "expiresAt": action.expires_at.isoformat()}


@emits(
    A.INVALID_ACTION_LIST_LIMIT, A.INVALID_ACTION_LIST_VIEW, A.ACTION_QUEUE_UNAVAILABLE,
    A.ACTION_LIST_FAILED, A.ACTION_LIST_ENCODE_FAILED,
)
def list_actions(s: Surface, req: Mapping[str, Any]) -> Result:
    limit, view = req.get("limit", 50), req.get("view", "summary")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIST_LIMIT:
        return fail(A.INVALID_ACTION_LIST_LIMIT, f"limit must be an integer from 1 to {MAX_LIST_LIMIT}")
    if view not in _LIST_VIEWS:
        return fail(A.INVALID_ACTION_LIST_VIEW, f"view must be one of {', '.join(_LIST_VIEWS)}")
    if s.actions is None:
        return fail(A.ACTION_QUEUE_UNAVAILABLE, "the action queue is not configured")
    try:
        items = [_view(action, view == "full") for action in s.actions.all()[:limit]]
    except StoreError as exc:
        return fail(A.ACTION_LIST_FAILED, f"listing actions failed: {exc}")
    return _encoded({"items": items, "count": len(items)}, A.ACTION_LIST_ENCODE_FAILED)


@emits(
    A.MISSING_ID, A.INVALID_ID, A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_NOT_FOUND, A.ACTION_DETAIL_FAILED,
    A.ACTION_DETAIL_ENCODE_FAILED,
)
def get_action_detail(s: Surface, req: Mapping[str, Any]) -> Result:
    action = _load_action(s, req, A.ACTION_DETAIL_FAILED)
    if isinstance(action, ErrorEnvelope):
        return action
    return _encoded(_view(action), A.ACTION_DETAIL_ENCODE_FAILED)


@emits(A.ACTION_QUEUE_UNAVAILABLE, A.ACTION_QUEUE_QUERY_FAILED, A.ACTION_QUEUE_ENCODE_FAILED)
def get_action_queue(s: Surface, req: Mapping[str, Any]) -> Result:
    """The actions waiting for a decision."""
    if s.actions is None:
        return fail(A.ACTION_QUEUE_UNAVAILABLE, "the action queue is not configured")
    try:
        pending = [_view(action) for action in s.actions.all() if action.status == "pending"]
    except StoreError as exc:
        return fail(A.ACTION_QUEUE_QUERY_FAILED, f"querying the queue failed: {exc}")
    return _encoded({"items": pending, "count": len(pending)}, A.ACTION_QUEUE_ENCODE_FAILED)


@emits(A.RAW_COMMAND_RETIRED)
def run_raw_command(s: Surface, req: Mapping[str, Any]) -> Result:
    return fail(A.RAW_COMMAND_RETIRED, "raw commands are retired; plan a governed action instead")
