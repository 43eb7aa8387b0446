"""Tool names, the invocation registry and classify_tool_call, against upstream.

The expected kinds come from upstream's invocation.go descriptor table and
ClassifyToolCall's switch in tool_call.go at commit c313a80da, their tests,
and the mismatches issue 14 verified.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.agentcapabilities import invocation, tool_call, tool_names
from reference_impl.agentcapabilities.invocation import TOOL_REGISTRY, classify_tool_call
from reference_impl.agentcapabilities.tool_call import NON_REGISTRY_TOOLS, READ_VERBS, WRITE_VERBS
from reference_impl.ai.chat.fsm import ToolKind
from reference_impl.ai.chat.phases import (
    FINDING_LIFECYCLE_TOOLS,
    STATE_ONLY_WRITE_TOOLS,
    is_finding_lifecycle_write,
    is_state_only_write,
)
from reference_impl.gocompat.gostrings import to_lower, trim_space

RESOLVE, READ, WRITE, USER = ToolKind.RESOLVE, ToolKind.READ, ToolKind.WRITE, ToolKind.USER_INPUT

EXPECTED_WRITE_VERBS = {
    "start", "stop", "restart", "delete", "shutdown", "reboot", "write",
    "append", "update", "trigger", "resolve", "dismiss", "control",
}  # fmt: skip
EXPECTED_READ_VERBS = {
    "get", "list", "search", "query", "read", "logs", "status", "health",
    "describe", "inspect", "show",
}  # fmt: skip

STATIC = {
    "pulse_query": RESOLVE, "pulse_metrics": READ, "pulse_storage": READ, "pulse_pmg": READ,
    "pulse_summarize": READ, "pulse_read": READ, "pulse_control": WRITE, "pulse_file_edit": WRITE,
    "patrol_get_findings": READ, "patrol_assess_finding": WRITE, "patrol_propose_action": READ,
    "patrol_action_capabilities": READ, "patrol_report_finding": WRITE, "patrol_resolve_finding": WRITE,
    "patrol_propose_observer": WRITE,
}  # fmt: skip
DISCRIMINATED = {
    "pulse_discovery": ("action", {"get": RESOLVE, "list": RESOLVE, "run": RESOLVE}),
    "pulse_alerts": ("action", {"list": READ, "findings": READ, "resolved": READ, "resolve": WRITE, "dismiss": WRITE}),
    "pulse_kubernetes": ("type", {"clusters": READ, "nodes": READ, "pods": READ, "deployments": READ, "logs": READ}),
    "pulse_docker": (
        "action",
        {"updates": READ, "services": READ, "tasks": READ, "swarm": READ, "check_updates": READ},
    ),
    "pulse_knowledge": ("action", {"recall": READ, "incidents": READ, "correlate": READ, "remember": WRITE}),
}
ALIASES = {
    "pulse_question": USER, "fetch_url": READ,
    "pulse_run_command": WRITE, "pulse_control_guest": WRITE, "pulse_control_docker": WRITE,
    "run_command": WRITE, "set_resource_url": WRITE,
    "pulse_search_resources": RESOLVE, "pulse_get_resource": RESOLVE, "pulse_get_topology": RESOLVE,
    "pulse_list_infrastructure": RESOLVE, "pulse_get_connection_health": RESOLVE,
    "pulse_get_docker_logs": READ, "pulse_get_performance_metrics": READ, "pulse_get_temperatures": READ,
    "pulse_get_baselines": READ, "pulse_get_patterns": READ,
}  # fmt: skip


def test_every_constant_value_is_its_snake_case_name() -> None:
    constants = {k: v for k, v in vars(tool_names).items() if k.isupper() and isinstance(v, str)}
    assert set(constants.values()) == set(STATIC) | set(DISCRIMINATED) | set(ALIASES)
    for name, value in constants.items():
        assert value == name.lower()


def test_the_registry_holds_upstreams_descriptor_table() -> None:
    assert set(TOOL_REGISTRY) == set(STATIC) | set(DISCRIMINATED)
    for name, kind in STATIC.items():
        assert TOOL_REGISTRY[name].static is kind
    for name, (key, cases) in DISCRIMINATED.items():
        descriptor = TOOL_REGISTRY[name]
        assert descriptor.static is None
        assert (descriptor.discriminator, dict(descriptor.cases)) == (key, cases)


def test_the_names_outside_the_registry() -> None:
    assert NON_REGISTRY_TOOLS == ALIASES
    assert not set(NON_REGISTRY_TOOLS) & set(TOOL_REGISTRY)


def test_both_maps_are_dict_literals_keyed_by_string_literals() -> None:
    """The engine reads both maps' keys from source, within one file; keep that shape."""
    sources = (("TOOL_REGISTRY", TOOL_REGISTRY, invocation), ("NON_REGISTRY_TOOLS", NON_REGISTRY_TOOLS, tool_call))
    for bound_name, table, source in sources:
        module = ast.parse(Path(source.__file__).read_text(encoding="utf-8"))
        bound = [
            node.value
            for node in module.body
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == bound_name
        ]
        assert len(bound) == 1 and isinstance(bound[0], ast.Dict)
        keys = bound[0].keys
        assert all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys)
        assert {k.value for k in keys} == set(table)  # type: ignore[union-attr]


def test_descriptor_cases_cannot_be_changed_through_the_table() -> None:
    with pytest.raises(TypeError):
        TOOL_REGISTRY["pulse_docker"].cases["update"] = READ  # type: ignore[index]


@pytest.mark.parametrize("name", sorted(STATIC))
@pytest.mark.parametrize("args", [None, {}, {"action": "delete"}, {"action": "list"}, {"type": "pods"}])
def test_a_static_tool_ignores_its_arguments(name: str, args: dict[str, Any] | None) -> None:
    assert classify_tool_call(name, args) is STATIC[name]
    assert classify_tool_call(f" \t{name}\u3000", args) is STATIC[name]


CASES = [(name, key, value, kind) for name, (key, cases) in DISCRIMINATED.items() for value, kind in cases.items()]


@pytest.mark.parametrize(("name", "key", "value", "kind"), CASES)
def test_a_discriminated_tool_reads_its_one_argument(name: str, key: str, value: str, kind: ToolKind) -> None:
    assert classify_tool_call(name, {key: value}) is kind
    assert classify_tool_call(name, {key: f"  {value.upper()}\n"}) is kind  # the descriptor trims and lower-cases
    other = "type" if key == "action" else "action"
    assert classify_tool_call(name, {other: value}) is WRITE  # the wrong key fails closed


@pytest.mark.parametrize("name", sorted(DISCRIMINATED))
@pytest.mark.parametrize(
    "args",
    [
        None,
        {},
        {"action": None, "type": None},
        {"action": 42, "type": 42},
        {"action": ["list"], "type": ["pods"]},
        {"action": "frobnicate", "type": "drain_node"},
        {"action": "", "type": ""},
    ],
)
def test_a_missing_malformed_or_unknown_subaction_fails_closed(name: str, args: dict[str, Any] | None) -> None:
    assert classify_tool_call(name, args) is WRITE


@pytest.mark.parametrize(
    ("name", "args", "kind"),
    [
        ("pulse_control", {"action": "status"}, WRITE),
        ("pulse_control", {"type": "command"}, WRITE),
        ("pulse_file_edit", {"action": "read"}, WRITE),
        ("pulse_file_edit", {"action": "append"}, WRITE),
        ("pulse_docker", {"action": "services"}, READ),
        ("pulse_docker", {"action": "get"}, WRITE),
        ("pulse_docker", {"action": "control"}, WRITE),
        ("pulse_docker", {"action": "update"}, WRITE),
        ("pulse_alerts", {"action": "findings"}, READ),
        ("pulse_alerts", {"action": "resolve"}, WRITE),
        ("pulse_kubernetes", {"type": "pods"}, READ),
        ("pulse_kubernetes", {"type": "scale"}, WRITE),
        ("pulse_kubernetes", {"type": "exec"}, WRITE),
        ("pulse_kubernetes", {"action": "pods"}, WRITE),
        ("pulse_summarize", {}, READ),
        ("fetch_url", {"url": "http://x"}, READ),
        ("pulse_discovery", {}, WRITE),
        ("pulse_discovery", {"action": "run"}, RESOLVE),
        ("pulse_search_resources", {"query": "vm"}, RESOLVE),
        ("pulse_run_command", {"action": "status"}, WRITE),
        ("pulse_read", {"action": "exec"}, READ),
        ("pulse_knowledge", {"action": "remember"}, WRITE),
        ("pulse_knowledge", {"action": "recall"}, READ),
        ("run_command", {}, WRITE),
        ("set_resource_url", {"action": "get"}, WRITE),
        ("pulse_question", {"action": "delete"}, USER),
        ("future_tool", {}, WRITE),
        ("future_tool", {"action": "inspect"}, READ),
        ("future_tool", {"operation": "delete"}, WRITE),
    ],
)
def test_upstream_classifications(name: str, args: dict[str, Any], kind: ToolKind) -> None:
    assert classify_tool_call(name, args) is kind


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_an_alias_has_one_kind_whatever_its_verb(name: str) -> None:
    for args in (None, {"action": "delete"}, {"operation": "get"}, {"action": "status"}):
        assert classify_tool_call(name, args) is ALIASES[name]
    assert classify_tool_call(f"\n{name} ", None) is ALIASES[name]


def test_verb_sets_match_upstream() -> None:
    assert WRITE_VERBS == EXPECTED_WRITE_VERBS
    assert READ_VERBS == EXPECTED_READ_VERBS
    assert not WRITE_VERBS & READ_VERBS


@pytest.mark.parametrize("key", ["action", "operation"])
def test_an_unknown_tool_goes_by_its_verb_lower_cased(key: str) -> None:
    for verb in sorted(EXPECTED_WRITE_VERBS):
        assert classify_tool_call("brand_new_tool", {key: verb.upper()}) is WRITE
    for verb in sorted(EXPECTED_READ_VERBS):
        assert classify_tool_call("brand_new_tool", {key: verb.title()}) is READ


@pytest.mark.parametrize("verb", [" get ", "get\n", "\tlist", "status "])
def test_the_fallback_verb_is_not_trimmed(verb: str) -> None:
    assert classify_tool_call("brand_new_tool", {"action": verb}) is WRITE


def test_the_fallback_lowers_rune_by_rune_as_go_does() -> None:
    # Go maps U+0130 to "i"; Python's full case mapping gives "i" plus a combining dot.
    assert classify_tool_call("brand_new_tool", {"action": "\u0130NSPECT"}) is READ
    assert classify_tool_call("pulse_knowledge", {"action": "\u0130NCIDENTS"}) is READ


def test_write_verb_wins_over_read_verb() -> None:
    assert classify_tool_call("brand_new_tool", {"action": "list", "operation": "restart"}) is WRITE
    assert classify_tool_call("brand_new_tool", {"action": "stop", "operation": "status"}) is WRITE


def test_non_string_verb_ignored_in_favour_of_the_other_key() -> None:
    assert classify_tool_call("brand_new_tool", {"action": 7, "operation": "read"}) is READ


def test_names_are_trimmed_of_go_space_only() -> None:
    assert classify_tool_call("\u00a0pulse_query\u2029", None) is RESOLVE
    assert classify_tool_call("\x1cpulse_query", None) is WRITE  # Go keeps U+001C; str.strip() would not


def test_go_string_helpers() -> None:
    assert trim_space("\x1c a \x85") == "\x1c a"
    assert to_lower("\u0130\u03a3") == "i\u03c3"
    assert to_lower("GET") == "get"


KNOWN = set(TOOL_REGISTRY) | set(NON_REGISTRY_TOOLS)


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(min_size=1, max_size=20).filter(lambda n: trim_space(n) not in KNOWN),
    action=st.one_of(st.none(), st.text(max_size=12)),
)
def test_unregistered_tool_is_write_unless_a_read_verb(name: str, action: str | None) -> None:
    args = {} if action is None else {"action": action}
    is_read = action is not None and to_lower(action) in EXPECTED_READ_VERBS
    assert classify_tool_call(name, args) is (READ if is_read else WRITE)


def test_finding_lifecycle_and_state_only_writes() -> None:
    assert FINDING_LIFECYCLE_TOOLS == {"patrol_report_finding", "patrol_assess_finding", "patrol_resolve_finding"}
    assert STATE_ONLY_WRITE_TOOLS == FINDING_LIFECYCLE_TOOLS | {"patrol_propose_observer"}
    for name in STATE_ONLY_WRITE_TOOLS:
        assert classify_tool_call(name, None) is WRITE
        assert is_state_only_write(f" {name}")
    assert all(is_finding_lifecycle_write(name) for name in FINDING_LIFECYCLE_TOOLS)
    assert not is_finding_lifecycle_write("patrol_propose_observer")
    for name in ("patrol_get_findings", "pulse_control", "pulse_query", "patrol_propose_action", "patrol_action_capabilities"):
        assert not is_finding_lifecycle_write(name) and not is_state_only_write(name)
