"""Claim forms that read what a regular expression or a heading level picks out of the
prose: ``text:`` (any prose, code block lines too), ``headings:`` and ``items:``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.forms.base import DocMember, Form, present, within_config, within_of
from driftguard.config.schema import Reader


@dataclass(frozen=True)
class TextClaim(Form):
    """Group 1 of every match of ``regex`` in the prose of the scope (paragraphs, list
    items, table cells, headings; with ``blocks`` the lines of code blocks too): a set,
    or with ``one`` (``scalar: true``) a value stated at each match."""

    regex: str
    section: str | None = None
    blocks: bool = False
    one: bool = False
    place: tuple[str, str] | None = None

    key: ClassVar[str] = "text"
    options: ClassVar[frozenset[str]] = frozenset({"text", "section", "blocks", "scalar", "within"})

    @property
    def scalar(self) -> bool:
        return self.one

    @property
    def within(self) -> tuple[str, str] | None:
        return self.place

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def span_regex(self) -> str | None:
        return self.regex

    @property
    def rewrites_values(self) -> bool:
        return self.one

    @property
    def doc_member(self) -> DocMember:
        return DocMember.MATCH

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> TextClaim:
        return cls(regex=r.regex(body, "text", key, groups=1), section=r.value(body, "section", str, key, default=None),
                   blocks=r.value(body, "blocks", bool, key, default=False),
                   one=r.value(body, "scalar", bool, key, default=False), place=within_of(r, body, key))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), **within_config(self.place), "text": self.regex,
                **present(blocks=self.blocks, scalar=self.one)}

    def describe(self) -> str:
        return f"the text matching '{self.regex}'"


@dataclass(frozen=True)
class HeadingsClaim(Form):
    """A set: each heading (of ``level``, or any level below the scope's) under the scope,
    whole or group 1 of ``match``."""

    level: int | None = None
    match: str | None = None
    section: str | None = None

    key: ClassVar[str] = "headings"
    options: ClassVar[frozenset[str]] = frozenset({"headings", "match", "section"})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def span_regex(self) -> str | None:
        return self.match

    @property
    def doc_member(self) -> DocMember:
        return DocMember.HEADING

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> HeadingsClaim:
        raw, where = body["headings"], f"{key}.headings"
        if raw is True:
            spec: Any = {}
        elif isinstance(raw, dict):
            spec = r.child(body, "headings", where, optional={"level", "match"})
        else:
            r.fail(body, "headings", f"{where}: expected `headings: true` or a mapping of level and match")
        level = r.value(spec, "level", int, where, default=None)
        if level is not None and not 1 <= level <= 6:
            r.fail(spec, "level", f"{where}.level: expected a heading level from 1 to 6, got {level}")
        inner = r.regex(spec, "match", where, groups=1) if "match" in spec else None
        outer = r.regex(body, "match", key, groups=1) if "match" in body else None
        if inner and outer:
            r.fail(body, "match", f"{key}: give `match` once, inside `headings` or beside it")
        return cls(level=level, match=inner or outer, section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        inside = present(level=self.level, match=self.match)
        return {**present(section=self.section), "headings": inside or True}

    def describe(self) -> str:
        level = f"level-{self.level} " if self.level else ""
        return f"the {level}headings" + (f" under '{self.section}'" if self.section else "")


@dataclass(frozen=True)
class ItemsClaim(Form):
    """A set: each bullet item of the scope, by its first code span or group 1 of ``match``."""

    match: str | None = None
    section: str | None = None

    key: ClassVar[str] = "items"
    options: ClassVar[frozenset[str]] = frozenset({"items", "match", "section"})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def span_regex(self) -> str | None:
        return self.match

    @property
    def doc_member(self) -> DocMember:
        return DocMember.MATCH

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> ItemsClaim:
        if r.value(body, "items", bool, key) is not True:
            r.fail(body, "items", f"{key}.items: expected `items: true`")
        return cls(match=r.regex(body, "match", key, groups=1) if "match" in body else None,
                   section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), "items": True, **present(match=self.match)}

    def describe(self) -> str:
        return "the bullet items" + (f" of section '{self.section}'" if self.section else "")
