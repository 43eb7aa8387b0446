"""Claim forms whose members must each resolve: the document's references and links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.forms.base import Form, Judging, present
from driftguard.config.schema import Reader
from driftguard.model import Direction, PatternError
from driftguard.user_regex import compile_user_regex


@dataclass(frozen=True)
class ReferencesClaim(Form):
    """A set, doc-to-code: the code spans shaped as references (calls, dotted names,
    identifiers, paths) outside code blocks, each of which must resolve."""

    bare: bool = False  # also plain lower-case identifiers
    ignore: tuple[str, ...] = ()  # regexes for spans left alone
    repository: bool = True  # a name found anywhere in the repository outside the documents resolves
    strict: bool = False  # report every unresolved span, evidence or not

    facts: ClassVar[str] = "optional"
    key: ClassVar[str] = "references"
    options: ClassVar[frozenset[str]] = frozenset({"references"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})
    judging: ClassVar[Judging] = Judging.REFERENCES
    reads_repository: ClassVar[bool] = True

    @property
    def needs_evidence(self) -> bool:
        return not self.strict

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> ReferencesClaim:
        where = f"{key}.references"
        raw = body["references"]
        if raw is True:
            return cls()
        if not isinstance(raw, dict):
            r.fail(body, "references", f"{where}: expected `references: true` or a mapping of bare, ignore, "
                   "repository, strict")
        spec = r.child(body, "references", where, optional={"bare", "ignore", "repository", "strict"})
        ignore = r.sequence(spec, "ignore", where) if "ignore" in spec else []
        for i, pattern in enumerate(ignore):
            if not isinstance(pattern, str):
                r.fail(spec, "ignore", f"{where}.ignore[{i}]: expected a regular expression (text)")
            try:
                compile_user_regex(pattern, r.loc(spec, "ignore"))
            except PatternError as exc:
                r.fail(spec, "ignore", f"{where}.ignore[{i}]: {exc.message}")
        return cls(bare=r.value(spec, "bare", bool, where, default=False), ignore=tuple(ignore),
                   repository=r.value(spec, "repository", bool, where, default=True),
                   strict=r.value(spec, "strict", bool, where, default=False))

    def to_config(self) -> dict[str, Any]:
        options = present(bare=self.bare, ignore=list(self.ignore), strict=self.strict)
        if not self.repository:
            options["repository"] = False
        return {"references": options or True}

    def describe(self) -> str:
        return "the document's references"


SITES = ("github", "mkdocs", "vitepress", "docusaurus", "hugo", "sphinx")
"""The site generators ``links: {site: NAME}`` may name (``judging.sites`` implements each)."""


@dataclass(frozen=True)
class LinksClaim(Form):
    """A set, doc-to-code, without a fact: every relative link, reference-style link and
    image target (file, ``#heading`` anchor, ``#L10`` line) must exist, resolved as the
    site that publishes the document resolves it (detected, or ``site`` when given)."""

    site: str = ""  # "" detects the site from the tree

    facts: ClassVar[str] = "none"
    key: ClassVar[str] = "links"
    options: ClassVar[frozenset[str]] = frozenset({"links"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})
    judging: ClassVar[Judging] = Judging.LINKS
    reads_repository: ClassVar[bool] = True

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> LinksClaim:
        where = f"{key}.links"
        raw = body["links"]
        if raw is True:
            return cls()
        if not isinstance(raw, dict):
            r.fail(body, "links", f"{where}: expected `links: true` or `links: {{site: NAME}}`")
        spec = r.mapping(raw, where, optional={"site"})
        site = r.value(spec, "site", str, where, default="")
        if site and site not in SITES:
            r.fail(spec, "site", f"{where}.site: expected one of {', '.join(SITES)}, got {site!r}"
                   + r.suggest(site, SITES))
        return cls(site=site)

    def to_config(self) -> dict[str, Any]:
        return {"links": {"site": self.site} if self.site else True}

    def describe(self) -> str:
        return "the document's links" + (f" (as {self.site} renders them)" if self.site else "")
