"""The in-memory ``Config`` the emitted YAML describes: the same fact specs and rules.

``driftguard.discover.prove`` judges and mutates it to keep only proposals that pass
on the tree they were discovered from and can be shown to fail.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from driftguard.config.loader import CONFIG_NAME, Config, FactSpec, Rule
from driftguard.discover.model import Proposal
from driftguard.model import Direction


def to_config(root: Path, proposals: Iterable[Proposal]) -> Config:
    facts: dict[str, FactSpec] = {}
    rules = []
    for p in proposals:
        for ref in p.facts:
            facts.setdefault(ref.name, FactSpec(ref.name, ref.fact.file, ref.fact.selector, 0))
        names = tuple(name for _, name in p.claim.row_facts) or tuple(r.name for r in p.facts)
        direction = Direction(p.direction) if p.direction else Direction.BOTH
        rules.append(Rule(p.id, tuple(dict.fromkeys(names)), p.doc, p.claim, direction, 0,
                          case_insensitive=p.case_insensitive))
    return Config(path=root / CONFIG_NAME, root=root, facts=facts, rules=tuple(rules))
