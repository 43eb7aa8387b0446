"""The known findings a project adopts driftguard with: ``driftguard.baseline.json``.

A new guard must not fail CI on its first day. The drift a rule finds the day it is
written (a real broken link, a stale reference) goes into the baseline file the
config names (``baseline:``); a run then fails only on findings that are not in it,
and counts the known ones in one line. An entry matches a finding on its rule, its
document, its kind and its value, never its line, so an edit elsewhere in the page
keeps it known; each entry stands for one finding. Errors (a file that cannot be
read or parsed) are never known: they fail every run.

``driftguard baseline --update`` rewrites the file from a run, dropping the entries
no finding matches any more (they were fixed) and naming them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from driftguard.model import ConfigError, Finding, Location

FORMAT = 1
NAME = "driftguard.baseline.json"

Key = tuple[str, str, str, str]


def key_of(finding: Finding) -> Key:
    return (finding.rule, finding.doc.path if finding.doc else "", finding.kind.kind, finding.value or "")


@dataclass(frozen=True)
class Baseline:
    entries: tuple[dict[str, str], ...]

    def counts(self) -> Counter[Key]:
        return Counter((e["rule"], e["doc"], e["kind"], e["value"]) for e in self.entries)


def read_baseline(path: Path) -> Baseline:
    """The baseline at ``path``; an absent file is an empty baseline, a damaged one an error."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Baseline(())
    except OSError as exc:
        raise ConfigError(f"cannot read the baseline: {exc.strerror or exc}", Location(str(path))) from None
    try:
        data = json.loads(raw)
        entries = tuple({k: str(e[k]) for k in ("rule", "doc", "kind", "value", "message")}
                        for e in data["findings"])
        if data.get("driftguard_baseline") != FORMAT:
            raise ValueError("not a driftguard baseline")
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"the baseline is not one driftguard wrote ({exc}); rewrite it with "
                          "`driftguard baseline --update`", Location(str(path))) from None
    return Baseline(entries)


def split(findings: Iterable[Finding], left: Counter[Key]) -> tuple[list[Finding], list[Finding]]:
    """(new findings, known ones), spending ``left`` (entries not yet matched) as they match."""
    new: list[Finding] = []
    known: list[Finding] = []
    for finding in findings:
        key = key_of(finding)
        if not finding.is_error and left[key] > 0:
            left[key] -= 1
            known.append(finding)
        else:
            new.append(finding)
    return new, known


def baseline_text(findings: Iterable[Finding]) -> str:
    """The baseline file for ``findings`` (errors left out), sorted, one entry per line."""
    entries = sorted(
        ({"rule": f.rule, "doc": f.doc.path if f.doc else "", "kind": f.kind.kind, "value": f.value or "",
          "message": f.message} for f in findings if not f.is_error),
        key=lambda e: (e["rule"], e["doc"], e["kind"], e["value"], e["message"]))
    lines = [json.dumps(e, ensure_ascii=False, sort_keys=True) for e in entries]
    body = ",\n    ".join(lines)
    return f'{{\n  "driftguard_baseline": {FORMAT},\n  "findings": [\n    {body}\n  ]\n}}\n' if lines else \
        f'{{\n  "driftguard_baseline": {FORMAT},\n  "findings": []\n}}\n'
