"""Fix a snippet: the block a marker ties to code is rewritten from that code, each line
indented as the block's first line is, in the document's line breaks."""

from __future__ import annotations

from driftguard.fix.changes import Change, Unfixed
from driftguard.fix.edits import Splice
from driftguard.judging.result import RuleResult
from driftguard.model import Claim, Finding
from driftguard.text import newline_of


def snippet_changes(text: str, judged: RuleResult, claim: Claim,
                    findings: list[Finding]) -> tuple[list[Change], list[Unfixed]]:
    code = {item.label: item for fact in judged.facts for item in fact.items}
    stated = {item.label: item for item in claim.items}
    made: list[Change] = []
    left: list[Unfixed] = []
    for finding in findings:
        item, source = stated.get(finding.value or ""), code.get(finding.value or "")
        if item is None or source is None or item.span is None:
            left.append(Unfixed(finding, "not fixable: the snippet or its code could not be read again"))
            continue
        start, end = item.span
        body = text[start:end]
        first = next((line for line in body.splitlines() if line.strip()), "")
        indent = first[:len(first) - len(first.lstrip())]
        newline = newline_of(text)
        new = newline.join(indent + line if line else line for line in str(source.value.data).split("\n"))
        line = item.location.line if item.location and item.location.line else 1
        made.append(Change(judged.rule.id, judged.rule.doc, line, Splice(start, end, new),
                           f"the snippet of {item.label} rewritten from the code", (finding,)))
    return made, left
