"""Tool names, the registry of statically classified tools, and the classifier.

``classify_tool_call`` decides the ToolKind the state machine gates on:

1. a tool in ``TOOL_REGISTRY`` has one kind for every invocation;
2. ``pulse_question`` is user input;
3. otherwise the ``action`` or ``operation`` argument decides: a write verb
   (``WRITE_VERBS``) makes it a write, a read verb (``READ_VERBS``) a read;
4. anything else, including a tool nobody has classified, is a write, so a
   new tool cannot slip past the gate.

Tools whose subaction decides between read and write (``pulse_control``,
``pulse_docker``, ``pulse_file_edit``, ``pulse_alerts``) are deliberately kept
out of the registry and go through the verb rule.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.fsm import ToolKind

__all__ = [
    "FINDING_LIFECYCLE_TOOLS",
    "READ_VERBS",
    "TOOL_REGISTRY",
    "WRITE_VERBS",
    "classify_tool_call",
    "is_finding_lifecycle_write",
]

# Query and discovery: establish a target.
PULSE_QUERY = "pulse_query"
PULSE_DISCOVERY = "pulse_discovery"

# Read-only inspection.
PULSE_READ = "pulse_read"
PULSE_METRICS = "pulse_metrics"
PULSE_STORAGE = "pulse_storage"

# Subaction-dependent tools: classified by their action/operation verb.
PULSE_ALERTS = "pulse_alerts"
PULSE_CONTROL = "pulse_control"
PULSE_DOCKER = "pulse_docker"
PULSE_FILE_EDIT = "pulse_file_edit"

# Chat-native: asks the user.
PULSE_QUESTION = "pulse_question"

# Patrol findings.
PATROL_GET_FINDINGS = "patrol_get_findings"
PATROL_REPORT_FINDING = "patrol_report_finding"
PATROL_ASSESS_FINDING = "patrol_assess_finding"
PATROL_RESOLVE_FINDING = "patrol_resolve_finding"

TOOL_REGISTRY: dict[str, ToolKind] = {
    PULSE_QUERY: ToolKind.RESOLVE,
    PULSE_DISCOVERY: ToolKind.RESOLVE,
    PULSE_READ: ToolKind.READ,
    PULSE_METRICS: ToolKind.READ,
    PULSE_STORAGE: ToolKind.READ,
    PATROL_GET_FINDINGS: ToolKind.READ,
    PATROL_REPORT_FINDING: ToolKind.WRITE,
    PATROL_ASSESS_FINDING: ToolKind.WRITE,
    PATROL_RESOLVE_FINDING: ToolKind.WRITE,
}

# Writes to the finding lifecycle; the loop never runs these concurrently
# with patrol_get_findings in the same turn.
FINDING_LIFECYCLE_TOOLS = frozenset({PATROL_REPORT_FINDING, PATROL_ASSESS_FINDING, PATROL_RESOLVE_FINDING})

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
    """The lower-cased string values of the action/operation arguments."""
    if not args:
        return []
    return [v.strip().lower() for key in _VERB_KEYS if isinstance(v := args.get(key), str)]


def classify_tool_call(name: str, args: Mapping[str, object] | None = None) -> ToolKind:
    """The ToolKind of calling ``name`` with ``args`` (see the module docstring).

    A write verb in either argument wins over a read verb in the other.
    Non-string verb values are ignored.
    """
    name = name.strip()
    registered = TOOL_REGISTRY.get(name)
    if registered is not None:
        return registered
    if name == PULSE_QUESTION:
        return ToolKind.USER_INPUT
    verbs = _verbs(args)
    if any(v in WRITE_VERBS for v in verbs):
        return ToolKind.WRITE
    if any(v in READ_VERBS for v in verbs):
        return ToolKind.READ
    return ToolKind.WRITE


def is_finding_lifecycle_write(name: str) -> bool:
    """Whether ``name`` is patrol_report_finding, patrol_assess_finding or patrol_resolve_finding."""
    return name.strip() in FINDING_LIFECYCLE_TOOLS
