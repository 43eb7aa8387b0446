"""The registry's invocation descriptors, and ``classify_tool_call``, which reads them first.

Upstream's ``registryInvocationDescriptors`` (``invocation.go``) gives every
registry tool a descriptor. A static descriptor has one kind for every call;
a discriminated one reads one argument (``action``, or ``type`` for
``pulse_kubernetes``), trims and lower-cases it, and looks it up in its
cases. A missing value, a value that is not a string, or one the cases do
not list fails closed: the call is a write.

``classify_tool_call(name, args)`` is upstream's ``ClassifyToolCall``: the
name, trimmed of Go white space, is looked up in ``TOOL_REGISTRY`` and
classified by its descriptor and by nothing else; any other name goes to
``classify_unregistered`` (``reference_impl.agentcapabilities.tool_call``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from reference_impl.agentcapabilities.tool_call import ToolCallKind, classify_unregistered
from reference_impl.gocompat.gostrings import to_lower, trim_space

__all__ = ["TOOL_REGISTRY", "InvocationDescriptor", "classify_tool_call"]


@dataclass(frozen=True)
class InvocationDescriptor:
    """How one registry tool is classified: a static kind, or cases of one argument."""

    static: ToolCallKind | None = None
    discriminator: str = ""
    cases: Mapping[str, ToolCallKind] = field(default_factory=lambda: MappingProxyType({}))

    def classify(self, args: Mapping[str, object] | None) -> ToolCallKind:
        if self.static is not None:
            return self.static
        value = (args or {}).get(self.discriminator) if self.discriminator else None
        if not isinstance(value, str):
            return ToolCallKind.WRITE
        return self.cases.get(to_lower(trim_space(value)), ToolCallKind.WRITE)


def _static(kind: ToolCallKind) -> InvocationDescriptor:
    return InvocationDescriptor(static=kind)


def _by(discriminator: str, **cases: ToolCallKind) -> InvocationDescriptor:
    return InvocationDescriptor(discriminator=discriminator, cases=MappingProxyType(cases))


_R, _W, _RESOLVE = ToolCallKind.READ, ToolCallKind.WRITE, ToolCallKind.RESOLVE

# Keyed by the wire names of ``tool_names``, written out so that the table reads on its own.
TOOL_REGISTRY: dict[str, InvocationDescriptor] = {
    "pulse_query": _static(_RESOLVE),
    "pulse_metrics": _static(_R),
    "pulse_storage": _static(_R),
    "pulse_pmg": _static(_R),
    "pulse_summarize": _static(_R),
    "pulse_read": _static(_R),
    "pulse_control": _static(_W),
    "pulse_file_edit": _static(_W),
    "pulse_discovery": _by("action", get=_RESOLVE, list=_RESOLVE, run=_RESOLVE),
    "pulse_alerts": _by("action", list=_R, findings=_R, resolved=_R, resolve=_W, dismiss=_W),
    "pulse_kubernetes": _by("type", clusters=_R, nodes=_R, pods=_R, deployments=_R, logs=_R),
    "pulse_docker": _by("action", updates=_R, services=_R, tasks=_R, swarm=_R, check_updates=_R),
    "pulse_knowledge": _by("action", recall=_R, incidents=_R, correlate=_R, remember=_W),
    "patrol_get_findings": _static(_R),
    "patrol_assess_finding": _static(_W),
    # A proposal is only captured, so it is a read: it never opens a verification.
    "patrol_propose_action": _static(_R),
    "patrol_action_capabilities": _static(_R),
    "patrol_report_finding": _static(_W),
    "patrol_resolve_finding": _static(_W),
    "patrol_propose_observer": _static(_W),
}


def classify_tool_call(name: str, args: Mapping[str, object] | None = None) -> ToolCallKind:
    """The ToolCallKind of calling ``name`` with ``args``: its descriptor, else the rule outside the registry."""
    descriptor = TOOL_REGISTRY.get(trim_space(name))
    if descriptor is not None:
        return descriptor.classify(args)
    return classify_unregistered(name, args)
