"""Selectors that read values: one (``constant``, ``call``, ``default``, or ``pattern``
and ``query`` with ``scalar``) or the values of every match (``calls``, ``pattern``,
``query``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.schema import Reader
from driftguard.config.selectors.base import SelectorSpec, argument, key_path, path_of, spec_of


@dataclass(frozen=True)
class Constant(SelectorSpec):
    """A scalar: the evaluated value of the constant (Go const or var, Python module or
    class assignment) ``name``; with ``keys``, the value at that key path inside the
    dict/map or keyed composite literal bound to it (``default_config["installer"]["parallel"]``)."""

    name: str
    keys: tuple[str | int, ...] = ()
    scalar = True

    @property
    def written(self) -> str:
        """The selector as the config wrote it."""
        return self.name + "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in self.keys)
    key: ClassVar[str] = "constant"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Constant:
        written = r.value(body, cls.key, str, where)
        found = key_path(written)
        if found is None:
            r.fail(body, cls.key, f"{where}.constant: expected a name, optionally followed by keys such as "
                   f"[\"installer\"] or [0], got {written!r}")
        return cls(name=found[0], keys=found[1])


@dataclass(frozen=True)
class Call(SelectorSpec):
    """A scalar: literal argument ``arg`` of the one call of ``function`` that matches.

    ``function`` matches the callee's full text (``asyncio.Semaphore``) or its last
    part (``Semaphore``); ``arg`` is a position or a keyword (``Timeout(timeout=5.0)``);
    ``path`` reads inside a literal argument (``defineConfig({server: {port: 5173}})``
    with ``path: 'server["port"]'``); ``within`` limits the search to a function or
    method (``Type.method`` or a bare name); ``where`` maps ``argN`` to the exact
    source text (whitespace folded) argument N must have.
    """

    function: str
    arg: int | str = 0  # a position from 0, or a keyword (Python) or option name
    within: str | None = None
    where: tuple[tuple[int, str], ...] = ()
    path: tuple[str | int, ...] = ()  # keys inside a literal argument: ``server["port"]``
    scalar = True
    key: ClassVar[str] = "call"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Call:
        spec = spec_of(r, body, cls.key, where, {"function"}, {"within", "where", "arg", "path"})
        at = f"{where}.{cls.key}"
        return cls(function=r.value(spec, "function", str, at), arg=argument(r, spec, at),
                   within=r.value(spec, "within", str, at, default=None), where=r.where(spec, at),
                   path=path_of(r, spec, "path", at))


@dataclass(frozen=True)
class Calls(SelectorSpec):
    """A set: literal argument ``arg`` of every call of ``function`` (matched as for
    ``Call``), optionally only inside ``within`` and where the ``where`` arguments match."""

    function: str
    arg: int | str = 0
    within: str | None = None
    where: tuple[tuple[int, str], ...] = ()
    path: tuple[str | int, ...] = ()
    scalar = False
    key: ClassVar[str] = "calls"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Calls:
        spec = spec_of(r, body, cls.key, where, {"function"}, {"within", "where", "arg", "path"})
        at = f"{where}.{cls.key}"
        return cls(function=r.value(spec, "function", str, at), arg=argument(r, spec, at),
                   within=r.value(spec, "within", str, at, default=None), where=r.where(spec, at),
                   path=path_of(r, spec, "path", at))


@dataclass(frozen=True)
class Default(SelectorSpec):
    """A scalar: the default of parameter ``param`` of function, method or constructor
    ``function`` (``Client.__init__``; a TypeScript destructured ``{ port = 5173 }`` too)."""

    function: str
    param: str
    scalar = True
    key: ClassVar[str] = "default"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Default:
        spec = spec_of(r, body, cls.key, where, {"function", "param"}, set())
        at = f"{where}.{cls.key}"
        return cls(function=r.value(spec, "function", str, at), param=r.value(spec, "param", str, at))


@dataclass(frozen=True)
class Pattern(SelectorSpec):
    """The regex fallback for any text file: the first group of every match
    (a set), or of the single match when ``scalar``."""

    regex: str
    scalar: bool = False
    key: ClassVar[str] = "pattern"
    siblings: ClassVar[frozenset[str]] = frozenset({"scalar"})


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Pattern:
        return cls(regex=r.regex(body, cls.key, where, groups=1),
                   scalar=r.value(body, "scalar", bool, where, default=False))


@dataclass(frozen=True)
class Query(SelectorSpec):
    """The text of every ``@value`` capture of a tree-sitter query over files of
    ``language`` (a string literal's contents unquoted): a set, or with ``scalar``
    the one value; with ``@name`` beside ``@value``, a map from name to value."""

    language: str
    query: str
    scalar: bool = False

    @property
    def map(self) -> bool:
        return re.search(r"@name(?![\w.-])", self.query) is not None
    key: ClassVar[str] = "query"
    siblings: ClassVar[frozenset[str]] = frozenset({"scalar"})


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Query:
        spec = spec_of(r, body, cls.key, where, {"language", "query"}, set())
        at = f"{where}.{cls.key}"
        query = r.value(spec, "query", str, at)
        if "@value" not in query:
            r.fail(spec, "query", f"{at}.query: expected a query that captures `@value`")
        return cls(language=r.value(spec, "language", str, at), query=query,
                   scalar=r.value(body, "scalar", bool, where, default=False))
