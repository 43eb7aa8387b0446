"""A new member written the way the document already writes one: the line holding a
member the claim reads is copied right after itself with the member replaced by a new
value, and the copy is kept only if the claim reader, run on the new text, reads that
value. This serves every form whose members a pattern picks out of the prose (``text``,
``headings``, ``items``, a list in a ``phrase``), whatever the container: a copied
table row is a new row, a copied bullet a new bullet, a copied heading a new heading,
a copied paragraph line joins its paragraph, a copied block line stays in the block.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from driftguard.config.loader import Rule
from driftguard.documents.claims import read_claim
from driftguard.documents.formats import read_document
from driftguard.model import DriftguardError, Item
from driftguard.sources.mutation import CannotApply, Edit, NotApplicable, line_number, line_starts, newline_of
from driftguard.sources.text.samples import CANDIDATES, derived, variants


def copy_member(text: str, rule: Rule, items: Sequence[Item], declared: Collection[str] = ()) -> Edit:
    placed = [i for i in items if i.span is not None]
    if not placed:
        raise CannotApply(f"the claim read no member with a place in {rule.doc}")
    item = placed[0]
    assert item.span is not None
    start, end = item.span
    starts = line_starts(text)
    line = line_number(text, start)
    line_start = starts[line - 1]
    line_end = starts[line] if line < len(starts) else len(text)
    body = text[line_start:line_end].rstrip("\r\n")
    if end > line_start + len(body):
        raise NotApplicable(f"the member at line {line} runs onto the next line; the selftest copies one line")
    old = {str(i.value.data).casefold() for i in items} | {d.casefold() for d in declared}
    current = text[start:end]
    for value in _candidates(current, [str(i.value.data) for i in items]):
        if value.casefold() in old:
            continue
        copy = body[:start - line_start] + value + body[end - line_start:]
        at = line_start + len(body)
        new = text[:at] + newline_of(text) + copy + text[at:]
        if _reads(rule, new, value):
            return Edit(new, f"copied line {line} as '{copy.strip()}'", line + 1, (value,))
    raise NotApplicable(f"no new value written in place of '{current}' on a copy of line {line} is read by the rule")


def _candidates(current: str, members: list[str]) -> list[str]:
    quoted = current[:1] if current[:1] in "'\"" and current[-1:] == current[:1] else ""
    pool = [*CANDIDATES, *derived(members), *variants(current)]
    return list(dict.fromkeys(f"{quoted}{v}{quoted}" if quoted and not v.startswith(quoted) else v for v in pool))


def _reads(rule: Rule, text: str, value: str) -> bool:
    """Whether the rule's claim, read from ``text``, holds ``value`` as a member."""
    try:
        claim = read_claim(read_document(rule.doc, text), rule.claim)
    except DriftguardError:
        return False
    wanted = value.strip("'\"").casefold()
    return any(str(i.value.data).casefold() == wanted or i.value.canonical.casefold() == wanted
               for i in claim.items)
