"""Set proposals: a table column or a section's code spans against the code sets.

A table column is bound both ways when it equals a code set (or the union of
several; ignoring case when only case differs), doc-to-code when it lists part of
one, code-to-doc when it lists all of one and more; any other overlap cannot pass
as a rule and is reported as a near miss. A first column of plain words binds only
when it equals a ``String()`` method's cases, the constants of one type or enum, or
a map's keys. A section's own code spans are covered by one or more code sets and
bound doc-to-code, with a ``code_spans`` regex of shapes (snake case, UPPER, ...)
that selects only values the sets declare; never a regex listing the values, which
would freeze today's values into the rule (a new value in the document would not be
read, so the rule could not fail). Confidence grows with the overlap (weighted: a
snake_case or UPPER value counts more than a plain short word) and with how much of
the other side it covers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from driftguard.config.specs import SectionClaim, TableClaim
from driftguard.discover.draft import PROPOSE_AT, Draft, describe_fact, short_list, what_set
from driftguard.discover.model import CodeSet, NearMiss, SetClaim, mentioned

ORIGIN_RANK = {"type": 0, "enum": 0, "string_method": 1, "flags": 1, "env": 1, "fields": 1, "prefix": 2, "suffix": 3,
               "map_keys": 4}
PLAIN_ORIGINS = frozenset({"type", "enum", "string_method", "map_keys", "fields", "flags"})
NOT_IN_PROSE = frozenset({"fields"})
"""Sets a section's code spans never bind to: a record's field names are plain words that
prose names for other reasons; a table, headings, bullets or a block listing them do."""
"""What a plain-word first column may equal: a declared set of members, not a name group."""
SHAPES = (
    r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+",
    r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+",
    r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+",
    r"[A-Z][A-Z0-9]+",
    r"[a-z][a-z0-9]+",
    r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+",
    r"(?:[A-Z][a-z0-9]+){2,}",
)
_SHAPES = tuple(re.compile(s) for s in SHAPES)
MAX_FACTS = 4
MAX_EXCLUDED = 3  # undeclared spans a code_spans regex may leave out by name
NEAR_MISS_AT = 0.5  # Jaccard overlap from which a set that cannot be bound is reported


def value_weight(value: str) -> float:
    """How much one shared value says: identifiers with structure more than short words."""
    if len(value) >= 8 or re.search(r"[_\-./:]|[a-z][A-Z]", value) or (value.isupper() and len(value) >= 3):
        return 1.0
    return 0.6


def strength(values: Iterable[str]) -> float:
    """1 - 0.5**(weighted count): 2 plain words 0.56, 2 identifiers 0.75, 4 identifiers 0.94."""
    return 1.0 - 0.5 ** sum(value_weight(v) for v in values)


class SetIndex:
    def __init__(self, sets: Iterable[CodeSet]) -> None:
        self.sets = sorted(sets, key=lambda s: (s.file, s.line, ORIGIN_RANK.get(s.origin, 9), s.label))
        self.by_value: dict[str, list[int]] = {}
        self.by_key: dict[frozenset[str], list[int]] = {}
        self.by_folded: dict[frozenset[str], list[int]] = {}
        for i, s in enumerate(self.sets):
            key = s.value_set
            self.by_key.setdefault(key, []).append(i)
            folded = fold(key)
            if len(folded) == len(key):
                self.by_folded.setdefault(folded, []).append(i)
            for v in key:
                self.by_value.setdefault(v, []).append(i)

    def counts(self, values: Iterable[str]) -> dict[int, int]:
        """Set index -> how many of ``values`` it holds, for every set holding one."""
        counts: dict[int, int] = {}
        for v in set(values):
            for i in self.by_value.get(v, ()):
                counts[i] = counts.get(i, 0) + 1
        return counts

    def overlapping(self, values: Iterable[str], at_least: int) -> list[CodeSet]:
        counts = self.counts(values)
        return [self.sets[i] for i in sorted(counts) if counts[i] >= at_least]


def fold(values: Iterable[str]) -> frozenset[str]:
    return frozenset(v.casefold() for v in values)


def _rank(s: CodeSet, shared: int, doc: int, mentions: frozenset[str]) -> tuple[object, ...]:
    """Best first: the closest overlap, then a file the document names, then the selector kind."""
    size = len(s.value_set)
    return (-shared / (size + doc - shared), not mentioned(s.file, mentions), ORIGIN_RANK.get(s.origin, 9),
            s.file, s.label)


def match_table(claim: SetClaim, index: SetIndex, mentions: frozenset[str] = frozenset()
                ) -> tuple[Draft | None, NearMiss | None]:
    doc = set(claim.values)
    n = len(doc)
    folded = fold(doc)
    exact = [index.sets[i] for i in index.by_key.get(frozenset(doc), ())]
    by_case = not exact and len(folded) == n
    if by_case:
        exact = [index.sets[i] for i in index.by_folded.get(folded, ())]
    declared = claim.plain or claim.kind != "table"  # plain words, or names a form picked out: declared sets only
    if declared:
        exact = [s for s in exact if s.origin in PLAIN_ORIGINS]
    if exact:
        best = min(exact, key=lambda s: _rank(s, n, n, mentions))
        return _table_draft(claim, [best], "both", strength(doc), by_case), None
    if claim.plain:
        return None, None
    counts = {i: c for i, c in index.counts(doc).items()
              if c >= 2 and (not declared or index.sets[i].origin in PLAIN_ORIGINS)}
    if not counts:
        return None, None
    size = {i: len(index.sets[i].value_set) for i in counts}
    inside = sorted((i for i in counts if counts[i] == size[i]),
                    key=lambda i: (-size[i], _rank(index.sets[i], counts[i], n, mentions)))
    cover: list[CodeSet] = []
    union: set[str] = set()
    for i in inside:
        s = index.sets[i]
        if len(cover) < MAX_FACTS and not s.value_set <= union:
            cover.append(s)
            union |= s.value_set
    if union == doc:
        return _table_draft(claim, cover, "both", strength(doc) * 0.95 ** (len(cover) - 1)), None
    options: list[Draft] = []
    around = [i for i in counts if counts[i] == n]
    if around:
        best = index.sets[min(around, key=lambda i: _rank(index.sets[i], n, n, mentions))]
        ratio = n / len(best.value_set)
        options.append(_table_draft(claim, [best], "doc-to-code", strength(doc) * (0.5 + 0.5 * ratio)))
    if cover:
        ratio = len(union) / n
        options.append(_table_draft(claim, cover, "code-to-doc", strength(union) * (0.5 + 0.5 * ratio)))
    if options:
        return max(options, key=lambda d: d.confidence), None
    best_i = min(counts, key=lambda i: _rank(index.sets[i], counts[i], n, mentions))
    if counts[best_i] / (size[best_i] + n - counts[best_i]) < NEAR_MISS_AT:
        return None, None
    best = index.sets[best_i]
    code = best.value_set
    return None, NearMiss(claim, best, _ordered(claim.values, code), _ordered(claim.values, code, keep=False),
                          _ordered(best.values, doc, keep=False))


def _ordered(values: Iterable[str], other: AbstractSet[str], keep: bool = True) -> tuple[str, ...]:
    return tuple(v for v in dict.fromkeys(values) if (v in other) == keep)


def _table_draft(claim: SetClaim, facts: list[CodeSet], direction: str, confidence: float,
                 by_case: bool = False) -> Draft:
    key = (lambda v: v.casefold()) if by_case else (lambda v: v)
    doc = {key(v) for v in claim.values}
    code = {key(v) for f in facts for v in f.values}
    overlap = tuple(v for v in dict.fromkeys(claim.values) if key(v) in code)
    doc_only = tuple(v for v in dict.fromkeys(claim.values) if key(v) not in code)
    code_only = tuple(v for f in facts for v in f.values if key(v) not in doc)
    form = claim.form or TableClaim(table=claim.table.title if claim.table else "", column=claim.column,
                                    section=claim.table.section if claim.table else None)
    where = (f"table '{claim.table.title}'" + (f", column '{claim.column}'" if claim.column else "")
             if claim.kind == "table" and claim.table is not None and claim.form is None else form.describe())
    evidence = [f"{where} at {claim.doc}:{claim.line} lists {len(doc)} values; "
                f"{len(overlap)} of them are declared in code"]
    evidence += [f"code: {describe_fact(f)} ({len(f.values)} values)" for f in facts]
    evidence.append(f"overlap: {short_list(overlap)}")
    evidence.append(f"only in the document: {short_list(doc_only)}; only in code: {short_list(code_only)}")
    column = "the first column" if claim.column is None else f"column '{claim.column}'"
    column = column if claim.kind == "table" else where
    sets = " and ".join(what_set(f) for f in facts)
    relation = {"both": "equals", "doc-to-code": "lists part of", "code-to-doc": "lists all of, and more than,"}
    basis = f"{column} {relation[direction]} the {sets}" + (", ignoring case" if by_case else "")
    subject = (claim.table.title if claim.table else claim.section or "") if len(facts) > 1 else ""
    return Draft(form, subject, claim.doc, claim.line, list(facts), round(confidence, 3), evidence, direction,
                 overlap=overlap, doc_only=doc_only, code_only=code_only, basis=basis, case_insensitive=by_case)


def match_section(claim: SetClaim, index: SetIndex, mentions: frozenset[str] = frozenset()) -> Draft | None:
    doc = set(claim.values)
    found = sorted((s for s in index.overlapping(doc, 1) if s.origin not in NOT_IN_PROSE),
                   key=lambda s: not mentioned(s.file, mentions))
    cover: list[CodeSet] = []
    covered: set[str] = set()
    while len(cover) < MAX_FACTS:
        gains = [(sum(value_weight(v) for v in (s.value_set & doc) - covered), s) for s in found if s not in cover]
        gains = [(g, s) for g, s in gains if g >= (1.2 if not cover else 1.0)]
        if not gains:
            break
        best = max(gains, key=lambda gs: gs[0])[1]  # the first of equal gains: index order
        cover.append(best)
        covered |= best.value_set & doc
    if not cover or len(covered) < 2:
        return None
    union: set[str] = set().union(*(s.value_set for s in cover))
    regex = fit_regex(sorted(covered), claim.section_spans, union)
    if regex is None:
        return None
    covered = {v for v in covered if re.search(regex, v)}
    cover = [s for s in cover if s.value_set & covered]
    if len(covered) < 2:
        return None
    ratio = len(covered) / len(doc)
    confidence = strength(covered) * (0.4 + 0.6 * ratio)
    if confidence < PROPOSE_AT:
        return None
    selected = [v for v in claim.section_spans if re.search(regex, v)]
    overlap = _ordered(claim.values, covered)
    evidence = [f"section '{claim.section}' at {claim.doc}:{claim.line} names {len(doc)} code spans; "
                f"{len(covered)} of them are declared in code"]
    evidence += [f"code: {describe_fact(f)} ({len(f.values)} values)" for f in cover]
    evidence.append(f"overlap: {short_list(overlap)}")
    evidence.append(f"code_spans selects {len(selected)} spans; left out: "
                    f"{short_list([v for v in claim.section_spans if v not in set(selected)])}")
    basis = (f"{len(covered)} code spans of the section's shape {regex} are the "
             + " and ".join(what_set(f) for f in cover))
    assert claim.section is not None
    form = SectionClaim(section=claim.section, code_spans=regex)
    return Draft(form, claim.section, claim.doc, claim.line, list(cover), round(confidence, 3), evidence,
                 "doc-to-code", overlap=overlap, doc_only=_ordered(claim.values, covered, keep=False), basis=basis)


def fit_regex(values: list[str], spans: Iterable[str], declared: set[str]) -> str | None:
    """An anchored regex of the shapes (snake case, UPPER, ...) of ``values`` that matches no
    span of the section the code does not declare; None when no shape is safe. A shape may
    leave out a few undeclared spans by name (at most ``MAX_EXCLUDED``, a third of what it
    matches). It never lists the values: a regex holding today's values reads no new one,
    so the rule could not fail."""
    spans = list(dict.fromkeys(spans))
    parts: list[str] = []
    excluded: list[str] = []
    for shape, pattern in zip(SHAPES, _SHAPES):
        first = [v for v in values if pattern.fullmatch(v)
                 and not any(p.fullmatch(v) for p in _SHAPES[:SHAPES.index(shape)])]
        matched = [s for s in spans if pattern.fullmatch(s)]
        undeclared = [s for s in matched if s not in declared]
        if not first or len(undeclared) * 3 > len(matched) or len(excluded) + len(undeclared) > MAX_EXCLUDED:
            continue
        parts.append(shape)
        excluded += [s for s in undeclared if s not in excluded]
    if not parts:
        return None
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if excluded:
        body = "(?!(?:" + "|".join(re.escape(s) for s in excluded) + ")$)" + body
    return f"^{body}$"
