"""The in-memory ``Config`` the emitted YAML describes: the same fact specs and rules.

``driftguard.discover.prove`` judges and mutates it to keep only proposals that pass
on the tree they were discovered from and can be shown to fail.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from driftguard.config.loader import CONFIG_NAME, Config, FactSpec, Rule
from driftguard.config.specs import ClaimForm, PhraseClaim, SectionClaim, TableClaim
from driftguard.discover.model import Proposal
from driftguard.model import Direction


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
        rules.append(Rule(p.id, tuple(dict.fromkeys(names)), p.doc, claim_form(p), direction, 0,
                          case_insensitive=p.case_insensitive))
    return Config(path=root / CONFIG_NAME, root=root, facts=facts, rules=tuple(rules))
