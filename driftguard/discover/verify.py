"""Run every proposal through the real engine before it is emitted.

``to_config`` builds the in-memory ``Config`` the emitted YAML describes (the
same fact specs and rules), and ``verify`` keeps only the proposals whose rule
passes on the tree they were discovered from.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from driftguard.config.loader import CONFIG_NAME, Config, FactSpec, Rule
from driftguard.config.specs import ClaimForm, PhraseClaim, SectionClaim, TableClaim
from driftguard.discover.model import Proposal
from driftguard.model import Direction, Status


def claim_form(p: Proposal) -> ClaimForm:
    if p.kind == "phrase":
        assert p.phrase is not None
        return PhraseClaim(template=p.phrase, section=p.section)
    if p.kind == "section":
        assert p.section is not None
        return SectionClaim(section=p.section, code_spans=p.code_spans)
    assert p.table is not None
    return TableClaim(table=p.table.title, column=p.column, rows=p.rows, section=p.table.section)


def to_config(root: Path, proposals: Iterable[Proposal]) -> Config:
    facts: dict[str, FactSpec] = {}
    rules = []
    for p in proposals:
        for ref in p.facts:
            facts.setdefault(ref.name, FactSpec(ref.name, ref.fact.file, ref.fact.selector, 0))
        names = tuple(name for _, name in p.rows) if p.rows else tuple(r.name for r in p.facts)
        direction = Direction(p.direction) if p.direction else Direction.BOTH
        rules.append(Rule(p.id, tuple(dict.fromkeys(names)), p.doc, claim_form(p), direction, 0))
    return Config(path=root / CONFIG_NAME, root=root, facts=facts, rules=tuple(rules))


def verify(root: Path, proposals: list[Proposal]) -> tuple[list[Proposal], list[tuple[Proposal, str]]]:
    """(the proposals whose rule passes, the others with the engine's first finding)."""
    from driftguard.judging.engine import Engine

    engine = Engine(to_config(root, proposals))
    kept, dropped = [], []
    for p, rule in zip(proposals, engine.config.rules):
        result = engine.judge(rule)
        if result.status is Status.PASS:
            kept.append(p)
        else:
            first = result.findings[0] if result.findings else None
            dropped.append((p, f"{first.kind.kind}: {first.message}" if first else result.status.value))
    return kept, dropped
