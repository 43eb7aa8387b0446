"""The reader protocol a language package implements whole, and its defaults.

A reader is a module (or, for a language registered at run time, any object)
with these attributes; a package takes a default from here for what its
language does not support, as pre-commit's language modules do:

- ``parse(path, text) -> tree``: raises ``ParseError`` only where nothing can
  be read at all; a tree with error nodes is returned, and ``extract`` fails
  only a fact whose target lies in an error.
- ``extract(tree, selector, path) -> Sequence[Item]``: raises
  ``FactNotFound`` when the selector matches nothing, ``AmbiguousFact`` when a
  scalar selector matches more than one thing. ``unsupported`` is the default
  for a selector the language does not have.
- ``declaration(tree, selector, path)``: where the file declares the set the
  selector reads (``(Location, "type SessionState")``), or None.
- ``skipped(tree, selector, path)``: what ``extract`` saw and left out, one
  short note each.
- ``problems(tree, path) -> list[tuple[int, str]]``: the parts of the file the
  parser could not read, ``(line, what)`` each (``(12, "`new(string(out))`
  does not parse")``); a fact read from elsewhere in the file is still read,
  and the engine prints these as warnings naming the file and line.
- ``symbol_lines(tree, name, path) -> (first, last) | None``: the lines of the
  one declaration named ``name`` (``Type.method`` for a method), for a snippet
  a document ties to it; None when there is none or more than one.
- ``add_member(text, spec, fact) -> Edit`` and ``change_scalar(text, spec,
  fact) -> Edit``: the selftest's mutations of a source file
  (``driftguard.sources.mutation``); ``NotApplicable`` where there are none.

Which files a language owns, which are tests and which libraries key its cache
are declared beside its package name in ``driftguard.languages``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from driftguard.config.specs import SELECTOR_KEYS, Selector
from driftguard.model import ConfigError, Item, Location
from driftguard.sources.mutation import Edit, NotApplicable

if TYPE_CHECKING:
    from driftguard.config.loader import FactSpec
    from driftguard.model import Fact


class Reader(Protocol):
    def parse(self, path: str, text: str) -> object: ...

    def extract(self, tree: object, selector: Selector, path: str) -> Sequence[Item]: ...

    def declaration(self, tree: object, selector: Selector, path: str) -> tuple[Location, str] | None: ...

    def skipped(self, tree: object, selector: Selector, path: str) -> list[str]: ...

    def problems(self, tree: object, path: str) -> list[tuple[int, str]]: ...

    def symbol_lines(self, tree: object, name: str, path: str) -> tuple[int, int] | None: ...

    def add_member(self, text: str, spec: FactSpec, fact: Fact) -> Edit: ...

    def change_scalar(self, text: str, spec: FactSpec, fact: Fact) -> Edit: ...


def selector_key(selector: Selector) -> str:
    """The config key that names ``selector``'s kind: ``constants``, ``map_keys``."""
    return next((k for k, kind in SELECTOR_KEYS.items() if kind is type(selector)), type(selector).__name__)


def unsupported(language: str, selector: Selector, path: str, reads: Sequence[str]) -> ConfigError:
    """The error for a selector ``language`` does not read, naming what it does read."""
    return ConfigError(f"{path}: the {language} reader does not read `{selector_key(selector)}`; it reads "
                       + ", ".join(f"`{k}`" for k in reads) + ", or use `pattern`", Location(path))


def no_declaration(tree: object, selector: Selector, path: str) -> tuple[Location, str] | None:
    return None


def nothing_skipped(tree: object, selector: Selector, path: str) -> list[str]:
    return []


def no_problems(tree: object, path: str) -> list[tuple[int, str]]:
    return []


def no_symbols(tree: object, name: str, path: str) -> tuple[int, int] | None:
    return None


def no_member(text: str, spec: FactSpec, fact: Fact) -> Edit:
    raise NotApplicable(f"the selftest cannot add a member to {spec.file}: its language has no mutator")


def no_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    raise NotApplicable(f"the selftest cannot change a value in {spec.file}: its language has no mutator")
