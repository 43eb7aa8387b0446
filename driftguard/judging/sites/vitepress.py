"""VitePress: ``.vitepress/config.{js,ts,mjs,mts,cjs,cts}`` in the project folder
publishes ``srcDir`` (default the project folder itself).

Routing (VitePress' ``plugins/link.ts`` and its dead-link check): ``guide/build.md``
is served at ``/guide/build.html``, or ``/guide/build`` with ``cleanUrls``; both
forms, and ``/guide/build.md``, name it. ``index.md`` is its folder's page
(``/guide/``). A page's URL folder is its source folder, so a relative link reads
the same as a file path. ``rewrites`` (literal ``from: to`` pairs with
``:param`` segments, as path-to-regexp reads them) move a page to another route,
and its relative links are read from there; ``[param].md`` pages build every
route of their shape; ``public/`` under ``srcDir`` is served from the root.

Anchors: ``@mdit-vue/shared``'s ``slugify``: NFKD, combining marks and control
characters removed, each run of whitespace and of ``~`!@#$%^&*()-_+=[]{}|\\;:"'“”‘’<>,.?/``
one ``-``, no ``-`` at either end, a leading digit prefixed with ``_``, lower case:
``## build.target`` is ``#build-target``. The heading text leaves out inline HTML
and ``:emoji:`` shortcodes; a repeat is ``x-1``, ``x-2`` (markdown-it-anchor);
``{#my-id}`` sets the id (markdown-it-attrs). A link's fragment is slugified
the same way before it is looked up (``normalizeHash``).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from driftguard.judging.sites.base import Site, folder_in, strip_suffix, within
from driftguard.judging.sites.configs import NotLiteral, literal, setting
from driftguard.judging.sites.tree import Tree

NAME = "vitepress"
_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # JavaScript's \s
_SPECIAL = re.compile(rf"[{_SPACE}~`!@#$%^&*()\-_+=\[\]{{}}|\\;:\"'\u201c\u201d\u2018\u2019<>,.?/]+")
_EMOJI = re.compile(r"(?:(?<=\s)|^):[a-z0-9_+-]+:(?=\s|$)")
_PARAM = re.compile(r":(\w+)(\([^)]*\))?([*+?]?)|\[(\w+)\]")


def slugify(text: str) -> str:
    """``@mdit-vue/shared``'s ``slugify``."""
    text = unicodedata.normalize("NFKD", text)
    text = re.sub("[\u0300-\u036f]", "", text)
    text = re.sub("[\u0000-\u001f]", "", text)
    text = re.sub("-{2,}", "-", _SPECIAL.sub("-", text)).strip("-")
    return re.sub(r"^(\d)", r"_\1", text).lower()


def unique(slug: str, seen: dict[str, int]) -> str:
    """markdown-it-anchor's ``uniqueSlug``: ``x``, else the first free ``x-1``, ``x-2``..."""
    found, i = slug, 1
    while found in seen:
        found, i = f"{slug}-{i}", i + 1
    seen[found] = 0
    return found


@dataclass(frozen=True)
class VitePress(Site):
    clean_urls: bool = False
    rewrites: tuple[tuple[str, str], ...] = ()

    name: ClassVar[str] = NAME

    def publishes(self, path: str) -> bool:
        inner = posixpath.relpath(path, self.source) if self.source else path
        return within(path, self.source) and not inner.startswith((".vitepress/", "public/", "node_modules/"))

    def url_of(self, page: str) -> str:
        rel = posixpath.relpath(page, self.source) if self.source else page
        stem = strip_suffix(self.rewritten(rel), (".md",))
        folder, name = posixpath.split(stem)
        if name == "index":
            return "/" + (folder + "/" if folder else "")
        return "/" + stem + ("" if self.clean_urls else ".html")

    def statics(self) -> tuple[str, ...]:
        return (self.in_source("public"),)

    def page_for(self, route: str, from_doc: str) -> str | None:
        if not self.rewrites:
            return super().page_for(route, from_doc)
        path = self.unbased(route)  # a rewritten page answers at its new route only: ask the table first
        files = [self.in_source(path.strip("/")), *(posixpath.join(s, path.strip("/")) for s in self.statics())]
        return self.routed(path) or next((f for f in files if path.strip("/") and self.tree.is_file(f)), None)

    def routed(self, route: str) -> str | None:
        stem = strip_suffix(route.strip("/"), (".html", ".md"))
        stem = "index" if not stem else stem + "/index" if route.endswith("/") else stem
        found = self.table.get(stem) or self.table.get(stem + "/index")
        if found:
            return found
        return next((page for pattern, page in self.dynamic if pattern.fullmatch(stem)), None)

    @cached_property
    def table(self) -> dict[str, str]:
        """Route stem (``guide/build``, ``guide/index``) -> root-relative page."""
        return {strip_suffix(self.rewritten(posixpath.relpath(page, self.source) if self.source else page),
                             (".md",)): page for page in self.tree.files(self.source, (".md",)) if self.publishes(page)}

    @cached_property
    def dynamic(self) -> list[tuple[re.Pattern[str], str]]:
        return [(re.compile(_PARAM.sub(lambda _: "[^/]+", re.escape(stem).replace(r"\[", "[").replace(r"\]", "]"))),
                 page) for stem, page in self.table.items() if "[" in stem]

    def rewritten(self, rel: str) -> str:
        for source, target in self.rewrites:
            m = re.fullmatch(_path_regex(source), rel)
            if m is not None:
                return _fill(target, m.groupdict())
        return rel

    def custom_id(self, text: str) -> tuple[str, str | None]:
        text, given = super().custom_id(text)
        return _EMOJI.sub("", text), given

    def slug(self, text: str, seen: dict[str, int]) -> str:
        return unique(slugify(text), seen)

    def fragment(self, name: str) -> str:
        return slugify(name)


def _fill(pattern: str, params: dict[str, str]) -> str:
    """``pattern``'s ``:param`` segments replaced by the values a rewrite matched."""
    return _PARAM.sub(lambda p: params.get(p.group(1) or p.group(4) or "") or "", pattern)


def _path_regex(pattern: str) -> str:
    """A path-to-regexp pattern (``packages/:pkg/src/:slug*``) as a Python regex."""
    out, at = [], 0
    for m in _PARAM.finditer(pattern):
        out.append(re.escape(pattern[at:m.start()]))
        name = m.group(1) or m.group(4)
        body = m.group(2)[1:-1] if m.group(2) else (".*" if m.group(3) in ("*", "+") else "[^/]+")
        out.append(f"(?P<{name}>{body})" + ("?" if m.group(3) == "?" else ""))
        at = m.end()
    return "".join(out) + re.escape(pattern[at:])


def detect(tree: Tree, home: str, config: str) -> VitePress:
    """The site ``config`` (one of the files ``sites.GENERATORS`` names) configures in ``home``."""
    text = tree.read(config)
    from driftguard.judging.sites.jsconfig import exported  # tree-sitter, only for a site that has such a config

    data = exported(text, config) if text is not None else NotLiteral("unreadable")
    notes = [posixpath.relpath(config, home or ".")]
    if not isinstance(data, dict):
        notes.append(f"its export is not literal ({data}): the defaults")
    src = literal(data, "srcDir", ".", notes)
    source = folder_in(home, src)
    if source is None:
        notes.append(f"srcDir {src} leaves the root: .")
        src, source = ".", home
    clean = literal(data, "cleanUrls", False, notes)
    raw = setting(data, "rewrites")
    rewrites = tuple((k, v) for k, v in raw.items() if isinstance(v, str)) if isinstance(raw, dict) else ()
    if raw is not None and not isinstance(raw, dict):
        notes.append("rewrites not literal: none")
    if setting(data, "markdown", "anchor", "slugify") is not None:
        notes.append("markdown.anchor.slugify not literal: the default slugify")
    notes += [f"srcDir {src}", f"cleanUrls {str(clean).lower()}"] + ([f"rewrites {len(rewrites)}"] if rewrites else [])
    return VitePress(tree, home, source, tuple(notes), base=literal(data, "base", "/", notes),
                     clean_urls=clean, rewrites=rewrites)


def default(tree: Tree) -> VitePress:
    return VitePress(tree, "", "", ("no .vitepress/config: the defaults, the root as srcDir", "cleanUrls false"))
