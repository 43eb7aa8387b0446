"""Backup signals from ``pulse_storage``: failed tasks and stale backups.

Two output shapes are read, as upstream reads them:

``backup_tasks``: ``{"tasks": [TASK], "node"}``. A task's time is its
``end_time``, else its ``start_time``, else ``now``; tasks older than the
staleness window are ignored and the newest task of each resource (vmid,
else the task's node, else the top-level node, possibly empty) decides. It
failed when its status is set and is not ``ok`` and holds no ``success``, or
holds ``error`` or ``fail``; a ``running`` or ``active`` status clears that;
a non-empty ``error`` other than ``null`` or ``0`` makes it a failure again.

``backups``: ``{"recent_tasks": [...], "pbs": [...], "pve": [...]}``. Recent
tasks with a status give ``backup_failed`` the same way (no ``error`` field,
time from ``start_time`` only, resource vmid, else node, else ``backup``).
Only recent tasks with a non-zero integer vmid make a guest known, and only
known guests get ``backup_stale``, when their newest ``backup_time`` is older
than the window. ``pbs`` vmids are strings, ``pve`` and recent-task vmids
integers; any other type fails the whole shape.

Times are read as upstream's ``tryParseTime`` reads them with Go's
``time.Parse``: RFC 3339 (``T`` and ``Z`` in upper case, or a ``±HH:MM``
offset), or the date and time with no zone, joined by ``T`` or by a space,
taken as UTC. The hour may have one digit, and an optional fraction follows
the seconds after ``.`` or ``,``; anything else is unreadable.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from reference_impl.ai.patrol_signals.types import (
    DetectedSignal,
    SignalCategory,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    evidence_of,
)
from reference_impl.ai.patrol_signals.unmarshal import ListOf, Scalar, Struct, go_trim, unmarshal

S, INT = Scalar.STRING, Scalar.INT
BACKUP_TASKS = Struct(
    {
        "tasks": ListOf(Struct({
            "id": S, "status": S, "error": S, "start_time": S, "end_time": S, "vmid": Scalar.VMID,
            "vm_name": S, "node": S, "instance": S, "type": S,
        })),
        "node": S,
    }
)
BACKUPS = Struct(
    {
        "pbs": ListOf(Struct({"vmid": S, "backup_time": S, "instance": S})),
        "pve": ListOf(Struct({"vmid": INT, "backup_time": S})),
        "recent_tasks": ListOf(Struct({"vmid": INT, "node": S, "status": S, "start_time": S})),
    }
)

# Go's layouts "2006-01-02T15:04:05Z07:00" (RFC 3339), "2006-01-02T15:04:05" and
# "2006-01-02 15:04:05": "15" takes one or two digits, and the parser takes a
# fraction after the seconds though no layout names one.
_GO_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})([T ])([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)


def backup_task_signals(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    data = unmarshal(call.output, BACKUP_TASKS)
    if data is None:
        return []
    latest: dict[str, tuple[datetime, bool, str, str]] = {}
    for task in data["tasks"]:
        vmid = go_trim(task["vmid"])
        vmid = "" if vmid == "0" else vmid
        when = _task_time(task["end_time"]) or _task_time(task["start_time"]) or now
        if now - when > limits.backup_stale_threshold:
            continue
        failed = status_failed(task["status"])
        error = go_trim(task["error"]).lower()
        failed = failed or error not in ("", "null", "0")
        resource = vmid or task["node"] or data["node"]
        name = task["vm_name"] or vmid or resource
        summary = task["status"] if go_trim(task["status"]) else task["error"]
        if resource not in latest or when > latest[resource][0]:
            latest[resource] = (when, failed, summary, name)
    return [
        _failed(call, resource, name, summary)
        for resource, (_, failed, summary, name) in latest.items() if failed
    ]


def backups_signals(call: ToolCallRecord, limits: SignalThresholds, now: datetime) -> list[DetectedSignal]:
    data = unmarshal(call.output, BACKUPS)
    if data is None:
        return []
    known = {str(task["vmid"]) for task in data["recent_tasks"] if task["vmid"] != 0}
    latest: dict[str, tuple[datetime, bool, str]] = {}
    for task in data["recent_tasks"]:
        if not go_trim(task["status"]):
            continue
        when = _task_time(task["start_time"]) or now
        if now - when > limits.backup_stale_threshold:
            continue
        vmid = "" if task["vmid"] == 0 else str(task["vmid"])
        resource = vmid or task["node"] or "backup"
        if resource not in latest or when > latest[resource][0]:
            latest[resource] = (when, status_failed(task["status"]), task["status"])
    found = [_failed(call, resource, resource, status) for resource, (_, failed, status) in latest.items() if failed]
    return found + _stale(call, data, known, limits, now) if known else found


def _stale(
    call: ToolCallRecord, data: dict, known: set[str], limits: SignalThresholds, now: datetime
) -> list[DetectedSignal]:
    records = [(go_trim(b["vmid"]), b["backup_time"]) for b in data["pbs"]]
    records += [("" if b["vmid"] == 0 else str(b["vmid"]), b["backup_time"]) for b in data["pve"]]
    newest: dict[str, datetime] = {}
    for vmid, text in records:
        when = parse_time(text)
        if vmid in ("", "0") or vmid not in known or when is None:
            continue
        if vmid not in newest or when > newest[vmid]:
            newest[vmid] = when
    return [
        DetectedSignal(
            SignalType.BACKUP_STALE, vmid, vmid, "backup", "warning",
            f"No backup completed in 48+ hours for VM/CT {vmid}",
            SignalCategory.BACKUP.value, evidence_of(call.output), call.id,
        )
        for vmid, when in newest.items() if now - when > limits.backup_stale_threshold
    ]


def status_failed(status: str) -> bool:
    """A task status that reads as a failure; running or active never does."""
    lower = go_trim(status).lower()
    failed = lower != "" and not (lower == "ok" or "success" in lower)
    if "error" in lower or "fail" in lower:
        failed = True
    if "running" in lower or "active" in lower:
        failed = False
    return failed


def _failed(call: ToolCallRecord, resource: str, name: str, status: str) -> DetectedSignal:
    return DetectedSignal(
        SignalType.BACKUP_FAILED, resource, name, "backup", "warning", f"Backup task failed: {status}",
        SignalCategory.BACKUP.value, evidence_of(call.output), call.id,
    )


def _task_time(text: str) -> datetime | None:
    return parse_time(text) if text != "" else None


def parse_time(text: str) -> datetime | None:
    """The time ``text`` names, in UTC (a time without a zone is UTC), or None."""
    match = _GO_TIME.fullmatch(text)
    if match is None or (match.group(4) == " " and match.group(9) is not None):
        return None  # only the RFC 3339 layout has a zone, and it needs the T
    year, month, day = (int(group) for group in match.groups()[:3])
    hour, minute, second = (int(group) for group in match.groups()[4:7])
    fraction, zone = match.group(8) or "0", match.group(9) or "Z"
    try:
        offset = timedelta(0) if zone == "Z" else timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        tz = timezone(-offset if zone[0] == "-" else offset)
        moment = datetime(year, month, day, hour, minute, second, int(fraction[:6].ljust(6, "0")), tzinfo=tz)
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None
