"""SMART signals: health strings, risk counters, severities and resource fallbacks, as
upstream's smartDiskSignal decides them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from reference_impl.ai.patrol_signals.detect import detect_signals
from reference_impl.ai.patrol_signals.types import DetectedSignal, ToolCallRecord

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def smart(payload: object, tool: str = "pulse_storage", input_type: str = "disk_health") -> list[DetectedSignal]:
    record = ToolCallRecord(tool, json.dumps(payload), True, json.dumps({"type": input_type}))
    return detect_signals([record], now=NOW)


def one_disk(**fields: object) -> list[DetectedSignal]:
    return smart({"disks": [{"id": "disk/sda", "device": "/dev/sda", **fields}]})


@pytest.mark.parametrize(
    "health, fires",
    [("FAILED", True), ("failing", True), (" FAILED ", True), ("PASSED", False), ("ok", False), (" Unknown ", False),
     ("", False), ("   ", False), (None, False)],
)
def test_health_strings(health, fires):
    found = one_disk(health=health)
    assert [(s.resource_id, s.severity) for s in found] == ([("disk/sda", "critical")] if fires else [])


def test_a_mistyped_health_fails_the_whole_shape():
    assert smart({"disks": [{"id": "a", "health": "FAILED"}, {"id": "b", "health": 3}]}) == []


@pytest.mark.parametrize(
    "counters, severity, parts",
    [
        ({"reallocatedSectors": 8}, "warning", "reallocated sectors=8"),
        ({"udmaCrcErrors": 2}, "warning", "UDMA CRC errors=2"),
        ({"pendingSectors": 1}, "critical", "pending sectors=1"),
        ({"offlineUncorrectable": 4}, "critical", "offline uncorrectable=4"),
        ({"mediaErrors": 1}, "critical", "media errors=1"),
        ({"mediaErrors": 3, "reallocatedSectors": 1, "udmaCrcErrors": 2, "pendingSectors": 5, "offlineUncorrectable": 6},
         "critical", "reallocated sectors=1, pending sectors=5, offline uncorrectable=6, UDMA CRC errors=2, media errors=3"),
    ],
)
def test_counters_above_zero_fire_with_their_severity(counters, severity, parts):
    [signal] = one_disk(health="PASSED", attributes=counters)
    assert signal.severity == severity
    assert signal.summary == f"SMART counters indicate disk risk for /dev/sda: {parts}"


@pytest.mark.parametrize("value", [0, -1, None])
def test_zero_negative_or_null_counters_do_not_fire(value):
    assert one_disk(health="OK", attributes={"reallocatedSectors": value, "mediaErrors": value}) == []


def test_a_fractional_counter_fails_the_whole_shape():
    assert one_disk(health="FAILED", attributes={"pendingSectors": 1.5}) == []


def test_health_failure_and_counters_share_one_summary():
    [signal] = one_disk(health="failed", smart_attributes={"reallocatedSectors": 2})
    assert signal.severity == "critical"
    assert signal.summary == "SMART health check: FAILED for /dev/sda; counters: reallocated sectors=2"
    assert (signal.resource_type, signal.category) == ("disk", "reliability")


def test_each_counter_comes_from_the_first_object_that_sets_it():
    [signal] = one_disk(
        attributes={"pendingSectors": None, "reallocatedSectors": 0},
        smart_attributes={"pendingSectors": 0, "reallocatedSectors": 5},
        smartAttributes={"pendingSectors": 9, "mediaErrors": 1},
    )
    # pendingSectors: null in attributes is unset, 0 in smart_attributes is set and wins over 9;
    # reallocatedSectors: 0 in attributes wins over 5.
    assert signal.summary == "SMART counters indicate disk risk for /dev/sda: media errors=1"


def test_counter_keys_match_case_insensitively():
    [signal] = one_disk(ATTRIBUTES={"PENDINGSECTORS": 2})
    assert signal.summary.endswith("pending sectors=2")


@pytest.mark.parametrize(
    "disk, expected",
    [
        ({"id": " disk/sdb ", "device": " /dev/sdb ", "node": "n"}, ("disk/sdb", "/dev/sdb", "disk")),
        ({"dev_path": "/dev/disk/by-id/x", "model": "WD", "node": "pve9"}, ("pve9", "/dev/disk/by-id/x", "node")),
        ({"model": "WD Red"}, ("pve1", "WD Red", "node")),
        ({"id": "", "serial": "S1"}, ("pve1", "disk", "node")),
    ],
)
def test_disk_resource_and_name_fallbacks(disk, expected):
    [signal] = smart({"node": "pve1", "disks": [{**disk, "health": "FAILED"}]})
    assert (signal.resource_id, signal.resource_name, signal.resource_type) == expected


def test_host_disks_fall_back_to_the_hostname_only_then_to_the_disk_name():
    payload = {"node": "top", "hosts": [
        {"hostname": "pve2", "smart": [{"device": "/dev/sdb", "health": "FAILED"}]},
        {"hostname": "", "smart": [{"device": "/dev/sdc", "health": "FAILED"}]},
        {"smart": [{"health": "FAILED"}]},
    ]}
    found = smart(payload)
    assert [(s.resource_id, s.resource_name, s.resource_type) for s in found] == [
        ("pve2", "/dev/sdb", "node"), ("/dev/sdc", "/dev/sdc", "node"), ("disk", "disk", "node"),
    ]


def test_metrics_disks_fall_back_to_their_own_node_only():
    payload = {"node": "top", "disks": [{"model": "WD", "node": "pve3", "health": "FAILED"}, {"model": "ST", "health": "FAILED"}]}
    found = smart(payload, tool="pulse_metrics", input_type="disks")
    assert [(s.resource_id, s.resource_name) for s in found] == [("pve3", "WD"), ("ST", "ST")]
    assert smart({"hosts": [{"hostname": "h", "smart": [{"health": "FAILED"}]}]}, tool="pulse_metrics", input_type="disks") == []
