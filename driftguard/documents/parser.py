"""The one markdown-it parser every stage uses: CommonMark plus GitHub tables.

Reading claims (``documents.reader``) and proving a fix safe (``fix.verify``)
must see the same token stream, so both take it from here. ``inline=False``
gives the same block tokens with their inline content left unparsed (markdown-it
reads blocks before inlines, and an inline never changes a block), for a reader
that needs the inline tokens of only a few blocks: ``parse_inline`` then reads
one, exactly as the whole-document parse would have.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore, inline, text_join
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable("table")
_BLOCKS = MarkdownIt("commonmark").enable("table").disable("inline")  # the core rule that parses inlines


def block_tokens(text: str, env: dict[str, Any] | None = None, inline: bool = True) -> list[Token]:
    """The block token stream of ``text``; ``env`` receives what markdown-it collects
    on the way, such as the ``[ref]: target`` definitions under ``"references"``.
    Without ``inline``, each ``inline`` token's ``children`` is left empty."""
    return (_MD if inline else _BLOCKS).parse(text, env)


def parse_inline(tok: Token, env: dict[str, Any]) -> None:
    """The children of ``inline`` token ``tok`` (from ``block_tokens(..., inline=False)``
    with the same ``env``), read by the core rules the whole-document parse runs after
    the blocks (``inline``, then ``text_join``)."""
    state = StateCore("", _MD, env, [tok])
    inline(state)
    text_join(state)


def normalize_link(destination: str) -> str:
    """A link destination as markdown-it stores it in ``href`` (percent-encoded)."""
    return str(_MD.normalizeLink(destination))
