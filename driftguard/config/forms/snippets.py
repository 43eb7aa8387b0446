"""The snippet claim form: the fenced blocks a marker ties to code must equal it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.forms.base import DocMember, Form, Judging, present
from driftguard.config.schema import Reader
from driftguard.model import Direction

MARKER = "driftguard: snippet"
"""What an HTML comment before a fenced block says to tie it to code:
``<!-- driftguard: snippet path/to/file.py#L10-L20 -->`` or
``<!-- driftguard: snippet path/to/file.go symbol=NewServer -->``."""


@dataclass(frozen=True)
class SnippetClaim(Form):
    """Every fenced block of the scope that a marker ties to code equals that code (the
    lines named, or the whole declaration of a symbol), compared after common indentation
    is removed; ``fix`` rewrites the block from the code."""

    section: str | None = None

    facts: ClassVar[str] = "none"
    key: ClassVar[str] = "snippet"
    options: ClassVar[frozenset[str]] = frozenset({"snippet", "section"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})
    judging: ClassVar[Judging] = Judging.SNIPPETS
    reads_repository: ClassVar[bool] = True  # a marker may name any file of the tree

    @property
    def scalar(self) -> bool:
        return True

    @property
    def entries(self) -> bool:
        return True

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def rewrites_values(self) -> bool:
        return True

    @property
    def doc_member(self) -> DocMember:
        return DocMember.NONE

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> SnippetClaim:
        if r.value(body, "snippet", bool, key) is not True:
            r.fail(body, "snippet", f"{key}.snippet: expected `snippet: true`")
        return cls(section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        return {**present(section=self.section), "snippet": True}

    def describe(self) -> str:
        return "the marked snippets" + (f" of section '{self.section}'" if self.section else "")
