"""How a tool call affects the workflow: its kind, and the rule for tools outside the registry.

``ToolCallKind`` is upstream's ``ToolCallKind`` (``tool_call.go``); ``str()`` of a
kind is its wire name. ``classify_unregistered(name, args)`` is the part of
upstream's ``ClassifyToolCall`` that runs when the registry has no descriptor
for the name:

1. a name in ``NON_REGISTRY_TOOLS`` (the chat-native question, the adapter
   names outside the registry and the legacy assistant aliases), trimmed of
   Go white space, has one kind;
2. otherwise the string values of the ``action`` and ``operation`` arguments,
   lower-cased as Go does but not trimmed, decide: a write verb in either
   makes a write, then a read verb a read;
3. anything else is a write, so an unknown tool cannot slip past the gate.

The registry comes first; ``classify_tool_call`` in
``reference_impl.agentcapabilities.invocation`` puts the two together, since
the registry's table is built from these kinds.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from reference_impl.gocompat.gostrings import to_lower, trim_space

__all__ = ["NON_REGISTRY_TOOLS", "READ_VERBS", "WRITE_VERBS", "ToolCallKind", "classify_unregistered"]


class ToolCallKind(Enum):
    """How a tool call affects the workflow; ``str()`` gives the wire name."""

    RESOLVE = "resolve"  # discovery that establishes a target (also verifies)
    READ = "read"  # read-only inspection: logs, metrics, status, config
    WRITE = "write"  # anything that can change state
    USER_INPUT = "user_input"  # asks the user; never moves the workflow

    def __str__(self) -> str:
        return self.value


_R, _W, _RESOLVE = ToolCallKind.READ, ToolCallKind.WRITE, ToolCallKind.RESOLVE

# Keyed by the wire names of ``tool_names``, written out so that the table reads on its own.
NON_REGISTRY_TOOLS: dict[str, ToolCallKind] = {
    "pulse_question": ToolCallKind.USER_INPUT,
    "fetch_url": _R,
    "pulse_run_command": _W,
    "pulse_control_guest": _W,
    "pulse_control_docker": _W,
    "run_command": _W,
    "set_resource_url": _W,
    "pulse_search_resources": _RESOLVE,
    "pulse_get_resource": _RESOLVE,
    "pulse_get_topology": _RESOLVE,
    "pulse_list_infrastructure": _RESOLVE,
    "pulse_get_connection_health": _RESOLVE,
    "pulse_get_docker_logs": _R,
    "pulse_get_performance_metrics": _R,
    "pulse_get_temperatures": _R,
    "pulse_get_baselines": _R,
    "pulse_get_patterns": _R,
}

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


def classify_unregistered(name: str, args: Mapping[str, object] | None = None) -> ToolCallKind:
    """The kind of a call the registry has no descriptor for (see the module docstring)."""
    kind = NON_REGISTRY_TOOLS.get(trim_space(name))
    if kind is not None:
        return kind
    verbs = _verbs(args)
    if any(v in WRITE_VERBS for v in verbs):
        return ToolCallKind.WRITE
    if any(v in READ_VERBS for v in verbs):
        return ToolCallKind.READ
    return ToolCallKind.WRITE
