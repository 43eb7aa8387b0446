"""A ``references`` rule's verdict on one document, and its form in the cache."""

from __future__ import annotations

from dataclasses import dataclass

from driftguard.judging.cache_codec import Uncacheable
from driftguard.model import FINDING_KINDS, Finding, Location


@dataclass(frozen=True)
class Judged:
    findings: list[Finding]
    skipped: list[str]  # ``LINE: `name`: why it is not reported``


def judged_to_json(judged: Judged) -> dict[str, object]:
    findings: list[object] = []
    for f in judged.findings:
        if f.doc is None or f.source is not None or f.declared or f.doc.column is not None:
            raise Uncacheable("a finding beyond a document line")
        findings.append([f.kind.kind, f.rule, f.message, f.value, f.doc.path, f.doc.line])
    return {"findings": findings, "skipped": list(judged.skipped)}


def judged_from_json(raw: object) -> Judged:
    if not isinstance(raw, dict):
        raise ValueError("a verdict is an object")
    findings = []
    for kind, rule, message, value, path, line in raw["findings"]:
        if not (isinstance(rule, str) and isinstance(message, str) and isinstance(path, str)
                and (value is None or isinstance(value, str)) and (line is None or isinstance(line, int))):
            raise ValueError("a finding of a verdict")
        findings.append(Finding(FINDING_KINDS[kind], rule, message, value=value, doc=Location(path, line)))
    skipped = raw["skipped"]
    if not isinstance(skipped, list) or not all(isinstance(s, str) for s in skipped):
        raise ValueError("the skipped spans of a verdict")
    return Judged(findings, skipped)
