"""The manifest contract, both ways, and proof that its checker can fail.

Every handler is run through a table of scenarios. Each scenario names the
code it must produce (or ``None`` for success). The contract tests then demand
that, per handler, the codes actually produced are exactly its ``EMITS``, that
the union of ``EMITS`` is exactly the manifest, and that the static checker
agrees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from reference_impl.agentcapabilities.errors import AgentErrorCode, ErrorEnvelope, decode_error_envelope
from reference_impl.agentcapabilities.manifest import (
    HANDLERS,
    MANIFEST,
    Action,
    ActionStore,
    CapabilityManifest,
    ExecutionError,
    Resource,
    StoreError,
    Surface,
    check_manifest,
    emits,
    referenced_codes,
)
from reference_impl.agentcapabilities.tool_response import ToolErrorCode

A, T = AgentErrorCode, ToolErrorCode
NOW = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc)


class BrokenStore(ActionStore):
    def get(self, action_id: str) -> Action | None:
        raise StoreError("disk on fire")

    def all(self) -> list[Action]:
        raise StoreError("disk on fire")


def executor(agent: str, operation: str, args: Any) -> str:
    if args.get("fail") or args.get("path") == "/broken" or args.get("actionId") == "a-boom":
        raise ExecutionError("boom")
    return f"{operation} ok on {agent}"


def _action(aid: str, status: str = "approved", **kw: Any) -> Action:
    base: dict[str, Any] = dict(
        resource_id="vm/101", capability="restart", requested_by="alice", expires_at=NOW + timedelta(minutes=10),
        plan_hash="h1", status=status, decided_by=None if status == "pending" else "bob",
    )
    base.update(kw)
    return Action(aid, **base)


def make_surface(**overrides: Any) -> Surface:
    resources = {
        "vm/101": Resource("vm/101", "node-a", frozenset({"restart", "snapshot"}), frozenset({"snapshot"}), {"note": "x"}),
        "vm/102": Resource("vm/102", None, frozenset({"restart"})),
        "vm/103": Resource("vm/103", "node-b", frozenset({"restart"}), never_auto_remediate=True),
        "vm/104": Resource("vm/104", "node-c", frozenset({"restart"}), agent_ready=False),
    }
    actions = ActionStore([
        _action("a-pending", "pending"),
        _action("a-expired", "pending", expires_at=NOW - timedelta(minutes=1)),
        _action("a-risky", "pending", high_risk=True),
        _action("a-approved"),
        _action("a-approved-stale", expires_at=NOW - timedelta(seconds=1)),
        _action("a-executing", "executing"),
        _action("a-completed", "completed"),
        _action("a-rejected", "rejected"),
        _action("a-drift", resource_version=0),
        _action("a-locked", resource_id="vm/103"),
        _action("a-snapshot", capability="snapshot"),
        _action("a-unready", resource_id="vm/104"),
        _action("a-boom"),
    ])
    surface = Surface(
        now=NOW, resources=resources, findings={"f-active": "active", "f-resolved": "resolved"},
        actions=actions, actor="bob", approvers=frozenset({"bob"}), executor=executor,
    )
    for key, value in overrides.items():
        setattr(surface, key, value)
    return surface


def _broken_probe(agent: str) -> bool:
    raise ExecutionError(f"{agent} did not answer")


def _bad_metadata_store() -> ActionStore:
    return ActionStore([_action("a-odd", "pending", metadata={"handle": object()})])


@dataclass(frozen=True)
class Case:
    handler: str
    label: str
    request: dict
    expect: object  # a code, or None for success
    overrides: dict = field(default_factory=dict)


def _id_cases(handler: str, key: str, extra: dict | None = None) -> list[Case]:
    extra = extra or {}
    return [
        Case(handler, "missing id", {**extra}, A.MISSING_ID),
        Case(handler, "empty id", {key: "", **extra}, A.MISSING_ID),
        Case(handler, "invalid id", {key: "../etc/passwd", **extra}, A.INVALID_ID),
        Case(handler, "non-string id", {key: 101, **extra}, A.INVALID_ID),
    ]


def _load_cases(handler: str, extra: dict, failure: AgentErrorCode) -> list[Case]:
    return [
        *_id_cases(handler, "actionId", extra),
        Case(handler, "no queue", {"actionId": "a-approved", **extra}, A.ACTION_QUEUE_UNAVAILABLE, {"actions": None}),
        Case(handler, "unknown action", {"actionId": "a-nope", **extra}, A.ACTION_NOT_FOUND),
        Case(handler, "store fails", {"actionId": "a-approved", **extra}, failure, {"actions": BrokenStore()}),
    ]


def _run(aid: str, **kw: Any) -> dict:
    return {"actionId": aid, "planHash": "h1", **kw}


CASES: list[Case] = [
    *_id_cases("get_resource_context", "resourceId"),
    Case("get_resource_context", "unknown", {"resourceId": "vm/999"}, A.RESOURCE_NOT_FOUND),
    Case("get_resource_context", "found", {"resourceId": "vm/101"}, None),
    *_id_cases("operator_state", "resourceId"),
    Case("operator_state", "unknown", {"resourceId": "vm/999"}, A.RESOURCE_NOT_FOUND),
    Case("operator_state", "never set", {"resourceId": "vm/102"}, A.OPERATOR_STATE_NOT_SET),
    Case("operator_state", "read", {"resourceId": "vm/101"}, None),
    Case("operator_state", "bad criticality", {"resourceId": "vm/101", "state": {"criticality": "urgent"}}, A.OPERATOR_STATE_INVALID),
    Case("operator_state", "unknown key", {"resourceId": "vm/101", "state": {"colour": "red"}}, A.OPERATOR_STATE_INVALID),
    Case("operator_state", "flag not bool", {"resourceId": "vm/101", "state": {"neverAutoRemediate": "yes"}}, A.OPERATOR_STATE_INVALID),
    Case("operator_state", "state not object", {"resourceId": "vm/101", "state": ["x"]}, A.OPERATOR_STATE_INVALID),
    Case("operator_state", "write", {"resourceId": "vm/102", "state": {"intentionallyOffline": True}}, None),
    *_id_cases("describe_capability", "resourceId", {"capability": "restart"}),
    Case("describe_capability", "unknown", {"resourceId": "vm/999", "capability": "restart"}, A.RESOURCE_NOT_FOUND),
    Case("describe_capability", "no capability", {"resourceId": "vm/101", "capability": "delete"}, A.CAPABILITY_NOT_FOUND),
    Case("describe_capability", "found", {"resourceId": "vm/101", "capability": "snapshot"}, None),
    Case("act_on_finding", "patrol off", {"findingId": "f-active", "action": "dismiss"}, A.PATROL_UNAVAILABLE, {"patrol_available": False}),
    Case("act_on_finding", "no id", {"action": "dismiss"}, A.INVALID_FINDING_REQUEST),
    Case("act_on_finding", "bad verb", {"findingId": "f-active", "action": "explode"}, A.INVALID_FINDING_REQUEST),
    Case("act_on_finding", "unknown", {"findingId": "f-nope", "action": "dismiss"}, A.FINDING_NOT_FOUND),
    Case("act_on_finding", "resolve resolved", {"findingId": "f-resolved", "action": "resolve"}, A.FINDING_ACTION_NOT_ALLOWED),
    Case("act_on_finding", "reopen active", {"findingId": "f-active", "action": "reopen"}, A.FINDING_ACTION_NOT_ALLOWED),
    Case("act_on_finding", "dismiss", {"findingId": "f-active", "action": "dismiss"}, None),
    Case("act_on_finding", "reopen", {"findingId": "f-resolved", "action": "reopen"}, None),
    Case("plan_action", "no request id", {"resourceId": "vm/101", "capability": "restart"}, A.INVALID_ACTION_REQUEST),
    Case("plan_action", "wrong type", {"resourceId": 1, "capability": "restart", "requestId": "r1"}, A.INVALID_ACTION_REQUEST),
    Case("plan_action", "no actor", {"resourceId": "vm/101", "capability": "restart", "requestId": "r1"}, A.ACTION_ACTOR_UNAVAILABLE, {"actor": None}),
    Case("plan_action", "no queue", {"resourceId": "vm/101", "capability": "restart", "requestId": "r1"}, A.ACTION_QUEUE_UNAVAILABLE, {"actions": None}),
    Case("plan_action", "unknown resource", {"resourceId": "vm/999", "capability": "restart", "requestId": "r1"}, A.RESOURCE_NOT_FOUND),
    Case("plan_action", "no capability", {"resourceId": "vm/101", "capability": "delete", "requestId": "r1"}, A.CAPABILITY_NOT_FOUND),
    Case("plan_action", "locked", {"resourceId": "vm/103", "capability": "restart", "requestId": "r1"}, A.RESOURCE_REMEDIATION_LOCKED),
    Case("plan_action", "planned", {"resourceId": "vm/101", "capability": "restart", "requestId": "r1"}, None),
    *_load_cases("decide_action", {"decision": "approve"}, A.ACTION_QUEUE_QUERY_FAILED),
    Case("decide_action", "bad decision", {"actionId": "a-pending", "decision": "maybe"}, A.INVALID_ACTION_DECISION),
    Case("decide_action", "no actor", {"actionId": "a-pending", "decision": "approve"}, A.ACTION_ACTOR_UNAVAILABLE, {"actor": None}),
    Case("decide_action", "already approved", {"actionId": "a-approved", "decision": "approve"}, A.ACTION_NOT_PENDING),
    Case("decide_action", "expired", {"actionId": "a-expired", "decision": "approve"}, A.ACTION_PLAN_EXPIRED),
    Case("decide_action", "stale version", {"actionId": "a-pending", "decision": "approve", "expectedVersion": 7}, A.ACTION_DECISION_CONFLICT),
    Case("decide_action", "own action", {"actionId": "a-pending", "decision": "approve"}, A.ACTION_SEPARATION_REQUIRED, {"actor": "alice"}),
    Case("decide_action", "not an approver", {"actionId": "a-pending", "decision": "approve"}, A.ACTION_APPROVAL_FORBIDDEN, {"actor": "carol"}),
    Case("decide_action", "no step-up", {"actionId": "a-risky", "decision": "approve"}, A.ACTION_STEP_UP_UNAVAILABLE, {"step_up_available": False}),
    Case("decide_action", "reject risky without step-up", {"actionId": "a-risky", "decision": "reject"}, None, {"step_up_available": False}),
    Case("decide_action", "approve", {"actionId": "a-pending", "decision": "approve", "expectedVersion": 1}, None),
    *_load_cases("execute_action", {"planHash": "h1"}, A.ACTION_QUEUE_QUERY_FAILED),
    Case("execute_action", "no plan hash", {"actionId": "a-approved"}, A.INVALID_ACTION_EXECUTION),
    Case("execute_action", "dryRun not bool", _run("a-approved", dryRun="yes"), A.INVALID_ACTION_EXECUTION),
    Case("execute_action", "emergency stop", _run("a-approved"), A.ACTION_EMERGENCY_STOP, {"emergency_stop": True}),
    Case("execute_action", "mock mode", _run("a-approved"), A.MOCK_MODE_ENABLED, {"mock_mode": True}),
    Case("execute_action", "execution disabled", _run("a-approved"), A.ACTION_EXECUTION_UNAVAILABLE, {"execution_enabled": False}),
    Case("execute_action", "no executor", _run("a-approved"), A.ACTION_EXECUTION_UNAVAILABLE, {"executor": None}),
    Case("execute_action", "no actor", _run("a-approved"), A.ACTION_ACTOR_UNAVAILABLE, {"actor": None}),
    Case("execute_action", "stranger", _run("a-approved"), A.ACTION_EXECUTION_FORBIDDEN, {"actor": "carol"}),
    Case("execute_action", "running", _run("a-executing"), A.ACTION_ALREADY_EXECUTING),
    Case("execute_action", "completed", _run("a-completed"), A.ACTION_EXECUTION_FINAL),
    Case("execute_action", "rejected", _run("a-rejected"), A.ACTION_EXECUTION_FINAL),
    Case("execute_action", "pending", _run("a-pending"), A.ACTION_NOT_APPROVED, {"actor": "alice"}),
    Case("execute_action", "approved plan expired", _run("a-approved-stale"), A.ACTION_REPLAN_REQUIRED),
    Case("execute_action", "other plan", _run("a-approved", planHash="h2"), A.ACTION_PLAN_IDENTITY_MISMATCH),
    Case("execute_action", "resource changed", _run("a-drift"), A.ACTION_PLAN_DRIFT),
    Case("execute_action", "locked", _run("a-locked"), A.RESOURCE_REMEDIATION_LOCKED),
    Case("execute_action", "dry-run only", _run("a-snapshot"), A.ACTION_DRY_RUN_ONLY),
    Case("execute_action", "dry-run of dry-run only", _run("a-snapshot", dryRun=True), None),
    Case("execute_action", "agent not ready", _run("a-unready"), A.ACTION_EXECUTOR_UNAVAILABLE),
    Case("execute_action", "probe says busy", _run("a-approved"), A.ACTION_EXECUTOR_UNAVAILABLE, {"availability_probe": lambda agent: False}),
    Case("execute_action", "probe fails", _run("a-approved"), A.ACTION_EXECUTION_AVAILABILITY_FAILED, {"availability_probe": _broken_probe}),
    Case("execute_action", "probe says ready", _run("a-approved"), None, {"availability_probe": lambda agent: agent == "node-a"}),
    Case("execute_action", "run", _run("a-approved"), None),
    Case("execute_action", "run fails", _run("a-boom"), None),
    *_load_cases("finish_action", {"succeeded": True}, A.ACTION_QUEUE_QUERY_FAILED),
    Case("finish_action", "no outcome", {"actionId": "a-executing"}, A.INVALID_ACTION_EXECUTION),
    Case("finish_action", "not running", {"actionId": "a-approved", "succeeded": True}, A.ACTION_NOT_EXECUTING),
    Case("finish_action", "finish", {"actionId": "a-executing", "succeeded": False}, None),
    *_load_cases("refresh_action", {}, A.ACTION_QUEUE_QUERY_FAILED),
    Case("refresh_action", "approved", {"actionId": "a-approved"}, A.ACTION_REFRESH_NOT_ALLOWED),
    Case("refresh_action", "executing", {"actionId": "a-executing"}, A.ACTION_REFRESH_NOT_ALLOWED),
    Case("refresh_action", "completed", {"actionId": "a-completed"}, A.ACTION_REFRESH_NOT_ALLOWED),
    Case("refresh_action", "current pending", {"actionId": "a-pending"}, A.ACTION_REFRESH_NOT_ALLOWED),
    Case("refresh_action", "expired pending", {"actionId": "a-expired"}, None),
    Case("refresh_action", "expired approved", {"actionId": "a-approved-stale"}, None),
    Case("refresh_action", "drifted", {"actionId": "a-drift"}, None),
    Case("list_actions", "zero", {"limit": 0}, A.INVALID_ACTION_LIST_LIMIT),
    Case("list_actions", "too many", {"limit": 201}, A.INVALID_ACTION_LIST_LIMIT),
    Case("list_actions", "string limit", {"limit": "5"}, A.INVALID_ACTION_LIST_LIMIT),
    Case("list_actions", "bool limit", {"limit": True}, A.INVALID_ACTION_LIST_LIMIT),
    Case("list_actions", "bad view", {"view": "everything"}, A.INVALID_ACTION_LIST_VIEW),
    Case("list_actions", "no queue", {}, A.ACTION_QUEUE_UNAVAILABLE, {"actions": None}),
    Case("list_actions", "store fails", {}, A.ACTION_LIST_FAILED, {"actions": BrokenStore()}),
    Case("list_actions", "unencodable", {"view": "full"}, A.ACTION_LIST_ENCODE_FAILED, {"actions": _bad_metadata_store()}),
    Case("list_actions", "summary skips metadata", {"view": "summary"}, None, {"actions": _bad_metadata_store()}),
    Case("list_actions", "full", {"limit": 200, "view": "full"}, None),
    *_load_cases("get_action_detail", {}, A.ACTION_DETAIL_FAILED),
    Case("get_action_detail", "unencodable", {"actionId": "a-odd"}, A.ACTION_DETAIL_ENCODE_FAILED, {"actions": _bad_metadata_store()}),
    Case("get_action_detail", "found", {"actionId": "a-approved"}, None),
    Case("get_action_queue", "no queue", {}, A.ACTION_QUEUE_UNAVAILABLE, {"actions": None}),
    Case("get_action_queue", "store fails", {}, A.ACTION_QUEUE_QUERY_FAILED, {"actions": BrokenStore()}),
    Case("get_action_queue", "unencodable", {}, A.ACTION_QUEUE_ENCODE_FAILED, {"actions": _bad_metadata_store()}),
    Case("get_action_queue", "pending", {}, None),
    Case("run_raw_command", "always", {"command": "rm -rf /"}, A.RAW_COMMAND_RETIRED),
    Case("tool_resolve", "no id", {}, T.INVALID_INPUT),
    Case("tool_resolve", "unknown", {"resource_id": "vm/999"}, T.NOT_FOUND),
    Case("tool_resolve", "found", {"resource_id": "vm/101"}, None),
    Case("tool_read", "no id", {"path": "/etc/hosts"}, T.INVALID_INPUT),
    Case("tool_read", "no path", {"resource_id": "vm/101"}, T.INVALID_INPUT, {"resolved": {"vm/101"}}),
    Case("tool_read", "unknown", {"resource_id": "vm/999", "path": "/p"}, T.NOT_FOUND),
    Case("tool_read", "unresolved", {"resource_id": "vm/101", "path": "/p"}, T.STRICT_RESOLUTION),
    Case("tool_read", "no agent", {"resource_id": "vm/102", "path": "/p"}, T.NO_AGENT, {"resolved": {"vm/102"}}),
    Case("tool_read", "wrong node", {"resource_id": "vm/101", "path": "/p", "node": "node-z"}, T.ROUTING_MISMATCH, {"resolved": {"vm/101"}}),
    Case("tool_read", "no context", {"resource_id": "vm/101", "path": "/p"}, T.EXECUTION_CONTEXT_UNAVAILABLE, {"resolved": {"vm/101"}, "executor": None}),
    Case("tool_read", "agent fails", {"resource_id": "vm/101", "path": "/broken"}, T.EXECUTION_FAILED, {"resolved": {"vm/101"}}),
    Case("tool_read", "read", {"resource_id": "vm/101", "path": "/p", "node": "node-a"}, None, {"resolved": {"vm/101"}}),
    Case("tool_control", "nothing resolved", {"resource_id": "vm/101", "action": "restart"}, T.FSM_BLOCKED),
    Case("tool_control", "unverified write", {"resource_id": "vm/101", "action": "restart"}, T.FSM_BLOCKED, {"resolved": {"vm/101"}, "awaiting_verification": True}),
    Case("tool_control", "no action", {"resource_id": "vm/101"}, T.INVALID_INPUT, {"resolved": {"vm/101"}}),
    Case("tool_control", "unknown", {"resource_id": "vm/999", "action": "restart"}, T.NOT_FOUND, {"resolved": {"vm/101"}}),
    Case("tool_control", "other target", {"resource_id": "vm/104", "action": "restart"}, T.STRICT_RESOLUTION, {"resolved": {"vm/101"}}),
    Case("tool_control", "no agent", {"resource_id": "vm/102", "action": "restart"}, T.NO_AGENT, {"resolved": {"vm/102"}}),
    Case("tool_control", "wrong node", {"resource_id": "vm/101", "action": "restart", "node": "node-b"}, T.ROUTING_MISMATCH, {"resolved": {"vm/101"}}),
    Case("tool_control", "no context", {"resource_id": "vm/101", "action": "restart"}, T.EXECUTION_CONTEXT_UNAVAILABLE, {"resolved": {"vm/101"}, "executor": None}),
    Case("tool_control", "not allowed", {"resource_id": "vm/101", "action": "delete"}, T.ACTION_NOT_ALLOWED, {"resolved": {"vm/101"}}),
    Case("tool_control", "policy", {"resource_id": "vm/103", "action": "restart"}, T.POLICY_BLOCKED, {"resolved": {"vm/103"}}),
    Case("tool_control", "needs approval", {"resource_id": "vm/101", "action": "restart"}, T.APPROVAL_REQUIRED, {"resolved": {"vm/101"}, "autonomy": "approval"}),
    Case("tool_control", "approved", {"resource_id": "vm/101", "action": "restart", "approved": True}, None, {"resolved": {"vm/101"}, "autonomy": "approval"}),
    Case("tool_control", "agent fails", {"resource_id": "vm/101", "action": "restart", "fail": True}, T.EXECUTION_FAILED, {"resolved": {"vm/101"}}),
    Case("tool_control", "write", {"resource_id": "vm/101", "action": "restart"}, None, {"resolved": {"vm/101"}}),
]


def _outcome(case: Case) -> object:
    result = HANDLERS[case.handler](make_surface(**case.overrides), case.request)
    return result.error if isinstance(result, ErrorEnvelope) else None


@pytest.mark.parametrize("case", CASES, ids=[f"{c.handler}-{c.label}" for c in CASES])
def test_scenario(case):
    surface = make_surface(**case.overrides)
    result = HANDLERS[case.handler](surface, case.request)
    if case.expect is None:
        assert isinstance(result, dict), result
        return
    assert isinstance(result, ErrorEnvelope)
    assert result.error == case.expect
    assert result.error in HANDLERS[case.handler].EMITS  # what it actually emitted, it declared
    assert result.message
    assert decode_error_envelope(result.to_json()) == result


def test_every_handler_has_scenarios():
    assert {case.handler for case in CASES} == set(HANDLERS)


@pytest.mark.parametrize("name", sorted(HANDLERS))
def test_declared_codes_are_exactly_the_codes_observed(name):
    observed = {_outcome(case) for case in CASES if case.handler == name} - {None}
    assert observed == set(HANDLERS[name].EMITS)


@pytest.mark.parametrize("name", sorted(HANDLERS))
def test_declared_codes_are_exactly_the_codes_in_the_source(name):
    assert referenced_codes(HANDLERS[name]) == HANDLERS[name].EMITS


def test_every_emitted_code_is_in_the_manifest():
    observed = {_outcome(case) for case in CASES} - {None}
    assert observed <= MANIFEST.error_codes


def test_every_manifest_code_is_emitted_by_some_handler():
    observed = {_outcome(case) for case in CASES} - {None}
    assert MANIFEST.error_codes <= observed


def test_manifest_declares_the_whole_vocabulary():
    assert MANIFEST.error_codes == frozenset(AgentErrorCode) | frozenset(ToolErrorCode)
    assert len(MANIFEST.error_codes) == 47 + 11


def test_shipped_manifest_and_handlers_agree():
    assert check_manifest(MANIFEST, HANDLERS) == []
    assert check_manifest(MANIFEST, list(HANDLERS.values())) == []


def test_manifest_advertises_sorted_code_values():
    advertised = MANIFEST.to_dict()
    assert advertised["errorCodes"] == sorted(code.value for code in MANIFEST.error_codes)
    assert advertised["capabilities"] == list(HANDLERS)


# --- the checker can fail ---------------------------------------------------------


def test_checker_reports_a_code_missing_from_the_manifest():
    shrunk = CapabilityManifest("shrunk", MANIFEST.error_codes - {A.ACTION_PLAN_DRIFT})
    problems = check_manifest(shrunk, HANDLERS)
    assert problems == ["handler execute_action emits action_plan_drift, which the manifest does not declare"]


def test_checker_reports_a_code_shared_by_several_handlers_for_each():
    shrunk = CapabilityManifest("shrunk", MANIFEST.error_codes - {A.MISSING_ID})
    problems = check_manifest(shrunk, HANDLERS)
    users = sorted(name for name, fn in HANDLERS.items() if A.MISSING_ID in fn.EMITS)
    assert len(users) >= 5
    assert problems == [f"handler {name} emits missing_id, which the manifest does not declare" for name in users]


def test_checker_reports_a_manifest_code_no_handler_emits():
    without_raw = {name: fn for name, fn in HANDLERS.items() if name != "run_raw_command"}
    assert check_manifest(MANIFEST, without_raw) == ["manifest declares raw_command_retired, which no handler emits"]


def _helper_that_fails() -> ErrorEnvelope:
    return ErrorEnvelope(AgentErrorCode.PATROL_UNAVAILABLE, "down")


@emits(AgentErrorCode.FINDING_NOT_FOUND)
def sneaky_handler(s: Surface, req: dict) -> object:
    if req.get("down"):
        return _helper_that_fails()
    return ErrorEnvelope(AgentErrorCode.FINDING_NOT_FOUND, "gone")


@emits(ToolErrorCode.NOT_FOUND)
def honest_handler(s: Surface, req: dict) -> object:
    return ErrorEnvelope(ToolErrorCode.NOT_FOUND, "gone")


def undeclared_handler(s: Surface, req: dict) -> object:
    return {}


def test_static_reading_follows_helpers_but_not_the_decorator():
    assert referenced_codes(sneaky_handler) == {A.PATROL_UNAVAILABLE, A.FINDING_NOT_FOUND}
    assert referenced_codes(honest_handler) == {T.NOT_FOUND}


def test_checker_reports_a_code_a_handler_can_emit_but_does_not_declare():
    manifest = CapabilityManifest("m", frozenset({A.FINDING_NOT_FOUND, A.PATROL_UNAVAILABLE}))
    problems = check_manifest(manifest, [sneaky_handler])
    assert problems == [
        "handler sneaky_handler can emit patrol_unavailable but its EMITS omits it",
        "manifest declares patrol_unavailable, which no handler emits",
    ]
    assert sneaky_handler(Surface(), {"down": True}).error not in sneaky_handler.EMITS


def test_checker_reports_a_handler_without_emits():
    manifest = CapabilityManifest("m", frozenset({T.NOT_FOUND}))
    assert check_manifest(manifest, [honest_handler, undeclared_handler]) == [
        "handler undeclared_handler declares no EMITS"
    ]


def test_checker_passes_a_small_consistent_pair():
    assert check_manifest(CapabilityManifest("m", frozenset({T.NOT_FOUND})), [honest_handler]) == []


# --- handlers really change state ---------------------------------------------------


def test_plan_decide_execute_flow():
    s = make_surface(actor="alice")
    planned = HANDLERS["plan_action"](s, {"resourceId": "vm/101", "capability": "restart", "requestId": "r-1"})
    assert isinstance(planned, dict)
    s.actor = "bob"
    assert HANDLERS["decide_action"](s, {"actionId": "r-1", "decision": "approve"}) == {"actionId": "r-1", "status": "approved"}
    again = HANDLERS["decide_action"](s, {"actionId": "r-1", "decision": "approve"})
    assert isinstance(again, ErrorEnvelope) and again.error == A.ACTION_NOT_PENDING
    done = HANDLERS["execute_action"](s, {"actionId": "r-1", "planHash": planned["planHash"]})
    assert done == {"actionId": "r-1", "status": "completed", "output": "restart ok on node-a"}
    final = HANDLERS["execute_action"](s, {"actionId": "r-1", "planHash": planned["planHash"]})
    assert isinstance(final, ErrorEnvelope) and final.error == A.ACTION_EXECUTION_FINAL


def test_refresh_rebases_a_drifted_plan_and_sends_it_back_for_review():
    # upstream refreshes "only expired or drifted action plans", and the replacement must be decided again
    s = make_surface()
    renewed = HANDLERS["refresh_action"](s, {"actionId": "a-drift"})
    action = s.actions.get("a-drift")
    assert renewed == {"actionId": "a-drift", "expiresAt": (NOW + timedelta(minutes=15)).isoformat()}
    assert (action.resource_version, action.status, action.decided_by) == (1, "pending", None)
    refused = HANDLERS["refresh_action"](s, {"actionId": "a-drift"})
    assert isinstance(refused, ErrorEnvelope) and refused.error == A.ACTION_REFRESH_NOT_ALLOWED
    assert refused.message == "Only expired or drifted action plans can be refreshed"


def test_refresh_renews_a_pending_lease_and_bumps_the_version():
    s = make_surface()
    renewed = HANDLERS["refresh_action"](s, {"actionId": "a-expired"})
    action = s.actions.get("a-expired")
    assert renewed == {"actionId": "a-expired", "expiresAt": (NOW + timedelta(minutes=15)).isoformat()}
    assert action.version == 2 and action.status == "pending"


def test_an_availability_probe_that_fails_leaves_the_action_approved():
    s = make_surface(availability_probe=_broken_probe)
    result = HANDLERS["execute_action"](s, _run("a-approved"))
    assert isinstance(result, ErrorEnvelope) and result.error == A.ACTION_EXECUTION_AVAILABILITY_FAILED
    assert "node-a did not answer" in result.message
    assert s.actions.get("a-approved").status == "approved"


def test_failed_execution_marks_the_action_failed():
    s = make_surface()
    result = HANDLERS["execute_action"](s, _run("a-boom"))
    assert result["status"] == "failed"
    assert s.actions.get("a-boom").status == "failed"


def test_operator_state_write_locks_remediation():
    s = make_surface()
    assert HANDLERS["operator_state"](s, {"resourceId": "vm/101", "state": {"neverAutoRemediate": True}}) == {"neverAutoRemediate": True}
    blocked = HANDLERS["plan_action"](s, {"resourceId": "vm/101", "capability": "restart", "requestId": "r"})
    assert isinstance(blocked, ErrorEnvelope) and blocked.error == A.RESOURCE_REMEDIATION_LOCKED


def test_tool_session_resolve_write_verify_write():
    s = make_surface()
    control = HANDLERS["tool_control"]
    args = {"resource_id": "vm/101", "action": "restart"}
    assert control(s, args).error == T.FSM_BLOCKED
    assert HANDLERS["tool_resolve"](s, {"resource_id": "vm/101"})["agent"] == "node-a"
    assert "output" in control(s, args)
    assert control(s, args).error == T.FSM_BLOCKED  # second write before verification
    assert HANDLERS["tool_read"](s, {"resource_id": "vm/101", "path": "/status"}) == {"output": "read ok on node-a"}
    assert "output" in control(s, args)


def test_list_respects_limit_and_view():
    s = make_surface()
    summary = HANDLERS["list_actions"](s, {"limit": 2})
    assert summary["count"] == 2 and set(summary["items"][0]) == {"id", "status", "capability"}
    full = HANDLERS["list_actions"](s, {"view": "full"})
    assert full["count"] == len(s.actions.all()) and "metadata" in full["items"][0]
    queue = HANDLERS["get_action_queue"](s, {})
    assert {item["id"] for item in queue["items"]} == {"a-pending", "a-expired", "a-risky"}


def test_checker_reports_a_handler_whose_source_it_cannot_read():
    namespace: dict[str, Any] = {}
    exec("def generated(s, req):\n    return {}\n", namespace)  # no source file behind it
    handler = emits(T.NOT_FOUND)(namespace["generated"])
    problems = check_manifest(CapabilityManifest("m", frozenset({T.NOT_FOUND})), [handler])
    assert problems == ["handler generated: source unreadable, cannot tell what it emits"]
