"""The order proposals are proven and written in, and near-duplicates collapsed into one rule.

Best first means, in turn: what a document about the code states (an architecture,
design or internals page, by its path or title), then what a document naming the
fact's own source file states, then every other document, and dated records
(``documents.DATED``) last; within each tier, the most confident first.

A project often keeps copies of a page (``docs/X.md`` and a site's
``public/docs/X.md``) or states one constant the same way on many pages. Proposals
that read the same facts with the same claim (the same table, section or phrase
template) and the same direction are one rule over all their documents: ``doc:``
becomes a glob when one matches exactly those documents, else their list. A phrase
proposal whose template differs joins when its fact is the same and the kept
template reads that same value in its document too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path, PurePosixPath

from driftguard.config import globs
from driftguard.discover.documents import ARCHITECTURE, DATED, tier
from driftguard.discover.model import DocFile, Proposal, mentioned

ABOUT_CODE, NAMES_CODE, OTHER, RECORD = range(4)
"""Proposal tiers, best first: a page about the code, a page naming the fact's source
file, any other page, a dated record."""


def rank(proposals: Iterable[Proposal], docs: dict[str, DocFile]) -> list[Proposal]:
    """Each proposal with its tier, best first; within a tier, a third proposal reading the same
    facts in the same document (a flag table per subcommand, one constant in three sentences)
    comes after the tier's others, so a screenful shows more of the tree."""
    ranked = sorted((replace(p, tier=_tier(p, docs)) for p in proposals),
                    key=lambda p: (p.tier, -p.confidence, p.doc, p.line))
    seen: dict[tuple[object, ...], int] = {}
    repeated: set[int] = set()
    for i, p in enumerate(ranked):
        key = (p.doc, tuple((r.fact.file, r.fact.selector) for r in p.facts))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > SAME_FACTS:
            repeated.add(i)
    order = sorted(range(len(ranked)), key=lambda i: (ranked[i].tier, i in repeated, i))
    return [ranked[i] for i in order]


SAME_FACTS = 2
"""Proposals reading the same facts in one document that rank among the tier's best."""


def _tier(p: Proposal, docs: dict[str, DocFile]) -> int:
    doc = docs.get(p.doc)
    found = tier(p.doc, doc.title if doc else "")
    if found == ARCHITECTURE:
        return ABOUT_CODE
    if found == DATED:
        return RECORD
    names = doc is not None and any(mentioned(r.fact.file, doc.mentions) for r in p.facts)
    return NAMES_CODE if names else OTHER


def collapse(proposals: list[Proposal], root: Path,
             reads: Callable[[Proposal, str, Proposal], bool] | None = None) -> list[Proposal]:
    """``proposals`` (best first) with near-duplicates folded into the first of each group.

    ``reads(kept, doc, proposal)`` says whether the sentence template of ``kept`` reads the
    value of ``proposal`` in ``doc``; without it, only proposals with the same claim fold."""
    kept: list[Proposal] = []
    same: dict[tuple[object, ...], int] = {}
    by_fact: dict[tuple[object, ...], list[int]] = {}
    for p in proposals:
        key = _key(p)
        at = same.get(key)
        if at is None and reads is not None and p.template:
            at = next((i for i in by_fact.get(_fact_key(p), ()) if p.doc not in kept[i].documents
                       and reads(kept[i], p.doc, p)), None)
        if at is not None and p.doc not in kept[at].documents:
            kept[at] = replace(kept[at], docs=(*kept[at].documents, p.doc))
            continue
        if at is not None:
            continue  # the same claim in the same document: the kept one reads it
        same[key] = len(kept)
        if p.template:
            by_fact.setdefault(_fact_key(p), []).append(len(kept))
        kept.append(p)
    return [_named(p, root) if len(p.documents) > 1 else p for p in kept]


def _key(p: Proposal) -> tuple[object, ...]:
    return (tuple(r.name for r in p.facts), repr(sorted(p.claim.to_config().items())), p.direction,
            p.case_insensitive, p.entry, p.tier == RECORD)


def _fact_key(p: Proposal) -> tuple[object, ...]:
    """A record never joins a rule on a living page: it keeps the value of its day."""
    return (tuple(r.name for r in p.facts), p.claim.scope, p.entry, p.tier == RECORD)


def _named(p: Proposal, root: Path) -> Proposal:
    docs = tuple(sorted(p.documents))
    return replace(p, docs=docs, doc_key=doc_glob(root, docs))


def doc_glob(root: Path, docs: tuple[str, ...]) -> str:
    """A glob that matches exactly ``docs`` under ``root`` (``docs/guide/*.md``), or ""."""
    folders = {PurePosixPath(d).parent.as_posix() for d in docs}
    suffixes = {PurePosixPath(d).suffix for d in docs}
    if len(folders) != 1 or len(suffixes) != 1:
        return ""
    folder, suffix = folders.pop(), suffixes.pop()
    pattern = f"*{suffix}" if folder == "." else f"{folder}/*{suffix}"
    try:
        names = os.listdir(root / folder)
    except OSError:
        return ""
    matched = sorted(n if folder == "." else f"{folder}/{n}" for n in names
                     if globs.matches(pattern, n if folder == "." else f"{folder}/{n}")
                     and (root / folder / n).is_file())
    return pattern if tuple(matched) == docs else ""
