"""The stateless pieces of a tool turn's phases.

What the loop answers a refused call with, the loop-detection signature, the
rule that decides when a turn must run one call at a time, and which writes
change only Patrol's own state. Upstream keeps these beside the loop in
``agentic.go`` (``toolCallKey`` in ``agentic_verification.go``);
``reference_impl.ai.chat.agentic`` puts them together. The refusal texts are
upstream's, except ``BUDGET_TEXT``, which answers a limit only the reference
has.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.agentcapabilities.tool_names import (
    PATROL_ASSESS_FINDING,
    PATROL_GET_FINDINGS,
    PATROL_PROPOSE_OBSERVER,
    PATROL_REPORT_FINDING,
    PATROL_RESOLVE_FINDING,
    PULSE_QUESTION,
)
from reference_impl.agentcapabilities.tool_response import ToolErrorCode
from reference_impl.ai.chat.types import ToolCall
from reference_impl.gocompat.gojson import GoJSONError, marshal
from reference_impl.gocompat.gostrings import trim_space

__all__ = [
    "BUDGET_TEXT",
    "FINDING_LIFECYCLE_TOOLS",
    "LOOK_FIRST_TEXT",
    "MAX_IDENTICAL_CALLS",
    "NON_INTERACTIVE_TEXT",
    "REPORT_BUDGET_CODE",
    "SKIPPED_TEXT",
    "STATE_ONLY_WRITE_TOOLS",
    "STRICT_RESOLUTION_CODE",
    "call_signature",
    "is_finding_lifecycle_write",
    "is_finding_report",
    "is_question",
    "is_state_only_write",
    "loop_detected_text",
    "needs_serial",
    "report_budget_text",
    "verification_prompt",
]

# The same tool with the same arguments is run at most this often per run;
# later repeats are refused as a loop.
MAX_IDENTICAL_CALLS = 3

# A failed call whose result carries this code opens a pending recovery, as an
# FSM block does; upstream's executor reports strict-resolution refusals so.
STRICT_RESOLUTION_CODE = ToolErrorCode.STRICT_RESOLUTION.value

REPORT_BUDGET_CODE = "PATROL_FINDING_REPORT_BUDGET_EXHAUSTED"

SKIPPED_TEXT = (
    f"SKIPPED: {PULSE_QUESTION} was requested this turn. Wait for the user's answer, then re-issue this "
    "tool call with the clarified inputs."
)
LOOK_FIRST_TEXT = (
    "BLOCKED: you have not attempted a single tool call yet, so asking the user is premature. Do not ask "
    "the operator for information Pulse can enumerate \u2014 resource names, IDs, alert lists, and statuses "
    "are all discoverable with read-only tools. Look first: pulse_summarize {\"action\":\"fleet\"} answers "
    "\"how is my infrastructure doing?\" with no parameters, and the query/alert tools list resources and "
    "active alerts. Ask a question only if genuine ambiguity remains after looking."
)
NON_INTERACTIVE_TEXT = (
    f"{PULSE_QUESTION} is unavailable: this is a non-interactive run and no user can answer. "
    "Continue with the available evidence."
)
BUDGET_TEXT = "refused: the tool-call budget of this run is spent; answer with what you have"

# Writes that are accepted finding-lifecycle records: upstream applies them
# without moving the infrastructure workflow, and never runs them beside
# patrol_get_findings.
FINDING_LIFECYCLE_TOOLS = frozenset({PATROL_REPORT_FINDING, PATROL_ASSESS_FINDING, PATROL_RESOLVE_FINDING})

# Writes that change only Patrol's own state: the lifecycle writes and the
# observer proposal.
STATE_ONLY_WRITE_TOOLS = FINDING_LIFECYCLE_TOOLS | {PATROL_PROPOSE_OBSERVER}


def loop_detected_text(name: str, count: int) -> str:
    """The refusal of the ``count``-th identical call of ``name``."""
    return (
        f"LOOP_DETECTED: You have called {name} with the same arguments {count} times. "
        "This call is blocked. Try a different tool or approach."
    )


def report_budget_text(limit: int) -> str:
    """The JSON error result refusing a finding report once ``limit`` have been accepted."""
    message = (
        f"This evaluation has already accepted its maximum of {limit} finding reports. "
        "Summarize the accepted results without another report call."
    )
    return marshal({"error": {"code": REPORT_BUDGET_CODE, "message": message}})


def verification_prompt(last_write_tool: str) -> str:
    """The user message that answers a final answer the state machine refused."""
    target = trim_space(last_write_tool) or "the changed target"
    return (
        f"Verification evidence is required before responding about the write result for {target}. "
        "Decide what available evidence or tool call is appropriate to verify the current state."
    )


def is_question(call: ToolCall) -> bool:
    """Whether ``call`` asks the user: its name is exactly ``pulse_question``, untrimmed."""
    return call.name == PULSE_QUESTION


def is_finding_report(call: ToolCall) -> bool:
    """Whether ``call`` reports a Patrol finding (the calls ``max_finding_reports`` counts)."""
    return trim_space(call.name) == PATROL_REPORT_FINDING


def is_finding_lifecycle_write(name: str) -> bool:
    """Whether ``name`` is patrol_report_finding, patrol_assess_finding or patrol_resolve_finding."""
    return trim_space(name) in FINDING_LIFECYCLE_TOOLS


def is_state_only_write(name: str) -> bool:
    """Whether ``name`` writes only Patrol state: a lifecycle write or patrol_propose_observer."""
    return trim_space(name) in STATE_ONLY_WRITE_TOOLS


def call_signature(call: ToolCall) -> str:
    """A key equal for two calls of the same name (untrimmed) with equal arguments.

    The arguments are written as Go's ``json.Marshal`` writes them (keys
    sorted); arguments Go cannot encode leave the name alone as the key.
    """
    try:
        return f"{call.name}:{marshal(call.args)}"
    except GoJSONError:
        return call.name


def needs_serial(calls: Iterable[ToolCall], *, report_budget: int = 0) -> bool:
    """True when a turn must run its admitted calls one at a time, in the provider's order.

    That is when the turn (every call it still holds, admitted or not) holds
    ``patrol_get_findings`` together with a finding lifecycle write, in either
    order, so the write sees what the read returned; or when a finding-report
    budget is set and the turn holds a report, so the budget is judged on
    reports already accepted, in order.
    """
    calls = list(calls)
    reads_findings = any(trim_space(call.name) == PATROL_GET_FINDINGS for call in calls)
    if reads_findings and any(is_finding_lifecycle_write(call.name) for call in calls):
        return True
    return report_budget > 0 and any(is_finding_report(call) for call in calls)
