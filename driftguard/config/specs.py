"""The registries of fact selectors and claim forms, by the config key that names each,
and the names every stage imports them by: ``driftguard.config.selectors`` holds the
selector specs, ``driftguard.config.forms`` the claim forms.

The selectors are imported when one is first named here (``__getattr__``), so a config
with no fact (a ``links`` check's) loads none of their modules; every config needs the
claim forms."""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
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


def __getattr__(name: str) -> object:
    if name in __all__:  # a selector's name: the only names of ``__all__`` not defined above
        from driftguard.config import selectors

        return getattr(selectors, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
