"""The human summary of a discovery: what was scanned, found and proposed."""

from __future__ import annotations

from driftguard.discover.draft import describe_fact, short_list
from driftguard.discover.model import Discovery, Proposal

TOP = 10


def _claim(p: Proposal) -> str:
    if p.kind == "phrase":
        return f"sentence '{p.phrase}'"
    if p.kind == "section":
        return f"section '{p.section}'"
    assert p.table is not None
    column = f", column '{p.column}'" if p.column else ""
    return f"table '{p.table.title}'{column}" + (" rows" if p.rows else "")


def render_summary(discovery: Discovery) -> str:
    s = discovery.stats
    kinds: dict[str, int] = {}
    for p in discovery.proposals:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    by_kind = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"
    lines = [
        f"driftguard discover: scanned {s.files} files ({s.go_files} Go, {s.python_files} Python, "
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
    top = sorted(discovery.proposals, key=lambda p: (-p.confidence, p.doc, p.line))[:TOP]
    if top:
        lines.append("top proposals:")
    for p in top:
        facts = "; ".join(describe_fact(r.fact) for r in p.facts[:3]) + (" ..." if len(p.facts) > 3 else "")
        lines.append(f"  {p.confidence:.2f}  {p.id}  {p.doc}:{p.line}  {_claim(p)}  <->  {facts}")
        if p.kind in ("table", "section"):
            lines.append(f"        overlap {len(p.overlap)}: {short_list(p.overlap, 6)}; "
                         f"missing in the document: {short_list(p.code_only, 6)}; "
                         f"missing in code: {short_list(p.doc_only, 6)}")
        elif p.kind == "rows":
            lines.append("        rows: " + ", ".join(f"{label} -> {name}" for label, name in p.rows))
    for miss in discovery.near_misses[:TOP]:
        where = miss.claim.table.title if miss.claim.table else miss.claim.section
        lines.append(f"  near miss  {miss.claim.doc}:{miss.claim.line} '{where}' vs {describe_fact(miss.fact)}: "
                     f"overlap {short_list(miss.overlap, 4)}; missing in the document: "
                     f"{short_list(miss.code_only, 4)}; missing in code: {short_list(miss.doc_only, 4)}")
    for p, why in discovery.dropped[:TOP]:
        lines.append(f"  dropped  {p.id}  {p.doc}:{p.line}: {why}")
    for p, why in discovery.suggestions[:TOP]:
        lines.append(f"  suggestion  {p.id}  {p.doc}:{p.line}: cannot be shown to fail ({why})")
    for skipped in s.skipped[:TOP]:
        lines.append(f"  skipped  {skipped.path}: {skipped.reason}")
    if len(s.skipped) > TOP:
        lines.append(f"  skipped  ... and {len(s.skipped) - TOP} more")
    return "\n".join(lines) + "\n"
