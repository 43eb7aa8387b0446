"""``driftguard discover``: find the couplings between documents and code nobody wrote a rule for.

``discover(root)`` scans a repository's Go and Python sources and markdown
documents in parallel, indexes candidate facts (const sets, enums, String
methods, map keys, scalar constants) and candidate claims (code-span table
columns, sections' code spans, quantities in sentences and cells), proposes
rules where they meet, and keeps those the engine passes on the tree.
``render_config`` writes them as a driftguard config with the evidence in
comments; ``render_summary`` says what was found.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from driftguard.discover.emit import render_config
from driftguard.discover.match import propose
from driftguard.discover.model import (
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
from driftguard.discover.summary import render_summary
from driftguard.discover.verify import verify as verify_proposals

VERIFY_UP_TO = 400

__all__ = [
    "CodeScalar", "CodeSet", "Discovery", "NearMiss", "Proposal", "QuantityClaim", "SetClaim", "Stats",
    "discover", "render_config", "render_summary",
]


def discover(root: Path, jobs: int | None = None, *, exclude: Iterable[str] = EXCLUDED_DIRS,
             max_file_size: int = MAX_FILE_SIZE, verify: bool | None = None) -> Discovery:
    """Scan ``root`` with ``jobs`` processes (default: one per core) and propose rules.

    ``exclude`` names folders never entered (hidden folders never are); files over
    ``max_file_size`` bytes are skipped. With ``verify``, every proposal is judged
    by the engine and kept only when it passes; by default that is done for trees of up
    to ``VERIFY_UP_TO`` files (on larger ones it would parse every matched file a second
    time, and the candidates already come from the engine's own readers).
    """
    started = time.perf_counter()
    phases: dict[str, float] = {}
    root = Path(root).resolve()
    files, skipped = walk(root, exclude, max_file_size)
    phases["walk"] = time.perf_counter() - started
    results, used = scan_all(root, files, jobs)
    phases["scan"] = time.perf_counter() - started - sum(phases.values())
    sources = [r for r in results if isinstance(r, SourceFile)]
    docs = [r for r in results if isinstance(r, DocFile)]
    skipped += [r for r in results if isinstance(r, Skipped)]
    proposals, near, _unplaced = propose(sources, docs)
    phases["match"] = time.perf_counter() - started - sum(phases.values())
    dropped: list[tuple[Proposal, str]] = []
    if verify is None:
        verify = len(files) <= VERIFY_UP_TO
    if verify and proposals:
        proposals, dropped = verify_proposals(root, proposals)
        phases["verify"] = time.perf_counter() - started - sum(phases.values())
    languages = {rel: lang for rel, lang, _ in files}
    stats = Stats(
        files=len(files),
        go_files=sum(1 for lang in languages.values() if lang == "go"),
        python_files=sum(1 for lang in languages.values() if lang == "python"),
        markdown_files=sum(1 for lang in languages.values() if lang == "markdown"),
        bytes=sum(size for _, _, size in files),
        jobs=used,
        skipped=sorted(skipped, key=lambda s: s.path),
        phases=phases,
    )
    discovery = Discovery(
        root=root,
        code_sets=tuple(s for f in sources for s in f.sets),
        code_scalars=tuple(s for f in sources for s in f.scalars),
        set_claims=tuple(c for d in docs for c in d.set_claims),
        quantity_claims=tuple(q for d in docs for q in d.quantities),
        proposals=tuple(proposals),
        near_misses=tuple(near),
        dropped=tuple(dropped),
        stats=stats,
    )
    stats.seconds = time.perf_counter() - started
    return discovery
