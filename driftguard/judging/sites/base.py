"""The site protocol: how a link of a published document resolves to a page, and how
a heading becomes an anchor, with the defaults most generators share.

A ``Site`` is what one generator's config says about one set of documents: the
folder holding the config (``home``), the folder its pages are read from
(``source``), and ``notes`` on how the config was read (each setting taken, and
each one that was not a literal and fell back to the default). A generator
module subclasses it and overrides what differs; ``sites/__init__.py`` lists the
generators and detects which one publishes a document.

``locate`` reads a link's path as the site does: a path relative to the
document names a file next to it when one exists (every generator rewrites such
a link to the file's page or asset); otherwise, and for a site-rooted path
(``/guide/build``), it is a URL, joined to the document's own URL (``url_of``) and
looked up by ``page_for``: the page that builds that route (``guide/build.md``,
``guide/build/index.md``, an index page of a folder route), or a file served at
that route (``public/``, ``static/``). A route never leaves the source folder: a
URL's ``..`` stops at the site's root, as a browser's does.

``anchors`` are computed from the document's headings with the generator's
``slug`` (numbering repeats its own way through ``seen``) and custom ids
(``{#my-id}`` and attribute lists, when the generator reads them), plus the
anchors no heading makes (``<a id>``, ``<a name>``, labels).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from driftguard.documents.targets import resolve_path
from driftguard.judging.linked import MARKDOWN, LinkedDoc
from driftguard.judging.sites.tree import FILE, FOLDER, OUTSIDE, Tree

_ATTR = r"""(?:[#.][^\s{}#.]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}]+))"""
_ATTRS = re.compile(rf"\s*\{{:?[ \t]*({_ATTR}(?:[ \t]+{_ATTR})*)[ \t]*\}}\s*\Z")
_ID = re.compile(r"(?:^|\s)#([^\s{}#.]+)")

Linked = Callable[[str], LinkedDoc]
"""Root-relative path of a document -> its links and anchors (raises DriftguardError)."""


@dataclass(frozen=True)
class Located:
    """Where a link's path lands: ``rel`` the root-relative file or folder (None for
    nothing); ``route`` the URL it was read as ("" for a file path); ``leaves`` why it
    leaves the repository ("" when it stays); ``near`` the root-relative path a
    "closest" hint starts from."""

    rel: str | None
    route: str = ""
    leaves: str = ""
    near: str = ""


@dataclass(frozen=True)
class Site:
    """GitHub-like defaults; a generator overrides what differs."""

    tree: Tree = field(repr=False, compare=False)
    home: str = ""
    source: str = ""
    notes: tuple[str, ...] = ()
    base: str = "/"  # the URL path the site is served under, stripped from a rooted link
    directory_urls: bool = False  # a page's URL is a folder (``guide/build/``), which names ``guide/build.md``

    name: ClassVar[str] = "github"
    pages: ClassVar[tuple[str, ...]] = (".md",)  # suffixes of the files that build pages
    indexes: ClassVar[tuple[str, ...]] = ("index",)  # stems of a folder's index page
    roles: ClassVar[frozenset[str]] = frozenset()  # the cross-reference roles it resolves

    # -- which documents, described --------------------------------------------

    def publishes(self, path: str) -> bool:
        """Whether the document at root-relative ``path`` is one of this site's pages."""
        return within(path, self.source)

    def describe(self) -> str:
        return f"{self.name}: " + ", ".join(self.notes) if self.notes else self.name

    def shown_source(self) -> str:
        return f"{self.source}/" if self.source else "the root"

    # -- links to pages ---------------------------------------------------------

    def locate(self, path: str, doc: str) -> Located:
        """Where ``path`` (percent-decoded, no query or fragment) written in page ``doc`` lands."""
        if not path:
            return Located(doc)
        leaves = Located(None, leaves=f" leaves the repository root (relative to {folder_of(doc)})")
        route = rooted(path) if path.startswith("/") else None
        rel = None if route else self.file_path(path, doc)
        if route is None:
            kind = self.tree.kind(rel) if rel is not None else OUTSIDE
            if rel is not None and kind == OUTSIDE:
                return Located(None, leaves=": the path leaves the root through a symlink; not followed")
            if kind == FILE:
                return Located(rel)
            route = join_url(self.url_of(doc), path)  # a URL, as the browser reads it
        if route is None:  # a URL above the site's root: a missing file when the path stays in the repository
            return leaves if rel is None else Located(None, near=rel)
        page = self.page_for(route, doc)
        if page is None and rel is None and not path.startswith("/"):
            return leaves  # neither a file in the repository nor a page of the site
        return Located(page, route=route, near=self.near(route))

    def near(self, route: str) -> str:
        """The root-relative file a "closest" hint for a missing ``route`` starts from."""
        stem = strip_suffix(self.unbased(route).strip("/"), (".html",))
        if not stem:
            return self.source
        page, index = stem + self.pages[0], posixpath.join(stem, self.indexes[0] + self.pages[0])
        found = [self.in_source(page), self.in_source(index)]
        return next((f for f in found if self.tree.is_file(f)), found[0])

    def file_path(self, path: str, doc: str) -> str | None:
        """The root-relative file a relative ``path`` names, None when it leaves the root."""
        return resolve_path(doc, path)

    def url_of(self, page: str) -> str:
        """The URL path (from the site's root) of the page built from root-relative ``page``."""
        rel = posixpath.relpath(page, self.source) if self.source else page
        stem = strip_suffix(rel, self.pages + MARKDOWN)
        folder, name = posixpath.split(stem)
        if name in self.indexes:
            return "/" + (folder + "/" if folder else "")
        return "/" + stem + ("/" if self.directory_urls else ".html")

    def page_for(self, route: str, from_doc: str) -> str | None:
        """The root-relative file that serves ``route`` (a URL path from the site's root),
        or None. A folder found this way is the page of a generated index."""
        path = self.unbased(route)
        for rel in self.candidates(path.strip("/"), path.endswith("/") or path.strip("/") == ""):
            if self.tree.is_file(rel):
                return rel
        return self.routed(path)

    def candidates(self, path: str, folder: bool) -> list[str]:
        """Root-relative files that may build the route ``path`` (no leading ``/``)."""
        found = []
        if not folder:
            found.append(path)
        stem = path
        if stem.endswith(".html"):
            stem = stem[:-5]
            if posixpath.basename(stem) == "index":
                stem, folder = posixpath.dirname(stem), True
        if not folder or self.directory_urls:
            found += [stem + suffix for suffix in self.pages if stem]
        found += [posixpath.join(stem, index + suffix) for index in self.indexes for suffix in self.pages]
        return [self.in_source(p) for p in found] + [posixpath.join(s, path) for s in self.statics() if path]

    def statics(self) -> tuple[str, ...]:
        """Root-relative folders whose files are served from the site's root."""
        return ()

    def routed(self, route: str) -> str | None:
        """A page whose route is not its path (a slug, a rewrite): none by default."""
        return None

    def unbased(self, route: str) -> str:
        base = self.base.rstrip("/")
        if base and (route == base or route.startswith(base + "/")):
            return route[len(base):] or "/"
        return route

    def in_source(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.source, path)) if self.source else posixpath.normpath(path)

    # -- cross-references ---------------------------------------------------------

    def elsewhere(self, role: str, target: str) -> bool:
        """Whether a ``:role:target`` cross-reference names another project's page (not checked)."""
        return False

    def cross_reference(self, role: str, target: str, doc: str, linked: Linked) -> tuple[Located, str | None]:
        """Where a ``:role:target`` cross-reference lands, and the fragment to check there;
        a ``route`` that says what was looked for ("label install") when it lands nowhere."""
        return Located(None), None

    # -- anchors --------------------------------------------------------------------

    def reads(self, rel: str) -> bool:
        """Whether the anchors of file ``rel`` are known (a page this site reads)."""
        return rel.lower().endswith(MARKDOWN + self.pages)

    def anchors(self, doc: LinkedDoc) -> tuple[str, ...]:
        seen: dict[str, int] = {}
        found = []
        for text, _ in doc.headings:
            text, given = self.custom_id(text)
            if given:
                seen.setdefault(given, 0)
                found.append(given)
            else:
                found.append(self.slug(text, seen))
        return tuple(found) + doc.html + doc.labels

    def custom_id(self, text: str) -> tuple[str, str | None]:
        """The heading's text without its custom id, and the id (None without one)."""
        return heading_id(text)

    def slug(self, text: str, seen: dict[str, int]) -> str:
        """The anchor of a heading whose rendered text is ``text``; ``seen`` holds the
        anchors given before it, and takes this one."""
        raise NotImplementedError

    def fragment(self, name: str) -> str:
        """The anchor a link's ``#name`` (percent-decoded) asks for."""
        return name

    def has(self, anchors: tuple[str, ...], name: str) -> bool:
        return name in anchors


def heading_id(text: str) -> tuple[str, str | None]:
    """A heading's text without a trailing attribute list (``{#id .class}``, ``{: #id}``),
    and the id it gives (None when it gives none)."""
    m = _ATTRS.search(text)
    if m is None:
        return text, None
    given = _ID.search(m.group(1))
    return text[:m.start()], (given.group(1) if given else None)


def first_file(tree: Tree, home: str, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` (relative to ``home``) that is a file: a generator's config."""
    return next((posixpath.join(home, n) for n in names
                 if tree.may_hold(home, n.split("/")[0]) and tree.is_file(posixpath.join(home, n))), None)


def folder_in(home: str, path: str) -> str | None:
    """The root-relative folder a config's ``path`` names from ``home`` ("" for the root),
    None when it is absolute or leaves the root."""
    joined = posixpath.normpath(posixpath.join(home, path))
    if posixpath.isabs(path) or joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def folder_of(doc: str) -> str:
    folder = posixpath.dirname(doc)
    return f"{folder}/" if folder else "the root"


def strip_suffix(path: str, suffixes: tuple[str, ...]) -> str:
    lower = path.lower()
    return next((path[:-len(s)] for s in suffixes if lower.endswith(s)), path)


def rooted(path: str) -> str:
    """A site-rooted path as a browser reads it: ``..`` stops at the root, a trailing ``/`` kept."""
    normal = posixpath.normpath("/" + path.lstrip("/"))
    return normal + "/" if path.endswith("/") and normal != "/" else normal


def join_url(page_url: str, path: str) -> str | None:
    """``path`` resolved against ``page_url`` from the URL's folder, a trailing ``/`` kept;
    None when its ``..`` climb above the site's root (a browser would stop there)."""
    folder = page_url[:page_url.rfind("/") + 1].lstrip("/")
    joined = posixpath.normpath(posixpath.join(folder, path)) if folder or path else "."
    if joined == ".." or joined.startswith("../"):
        return None
    joined = "/" + ("" if joined == "." else joined)
    return joined + "/" if (path.endswith("/") or path in (".", "..")) and joined != "/" else joined


__all__ = ["FILE", "FOLDER", "Linked", "Located", "Site", "first_file", "folder_in", "heading_id", "join_url",
           "strip_suffix", "within"]
