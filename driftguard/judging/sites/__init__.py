"""The site generators a ``links`` rule resolves links as, and which one publishes a document.

Each generator is one module (``github``, ``mkdocs``, ``vitepress``, ``docusaurus``,
``hugo``, ``sphinx``) with a ``Site`` subclass (``base.py``: how a link resolves to a
page, how a heading becomes an anchor), ``detect(tree, home, config)`` (the site
``config`` configures in folder ``home``, or None) and ``default(tree)`` (its
defaults over the whole repository, for ``links: {site: NAME}`` where no config is
found). ``GENERATORS`` is the only place that names them, with the files that
configure each; its order is the detection order, and a generator's module is
imported only when one of its files is found (a tree with no site config imports
``github`` alone).

Detection looks for a config from the document's folder up to the root, nearest
first, in each folder and in its ``website``, ``docs``, ``site``, ``documentation``
and ``doc`` sub-folders (a Docusaurus site often publishes ``../docs``); the first
site whose source folder holds the document publishes it. A document no config
publishes is rendered by GitHub, as it is read on github.com.
"""

from __future__ import annotations

import posixpath
from importlib import import_module
from types import ModuleType
from typing import NamedTuple

from driftguard.judging.sites.base import Linked, Located, Site, first_file
from driftguard.judging.sites.tree import Tree

__all__ = ["GENERATORS", "NAMES", "Linked", "Located", "Site", "Tree", "site_for"]


class Generator(NamedTuple):
    """A site generator: its module ``driftguard.judging.sites.<name>`` and the files,
    relative to a folder, that configure it there (the first found is read)."""

    name: str
    configs: tuple[str, ...]

    def module(self) -> ModuleType:
        return import_module(f"{__name__}.{self.name}")

    def detect(self, tree: Tree, home: str) -> Site | None:
        config = first_file(tree, home, self.configs)
        found: Site | None = None if config is None else self.module().detect(tree, home, config)
        return found

    def default(self, tree: Tree) -> Site:
        made: Site = self.module().default(tree)
        return made


_SCRIPTS = ("ts", "mts", "js", "mjs", "cts", "cjs")
_HUGO = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.yml", "config.json")
GENERATORS = (
    Generator("mkdocs", ("mkdocs.yml", "mkdocs.yaml")),
    Generator("vitepress", tuple(f".vitepress/config.{ext}" for ext in _SCRIPTS)),
    Generator("docusaurus", tuple(f"docusaurus.config.{ext}" for ext in ("ts", "js", "mts", "mjs", "cts", "cjs"))),
    Generator("hugo", (*_HUGO, *(f"config/_default/{name}" for name in _HUGO))),
    Generator("sphinx", ("conf.py",)),
    Generator("github", ()),  # never detected: the fallback
)
NAMES = tuple(g.name for g in GENERATORS)
_GITHUB = GENERATORS[-1]
_NEAR = ("website", "docs", "site", "documentation", "doc")


def site_for(tree: Tree, doc: str, forced: str = "") -> Site:
    """The site that publishes root-relative document ``doc``; ``forced`` names the
    generator to use instead of detecting one ("" detects)."""
    return tree.workspace.cached("site", f"{forced}\0{doc}", lambda: _find(tree, doc, forced))


def _find(tree: Tree, doc: str, forced: str) -> Site:
    for site in _configured(tree, posixpath.dirname(doc), forced):
        if site.publishes(doc):
            return site
    generator = next(g for g in GENERATORS if g.name == forced) if forced else _GITHUB
    return tree.workspace.cached("site-default", generator.name, lambda: generator.default(tree))


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
            if home not in found and (home == folder or tree.may_hold(folder, posixpath.basename(home))
                                      and tree.is_folder(home)):
                found.append(home)
        if not folder:
            return found
        folder = posixpath.dirname(folder)
