"""Option proposals: a stated default bound to the code's default of that very option.

A stated default (``claims_options``) names its option: its section's heading, its
row's first cell or a code span of its sentence. It binds to a scalar candidate that
is the default of an option of that name (a parameter, a defaults object's key, a
flag, an environment variable, a ``Default...`` constant or field) when the two values
are equal (``same_value``: "15 days" equals the flag default ``"15d"``, `'/'` the
string ``/``). Names compare with case, dashes, dots and underscores aside
(``scrape_interval`` is ``ScrapeInterval``); a dotted option (``server.port``) also
binds to an option ``port`` whose owner's name holds the other parts
(``serverConfigDefaults``, ``resolveServerOptions``). Evidence is the name, never the
value alone: two options that happen to share a default never meet.

A table of flags or environment variables with a Default column, whose names are the
code's, is proposed against the map the ``flags``/``env`` selector reads with
``defaults: true``: one rule then guards the names both ways and every default.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from typing import cast

from driftguard.config.specs import Env, Flags, PhraseClaim, SectionClaim, TableClaim
from driftguard.discover.draft import Draft, describe_fact, short_list
from driftguard.discover.match_scalars import ScalarMatch
from driftguard.discover.model import CodeScalar, CodeSet, DocFile, QuantityClaim, SetClaim, mentioned
from driftguard.discover.templates import option_template
from driftguard.discover.words import STOPWORDS, identifier_words, stem
from driftguard.judging.compare import same_value
from driftguard.quantities import read_value

_DEFAULT_PREFIX = re.compile(r"^_?(?:default|DEFAULT)_?(?=[A-Z0-9_]|$)")
SAID_BY = {"default": "section", "cell": "row", "sentence": "sentence"}
EXACT, OWNED = 0.9, 0.78
"""Confidence of a binding by the option's whole name, and by its last part and its owner's name."""


def norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def option_of(fact: CodeScalar) -> str:
    """The option a scalar is the default of: its own, or a ``Default...`` constant's remainder."""
    if fact.option:
        return fact.option
    stripped = _DEFAULT_PREFIX.sub("", fact.name)
    return stripped if stripped != fact.name else ""


def option_matches(claims: list[QuantityClaim], scalars: list[CodeScalar],
                   mentions: dict[str, frozenset[str]]) -> list[ScalarMatch]:
    """The best default for each stated default, where one option of that name has its value."""
    by_name: dict[str, list[CodeScalar]] = defaultdict(list)
    for fact in scalars:
        option = option_of(fact)
        if option:
            by_name[norm(option)].append(fact)
    out = []
    for claim in claims:
        found = _candidates(claim, by_name)
        if not found:
            continue
        named = mentions.get(claim.doc, frozenset())
        found.sort(key=lambda cf: (-cf[0], not mentioned(cf[1].file, named), cf[1].file, cf[1].name))
        confidence, fact = found[0]
        rivals = tuple(f.name for c, f in found[1:] if c == confidence
                       and mentioned(f.file, named) == mentioned(fact.file, named))
        if len(rivals) > 2:
            continue  # many options of that name share the value: none is the one the document means
        if rivals:
            confidence = round(confidence * 0.8, 3)
        out.append(ScalarMatch(claim, fact, confidence, (), (), True, rivals))
    return out


def _candidates(claim: QuantityClaim, by_name: dict[str, list[CodeScalar]]) -> list[tuple[float, CodeScalar]]:
    parts = [p for p in re.split(r"[.]", claim.option) if p]
    exact = [(EXACT, f) for f in by_name.get(norm(claim.option), ())]
    owned = []
    if len(parts) > 1:
        wanted = {w for p in parts[:-1] for w in identifier_words(p)}
        owned = [(OWNED, f) for f in by_name.get(norm(parts[-1]), ())
                 if wanted <= set(identifier_words(f.owner))]
    scale = 1.0 if claim.kind == "default" else 0.95
    return [(round(c * scale + (OWNER_SAID if _owner_said(claim, f) else 0.0), 3), f) for c, f in exact + owned
            if same_value(claim.value, f.value)]


OWNER_SAID = 0.05
"""What it adds that the headings over the claim (or its sentence) name the option's owner:
``## `Client``` over ``### `timeout``` picks ``Client(timeout=...)`` over ``request(timeout=...)``."""


def _owner_said(claim: QuantityClaim, fact: CodeScalar) -> bool:
    words = {stem(w) for w in identifier_words(fact.owner) if w not in STOPWORDS and len(w) > 2}
    return bool(words) and words <= (claim.context | claim.stems)


def default_drafts(matches: list[ScalarMatch], docs: dict[str, DocFile]) -> list[Draft]:
    """A phrase proposal for each stated default read by a template of its own."""
    drafts = []
    taken: set[tuple[str, int]] = set()
    for m in sorted(matches, key=lambda m: (-m.confidence, m.claim.doc, m.claim.line)):
        c = m.claim
        if c.kind != "default" or (c.doc, c.sentence) in taken:
            continue
        found = option_template(docs[c.doc], c)
        if found is None:
            continue
        template, section = found
        taken.add((c.doc, c.sentence))
        fact = m.fact
        said = c.text[c.start:c.end]
        heading = c.section is not None and norm(c.section) == norm(c.option)
        where = f"the bullet `{c.item}`" if c.item else f"the section '{c.section}'" if heading else "the sentence"
        basis = f"{where} names the option {c.option}, the {_what(fact)}"
        evidence = [f"{c.doc}:{c.line}: '{c.text}' states {said} for {c.option}",
                    f"code: {describe_fact(fact)}"] + ([f"as likely: {short_list(m.rivals)}"] if m.rivals else [])
        form = PhraseClaim(template=template, section=section, place=("item", f"`{c.item}`") if c.item else None)
        drafts.append(Draft(form, c.option if fact.entry else "", c.doc, c.line, [fact], m.confidence, evidence,
                            basis=basis, entry=fact.entry, template=template))
    return drafts


def _what(fact: CodeScalar) -> str:
    if isinstance(fact.spec, Flags):
        return f"flag --{fact.option}'s default"
    if isinstance(fact.spec, Env):
        return f"environment variable {fact.option}'s default"
    return f"default of {fact.option} in {fact.owner or fact.name}"


def cell_matches(matches: list[ScalarMatch]) -> list[ScalarMatch]:
    """The matches a ``rows:`` table can hold: a table cell bound to a scalar fact, not a map's entry."""
    return [m for m in matches if m.claim.kind == "cell" and m.fact.entry is None]


def map_drafts(claims: list[SetClaim], sets: list[CodeSet]) -> list[Draft]:
    """A table of flags or variables with a Default column against the code's map of defaults."""
    maps = [s for s in sets if s.defaults and s.origin in ("flags", "env")]
    drafts = []
    for claim in claims:
        if claim.kind != "table" or not claim.defaults or claim.table is None:
            continue
        keys = _keys(claim)
        if keys is None:
            continue
        stated, ignore = keys
        for code in maps:
            names = code.value_set
            shared = set(stated) & names
            if len(shared) < 2 or not (set(stated) <= names or names <= set(stated)):
                continue
            draft = _map_draft(claim, code, stated, shared, ignore)
            if draft is not None:
                drafts.append(draft)
    return drafts


HELP_ROW = re.compile(r"-h(?:,\s*--help)?|--help|-h\s*/\s*--help")


def _keys(claim: SetClaim) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """The names a map rule reads from the table's first cells (leading dashes aside), with their
    stated defaults, and the rows of the CLI library's own help flag (for ``ignore:``); None when
    a first cell is more than a name (``--port <port>``), which a map rule cannot read as a key."""
    stated: dict[str, str] = {}
    ignore: list[str] = []
    for raw, value in claim.defaults:
        if HELP_ROW.fullmatch(raw.strip()):
            ignore.append(raw.strip())
            continue
        key = raw.strip().lstrip("-")
        if not OPTION_KEY.fullmatch(key):
            return None
        stated[key] = value
    return stated, tuple(ignore)


OPTION_KEY = re.compile(r"[A-Za-z_][\w.-]*")


def _map_draft(claim: SetClaim, code: CodeSet, stated: dict[str, str], shared: set[str],
               ignore: tuple[str, ...]) -> Draft | None:
    agree = [k for k, v in code.defaults if k in shared and same_value(read_value(stated[k]), v)]
    differ = [k for k, v in code.defaults if k in shared and k not in agree]
    if differ or not agree:
        return None
    doc = set(stated)
    direction = "both" if doc == code.value_set else "doc-to-code" if doc < code.value_set else "code-to-doc"
    assert claim.table is not None
    form = TableClaim(table=claim.table.title, column=claim.default_column, section=claim.table.section)
    fact = replace(code, selector=replace(cast(Flags | Env, code.selector), defaults=True))
    confidence = round(min(0.99, 0.75 + 0.05 * len(agree) + (0.1 if direction == "both" else 0.0)), 3)
    evidence = [f"table '{claim.table.title}' at {claim.doc}:{claim.line} lists {len(doc)} names with their "
                f"'{claim.default_column}'; {len(shared)} of them are the code's",
                f"code: {describe_fact(code)} ({len(code.values)} names, {len(code.defaults)} with a default)",
                f"defaults stated as the code has them: {short_list(sorted(agree))}"]
    if ignore:
        evidence.append(f"left out: {', '.join(ignore)} (the command-line library's own)")
    basis = f"its names are the {_listing(code)} and {len(agree)} defaults agree"
    return Draft(form, claim.table.title, claim.doc, claim.line, [fact], confidence, evidence, direction,
                 overlap=tuple(sorted(shared)), doc_only=tuple(sorted(doc - code.value_set)),
                 code_only=tuple(sorted(code.value_set - doc)), basis=basis, ignore=ignore)


def _listing(code: CodeSet) -> str:
    return "flags of " + code.file if code.origin == "flags" else "environment variables " + code.file + " reads"


FLAG_SPAN = r"^--?([A-Za-z][\w.-]*)"
"""A code span naming a flag (``--log.level``, ``--port <n>``): group 1 is the flag without its dashes."""


def flag_sections(claims: tuple[SetClaim, ...]) -> list[SetClaim]:
    """Each section claim whose code spans name ``--flags``, as the flags without their dashes."""
    out = []
    for claim in claims:
        if claim.kind != "section" or claim.section is None:
            continue
        read = [m.group(1) for m in (re.match(FLAG_SPAN, v) for v in claim.section_spans) if m]
        if len(set(read)) >= 2:
            form = SectionClaim(section=claim.section, code_spans=FLAG_SPAN)
            out.append(replace(claim, kind="flags", values=tuple(dict.fromkeys(read)), form=form))
    return out
