"""Deterministic signal detection: thresholds at their edges, bad output, dedup."""

from __future__ import annotations

import ast
import dataclasses
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl import signal_types
from reference_impl.signals import (
    SIGNAL_BACKUP_STALE_THRESHOLD,
    SIGNAL_HIGH_CPU_PERCENT,
    SIGNAL_HIGH_MEMORY_PERCENT,
    SIGNAL_STORAGE_CRITICAL_PERCENT,
    SIGNAL_STORAGE_WARNING_PERCENT,
    PatrolThresholds,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    default_signal_thresholds,
    detect_signals,
    signal_thresholds_from_patrol,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
EPS = 1e-9


def call(tool: str, payload: object, success: bool = True) -> ToolCallRecord:
    return ToolCallRecord(tool, payload if isinstance(payload, str) else json.dumps(payload), success)


def detect(*calls: ToolCallRecord, thresholds: SignalThresholds | None = None) -> list:
    return detect_signals(list(calls), thresholds, now=NOW)


def kinds(found: list) -> list[tuple[str, str, str]]:
    return [(s.signal_type.value, s.resource_id, s.severity) for s in found]


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- vocabulary and constants ----------------------------------------------------


def test_signal_types_are_the_seven_upstream_values():
    assert [t.value for t in SignalType] == [
        "smart_failure", "high_cpu", "high_memory", "high_disk", "backup_failed", "backup_stale", "guest_unreachable",
    ]
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


def test_signal_type_members_are_literal():
    tree = ast.parse(Path(signal_types.__file__).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SignalType")
    literal = {s.targets[0].id: s.value.value for s in cls.body if isinstance(s, ast.Assign)}
    assert literal == {t.name: t.value for t in SignalType}


def test_defaults_and_frozen():
    d = default_signal_thresholds()
    assert d == SignalThresholds(75.0, 95.0, 70.0, 80.0, timedelta(hours=48))
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.high_cpu_percent = 1.0  # type: ignore[misc]


# --- thresholds from the Patrol config -------------------------------------------


def test_from_patrol_takes_configured_values():
    got = signal_thresholds_from_patrol(PatrolThresholds(60, 90, 50, 65))
    assert got == SignalThresholds(60.0, 90.0, 50.0, 65.0, SIGNAL_BACKUP_STALE_THRESHOLD)


@pytest.mark.parametrize("config", [None, PatrolThresholds(), {}, {"unrelated": 5}])
def test_from_patrol_empty_config_is_the_defaults(config):
    assert signal_thresholds_from_patrol(config) == default_signal_thresholds()


@pytest.mark.parametrize("bad", [0, 0.0, -5, None, "80", True, float("nan"), float("inf")])
def test_from_patrol_falls_back_per_field(bad):
    got = signal_thresholds_from_patrol({"storage_warning": bad, "storage_critical": 91, "node_cpu_warning": bad, "node_mem_warning": 66.5})
    assert got.storage_warning_percent == SIGNAL_STORAGE_WARNING_PERCENT
    assert got.storage_critical_percent == 91.0
    assert got.high_cpu_percent == SIGNAL_HIGH_CPU_PERCENT
    assert got.high_memory_percent == 66.5


def test_from_patrol_never_changes_backup_staleness():
    class Config:
        storage_warning = 50
        backup_stale_threshold = timedelta(hours=1)

    got = signal_thresholds_from_patrol(Config())  # type: ignore[arg-type]
    assert got.storage_warning_percent == 50.0
    assert got.backup_stale_threshold == SIGNAL_BACKUP_STALE_THRESHOLD


# --- threshold edges ----------------------------------------------------------------


def pools(usage: float) -> ToolCallRecord:
    return call("pulse_storage", {"pools": [{"id": "local-zfs", "name": "local-zfs", "usage_percent": usage}]})


@pytest.mark.parametrize(
    "usage, expected",
    [
        (SIGNAL_STORAGE_WARNING_PERCENT - 0.1, []),
        (SIGNAL_STORAGE_WARNING_PERCENT - EPS, []),
        (SIGNAL_STORAGE_WARNING_PERCENT, []),
        (SIGNAL_STORAGE_WARNING_PERCENT + EPS, ["warning"]),
        (80, ["warning"]),
        (SIGNAL_STORAGE_CRITICAL_PERCENT - EPS, ["warning"]),
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


def metrics(cpu: float | None = None, memory: float | None = None, **extra: object) -> ToolCallRecord:
    res: dict[str, object] = {"id": "node/pve1", "name": "pve1", "type": "node", **extra}
    if cpu is not None:
        res["avg_cpu"] = cpu
    if memory is not None:
        res["avg_memory"] = memory
    return call("pulse_metrics", {"resources": [res]})


@pytest.mark.parametrize(
    "value, fires",
    [(SIGNAL_HIGH_CPU_PERCENT - EPS, False), (SIGNAL_HIGH_CPU_PERCENT, False), (SIGNAL_HIGH_CPU_PERCENT + EPS, True), (99, True)],
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
    assert kinds(detect(metrics(mem_percent=81))) == [("high_memory", "node/pve1", "warning")]
    assert kinds(detect(metrics(cpu=50, cpu_percent=99))) == []  # a positive average wins
    flat = call("pulse_metrics", {"id": "vm/100", "name": "web", "cpu_percent": 90, "mem_percent": 90})
    assert kinds(detect(flat)) == [("high_cpu", "vm/100", "warning"), ("high_memory", "vm/100", "warning")]


def backups(newest: datetime, *, vmid: object = 101, known: bool = True) -> ToolCallRecord:
    payload: dict[str, object] = {"pve": [{"vmid": vmid, "backup_time": iso(newest - timedelta(days=3))}, {"vmid": vmid, "backup_time": iso(newest)}]}
    if known:
        payload["recent_tasks"] = [{"vmid": 101, "status": "OK", "start_time": iso(NOW)}]
    return call("pulse_storage", payload)


@pytest.mark.parametrize(
    "age, stale",
    [
        (SIGNAL_BACKUP_STALE_THRESHOLD - timedelta(seconds=1), False),
        (SIGNAL_BACKUP_STALE_THRESHOLD, False),
        (SIGNAL_BACKUP_STALE_THRESHOLD + timedelta(seconds=1), True),
        (timedelta(days=30), True),
        (timedelta(0), False),
    ],
)
def test_backup_staleness_window_edge(age, stale):
    expected = [("backup_stale", "101", "warning")] if stale else []
    assert kinds(detect(backups(NOW - age))) == expected


def test_stale_needs_the_guest_in_the_task_lists():
    assert kinds(detect(backups(NOW - timedelta(days=5), known=False))) == []
    assert kinds(detect(backups(NOW - timedelta(days=5), vmid="101"))) == [("backup_stale", "101", "warning")]


def test_staleness_follows_the_injected_now():
    record = backups(NOW - timedelta(hours=47))
    assert kinds(detect_signals([record], now=NOW)) == []
    assert kinds(detect_signals([record], now=NOW + timedelta(hours=2))) == [("backup_stale", "101", "warning")]
    naive = (NOW + timedelta(hours=2)).replace(tzinfo=None)
    assert kinds(detect_signals([record], now=naive)) == [("backup_stale", "101", "warning")]


@pytest.mark.parametrize("text", ["2025-02-26T11:59:59Z", "2025-02-26T12:59:59+01:00", "2025-02-26 11:59:59", "2025-02-26T11:59:59.123456789Z"])
def test_backup_time_formats(text):
    payload = {"pbs": [{"vmid": "101", "backup_time": text}], "tasks": [{"vmid": "101", "status": "ok"}]}
    assert kinds(detect(call("pulse_storage", payload))) == [("backup_stale", "101", "warning")]


# --- backup failures ----------------------------------------------------------------


def tasks(*entries: dict) -> ToolCallRecord:
    return call("pulse_storage", {"tasks": list(entries), "node": "pve1"})


@pytest.mark.parametrize(
    "task, failed",
    [
        ({"status": "OK"}, False),
        ({"status": "backup successful"}, False),
        ({"status": "running"}, False),
        ({"status": "active", "error": ""}, False),
        ({"status": ""}, False),
        ({"status": "ERROR: disk full"}, True),
        ({"status": "failed"}, True),
        ({"status": "aborted"}, True),
        ({"status": "OK", "error": "checksum mismatch"}, True),
        ({"status": "OK", "error": "null"}, False),
        ({"error": "timeout"}, True),
    ],
)
def test_failed_backup_classification(task, failed):
    record = tasks({"vmid": 101, "vm_name": "web", "end_time": iso(NOW - timedelta(hours=1)), **task})
    assert kinds(detect(record)) == ([("backup_failed", "101", "warning")] if failed else [])


def test_only_the_newest_task_per_guest_counts():
    old_fail = {"vmid": 101, "status": "failed", "end_time": iso(NOW - timedelta(hours=5))}
    new_ok = {"vmid": 101, "status": "OK", "end_time": iso(NOW - timedelta(hours=1))}
    assert kinds(detect(tasks(old_fail, new_ok))) == []
    assert kinds(detect(tasks(new_ok | {"status": "OK"}, old_fail | {"end_time": iso(NOW)}))) == [("backup_failed", "101", "warning")]


def test_failures_outside_the_window_are_ignored():
    edge = {"vmid": 101, "status": "failed", "end_time": iso(NOW - SIGNAL_BACKUP_STALE_THRESHOLD)}
    assert kinds(detect(tasks(edge))) == [("backup_failed", "101", "warning")]
    older = edge | {"end_time": iso(NOW - SIGNAL_BACKUP_STALE_THRESHOLD - timedelta(seconds=1))}
    assert kinds(detect(tasks(older))) == []


def test_task_without_vmid_or_time_uses_node_and_now():
    assert kinds(detect(tasks({"status": "failed", "start_time": "yesterday-ish"}))) == [("backup_failed", "pve1", "warning")]


# --- SMART and guests -----------------------------------------------------------------


@pytest.mark.parametrize("health, fires", [("FAILED", True), ("failing", True), ("PASSED", False), ("ok", False), ("Unknown", False), ("", False), (None, False), (3, False)])
def test_smart_health(health, fires):
    record = call("pulse_storage", {"disks": [{"id": "disk/sda", "device": "/dev/sda", "health": health}]})
    assert kinds(detect(record)) == ([("smart_failure", "disk/sda", "critical")] if fires else [])


def test_smart_hosts_and_resource_fallbacks():
    record = call("pulse_storage", {"hosts": [{"hostname": "pve2", "smart": [{"device": "/dev/sdb", "health": "FAILED"}]}]})
    [signal] = detect(record)
    assert (signal.resource_id, signal.resource_type, signal.resource_name) == ("pve2", "node", "/dev/sdb")
    via_metrics = call("pulse_metrics", {"disks": [{"model": "WD", "node": "pve3", "health": "FAILED"}]})
    assert kinds(detect(via_metrics)) == [("smart_failure", "pve3", "critical")]


@pytest.mark.parametrize(
    "guest, fires",
    [
        ({"reachable": False, "status": "running"}, True),
        ({"reachable": False}, True),
        ({"reachable": False, "status": "RUNNING"}, True),
        ({"reachable": False, "status": "stopped"}, False),
        ({"reachable": True, "status": "running"}, False),
        ({"status": "running"}, False),
        ({"reachable": "false", "status": "running"}, False),
        ({"reachable": 0, "status": "running"}, False),
        ({"reachable": False, "status": None}, False),
    ],
)
def test_guest_reachability(guest, fires):
    record = call("pulse_query", {"guests": [{"id": "vm/200", "name": "db", "type": "vm", **guest}]})
    assert kinds(detect(record)) == ([("guest_unreachable", "vm/200", "warning")] if fires else [])


# --- bad output never raises ------------------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        "", "   ", "not json", "{", "No storage pools found", "no data", "State provider not available",
        "[]", "null", "42", '"pools"', '{"pools": null}', '{"pools": "many"}', '{"pools": {"name": "x"}}',
        '{"pools": [1, "x", null, []]}', '{"pools": [{"name": "x"}]}', '{"pools": [{"name": "x", "usage_percent": "99"}]}',
        '{"pools": [{"name": "x", "usage_percent": true}]}', '{"pools": [{"name": "x", "usage_percent": null}]}',
        '{"pools": [{"name": "x", "usage_percent": NaN}]}', '{"pools": [{"name": "x", "usage_percent": Infinity}]}',
        '{"pools": [{"name": "x", "usage_percent": 1e400}]}', '{"pools": [{"usage_percent": 99}]}',
        '{"pools": [{"name": 5, "id": ["a"], "usage_percent": 99}]}', '{"tasks": [{"vmid": {"a": 1}, "status": 5}]}',
        '{"tasks": [{"vmid": true, "status": "failed", "end_time": 12}]}', '{"pbs": [{"vmid": [], "backup_time": {}}]}',
        '{"pve": [{"vmid": 101, "backup_time": "2025-13-45T99:99:99Z"}], "tasks": [{"vmid": 101}]}',
        '{"pve": [{"vmid": 101, "backup_time": "0001-01-01T00:00:00+23:59"}], "tasks": [{"vmid": 101}]}',
        '{"pve": [{"vmid": 101, "backup_time": "2025-01-01T00:00:00+99:00"}], "tasks": [{"vmid": 101}]}',
        '{"disks": [{"health": ["FAILED"]}], "hosts": [{"smart": "x"}, 7]}', '{"resources": [{"avg_cpu": 99}]}',
        '{"resources": "x", "avg_cpu": 99}', '{"guests": [{"reachable": false}]}', "[" * 50_000, '{"a":' * 50_000,
        "\x00\xff garbage", "1" * 5000,
    ],
)
@pytest.mark.parametrize("tool", ["pulse_storage", "pulse_metrics", "pulse_query"])
def test_malformed_output_gives_no_signal(tool, output):
    assert detect(ToolCallRecord(tool, output)) == []


def test_failed_calls_and_non_text_output_are_skipped():
    assert detect(call("pulse_storage", {"pools": [{"name": "x", "usage_percent": 99}]}, success=False)) == []
    assert detect(ToolCallRecord("pulse_storage", None)) == []  # type: ignore[arg-type]
    assert detect(ToolCallRecord("pulse_storage", b'{"pools": []}')) == []  # type: ignore[arg-type]


def test_unknown_tools_are_not_read():
    payload = {"pools": [{"name": "x", "usage_percent": 99}], "guests": [{"id": "g", "reachable": False}]}
    assert detect(call("pulse_read", payload), call("patrol_get_findings", payload)) == []


def test_json_embedded_in_text_is_read():
    text = 'Storage pools:\n{"pools": [{"name": "tank", "usage_percent": 97.5}]}\n(2 pools shown)'
    assert kinds(detect(ToolCallRecord("pulse_storage", text))) == [("high_disk", "tank", "critical")]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["pools", "usage_percent", "name", "id", "disks", "health", "hosts", "smart", "tasks",
                         "recent_tasks", "status", "error", "end_time", "vmid", "pbs", "pve", "backup_time",
                         "resources", "avg_cpu", "mem_percent", "guests", "reachable", "node", "x"]),
        inner, max_size=6),
    max_leaves=30,
)


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(["pulse_storage", "pulse_metrics", "pulse_query"]), json_values, st.booleans())
def test_arbitrary_json_never_raises(tool, value, success):
    found = detect_signals([ToolCallRecord(tool, json.dumps(value), success)], now=NOW)
    assert all(isinstance(s.signal_type, SignalType) and s.resource_id for s in found)
    if not success:
        assert found == []


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text):
    detect_signals([ToolCallRecord("pulse_storage", text), ToolCallRecord("pulse_metrics", text)], now=NOW)


# --- dedup and determinism ----------------------------------------------------------


def test_dedup_by_type_and_resource_keeps_the_first():
    first = pools(80)
    second = pools(99)
    assert kinds(detect(first, second)) == [("high_disk", "local-zfs", "warning")]
    same_pool_twice = call("pulse_storage", {"pools": [{"name": "a", "usage_percent": 90}, {"name": "a", "usage_percent": 99}]})
    assert kinds(detect(same_pool_twice)) == [("high_disk", "a", "warning")]


def test_same_resource_different_types_are_kept():
    found = detect(metrics(cpu=90, memory=90), metrics(cpu=95))
    assert kinds(found) == [("high_cpu", "node/pve1", "warning"), ("high_memory", "node/pve1", "warning")]


def test_order_follows_the_calls_and_is_repeatable():
    batch = [
        pools(99),
        call("pulse_query", {"guests": [{"id": "vm/9", "reachable": False}]}),
        metrics(cpu=91, memory=85),
        tasks({"vmid": 7, "status": "failed"}, {"vmid": 3, "status": "failed"}),
        call("pulse_storage", {"disks": [{"id": "d1", "health": "FAILED"}]}),
        backups(NOW - timedelta(days=4)),
    ]
    found = detect_signals(batch, now=NOW)
    assert kinds(found) == [
        ("high_disk", "local-zfs", "critical"),
        ("guest_unreachable", "vm/9", "warning"),
        ("high_cpu", "node/pve1", "warning"),
        ("high_memory", "node/pve1", "warning"),
        ("backup_failed", "7", "warning"),
        ("backup_failed", "3", "warning"),
        ("smart_failure", "d1", "critical"),
        ("backup_stale", "101", "warning"),
    ]
    per_call = [detect_signals([record], now=NOW) for record in batch]
    assert found == [signal for group in per_call for signal in group]
    assert detect_signals(list(reversed(batch)), now=NOW) == [s for group in reversed(per_call) for s in group]
    assert detect_signals(batch, now=NOW) == found
    assert {s.signal_type for s in found} == set(SignalType)
