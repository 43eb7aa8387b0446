"""The one markdown-it parser every stage uses: CommonMark plus GitHub tables.

Reading claims (``documents.reader``) and proving a fix safe (``fix.verify``)
must see the same token stream, so both take it from here.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable("table")


def block_tokens(text: str) -> list[Token]:
    """The block token stream of ``text``."""
    return _MD.parse(text)
