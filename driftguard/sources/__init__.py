"""Source readers: one module per language behind one small protocol.

A reader module provides ``parse(path, text) -> tree`` and
``extract(tree, selector, path) -> list[Item]``. ``parse`` raises
``ParseError`` only where nothing can be read at all (Python syntax errors);
Go trees with ERROR nodes are returned, and ``extract`` raises ``ParseError``
when an error lies on the path to the requested fact. ``extract`` raises
``FactNotFound`` when the selector matches nothing and ``AmbiguousFact`` when
a scalar selector matches more than one thing. Modules are imported lazily, so
a run that touches no Python source never imports libcst.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from typing import Protocol, cast

from driftguard.config.specs import Pattern, Selector
from driftguard.model import Item, NameItems


class SourceReader(Protocol):
    def parse(self, path: str, text: str) -> object: ...

    def extract(self, tree: object, selector: Selector, path: str) -> Sequence[Item]: ...


READERS: dict[str, str] = {
    ".go": "driftguard.sources.go",
    ".py": "driftguard.sources.python",
    **dict.fromkeys((".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"), "driftguard.sources.typescript"),
}
"""File extension -> reader module. Anything else is read by ``text``."""

TEXT_READER = "driftguard.sources.text"


def reader_name(path: str, selector: Selector) -> str:
    """The module that reads ``selector`` from ``path``: the regex fallback for
    ``pattern`` selectors and unknown extensions."""
    if isinstance(selector, Pattern):
        return TEXT_READER
    return READERS.get(PurePosixPath(path).suffix, TEXT_READER)


def load_reader(name: str) -> SourceReader:
    return cast(SourceReader, importlib.import_module(name))


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
