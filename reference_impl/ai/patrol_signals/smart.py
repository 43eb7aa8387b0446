"""SMART signals: a failing health status or non-zero risk counters on a disk.

A disk record carries ``health`` and up to three counter objects
(``attributes``, ``smart_attributes``, ``smartAttributes``); each counter is
taken from the first object that sets it. ``smart_failure`` fires when the
health is set and is not PASSED, OK or UNKNOWN (any case), or when any
counter is above zero. It is critical for a health failure or a non-zero
pending sectors, offline uncorrectable or media errors count, and a warning
when only reallocated sectors or UDMA CRC errors are counted.
"""

from __future__ import annotations

from reference_impl.ai.patrol_signals.types import (
    DetectedSignal,
    SignalCategory,
    SignalType,
    ToolCallRecord,
    evidence_of,
)
from reference_impl.ai.patrol_signals.unmarshal import ListOf, Scalar, Struct, go_trim, unmarshal

COUNTERS = (
    # (label in the summary, key, critical when non-zero)
    ("reallocated sectors", "reallocatedSectors", False),
    ("pending sectors", "pendingSectors", True),
    ("offline uncorrectable", "offlineUncorrectable", True),
    ("UDMA CRC errors", "udmaCrcErrors", False),
    ("media errors", "mediaErrors", True),
)
COUNTER_OBJECTS = ("attributes", "smart_attributes", "smartAttributes")
PASSING_HEALTH = frozenset({"", "UNKNOWN", "PASSED", "OK"})

_COUNTERS = Struct({key: Scalar.OPTIONAL_INT for _, key, _ in COUNTERS})
DISK = Struct(
    {
        **{key: Scalar.STRING for key in ("id", "device", "dev_path", "health", "model", "serial", "node")},
        **{key: _COUNTERS for key in COUNTER_OBJECTS},
    }
)
DISK_HEALTH = Struct(
    {
        "disks": ListOf(DISK),
        "hosts": ListOf(Struct({"hostname": Scalar.STRING, "smart": ListOf(DISK)})),
        "node": Scalar.STRING,
    }
)
PHYSICAL_DISKS = Struct({"disks": ListOf(DISK)})


def disk_health_signals(call: ToolCallRecord) -> list[DetectedSignal]:
    """``pulse_storage`` disk health: ``disks`` fall back to the top-level node, host disks to the hostname."""
    data = unmarshal(call.output, DISK_HEALTH)
    if data is None:
        return []
    found = [smart_signal(call, disk, data["node"]) for disk in data["disks"]]
    for host in data["hosts"]:
        found.extend(smart_signal(call, disk, host["hostname"]) for disk in host["smart"])
    return [signal for signal in found if signal is not None]


def physical_disk_signals(call: ToolCallRecord) -> list[DetectedSignal]:
    """``pulse_metrics`` physical disks: each disk falls back to its own node only."""
    data = unmarshal(call.output, PHYSICAL_DISKS)
    if data is None:
        return []
    found = (smart_signal(call, disk, disk["node"]) for disk in data["disks"])
    return [signal for signal in found if signal is not None]


def smart_signal(call: ToolCallRecord, disk: dict, fallback_node: str) -> DetectedSignal | None:
    health = go_trim(disk["health"]).upper()
    health_issue = health not in PASSING_HEALTH
    parts, critical_counter = counter_issues(disk)
    if not health_issue and not parts:
        return None
    resource_id, name, kind = disk_resource(disk, fallback_node)
    severity = "critical" if health_issue or critical_counter else "warning"
    counters = ", ".join(parts)
    if health_issue and parts:
        summary = f"SMART health check: {health} for {name}; counters: {counters}"
    elif health_issue:
        summary = f"SMART health check: {health} for {name}"
    else:
        summary = f"SMART counters indicate disk risk for {name}: {counters}"
    return DetectedSignal(
        SignalType.SMART_FAILURE, resource_id, name, kind, severity, summary,
        SignalCategory.RELIABILITY.value, evidence_of(call.output), call.id,
    )


def counter_issues(disk: dict) -> tuple[list[str], bool]:
    """The ``label=count`` parts of the counters above zero, and whether one is critical."""
    parts: list[str] = []
    critical = False
    for label, key, is_critical in COUNTERS:
        value = next((disk[obj][key] for obj in COUNTER_OBJECTS if disk[obj][key] is not None), None)
        if value is not None and value > 0:
            parts.append(f"{label}={value}")
            critical = critical or is_critical
    return parts, critical


def disk_resource(disk: dict, fallback_node: str) -> tuple[str, str, str]:
    """(resource id, name, type): the disk id, else its node or the fallback, else its name."""
    labels = (go_trim(disk[key]) for key in ("device", "dev_path", "model", "id"))
    name = next((label for label in labels if label), "disk")
    resource_id, kind = go_trim(disk["id"]), "disk"
    if not resource_id:
        resource_id, kind = go_trim(disk["node"]) or go_trim(fallback_node), "node"
    return resource_id or name, name, kind
