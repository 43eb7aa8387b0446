"""Deterministic problem signals read from Patrol's tool-call results.

``detect_signals`` scans the successful tool calls of a Patrol run and, with
no model judgement, reports the problems their JSON output shows. It reads
these shapes (every other key is ignored; a record with a missing or mistyped
field is skipped, never an error):

``pulse_storage``
    Storage pools: ``{"pools": [{"id": str, "name": str, "usage_percent":
    number, "node": str}]}``. ``high_disk`` when usage is above the warning
    percent, critical when above the critical percent. Resource: id, else name.

    SMART health: ``{"disks": [DISK], "hosts": [{"hostname": str, "smart":
    [DISK]}], "node": str}`` where DISK is ``{"id", "device", "dev_path",
    "model", "node", "health"}`` (strings). ``smart_failure`` (critical) when
    health is set and is not PASSED, OK or UNKNOWN (any case). Resource: the
    disk id, else its node (or the host, or the top-level node), else its name.

    Backup tasks: ``{"tasks": [TASK], "recent_tasks": [TASK], "node": str}``
    where TASK is ``{"vmid": str|int, "vm_name", "node", "status", "error",
    "start_time", "end_time"}``. Per resource (vmid, else node) the newest task
    inside the staleness window counts; ``backup_failed`` when it failed
    (status not ok/success, or containing error/fail, or a non-empty error;
    running/active never counts as failed). A task without a readable time
    counts as current.

    Backup records: ``{"pbs": [{"vmid", "backup_time"}], "pve": [{"vmid",
    "backup_time"}]}`` alongside task lists. ``backup_stale`` when a guest
    that appears in the output's task lists has backups but its newest
    ``backup_time`` is older than the staleness window before ``now``.

``pulse_metrics``
    Averages: ``{"resources": [RES]}`` or one flat RES, where RES is ``{"id",
    "name", "type", "avg_cpu" | "cpu_percent", "avg_memory" | "mem_percent"}``
    (the ``avg_`` value wins when positive). ``high_cpu`` / ``high_memory``
    (warning) when above the CPU / memory percent. Also SMART ``{"disks": [DISK]}``.

``pulse_query``
    Guest reachability: ``{"guests": [{"id", "name", "type", "status",
    "reachable": bool}]}``. ``guest_unreachable`` (warning) when ``reachable``
    is ``false`` and the status is ``running`` or absent.

Times are RFC 3339 (``Z`` or an offset, optional fraction) or
``YYYY-MM-DD[T ]HH:MM:SS`` taken as UTC. Output may carry text around one JSON
object. Thresholds are strict: a value equal to a threshold does not fire.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from reference_impl.signal_readers import signals_in
from reference_impl.signal_types import (
    METRICS_TOOL,
    QUERY_TOOL,
    SIGNAL_BACKUP_STALE_THRESHOLD,
    SIGNAL_HIGH_CPU_PERCENT,
    SIGNAL_HIGH_MEMORY_PERCENT,
    SIGNAL_STORAGE_CRITICAL_PERCENT,
    SIGNAL_STORAGE_WARNING_PERCENT,
    STORAGE_TOOL,
    DetectedSignal,
    PatrolThresholds,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    as_number,
)

__all__ = [
    "METRICS_TOOL", "QUERY_TOOL", "SIGNAL_BACKUP_STALE_THRESHOLD", "SIGNAL_HIGH_CPU_PERCENT",
    "SIGNAL_HIGH_MEMORY_PERCENT", "SIGNAL_STORAGE_CRITICAL_PERCENT", "SIGNAL_STORAGE_WARNING_PERCENT",
    "STORAGE_TOOL", "DetectedSignal", "PatrolThresholds", "SignalThresholds", "SignalType", "ToolCallRecord",
    "default_signal_thresholds", "detect_signals", "signal_thresholds_from_patrol",
]


def default_signal_thresholds() -> SignalThresholds:
    return SignalThresholds()


def signal_thresholds_from_patrol(config: PatrolThresholds | Mapping[str, Any] | None) -> SignalThresholds:
    """Thresholds aligned with the user's alert config, field by field.

    ``config`` is a ``PatrolThresholds``, a mapping with the same keys, or
    ``None``. A field that is missing, zero, negative or not a finite number
    falls back to its default; backup staleness is always the default.
    """
    defaults = default_signal_thresholds()

    def pick(key: str, default: float) -> float:
        raw = config.get(key) if isinstance(config, Mapping) else getattr(config, key, None)
        number = as_number(raw)
        return number if number is not None and number > 0 else default

    return SignalThresholds(
        storage_warning_percent=pick("storage_warning", defaults.storage_warning_percent),
        storage_critical_percent=pick("storage_critical", defaults.storage_critical_percent),
        high_cpu_percent=pick("node_cpu_warning", defaults.high_cpu_percent),
        high_memory_percent=pick("node_mem_warning", defaults.high_memory_percent),
        backup_stale_threshold=defaults.backup_stale_threshold,
    )


def detect_signals(
    tool_calls: Iterable[ToolCallRecord],
    thresholds: SignalThresholds | None = None,
    now: datetime | None = None,
) -> list[DetectedSignal]:
    """Signals from successful calls, in call order, one per (type, resource)."""
    limits = thresholds or default_signal_thresholds()
    moment = _utc(now) if now is not None else datetime.now(timezone.utc)
    seen: set[tuple[SignalType, str]] = set()
    found: list[DetectedSignal] = []
    for call in tool_calls:
        for signal in signals_in(call, limits, moment):
            key = (signal.signal_type, signal.resource_id)
            if key not in seen:
                seen.add(key)
                found.append(signal)
    return found


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
