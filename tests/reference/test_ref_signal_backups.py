"""Backup signals: task failure classification, the newest task per resource, the staleness
window, which guests are known, and the times read, as upstream's backup detectors decide them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from reference_impl.ai.patrol_signals.backups import parse_time
from reference_impl.ai.patrol_signals.detect import detect_signals
from reference_impl.ai.patrol_signals.types import SIGNAL_BACKUP_STALE_THRESHOLD, DetectedSignal, ToolCallRecord

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def read(payload: object, input_type: str) -> list[DetectedSignal]:
    record = ToolCallRecord("pulse_storage", json.dumps(payload), True, json.dumps({"type": input_type}))
    return detect_signals([record], now=NOW)


def kinds(found: list[DetectedSignal]) -> list[tuple[str, str]]:
    return [(s.signal_type.value, s.resource_id) for s in found]


def tasks(*entries: dict) -> list[DetectedSignal]:
    return read({"tasks": list(entries), "node": "pve1"}, "backup_tasks")


# --- backup_tasks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task, failed",
    [
        ({"status": "OK"}, False),
        ({"status": " ok "}, False),
        ({"status": "backup successful"}, False),
        ({"status": ""}, False),
        ({"status": "aborted"}, True),
        ({"status": "ERROR: disk full"}, True),
        ({"status": "success with errors"}, True),  # an error in the status overrides success
        ({"status": "SUCCESS, 1 failed"}, True),
        ({"status": "running"}, False),
        ({"status": "active: error retry"}, False),  # running/active clears a failing status
        ({"status": "running", "error": "disk full"}, True),  # an error field overrides running
        ({"status": "active", "error": " 0 "}, False),
        ({"status": "OK", "error": "checksum mismatch"}, True),
        ({"status": "OK", "error": "NULL"}, False),
        ({"status": "OK", "error": "  "}, False),
        ({"error": "timeout"}, True),
    ],
)
def test_failed_backup_classification(task, failed):
    found = tasks({"vmid": 101, "vm_name": "web", "end_time": iso(NOW - timedelta(hours=1)), **task})
    assert kinds(found) == ([("backup_failed", "101")] if failed else [])


def test_summary_is_the_raw_status_else_the_error_and_name_is_vm_name_else_vmid():
    [with_status] = tasks({"vmid": 101, "vm_name": "web", "status": " aborted "})
    assert (with_status.summary, with_status.resource_name) == ("Backup task failed:  aborted ", "web")
    [with_error] = tasks({"vmid": "102", "status": "  ", "error": "no space"})
    assert (with_error.summary, with_error.resource_name) == ("Backup task failed: no space", "102")
    assert (with_error.resource_type, with_error.category, with_error.severity) == ("backup", "backup", "warning")


def test_only_the_newest_task_per_guest_counts_and_a_tie_keeps_the_first():
    old_fail = {"vmid": 101, "status": "failed", "end_time": iso(NOW - timedelta(hours=5))}
    new_ok = {"vmid": 101, "status": "OK", "end_time": iso(NOW - timedelta(hours=1))}
    assert tasks(old_fail, new_ok) == []
    assert kinds(tasks(new_ok, old_fail | {"end_time": iso(NOW)})) == [("backup_failed", "101")]
    same_time = {"end_time": iso(NOW - timedelta(hours=1))}
    assert kinds(tasks({"vmid": 5, "status": "failed", **same_time}, {"vmid": 5, "status": "ok", **same_time})) == [
        ("backup_failed", "5"),
    ]


@pytest.mark.parametrize(
    "age, counted",
    [(SIGNAL_BACKUP_STALE_THRESHOLD, True), (SIGNAL_BACKUP_STALE_THRESHOLD + timedelta(seconds=1), False), (-timedelta(days=1), True)],
)
def test_the_window_edge_for_failures(age, counted):
    assert kinds(tasks({"vmid": 101, "status": "failed", "end_time": iso(NOW - age)})) == (
        [("backup_failed", "101")] if counted else []
    )


def test_task_time_is_end_then_start_then_now():
    old = iso(NOW - timedelta(days=5))
    assert tasks({"vmid": 1, "status": "failed", "end_time": old, "start_time": iso(NOW)}) == []
    assert kinds(tasks({"vmid": 1, "status": "failed", "end_time": "soon", "start_time": iso(NOW)})) == [("backup_failed", "1")]
    assert tasks({"vmid": 1, "status": "failed", "end_time": "soon", "start_time": old}) == []
    assert kinds(tasks({"vmid": 1, "status": "failed", "start_time": "yesterday-ish"})) == [("backup_failed", "1")]


@pytest.mark.parametrize(
    "vmid, resource",
    [(101, "101"), (" 7 ", "7"), ("0", "pve9"), (0, "pve9"), (None, "pve9"), (1.5, "1.5"), (1e2, "100.0")],
)
def test_vmid_strings_and_numbers_then_the_node(vmid, resource):
    [signal] = tasks({"vmid": vmid, "node": "pve9", "status": "failed"})
    assert signal.resource_id == resource


def test_a_task_without_vmid_or_node_falls_back_to_the_top_level_node_then_to_nothing():
    assert kinds(tasks({"status": "failed"})) == [("backup_failed", "pve1")]
    [nameless] = read({"tasks": [{"status": "failed"}]}, "backup_tasks")
    assert (nameless.resource_id, nameless.resource_name) == ("", "")


@pytest.mark.parametrize("bad", [{"vmid": True}, {"vmid": [1]}, {"status": 5}, {"end_time": 12}])
def test_a_mistyped_task_field_fails_the_whole_list(bad):
    assert tasks({"vmid": 1, "status": "failed"}, {"status": "failed", **bad}) == []


# --- backups: recent tasks and staleness -------------------------------------------------


def backups(newest: datetime, *, vmid: object = 101, known: object = 101) -> list[DetectedSignal]:
    payload: dict[str, object] = {
        "pve": [{"vmid": vmid, "backup_time": iso(newest - timedelta(days=3))}, {"vmid": vmid, "backup_time": iso(newest)}],
        "recent_tasks": [{"vmid": known, "status": "OK", "start_time": iso(NOW)}],
    }
    return read(payload, "backups")


@pytest.mark.parametrize(
    "age, stale",
    [(SIGNAL_BACKUP_STALE_THRESHOLD - timedelta(seconds=1), False), (SIGNAL_BACKUP_STALE_THRESHOLD, False),
     (SIGNAL_BACKUP_STALE_THRESHOLD + timedelta(seconds=1), True), (timedelta(0), False)],
)
def test_backup_staleness_window_edge(age, stale):
    assert kinds(backups(NOW - age)) == ([("backup_stale", "101")] if stale else [])


def test_stale_summary_names_48_hours_and_the_guest():
    [signal] = backups(NOW - timedelta(days=4))
    assert signal.summary == "No backup completed in 48+ hours for VM/CT 101"


def test_known_guests_come_only_from_recent_tasks_with_integer_vmids():
    old = iso(NOW - timedelta(days=5))
    only_tasks = {"tasks": [{"vmid": 101, "status": "ok"}], "pve": [{"vmid": 101, "backup_time": old}]}
    assert read(only_tasks, "backups") == []
    assert backups(NOW - timedelta(days=5), known=0) == []
    assert backups(NOW - timedelta(days=5), known="101") == []  # a string vmid fails the whole shape
    pbs = {"recent_tasks": [{"vmid": 101}], "pbs": [{"vmid": " 101 ", "backup_time": old}, {"vmid": "0", "backup_time": old}]}
    assert kinds(read(pbs, "backups")) == [("backup_stale", "101")]
    assert read({"recent_tasks": [{"vmid": 101}], "pbs": [{"vmid": 101, "backup_time": old}]}, "backups") == []
    unknown = {"recent_tasks": [{"vmid": 5}], "pbs": [{"vmid": "101", "backup_time": old}], "pve": [{"vmid": 102, "backup_time": old}]}
    assert read(unknown, "backups") == []


def test_recent_task_failures_use_start_time_and_fall_back_to_node_then_backup():
    payload = {"recent_tasks": [
        {"vmid": 5, "status": "error", "start_time": iso(NOW - timedelta(hours=2))},
        {"vmid": 0, "node": "pve2", "status": "failed"},
        {"status": "aborted"},
        {"vmid": 6, "status": ""},
        {"vmid": 7, "status": "running error"},
        {"vmid": 8, "status": "failed", "start_time": iso(NOW - timedelta(days=3))},
    ]}
    found = read(payload, "backups")
    assert kinds(found) == [("backup_failed", "5"), ("backup_failed", "pve2"), ("backup_failed", "backup")]
    assert [s.resource_name for s in found] == ["5", "pve2", "backup"]


def test_a_backup_time_without_a_zone_counts_as_utc():
    old = {"recent_tasks": [{"vmid": 101}], "pve": [{"vmid": 101, "backup_time": "2025-02-20 03:00:00"}]}
    assert kinds(read(old, "backups")) == [("backup_stale", "101")]
    recent = {"recent_tasks": [{"vmid": 101}], "pbs": [{"vmid": "101", "backup_time": "2025-02-28T12:00:00"}]}
    assert kinds(read(recent, "backups")) == []


def test_a_stale_guest_with_no_readable_backup_time_gives_nothing():
    payload = {"recent_tasks": [{"vmid": 101}], "pve": [{"vmid": 101, "backup_time": "2025-02-01 03:00:00 UTC"}]}
    assert read(payload, "backups") == []


# --- times, as tryParseTime reads them (upstream patrol_signals.go at c313a80da) ------------
# time.Parse with RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", RFC3339Nano in turn.


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2025-02-26T11:59:59Z", datetime(2025, 2, 26, 11, 59, 59, tzinfo=timezone.utc)),
        ("2025-02-26T12:59:59+01:00", datetime(2025, 2, 26, 11, 59, 59, tzinfo=timezone.utc)),
        ("2025-02-26T06:29:59-05:30", datetime(2025, 2, 26, 11, 59, 59, tzinfo=timezone.utc)),
        ("2025-02-26T11:59:59.123456789Z", datetime(2025, 2, 26, 11, 59, 59, 123456, tzinfo=timezone.utc)),
        ("2025-02-26T11:59:59,5Z", datetime(2025, 2, 26, 11, 59, 59, 500000, tzinfo=timezone.utc)),
        ("2025-02-26T1:59:59Z", datetime(2025, 2, 26, 1, 59, 59, tzinfo=timezone.utc)),  # "15" takes one digit
    ],
)
def test_rfc3339_times_are_read(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    "text",
    ["2025-02-26 11:59:59Z", "2025-02-26t11:59:59Z", "2025-02-26T11:59:59z", " 2025-02-26T11:59:59Z",
     "2025-02-26T11:59:59Z ", "2025-02-30T00:00:00Z", "2025-02-26T24:00:00Z", "2025-02-26T11:59:60Z", "2025-02-26",
     "2025-02-26T11:59:59+0100", "2025-02-26T11:59:59.Z", "٢٠٢٥-02-26T11:59:59Z", "2025-01-01T00:00:00+99:00"],
)
def test_other_times_are_unreadable(text):
    assert parse_time(text) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2025-02-26T11:59:59", datetime(2025, 2, 26, 11, 59, 59, tzinfo=timezone.utc)),
        ("2025-02-26 11:59:59", datetime(2025, 2, 26, 11, 59, 59, tzinfo=timezone.utc)),
        ("2025-02-26 11:59:59.25", datetime(2025, 2, 26, 11, 59, 59, 250000, tzinfo=timezone.utc)),
        ("2025-02-26T11:59:59,5", datetime(2025, 2, 26, 11, 59, 59, 500000, tzinfo=timezone.utc)),
        ("2025-02-26 1:02:03", datetime(2025, 2, 26, 1, 2, 3, tzinfo=timezone.utc)),
    ],
)
def test_a_time_without_a_zone_is_read_as_utc(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    "text", ["2025-02-26 11:59:59+01:00", "2025-02-26T11:59:5Z", "2025-02-26T111:59:59", "2025-02-26 11:59",
             "2025-02-26  11:59:59", "2025-02-26 11:59:59 "],
)
def test_a_zone_needs_the_t_and_the_fields_their_digits(text):
    assert parse_time(text) is None
