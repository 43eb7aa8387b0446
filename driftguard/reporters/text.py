"""The human formats: one line per finding for ``check``; every rule for ``report``."""

from __future__ import annotations

from driftguard.judging.result import Result, RuleResult
from driftguard.model import Finding, Location
from driftguard.reporters.records import summary_line


def finding_line(f: Finding) -> str:
    """``docs/X.md:LINE: RULE: message (source: path:LINE)``."""
    where = f.doc or f.source or Location("?")
    tail = f" (source: {f.source})" if f.source and f.source is not where else ""
    if f.declared and f.source:
        tail = f" (declared: {f.source}, {f.declared})"
    return f"{where}: {f.rule}: {f.message}{tail}"


def _rule_lines(rr: RuleResult) -> list[str]:
    lines = [finding_line(f) for f in rr.findings]
    if rr.findings and rr.rule.why:
        lines.append(f"  why {rr.rule.id}: {rr.rule.why}")
    return lines


def render_check(result: Result) -> str:
    lines = [line for rr in result.rules for line in _rule_lines(rr)]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def render_report(result: Result) -> str:
    lines: list[str] = []
    for rr in result.rules:
        lines.append(f"{rr.status.value.upper():5} {rr.rule.id}  ({rr.rule.doc})")
        for fact in rr.facts:
            lines.append(f"      fact {fact.name}: {len(fact.items)} value{'s' if len(fact.items) != 1 else ''}")
            for item in fact.items:
                lines.append(f"        {item.value.canonical:<32} {item.location or ''}")
    mismatches = result.findings
    lines.append("")
    if mismatches:
        lines.append(f"Mismatches ({len(mismatches)}):")
        for f in mismatches:
            lines.append(f"  {f.kind.kind:<16} {finding_line(f)}")
    else:
        lines.append("No mismatches between the documents and the code.")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
