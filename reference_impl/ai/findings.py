"""Patrol findings and the rule for when Patrol investigates one by itself.

``Finding.should_investigate(autonomy_level, now)`` is the gate in front of
automatic investigation. It refuses, checked in this order:

1. autonomy unset (``""`` or ``None``) or ``monitor``; the gate refuses no
   other level, so an unknown or upper-case level passes this check;
2. a finding that is resolved, dismissed or suppressed;
3. a finding snoozed past ``now``;
4. a fix queued for approval (outcome ``fix_queued``);
5. a terminal outcome: fix_verified, resolved, fix_rejected, cannot_fix,
   needs_attention, fix_verification_unknown;
6. severity other than warning or critical;
7. an investigation already running;
8. ``MAX_INVESTIGATION_ATTEMPTS`` attempts made;
9. less than the cooldown since the last investigation: one hour, ten
   minutes when the last outcome was ``timed_out``, twenty minutes when it
   was ``fix_failed`` or ``fix_verification_failed``.

``investigation_refusal`` returns which of these applies, for callers and
tests that need the reason and not only the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

MAX_INVESTIGATION_ATTEMPTS = 3
INVESTIGATION_COOLDOWN = timedelta(hours=1)
INVESTIGATION_TIMEOUT_COOLDOWN = timedelta(minutes=10)
INVESTIGATION_FIX_RETRY_COOLDOWN = timedelta(minutes=20)


class FindingSeverity(str, Enum):
    INFO = "info"
    WATCH = "watch"
    WARNING = "warning"
    CRITICAL = "critical"


class AutonomyLevel(str, Enum):
    MONITOR = "monitor"
    APPROVAL = "approval"
    ASSISTED = "assisted"
    FULL = "full"


class InvestigationStatus(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    NEEDS_ATTENTION = "needs_attention"


class InvestigationOutcome(str, Enum):
    RESOLVED = "resolved"
    FIX_QUEUED = "fix_queued"
    FIX_EXECUTED = "fix_executed"
    FIX_FAILED = "fix_failed"
    FIX_REJECTED = "fix_rejected"
    FIX_VERIFIED = "fix_verified"
    FIX_VERIFICATION_FAILED = "fix_verification_failed"
    FIX_VERIFICATION_UNKNOWN = "fix_verification_unknown"
    NEEDS_ATTENTION = "needs_attention"
    CANNOT_FIX = "cannot_fix"
    TIMED_OUT = "timed_out"


class Refusal(str, Enum):
    """Why ``should_investigate`` said no."""

    AUTONOMY_DISABLED = "autonomy_disabled"
    INACTIVE = "inactive"  # resolved, dismissed or suppressed
    SNOOZED = "snoozed"
    FIX_QUEUED = "fix_queued"
    TERMINAL_OUTCOME = "terminal_outcome"
    NOT_ACTIONABLE = "not_actionable"  # severity info, watch or unknown
    RUNNING = "running"
    MAX_ATTEMPTS = "max_attempts"
    COOLDOWN = "cooldown"


DISABLED_AUTONOMY = frozenset({"", AutonomyLevel.MONITOR.value})
FIX_RETRY_OUTCOMES = frozenset({InvestigationOutcome.FIX_FAILED, InvestigationOutcome.FIX_VERIFICATION_FAILED})
ACTIONABLE_SEVERITIES = frozenset({FindingSeverity.WARNING, FindingSeverity.CRITICAL})
TERMINAL_OUTCOMES = frozenset(
    {
        InvestigationOutcome.FIX_VERIFIED,
        InvestigationOutcome.RESOLVED,
        InvestigationOutcome.FIX_REJECTED,
        InvestigationOutcome.CANNOT_FIX,
        InvestigationOutcome.NEEDS_ATTENTION,
        InvestigationOutcome.FIX_VERIFICATION_UNKNOWN,
    }
)


@dataclass
class Finding:
    """A Patrol finding with the state the investigation gate reads.

    String fields accept the enum members above or their plain values.
    Datetimes without a time zone are taken as UTC.
    """

    id: str = ""
    severity: str = FindingSeverity.WARNING
    title: str = ""
    resource_id: str = ""
    resolved_at: datetime | None = None
    dismissed_reason: str = ""
    suppressed: bool = False
    snoozed_until: datetime | None = None
    investigation_status: str = ""
    investigation_outcome: str = ""
    investigation_attempts: int = 0
    last_investigated_at: datetime | None = None

    @property
    def is_resolved(self) -> bool:
        return self.resolved_at is not None

    @property
    def is_dismissed(self) -> bool:
        return self.dismissed_reason != ""

    def is_snoozed(self, now: datetime) -> bool:
        return self.snoozed_until is not None and _utc(now) < _utc(self.snoozed_until)

    def investigation_cooldown(self) -> timedelta:
        """The wait after the last investigation, shorter after a timeout or a failed fix."""
        if self.investigation_outcome == InvestigationOutcome.TIMED_OUT:
            return INVESTIGATION_TIMEOUT_COOLDOWN
        if self.investigation_outcome in FIX_RETRY_OUTCOMES:
            return INVESTIGATION_FIX_RETRY_COOLDOWN
        return INVESTIGATION_COOLDOWN

    def investigation_refusal(self, autonomy_level: str | None, now: datetime) -> Refusal | None:
        """The first reason not to investigate automatically, or ``None``."""
        if autonomy_level is None or autonomy_level in DISABLED_AUTONOMY:
            return Refusal.AUTONOMY_DISABLED
        if self.is_resolved or self.suppressed or self.is_dismissed:
            return Refusal.INACTIVE
        if self.is_snoozed(now):
            return Refusal.SNOOZED
        if self.investigation_outcome == InvestigationOutcome.FIX_QUEUED:
            return Refusal.FIX_QUEUED
        if self.investigation_outcome in TERMINAL_OUTCOMES:
            return Refusal.TERMINAL_OUTCOME
        if self.severity not in ACTIONABLE_SEVERITIES:
            return Refusal.NOT_ACTIONABLE
        if self.investigation_status == InvestigationStatus.RUNNING:
            return Refusal.RUNNING
        if self.investigation_attempts >= MAX_INVESTIGATION_ATTEMPTS:
            return Refusal.MAX_ATTEMPTS
        last = self.last_investigated_at
        if last is not None and _utc(now) - _utc(last) < self.investigation_cooldown():
            return Refusal.COOLDOWN
        return None

    def should_investigate(self, autonomy_level: str | None, now: datetime) -> bool:
        return self.investigation_refusal(autonomy_level, now) is None


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
