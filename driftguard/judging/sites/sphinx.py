"""Sphinx: a ``conf.py`` marks its folder as the source folder of a Sphinx project.

``conf.py`` is read with ``ast``, never run: ``extensions``, ``source_suffix``
(default ``.rst``, and ``.md`` with ``myst_parser`` or ``myst_nb``),
``html_static_path``, ``myst_heading_anchors``,
``autosectionlabel_prefix_document``, ``intersphinx_mapping`` and
``html_additional_pages`` when they are literals.

Routing: ``guide/build.rst`` is served at ``guide/build.html`` (``guide/build/`` by
the ``dirhtml`` builder; both are taken, and a relative link is joined to the
first), ``index`` is its folder's page, and a
``html_static_path`` folder is served at ``_static/``; ``genindex``, ``search``,
``py-modindex`` and each ``html_additional_pages`` name are generated pages, and
``genindex``, ``modindex``, ``py-modindex`` and ``search`` are labels of every project. Cross-references, as a
reader gives them (``documents.targets``): ``:doc:path`` names a document by its
name, relative to the current document's folder or, with a leading ``/``, to the
source folder, without its suffix; ``:ref:label`` names a label
(``.. _label:``, MyST's ``(label)=``) of any document of the project (with
``sphinx.ext.autosectionlabel``, every section title too, prefixed by the
document's name and ``:`` with ``autosectionlabel_prefix_document``), compared
lower-cased with runs of whitespace folded, as docutils normalizes names (or by
the id docutils made of it: a reStructuredText page's labels are read as ids).
A target that starts with an ``intersphinx_mapping`` name (``werkzeug:test``; any
``name:`` when the mapping is not a literal) is another project's, not checked.

Anchors: docutils' ``make_id``: lower case, a few letters with strokes spelled out
(``ø`` is ``o``, ``æ`` is ``ae``), accents and other non-ASCII dropped, every run
of what is not ``[a-z0-9]`` one ``-``, leading digits and hyphens and trailing
hyphens removed. A repeated title takes the next ``idN`` (Sphinx sets docutils'
``auto_id_prefix`` to ``id``; the counter is the page's, which footnotes and
anonymous targets share). A label's name and its ``make_id`` are anchors too;
on a MyST page with ``myst_heading_anchors``, so is MyST's slug (GitHub-like: lower
case, spaces to ``-``, what is not a word character, CJK or ``-`` dropped).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar

from driftguard.documents.slugs import numbered
from driftguard.judging.linked import MARKDOWN, MARKDOWN_ONLY, LinkedDoc
from driftguard.judging.sites.base import Linked, Located, Site, strip_suffix
from driftguard.judging.sites.configs import NotLiteral, read_config, setting
from driftguard.judging.sites.tree import Tree
from driftguard.model import DriftguardError

NAME = "sphinx"
_STROKES = str.maketrans({0x00f8: "o", 0x0111: "d", 0x0127: "h", 0x0131: "i", 0x0142: "l", 0x0167: "t", 0x0180: "b",
                          0x0183: "b", 0x0188: "c", 0x018c: "d", 0x0192: "f", 0x0199: "k", 0x019a: "l", 0x019e: "n",
                          0x01a5: "p", 0x01ab: "t", 0x01ad: "t", 0x01b4: "y", 0x01b6: "z", 0x01e5: "g", 0x0225: "z",
                          0x0234: "l", 0x0235: "n", 0x0236: "t", 0x0237: "j", 0x023c: "c", 0x023f: "s", 0x0240: "z",
                          0x0247: "e", 0x0249: "j", 0x024b: "q", 0x024d: "r", 0x024f: "y"})
_DIGRAPHS = str.maketrans({0x00df: "sz", 0x00e6: "ae", 0x0153: "oe", 0x0238: "db", 0x0239: "qp"})
_MYST_CLEAN = re.compile(r"[^\w\u4e00-\u9fff\- ]")
_INVENTORY = re.compile(r"[A-Za-z_][\w.-]*")
_GENERATED = ("genindex", "search", "py-modindex")  # the pages every HTML build writes
_STANDARD_LABELS = frozenset({"genindex", "modindex", "py-modindex", "search"})  # the standard domain's own


def make_id(text: str) -> str:
    """docutils' ``nodes.make_id``."""
    found = text.lower().translate(_DIGRAPHS).translate(_STROKES)
    found = unicodedata.normalize("NFKD", found).encode("ascii", "ignore").decode("ascii")
    found = re.sub("[^a-z0-9]+", "-", " ".join(found.split()))
    return re.sub(r"^[-0-9]+|-+$", "", found)


def myst_slug(text: str) -> str:
    """MyST's ``default_slugify`` for ``myst_heading_anchors``."""
    return _MYST_CLEAN.sub("", text.strip().lower().replace(" ", "-"))


def normalize_name(name: str) -> str:
    """docutils' ``fully_normalize_name``: lower case, whitespace folded."""
    return " ".join(name.lower().split())


@dataclass(frozen=True)
class Sphinx(Site):
    directory_urls: bool = True  # the dirhtml builder's URLs are taken too
    suffixes: tuple[str, ...] = (".rst",)
    static_folders: tuple[str, ...] = ()
    myst_anchors: bool = False
    section_labels: str = ""  # "", "title", or "document:title" (autosectionlabel, with its prefix)
    inventories: tuple[str, ...] | None = ()  # intersphinx_mapping's names; None: intersphinx on, names unknown
    extra_pages: tuple[str, ...] = ()  # html_additional_pages' names, built from templates

    name: ClassVar[str] = NAME
    pages: ClassVar[tuple[str, ...]] = (".rst", ".md", ".txt", ".ipynb")
    roles: ClassVar[frozenset[str]] = frozenset({"doc", "ref"})

    def candidates(self, path: str, folder: bool) -> list[str]:
        if path.startswith("_static/"):
            return [posixpath.join(s, path.removeprefix("_static/")) for s in self.static_folders]
        return super().candidates(path, folder)

    def reads(self, rel: str) -> bool:
        return rel.lower().endswith(MARKDOWN)  # markdown and reStructuredText: the pages driftguard reads

    def url_of(self, page: str) -> str:
        """The html builder's URL (``guide/build.html``), which relative links are written for."""
        rel = posixpath.relpath(page, self.source) if self.source else page
        return "/" + strip_suffix(rel, self.pages + MARKDOWN) + ".html"

    def routed(self, route: str) -> str | None:
        """A page Sphinx generates (the index, the search page, the module index) or one
        ``html_additional_pages`` builds: its config stands for it."""
        stem = strip_suffix(self.unbased(route).strip("/"), (".html",))
        return self.config() if stem in (*_GENERATED, *self.extra_pages) else None

    def config(self) -> str:
        return posixpath.join(self.home, "conf.py")

    def elsewhere(self, role: str, target: str) -> bool:
        """An intersphinx target (``python:library/os``, ``werkzeug:test``): another project's."""
        name, colon, _ = target.partition(":")
        if not colon or not _INVENTORY.fullmatch(name):
            return False
        return self.inventories is None or name in self.inventories

    def cross_reference(self, role: str, target: str, doc: str, linked: Linked) -> tuple[Located, str | None]:
        if role == "doc":
            name = target.strip("/") if target.startswith("/") else posixpath.join(posixpath.dirname(
                posixpath.relpath(doc, self.source) if self.source else doc), target)
            stem = self.in_source(posixpath.normpath(name))
            found = next((p for p in (stem, *(stem + s for s in self.suffixes)) if self.tree.is_file(p)), None)
            return Located(found, route=f"document {target}", near=stem + self.suffixes[0]), None
        if normalize_name(target) in _STANDARD_LABELS:
            return Located(self.config()), None
        labels = self.labels(linked)  # a label by its name, or by the id docutils made of it
        return Located(labels.get(normalize_name(target)) or labels.get(make_id(target)), route=f"label {target}"), None

    def labels(self, linked: Linked) -> dict[str, str]:
        """Every label of the project (normalized) -> the page that defines it."""
        return self.tree.workspace.cached("sphinx-labels", self.source, lambda: self._labels(linked))

    def _labels(self, linked: Linked) -> dict[str, str]:
        found: dict[str, str] = {}
        for page in self.tree.files(self.source, self.suffixes + MARKDOWN):
            if not self.reads(page):
                continue
            try:
                doc = linked(page)
            except DriftguardError:
                continue
            names = list(doc.labels) + ([] if page.lower().endswith(MARKDOWN_ONLY) else list(doc.html))
            if self.section_labels:
                prefix = strip_suffix(posixpath.relpath(page, self.source or "."), self.pages) + ":"
                names += [(prefix if self.section_labels == "document:title" else "") + t for t, _ in doc.headings]
            for name in names:
                found.setdefault(normalize_name(name), page)
        return found

    def anchors(self, doc: LinkedDoc) -> tuple[str, ...]:
        seen: dict[str, int] = {}
        found = [self.slug(text, seen) for text, _ in doc.headings]
        named = doc.html + doc.labels
        found += [*named, *(make_id(n) for n in named)]
        if self.myst_anchors and doc.path.lower().endswith(MARKDOWN_ONLY):
            myst: dict[str, int] = {}
            found += [numbered(myst_slug(text), myst) for text, _ in doc.headings]
        return tuple(found)

    def slug(self, text: str, seen: dict[str, int]) -> str:
        found = make_id(text)
        if not found or found in seen:
            counter = seen["\0id"] = seen.get("\0id", 0) + 1
            while f"id{counter}" in seen:
                counter = seen["\0id"] = counter + 1
            found = f"id{counter}"
        seen[found] = 0
        return found


def detect(tree: Tree, home: str, config: str) -> Sphinx:
    """The site ``config`` (``conf.py``, as ``sites.GENERATORS`` names it) configures in ``home``."""
    data = read_config(tree, config)
    notes = ["conf.py" if isinstance(data, dict) else "conf.py unreadable: the defaults"]
    extensions = setting(data, "extensions")
    extensions = [e for e in extensions if isinstance(e, str)] if isinstance(extensions, list) else []
    if isinstance(setting(data, "extensions"), NotLiteral):
        notes.append("extensions not literal: none")
    suffix = setting(data, "source_suffix")
    suffixes = [suffix] if isinstance(suffix, str) else list(suffix) if isinstance(suffix, (list, dict)) else [".rst"]
    if any(e in ("myst_parser", "myst_nb") for e in extensions):
        suffixes.append(".md")
    static = setting(data, "html_static_path")
    statics = [posixpath.join(home, s) for s in static if isinstance(s, str)] if isinstance(static, list) else []
    anchors = setting(data, "myst_heading_anchors")
    labels = ""
    if "sphinx.ext.autosectionlabel" in extensions:
        labels = "document:title" if setting(data, "autosectionlabel_prefix_document") is True else "title"
    notes += [f"source_suffix {' '.join(dict.fromkeys(suffixes))}"] + (["autosectionlabel"] if labels else [])
    extra = setting(data, "html_additional_pages")
    inventories: tuple[str, ...] | None = ()
    if "sphinx.ext.intersphinx" in extensions:
        mapping = setting(data, "intersphinx_mapping")
        inventories = tuple(k for k in mapping if isinstance(k, str)) if isinstance(mapping, dict) else None
        notes.append("intersphinx " + (" ".join(inventories) if inventories is not None else "not literal: any name:"))
    return Sphinx(tree, home, home, tuple(notes),
                  suffixes=tuple(dict.fromkeys(s for s in suffixes if isinstance(s, str))),
                  static_folders=tuple(statics), myst_anchors=isinstance(anchors, int) and anchors > 0,
                  section_labels=labels, inventories=inventories,
                  extra_pages=tuple(k for k in extra if isinstance(k, str)) if isinstance(extra, dict) else ())


def default(tree: Tree) -> Sphinx:
    return Sphinx(tree, "", "", ("no conf.py: the defaults, the root as the source folder",),
                  suffixes=(".rst", ".md"))
