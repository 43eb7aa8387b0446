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
        claim = p.claim.for_map() if any(r.fact.selector.map for r in p.facts) and p.entry is None else p.claim
        rules += [Rule(p.id, tuple(dict.fromkeys(names)), doc, claim, direction, 0, doc_pattern=p.doc_key,
                       case_insensitive=p.case_insensitive, entry=p.entry, ignore=p.ignore) for doc in p.documents]
    return Config(path=root / CONFIG_NAME, root=root, facts=facts, rules=tuple(rules))
