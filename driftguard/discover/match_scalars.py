"""Scalar proposals: a quantity in a sentence or cell equal to a named constant.

A quantity and a constant meet when their values are the same (``Value.same``:
a duration never equals a bare number) and the constant's name shares a word
with the sentence or the row label. Shared words weigh by how much they say
(``max``, ``default`` little), words only in the headings or the next
sentence weigh half, and the constant's own name written in the sentence is
the strongest evidence. A value that is rarely written by chance (a duration,
a percentage, a large number) needs less wording than a small count.

A value couples only on evidence of the constant itself: the sentence names it,
names its declared type, or holds words of its name; neighbouring words alone never
bind. An enum's ordinal (``ordinal``) is bound only when written in digits, at 3 or
more, and named (the constant or its type): "one", "once" and "two" are said of a
hundred things. Any other value under 3 needs the name, its type, the noun it counts
("two blocks" for ``maxLookGateBlocks``) or two words of the name.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

from driftguard.config.specs import PhraseClaim, TableClaim
from driftguard.discover.draft import PROPOSE_AT, Draft, describe_fact, row_placeholders
from driftguard.discover.model import CodeScalar, DocFile, QuantityClaim, TableRef, mentioned
from driftguard.discover.numbers import ATTEMPT
from driftguard.discover.templates import phrase_for
from driftguard.discover.words import STOPWORDS, identifier_words, stem, text_stems, weight
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
    typed: bool = False  # the sentence names the constant's declared type
    counts: bool = False  # the number counts what the name names


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


def score(claim: QuantityClaim, fact: CodeScalar) -> tuple[float, tuple[str, ...], tuple[str, ...], bool, bool, bool]:
    """(confidence, shared stems, nearby stems, names the constant, names its type, counts what it names)."""
    stems = fact.stems
    if not stems:
        return 0.0, (), (), False, False, False
    verbatim = fact.name in claim.identifiers
    typed = bool(fact.type_name) and re.search(rf"\b{re.escape(fact.type_name)}\b", claim.text) is not None
    shared = tuple(s for s in stems if s in claim.stems)
    nearby = tuple(s for s in stems if s not in claim.stems and s in claim.context)
    content = [s for s in shared if weight(s) == 1.0]
    counts_it = _counts(claim.counted, stems) if claim.counted else None
    led = bool(set(content) & _lead(claim, 6))
    if not _bindable(claim, fact, verbatim or typed, len(content), bool(counts_it), led):
        return 0.0, shared, nearby, verbatim, typed, False
    implied = bool(counts_it) and claim.counted not in claim.stems  # "three times": the attempts, unwritten
    evidence = sum(weight(s) for s in shared) + 0.5 * sum(weight(s) for s in nearby) + (1.0 if implied else 0.0)
    coverage = evidence / sum(weight(s) for s in stems)
    if counts_it and not implied:
        evidence += 0.5  # "two blocks" for maxLookGateBlocks: the number counts what the name names
    confidence = (1 - (1 - prior(claim.value)) * 0.45 ** evidence) * (0.5 + 0.5 * min(coverage, 1.0))
    if counts_it is False and not set(content) & _leading_word(claim):
        confidence *= 0.6  # "three phases" is not a count of what maxIdenticalToolCalls names
    if typed:
        confidence = max(confidence, 0.8)
    if verbatim:
        confidence = max(confidence, 0.95)
    return round(confidence, 3), shared, nearby, verbatim, typed, bool(counts_it)


def _lead(claim: QuantityClaim, words: int = 3) -> frozenset[str]:
    """The stems of the few words right before the quantity ("burst up to" in "burst up to 20
    requests"): a word of the name there says what the number is, whatever noun follows."""
    return text_stems(" ".join(claim.text[:claim.start].split()[-words:]))


def _leading_word(claim: QuantityClaim) -> frozenset[str]:
    """The stems of the word the number is said of when it counts something else: the last word
    before it past function words ("burst" in "burst up to 20 requests"; "counts", not "node",
    in "monitored node-by-node counts as 3 systems")."""
    for token in reversed(claim.text[:claim.start].split()):
        stems = frozenset(s for s in text_stems(token) if len(s) > 2)
        if stems:
            return stems
    return frozenset()


def _labels(claim: QuantityClaim, fact: CodeScalar) -> bool:
    """Whether a small number is a label of the noun right before it ("sample 1", "byte 2",
    "step 2"), not an amount: that noun is a content word the constant's name lacks."""
    m = re.search(r"([A-Za-z][A-Za-z-]*)\s+$", claim.text[:claim.start])
    word = m.group(1).lower() if m else ""
    return bool(word) and word not in STOPWORDS and weight(stem(word)) == 1.0 and stem(word) not in fact.stems


def _counts(counted: str, stems: tuple[str, ...]) -> bool:
    """Whether the noun a number counts is what the constant's name names ("three times" counts
    the attempts or retries of ``maxInvestigationAttempts``)."""
    return counted in stems or (counted == ATTEMPT and bool(_RETRIES & set(stems)))


_RETRIES = frozenset({stem("retry"), stem("tries"), stem("attempt")})


def _bindable(claim: QuantityClaim, fact: CodeScalar, named: bool, content: int, counts: bool, led: bool) -> bool:
    """Whether the evidence at hand may bind the claim to the constant at all. A number under
    3 is said of too many things: it binds only when the sentence names the constant or its
    type, when the number counts what the name names ("at most two replicas" for
    ``MAX_REPLICAS``), or when the sentence holds two words of the name, one of them among
    the words leading to the number ("the max retries is set to two"; not "that byte 2" in a
    sentence about chunk headers). "once", "one of", "if two samples" and "the two shards"
    are no claims at all (``numbers``)."""
    said = claim.text[claim.start:claim.end]
    number = float(claim.value.data)
    small = claim.value.kind is Kind.NUMBER and not claim.value.unit and number == int(number) and abs(number) < 3
    if fact.ordinal:
        return named and not small and any(c.isdigit() for c in said)
    if small:
        return named or (not _labels(claim, fact) and (counts or (content >= 2 and led)))
    return named or content > 0


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
                confidence, shared, nearby, verbatim, typed, counts = score(claim, fact)
                if confidence > 0:
                    named = mentioned(fact.file, doc_mentions) if doc_mentions else False
                    scored.append((confidence, not named, fact, shared, nearby, verbatim, typed, counts))
        if not scored:
            continue
        scored.sort(key=lambda t: (-t[0], t[1], t[2].file, t[2].name))
        confidence, unnamed, fact, shared, nearby, verbatim, typed, counts = scored[0]
        rivals = tuple(f.name for c, u, f, *_ in scored[1:] if c >= confidence - 1e-9 and u == unnamed)
        if rivals:
            confidence = round(confidence * 0.8, 3)  # two constants explain the quantity equally
        if confidence >= PROPOSE_AT:
            out.append(ScalarMatch(claim, fact, confidence, shared, nearby, verbatim, rivals, typed, counts))
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
    if m.typed:
        words.append(f"the sentence names its type {m.fact.type_name}")
    if m.shared:
        words.append("shared words: " + ", ".join(m.shared))
    if m.nearby:
        words.append("nearby words: " + ", ".join(m.nearby))
    if m.rivals:
        words.append("as likely: " + ", ".join(m.rivals))
    lines.append("; ".join(words))
    return lines


def basis(m: ScalarMatch) -> str:
    """The evidence that bound the match, strongest first."""
    where = "sentence" if m.claim.kind == "sentence" else "row"
    if m.verbatim:
        return f"the {where} names {m.fact.name}"
    if m.typed:
        return f"the {where} names its type {m.fact.type_name}"
    content = {s for s in m.shared if weight(s) == 1.0}
    words = ", ".join(dict.fromkeys(w for w in identifier_words(m.fact.name) if stem(w) in content))
    return f"words of its name ({words})" + (", counting what it names" if m.counts else "")


def phrase_drafts(matches: list[ScalarMatch], docs: dict[str, DocFile]) -> tuple[list[Draft], list[ScalarMatch]]:
    """One phrase proposal per sentence quantity (none reading a sentence another one reads);
    and the matches no exact template reads."""
    drafts, unplaced = [], []
    taken: set[tuple[str, int, int]] = set()  # (doc, sentence, value start) read by a template
    for m in sorted(nearest(matches), key=lambda m: (-m.confidence, m.claim.doc, m.claim.line, m.claim.start)):
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
        drafts.append(Draft(PhraseClaim(template=template, section=section), "", c.doc, c.line, [m.fact],
                            m.confidence, evidence, basis=basis(m), template=template))
        taken.update((c.doc, i, at) for i, at in read)
    return drafts, unplaced


def nearest(matches: list[ScalarMatch]) -> list[ScalarMatch]:
    """Of the quantities of one sentence bound to one constant, the one nearest the words of its
    name: "a seven-day recovery window ...; a separate seven-day grace period" states the grace
    period once, with its second value."""
    best: dict[tuple[str, int, str, str], ScalarMatch] = {}
    for m in matches:
        if m.claim.kind != "sentence":
            continue
        key = (m.claim.doc, m.claim.sentence, m.fact.file, m.fact.name)
        kept = best.get(key)
        if kept is None or _distance(m) < _distance(kept):
            best[key] = m
    chosen = {id(m) for m in best.values()}
    return [m for m in matches if m.claim.kind != "sentence" or id(m) in chosen]


_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _distance(m: ScalarMatch) -> int:
    """Characters between the quantity and the nearest word of the constant's name in its sentence."""
    c = m.claim
    found = [min(abs(w.start() - c.end), abs(c.start - w.end())) for w in _WORDS.finditer(c.text)
             if text_stems(w.group()) & set(m.fact.stems) and not c.start <= w.start() < c.end]
    return min(found, default=len(c.text))


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
        named = sum(1 for m in found if m.verbatim or m.typed)
        how = (f"{named} of {len(found)} rows name their constant" if named
               else "each row holds words of its constant's name")
        form = TableClaim(table=table.title, column=column, section=table.section,
                          rows=row_placeholders([m.claim.label for m in found]))
        drafts.append(Draft(form, f"{table.title} {column}", doc, table.line, [m.fact for m in found], confidence,
                            evidence, rows=[(m.claim.label, m.fact) for m in found], basis=how))
    return drafts
