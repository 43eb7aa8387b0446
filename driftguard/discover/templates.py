"""Phrase templates: the words right around a quantity, long enough to be exact.

A template is cut from the sentence at whitespace, a few words before and after
the quantity. It is accepted when, run the way ``check`` runs it
(``driftguard.documents.claims.phrase_reads`` over every sentence of the document),
it reads exactly this quantity from this sentence and nothing else, or at most
other sentences stating the same value; otherwise it is lengthened, and as a
last resort restricted to the quantity's section.
"""

from __future__ import annotations

import re

from driftguard.discover.model import DocFile, QuantityClaim
from driftguard.documents.claims import phrase_reads
from driftguard.model import DriftguardError, Value
from driftguard.quantities import QuantityError, parse_quantity

SCHEDULE = ((2, 0), (0, 2), (1, 1), (2, 1), (1, 2), (3, 0), (0, 3), (3, 1), (2, 2), (1, 3), (4, 0), (3, 2),
            (2, 3), (4, 1), (5, 0), (4, 3), (3, 4), (6, 0), (5, 5), (8, 8), (99, 99))
"""(words before, words after) tried in this order."""

_TOKEN = re.compile(r"\S+")
_WORDY = re.compile(r"[A-Za-z0-9]")


def _cut_before(text: str, count: int) -> int:
    """Where a template starts to hold ``count`` word tokens before the end of ``text``."""
    if count == 0:
        tokens = list(_TOKEN.finditer(text))
        if tokens and tokens[-1].end() == len(text):  # a token glued to the quantity, e.g. "("
            return tokens[-1].start() if not _WORDY.search(tokens[-1].group()) else len(text)
        return len(text)
    seen, start = 0, len(text)
    for token in reversed(list(_TOKEN.finditer(text))):
        start = token.start()
        if _WORDY.search(token.group()):
            seen += 1
            if seen == count:
                break
    return start


def _cut_after(text: str, count: int) -> int:
    if count == 0:
        return 0
    seen, end = 0, 0
    for token in _TOKEN.finditer(text):
        end = token.end()
        if _WORDY.search(token.group()):
            seen += 1
            if seen == count:
                break
    return end


def candidates(claim: QuantityClaim) -> list[str]:
    text, a, b = claim.text, claim.start, claim.end
    out: list[str] = []
    for before, after in SCHEDULE:
        start = _cut_before(text[:a], before)
        end = b + _cut_after(text[b:], after)
        lead, tail = text[start:a], text[b:end]
        if "{" in lead + tail or "}" in lead + tail or not re.search(r"[A-Za-z]", lead + tail):
            continue
        template = lead + "{value}" + tail
        if template not in out:
            out.append(template)
    return out


def phrase_for(doc: DocFile, claim: QuantityClaim, value: Value
               ) -> tuple[str, str | None, list[tuple[int, int]]] | None:
    """``(template, section or None, (sentence index, value start) of what it reads)``, or None."""
    texts = doc.sentences
    fallback: tuple[str, str | None, list[tuple[int, int]]] | None = None
    scopes: list[tuple[str | None, list[int]]] = [(None, list(range(len(texts))))]
    section = next((s for s in doc.sections if s.title == claim.section and s.addressable), None)
    if section is not None:
        inside = [i for i, t in enumerate(texts) if section.body_start <= t.offset < section.end]
        scopes.append((section.title, inside))
    lows = [t.text.lower() for t in texts]
    for title, indices in scopes:
        for template in candidates(claim):
            read = _judge(template, texts, lows, indices, claim, value)
            if read == [(claim.sentence, claim.start)]:
                return template, title, read
            if read and fallback is None:
                fallback = (template, title, read)
    return fallback


def _judge(template: str, texts: tuple, lows: list[str], indices: list[int], claim: QuantityClaim,
           value: Value) -> list[tuple[int, int]]:
    """The sentences the template reads, all stating ``value`` and this claim's exactly; else [].

    Compiling a template (it embeds the whole quantity grammar) is the expensive step, so a
    literal pre-check decides the plain case: the literal before ``{value}`` occurs once in
    this sentence, right before the quantity, and no other sentence holds both literals. Any
    other case runs the real regex.
    """
    if claim.sentence not in indices:
        return []
    lead, _, tail = template.partition("{value}")
    low_lead, low_tail = lead.lower(), tail.lower()
    own = lows[claim.sentence]
    others = [i for i in indices if i != claim.sentence and low_lead in lows[i] and low_tail in lows[i]]
    plain = (lead and template.isascii() and not others and own.count(low_lead) == 1
             and own.find(low_lead) + len(lead) == claim.start)
    if plain:
        return [(claim.sentence, claim.start)]
    return _run(template, texts, [claim.sentence] + others, claim, value)


def _run(template: str, texts: tuple, indices: list[int], claim: QuantityClaim, value: Value
         ) -> list[tuple[int, int]]:
    read = []
    for i in sorted(indices):
        text = texts[i].text
        try:
            spans = phrase_reads(template, text)
        except DriftguardError:
            return []
        for start, end in spans:  # the engine reads every match, so each must agree
            if i == claim.sentence and (start, end) == (claim.start, claim.end):
                read.append((i, start))
                continue
            try:
                if not parse_quantity(text[start:end]).same(value):
                    return []
            except QuantityError:
                return []
            read.append((i, start))
    return read if (claim.sentence, claim.start) in read else []


def reads_value(doc: DocFile, template: str, section: str | None, value: Value) -> bool:
    """Whether ``template`` (in ``section``, when given) reads at least one sentence of
    ``doc``, and every one it reads states ``value``: the test for one rule over two documents."""
    texts = doc.sentences
    if section is not None:
        scope = next((s for s in doc.sections if s.title == section and s.addressable), None)
        if scope is None:
            return False
        texts = tuple(t for t in texts if scope.body_start <= t.offset < scope.end)
    lead, _, tail = template.partition("{value}")
    low_lead, low_tail = lead.lower(), tail.lower()
    candidates = [t for t in texts if low_lead in t.text.lower() and low_tail in t.text.lower()]
    if not candidates:
        return False
    read = 0
    for sentence in candidates:
        try:
            spans = phrase_reads(template, sentence.text)
        except DriftguardError:
            return False
        for start, end in spans:
            try:
                if not parse_quantity(sentence.text[start:end]).same(value):
                    return False
            except QuantityError:
                return False
            read += 1
    return read > 0


def option_template(doc: DocFile, claim: QuantityClaim) -> tuple[str, str | None] | None:
    """A template that reads exactly the stated default of ``claim`` and nothing else in its
    scope (its option's section, else the whole document), by literal checks alone: the
    words before ``{value}`` occur once in the sentence, right before the value, and no
    other sentence of the scope holds both literals. Values of every kind (a code span's
    text, a word) are read so; the engine then proves the template."""
    texts = doc.sentences
    if claim.item:  # the bullet naming the option scopes the template: its words before the value do
        template = next((t for t in candidates(claim) if t.partition("{value}")[0].strip()), None)
        return (_unopened(template), claim.section) if template else None
    scopes: list[str | None] = [claim.section] if claim.section is not None else []
    scopes.append(None)
    own = texts[claim.sentence].text.lower()
    for title in scopes:
        indices = list(range(len(texts)))
        if title is not None:
            scope = next((s for s in doc.sections if s.title == title and s.addressable), None)
            if scope is None:
                continue
            indices = [i for i in indices if scope.body_start <= texts[i].offset < scope.end]
        for template in candidates(claim):
            lead, _, tail = template.partition("{value}")
            low_lead, low_tail = lead.lower(), tail.lower()
            if not lead.strip() or own.count(low_lead) != 1 or own.find(low_lead) + len(lead) != claim.start:
                continue
            if any(i != claim.sentence and low_lead in texts[i].text.lower() and low_tail in texts[i].text.lower()
                   for i in indices):
                continue
            return template, title
    return None


def _unopened(template: str) -> str:
    """``template`` without an opening bracket its words do not close: "(Default {value}" reads
    as "Default {value}" and reads the same values."""
    lead, _, tail = template.partition("{value}")
    if lead[:1] in "([" and lead[:1] and ")]"["([".index(lead[0])] not in lead + tail:
        return lead[1:] + "{value}" + tail
    return template
