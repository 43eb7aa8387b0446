"""Prove proposals before they are emitted: each must pass on the tree and be able to fail.

``prove`` runs the proposals, best first and in batches, through ``driftguard selftest``
(``run_selftest`` on the config ``to_config`` builds): a copy of the files each rule
reads must pass cleanly, then every mutation that applies to the rule (a new member in
the code, a new row or code span in the document, a changed value on either side) must
be caught. A rule whose clean run fails is dropped with the engine's first complaint; a
rule that passes but no caught mutation shows can fail (a regex no new value matches,
a claim nothing can be added to) becomes a suggestion, never a rule. Proving stops once
``limit`` rules are proven; the candidates left over are counted, not judged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from driftguard.discover.model import Proposal
from driftguard.discover.verify import to_config
from driftguard.selftest import RuleSelftest, Verdict, run_selftest

SPARE = 5
"""Candidates proven beyond what the limit still needs, so one batch usually suffices."""


@dataclass
class Proof:
    kept: list[Proposal] = field(default_factory=list)  # proven, best first, at most the limit
    unproven: list[tuple[Proposal, str]] = field(default_factory=list)  # passes, cannot be shown to fail
    dropped: list[tuple[Proposal, str]] = field(default_factory=list)  # does not pass on the tree
    left: int = 0  # candidates past the limit: proven but not shown, or not judged


def prove(root: Path, proposals: list[Proposal], limit: int | None = None,
          progress: Callable[[str], None] | None = None) -> Proof:
    """Selftest ``proposals`` (best first) until ``limit`` are proven (all of them when None);
    ``progress`` is called with ``proved ID`` or ``not proven ID`` once per rule judged."""
    proof = Proof()
    at = 0
    while at < len(proposals) and (limit is None or len(proof.kept) < limit):
        size = len(proposals) if limit is None else limit - len(proof.kept) + SPARE
        batch = proposals[at:at + size]
        at += len(batch)
        by_id = {p.id: p for p in batch}
        reports: dict[str, list[RuleSelftest]] = {}
        for report in run_selftest(to_config(root, batch)).rules:  # a rule over many documents: one per document
            reports.setdefault(report.rule.id, []).append(report)
        for rule_id, found in reports.items():
            proposal = by_id[rule_id]
            dirty = next((r for r in found if not r.clean), None)
            verdicts = {o.verdict for r in found for o in r.outcomes}
            can_fail = Verdict.CAUGHT in verdicts and Verdict.MISSED not in verdicts
            if dirty is not None:
                proof.dropped.append((proposal, dirty.problems[0] if dirty.problems else "does not pass"))
            elif can_fail:
                proof.kept.append(proposal)
            else:
                proof.unproven.append((proposal, why_not(next((r for r in found if not r.can_fail), found[0]))))
            if progress is not None:
                progress(f"{'proved' if dirty is None and can_fail else 'not proven'} {proposal.id}")
    if limit is not None and len(proof.kept) > limit:
        proof.left = len(proof.kept) - limit
        del proof.kept[limit:]
    proof.left += len(proposals) - at
    return proof


def why_not(report: RuleSelftest) -> str:
    """Why selftest cannot show the rule can fail, in one line."""
    if not report.outcomes:
        return "no selftest mutation applies to it"
    for outcome in report.outcomes:
        if outcome.verdict is not Verdict.CAUGHT:
            detail = f": {outcome.detail}" if outcome.detail else ""
            return f"{outcome.mutation}: {outcome.verdict.value}{detail}"
    return "no mutation was caught"
