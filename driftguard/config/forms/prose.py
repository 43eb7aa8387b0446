"""Claim forms read from a document's prose: a section's code spans or bullets, a
phrase around a value, and the mentions of every member."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from driftguard.config.forms.base import DocMember, Form, present, within_config, within_of
from driftguard.config.schema import Reader
from driftguard.model import Direction


@dataclass(frozen=True)
class SectionClaim(Form):
    """A set: the code spans matching ``code_spans`` in the section under heading
    ``section``, or with ``list`` the items of its bullet lists."""

    section: str
    code_spans: str | None = None
    list: bool = False

    key: ClassVar[str] = "section"
    options: ClassVar[frozenset[str]] = frozenset({"section", "code_spans", "list"})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def span_regex(self) -> str | None:
        return self.code_spans

    @property
    def doc_member(self) -> DocMember:
        return DocMember.BULLET if self.list else DocMember.CODE_SPAN

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> SectionClaim:
        code_spans = r.regex(body, "code_spans", key) if "code_spans" in body else None
        as_list = r.value(body, "list", bool, key, default=False)
        if code_spans and as_list:
            r.fail(body, "list", f"{key}: use either `code_spans` or `list`, not both")
        return cls(section=r.value(body, "section", str, key), code_spans=code_spans, list=as_list)

    def to_config(self) -> dict[str, Any]:
        return {"section": self.section, **present(code_spans=self.code_spans, list=self.list)}

    def describe(self) -> str:
        return f"section '{self.section}'"


@dataclass(frozen=True)
class PhraseClaim(Form):
    """A scalar: the value at ``{value}`` in every sentence matching ``template`` (a
    quantity, or a code span's text); against a set fact, the members of the list a code
    span there holds (``['.mjs', '.js']``)."""

    template: str
    section: str | None = None
    place: tuple[str, str] | None = None  # ``within:``
    members: bool = False  # judged against a set fact: set by the loader

    key: ClassVar[str] = "phrase"
    options: ClassVar[frozenset[str]] = frozenset({"phrase", "section", "within"})

    @property
    def scalar(self) -> bool:
        return not self.members

    @property
    def within(self) -> tuple[str, str] | None:
        return self.place

    def for_set(self) -> PhraseClaim:
        return replace(self, members=True)

    @property
    def doc_member(self) -> DocMember:
        return DocMember.MATCH

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def rewrites_values(self) -> bool:
        return not self.members

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> PhraseClaim:
        template = r.value(body, "phrase", str, key)
        if template.count("{value}") != 1:
            r.fail(body, "phrase", f"{key}.phrase: expected the template to hold `{{value}}` exactly once")
        return cls(template=template, section=r.value(body, "section", str, key, default=None),
                   place=within_of(r, body, key))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), **within_config(self.place), "phrase": self.template}

    def describe(self) -> str:
        return f"the sentence '{self.template}'"


@dataclass(frozen=True)
class MentionsClaim(Form):
    """A set, code-to-doc only: every fact value appears as a code span in the
    document (or in ``section``)."""

    section: str | None = None

    key: ClassVar[str] = "mentions"
    options: ClassVar[frozenset[str]] = frozenset({"mentions", "section"})
    default_direction: ClassVar[Direction] = Direction.CODE_TO_DOC
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.CODE_TO_DOC})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def doc_member(self) -> DocMember:
        return DocMember.NONE

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> MentionsClaim:
        if r.value(body, "mentions", bool, key) is not True:
            r.fail(body, "mentions", f"{key}.mentions: expected `mentions: true`")
        return cls(section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), "mentions": True}

    def describe(self) -> str:
        return f"section '{self.section}'" if self.section else "the document"
