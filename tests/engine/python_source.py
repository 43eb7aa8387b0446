"""Helpers the Python reader's tests share: read a selector from a source written
inline (dedented), and judge a copy of a fixture tree after an edit."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.config.specs import Selector
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result
from driftguard.model import FactNotFound, Item
from driftguard.sources import python as reader


class SourceReader:
    """The Python reader on sources that stand for the file ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def read(self, source: str, selector: Selector) -> Sequence[Item]:
        return reader.extract(reader.parse(self.path, textwrap.dedent(source)), selector, self.path)

    def values(self, source: str, selector: Selector) -> list[object]:
        return [item.value.data for item in self.read(source, selector)]

    def entries(self, source: str, selector: Selector) -> list[tuple[str, object, int | None]]:
        """(label, value, line) of each item of a map fact."""
        return [(i.label, i.value.data, i.location.line if i.location else None) for i in self.read(source, selector)]

    def not_found(self, source: str, selector: Selector) -> str:
        with pytest.raises(FactNotFound) as caught:
            self.read(source, selector)
        return caught.value.message

    def skipped(self, source: str, selector: Selector) -> list[str]:
        return reader.skipped(reader.parse(self.path, textwrap.dedent(source)), selector, self.path)


def run(root: Path) -> Result:
    """Every rule of the tree at ``root``, judged."""
    return Engine(load_config(root / "driftguard.yaml")).run()


def edit(path: Path, old: str, new: str) -> None:
    """``path`` with the first ``old`` replaced by ``new`` (which must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
