"""The values Patrol's signals are built from: the default thresholds, the tool
names whose output is read, the signal types, and the records passed between
``signals`` (which detects) and ``signal_readers`` (which reads each output shape).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum

SIGNAL_STORAGE_WARNING_PERCENT = 75.0
SIGNAL_STORAGE_CRITICAL_PERCENT = 95.0
SIGNAL_HIGH_CPU_PERCENT = 70.0
SIGNAL_HIGH_MEMORY_PERCENT = 80.0
SIGNAL_BACKUP_STALE_THRESHOLD = timedelta(hours=48)

STORAGE_TOOL = "pulse_storage"
METRICS_TOOL = "pulse_metrics"
QUERY_TOOL = "pulse_query"


class SignalType(str, Enum):
    """The kinds of problem a signal reports."""

    SMART_FAILURE = "smart_failure"
    HIGH_CPU = "high_cpu"
    HIGH_MEMORY = "high_memory"
    HIGH_DISK = "high_disk"
    BACKUP_FAILED = "backup_failed"
    BACKUP_STALE = "backup_stale"
    GUEST_UNREACHABLE = "guest_unreachable"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class SignalThresholds:
    storage_warning_percent: float = SIGNAL_STORAGE_WARNING_PERCENT
    storage_critical_percent: float = SIGNAL_STORAGE_CRITICAL_PERCENT
    high_cpu_percent: float = SIGNAL_HIGH_CPU_PERCENT
    high_memory_percent: float = SIGNAL_HIGH_MEMORY_PERCENT
    backup_stale_threshold: timedelta = SIGNAL_BACKUP_STALE_THRESHOLD


@dataclass(frozen=True)
class PatrolThresholds:
    """User-configured alert thresholds (percent); 0 means not configured."""

    storage_warning: float = 0.0
    storage_critical: float = 0.0
    node_cpu_warning: float = 0.0
    node_mem_warning: float = 0.0


@dataclass(frozen=True)
class ToolCallRecord:
    tool_name: str
    output: str
    success: bool = True


@dataclass(frozen=True)
class DetectedSignal:
    signal_type: SignalType
    resource_id: str
    resource_name: str
    resource_type: str
    severity: str  # "warning" or "critical"
    summary: str


def as_number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
