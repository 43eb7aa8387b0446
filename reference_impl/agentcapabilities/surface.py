"""What the agent-surface handlers act on, and the chat-tool session handlers.

``Surface`` holds the state one scenario runs against; ``emits`` is how a
handler declares the codes it may return (read back as ``handler.EMITS``).
The chat tools (``tool_resolve``, ``tool_read``, ``tool_control``) keep the
tool session on the surface: act only on resolved targets, and read a write
back before the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from reference_impl.agentcapabilities.errors import AgentErrorCode as A
from reference_impl.agentcapabilities.errors import ErrorEnvelope
from reference_impl.agentcapabilities.tool_response import ToolErrorCode as T

ErrorCode = A | T
Result = ErrorEnvelope | dict
Handler = Callable[["Surface", Mapping[str, Any]], Result]


class StoreError(Exception):
    """The action store could not answer."""


class ExecutionError(Exception):
    """An agent could not carry out an operation."""


@dataclass
class Resource:
    id: str
    agent: str | None = None  # the connected agent that runs operations here
    capabilities: frozenset[str] = frozenset()
    dry_run_only: frozenset[str] = frozenset()
    operator_state: dict[str, object] | None = None
    never_auto_remediate: bool = False
    version: int = 1
    agent_ready: bool = True


@dataclass
class Action:
    id: str
    resource_id: str
    capability: str
    requested_by: str
    expires_at: datetime
    plan_hash: str
    resource_version: int = 1
    status: str = "pending"  # pending, approved, rejected, executing, completed, failed
    version: int = 1
    high_risk: bool = False
    decided_by: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)


class ActionStore:
    def __init__(self, actions: Iterable[Action] = ()) -> None:
        self._actions = {action.id: action for action in actions}

    def get(self, action_id: str) -> Action | None:
        return self._actions.get(action_id)

    def all(self) -> list[Action]:
        return list(self._actions.values())

    def add(self, action: Action) -> None:
        self._actions[action.id] = action


@dataclass
class Surface:
    """What the handlers act on; tests build one per scenario."""

    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    resources: dict[str, Resource] = field(default_factory=dict)
    # finding id -> active | acknowledged | dismissed | resolved
    findings: dict[str, str] = field(default_factory=dict)
    actions: ActionStore | None = field(default_factory=ActionStore)
    actor: str | None = None
    approvers: frozenset[str] = frozenset()
    executor: Callable[[str, str, Mapping[str, Any]], object] | None = None
    patrol_available: bool = True
    execution_enabled: bool = True
    mock_mode: bool = False
    emergency_stop: bool = False
    step_up_available: bool = True
    autonomy: str = "full"
    # asks whether an agent can run actions now; raising ExecutionError means the check itself failed
    availability_probe: Callable[[str], bool] | None = None
    resolved: set[str] = field(default_factory=set)  # tool session: targets resolved so far
    awaiting_verification: bool = False  # tool session: a write not yet read back


def emits(*codes: ErrorCode) -> Callable[[Handler], Handler]:
    """Declare the codes a handler may return; stored as ``EMITS``."""

    def mark(fn: Handler) -> Handler:
        fn.EMITS = frozenset(codes)  # type: ignore[attr-defined]  # a function attribute read by the manifest check
        return fn

    return mark


def fail(code: ErrorCode, message: str, **details: str) -> ErrorEnvelope:
    """An error result; ``details`` become the envelope's details when given."""
    return ErrorEnvelope(code, message, details or None)


# --- chat tool handlers --------------------------------------------------------


def _tool_target(s: Surface, args: Mapping[str, Any]) -> Resource | ErrorEnvelope:
    rid = args.get("resource_id")
    if not isinstance(rid, str) or not rid:
        return fail(T.INVALID_INPUT, "resource_id is required")
    resource = s.resources.get(rid)
    if resource is None:
        return fail(T.NOT_FOUND, f"no resource {rid}")
    if rid not in s.resolved:
        return fail(T.STRICT_RESOLUTION, f"resolve {rid} before acting on it")
    if resource.agent is None:
        return fail(T.NO_AGENT, f"no agent is connected for {rid}")
    node = args.get("node")
    if node is not None and node != resource.agent:
        return fail(T.ROUTING_MISMATCH, f"{rid} is served by {resource.agent}, not {node}")
    if s.executor is None:
        return fail(T.EXECUTION_CONTEXT_UNAVAILABLE, "no execution context for tools")
    return resource


def _run(s: Surface, agent: str, operation: str, args: Mapping[str, Any]) -> object | ErrorEnvelope:
    executor = s.executor
    if executor is None:  # pragma: no cover - _tool_target refuses a surface without an executor first
        return fail(T.EXECUTION_CONTEXT_UNAVAILABLE, "no execution context for tools")
    try:
        return executor(agent, operation, args)
    except ExecutionError as exc:
        return fail(T.EXECUTION_FAILED, f"{operation} failed on {agent}: {exc}")


@emits(T.INVALID_INPUT, T.NOT_FOUND)
def tool_resolve(s: Surface, args: Mapping[str, Any]) -> Result:
    """Look a resource up; a found resource becomes a resolved target."""
    rid = args.get("resource_id")
    if not isinstance(rid, str) or not rid:
        return fail(T.INVALID_INPUT, "resource_id is required")
    if rid not in s.resources:
        return fail(T.NOT_FOUND, f"no resource {rid}")
    s.resolved.add(rid)
    return {"resource_id": rid, "agent": s.resources[rid].agent}


@emits(
    T.INVALID_INPUT, T.NOT_FOUND, T.STRICT_RESOLUTION, T.NO_AGENT, T.ROUTING_MISMATCH,
    T.EXECUTION_CONTEXT_UNAVAILABLE, T.EXECUTION_FAILED,
)
def tool_read(s: Surface, args: Mapping[str, Any]) -> Result:
    """Read from a resolved resource; a read after a write verifies it."""
    target = _tool_target(s, args)
    if isinstance(target, ErrorEnvelope):
        return target
    if not isinstance(args.get("path"), str) or not args["path"]:
        return fail(T.INVALID_INPUT, "path is required")
    output = _run(s, target.agent or "", "read", {"path": args["path"]})
    if isinstance(output, ErrorEnvelope):
        return output
    s.awaiting_verification = False
    return {"output": output}


@emits(*T)
def tool_control(s: Surface, args: Mapping[str, Any]) -> Result:
    """Run a control action on a resolved resource, behind every gate."""
    if not s.resolved or s.awaiting_verification:
        return fail(T.FSM_BLOCKED, "resolve a target first, and read back the last write before the next")
    action = args.get("action")
    if not isinstance(action, str) or not action:
        return fail(T.INVALID_INPUT, "action is required")
    target = _tool_target(s, args)
    if isinstance(target, ErrorEnvelope):
        return target
    if action not in target.capabilities:
        return fail(T.ACTION_NOT_ALLOWED, f"{action} is not allowed on {target.id}")
    if target.never_auto_remediate:
        return fail(T.POLICY_BLOCKED, f"policy forbids changes to {target.id}")
    if s.autonomy != "full" and args.get("approved") is not True:
        return fail(T.APPROVAL_REQUIRED, f"{action} on {target.id} needs approval", action=action)
    output = _run(s, target.agent or "", action, args)
    if isinstance(output, ErrorEnvelope):
        return output
    s.awaiting_verification = True
    return {"output": output, "verify": f"read {target.id} back before another write"}
