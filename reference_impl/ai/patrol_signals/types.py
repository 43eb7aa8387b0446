"""The values Patrol's signals are built from: the default thresholds, the tool
names whose output is read, the signal types, the finding categories signals
carry, and the records passed between ``detect`` (which detects) and the
readers of each output shape.
"""

from __future__ import annotations

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

EVIDENCE_LIMIT_BYTES = 500


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


class SignalCategory(str, Enum):
    """The finding category a signal is matched against (upstream FindingCategory values)."""

    PERFORMANCE = "performance"
    CAPACITY = "capacity"
    RELIABILITY = "reliability"
    BACKUP = "backup"
    CONNECTIVITY = "connectivity"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ToolCallRecord:
    """A finished tool call: ``input`` is the call's arguments as JSON text."""

    tool_name: str
    output: str
    success: bool = True
    input: str = ""
    id: str = ""


@dataclass(frozen=True)
class GuestIntelligence:
    """What the pre-patrol probe learned about one guest; ``reachable`` None = not checked."""

    name: str = ""
    guest_type: str = ""
    reachable: bool | None = None


@dataclass(frozen=True)
class DetectedSignal:
    signal_type: SignalType
    resource_id: str
    resource_name: str
    resource_type: str
    severity: str  # "warning" or "critical"
    summary: str
    category: str = ""
    evidence: str = ""
    tool_call_id: str = ""


def config_number(value: object) -> float | None:
    """A configured threshold as a float (non-finite kept), or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def evidence_of(output: str) -> str:
    """The first ``EVIDENCE_LIMIT_BYTES`` bytes of the output; a character cut in two is dropped."""
    raw = output.encode("utf-8", "surrogatepass")
    if len(raw) <= EVIDENCE_LIMIT_BYTES:
        return output
    return raw[:EVIDENCE_LIMIT_BYTES].decode("utf-8", "ignore")
