"""The one markdown-it parser every stage uses: CommonMark plus GitHub tables.

Reading claims (``documents.reader``) and proving a fix safe (``fix.verify``)
must see the same token stream, so both take it from here.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable("table")


def block_tokens(text: str, env: dict[str, Any] | None = None) -> list[Token]:
    """The block token stream of ``text``; ``env`` receives what markdown-it collects
    on the way, such as the ``[ref]: target`` definitions under ``"references"``."""
    return _MD.parse(text, env)


def normalize_link(destination: str) -> str:
    """A link destination as markdown-it stores it in ``href`` (percent-encoded)."""
    return str(_MD.normalizeLink(destination))
