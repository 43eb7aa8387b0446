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

from driftguard.config.specs import DocMember
from driftguard.discover.draft import PROPOSE_AT, Draft
from driftguard.discover.match_options import cell_matches, default_drafts, flag_sections, map_drafts, option_matches
from driftguard.discover.match_scalars import ScalarMatch, best_matches, phrase_drafts, rows_drafts
from driftguard.discover.match_sets import SetIndex, match_section, match_table
from driftguard.discover.model import CodeFact, CodeScalar, CodeSet, DocFile, FactRef, NearMiss, Proposal, SourceFile
from driftguard.discover.words import identifier_words
from driftguard.model import Kind


def propose(sources: list[SourceFile], docs: list[DocFile]
            ) -> tuple[list[Proposal], list[NearMiss], list[ScalarMatch]]:
    """Proposals (named, in document order), near misses, and scalar matches no template could read."""
    sets = [s for f in sources for s in f.sets]
    index = SetIndex(sets)
    drafts: list[Draft] = []
    near: list[NearMiss] = []
    for doc in docs:
        for claim in [*doc.set_claims, *flag_sections(doc.set_claims)]:
            if claim.kind == "section":
                draft = match_section(claim, index, doc.mentions)
            else:
                draft, miss = match_table(claim, index, doc.mentions)
                if miss is not None:
                    near.append(miss)
            if draft is not None and draft.confidence >= PROPOSE_AT:
                drafts.append(draft)
    drafts += map_drafts([c for d in docs for c in d.set_claims], sets)
    scalars = [s for f in sources for s in f.scalars]
    claims = [q for d in docs for q in d.quantities]
    mentions = {d.path: d.mentions for d in docs}
    by_path = {d.path: d for d in docs}
    matches = best_matches((q for q in claims if not q.option),
                           (s for s in scalars if s.value.kind in QUANTITY_KINDS), mentions)
    options = option_matches([q for q in claims if q.option], scalars, mentions)
    phrases, unplaced = phrase_drafts(matches, by_path)
    drafts += phrases + default_drafts(options, by_path) + rows_drafts(_cells(matches, cell_matches(options)))
    best: dict[tuple[object, ...], Draft] = {}
    for draft in drafts:
        kept = best.get(draft.claim_key)
        if kept is None or draft.confidence > kept.confidence:
            best[draft.claim_key] = draft
    ordered = sorted(superseded(list(best.values())), key=lambda d: (d.doc, d.line, d.claim.key, repr(d.claim)))
    return name_drafts(ordered), near, unplaced


QUANTITY_KINDS = (Kind.NUMBER, Kind.DURATION)


def _cells(matches: list[ScalarMatch], options: list[ScalarMatch]) -> list[ScalarMatch]:
    """Every table cell bound once: a cell whose row names an option keeps that binding."""
    taken = {(m.claim.doc, m.claim.line, m.claim.column) for m in options}
    return options + [m for m in matches if (m.claim.doc, m.claim.line, m.claim.column) not in taken]


def superseded(drafts: list[Draft]) -> list[Draft]:
    """Drafts no better draft reads the same thing as: a table's names beside the map rule that
    also guards its defaults, a section's code spans beside the rule on its bullets or block."""
    maps = {(d.doc, d.line) for d in drafts if d.claim.table_column is not None and _map(d)}
    shaped = {(d.doc, d.claim.scope) for d in drafts if d.direction == "both" and not d.claim.scalar
              and d.claim.scope is not None and d.claim.doc_member in (DocMember.MATCH, DocMember.BULLET)}
    return [d for d in drafts if not (
        d.claim.table_column is not None and not d.claim.labelled and (d.doc, d.line) in maps and not _map(d))
        and not (_code_spans(d) and (d.doc, d.claim.scope) in shaped)]


def _map(d: Draft) -> bool:
    """Whether the draft reads a map of names to defaults (flags or variables with theirs)."""
    return bool(d.facts) and isinstance(d.facts[0], CodeSet) and bool(d.facts[0].selector.map)


def _code_spans(d: Draft) -> bool:
    """Whether the draft reads the code spans of a section's prose (no table, no value)."""
    return (d.claim.doc_member is DocMember.CODE_SPAN and d.claim.table_column is None and not d.claim.scalar
            and d.claim.span_regex is not None)


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
    if fact.selector.map:  # a map's entries and the map itself: one fact, named for the map
        label = fact.owner if isinstance(fact, CodeScalar) else fact.label
    else:
        label = fact.name if isinstance(fact, CodeScalar) else fact.label
    base = _join(_words_of(label), "_") or "fact"
    return base if base[0].isalpha() else "f_" + base


def _stem_words(path: str) -> list[str]:
    return _words_of(PurePosixPath(path).stem)


def name_drafts(drafts: Iterable[Draft]) -> list[Proposal]:
    drafts = list(drafts)
    used: dict[tuple[str, object], CodeFact] = {}  # one fact per file and selector: a map's entries share it
    for draft in drafts:
        for fact in draft.facts:
            used.setdefault((fact.file, fact.selector), fact)
    by_key: dict[tuple[str, object], str] = {}
    taken: set[str] = set()
    for key, fact in sorted(used.items(), key=lambda kf: (kf[1].file, kf[1].line, fact_base(kf[1]))):
        by_key[key] = _unique(fact_base(fact), _join(_stem_words(fact.file), "_"), taken, "_")
    names = _Names(by_key)
    ids: set[str] = set()
    out = []
    for d in drafts:
        refs = tuple(FactRef(names[f], f) for f in d.facts)
        rule_id = _unique(_rule_base(d, refs), _join(_stem_words(d.doc), "-"), ids, "-")
        claim = d.claim.renamed({f"#{i}": names[fact] for i, (_, fact) in enumerate(d.rows)})
        out.append(Proposal(
            rule_id, claim, d.doc, d.line, refs, d.confidence, tuple(d.evidence), d.direction, d.overlap,
            d.doc_only, d.code_only, d.basis, d.case_insensitive, d.entry, ignore=d.ignore, template=d.template,
        ))
    return out


class _Names:
    """Fact names by fact: by its file and selector."""

    def __init__(self, by_key: dict[tuple[str, object], str]) -> None:
        self.by_key = by_key

    def __getitem__(self, fact: CodeFact) -> str:
        return self.by_key[(fact.file, fact.selector)]


def _rule_base(d: Draft, refs: tuple[FactRef, ...]) -> str:
    words = _words_of(d.subject) if d.subject else _words_of(refs[0].name)
    base = _join(words, "-") or "rule"
    return base if re.match(r"[a-z0-9]", base) else "r-" + base

