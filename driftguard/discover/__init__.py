"""``driftguard discover``: find the couplings between documents and code nobody wrote a rule for.

``discover(root)`` scans a repository's Go, Python and TypeScript sources and its markdown
and reStructuredText documents in parallel (generated files are never read, nor are
changelogs, release notes and history pages: ``documents``), indexes candidate facts
(const sets, enums, ``String()`` methods, map keys, scalar constants, flags, environment
variables, configuration fields, parameter and keyed defaults, semaphores) and candidate
claims (table columns, sections' code spans, quantities in sentences and cells, stated
defaults, option headings, bullets and YAML keys), proposes rules where they meet, ranks
them (pages about the code first, dated records last: ``rank``), folds a statement copied
to many pages into one rule, and keeps, best first and at most a screenful, those that
pass on the tree and that selftest shows can fail.
``render_config`` writes them as a driftguard config with the evidence in
comments; ``render_summary`` says what was found, and what was not read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from driftguard.discover.emit import render_config
from driftguard.discover.match import propose
from driftguard.discover.model import (
    GENERATED,
    CodeScalar,
    CodeSet,
    Discovery,
    DocFile,
    NearMiss,
    Proposal,
    QuantityClaim,
    SetClaim,
    Skipped,
    SourceFile,
    Stats,
)
from driftguard.discover.parallel import EXCLUDED_DIRS, MAX_FILE_SIZE, scan_all, walk
from driftguard.discover.prove import Proof
from driftguard.discover.prove import prove as _prove
from driftguard.discover.rank import collapse, rank
from driftguard.discover.summary import render_summary
from driftguard.discover.templates import reads_value

LIMIT = 20
"""Rules a default run proposes: a screenful, best first."""

__all__ = [
    "LIMIT", "CodeScalar", "CodeSet", "Discovery", "NearMiss", "Proposal", "QuantityClaim", "SetClaim", "Stats",
    "discover", "render_config", "render_summary",
]


def discover(root: Path, jobs: int | None = None, *, exclude: Iterable[str] = EXCLUDED_DIRS,
             max_file_size: int = MAX_FILE_SIZE, limit: int | None = LIMIT, prove: bool = True,
             progress: Callable[[str], None] | None = None, include: Iterable[str] = ()) -> Discovery:
    """Scan ``root`` with ``jobs`` processes (default: one per core) and propose rules.

    ``exclude`` names folders never entered (hidden folders never are); files over
    ``max_file_size`` bytes are skipped, generated files are not read. With ``prove``
    (the default), every proposal is run through selftest, best first, until ``limit``
    rules (a screenful; None: every one, the CLI's ``--all``) pass and are shown to fail;
    one that passes but cannot be shown to fail becomes a suggestion. ``progress`` is
    called once per file scanned (``scanned PATH``) and once per rule judged
    (``proved ID`` / ``not proven ID``).
    """
    started = time.perf_counter()
    phases: dict[str, float] = {}
    root = Path(root).resolve()
    unscanned: dict[str, int] = {}
    history: list[str] = []
    files, skipped = walk(root, exclude, max_file_size, unscanned, include=tuple(include), history=history)
    phases["walk"] = time.perf_counter() - started
    results, used = scan_all(root, files, jobs, progress)
    phases["scan"] = time.perf_counter() - started - sum(phases.values())
    sources = [r for r in results if isinstance(r, SourceFile)]
    docs = [r for r in results if isinstance(r, DocFile)]
    generated = sorted(r.path for r in results if isinstance(r, Skipped) and r.reason == GENERATED)
    skipped += [r for r in results if isinstance(r, Skipped) and r.reason != GENERATED]
    named, near, _unplaced = propose(sources, docs)
    by_path = {d.path: d for d in docs}
    candidates = collapse(rank(named, by_path), root, _reader(by_path))
    phases["match"] = time.perf_counter() - started - sum(phases.values())
    if prove and candidates:
        proof = _prove(root, candidates, limit, progress)
        phases["prove"] = time.perf_counter() - started - sum(phases.values())
    else:
        shown = candidates if limit is None else candidates[:limit]
        proof = Proof(kept=shown, left=len(candidates) - len(shown))
    unread = set(generated)
    read = [f for f in files if f[0] not in unread]
    languages = {rel: lang for rel, lang, _ in read}
    stats = Stats(
        files=len(read),
        go_files=sum(1 for lang in languages.values() if lang == "go"),
        python_files=sum(1 for lang in languages.values() if lang == "python"),
        typescript_files=sum(1 for lang in languages.values() if lang == "typescript"),
        markdown_files=sum(1 for lang in languages.values() if lang == "markdown"),
        bytes=sum(size for _, _, size in read),
        jobs=used,
        skipped=sorted(skipped, key=lambda s: s.path),
        unscanned=unscanned,
        generated=generated,
        history=history,
        phases=phases,
    )
    discovery = Discovery(
        root=root,
        code_sets=tuple(s for f in sources for s in f.sets),
        code_scalars=tuple(s for f in sources for s in f.scalars),
        set_claims=tuple(c for d in docs for c in d.set_claims),
        quantity_claims=tuple(q for d in docs for q in d.quantities),
        proposals=tuple(proof.kept),
        near_misses=tuple(near),
        dropped=tuple(proof.dropped),
        stats=stats,
        suggestions=tuple(proof.unproven),
        more=proof.left,
        limit=limit,
        proved=prove,
    )
    stats.seconds = time.perf_counter() - started
    return discovery


def _reader(docs: dict[str, DocFile]) -> Callable[[Proposal, str, Proposal], bool]:
    """Whether the sentence template of a kept proposal reads, in another document, the value
    a proposal states there."""
    def reads(kept: Proposal, doc: str, proposal: Proposal) -> bool:
        fact = proposal.facts[0].fact
        found = docs.get(doc)
        return (found is not None and isinstance(fact, CodeScalar)
                and reads_value(found, kept.template, kept.claim.scope, fact.value))
    return reads
