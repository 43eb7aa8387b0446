"""Tool names, the registry and classify_tool_call."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import tools
from reference_impl.fsm import ToolKind
from reference_impl.tools import (
    FINDING_LIFECYCLE_TOOLS,
    READ_VERBS,
    TOOL_REGISTRY,
    WRITE_VERBS,
    classify_tool_call,
    is_finding_lifecycle_write,
)

TOOLS_PY = Path(tools.__file__)

EXPECTED_WRITE_VERBS = {
    "start", "stop", "restart", "delete", "shutdown", "reboot", "write",
    "append", "update", "trigger", "resolve", "dismiss", "control",
}  # fmt: skip
EXPECTED_READ_VERBS = {
    "get", "list", "search", "query", "read", "logs", "status", "health",
    "describe", "inspect", "show",
}  # fmt: skip
VERB_ROUTED = [tools.PULSE_CONTROL, tools.PULSE_DOCKER, tools.PULSE_FILE_EDIT, tools.PULSE_ALERTS]


def test_loop_tool_names() -> None:
    assert tools.PULSE_QUESTION == "pulse_question"
    assert tools.PATROL_GET_FINDINGS == "patrol_get_findings"
    assert tools.PATROL_REPORT_FINDING == "patrol_report_finding"
    assert tools.PATROL_ASSESS_FINDING == "patrol_assess_finding"
    assert tools.PATROL_RESOLVE_FINDING == "patrol_resolve_finding"


def test_every_constant_value_is_its_snake_case_name() -> None:
    constants = {k: v for k, v in vars(tools).items() if k.isupper() and isinstance(v, str)}
    assert len(constants) >= 14
    for name, value in constants.items():
        assert value == name.lower()


def test_registry_kinds() -> None:
    assert TOOL_REGISTRY == {
        "pulse_query": ToolKind.RESOLVE,
        "pulse_discovery": ToolKind.RESOLVE,
        "pulse_read": ToolKind.READ,
        "pulse_metrics": ToolKind.READ,
        "pulse_storage": ToolKind.READ,
        "patrol_get_findings": ToolKind.READ,
        "patrol_report_finding": ToolKind.WRITE,
        "patrol_assess_finding": ToolKind.WRITE,
        "patrol_resolve_finding": ToolKind.WRITE,
    }


def test_registry_is_a_dict_literal_keyed_by_constants() -> None:
    """The engine reads the registry's keys from source; keep that shape."""
    module = ast.parse(TOOLS_PY.read_text(encoding="utf-8"))
    bound = [
        node.value
        for node in module.body
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "TOOL_REGISTRY"
    ]
    assert len(bound) == 1 and isinstance(bound[0], ast.Dict)
    keys = bound[0].keys
    assert all(isinstance(k, ast.Name) for k in keys)
    assert {getattr(tools, k.id) for k in keys} == set(TOOL_REGISTRY)  # type: ignore[union-attr]


@pytest.mark.parametrize("name", sorted(TOOL_REGISTRY))
def test_registry_wins_over_arguments(name: str) -> None:
    kind = TOOL_REGISTRY[name]
    assert classify_tool_call(name, {}) is kind
    assert classify_tool_call(name, {"action": "delete"}) is kind
    assert classify_tool_call(name, {"operation": "get"}) is kind
    assert classify_tool_call(f"  {name}\n", None) is kind


def test_verb_routed_tools_are_not_registered() -> None:
    for name in VERB_ROUTED + [tools.PULSE_QUESTION]:
        assert name not in TOOL_REGISTRY


@pytest.mark.parametrize("args", [None, {}, {"action": "delete"}, {"operation": "get"}])
def test_pulse_question_is_user_input(args: dict[str, str] | None) -> None:
    assert classify_tool_call("pulse_question", args) is ToolKind.USER_INPUT


def test_verb_sets_match_upstream() -> None:
    assert WRITE_VERBS == EXPECTED_WRITE_VERBS
    assert READ_VERBS == EXPECTED_READ_VERBS
    assert not WRITE_VERBS & READ_VERBS


@pytest.mark.parametrize("tool", VERB_ROUTED + ["brand_new_tool"])
@pytest.mark.parametrize("key", ["action", "operation"])
def test_write_verbs(tool: str, key: str) -> None:
    for verb in sorted(EXPECTED_WRITE_VERBS):
        assert classify_tool_call(tool, {key: verb}) is ToolKind.WRITE
        assert classify_tool_call(tool, {key: verb.upper()}) is ToolKind.WRITE


@pytest.mark.parametrize("tool", VERB_ROUTED + ["brand_new_tool"])
@pytest.mark.parametrize("key", ["action", "operation"])
def test_read_verbs(tool: str, key: str) -> None:
    for verb in sorted(EXPECTED_READ_VERBS):
        assert classify_tool_call(tool, {key: verb}) is ToolKind.READ
        assert classify_tool_call(tool, {key: f" {verb.title()} "}) is ToolKind.READ


def test_write_verb_wins_over_read_verb() -> None:
    assert classify_tool_call("pulse_docker", {"action": "list", "operation": "restart"}) is ToolKind.WRITE
    assert classify_tool_call("pulse_docker", {"action": "stop", "operation": "status"}) is ToolKind.WRITE


@pytest.mark.parametrize(
    "args",
    [None, {}, {"action": "frobnicate"}, {"action": 3}, {"action": ["get"]}, {"verb": "get"}, {"action": ""}],
)
def test_unknown_defaults_to_write(args: object) -> None:
    assert classify_tool_call("pulse_control", args) is ToolKind.WRITE  # type: ignore[arg-type]
    assert classify_tool_call("never_heard_of_it", args) is ToolKind.WRITE  # type: ignore[arg-type]


def test_non_string_verb_ignored_in_favour_of_the_other_key() -> None:
    assert classify_tool_call("pulse_file_edit", {"action": 7, "operation": "read"}) is ToolKind.READ


KNOWN = set(TOOL_REGISTRY) | {tools.PULSE_QUESTION}
VERBS = EXPECTED_READ_VERBS | EXPECTED_WRITE_VERBS


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(min_size=1, max_size=20).filter(lambda n: n.strip() not in KNOWN),
    action=st.one_of(st.none(), st.text(max_size=12)),
)
def test_unregistered_tool_is_write_unless_a_read_verb(name: str, action: str | None) -> None:
    args = {} if action is None else {"action": action}
    kind = classify_tool_call(name, args)
    is_read = action is not None and action.strip().lower() in EXPECTED_READ_VERBS
    assert kind is (ToolKind.READ if is_read else ToolKind.WRITE)


def test_finding_lifecycle_tools() -> None:
    assert FINDING_LIFECYCLE_TOOLS == {"patrol_report_finding", "patrol_assess_finding", "patrol_resolve_finding"}
    for name in FINDING_LIFECYCLE_TOOLS:
        assert is_finding_lifecycle_write(name)
        assert classify_tool_call(name, {}) is ToolKind.WRITE
    assert not is_finding_lifecycle_write("patrol_get_findings")
    assert not is_finding_lifecycle_write("pulse_control")
