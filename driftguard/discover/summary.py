"""The human summary of a discovery: what was scanned, found and proposed."""

from __future__ import annotations

from driftguard import languages
from driftguard.discover.draft import describe_fact, short_list
from driftguard.discover.model import Discovery, Skipped
from driftguard.discover.parallel import OTHER_LANGUAGES, file_kind, unread_reason

TOP = 10


def _language(tag: str) -> str:
    return next((lang.name for lang in languages.LANGUAGES if lang.name.lower() == tag), OTHER_LANGUAGES.get(tag, tag))


def render_summary(discovery: Discovery) -> str:
    s = discovery.stats
    kinds: dict[str, int] = {}
    for p in discovery.proposals:
        kind = "rows" if p.claim.labelled else p.claim.key
        kinds[kind] = kinds.get(kind, 0) + 1
    by_kind = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    lines = [
        f"driftguard discover: scanned {s.files} files ({s.go_files} Go, {s.python_files} Python, "
        f"{s.typescript_files} TypeScript, "
        f"{s.markdown_files} markdown; {s.bytes / 1024:.1f} KB) in {s.seconds:.2f} s with {s.jobs} "
        f"process{'es' if s.jobs != 1 else ''}",
        f"candidates: {len(discovery.code_sets)} code sets and {len(discovery.code_scalars)} scalar constants; "
        f"{len(discovery.set_claims)} set claims and {len(discovery.quantity_claims)} quantities in documents",
        f"proposals: {len(discovery.proposals)} rules ({by_kind})"
        + (", each shown by selftest to be able to fail; " if discovery.proved else " (not proven); ")
        + f"{len(discovery.suggestions)} suggestions selftest cannot show to fail; "
        f"{len(discovery.near_misses)} near misses; {len(discovery.dropped)} dropped by the engine check; "
        f"{len(s.skipped)} files skipped; "
        f"{len(s.generated)} generated files not read",
    ]
    if discovery.more:
        lines.append(f"{discovery.more} more candidates not shown (at most {discovery.limit} rules by default); "
                     "--all proves and lists every one")
    top = list(discovery.proposals[:TOP])  # best first, as ranked
    if top:
        lines.append("top proposals:")
    for p in top:
        facts = "; ".join(describe_fact(r.fact) for r in p.facts[:3]) + (" ..." if len(p.facts) > 3 else "")
        more = f" (and {len(p.documents) - 1} more: {p.doc_key or 'listed'})" if len(p.documents) > 1 else ""
        lines.append(f"  {p.confidence:.2f}  {p.id}  {p.doc}:{p.line}{more}  {p.claim.describe()}  <->  {facts}")
        if p.claim.labelled:
            lines.append("        rows: " + ", ".join(f"{label} -> {name}" for label, name in p.claim.row_facts))
        elif not p.claim.scalar:
            lines.append(f"        overlap {len(p.overlap)}: {short_list(p.overlap, 6)}; "
                         f"missing in the document: {short_list(p.code_only, 6)}; "
                         f"missing in code: {short_list(p.doc_only, 6)}")
    for miss in discovery.near_misses[:TOP]:
        where = miss.claim.table.title if miss.claim.table else miss.claim.section
        lines.append(f"  near miss  {miss.claim.doc}:{miss.claim.line} '{where}' vs {describe_fact(miss.fact)}: "
                     f"overlap {short_list(miss.overlap, 4)}; missing in the document: "
                     f"{short_list(miss.code_only, 4)}; missing in code: {short_list(miss.doc_only, 4)}")
    for p, why in discovery.dropped[:TOP]:
        lines.append(f"  dropped  {p.id}  {p.doc}:{p.line}: {why}")
    for p, why in discovery.suggestions[:TOP]:
        lines.append(f"  suggestion  {p.id}  {p.doc}:{p.line}: cannot be shown to fail ({why})")
    for tag, count in sorted(s.unscanned.items()):
        lines.append(f"  skipped {count} {_language(tag)} files: {unread_reason(tag)}")
    if s.history:
        lines.append(f"  left out {len(s.history)} changelogs, release notes and history pages "
                     f"(e.g. {short_list(s.history, 3)}): they record the past; --include GLOB reads one")
    for tag, refused in sorted(_unreadable(discovery).items()):
        lines.append(f"  could not read {len(refused)} {_language(tag)} files (e.g. {refused[0].path}: "
                     f"{refused[0].reason})")
    for skipped in s.skipped[:TOP]:
        lines.append(f"  skipped  {skipped.path}: {skipped.reason}")
    if len(s.skipped) > TOP:
        lines.append(f"  skipped  ... and {len(s.skipped) - TOP} more")
    return "\n".join(lines) + "\n"


def _unreadable(discovery: Discovery) -> dict[str, list[Skipped]]:
    """The files that could not be read, by language (a folder that cannot be listed has none)."""
    out: dict[str, list[Skipped]] = {}
    for skipped in discovery.stats.skipped:
        kind = None if skipped.path.endswith("/") else file_kind(skipped.path.rsplit("/", 1)[-1])
        if kind is not None:
            out.setdefault(kind[0], []).append(skipped)
    return out
