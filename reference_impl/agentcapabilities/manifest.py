"""The capability manifest of the agent surface, and the check against its handlers.

``MANIFEST.error_codes`` is what the surface tells agents it may return;
``HANDLERS`` maps each handler's name to it. The handlers live in
``handlers`` (agent surface) and ``surface`` (chat tools, with the
``Surface`` state they act on); each declares the codes it emits with
``@emits(...)`` (read back as ``handler.EMITS``).

``check_manifest(manifest, handlers)`` reports, in both directions, where the
declarations disagree: a code a handler's body can produce (read from its
source, following calls to helpers of the same module) that its ``EMITS``
omits; a code a handler emits that the manifest does not declare; and a code
the manifest declares that no handler emits.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl.agentcapabilities.errors import AgentErrorCode as A
from reference_impl.agentcapabilities.handlers import (
    MAX_LIST_LIMIT,
    PLAN_TTL,
    act_on_finding,
    decide_action,
    describe_capability,
    execute_action,
    finish_action,
    get_action_detail,
    get_action_queue,
    get_resource_context,
    list_actions,
    operator_state,
    plan_action,
    refresh_action,
    run_raw_command,
)
from reference_impl.agentcapabilities.surface import (
    Action,
    ActionStore,
    ErrorCode,
    ExecutionError,
    Handler,
    Resource,
    Result,
    StoreError,
    Surface,
    emits,
    tool_control,
    tool_read,
    tool_resolve,
)
from reference_impl.agentcapabilities.tool_response import ToolErrorCode as T

__all__ = [
    "CapabilityManifest", "HANDLERS", "MANIFEST", "check_manifest", "referenced_codes",
    # re-exported: the state types and the declaration helper
    "Action", "ActionStore", "ErrorCode", "ExecutionError", "Handler", "Resource", "Result", "StoreError",
    "Surface", "emits",
    # re-exported: the handlers and their limits
    "MAX_LIST_LIMIT", "PLAN_TTL", "act_on_finding", "decide_action", "describe_capability", "execute_action",
    "finish_action", "get_action_detail", "get_action_queue", "get_resource_context", "list_actions",
    "operator_state", "plan_action", "refresh_action", "run_raw_command", "tool_control", "tool_read",
    "tool_resolve",
]


@dataclass(frozen=True)
class CapabilityManifest:
    name: str
    error_codes: frozenset[ErrorCode]
    capabilities: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        codes = sorted(str(code) for code in self.error_codes)
        return {"name": self.name, "capabilities": list(self.capabilities), "errorCodes": codes}


HANDLERS: dict[str, Handler] = {
    fn.__name__: fn
    for fn in (
        get_resource_context, operator_state, describe_capability, act_on_finding, plan_action,
        decide_action, execute_action, finish_action, refresh_action, list_actions, get_action_detail,
        get_action_queue, run_raw_command, tool_resolve, tool_read, tool_control,
    )
}

MANIFEST = CapabilityManifest(
    name="pulse-agent-surface",
    error_codes=frozenset(A) | frozenset(T),
    capabilities=tuple(HANDLERS),
)


# --- the contract check --------------------------------------------------------


def referenced_codes(fn: Callable[..., Any]) -> frozenset[ErrorCode]:
    """Codes named in ``fn``'s body or in same-module helpers it uses.

    Decorator arguments are not part of the body. Other handlers (functions
    with ``EMITS``) are not followed: their codes are their own.
    """
    found: set[ErrorCode] = set()
    _collect(fn, found, set())
    return frozenset(found)


def _collect(fn: Callable[..., Any], found: set[ErrorCode], seen: set[Callable[..., Any]]) -> None:
    if fn in seen:
        return
    seen.add(fn)
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    scope = getattr(fn, "__globals__", {})
    first = tree.body[0]
    body = first.body if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef)) else tree.body
    for node in (sub for stmt in body for sub in ast.walk(stmt)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = scope.get(node.value.id)
            if owner in (A, T) and node.attr in owner.__members__:
                found.add(owner[node.attr])
        elif isinstance(node, ast.Name):
            target = scope.get(node.id)
            if (inspect.isfunction(target) and target.__module__ == fn.__module__
                    and not hasattr(target, "EMITS")):
                _collect(target, found, seen)


def check_manifest(
    manifest: CapabilityManifest, handlers: Mapping[str, Handler] | Iterable[Handler]
) -> list[str]:
    """Every disagreement between the manifest and the handlers; empty when none."""
    named = dict(handlers) if isinstance(handlers, Mapping) else {fn.__name__: fn for fn in handlers}
    problems: list[str] = []
    emitted: set[ErrorCode] = set()
    for name, fn in sorted(named.items()):
        declared = getattr(fn, "EMITS", None)
        if declared is None:
            problems.append(f"handler {name} declares no EMITS")
            continue
        emitted |= declared
        try:
            reachable = referenced_codes(fn)
        except (OSError, TypeError, SyntaxError):
            problems.append(f"handler {name}: source unreadable, cannot tell what it emits")
            reachable = frozenset()
        for code in _ordered(reachable - declared):
            problems.append(f"handler {name} can emit {code} but its EMITS omits it")
        for code in _ordered(declared - manifest.error_codes):
            problems.append(f"handler {name} emits {code}, which the manifest does not declare")
    for code in _ordered(manifest.error_codes - emitted):
        problems.append(f"manifest declares {code}, which no handler emits")
    return problems


def _ordered(codes: Iterable[ErrorCode]) -> list[str]:
    return sorted(str(code) for code in codes)
