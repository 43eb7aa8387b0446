"""Plain records shared by the machine formats: one dict per rule, finding and fact."""

from __future__ import annotations

from typing import Any

from driftguard._version import __version__
from driftguard.judging.result import Result, RuleResult
from driftguard.model import Fact, NameItems, Status


def summary(result: Result) -> dict[str, int]:
    return {
        "rules": len(result.rules),
        "passed": result.count(Status.PASS),
        "failed": result.count(Status.FAIL),
        "errors": result.count(Status.ERROR),
        "known": len(result.known),
    }


def rule_record(rr: RuleResult) -> dict[str, Any]:
    return {
        "id": rr.rule.id,
        "status": rr.status.value,
        "doc": rr.rule.doc,
        "why": rr.rule.why or None,
        "findings": [f.to_json() for f in rr.findings],
        "skipped": list(rr.skipped),
    }


NAMES_LISTED = 20
"""Values listed of a ``symbols`` fact, which may hold hundreds of thousands of names:
a report stays linear in its findings and claims, never in a fact's names."""


def fact_record(fact: Fact) -> dict[str, Any]:
    many = isinstance(fact.items, NameItems) and len(fact.items) > NAMES_LISTED
    listed = fact.items[:NAMES_LISTED] if many else fact.items
    record: dict[str, Any] = {
        "name": fact.name,
        "scalar": fact.scalar,
        "count": len(fact.items),
        "values": [
            {
                "value": item.value.canonical,
                "text": item.value.text,
                "kind": item.value.kind.value,
                "source": item.location.to_json() if item.location else None,
                **({"key": item.label} if item.label and item.label != "literal" else {}),
            }
            for item in listed
        ],
    }
    if many:
        record["truncated"] = True  # `driftguard facts NAME` lists them all
    return record


def result_record(result: Result, with_facts: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ok": result.ok,
        "version": __version__,
        "summary": summary(result),
        "rules": [rule_record(rr) for rr in result.rules],
        "findings": [f.to_json() for f in result.findings],
        "warnings": [warning_record(w) for w in result.warnings],
    }
    if with_facts:
        for record, rr in zip(out["rules"], result.rules):
            record["facts"] = [fact_record(fact) for fact in rr.facts]
            record["claims"] = claim_records(rr)
    return out


def warning_record(warning: str) -> dict[str, Any]:
    """A fact's warning (``path:LINE: what``) as ``{"path", "line", "message"}``."""
    where, _, message = warning.partition(": ")
    path, _, line = where.rpartition(":")
    return {"path": path or where, "line": int(line) if line.isdigit() else None, "message": message}


def claim_records(rr: RuleResult) -> list[dict[str, Any]]:
    """What the rule read from its document: each claimed value and its line."""
    if rr.claim is None:
        return []
    return [
        {"value": item.value.text or item.value.canonical,
         "doc": (item.location or rr.claim.location).to_json()}
        for item in rr.claim.items
    ]


def summary_line(result: Result) -> str:
    s = summary(result)
    parts = [f"{s['passed']} passed"]
    if s["failed"]:
        parts.append(f"{s['failed']} failed")
    if s["errors"]:
        parts.append(f"{s['errors']} error{'s' if s['errors'] != 1 else ''}")
    noun = "rule" if s["rules"] == 1 else "rules"
    known = len(result.known)
    tail = f"; {known} known finding{'s' if known != 1 else ''} in the baseline not shown" if known else ""
    return f"driftguard: {s['rules']} {noun}: {', '.join(parts)}{tail}"
