"""The registries of fact selectors and claim forms, by the config key that names each,
and the names every stage imports them by: ``driftguard.config.selectors`` holds the
selector specs, ``driftguard.config.forms`` the claim forms."""

from __future__ import annotations

from driftguard.config.forms import (
    CLAIM_KEYS,
    CLAIM_OPTIONS,
    BlockClaim,
    ClaimForm,
    DocMember,
    Form,
    HeadingsClaim,
    ItemsClaim,
    Judging,
    LinksClaim,
    MentionsClaim,
    PhraseClaim,
    ReferencesClaim,
    SectionClaim,
    SnippetClaim,
    TableClaim,
    TextClaim,
)
from driftguard.config.selectors import (
    SELECTOR_KEYS,
    Call,
    Calls,
    Cases,
    Classes,
    Constant,
    Constants,
    Default,
    Env,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    Pattern,
    Query,
    Selector,
    SelectorSpec,
    StringMethod,
    Symbols,
)

__all__ = [
    "BlockClaim", "CLAIM_KEYS", "CLAIM_OPTIONS", "Call", "Calls", "Cases", "ClaimForm", "Classes", "Constant",
    "Constants", "Default", "DocMember", "Env", "Fields", "Flags", "Form", "HeadingsClaim", "ItemsClaim", "Judging",
    "LinksClaim", "ListOf", "MapKeys", "MentionsClaim", "Pattern", "PhraseClaim", "Query", "ReferencesClaim",
    "SELECTOR_KEYS", "SectionClaim", "Selector", "SelectorSpec", "SnippetClaim", "StringMethod", "Symbols",
    "TableClaim", "TextClaim",
]
