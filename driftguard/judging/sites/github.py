"""GitHub's rendering of a repository, the site of every document no generator publishes.

A link is a path in the repository: relative to the document's folder, a
leading ``/`` from the root, a folder showing its listing. A heading's anchor is
html-pipeline's slug (``documents.slugs``: lower case, punctuation dropped, so
``## 🔒 Audit Log (Pro)`` keeps the hyphen its space left, ``#-audit-log-pro``),
a repeat numbered ``-1``, ``-2``; ``{#id}`` is plain text to GitHub. A fragment is
matched ignoring case, as GitHub's page script finds ``#Turn-Limits``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from driftguard.documents.slugs import numbered, slug
from driftguard.documents.targets import resolve_path
from driftguard.judging.linked import MARKDOWN, LinkedDoc
from driftguard.judging.sites.base import Located, Site, folder_of
from driftguard.judging.sites.tree import MISSING, OUTSIDE, Tree

NAME = "github"


@dataclass(frozen=True)
class GitHub(Site):
    name: ClassVar[str] = NAME

    def describe(self) -> str:
        return "github"

    def locate(self, path: str, doc: str) -> Located:
        if not path:
            return Located(doc)
        rel = resolve_path(doc, path)
        if rel is None:
            base = "the root" if path.startswith("/") else folder_of(doc)
            return Located(None, leaves=f" leaves the repository root (relative to {base})")
        kind = self.tree.kind(rel)
        if kind == OUTSIDE:
            return Located(None, leaves=": the path leaves the root (through '..' or a symlink); refused")
        return Located(None if kind == MISSING else rel, near=rel)

    def custom_id(self, text: str) -> tuple[str, str | None]:
        return text, None

    def reads(self, rel: str) -> bool:
        return rel.lower().endswith(MARKDOWN)

    def anchors(self, doc: LinkedDoc) -> tuple[str, ...]:
        return doc.anchors  # the reader's, made from the heading's text as rendered

    def slug(self, text: str, seen: dict[str, int]) -> str:
        return numbered(slug(text), seen)

    def has(self, anchors: tuple[str, ...], name: str) -> bool:
        folded = name.casefold()
        return name in anchors or any(a.casefold() == folded for a in anchors)


def default(tree: Tree) -> GitHub:
    return GitHub(tree)
