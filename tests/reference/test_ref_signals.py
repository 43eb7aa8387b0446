"""Deterministic signal detection: vocabulary, thresholds, dispatch on the input type, pools,
metrics, reachability and dedup, each edge as upstream patrol_signals.go decides it."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.ai.patrol_signals import types as signal_types
from reference_impl.ai.patrol_signals.detect import (
    default_signal_thresholds,
    detect_reachability_signals,
    detect_signals,
    signal_thresholds_from_patrol,
)
from reference_impl.ai.patrol_signals.types import (
    SIGNAL_BACKUP_STALE_THRESHOLD,
    SIGNAL_HIGH_CPU_PERCENT,
    SIGNAL_HIGH_MEMORY_PERCENT,
    SIGNAL_STORAGE_CRITICAL_PERCENT,
    SIGNAL_STORAGE_WARNING_PERCENT,
    GuestIntelligence,
    PatrolThresholds,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
EPS = 1e-9


def call(tool: str, payload: object, input_type: str | None = None, success: bool = True) -> ToolCallRecord:
    output = payload if isinstance(payload, str) else json.dumps(payload)
    tool_input = "" if input_type is None else json.dumps({"type": input_type})
    return ToolCallRecord(tool, output, success, tool_input, "call-1")


def detect(*calls: ToolCallRecord, thresholds: SignalThresholds | None = None) -> list:
    return detect_signals(list(calls), thresholds, now=NOW)


def kinds(found: list) -> list[tuple[str, str, str]]:
    return [(s.signal_type.value, s.resource_id, s.severity) for s in found]


# --- vocabulary and constants ----------------------------------------------------


def test_signal_types_are_the_seven_upstream_values():
    assert [t.value for t in SignalType] == [
        "smart_failure", "high_cpu", "high_memory", "high_disk", "backup_failed", "backup_stale", "guest_unreachable",
    ]
    assert "active_alert" not in {t.value for t in SignalType}  # removed upstream with the alert mirror
    assert SignalType.SMART_FAILURE == "smart_failure" and str(SignalType.HIGH_CPU) == "high_cpu"


def test_threshold_constants_are_single_literal_assignments():
    tree = ast.parse(Path(signal_types.__file__).read_text(encoding="utf-8"))
    assigned: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(ast.unparse(node.value))
    assert assigned["SIGNAL_STORAGE_WARNING_PERCENT"] == ["75.0"]
    assert assigned["SIGNAL_STORAGE_CRITICAL_PERCENT"] == ["95.0"]
    assert assigned["SIGNAL_HIGH_CPU_PERCENT"] == ["70.0"]
    assert assigned["SIGNAL_HIGH_MEMORY_PERCENT"] == ["80.0"]
    assert assigned["SIGNAL_BACKUP_STALE_THRESHOLD"] == ["timedelta(hours=48)"]
    assert SIGNAL_BACKUP_STALE_THRESHOLD == timedelta(hours=48)


def test_defaults_and_frozen():
    d = default_signal_thresholds()
    assert d == SignalThresholds(75.0, 95.0, 70.0, 80.0, timedelta(hours=48))
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.high_cpu_percent = 1.0  # type: ignore[misc]


# --- thresholds from the Patrol config: only zero falls back ------------------------


def test_from_patrol_takes_configured_values():
    got = signal_thresholds_from_patrol(PatrolThresholds(60, 90, 50, 65))
    assert got == SignalThresholds(60.0, 90.0, 50.0, 65.0, SIGNAL_BACKUP_STALE_THRESHOLD)


@pytest.mark.parametrize("config", [None, PatrolThresholds(), {}, {"unrelated": 5}])
def test_from_patrol_empty_config_is_the_defaults(config):
    assert signal_thresholds_from_patrol(config) == default_signal_thresholds()


@pytest.mark.parametrize("unset", [0, 0.0, -0.0, None, "80", True])
def test_from_patrol_falls_back_on_zero_or_unset(unset):
    got = signal_thresholds_from_patrol({"storage_warning": unset, "storage_critical": 91, "node_cpu_warning": unset})
    assert got.storage_warning_percent == 75.0
    assert got.storage_critical_percent == 91.0
    assert got.high_cpu_percent == 70.0
    assert got.high_memory_percent == 80.0


@pytest.mark.parametrize("kept", [-1, -0.5, 1e-300, 250, float("inf"), float("-inf")])
def test_from_patrol_keeps_negative_tiny_and_infinite_values(kept):
    got = signal_thresholds_from_patrol(PatrolThresholds(storage_warning=kept, node_mem_warning=kept))
    assert got.storage_warning_percent == kept and got.high_memory_percent == kept
    assert got.storage_critical_percent == 95.0


def test_from_patrol_keeps_nan():
    got = signal_thresholds_from_patrol({"node_cpu_warning": float("nan")})
    assert math.isnan(got.high_cpu_percent)


def test_a_kept_negative_warning_makes_an_empty_pool_fire():
    limits = signal_thresholds_from_patrol(PatrolThresholds(storage_warning=-1))
    assert kinds(detect(call("pulse_storage", {"pools": [{"id": "p"}]}, "pools"), thresholds=limits)) == [
        ("high_disk", "p", "warning"),
    ]


def test_a_nan_threshold_never_skips_a_pool_and_never_fires_cpu():
    limits = SignalThresholds(storage_warning_percent=math.nan, storage_critical_percent=math.nan, high_cpu_percent=math.nan)
    assert kinds(detect(pools(1), thresholds=limits)) == [("high_disk", "local-zfs", "warning")]
    assert kinds(detect(metrics(cpu=99), thresholds=limits)) == []


def test_from_patrol_never_changes_backup_staleness():
    class Config:
        storage_warning = 50
        backup_stale_threshold = timedelta(hours=1)

    got = signal_thresholds_from_patrol(Config())  # type: ignore[arg-type]
    assert got.storage_warning_percent == 50.0
    assert got.backup_stale_threshold == SIGNAL_BACKUP_STALE_THRESHOLD


# --- dispatch on the tool input's type ------------------------------------------------

EVERY_SHAPE = {
    "pools": [{"id": "tank", "name": "tank", "usage_percent": 99}],
    "disks": [{"id": "disk/sda", "node": "pve1", "health": "FAILED"}],
    "tasks": [{"vmid": 7, "status": "failed"}],
    "resources": [{"id": "node/pve1", "name": "pve1", "avg_cpu": 99}],
}
STORAGE_ALL = {("smart_failure", "disk/sda"), ("high_disk", "tank"), ("backup_failed", "7")}


@pytest.mark.parametrize(
    "tool, input_type, expected",
    [
        ("pulse_storage", "pools", {("high_disk", "tank")}),
        ("pulse_storage", "disk_health", {("smart_failure", "disk/sda")}),
        ("pulse_storage", "backup_tasks", {("backup_failed", "7")}),
        ("pulse_storage", "backups", set()),  # reads recent_tasks, not tasks
        ("pulse_storage", None, STORAGE_ALL),
        ("pulse_storage", "", STORAGE_ALL),
        ("pulse_storage", "Pools", set()),
        ("pulse_storage", " pools", set()),
        ("pulse_storage", "raid", set()),
        ("pulse_metrics", "performance", {("high_cpu", "node/pve1")}),
        ("pulse_metrics", "disks", {("smart_failure", "disk/sda")}),
        ("pulse_metrics", None, {("high_cpu", "node/pve1"), ("smart_failure", "disk/sda")}),
        ("pulse_metrics", "history", set()),
        ("pulse_query", None, set()),
        ("pulse_alerts", None, set()),
    ],
)
def test_readers_follow_the_input_type(tool, input_type, expected):
    assert {(s.signal_type.value, s.resource_id) for s in detect(call(tool, EVERY_SHAPE, input_type))} == expected


@pytest.mark.parametrize(
    "tool_input",
    ['{"type": 5}', '{"type": null}', '["pools"]', "not json", '{"Type": "pools"}', "null",
     '{"type": "pools", "n": 1e400}', '{"type": "pools", "n": NaN}'],
)
def test_an_input_without_a_readable_type_string_reads_as_no_type(tool_input):
    record = ToolCallRecord("pulse_storage", json.dumps(EVERY_SHAPE), True, tool_input)
    assert {(s.signal_type.value, s.resource_id) for s in detect(record)} == STORAGE_ALL


def test_the_last_duplicate_type_key_wins():
    record = ToolCallRecord("pulse_storage", json.dumps(EVERY_SHAPE), True, '{"type": "disk_health", "type": "pools"}')
    assert kinds(detect(record)) == [("high_disk", "tank", "critical")]


# --- pools -------------------------------------------------------------------------------


def pools(usage: float) -> ToolCallRecord:
    return call("pulse_storage", {"pools": [{"id": "local-zfs", "name": "local-zfs", "usage_percent": usage}]}, "pools")


@pytest.mark.parametrize(
    "usage, expected",
    [
        (SIGNAL_STORAGE_WARNING_PERCENT - EPS, []),
        (SIGNAL_STORAGE_WARNING_PERCENT, []),
        (SIGNAL_STORAGE_WARNING_PERCENT + EPS, ["warning"]),
        (SIGNAL_STORAGE_CRITICAL_PERCENT, ["warning"]),
        (SIGNAL_STORAGE_CRITICAL_PERCENT + EPS, ["critical"]),
        (100, ["critical"]),
    ],
)
def test_storage_edges(usage, expected):
    found = detect(pools(usage))
    assert [s.severity for s in found] == expected
    assert all(s.signal_type is SignalType.HIGH_DISK and s.resource_id == "local-zfs" for s in found)


def test_storage_uses_configured_thresholds():
    limits = SignalThresholds(storage_warning_percent=50.0, storage_critical_percent=60.0)
    assert kinds(detect(pools(50), thresholds=limits)) == []
    assert kinds(detect(pools(55), thresholds=limits)) == [("high_disk", "local-zfs", "warning")]
    assert kinds(detect(pools(61), thresholds=limits)) == [("high_disk", "local-zfs", "critical")]


def test_pool_resource_is_the_id_else_the_name_and_a_pool_with_neither_still_emits():
    record = call("pulse_storage", {"pools": [
        {"id": "storage/tank", "name": "tank", "usage_percent": 80},
        {"name": "scratch", "usage_percent": 81},
        {"usage_percent": 82.25},
    ]}, "pools")
    found = detect(record)
    assert [(s.resource_id, s.resource_name) for s in found] == [("storage/tank", "tank"), ("scratch", "scratch"), ("", "")]
    assert found[2].summary == "Storage pool  at 82.2% usage"
    assert found[0].summary == "Storage pool tank at 80.0% usage"
    assert (found[0].resource_type, found[0].category) == ("storage", "capacity")


def test_pool_names_are_not_trimmed():
    [signal] = detect(call("pulse_storage", {"pools": [{"id": " a ", "usage_percent": 90}]}, "pools"))
    assert signal.resource_id == " a "


# --- metrics -----------------------------------------------------------------------------


def metrics(cpu: float | None = None, memory: float | None = None, **extra: object) -> ToolCallRecord:
    res: dict[str, object] = {"id": "node/pve1", "name": "pve1", "type": "node", **extra}
    if cpu is not None:
        res["avg_cpu"] = cpu
    if memory is not None:
        res["avg_memory"] = memory
    return call("pulse_metrics", {"resources": [res]}, "performance")


@pytest.mark.parametrize(
    "value, fires",
    [(SIGNAL_HIGH_CPU_PERCENT - EPS, False), (SIGNAL_HIGH_CPU_PERCENT, False), (SIGNAL_HIGH_CPU_PERCENT + EPS, True)],
)
def test_cpu_edges(value, fires):
    assert kinds(detect(metrics(cpu=value))) == ([("high_cpu", "node/pve1", "warning")] if fires else [])


@pytest.mark.parametrize(
    "value, fires",
    [(SIGNAL_HIGH_MEMORY_PERCENT - EPS, False), (SIGNAL_HIGH_MEMORY_PERCENT, False), (SIGNAL_HIGH_MEMORY_PERCENT + EPS, True)],
)
def test_memory_edges(value, fires):
    assert kinds(detect(metrics(memory=value))) == ([("high_memory", "node/pve1", "warning")] if fires else [])


def test_metrics_fall_back_to_percent_fields_and_flat_shape():
    assert kinds(detect(metrics(cpu=0, cpu_percent=71))) == [("high_cpu", "node/pve1", "warning")]
    assert kinds(detect(metrics(cpu=-5, cpu_percent=71))) == [("high_cpu", "node/pve1", "warning")]
    assert kinds(detect(metrics(mem_percent=81))) == [("high_memory", "node/pve1", "warning")]
    assert kinds(detect(metrics(cpu=50, cpu_percent=99))) == []  # a positive average wins
    flat = call("pulse_metrics", {"id": "vm/100", "name": "web", "cpu_percent": 90, "mem_percent": 90})
    assert kinds(detect(flat)) == [("high_cpu", "vm/100", "warning"), ("high_memory", "vm/100", "warning")]
    assert detect(call("pulse_metrics", {"type": "vm", "cpu_percent": 90})) == []  # flat needs an id or a name


def test_a_metrics_resource_keeps_its_own_id_and_name():
    record = call("pulse_metrics", {"resources": [{"name": "web", "avg_cpu": 90}, {"avg_memory": 95}]})
    found = detect(record)
    assert [(s.signal_type.value, s.resource_id, s.resource_name) for s in found] == [
        ("high_cpu", "", "web"), ("high_memory", "", ""),
    ]
    assert found[0].summary == "High CPU usage on web: 90.0%" and found[0].category == "performance"


# --- guest reachability comes from the probe map -----------------------------------------


def test_reachability_reads_the_probe_map_in_order():
    probes = {
        "qemu/100": GuestIntelligence("db-server", "vm", False),
        "lxc/101": GuestIntelligence("", "system-container", False),
        "qemu/102": GuestIntelligence("web", "vm", True),
        "qemu/103": GuestIntelligence("cache", "vm", None),
        "qemu/104": None,
    }
    found = detect_reachability_signals(probes)
    assert [(s.resource_id, s.resource_name, s.resource_type) for s in found] == [
        ("qemu/100", "db-server", "vm"), ("lxc/101", "lxc/101", "system-container"),
    ]
    assert found[0].summary == "Guest db-server is running but not responding to ping"
    assert {(s.signal_type, s.severity, s.category) for s in found} == {(SignalType.GUEST_UNREACHABLE, "warning", "connectivity")}


def test_tool_output_never_gives_guest_unreachable():
    guests = {"guests": [{"id": "vm/200", "name": "db", "status": "running", "reachable": False}]}
    assert detect(call("pulse_query", guests), call("pulse_storage", guests), call("pulse_metrics", guests)) == []


# --- skipped calls, evidence, dedup and order ----------------------------------------------


@pytest.mark.parametrize("output", ["", "   ", "No storage pools found", "  no data", "State provider not available yet"])
def test_skipped_outputs(output):
    assert detect(ToolCallRecord("pulse_storage", output)) == []


def test_failed_calls_and_non_text_output_are_skipped():
    assert detect(call("pulse_storage", {"pools": [{"name": "x", "usage_percent": 99}]}, success=False)) == []
    assert detect(ToolCallRecord("pulse_storage", None)) == []  # type: ignore[arg-type]


def test_evidence_is_the_first_500_bytes_and_the_call_id_is_kept():
    head = '{"pools": [{"id": "p", "usage_percent": 90}], "x": "'
    odd = "a" * ((len(head) + 1) % 2)  # byte 500 then falls in the middle of an "é"
    output = head + odd + "é" * 400 + '"}'
    [signal] = detect(ToolCallRecord("pulse_storage", output, True, "", "tc-9"))
    assert signal.tool_call_id == "tc-9"
    assert signal.evidence == output.encode("utf-8")[:499].decode("utf-8")
    [ascii_signal] = detect(ToolCallRecord("pulse_storage", head + "a" * 600 + '"}'))
    assert ascii_signal.evidence == (head + "a" * 600)[:500]
    short = call("pulse_storage", {"pools": [{"id": "p", "usage_percent": 90}]})
    assert detect(short)[0].evidence == short.output


def test_dedup_by_type_and_resource_keeps_the_first():
    assert kinds(detect(pools(80), pools(99))) == [("high_disk", "local-zfs", "warning")]
    same_pool_twice = call("pulse_storage", {"pools": [{"name": "a", "usage_percent": 90}, {"name": "a", "usage_percent": 99}]})
    assert kinds(detect(same_pool_twice)) == [("high_disk", "a", "warning")]
    nameless = call("pulse_storage", {"pools": [{"usage_percent": 90}, {"usage_percent": 99}]}, "pools")
    assert kinds(detect(nameless)) == [("high_disk", "", "warning")]


def test_same_resource_different_types_are_kept():
    found = detect(metrics(cpu=90, memory=90), metrics(cpu=95))
    assert kinds(found) == [("high_cpu", "node/pve1", "warning"), ("high_memory", "node/pve1", "warning")]


def test_storage_readers_run_in_upstream_order_smart_pools_tasks_backups():
    payload = {**EVERY_SHAPE, "recent_tasks": [{"vmid": 9, "status": "error"}]}
    assert [s.signal_type.value for s in detect(call("pulse_storage", payload))] == [
        "smart_failure", "high_disk", "backup_failed", "backup_failed",
    ]


def test_order_follows_the_calls_and_is_repeatable():
    batch = [pools(99), metrics(cpu=91, memory=85), call("pulse_storage", {"disks": [{"id": "d1", "health": "FAILED"}]})]
    found = detect_signals(batch, now=NOW)
    assert kinds(found) == [
        ("high_disk", "local-zfs", "critical"), ("high_cpu", "node/pve1", "warning"),
        ("high_memory", "node/pve1", "warning"), ("smart_failure", "d1", "critical"),
    ]
    per_call = [detect_signals([record], now=NOW) for record in batch]
    assert detect_signals(list(reversed(batch)), now=NOW) == [s for group in reversed(per_call) for s in group]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["pools", "usage_percent", "name", "id", "disks", "health", "hosts", "smart", "tasks",
                         "recent_tasks", "status", "error", "end_time", "vmid", "pbs", "pve", "backup_time",
                         "resources", "avg_cpu", "mem_percent", "attributes", "pendingSectors", "node", "x"]),
        inner, max_size=6),
    max_leaves=30,
)


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(["pulse_storage", "pulse_metrics"]), json_values, st.booleans())
def test_arbitrary_json_never_raises(tool, value, success):
    found = detect_signals([ToolCallRecord(tool, json.dumps(value), success)], now=NOW)
    assert all(isinstance(s.signal_type, SignalType) for s in found)
    if not success:
        assert found == []


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=200), st.text(max_size=30))
def test_arbitrary_text_never_raises(text, tool_input):
    detect_signals([ToolCallRecord("pulse_storage", text, True, tool_input), ToolCallRecord("pulse_metrics", text)], now=NOW)
