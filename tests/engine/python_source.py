"""What the Python reader's tests share: read a selector from a source written inline
(dedented). Judging and editing a tree are in tests/helpers.py."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import pytest

from driftguard.config.specs import Selector
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
