"""Claim forms: which part of a document states a claim, and what every stage
needs to know of it.

A claim form holds everything the other stages need (``Form`` lists it with
the defaults): its config key and options, how it is read from the config
(``from_config``) and written back (``to_config``), its default and allowed
directions, how a message names it (``describe``), how the engine judges it
(``judging``), what ``fix`` may write, and what the selftest adds to the
document to show it can fail (``doc_member``). No stage asks ``isinstance`` of
a claim form. Adding a form means one class here, listed in ``CLAIM_KEYS``,
and one reader in ``driftguard.documents.claims``.
"""

from __future__ import annotations

from driftguard.config.forms.base import ANY_DIRECTION, DocMember, Form, Judging
from driftguard.config.forms.blocks import BlockClaim
from driftguard.config.forms.matches import HeadingsClaim, ItemsClaim, TextClaim
from driftguard.config.forms.names import LinksClaim, ReferencesClaim
from driftguard.config.forms.prose import MentionsClaim, PhraseClaim, SectionClaim
from driftguard.config.forms.snippets import SnippetClaim
from driftguard.config.forms.tables import TableClaim

ClaimForm = Form

CLAIM_KEYS: dict[str, type[Form]] = {
    "table": TableClaim,
    "section": SectionClaim,
    "phrase": PhraseClaim,
    "mentions": MentionsClaim,
    "references": ReferencesClaim,
    "links": LinksClaim,
    "text": TextClaim,
    "headings": HeadingsClaim,
    "items": ItemsClaim,
    "block": BlockClaim,
    "snippet": SnippetClaim,
}
"""The registry of claim forms, by the config key that names each."""

CLAIM_OPTIONS: frozenset[str] = frozenset().union(*(form.options for form in CLAIM_KEYS.values()))
"""Every key some claim form reads from a rule."""

__all__ = [
    "ANY_DIRECTION", "BlockClaim", "CLAIM_KEYS", "CLAIM_OPTIONS", "ClaimForm", "DocMember", "Form", "HeadingsClaim",
    "ItemsClaim", "Judging", "LinksClaim", "MentionsClaim", "PhraseClaim", "ReferencesClaim", "SectionClaim",
    "SnippetClaim", "TableClaim", "TextClaim",
]
