"""The full decision table of Finding.should_investigate, as upstream ShouldInvestigate decides it."""

from __future__ import annotations

import ast
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.ai import findings
from reference_impl.ai.findings import (
    INVESTIGATION_COOLDOWN,
    INVESTIGATION_FIX_RETRY_COOLDOWN,
    INVESTIGATION_TIMEOUT_COOLDOWN,
    MAX_INVESTIGATION_ATTEMPTS,
    Finding,
    InvestigationOutcome,
    Refusal,
)

NOW = datetime(2025, 6, 1, 9, 30, tzinfo=timezone.utc)
ALLOWED_AUTONOMY = ["approval", "assisted", "full"]
# Upstream refuses only "" and "monitor" itself; any other string passes the autonomy check.
PASSING_UNKNOWN_AUTONOMY = ["yolo", "FULL", "Monitor", " monitor", "monitor "]
TERMINAL = ["fix_verified", "resolved", "fix_rejected", "cannot_fix", "needs_attention", "fix_verification_unknown"]
NON_TERMINAL = ["", "fix_executed", "fix_failed", "fix_verification_failed", "timed_out"]


def fresh(**changes: object) -> Finding:
    """A finding every check lets through."""
    return replace(Finding(id="f1", severity="warning"), **changes)


def test_constants():
    assert MAX_INVESTIGATION_ATTEMPTS == 3
    assert INVESTIGATION_COOLDOWN == timedelta(hours=1)
    assert INVESTIGATION_TIMEOUT_COOLDOWN == timedelta(minutes=10)
    assert INVESTIGATION_FIX_RETRY_COOLDOWN == timedelta(minutes=20)


def test_constants_are_literal_module_assignments():
    tree = ast.parse(Path(findings.__file__).read_text(encoding="utf-8"))
    assigned = {
        node.targets[0].id: ast.unparse(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    assert assigned["MAX_INVESTIGATION_ATTEMPTS"] == "3"
    assert assigned["INVESTIGATION_COOLDOWN"] == "timedelta(hours=1)"
    assert assigned["INVESTIGATION_TIMEOUT_COOLDOWN"] == "timedelta(minutes=10)"
    assert assigned["INVESTIGATION_FIX_RETRY_COOLDOWN"] == "timedelta(minutes=20)"


# --- allowed paths --------------------------------------------------------------


@pytest.mark.parametrize("autonomy", ALLOWED_AUTONOMY + PASSING_UNKNOWN_AUTONOMY)
@pytest.mark.parametrize("severity", ["warning", "critical"])
@pytest.mark.parametrize("outcome", NON_TERMINAL)
def test_allowed(autonomy, severity, outcome):
    finding = fresh(severity=severity, investigation_outcome=outcome)
    assert finding.investigation_refusal(autonomy, NOW) is None
    assert finding.should_investigate(autonomy, NOW) is True


@pytest.mark.parametrize("status", ["", "pending", "completed", "failed", "needs_attention"])
def test_allowed_investigation_statuses(status):
    assert fresh(investigation_status=status).should_investigate("full", NOW)


@pytest.mark.parametrize("attempts", range(MAX_INVESTIGATION_ATTEMPTS))
def test_allowed_below_max_attempts(attempts):
    assert fresh(investigation_attempts=attempts).should_investigate("full", NOW)


def test_allowed_after_snooze_ends_and_when_dismissal_is_empty():
    assert fresh(snoozed_until=NOW).should_investigate("full", NOW)
    assert fresh(snoozed_until=NOW - timedelta(seconds=1)).should_investigate("full", NOW)
    assert fresh(dismissed_reason="").should_investigate("full", NOW)


def test_enum_members_work_like_their_values():
    finding = fresh(severity=findings.FindingSeverity.CRITICAL, investigation_outcome=InvestigationOutcome.TIMED_OUT)
    assert finding.should_investigate(findings.AutonomyLevel.ASSISTED, NOW)
    assert fresh(investigation_outcome=InvestigationOutcome.FIX_QUEUED).investigation_refusal("full", NOW) is Refusal.FIX_QUEUED


# --- every refusal --------------------------------------------------------------

REFUSALS = [
    ("autonomy unset", fresh(), None, Refusal.AUTONOMY_DISABLED),
    ("autonomy empty", fresh(), "", Refusal.AUTONOMY_DISABLED),
    ("autonomy monitor", fresh(), "monitor", Refusal.AUTONOMY_DISABLED),
    ("autonomy monitor member", fresh(), findings.AutonomyLevel.MONITOR, Refusal.AUTONOMY_DISABLED),
    ("unknown autonomy then severity", fresh(severity="info"), "yolo", Refusal.NOT_ACTIONABLE),
    ("resolved", fresh(resolved_at=NOW - timedelta(days=1)), "full", Refusal.INACTIVE),
    ("dismissed", fresh(dismissed_reason="not_an_issue"), "full", Refusal.INACTIVE),
    ("suppressed", fresh(suppressed=True), "full", Refusal.INACTIVE),
    ("snoozed", fresh(snoozed_until=NOW + timedelta(hours=2)), "full", Refusal.SNOOZED),
    ("snoozed one second more", fresh(snoozed_until=NOW + timedelta(seconds=1)), "full", Refusal.SNOOZED),
    ("fix queued", fresh(investigation_outcome="fix_queued"), "full", Refusal.FIX_QUEUED),
    *[(f"terminal {o}", fresh(investigation_outcome=o), "full", Refusal.TERMINAL_OUTCOME) for o in TERMINAL],
    ("severity info", fresh(severity="info"), "full", Refusal.NOT_ACTIONABLE),
    ("severity watch", fresh(severity="watch"), "full", Refusal.NOT_ACTIONABLE),
    ("severity unknown", fresh(severity="urgent"), "full", Refusal.NOT_ACTIONABLE),
    ("severity empty", fresh(severity=""), "full", Refusal.NOT_ACTIONABLE),
    ("running", fresh(investigation_status="running"), "full", Refusal.RUNNING),
    ("max attempts", fresh(investigation_attempts=MAX_INVESTIGATION_ATTEMPTS), "full", Refusal.MAX_ATTEMPTS),
    ("over max attempts", fresh(investigation_attempts=MAX_INVESTIGATION_ATTEMPTS + 4), "full", Refusal.MAX_ATTEMPTS),
    ("just investigated", fresh(last_investigated_at=NOW), "full", Refusal.COOLDOWN),
    ("inside cooldown", fresh(last_investigated_at=NOW - timedelta(minutes=59, seconds=59)), "full", Refusal.COOLDOWN),
    ("clock skew", fresh(last_investigated_at=NOW + timedelta(minutes=5)), "full", Refusal.COOLDOWN),
    (
        "inside timeout cooldown",
        fresh(investigation_outcome="timed_out", last_investigated_at=NOW - timedelta(minutes=9, seconds=59)),
        "full",
        Refusal.COOLDOWN,
    ),
    *[
        (
            f"inside fix retry cooldown after {o}",
            fresh(investigation_outcome=o, last_investigated_at=NOW - timedelta(minutes=19, seconds=59)),
            "full",
            Refusal.COOLDOWN,
        )
        for o in ("fix_failed", "fix_verification_failed")
    ],
]


@pytest.mark.parametrize("finding, autonomy, reason", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refused(finding, autonomy, reason):
    assert finding.investigation_refusal(autonomy, NOW) is reason
    assert finding.should_investigate(autonomy, NOW) is False


def test_every_refusal_reason_is_exercised():
    assert {r[3] for r in REFUSALS} == set(Refusal)


# --- cooldown edges -------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome, cooldown",
    [("", timedelta(hours=1)), ("fix_failed", timedelta(minutes=20)), ("fix_verification_failed", timedelta(minutes=20)),
     ("fix_executed", timedelta(hours=1)), ("timed_out", timedelta(minutes=10)), ("Fix_Failed", timedelta(hours=1)),
     ("fix_queued_later", timedelta(hours=1))],
)
@pytest.mark.parametrize(
    "offset, allowed",
    [(-timedelta(microseconds=1), False), (-timedelta(seconds=1), False), (timedelta(0), True), (timedelta(seconds=1), True)],
)
def test_cooldown_edges(outcome, cooldown, offset, allowed):
    finding = fresh(investigation_outcome=outcome, last_investigated_at=NOW - (cooldown + offset))
    assert finding.investigation_cooldown() == cooldown
    assert finding.should_investigate("full", NOW) is allowed


def test_timeout_cooldown_is_the_shorter_one():
    fifteen_minutes_ago = NOW - timedelta(minutes=15)
    assert fresh(investigation_outcome="timed_out", last_investigated_at=fifteen_minutes_ago).should_investigate("full", NOW)
    assert not fresh(investigation_outcome="", last_investigated_at=fifteen_minutes_ago).should_investigate("full", NOW)
    assert not fresh(investigation_outcome="fix_failed", last_investigated_at=fifteen_minutes_ago).should_investigate("full", NOW)


@pytest.mark.parametrize("outcome", ["fix_failed", "fix_verification_failed"])
def test_a_failed_fix_is_retried_after_twenty_minutes_not_an_hour(outcome):
    assert fresh(investigation_outcome=outcome, last_investigated_at=NOW - timedelta(minutes=20)).should_investigate("full", NOW)
    assert fresh(investigation_outcome=outcome, last_investigated_at=NOW - timedelta(minutes=25)).should_investigate("full", NOW)
    refused = fresh(investigation_outcome=outcome, last_investigated_at=NOW - timedelta(minutes=20) + timedelta(microseconds=1))
    assert refused.investigation_refusal("full", NOW) is Refusal.COOLDOWN


def test_naive_times_are_utc():
    naive_now = NOW.replace(tzinfo=None)
    finding = fresh(last_investigated_at=naive_now - timedelta(minutes=30))
    assert finding.investigation_refusal("full", NOW) is Refusal.COOLDOWN
    assert fresh(last_investigated_at=NOW - timedelta(hours=2)).should_investigate("full", naive_now)
    other_zone = NOW.astimezone(timezone(timedelta(hours=-7)))
    assert fresh(snoozed_until=NOW + timedelta(minutes=1)).investigation_refusal("full", other_zone) is Refusal.SNOOZED


# --- order of checks ------------------------------------------------------------


def test_checks_run_in_the_documented_order():
    everything_wrong = fresh(
        resolved_at=NOW, snoozed_until=NOW + timedelta(hours=1), investigation_outcome="fix_queued", severity="info",
        investigation_status="running", investigation_attempts=9, last_investigated_at=NOW,
    )
    expected = [
        (None, Refusal.AUTONOMY_DISABLED),
        ("full", Refusal.INACTIVE),
    ]
    for autonomy, reason in expected:
        assert everything_wrong.investigation_refusal(autonomy, NOW) is reason
    peeled = [
        ("resolved_at", None, Refusal.SNOOZED),
        ("snoozed_until", None, Refusal.FIX_QUEUED),
        ("investigation_outcome", "cannot_fix", Refusal.TERMINAL_OUTCOME),
        ("investigation_outcome", "", Refusal.NOT_ACTIONABLE),
        ("severity", "critical", Refusal.RUNNING),
        ("investigation_status", "", Refusal.MAX_ATTEMPTS),
        ("investigation_attempts", 0, Refusal.COOLDOWN),
        ("last_investigated_at", None, None),
    ]
    finding = everything_wrong
    for field_name, value, reason in peeled:
        finding = replace(finding, **{field_name: value})
        assert finding.investigation_refusal("full", NOW) is reason


# --- a property: the answer is the conjunction of the rules -------------------------


@settings(deadline=None, max_examples=400)
@given(
    autonomy=st.sampled_from([None, "", "monitor", "MONITOR", "approval", "assisted", "full", "other"]),
    severity=st.sampled_from(["info", "watch", "warning", "critical", ""]),
    resolved=st.booleans(),
    dismissed=st.sampled_from(["", "not_an_issue"]),
    suppressed=st.booleans(),
    snooze=st.none() | st.integers(-120, 120),
    status=st.sampled_from(["", "pending", "running", "completed", "failed"]),
    outcome=st.sampled_from([o.value for o in InvestigationOutcome] + [""]),
    attempts=st.integers(0, 5),
    since=st.none() | st.integers(-5, 120),
)
def test_decision_is_the_conjunction_of_the_rules(
    autonomy, severity, resolved, dismissed, suppressed, snooze, status, outcome, attempts, since
):
    finding = Finding(
        severity=severity,
        resolved_at=NOW if resolved else None,
        dismissed_reason=dismissed,
        suppressed=suppressed,
        snoozed_until=None if snooze is None else NOW + timedelta(minutes=snooze),
        investigation_status=status,
        investigation_outcome=outcome,
        investigation_attempts=attempts,
        last_investigated_at=None if since is None else NOW - timedelta(minutes=since),
    )
    cooldown_minutes = {"timed_out": 10, "fix_failed": 20, "fix_verification_failed": 20}.get(outcome, 60)
    expected = (
        autonomy not in (None, "", "monitor")
        and not (resolved or dismissed or suppressed)
        and not (snooze is not None and snooze > 0)
        and outcome != "fix_queued"
        and outcome not in TERMINAL
        and severity in ("warning", "critical")
        and status != "running"
        and attempts < 3
        and not (since is not None and since < cooldown_minutes)
    )
    assert finding.should_investigate(autonomy, NOW) is expected
