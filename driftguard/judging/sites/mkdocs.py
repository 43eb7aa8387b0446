"""mkdocs: ``mkdocs.yml`` (or ``mkdocs.yaml``) in the project folder publishes ``docs_dir``.

Routing (mkdocs' ``structure/files.py`` and ``pages.py``): ``guide/build.md`` is
served at ``guide/build/`` when ``use_directory_urls`` is true (the default), at
``guide/build.html`` otherwise; ``index.md`` and ``README.md`` are their folder's
page. Every other file of ``docs_dir`` is served at its own path. A relative link
to a file is rewritten to that file's URL; any other relative link is left to the
browser, which joins it to the page's URL, so on a directory-URL site
``../basics/#staleness`` written in ``guide/build.md`` names ``guide/basics.md``.

Anchors (Python-Markdown's ``toc`` extension): ``slugify(value, separator)`` makes
the text ASCII (NFKD, non-ASCII dropped), removes what is not a word character,
space or hyphen, strips, lower-cases and turns each run of spaces and hyphens into
the separator: "@ modifier" is ``modifier``. A repeat becomes ``x_1``, ``x_2``
(``unique``: the first free ``_N``). The toc's ``slugify`` may name
``markdown.extensions.toc.slugify_unicode`` or pymdownx's ``slugs`` (``uslugify``,
``gfm``, ``slugify(case=..., percent_encode=..., normalize=...)``): each is read
from the YAML tag that names it. ``{#id}`` and ``{: #id}`` give an id with the
``attr_list`` extension only.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar, Literal
from urllib.parse import quote

from driftguard.judging.linked import LinkedDoc
from driftguard.judging.sites.base import Site, folder_in, heading_id
from driftguard.judging.sites.configs import Tagged, read_config, setting
from driftguard.judging.sites.tree import Tree

NAME = "mkdocs"
_IDCOUNT = re.compile(r"^(.*)_([0-9]+)$")
_TAGS = re.compile(r"</?[^>]*>")
_FORMS: tuple[Literal["NFC"], Literal["NFD"], Literal["NFKC"], Literal["NFKD"]] = ("NFC", "NFD", "NFKC", "NFKD")
_PYMDOWNX = {  # the named pymdownx.slugs functions: (case, percent_encode)
    "uslugify": ("lower", False), "uslugify_encoded": ("lower", True), "uslugify_cased": ("none", False),
    "uslugify_cased_encoded": ("none", True), "gfm": ("lower-ascii", False), "gfm_encoded": ("lower-ascii", True)}


def toc_slug(value: str, separator: str = "-", unicode: bool = False) -> str:
    """Python-Markdown's ``toc.slugify`` (``slugify_unicode`` with ``unicode``)."""
    if not unicode:
        value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(rf"[{re.escape(separator)}\s]+", separator, value)


def pymdownx_slug(text: str, separator: str = "-", case: str = "none", percent_encode: bool = False,
                  normalize: str = "NFC") -> str:
    """pymdownx's ``slugs.slugify(...)``: tags removed, normalized, stripped, cased, what is
    not a word character, hyphen or space removed, each space the separator."""
    form = next(f for f in _FORMS if f == normalize)  # one of unicodedata's literal form names
    slug = _TAGS.sub("", unicodedata.normalize(form, text)).strip()
    if case == "lower":
        slug = slug.lower()
    elif case == "lower-ascii":
        slug = re.sub(r"[A-Z]", lambda m: m.group(0).lower(), slug)
    elif case == "fold":
        slug = slug.casefold()
    slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", separator)
    return quote(slug.encode("utf-8")) if percent_encode else slug


def unique(found: str, seen: dict[str, int]) -> str:
    """Python-Markdown's ``unique``: ``x``, else ``x_1``, ``x_2``... (an empty id is ``_1``)."""
    while found in seen or not found:
        m = _IDCOUNT.match(found)
        found = f"{m.group(1)}_{int(m.group(2)) + 1}" if m else f"{found}_1"
    seen[found] = 0
    return found


@dataclass(frozen=True)
class MkDocs(Site):
    directory_urls: bool = True
    separator: str = "-"
    slugify: tuple[str, str, bool, str] = ("toc", "none", False, "NFC")  # (kind, case, percent, normal)
    attr_list: bool = False

    name: ClassVar[str] = NAME
    indexes: ClassVar[tuple[str, ...]] = ("index", "README")

    def url_of(self, page: str) -> str:
        rel = posixpath.relpath(page, self.source) if self.source else page
        stem = rel[:-3] if rel.lower().endswith(".md") else rel
        folder, name = posixpath.split(stem)
        if name in self.indexes:
            return "/" + (folder + "/" if folder else "")
        return "/" + stem + ("/" if self.directory_urls else ".html")

    def anchors(self, doc: LinkedDoc) -> tuple[str, ...]:
        """toc keeps every id the page already has and makes the others unique among them."""
        split = [self.custom_id(text) for text, _ in doc.headings]
        seen = dict.fromkeys([*doc.html, *(given for _, given in split if given)], 0)
        return tuple(given or self.slug(text, seen) for text, given in split) + doc.html + doc.labels

    def custom_id(self, text: str) -> tuple[str, str | None]:
        return heading_id(text) if self.attr_list else (text, None)

    def slug(self, text: str, seen: dict[str, int]) -> str:
        kind, case, percent, normal = self.slugify
        if kind == "toc":
            found = toc_slug(text, self.separator, unicode=case == "unicode")
        else:
            found = pymdownx_slug(text, self.separator, case, percent, normal)
        return unique(found, seen)


def detect(tree: Tree, home: str, config: str) -> MkDocs:
    """The site ``config`` (one of the files ``sites.GENERATORS`` names) configures in ``home``."""
    data = read_config(tree, config)
    notes = [posixpath.basename(config) if isinstance(data, dict) else f"{config} unreadable: the defaults"]
    docs_dir = setting(data, "docs_dir")
    if docs_dir is not None and not isinstance(docs_dir, str):
        notes.append("docs_dir not literal: docs")
    if not isinstance(docs_dir, str):
        docs_dir = "docs"
    source = folder_in(home, docs_dir)
    if source is None:
        notes.append(f"docs_dir {docs_dir} leaves the root: docs")
        docs_dir, source = "docs", posixpath.join(home, "docs")
    directory = setting(data, "use_directory_urls")
    directory = directory if isinstance(directory, bool) else True
    notes += [f"docs_dir {docs_dir}", f"use_directory_urls {str(directory).lower()}"]
    separator, slugify, attr_list = _toc(data, notes)
    return MkDocs(tree, home, source, tuple(notes), directory_urls=directory,
                  separator=separator, slugify=slugify, attr_list=attr_list)


def default(tree: Tree) -> MkDocs:
    return MkDocs(tree, "", "", ("no mkdocs.yml: the defaults, the root as docs_dir", "use_directory_urls true"))


def _toc(data: object, notes: list[str]) -> tuple[str, tuple[str, str, bool, str], bool]:
    """The toc extension's separator and slugify, and whether ``attr_list`` is on."""
    extensions = setting(data, "markdown_extensions")
    options: dict[str, object] = {}
    names = []
    for entry in extensions if isinstance(extensions, list) else []:
        name, config = (entry, None) if isinstance(entry, str) else next(iter(entry.items()), (None, None)) \
            if isinstance(entry, dict) else (None, None)
        if isinstance(name, str):
            names.append(name.removeprefix("markdown.extensions."))
            if names[-1] == "toc" and isinstance(config, dict):
                options = config
    separator = options.get("separator", "-")
    separator = separator if isinstance(separator, str) else "-"
    if "permalink" in options:
        shown = options["permalink"]
        notes.append(f"toc permalink {str(shown).lower() if isinstance(shown, bool) else shown}")  # added after the id
    slugify = _slugify(options.get("slugify"), notes)
    return separator, slugify, "attr_list" in names


def _slugify(given: object, notes: list[str]) -> tuple[str, str, bool, str]:
    if given is None:
        return "toc", "none", False, "NFC"
    if isinstance(given, Tagged):
        tag, value = given.tag, given.value
        function = tag.split(":", 1)[1] if ":" in tag else ""
        if tag.startswith("python/name:"):
            if function == "markdown.extensions.toc.slugify_unicode":
                notes.append("toc slugify slugify_unicode")
                return "toc", "unicode", False, "NFC"
            if function == "markdown.extensions.toc.slugify":
                return "toc", "none", False, "NFC"
            short = function.removeprefix("pymdownx.slugs.")
            if short in _PYMDOWNX:
                notes.append(f"toc slugify pymdownx {short}")
                case, percent = _PYMDOWNX[short]
                return "pymdownx", case, percent, "NFC"
        if tag.startswith("python/object/apply:") and function == "pymdownx.slugs.slugify":
            kwds = setting(value, "kwds") if isinstance(value, dict) else None
            kwds = kwds if isinstance(kwds, dict) else {}
            case, percent = kwds.get("case", "none"), kwds.get("percent_encode", False)
            normal = kwds.get("normalize", "NFC")
            if case in ("none", "lower", "lower-ascii", "fold") and isinstance(percent, bool) and normal in (
                    "NFC", "NFD", "NFKC", "NFKD"):
                notes.append(f"toc slugify pymdownx slugify(case={case})")
                return "pymdownx", str(case), percent, str(normal)
    notes.append("toc slugify not known: the default")
    return "toc", "none", False, "NFC"
