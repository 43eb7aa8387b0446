"""Tool names, the invocation registry, and the classifier the gate relies on.

``classify_tool_call(name, args)`` follows upstream's ``ClassifyToolCall``
(``internal/agentcapabilities/tool_call.go``) and its registry of invocation
descriptors (``invocation.go``). The name is trimmed of Go white space first.

1. A tool in ``TOOL_REGISTRY`` is classified by its descriptor and by nothing
   else. A static descriptor gives one kind for every call. A discriminated
   one reads one argument (``action``, or ``type`` for ``pulse_kubernetes``),
   trims and lower-cases it, and looks it up in its cases; a missing value, a
   value that is not a string, or one it does not list is a write.
2. A name in ``NON_REGISTRY_TOOLS`` (the chat-native question, the adapter
   names and the legacy aliases) has one kind.
3. Any other tool is judged by its ``action`` and ``operation`` arguments,
   lower-cased but not trimmed: a write verb in either makes it a write, then
   a read verb a read.
4. Everything else is a write, so an unknown tool or subaction cannot slip
   past the gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from reference_impl.fsm import ToolKind
from reference_impl.gostrings import to_lower, trim_space

__all__ = [
    "FINDING_LIFECYCLE_TOOLS",
    "NON_REGISTRY_TOOLS",
    "READ_VERBS",
    "STATE_ONLY_WRITE_TOOLS",
    "TOOL_REGISTRY",
    "WRITE_VERBS",
    "InvocationDescriptor",
    "classify_tool_call",
    "is_finding_lifecycle_write",
    "is_state_only_write",
]

# Registry tools.
PULSE_QUERY = "pulse_query"
PULSE_DISCOVERY = "pulse_discovery"
PULSE_METRICS = "pulse_metrics"
PULSE_STORAGE = "pulse_storage"
PULSE_DOCKER = "pulse_docker"
PULSE_KUBERNETES = "pulse_kubernetes"
PULSE_ALERTS = "pulse_alerts"
PULSE_READ = "pulse_read"
PULSE_CONTROL = "pulse_control"
PULSE_FILE_EDIT = "pulse_file_edit"
PULSE_KNOWLEDGE = "pulse_knowledge"
PULSE_PMG = "pulse_pmg"
PULSE_SUMMARIZE = "pulse_summarize"

# Patrol tools, also in the registry.
PATROL_GET_FINDINGS = "patrol_get_findings"
PATROL_ASSESS_FINDING = "patrol_assess_finding"
PATROL_REPORT_FINDING = "patrol_report_finding"
PATROL_RESOLVE_FINDING = "patrol_resolve_finding"
PATROL_PROPOSE_ACTION = "patrol_propose_action"
PATROL_PROPOSE_OBSERVER = "patrol_propose_observer"

# Chat-native: asks the user.
PULSE_QUESTION = "pulse_question"

# Adapter names outside the registry.
PULSE_RUN_COMMAND = "pulse_run_command"
PULSE_CONTROL_GUEST = "pulse_control_guest"
PULSE_CONTROL_DOCKER = "pulse_control_docker"
PULSE_SEARCH_RESOURCES = "pulse_search_resources"
PULSE_GET_RESOURCE = "pulse_get_resource"
PULSE_GET_TOPOLOGY = "pulse_get_topology"
PULSE_LIST_INFRASTRUCTURE = "pulse_list_infrastructure"
PULSE_GET_CONNECTION_HEALTH = "pulse_get_connection_health"
PULSE_GET_DOCKER_LOGS = "pulse_get_docker_logs"
PULSE_GET_PERFORMANCE_METRICS = "pulse_get_performance_metrics"
PULSE_GET_TEMPERATURES = "pulse_get_temperatures"
PULSE_GET_BASELINES = "pulse_get_baselines"
PULSE_GET_PATTERNS = "pulse_get_patterns"

# Legacy assistant aliases.
RUN_COMMAND = "run_command"
FETCH_URL = "fetch_url"
SET_RESOURCE_URL = "set_resource_url"


@dataclass(frozen=True)
class InvocationDescriptor:
    """How one registry tool is classified: a static kind, or cases of one argument."""

    static: ToolKind | None = None
    discriminator: str = ""
    cases: Mapping[str, ToolKind] = field(default_factory=lambda: MappingProxyType({}))

    def classify(self, args: Mapping[str, object] | None) -> ToolKind:
        if self.static is not None:
            return self.static
        value = (args or {}).get(self.discriminator) if self.discriminator else None
        if not isinstance(value, str):
            return ToolKind.WRITE
        return self.cases.get(to_lower(trim_space(value)), ToolKind.WRITE)


def _static(kind: ToolKind) -> InvocationDescriptor:
    return InvocationDescriptor(static=kind)


def _by(discriminator: str, **cases: ToolKind) -> InvocationDescriptor:
    return InvocationDescriptor(discriminator=discriminator, cases=MappingProxyType(cases))


_R, _W, _RESOLVE = ToolKind.READ, ToolKind.WRITE, ToolKind.RESOLVE

TOOL_REGISTRY: dict[str, InvocationDescriptor] = {
    PULSE_QUERY: _static(_RESOLVE),
    PULSE_METRICS: _static(_R),
    PULSE_STORAGE: _static(_R),
    PULSE_PMG: _static(_R),
    PULSE_SUMMARIZE: _static(_R),
    PULSE_READ: _static(_R),
    PULSE_CONTROL: _static(_W),
    PULSE_FILE_EDIT: _static(_W),
    PULSE_DISCOVERY: _by("action", get=_RESOLVE, list=_RESOLVE, run=_RESOLVE),
    PULSE_ALERTS: _by("action", list=_R, findings=_R, resolved=_R, resolve=_W, dismiss=_W),
    PULSE_KUBERNETES: _by("type", clusters=_R, nodes=_R, pods=_R, deployments=_R, logs=_R),
    PULSE_DOCKER: _by("action", updates=_R, services=_R, tasks=_R, swarm=_R, check_updates=_R),
    PULSE_KNOWLEDGE: _by("action", recall=_R, incidents=_R, correlate=_R, remember=_W),
    PATROL_GET_FINDINGS: _static(_R),
    PATROL_ASSESS_FINDING: _static(_W),
    PATROL_PROPOSE_ACTION: _static(_W),
    PATROL_REPORT_FINDING: _static(_W),
    PATROL_RESOLVE_FINDING: _static(_W),
    PATROL_PROPOSE_OBSERVER: _static(_W),
}

NON_REGISTRY_TOOLS: dict[str, ToolKind] = {
    PULSE_QUESTION: ToolKind.USER_INPUT,
    FETCH_URL: _R,
    PULSE_RUN_COMMAND: _W,
    PULSE_CONTROL_GUEST: _W,
    PULSE_CONTROL_DOCKER: _W,
    RUN_COMMAND: _W,
    SET_RESOURCE_URL: _W,
    PULSE_SEARCH_RESOURCES: _RESOLVE,
    PULSE_GET_RESOURCE: _RESOLVE,
    PULSE_GET_TOPOLOGY: _RESOLVE,
    PULSE_LIST_INFRASTRUCTURE: _RESOLVE,
    PULSE_GET_CONNECTION_HEALTH: _RESOLVE,
    PULSE_GET_DOCKER_LOGS: _R,
    PULSE_GET_PERFORMANCE_METRICS: _R,
    PULSE_GET_TEMPERATURES: _R,
    PULSE_GET_BASELINES: _R,
    PULSE_GET_PATTERNS: _R,
}

# Accepted finding-lifecycle writes: upstream applies them without moving the
# infrastructure workflow, and never runs them beside patrol_get_findings.
FINDING_LIFECYCLE_TOOLS = frozenset({PATROL_REPORT_FINDING, PATROL_ASSESS_FINDING, PATROL_RESOLVE_FINDING})

# Writes that change only Patrol's own state: the lifecycle writes and the
# observer proposal.
STATE_ONLY_WRITE_TOOLS = FINDING_LIFECYCLE_TOOLS | {PATROL_PROPOSE_OBSERVER}

WRITE_VERBS = frozenset(
    {
        "start",
        "stop",
        "restart",
        "delete",
        "shutdown",
        "reboot",
        "write",
        "append",
        "update",
        "trigger",
        "resolve",
        "dismiss",
        "control",
    }
)

READ_VERBS = frozenset(
    {
        "get",
        "list",
        "search",
        "query",
        "read",
        "logs",
        "status",
        "health",
        "describe",
        "inspect",
        "show",
    }
)

_VERB_KEYS = ("action", "operation")


def _verbs(args: Mapping[str, object] | None) -> list[str]:
    """The lower-cased, untrimmed string values of the action/operation arguments."""
    if not args:
        return []
    return [to_lower(v) for key in _VERB_KEYS if isinstance(v := args.get(key), str)]


def classify_tool_call(name: str, args: Mapping[str, object] | None = None) -> ToolKind:
    """The ToolKind of calling ``name`` with ``args`` (see the module docstring)."""
    name = trim_space(name)
    descriptor = TOOL_REGISTRY.get(name)
    if descriptor is not None:
        return descriptor.classify(args)
    kind = NON_REGISTRY_TOOLS.get(name)
    if kind is not None:
        return kind
    verbs = _verbs(args)
    if any(v in WRITE_VERBS for v in verbs):
        return ToolKind.WRITE
    if any(v in READ_VERBS for v in verbs):
        return ToolKind.READ
    return ToolKind.WRITE


def is_finding_lifecycle_write(name: str) -> bool:
    """Whether ``name`` is patrol_report_finding, patrol_assess_finding or patrol_resolve_finding."""
    return trim_space(name) in FINDING_LIFECYCLE_TOOLS


def is_state_only_write(name: str) -> bool:
    """Whether ``name`` writes only Patrol state: a lifecycle write or patrol_propose_observer."""
    return trim_space(name) in STATE_ONLY_WRITE_TOOLS
