"""Which readers a tool call goes to, and the pool and metrics readers.

``signals_in(call, limits, now)`` skips a call whose output is blank or starts
with ``no `` or ``state provider not available`` (any case), then dispatches
on the tool name and on the ``type`` string of the call's JSON input, as
upstream does:

- ``pulse_storage``: ``disk_health`` reads SMART health (``smart``),
  ``pools`` pool usage, ``backup_tasks`` backup tasks and ``backups`` recent
  tasks with backup records (``backups``); an absent or empty type
  runs all four, each on its own;
- ``pulse_metrics``: ``performance`` reads averages, ``disks`` the SMART
  health of physical disks; an absent or empty type runs both.

Any other ``type`` (compared exactly: ``Pools`` is not ``pools``) and any
other tool give no signal. Each reader decodes the output by itself
(``unmarshal``), so a shape one reader cannot decode costs only its signals.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from reference_impl.ai.patrol_signals.backups import backup_task_signals, backups_signals
from reference_impl.ai.patrol_signals.smart import disk_health_signals, physical_disk_signals
from reference_impl.ai.patrol_signals.types import (
    METRICS_TOOL,
    STORAGE_TOOL,
    DetectedSignal,
    SignalCategory,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    evidence_of,
)
from reference_impl.ai.patrol_signals.unmarshal import ListOf, Scalar, Struct, go_trim, string_field, unmarshal

Reader = Callable[[ToolCallRecord, SignalThresholds, datetime], list[DetectedSignal]]

_SKIP_PREFIXES = ("no ", "state provider not available")
S, F = Scalar.STRING, Scalar.FLOAT
POOLS = Struct(
    {"pools": ListOf(Struct({"name": S, "usage_percent": F, "node": S, "id": S})), "storage": S, "node": S}
)
_RESOURCE = {
    **{key: S for key in ("id", "name", "type", "node")},
    **{key: F for key in ("avg_cpu", "avg_memory", "max_cpu", "max_memory", "cpu_percent", "mem_percent")},
}
PERFORMANCE = Struct({"resources": ListOf(Struct(_RESOURCE)), **_RESOURCE})


def signals_in(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    """The signals one successful call's output shows, in reader order."""
    if not isinstance(call.output, str) or _skipped(call.output):
        return []
    readers = _readers_for(call.tool_name, string_field(call.input if isinstance(call.input, str) else "", "type"))
    return [signal for reader in readers for signal in reader(call, limits, now)]


def _skipped(output: str) -> bool:
    lower = go_trim(output).lower()
    return lower == "" or lower.startswith(_SKIP_PREFIXES)


def _readers_for(tool: str, input_type: str) -> tuple[Reader, ...]:
    if tool == STORAGE_TOOL:
        return _STORAGE_READERS.get(input_type, ())
    if tool == METRICS_TOOL:
        return _METRICS_READERS.get(input_type, ())
    return ()


def pool_signals(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    """``high_disk`` above the warning percent, critical above the critical one."""
    data = unmarshal(call.output, POOLS)
    if data is None:
        return []
    found = []
    for pool in data["pools"]:
        usage = pool["usage_percent"]
        if usage <= limits.storage_warning_percent:
            continue
        severity = "critical" if usage > limits.storage_critical_percent else "warning"
        found.append(DetectedSignal(
            SignalType.HIGH_DISK, pool["id"] or pool["name"], pool["name"], "storage", severity,
            f"Storage pool {pool['name']} at {usage:.1f}% usage",
            SignalCategory.CAPACITY.value, evidence_of(call.output), call.id,
        ))
    return found


def performance_signals(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    """``high_cpu`` / ``high_memory`` from ``resources``, or from one flat resource with an id or name."""
    data = unmarshal(call.output, PERFORMANCE)
    if data is None:
        return []
    resources = data["resources"] or ([data] if data["id"] != "" or data["name"] != "" else [])
    found = []
    for res in resources:
        cpu = _select_non_zero(res["avg_cpu"], res["cpu_percent"])
        memory = _select_non_zero(res["avg_memory"], res["mem_percent"])
        name = res["name"]
        if cpu > limits.high_cpu_percent:
            found.append(_metric(call, res, SignalType.HIGH_CPU, f"High CPU usage on {name}: {cpu:.1f}%"))
        if memory > limits.high_memory_percent:
            found.append(_metric(call, res, SignalType.HIGH_MEMORY, f"High memory usage on {name}: {memory:.1f}%"))
    return found


def _metric(call: ToolCallRecord, res: dict, kind: SignalType, summary: str) -> DetectedSignal:
    return DetectedSignal(
        kind, res["id"], res["name"], res["type"], "warning", summary,
        SignalCategory.PERFORMANCE.value, evidence_of(call.output), call.id,
    )


def _select_non_zero(first: float, second: float) -> float:
    return first if first > 0 else second


def _smart_storage(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    return disk_health_signals(call)


def _smart_metrics(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    return physical_disk_signals(call)


_STORAGE_READERS: dict[str, tuple[Reader, ...]] = {
    "disk_health": (_smart_storage,),
    "pools": (pool_signals,),
    "backup_tasks": (backup_task_signals,),
    "backups": (backups_signals,),
    "": (_smart_storage, pool_signals, backup_task_signals, backups_signals),
}
_METRICS_READERS: dict[str, tuple[Reader, ...]] = {
    "performance": (performance_signals,),
    "disks": (_smart_metrics,),
    "": (performance_signals, _smart_metrics),
}
