"""Hugo: ``hugo.{toml,yaml,yml,json}`` (or ``config.*`` beside a ``content`` folder, or
either under ``config/_default/``) in the project folder publishes ``contentDir``.

Routing: ``content/guide/build.md`` is served at ``/guide/build/`` (``/guide/build.html``
with ``uglyURLs``), a leaf bundle ``guide/build/index.md`` at the same URL, a
section's ``_index.md`` at its folder; the front matter's ``url:`` replaces the
URL and ``slug:`` its last part; the path is lower-cased and a space becomes
``-`` unless ``disablePathToLower``. ``static/`` is served from the root. A
markdown link is left as written, so the browser joins it to the page's URL (a
link to a file next to the page, which a render hook rewrites, is taken too).
``{{< ref "x" >}}`` and ``{{< relref "x#y" >}}`` name a page by its path in the
content folder, with or without ``.md``: from the current page's folder first,
then from the content root (a leading ``/``: the root only), a folder naming its
``_index.md`` or ``index.md``, and a bare name any page of that name when only
one has it; ``"#y"`` alone is the current page.

Anchors (``markup/goldmark/autoid.go``), by ``markup.goldmark.parser.autoHeadingIDType``:
``github`` (the default) lower-cases letters, digits and ``_``, turns each space,
tab and ``-`` into ``-`` and drops the rest (``Multiple--Hyphens`` stays
``multiple--hyphens``); ``github-ascii`` first removes accents and non-ASCII;
``blackfriday`` joins runs of letters and numbers with single hyphens. An empty
one is ``heading``; a repeat is ``x-1``, ``x-2``; ``{#my-id}`` sets the id.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar
from urllib.parse import urlsplit

from driftguard.documents.slugs import numbered
from driftguard.judging.sites.base import Linked, Located, Site, folder_in, strip_suffix
from driftguard.judging.sites.configs import literal, read_config, setting
from driftguard.judging.sites.tree import Tree

NAME = "hugo"
_FRONT = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.S)
_KEY = re.compile(r"""^(url|slug)[ \t]*[:=][ \t]*["']?([^"'\r\n]*?)["']?[ \t]*$""", re.M)


def anchorize(text: str, kind: str = "github") -> str:
    """Hugo's heading id for ``text`` (``autoHeadingIDType`` ``kind``), before numbering."""
    if kind == "blackfriday":  # SanitizedAnchorName: runs of letters and numbers, one hyphen between
        out: list[str] = []
        dash = False
        for c in text:
            if _letter(c) or _number(c):
                out += ["-", c.lower()] if dash and out else [c.lower()]
                dash = False
            else:
                dash = True
        return "".join(out)
    if kind == "github-ascii":
        text = unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFD", text)
                                                    if unicodedata.category(c) != "Mn"))
        text = "".join(c for c in text if c.isascii())
    return "".join("-" if c in "- \t" else c.lower() if c == "_" or _letter(c) or c.isdecimal() else ""
                   for c in text)


def _letter(c: str) -> bool:
    return unicodedata.category(c).startswith("L")


def _number(c: str) -> bool:
    return unicodedata.category(c).startswith("N")


@dataclass(frozen=True)
class Hugo(Site):
    directory_urls: bool = True
    id_type: str = "github"
    attributes: bool = True
    ugly_urls: bool = False
    lower: bool = True
    static_folders: tuple[str, ...] = ()

    name: ClassVar[str] = NAME
    pages: ClassVar[tuple[str, ...]] = (".md", ".markdown")
    indexes: ClassVar[tuple[str, ...]] = ("_index", "index")
    roles: ClassVar[frozenset[str]] = frozenset({"ref", "relref"})

    def url_of(self, page: str) -> str:
        return self.routes.get(page) or super().url_of(page)

    def statics(self) -> tuple[str, ...]:
        return self.static_folders

    def page_for(self, route: str, from_doc: str) -> str | None:
        """A page by the URL it is served at (its front matter may move it), else a static file."""
        path = self.unbased(route)
        page = self.table.get(strip_suffix(path, (".html",)).rstrip("/").lower() or "/")
        statics = (posixpath.join(s, path.strip("/")) for s in self.statics() if path.strip("/"))
        return page or next((f for f in statics if self.tree.is_file(f)), None)

    @cached_property
    def routes(self) -> dict[str, str]:
        """Root-relative page -> its URL."""
        return {page: self._url(page) for page in self.tree.files(self.source, self.pages)}

    @cached_property
    def table(self) -> dict[str, str]:
        table: dict[str, str] = {}
        for page, url in self.routes.items():
            table.setdefault(strip_suffix(url, (".html",)).rstrip("/").lower() or "/", page)
        return table

    def _url(self, page: str) -> str:
        rel = strip_suffix(posixpath.relpath(page, self.source) if self.source else page, self.pages)
        front = dict(_KEY.findall(m.group(2))) if (m := _FRONT.match(self.tree.read(page) or "")) else {}
        if front.get("url"):
            return "/" + front["url"].strip("/") + ("/" if front["url"].endswith("/") else "")
        folder, name = posixpath.split(rel)
        section = name in self.indexes
        if not section and front.get("slug"):
            name = front["slug"]
        path = folder if section else posixpath.join(folder, name)
        if self.lower:
            path = path.lower().replace(" ", "-")
        if not path:
            return "/"
        return f"/{path}.html" if self.ugly_urls and not section else f"/{path}/"

    def cross_reference(self, role: str, target: str, doc: str, linked: Linked) -> tuple[Located, str | None]:
        path, _, fragment = target.partition("#")
        if not path:
            return Located(doc), fragment or None
        found = Located(self._find(path, doc), route=f"page {path}", near=self.in_source(path.lstrip("/")))
        return found, fragment or None

    def _find(self, path: str, doc: str) -> str | None:
        folders = [""] if path.startswith("/") else [posixpath.relpath(posixpath.dirname(doc), self.source or "."), ""]
        for folder in folders:
            stem = posixpath.normpath(posixpath.join(folder, path.strip("/")))
            if stem.startswith(".."):
                continue
            names = [stem, *(stem + s for s in self.pages),
                     *(f"{stem}/{i}{s}" for i in self.indexes for s in self.pages)]
            found = next((self.in_source(n) for n in names if self.tree.is_file(self.in_source(n))), None)
            if found:
                return found
        if "/" not in path.strip("/"):  # a bare name: the one page (or bundle) of that name
            named = [p for p in self.routes if _name(p, self.pages, self.indexes) == strip_suffix(path, self.pages)]
            return named[0] if len(named) == 1 else None
        return None

    def custom_id(self, text: str) -> tuple[str, str | None]:
        return super().custom_id(text) if self.attributes else (text, None)

    def slug(self, text: str, seen: dict[str, int]) -> str:
        return numbered(anchorize(text.strip(), self.id_type) or "heading", seen)


def _name(page: str, suffixes: tuple[str, ...], indexes: tuple[str, ...]) -> str:
    """What a bare ``ref`` calls a page: its file's name, a bundle's folder name."""
    folder, name = posixpath.split(strip_suffix(page, suffixes))
    return posixpath.basename(folder) if name in indexes else name


def detect(tree: Tree, home: str, config: str) -> Hugo | None:
    """The site ``config`` (one of the files ``sites.GENERATORS`` names) configures in
    ``home``; None when it names no content folder (a ``config.toml`` of something else)."""
    data = read_config(tree, config)
    notes = [posixpath.relpath(config, home or ".")]
    if not isinstance(data, dict):
        notes.append("unreadable: the defaults")
    content = literal(data, "contentDir", "content", notes)
    source = folder_in(home, content)
    if source is None or not tree.is_folder(source):
        return None  # a config.toml with no content folder is not a Hugo site
    statics = setting(data, "staticDir")
    statics = [statics] if isinstance(statics, str) else statics if isinstance(statics, list) else ["static"]
    id_type = literal(data, "markup.goldmark.parser.autoHeadingIDType", "github", notes)
    if id_type not in ("github", "github-ascii", "blackfriday"):
        notes.append(f"autoHeadingIDType {id_type} not known: github")
        id_type = "github"
    notes += [f"contentDir {content}", f"autoHeadingIDType {id_type}"]
    return Hugo(tree, home, source, tuple(notes),
                base=urlsplit(literal(data, "baseURL", "/", notes)).path or "/", id_type=id_type,
                attributes=literal(data, "markup.goldmark.parser.attribute.title", True, notes),
                ugly_urls=literal(data, "uglyURLs", False, notes),
                lower=not literal(data, "disablePathToLower", False, notes),
                static_folders=tuple(posixpath.join(home, s) for s in statics if isinstance(s, str)))


def default(tree: Tree) -> Hugo:
    return Hugo(tree, "", "", ("no hugo config: the defaults, the root as contentDir",), static_folders=("static",))
