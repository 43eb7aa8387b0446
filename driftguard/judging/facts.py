"""Read every fact of a config: each file parsed once per run, each fact extracted once.

A set fact is the union of what each file declares; a scalar must be found in
exactly one file. A file that cannot be read or parsed fails the fact; one that
lacks the fact is left out unless all do. Given a ``FactCache``, a fact whose
files, selector and code are unchanged since a previous run is read back without
parsing; a ``symbols`` fact over many files is one entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from driftguard import languages, quantities
from driftguard.config.loader import FactSpec
from driftguard.config.specs import Symbols
from driftguard.judging.compare import ignored, member_of
from driftguard.judging.workspace import Workspace
from driftguard.model import (
    AmbiguousFact,
    ConfigError,
    DriftguardError,
    Fact,
    FactNotFound,
    Item,
    Location,
    NameItems,
    ParseError,
)
from driftguard.quantities import QuantityError
from driftguard.sources import load_reader, reader_name, unique_items

if TYPE_CHECKING:
    from driftguard.judging.cache import FactCache


class FactReader:
    """The facts of one run, read through one workspace and (optionally) a cache."""

    def __init__(self, workspace: Workspace, cache: FactCache | None) -> None:
        self.workspace = workspace
        self.cache = cache

    def fact(self, spec: FactSpec) -> Fact:
        """The fact ``spec`` names, extracted once per run; raises DriftguardError."""
        return self.workspace.cached("fact", spec.name, lambda: self._extract(spec))

    def _extract(self, spec: FactSpec) -> Fact:
        fact = self._extract_files(spec)
        if spec.ignore:
            fact = replace(fact, items=tuple(i for i in fact.items if not ignored(member_of(i, spec.map), spec.ignore)))
        warnings = tuple(w for file in spec.files for w in self._problems(spec, file))
        if warnings:
            fact = replace(fact, warnings=warnings)
        return _in_unit(spec, fact) if spec.unit else fact

    def _problems(self, spec: FactSpec, file: str) -> list[str]:
        """``path:line: what`` for each part of ``file`` its reader could not parse, once per
        run (and through the cache); a ``symbols`` fact is read best-effort and warns of none."""
        module = reader_name(file, spec.selector)
        lang = languages.by_key(module)
        if isinstance(spec.selector, Symbols) or lang is None or not lang.partial:
            return []

        def compute() -> list[tuple[int, str]]:
            return load_reader(module).problems(self._tree(module, file), file)

        def cached() -> list[tuple[int, str]]:
            if self.cache is None:
                return compute()
            return self.cache.problems(module, file, self.workspace.read_text(file), compute)

        try:
            found = self.workspace.cached("problems", f"{module}\0{file}", cached)
        except DriftguardError:
            return []  # the fact reports the file
        return [f"{file}:{line}: {what}" for line, what in found]

    def _extract_files(self, spec: FactSpec) -> Fact:
        """The fact over every file of ``spec``: a set is the union of what each file
        declares; a scalar must be found in exactly one. A file that cannot be read or
        parsed fails the fact; one that lacks the fact is left out unless all do."""
        if self.cache is not None and isinstance(spec.selector, Symbols) and len(spec.files) > 1:
            ws, cache = self.workspace, self.cache
            stamps = [(file, ws.stamp(file)) for file in spec.files]
            items = cache.names(spec.selector, lambda: [(file, ws.read_text(file)) for file in spec.files], stamps,
                                lambda: self._gather(spec).items)
            return Fact(name=spec.name, items=items, scalar=False, location=_first_place(items, spec.files[0]))
        return self._gather(spec)

    def _gather(self, spec: FactSpec) -> Fact:
        ready = self._in_parallel(spec) if isinstance(spec.selector, Symbols) else {}
        found_in: list[Sequence[Item]] = []
        holders: list[str] = []
        missing: list[FactNotFound] = []
        for file in spec.files:
            try:
                found = self.extract_file(spec, file, ready.pop(file, None))
            except FactNotFound as exc:
                missing.append(exc)
                continue
            if found:
                found_in.append(found)
            holders.append(file)
        items = _joined(found_in)
        if not items and not missing:
            return Fact(name=spec.name, items=(), scalar=spec.scalar, location=Location(spec.files[0]))
        if not items:
            if len(missing) == 1:
                raise missing[0]
            raise FactNotFound(f"none of the {len(spec.files)} files of `{spec.file}` holds it "
                               f"({missing[0].message})", missing[0].location)
        if spec.scalar and len(holders) > 1:
            raise AmbiguousFact(f"a scalar fact, found in {len(holders)} files: " + ", ".join(
                str(item.location or item) for item in items[:5]), items[1].location)
        if len(holders) > 1:
            if isinstance(items, NameItems):
                items = items.unique()
            elif spec.map:  # entries are one per key; two keys may share a default
                items = tuple({item.label: item for item in reversed(items)}[label] for label in
                              dict.fromkeys(item.label for item in items))
            else:
                items = tuple(unique_items(items))
        return Fact(name=spec.name, items=items, scalar=spec.scalar, location=_first_place(items, holders[0]))

    def _in_parallel(self, spec: FactSpec) -> dict[str, Sequence[Item]]:
        """The items of the files of ``spec`` the cache lacks, extracted by worker processes
        when there are enough of them (``driftguard.judging.processes``)."""
        from driftguard.judging.processes import extract_many

        texts: dict[str, str] = {}
        for file in spec.files:
            try:
                text = self.workspace.read_text(file)
            except DriftguardError:
                continue  # the serial path reports it
            if self.cache is None or not self.cache.stored_items(reader_name(file, spec.selector), file, text,
                                                                 spec.selector):
                texts[file] = text
        return extract_many(spec.selector, texts) if len(texts) > 1 else {}

    def extract_file(self, spec: FactSpec, file: str, ready: Sequence[Item] | None = None) -> Sequence[Item]:
        module = reader_name(file, spec.selector)
        ws = self.workspace

        def extract() -> Sequence[Item]:
            if ready is not None:
                return ready
            reader = load_reader(module)
            if isinstance(spec.selector, Symbols):  # read once per run: the tree is not kept
                tree = reader.parse(file, ws.read_text(file))
            else:
                tree = self._tree(module, file)
            found = reader.extract(tree, spec.selector, file)
            if not found and ws.read_text(file).strip():
                _nothing_parses(reader.problems(tree, file), file)
            return found if isinstance(found, NameItems) else tuple(found)

        if self.cache is None:
            return extract()
        return self.cache.items(module, file, ws.read_text(file), spec.selector, extract)

    def symbol_lines(self, file: str, name: str) -> tuple[int, int] | None:
        """The lines of the one declaration named ``name`` in ``file``, by its language's reader."""
        module = reader_name(file, Symbols())
        return load_reader(module).symbol_lines(self._tree(module, file), name, file)

    def _tree(self, module: str, file: str) -> object:
        """``file`` parsed by reader ``module``, once per run; the reader is imported
        here, so a cache hit never imports a parser."""
        reader = load_reader(module)
        return self.workspace.cached(module, file, lambda: reader.parse(file, self.workspace.read_text(file)))

    def declaration(self, spec: FactSpec, fact: Fact) -> tuple[Location, str] | None:
        """Where the files holding ``fact`` declare its set (a type, class, map or
        ``String`` method), preferring the type or class; parsed only when asked."""
        files = dict.fromkeys(i.location.path for i in fact.items if i.location) or dict.fromkeys(spec.files)
        fallback = None
        for file in files:
            module = reader_name(file, spec.selector)
            try:
                tree = self._tree(module, file)
            except DriftguardError:
                continue
            found = load_reader(module).declaration(tree, spec.selector, file)
            if found is not None and not found[1].startswith("const block"):
                return found
            fallback = fallback or found
        return fallback

    def left_out(self, spec: FactSpec) -> list[str]:
        """What the readers saw and left out of ``spec``'s fact (a ``String`` case that
        returns no literal), one line each, ``path: what``; parsed only when asked."""
        notes = []
        for file in spec.files:
            module = reader_name(file, spec.selector)
            try:
                tree = self._tree(module, file)
            except DriftguardError:
                continue
            notes += [f"{file}: {note}" for note in load_reader(module).skipped(tree, spec.selector, file)]
        return notes


def _in_unit(spec: FactSpec, fact: Fact) -> Fact:
    """``fact`` with each bare number read in the spec's ``unit:``."""
    assert spec.unit is not None
    items = []
    for item in fact.items:
        try:
            items.append(replace(item, value=quantities.with_unit(item.value, spec.unit)))  # the grammar: only now
        except QuantityError as exc:
            raise ConfigError(f"{exc}; drop `unit:` from fact '{spec.name}' or select a number",
                              item.location or fact.location) from None
    return replace(fact, items=tuple(items))


def _joined(parts: list[Sequence[Item]]) -> Sequence[Item]:
    """The items of every file, in file order; columns stay columns."""
    if len(parts) == 1:
        return parts[0]
    if parts and all(isinstance(p, NameItems) for p in parts):
        return NameItems.joined(cast("list[NameItems]", parts))
    return tuple(item for part in parts for item in part)


def _first_place(items: Sequence[Item], fallback: str) -> Location:
    first = items[0].location if items else None
    return first or Location(fallback)


def _nothing_parses(problems: list[tuple[int, str]], file: str) -> None:
    """A file that yields nothing and whose parser could not read it is no pass: a ``.go``
    or ``.ts`` file that is not Go or TypeScript is one error tree, with no name in it."""
    if problems:
        line, what = problems[0]
        raise ParseError(f"{file} yields nothing, and its parser could not read it (first at line {line}: {what})",
                         Location(file, line))
