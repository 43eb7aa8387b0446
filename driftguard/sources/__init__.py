"""Source readers: one package per language behind one protocol (``base``).

``driftguard.languages`` lists the languages; ``reader_name`` says which
reader reads a file for a selector and ``load_reader`` imports it, lazily, so a
run that touches no Python source never imports libcst. A file of no known
language, and every ``pattern`` selector, is read by the regex reader
``text``; every ``query`` selector by ``query``, keyed by its language
(``driftguard.sources.query:rust``), whatever the file's extension.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import cast

from driftguard import languages
from driftguard.config.specs import Pattern, Query, Selector
from driftguard.model import Item, NameItems
from driftguard.sources.base import Reader

TEXT_READER = "driftguard.sources.text"
QUERY_READER = "driftguard.sources.query"


def reader_name(path: str, selector: Selector) -> str:
    """The key of the reader that reads ``selector`` from ``path``: the regex fallback
    for ``pattern`` selectors and files of no known language."""
    if isinstance(selector, Pattern):
        return TEXT_READER
    if isinstance(selector, Query):
        return f"{QUERY_READER}:{selector.language}"
    lang = languages.language_of(path)
    return lang.key if lang is not None else TEXT_READER


def load_reader(name: str) -> Reader:
    """The reader ``name`` keys: a registered reader object, or the module of that path
    (every ``driftguard.sources.query:<language>`` key names the query reader)."""
    lang = languages.by_key(name)
    if lang is not None and not isinstance(lang.reader, str):
        return cast(Reader, lang.reader)
    if name.startswith(f"{QUERY_READER}:"):
        name = QUERY_READER
    return cast(Reader, importlib.import_module(name))


def name_items(names: dict[str, int], path: str, label: str = "") -> NameItems:
    """One string item per name (name -> line) of ``path``, labelled ``label``."""
    return NameItems.of_file(names, path, label)


def unique_items(items: Iterable[Item]) -> list[Item]:
    """Items in source order, the first of each value (kind and data) kept."""
    seen: set[tuple[object, object]] = set()
    out = []
    for item in items:
        key = (item.value.kind, item.value.data)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
