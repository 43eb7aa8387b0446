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


def warning_line(warning: str) -> str:
    """``path:LINE: warning: what`` for a fact's warning (``path:LINE: what``)."""
    where, _, what = warning.partition(": ")
    return f"{where}: warning: {what}"


def _rule_lines(rr: RuleResult, told: set[str]) -> list[str]:
    lines = [_once(f, told) for f in rr.findings]
    if rr.findings and rr.rule.why:
        lines.append(f"  why {rr.rule.id}: {rr.rule.why}")
    return lines


def _once(f: Finding, told: set[str]) -> str:
    """A file that cannot be read is explained on its first line only: a missing
    source used by five rules is one explanation and four short references."""
    failed = f.source or f.doc
    if not f.is_error or f.kind.kind != "read-error" or failed is None:
        return finding_line(f)
    if failed.path not in told:
        told.add(failed.path)
        return finding_line(f)
    where = f.doc or failed
    subject = f"fact '{f.value}': " if f.value and f.source else ""
    return f"{where}: {f.rule}: {subject}{failed.path} cannot be read (said above)"


def render_check(result: Result) -> str:
    told: set[str] = set()
    lines = [line for rr in result.rules for line in _rule_lines(rr, told)]
    lines += [warning_line(w) for w in result.warnings]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


REPORT_VALUES = 20
"""Values a report lists per fact; ``driftguard facts NAME`` lists them all."""


def render_report(result: Result) -> str:
    lines: list[str] = []
    listed: set[str] = set()
    for rr in result.rules:
        lines.append(f"{rr.status.value.upper():5} {rr.rule.id}  ({rr.rule.doc})")
        for fact in rr.facts:
            count = len(fact.items)
            head = f"      fact {fact.name}: {count} value{'s' if count != 1 else ''}"
            if fact.name in listed:
                lines.append(head + " (listed above)")
                continue
            listed.add(fact.name)
            lines.append(head)
            for item in fact.items[:REPORT_VALUES]:
                shown = item.value.canonical.replace("\r", "\\r").replace("\n", "\\n")
                lines.append(f"        {shown:<32} {item.location or ''}")
            if count > REPORT_VALUES:
                more = count - REPORT_VALUES
                lines.append(f"        ... and {more} more (`driftguard facts {fact.name}` lists them all)")
        if rr.skipped:
            hint = "; `references: {strict: true}` judges every one" if rr.rule.claim.key == "references" else ""
            lines.append(f"      not judged ({len(rr.skipped)}{hint}):")
            lines += [f"        {rr.rule.doc}:{note}" for note in rr.skipped[:REPORT_VALUES]]
            if len(rr.skipped) > REPORT_VALUES:
                lines.append(f"        ... and {len(rr.skipped) - REPORT_VALUES} more")
    mismatches = result.findings
    lines.append("")
    if mismatches:
        lines.append(f"Mismatches ({len(mismatches)}):")
        for f in mismatches:
            lines.append(f"  {f.kind.kind:<16} {finding_line(f)}")
    else:
        lines.append("No mismatches between the documents and the code.")
    lines += [warning_line(w) for w in result.warnings]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
