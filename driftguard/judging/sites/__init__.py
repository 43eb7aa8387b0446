"""The site generators a ``links`` rule resolves links as, and which one publishes a document.

Each generator is one module (``github``, ``mkdocs``, ``vitepress``, ``docusaurus``,
``hugo``, ``sphinx``) with a ``Site`` subclass (``base.py``: how a link resolves to a
page, how a heading becomes an anchor), ``detect(tree, folder)`` (the site whose
config is in that folder, or None) and ``default(tree)`` (its defaults over the
whole repository, for ``links: {site: NAME}`` where no config is found). This
list is the only place that names them; its order is the detection order.

Detection looks for a config from the document's folder up to the root, nearest
first, in each folder and in its ``website``, ``docs``, ``site``, ``documentation``
and ``doc`` sub-folders (a Docusaurus site often publishes ``../docs``); the first
site whose source folder holds the document publishes it. A document no config
publishes is rendered by GitHub, as it is read on github.com.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import NamedTuple

from driftguard.judging.sites import docusaurus, github, hugo, mkdocs, sphinx, vitepress
from driftguard.judging.sites.base import Linked, Located, Site
from driftguard.judging.sites.tree import Tree

__all__ = ["GENERATORS", "NAMES", "Linked", "Located", "Site", "Tree", "site_for"]


class Generator(NamedTuple):
    name: str
    detect: Callable[[Tree, str], Site | None]
    default: Callable[[Tree], Site]


GENERATORS = (
    Generator(mkdocs.NAME, mkdocs.detect, mkdocs.default),
    Generator(vitepress.NAME, vitepress.detect, vitepress.default),
    Generator(docusaurus.NAME, docusaurus.detect, docusaurus.default),
    Generator(hugo.NAME, hugo.detect, hugo.default),
    Generator(sphinx.NAME, sphinx.detect, sphinx.default),
    Generator(github.NAME, github.detect, github.default),
)
NAMES = tuple(g.name for g in GENERATORS)
_NEAR = ("website", "docs", "site", "documentation", "doc")


def site_for(tree: Tree, doc: str, forced: str = "") -> Site:
    """The site that publishes root-relative document ``doc``; ``forced`` names the
    generator to use instead of detecting one ("" detects)."""
    return tree.workspace.cached("site", f"{forced}\0{doc}", lambda: _find(tree, doc, forced))


def _find(tree: Tree, doc: str, forced: str) -> Site:
    for site in _configured(tree, posixpath.dirname(doc), forced):
        if site.publishes(doc):
            return site
    return next(g for g in GENERATORS if g.name == forced).default(tree) if forced else github.default(tree)


def _configured(tree: Tree, folder: str, forced: str) -> list[Site]:
    """The sites configured for the documents of ``folder``, nearest first: once per folder."""
    def find() -> list[Site]:
        generators = [g for g in GENERATORS if g.name == forced] if forced else GENERATORS
        found = (_detected(tree, generator, home) for home in _homes(tree, folder) for generator in generators)
        return [site for site in found if site is not None]

    return tree.workspace.cached("sites", f"{forced}\0{folder}", find)


def _detected(tree: Tree, generator: Generator, home: str) -> Site | None:
    """The site ``generator`` finds configured in ``home``, once per run."""
    return tree.workspace.cached("site-at", f"{generator.name}\0{home}", lambda: generator.detect(tree, home))


def _homes(tree: Tree, folder: str) -> list[str]:
    """The folders a config may sit in, nearest first."""
    found: list[str] = []
    while True:
        for home in [folder, *(posixpath.join(folder, n) for n in _NEAR)]:
            if home not in found and (home == folder or tree.is_folder(home)):
                found.append(home)
        if not folder:
            return found
        folder = posixpath.dirname(folder)
