"""Where candidate facts meet candidate claims: proposals, scored, one per claim, named.

``propose`` runs the set and scalar matchers over everything the workers
found, keeps what scores at or above ``PROPOSE_AT``, keeps the best proposal
for each claim, and gives every fact and rule a name derived from its
identifiers: unique, stable, and (for rule ids) shaped ``[a-z0-9-]+``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from driftguard.discover.draft import PROPOSE_AT, Draft
from driftguard.discover.match_scalars import ScalarMatch, best_matches, phrase_drafts, rows_drafts
from driftguard.discover.match_sets import SetIndex, match_section, match_table
from driftguard.discover.model import CodeFact, CodeScalar, DocFile, FactRef, NearMiss, Proposal, SourceFile
from driftguard.discover.words import identifier_words


def propose(sources: list[SourceFile], docs: list[DocFile]
            ) -> tuple[list[Proposal], list[NearMiss], list[ScalarMatch]]:
    """Proposals (named, in document order), near misses, and scalar matches no template could read."""
    index = SetIndex(s for f in sources for s in f.sets)
    drafts: list[Draft] = []
    near: list[NearMiss] = []
    for doc in docs:
        for claim in doc.set_claims:
            if claim.kind == "table":
                draft, miss = match_table(claim, index, doc.mentions)
                if miss is not None:
                    near.append(miss)
            else:
                draft = match_section(claim, index, doc.mentions)
            if draft is not None and draft.confidence >= PROPOSE_AT:
                drafts.append(draft)
    matches = best_matches((q for d in docs for q in d.quantities), (s for f in sources for s in f.scalars),
                           {d.path: d.mentions for d in docs})
    phrases, unplaced = phrase_drafts(matches, {d.path: d for d in docs})
    drafts += phrases + rows_drafts(matches)
    best: dict[tuple[object, ...], Draft] = {}
    for draft in drafts:
        kept = best.get(draft.claim_key)
        if kept is None or draft.confidence > kept.confidence:
            best[draft.claim_key] = draft
    ordered = sorted(best.values(), key=lambda d: (d.doc, d.line, d.claim.key, repr(d.claim)))
    return name_drafts(ordered), near, unplaced


# -- names --------------------------------------------------------------------


def _words_of(text: str) -> list[str]:
    return [w for w in identifier_words(text) if w]


def _join(words: list[str], sep: str) -> str:
    out = sep.join(words)
    out = re.sub(r"[^a-z0-9]+", sep, out.lower()).strip(sep)
    return out


def _unique(base: str, extra: str, taken: set[str], sep: str) -> str:
    for candidate in (base, _join([base, extra], sep) if extra else ""):
        if candidate and candidate not in taken:
            taken.add(candidate)
            return candidate
    n = 2
    while f"{base}{sep}{n}" in taken:
        n += 1
    taken.add(f"{base}{sep}{n}")
    return f"{base}{sep}{n}"


def fact_base(fact: CodeFact) -> str:
    label = fact.name if isinstance(fact, CodeScalar) else fact.label
    base = _join(_words_of(label), "_") or "fact"
    return base if base[0].isalpha() else "f_" + base


def _stem_words(path: str) -> list[str]:
    return _words_of(PurePosixPath(path).stem)


def name_drafts(drafts: Iterable[Draft]) -> list[Proposal]:
    drafts = list(drafts)
    used: dict[CodeFact, None] = {}
    for draft in drafts:
        for fact in draft.facts:
            used.setdefault(fact, None)
    names: dict[CodeFact, str] = {}
    taken: set[str] = set()
    for fact in sorted(used, key=lambda f: (f.file, f.line, fact_base(f))):
        names[fact] = _unique(fact_base(fact), _join(_stem_words(fact.file), "_"), taken, "_")
    ids: set[str] = set()
    out = []
    for d in drafts:
        refs = tuple(FactRef(names[f], f) for f in d.facts)
        rule_id = _unique(_rule_base(d, refs), _join(_stem_words(d.doc), "-"), ids, "-")
        claim = d.claim.renamed({f"#{i}": names[fact] for i, (_, fact) in enumerate(d.rows)})
        out.append(Proposal(
            rule_id, claim, d.doc, d.line, refs, d.confidence, tuple(d.evidence), d.direction, d.overlap,
            d.doc_only, d.code_only, d.basis, d.case_insensitive,
        ))
    return out


def _rule_base(d: Draft, refs: tuple[FactRef, ...]) -> str:
    words = _words_of(d.subject) if d.subject else _words_of(refs[0].name)
    base = _join(words, "-") or "rule"
    return base if re.match(r"[a-z0-9]", base) else "r-" + base

