"""Deterministic problem signals read from Patrol's tool-call results.

``detect_signals`` scans the successful tool calls of a Patrol run and, with
no model judgement, reports the problems their JSON output shows, one signal
per (type, resource id) in call order. Which outputs are read, and how, is
in ``readers`` (dispatch on the tool and its input ``type``, pools,
metrics), ``smart``, ``backups`` and ``unmarshal`` (decoding
as Go's ``json.Unmarshal`` does). Thresholds are strict: a value equal to a
threshold does not fire.

``detect_reachability_signals`` is separate, as upstream: reachability comes
from the probe run before Patrol, not from a tool call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from reference_impl.ai.patrol_signals.readers import signals_in
from reference_impl.ai.patrol_signals.types import (
    DetectedSignal,
    GuestIntelligence,
    PatrolThresholds,
    SignalCategory,
    SignalThresholds,
    SignalType,
    ToolCallRecord,
    config_number,
)

__all__ = [
    "default_signal_thresholds",
    "detect_reachability_signals",
    "detect_signals",
    "signal_thresholds_from_patrol",
]

REACHABILITY_EVIDENCE = "ICMP ping from host node returned no response"


def default_signal_thresholds() -> SignalThresholds:
    return SignalThresholds()


def signal_thresholds_from_patrol(config: PatrolThresholds | Mapping[str, Any] | None) -> SignalThresholds:
    """Thresholds aligned with the user's alert config, field by field.

    ``config`` is a ``PatrolThresholds``, a mapping with the same keys, or
    ``None``. A field falls back to its default only when it is zero (Go's
    unset value); a missing key or a value that is not a number reads as
    zero. Negative and non-finite values are kept. Backup staleness is always
    the default.
    """
    defaults = default_signal_thresholds()

    def pick(key: str, default: float) -> float:
        raw = config.get(key) if isinstance(config, Mapping) else getattr(config, key, None)
        number = config_number(raw)
        return default if number is None or number == 0 else number

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
    """Signals from successful calls, in call order, the first per (type, resource id)."""
    limits = thresholds or default_signal_thresholds()
    moment = _utc(now) if now is not None else datetime.now(timezone.utc)
    seen: set[tuple[SignalType, str]] = set()
    found: list[DetectedSignal] = []
    for call in tool_calls:
        if call.success is not True:
            continue
        for signal in signals_in(call, limits, moment):
            key = (signal.signal_type, signal.resource_id)
            if key not in seen:
                seen.add(key)
                found.append(signal)
    return found


def detect_reachability_signals(guests: Mapping[str, GuestIntelligence | None]) -> list[DetectedSignal]:
    """``guest_unreachable`` for each probed guest whose ``reachable`` is ``False``, in mapping order.

    A guest not probed (``reachable`` None) or missing gives nothing; the name
    falls back to the guest id. These signals are not deduplicated.
    """
    found = []
    for guest_id, guest in guests.items():
        if guest is None or guest.reachable is not False:
            continue
        name = guest.name or guest_id
        found.append(DetectedSignal(
            SignalType.GUEST_UNREACHABLE, guest_id, name, guest.guest_type, "warning",
            f"Guest {name} is running but not responding to ping",
            SignalCategory.CONNECTIVITY.value, REACHABILITY_EVIDENCE,
        ))
    return found


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
