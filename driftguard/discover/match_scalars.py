"""Scalar proposals: a quantity in a sentence or cell equal to a named constant.

A quantity and a constant meet when their values are the same (``Value.same``:
a duration never equals a bare number) and the constant's name shares a word
with the sentence or the row label. Shared words weigh by how much they say
(``max``, ``default`` little), words only in the headings or the next
sentence weigh half, and the constant's own name written in the sentence is
the strongest evidence. A value that is rarely written by chance (a duration,
a percentage, a large number) needs less wording than a small count.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from driftguard.discover.draft import PROPOSE_AT, Draft, describe_fact
from driftguard.discover.model import CodeScalar, DocFile, QuantityClaim, TableRef, mentioned
from driftguard.discover.templates import phrase_for
from driftguard.discover.words import weight
from driftguard.model import Kind, Value


@dataclass(frozen=True)
class ScalarMatch:
    claim: QuantityClaim
    fact: CodeScalar
    confidence: float
    shared: tuple[str, ...]  # stems shared with the sentence or row label
    nearby: tuple[str, ...]  # stems shared with the headings or neighbouring sentences
    verbatim: bool
    rivals: tuple[str, ...]  # other constants that scored as well


def value_key(value: Value) -> tuple[str, float]:
    return (value.kind.value, round(float(value.data), 6))


def prior(value: Value) -> float:
    """How unlikely the value is to be stated by chance."""
    x = abs(float(value.data))
    if value.kind is Kind.DURATION:
        return 0.35
    if value.unit == "%" or x != int(x):
        return 0.3
    if x >= 10:
        return 0.2
    return 0.1 if x >= 2 else 0.02


def score(claim: QuantityClaim, fact: CodeScalar) -> tuple[float, tuple[str, ...], tuple[str, ...], bool]:
    stems = fact.stems
    if not stems:
        return 0.0, (), (), False
    verbatim = fact.name in claim.identifiers
    shared = tuple(s for s in stems if s in claim.stems)
    nearby = tuple(s for s in stems if s not in claim.stems and s in claim.context)
    if not verbatim and not any(weight(s) == 1.0 for s in shared):
        return 0.0, shared, nearby, False
    evidence = sum(weight(s) for s in shared) + 0.5 * sum(weight(s) for s in nearby)
    coverage = evidence / sum(weight(s) for s in stems)
    counts_it = claim.counted in stems if claim.counted else None
    if counts_it:
        evidence += 0.5  # "two blocks" for maxLookGateBlocks: the number counts what the name names
    confidence = (1 - (1 - prior(claim.value)) * 0.45 ** evidence) * (0.5 + 0.5 * min(coverage, 1.0))
    if counts_it is False:
        confidence *= 0.6  # "three phases" is not a count of what maxIdenticalToolCalls names
    if verbatim:
        confidence = max(confidence, 0.95)
    return round(confidence, 3), shared, nearby, verbatim


def best_matches(claims: Iterable[QuantityClaim], scalars: Iterable[CodeScalar],
                 mentions: dict[str, frozenset[str]] | None = None) -> list[ScalarMatch]:
    """The best constant for each quantity claim, where one scores at or above the threshold;
    of equal scores, one in a file the document names wins."""
    mentions = mentions or {}
    ordered = sorted(scalars, key=lambda f: (f.file, f.line, f.name))
    by_word: dict[tuple[object, str], list[int]] = defaultdict(list)  # (value, content stem) -> facts
    by_name: dict[tuple[object, str], list[int]] = defaultdict(list)
    for i, fact in enumerate(ordered):
        key = value_key(fact.value)
        by_name[(key, fact.name)].append(i)
        for word in fact.stems:
            if weight(word) == 1.0:
                by_word[(key, word)].append(i)
    out = []
    for claim in claims:
        key = value_key(claim.value)
        postings = [by_word[k] for k in ((key, w) for w in claim.stems) if k in by_word]
        hits = Counter(chain.from_iterable(postings))  # fact -> content words it shares with the claim
        most = max(hits.values(), default=0)
        found = [i for i, n in hits.items() if n >= most - 1]  # the rest cannot score as well
        for name in claim.identifiers:
            found += by_name.get((key, name), [])
        scored = []
        doc_mentions = mentions.get(claim.doc, frozenset())
        for fact in (ordered[i] for i in sorted(set(found))):
            if fact.value.same(claim.value):
                confidence, shared, nearby, verbatim = score(claim, fact)
                if confidence > 0:
                    named = mentioned(fact.file, doc_mentions) if doc_mentions else False
                    scored.append((confidence, not named, fact, shared, nearby, verbatim))
        if not scored:
            continue
        scored.sort(key=lambda t: (-t[0], t[1], t[2].file, t[2].name))
        confidence, unnamed, fact, shared, nearby, verbatim = scored[0]
        rivals = tuple(f.name for c, u, f, *_ in scored[1:] if c >= confidence - 1e-9 and u == unnamed)
        if rivals:
            confidence = round(confidence * 0.8, 3)  # two constants explain the quantity equally
        if confidence >= PROPOSE_AT:
            out.append(ScalarMatch(claim, fact, confidence, shared, nearby, verbatim, rivals))
    return out


def _evidence(m: ScalarMatch) -> list[str]:
    c = m.claim
    where = f"'{c.text}'" if c.kind == "sentence" else f"row '{c.label}', column '{c.column}'"
    said = c.text[c.start:c.end]
    lines = [f"{c.doc}:{c.line}: {where} states {said} = {m.fact.value.canonical}",
             f"code: {describe_fact(m.fact)}"]
    words = []
    if m.verbatim:
        words.append(f"the sentence names {m.fact.name}")
    if m.shared:
        words.append("shared words: " + ", ".join(m.shared))
    if m.nearby:
        words.append("nearby words: " + ", ".join(m.nearby))
    if m.rivals:
        words.append("as likely: " + ", ".join(m.rivals))
    lines.append("; ".join(words))
    return lines


def phrase_drafts(matches: list[ScalarMatch], docs: dict[str, DocFile]) -> tuple[list[Draft], list[ScalarMatch]]:
    """One phrase proposal per sentence quantity (none reading a sentence another one reads);
    and the matches no exact template reads."""
    drafts, unplaced = [], []
    taken: set[tuple[str, int, int]] = set()  # (doc, sentence, value start) read by a template
    for m in sorted(matches, key=lambda m: (-m.confidence, m.claim.doc, m.claim.line, m.claim.start)):
        c = m.claim
        if c.kind != "sentence" or (c.doc, c.sentence, c.start) in taken:
            continue
        found = phrase_for(docs[c.doc], c, m.fact.value)
        if found is None or any((c.doc, i, at) in taken for i, at in found[2]):
            unplaced.append(m)
            continue
        template, section, read = found
        more = len(read) - 1
        evidence = _evidence(m) + [f"template '{template}' reads this sentence"
                                   + (f" and {more} more stating the same value" if more else " only")]
        drafts.append(Draft("phrase", c.doc, c.line, [m.fact], m.confidence, evidence,
                            section=section, phrase=template))
        taken.update((c.doc, i, at) for i, at in read)
    return drafts, unplaced


def rows_drafts(matches: list[ScalarMatch]) -> list[Draft]:
    """One ``rows`` proposal per table column whose cells match constants."""
    groups: dict[tuple[str, TableRef, str], list[ScalarMatch]] = defaultdict(list)
    for m in matches:
        c = m.claim
        if c.kind == "cell" and c.table is not None and c.column is not None:
            groups[(c.doc, c.table, c.column)].append(m)
    drafts = []
    for (doc, table, column), found in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1].line, g[0][2])):
        found.sort(key=lambda m: m.claim.line)
        confidence = round(sum(m.confidence for m in found) / len(found), 3)
        evidence = [f"table '{table.title}', column '{column}' at {doc}:{table.line}: "
                    f"{len(found)} cells equal constants whose names share the row label's words"]
        for m in found:
            evidence += _evidence(m)[1:2] + [f"  row '{m.claim.label}' ({m.claim.text}): {_evidence(m)[2]}"]
        drafts.append(Draft("rows", doc, table.line, [m.fact for m in found], confidence, evidence,
                            table=table, column=column, rows=[(m.claim.label, m.fact) for m in found]))
    return drafts
