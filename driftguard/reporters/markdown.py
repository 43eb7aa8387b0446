"""A markdown report, fit for ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

from driftguard.judging.result import Result
from driftguard.reporters.records import summary_line

_ICON = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}


def _cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def render_report(result: Result) -> str:
    out = ["# driftguard report", "", summary_line(result), "",
           "| Rule | Status | Document | Facts |", "|---|---|---|---|"]
    for rr in result.rules:
        facts = ", ".join(f"{f.name} ({len(f.items)})" for f in rr.facts)
        out.append(f"| `{rr.rule.id}` | {_ICON[rr.status.value]} | {_cell(rr.rule.doc)} | {_cell(facts)} |")
    out.append("")
    if result.findings:
        out += ["## Mismatches", "", "| Rule | Kind | Document | Value | Source | Message |",
                "|---|---|---|---|---|---|"]
        for f in result.findings:
            out.append(
                f"| `{f.rule}` | {f.kind.kind} | {_cell(f.doc)} | {_cell(f.value)} | {_cell(f.source)} "
                f"| {_cell(f.message)} |"
            )
    else:
        out.append("No mismatches between the documents and the code.")
    return "\n".join(out) + "\n"
