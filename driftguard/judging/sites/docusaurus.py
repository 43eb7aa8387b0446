"""Docusaurus: ``docusaurus.config.{js,ts,mjs,mts,cjs,cts}`` in the site folder publishes
its docs (``docs``, or each docs plugin's ``path``), blog and ``src/pages``.

Routing (plugin-content-docs' ``slug.ts`` and ``numberPrefix.ts``): a doc's id is
its path without the extension, a number prefix (``01-intro``) dropped from each
part, its last part replaced by the front matter's ``id:``; its URL is the
``routeBasePath`` (default ``docs``) joined with the front matter's ``slug:`` (from
the root when it starts with ``/``, else from the doc's folder) or with that id,
and a category index (``index``, ``README`` or the folder's own name) is its
folder's URL. Versioned docs (``versioned_docs/version-x``) are served under
``/docs/x``, the latest version at ``/docs`` and the current one at ``/docs/next``
(``versions.json``). A blog post is ``/blog/<slug>`` or ``/blog/YYYY/MM/DD/<name>``;
the blog's index, tag, archive and author pages are generated. ``src/pages/x``
is ``/x``; ``static/`` is served from the root. A link to a ``.md``/``.mdx`` file
is resolved as that file; ``@site/`` names the site folder; any other link is
a URL, joined to the page's (a doc's URL has no trailing slash unless
``trailingSlash`` is true, so a category index's relative links start one
folder up).

Anchors: github-slugger, as GitHub (``documents.slugs``), and ``{#my-id}``.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from driftguard.documents.slugs import numbered, slug
from driftguard.documents.targets import resolve_path
from driftguard.judging.sites.base import Site, folder_in, strip_suffix, within
from driftguard.judging.sites.configs import literal, setting
from driftguard.judging.sites.tree import Tree

NAME = "docusaurus"
_PAGES = (".md", ".mdx")
_SCRIPT_PAGES = (".js", ".jsx", ".ts", ".tsx")
_NUMBER = re.compile(r"^(\d+)\s*[-_.]+\s*([^-_.\s].*)$")
_VERSIONISH = re.compile(r"^\d+[-_.]\d+")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_DATE = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[-/]?(.*?)(?:/index)?$")
_GENERATED = ("tags", "archive", "authors", "page")


@dataclass(frozen=True)
class Instance:
    """One content plugin: ``kind`` docs, blog or pages; root-relative ``folder``; its
    ``route`` ("/docs", "" for the root)."""

    kind: str
    folder: str
    route: str


@dataclass(frozen=True)
class Docusaurus(Site):
    instances: tuple[Instance, ...] = ()
    trailing_slash: bool = False
    static_folders: tuple[str, ...] = ()

    name: ClassVar[str] = NAME
    pages: ClassVar[tuple[str, ...]] = _PAGES

    def publishes(self, path: str) -> bool:
        return any(within(path, i.folder) for i in self.instances)

    def shown_source(self) -> str:
        return ", ".join(f"{i.folder or '.'}/ at {i.route or '/'}" for i in self.instances
                         if "versioned_docs/" not in i.folder)

    def near(self, route: str) -> str:
        docs = next((i for i in self.instances if i.kind == "docs" and within(route, i.route)), None)
        rest = route[len(docs.route):] if docs else ""
        return posixpath.join(docs.folder, rest.strip("/") + ".md") if docs and rest.strip("/") else ""

    def file_path(self, path: str, doc: str) -> str | None:
        if path.startswith("@site/"):  # from the site folder: resolved as from a file in it
            return resolve_path(posixpath.join(self.home, "docusaurus.config.js"), path.removeprefix("@site/"))
        return resolve_path(doc, path)

    def url_of(self, page: str) -> str:
        route = self.routes.get(page, "/" + page)
        return route + "/" if self.trailing_slash and not route.endswith("/") else route

    def statics(self) -> tuple[str, ...]:
        return self.static_folders

    def page_for(self, route: str, from_doc: str) -> str | None:
        path = self.unbased(route)
        key = "/" + strip_suffix(path.strip("/"), (".html",))
        if key in self.table:
            return self.table[key]
        found = next((f for f in (posixpath.join(s, path.strip("/")) for s in self.statics()) if self.tree.is_file(f)),
                     None)
        return found or self._generated(key)

    def _generated(self, key: str) -> str | None:
        """The blog folder for a route of the blog's generated pages (its index, tags, archive)."""
        for i in self.instances:
            rest = key[len(i.route):] if i.kind == "blog" and (key + "/").startswith(i.route + "/") else None
            if rest is not None and (rest in ("", "/") or rest.strip("/").split("/")[0] in _GENERATED):
                return i.folder
        return None

    @cached_property
    def routes(self) -> dict[str, str]:
        """Root-relative page -> its route."""
        found: dict[str, str] = {}
        versions = self._versions()
        for i in self.instances:
            suffixes = _PAGES + (_SCRIPT_PAGES if i.kind == "pages" else ())
            for page in self.tree.files(i.folder, suffixes):
                found.setdefault(page, self._route(i, page, versions))
        return found

    @cached_property
    def table(self) -> dict[str, str]:
        """Route -> root-relative page (the first page that claims it)."""
        table: dict[str, str] = {}
        for page, route in self.routes.items():
            table.setdefault(route.rstrip("/") or "/", page)
        return table

    def _route(self, i: Instance, page: str, versions: dict[str, str]) -> str:
        rel = posixpath.relpath(page, i.folder) if i.folder else page
        front = _front_matter(self.tree.read(page) or "")
        if i.kind == "pages":
            stem = strip_suffix(rel, _PAGES + _SCRIPT_PAGES)
            return _join(i.route, stem[:-5] if stem == "index" or stem.endswith("/index") else stem)
        if i.kind == "blog":
            given = front.get("slug")
            if given:
                return _join(i.route, given)
            m = _DATE.match(strip_suffix(rel, _PAGES))
            return _join(i.route, f"{m[1]}/{int(m[2]):02}/{int(m[3]):02}/{m[4]}" if m else strip_suffix(rel, _PAGES))
        return _join(i.route + versions.get(i.folder, ""), doc_slug(rel, front.get("slug"), front.get("id")))

    def _versions(self) -> dict[str, str]:
        """Docs folder -> the route prefix of its version ("" for the latest, "/next" for the current one)."""
        text = self.tree.read(posixpath.join(self.home, "versions.json"))
        try:
            names = [v for v in json.loads(text) if isinstance(v, str)] if text else []
        except (ValueError, TypeError, RecursionError):
            names = []
        if not names:
            return {}
        current = next((i.folder for i in self.instances if i.kind == "docs"), None)  # the preset's, first
        found: dict[str, str] = {} if current is None else {current: "/next"}
        for name in names:
            folder = posixpath.join(self.home, "versioned_docs", f"version-{name}")
            found[folder] = "" if name == names[0] else f"/{name}"
        return found

    def slug(self, text: str, seen: dict[str, int]) -> str:
        return numbered(slug(text), seen)


def doc_slug(rel: str, given: str | None, given_id: str | None) -> str:
    """A doc's slug from its path in the docs folder and its front matter's ``slug:`` and ``id:``."""
    folder, name = posixpath.split(strip_suffix(rel, _PAGES))
    parts = [strip_number(p) for p in folder.split("/")] if folder else []
    dir_slug = "/" + "/".join(parts) + "/" if parts else "/"
    if given and given.startswith("/"):
        return given
    if not given and name.lower() in ("index", "readme", *(folder.split("/")[-1:] if folder else [])):
        return dir_slug
    return posixpath.normpath(posixpath.join(dir_slug, given or given_id or strip_number(name)))


def strip_number(name: str) -> str:
    """``01-intro`` -> ``intro``; ``1.0-beta`` (a version) is kept."""
    m = _NUMBER.match(name)
    return m.group(2) if m and not _VERSIONISH.match(name) else name


def _join(base: str, path: str) -> str:
    return "/" + "/".join(p for p in (base.strip("/") + "/" + path.strip("/")).split("/") if p)


def _front_matter(text: str) -> dict[str, str]:
    m = _FRONT.match(text)
    found = {}
    for line in (m.group(1) if m else "").splitlines():
        key, colon, value = line.partition(":")
        if colon and key in ("slug", "id") and value.strip():
            found[key] = value.strip().strip("\"'")
    return found


def detect(tree: Tree, home: str, config: str) -> Docusaurus:
    """The site ``config`` (one of the files ``sites.GENERATORS`` names) configures in ``home``."""
    text = tree.read(config)
    from driftguard.judging.sites.jsconfig import exported  # tree-sitter, only for a site that has such a config

    data = exported(text, config) if text is not None else None
    notes = [posixpath.basename(config)]
    if not isinstance(data, dict):
        notes.append(f"its export is not literal ({data}): the defaults")
    instances = _instances(tree, home, data, notes)
    statics = literal(data, "staticDirectories", ["static"], notes)
    trailing = literal(data, "trailingSlash", False, notes)
    return Docusaurus(tree, home, home, tuple(notes), base=literal(data, "baseUrl", "/", notes),
                      instances=tuple(instances), trailing_slash=trailing,
                      static_folders=tuple(posixpath.join(home, s) for s in statics if isinstance(s, str)))


def default(tree: Tree) -> Docusaurus:
    return Docusaurus(tree, "", "", ("no docusaurus.config: the defaults, the root as docs with routeBasePath /",),
                      instances=(Instance("docs", "", ""),), static_folders=("static",))


def _instances(tree: Tree, home: str, data: object, notes: list[str]) -> list[Instance]:
    """The content plugins: the classic preset's docs, blog and pages, and each content plugin."""
    presets, plugins = setting(data, "presets"), setting(data, "plugins")
    options: dict[str, object] = {}
    for preset in presets if isinstance(presets, list) else []:
        name, given = (preset[0], preset[1]) if isinstance(preset, list) and len(preset) > 1 else (preset, {})
        if isinstance(name, str) and "classic" in name and isinstance(given, dict):
            options = given
    found = []
    for kind, folder, route in (("docs", "docs", "docs"), ("blog", "blog", "blog"), ("pages", "src/pages", "")):
        given = options.get(kind, {})
        if given is not False:
            found.append(_instance(home, kind, given, folder, route, notes))
    for plugin in plugins if isinstance(plugins, list) else []:
        name, given = (plugin[0], plugin[1]) if isinstance(plugin, list) and len(plugin) > 1 else (plugin, {})
        content = next((k for k in ("docs", "blog", "pages") if isinstance(name, str) and f"content-{k}" in name), None)
        if content is not None:
            defaults = {"docs": ("docs", "docs"), "blog": ("blog", "blog"), "pages": ("src/pages", "")}[content]
            found.append(_instance(home, content, given, *defaults, notes))
    versioned = posixpath.join(home, "versioned_docs")
    route = next((i.route for i in found if i.kind == "docs"), "/docs")
    found += [Instance("docs", posixpath.join(versioned, v), route) for v in tree.entries(versioned)
              if v.startswith("version-") and tree.is_folder(posixpath.join(versioned, v))]
    notes += [f"{i.kind} in {i.folder or '.'} at {i.route or '/'}" for i in found if "versioned_docs" not in i.folder]
    return found


def _instance(home: str, kind: str, given: object, folder: str, route: str, notes: list[str]) -> Instance:
    path = literal(given, "path", folder, notes)
    base = literal(given, "routeBasePath", route, notes)
    rel = folder_in(home, path)
    if rel is None:
        notes.append(f"{kind} path {path} leaves the root: {folder}")
        rel = posixpath.join(home, folder)
    return Instance(kind, rel, _join("", base) if base.strip("/") else "")
