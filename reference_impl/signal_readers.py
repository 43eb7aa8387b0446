"""Readers of the tool-output shapes that ``reference_impl.signals`` documents.

``signals_in(call, limits, now)`` parses one tool call's output and yields the
signals its shape shows; ``detect_signals`` dedupes them across calls. Each
reader takes the parsed JSON object, the thresholds and the current time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from reference_impl.signal_types import (
    METRICS_TOOL,
    QUERY_TOOL,
    STORAGE_TOOL,
    DetectedSignal,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    as_number,
)


def signals_in(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    """The signals one call's output shows; none when it is not a usable JSON object."""
    data = _parse_output(call)
    if data is None:
        return iter(())
    return _READERS.get(call.tool_name, _no_signals)(data, limits, now)


def _storage(data: dict, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    yield from _pools(data, limits)
    yield from _smart(data)
    yield from _backups(data, limits, now)


def _pools(data: dict, limits: SignalThresholds) -> Iterator[DetectedSignal]:
    for pool in _records(data, "pools"):
        usage = as_number(pool.get("usage_percent"))
        name = _text(pool, "name")
        resource = _text(pool, "id") or name
        if usage is None or not resource or usage <= limits.storage_warning_percent:
            continue
        severity = "critical" if usage > limits.storage_critical_percent else "warning"
        summary = f"Storage pool {name or resource} at {usage:.1f}% usage"
        yield DetectedSignal(SignalType.HIGH_DISK, resource, name or resource, "storage", severity, summary)


def _smart(data: dict) -> Iterator[DetectedSignal]:
    node = _text(data, "node")
    for disk in _records(data, "disks"):
        yield from _smart_disk(disk, node)
    for host in _records(data, "hosts"):
        for disk in _records(host, "smart"):
            yield from _smart_disk(disk, _text(host, "hostname") or node)


def _smart_disk(disk: dict, fallback_node: str) -> Iterator[DetectedSignal]:
    health = _text(disk, "health").upper()
    if health in ("", "PASSED", "OK", "UNKNOWN"):
        return
    labels = (_text(disk, key) for key in ("device", "dev_path", "model", "id"))
    name = next((label for label in labels if label), "disk")
    resource, kind = _text(disk, "id"), "disk"
    if not resource:
        resource, kind = _text(disk, "node") or fallback_node or name, "node"
    summary = f"SMART health check: {health} for {name}"
    yield DetectedSignal(SignalType.SMART_FAILURE, resource, name, kind, "critical", summary)


def _backups(data: dict, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    window_start = now - limits.backup_stale_threshold
    latest: dict[str, tuple[datetime, dict]] = {}
    guests: set[str] = set()
    for task in [*_records(data, "tasks"), *_records(data, "recent_tasks")]:
        vmid = _vmid(task.get("vmid"))
        if vmid:
            guests.add(vmid)
        when = _parse_time(task.get("end_time")) or _parse_time(task.get("start_time")) or now
        resource = vmid or _text(task, "node") or _text(data, "node")
        if when < window_start or not resource:
            continue
        if resource not in latest or when > latest[resource][0]:
            latest[resource] = (when, task)
    for resource, (_, task) in latest.items():
        if _task_failed(task):
            name = _text(task, "vm_name") or resource
            status = _text(task, "status") or _text(task, "error")
            summary = f"Backup task failed: {status}"
            yield DetectedSignal(SignalType.BACKUP_FAILED, resource, name, "backup", "warning", summary)
    yield from _stale(data, guests, window_start)


def _stale(data: dict, guests: set[str], window_start: datetime) -> Iterator[DetectedSignal]:
    newest: dict[str, datetime] = {}
    for record in [*_records(data, "pbs"), *_records(data, "pve")]:
        vmid, when = _vmid(record.get("vmid")), _parse_time(record.get("backup_time"))
        if vmid in guests and when is not None and (vmid not in newest or when > newest[vmid]):
            newest[vmid] = when
    for vmid, when in newest.items():
        if when < window_start:
            summary = f"No backup completed inside the staleness window for guest {vmid}"
            yield DetectedSignal(SignalType.BACKUP_STALE, vmid, vmid, "backup", "warning", summary)


def _task_failed(task: dict) -> bool:
    status = _text(task, "status").lower()
    error = _text(task, "error").lower()
    if "running" in status or "active" in status:
        return False
    if error not in ("", "null", "0"):
        return True
    return status != "" and not (status == "ok" or "success" in status)


def _vmid(raw: object) -> str:
    if isinstance(raw, bool):
        return ""
    if isinstance(raw, int):
        return "" if raw == 0 else str(raw)
    if isinstance(raw, str) and raw.strip() not in ("", "0"):
        return raw.strip()
    return ""


def _metrics(data: dict, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    resources = _records(data, "resources")
    if not resources and (_text(data, "id") or _text(data, "name")):
        resources = [data]
    for res in resources:
        resource, name, kind = _text(res, "id"), _text(res, "name"), _text(res, "type")
        label = name or resource
        if not (resource or name):
            continue
        cpu = _first_positive(res.get("avg_cpu"), res.get("cpu_percent"))
        memory = _first_positive(res.get("avg_memory"), res.get("mem_percent"))
        if cpu is not None and cpu > limits.high_cpu_percent:
            summary = f"High CPU usage on {label}: {cpu:.1f}%"
            yield DetectedSignal(SignalType.HIGH_CPU, resource or name, label, kind, "warning", summary)
        if memory is not None and memory > limits.high_memory_percent:
            summary = f"High memory usage on {label}: {memory:.1f}%"
            yield DetectedSignal(SignalType.HIGH_MEMORY, resource or name, label, kind, "warning", summary)
    for disk in _records(data, "disks"):
        yield from _smart_disk(disk, _text(disk, "node"))


def _guests(data: dict, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    for guest in _records(data, "guests"):
        resource, name = _text(guest, "id"), _text(guest, "name")
        status = guest.get("status", "running")
        if guest.get("reachable") is not False or not isinstance(status, str) or status.lower() != "running":
            continue
        if resource or name:
            label = name or resource
            summary = f"Guest {label} is running but not responding"
            kind = _text(guest, "type")
            yield DetectedSignal(SignalType.GUEST_UNREACHABLE, resource or name, label, kind, "warning", summary)


def _no_signals(data: dict, limits: SignalThresholds, now: datetime) -> Iterator[DetectedSignal]:
    return iter(())


_READERS = {STORAGE_TOOL: _storage, METRICS_TOOL: _metrics, QUERY_TOOL: _guests}


_SKIP_PREFIXES = ("no ", "state provider not available")
_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?", re.IGNORECASE
)


def _parse_output(call: ToolCallRecord) -> dict | None:
    """The JSON object a successful call returned, or None."""
    output = getattr(call, "output", None)
    if getattr(call, "success", False) is not True or not isinstance(output, str):
        return None
    text = output.strip()
    if not text or text.lower().startswith(_SKIP_PREFIXES):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = _embedded_object(text)
    return data if isinstance(data, dict) else None


def _embedded_object(text: str) -> object:
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except (ValueError, RecursionError):
        return None


def _records(obj: dict, key: str) -> list[dict]:
    value = obj.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text(obj: dict, key: str) -> str:
    value = obj.get(key)
    return value.strip() if isinstance(value, str) else ""


def _first_positive(*values: object) -> float | None:
    numbers = [n for n in map(as_number, values) if n is not None]
    return next((n for n in numbers if n > 0), numbers[0] if numbers else None)


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    match = _TIME.fullmatch(value.strip())
    if match is None:
        return None
    fields = [int(g) for g in match.groups()[:6]]
    fraction, zone = match.group(7) or "0", match.group(8) or "Z"
    try:
        offset = timedelta(0)
        if zone.upper() != "Z":
            offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        tz = timezone(-offset if zone[0] == "-" else offset)
        year, month, day, hour, minute, second = fields
        moment = datetime(year, month, day, hour, minute, second, int(fraction[:6].ljust(6, "0")), tzinfo=tz)
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None
