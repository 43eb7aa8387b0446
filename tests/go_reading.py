"""Helpers the Go reader's tests share: read a selector from a Go text, or from a
file of the fixture tree ``tests/fixtures/go_reach`` with additions."""

from __future__ import annotations

import textwrap
from pathlib import Path

from driftguard.config.specs import Selector
from driftguard.model import Item, Kind
from driftguard.sources import go as reader

REACH = Path(__file__).resolve().parent / "fixtures" / "go_reach"
PATH = "app.go"


def fixture(rel: str, *extra: str) -> str:
    """The fixture file ``rel``, with each of ``extra`` (dedented) appended."""
    text = (REACH / rel).read_text(encoding="utf-8")
    return text + "".join("\n" + textwrap.dedent(more).strip("\n") + "\n" for more in extra)


def parse(source: str) -> reader.reader.GoTree:
    return reader.parse(PATH, textwrap.dedent(source).lstrip())


def read(source: str, selector: Selector) -> list[Item]:
    return list(reader.extract(parse(source), selector, PATH))


def values(source: str, selector: Selector) -> list[object]:
    return [i.value.data for i in read(source, selector)]


def names(source: str, selector: Selector) -> list[str]:
    return [str(i.value.data) for i in read(source, selector)]


def entries(source: str, selector: Selector) -> dict[str, tuple[Kind, object]]:
    """A map fact as label -> (kind, data)."""
    return {i.label: (i.value.kind, i.value.data) for i in read(source, selector)}


def skipped(source: str, selector: Selector) -> list[str]:
    return reader.skipped(parse(source), selector, PATH)


def line_of(source: str, needle: str) -> int:
    """The 1-based line of the first line holding ``needle``, as ``parse`` numbers it."""
    lines = textwrap.dedent(source).lstrip().splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)
