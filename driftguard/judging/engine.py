"""Judge every rule of a config: derive facts, read claims, compare.

Each source and document is read and parsed once per run (``Workspace``
caches both, failures included), and each fact is extracted once however many
rules use it. The engine never formats output; it returns a ``Result``.
Given a ``FactCache`` (``driftguard.judging.cache``), a fact or claim whose file,
spec and code are unchanged since a previous run is read back without parsing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from driftguard import languages
from driftguard.config.loader import Config, FactSpec, Rule
from driftguard.config.specs import Judging, Symbols
from driftguard.judging.compare import (
    compare_entries,
    compare_rows,
    compare_scalar,
    compare_set,
    error_finding,
    ignored,
    member_of,
)
from driftguard.judging.repository import Repository
from driftguard.judging.result import Result, RuleResult
from driftguard.judging.workspace import Workspace
from driftguard.model import (
    MISSING_IN_CODE,
    AmbiguousFact,
    Claim,
    ClaimNotFound,
    ConfigError,
    DriftguardError,
    Fact,
    FactNotFound,
    Finding,
    Item,
    Location,
    NameItems,
    Status,
    Value,
)
from driftguard.quantities import QuantityError, with_unit
from driftguard.sources import load_reader, reader_name, unique_items

if TYPE_CHECKING:
    from driftguard.documents.model import Document
    from driftguard.judging.cache import FactCache
    from driftguard.judging.linked import LinkedDoc


class Engine:
    """One run over one config: caches shared by every rule."""

    def __init__(self, config: Config, cache: FactCache | None = None) -> None:
        self.config = config
        self.cache = cache  # None: nothing is read from or written to disk but the run's files
        self.workspace = Workspace(config.root, config.max_file_size, config.root_origin)

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
            texts = [(file, ws.read_text(file)) for file in spec.files]
            items = cache.names(spec.selector, texts, lambda: self._gather(spec).items)
            return Fact(name=spec.name, items=items, scalar=False, location=_first_place(items, spec.files[0]))
        return self._gather(spec)

    def _gather(self, spec: FactSpec) -> Fact:
        ready = self._in_parallel(spec) if isinstance(spec.selector, Symbols) else {}
        found_in: list[Sequence[Item]] = []
        holders: list[str] = []
        missing: list[FactNotFound] = []
        for file in spec.files:
            try:
                found = self._extract_file(spec, file, ready.pop(file, None))
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
            items = items.unique() if isinstance(items, NameItems) else tuple(unique_items(items))
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

    def _extract_file(self, spec: FactSpec, file: str, ready: Sequence[Item] | None = None) -> Sequence[Item]:
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
            return found if isinstance(found, NameItems) else tuple(found)

        if self.cache is None:
            return extract()
        return self.cache.items(module, file, ws.read_text(file), spec.selector, extract)

    def _tree(self, module: str, file: str) -> object:
        """``file`` parsed by reader ``module``, once per run; the reader is imported
        here, so a cache hit never imports a parser."""
        reader = load_reader(module)
        return self.workspace.cached(module, file, lambda: reader.parse(file, self.workspace.read_text(file)))

    def claim(self, rule: Rule) -> Claim:
        ws = self.workspace

        def read() -> Claim:
            from driftguard.documents.claims import read_claim

            return read_claim(self.document(rule.doc), rule.claim)

        if self.cache is None:
            return read()
        return self.cache.claim(rule.doc, ws.read_text(rule.doc), rule.claim, read)

    def linked(self, path: str) -> LinkedDoc:
        """The links and anchors of markdown file ``path``, through the cache when there is one."""
        from driftguard.judging.linked import linked_doc

        ws = self.workspace

        def read() -> LinkedDoc:
            return linked_doc(self.document(path))

        if self.cache is None:
            return ws.cached("linked", path, read)
        cache = self.cache
        return ws.cached("linked", path, lambda: cache.linked(path, ws.read_text(path), read))

    def document(self, path: str) -> Document:
        from driftguard.documents.formats import read_document  # a parser is imported only here

        ws = self.workspace
        return ws.cached("doc", path, lambda: read_document(path, ws.read_text(path)))

    def judge(self, rule: Rule) -> RuleResult:
        facts: dict[str, Fact] = {}
        problems: list[Finding] = []
        for name in rule.facts:
            try:
                facts[name] = self._as_judged(rule, self.config.facts[name], self.fact(self.config.facts[name]))
            except DriftguardError as exc:
                problems.append(error_finding(rule, exc, fact=name))
        if rule.claim.judging is not Judging.COMPARE:
            return self._judge_names(rule, facts, problems)
        claim: Claim | None = None
        try:
            claim = self.claim(rule)
        except DriftguardError as exc:  # ClaimNotFound among them: error_finding words each kind
            problems.append(error_finding(rule, exc))
        findings = list(problems)
        if claim is not None:
            if rule.claim.labelled:
                findings += compare_rows(rule, facts, claim)
            elif rule.claim.entries and not problems:
                findings += compare_entries(rule, list(facts.values()), claim)
            elif not problems:
                if rule.scalar:
                    findings += compare_scalar(rule, facts[rule.facts[0]], claim)
                else:
                    findings += compare_set(rule, list(facts.values()), claim)
        if any(f.kind is MISSING_IN_CODE for f in findings):
            findings = self._anchor(rule, facts, findings)
        return RuleResult(rule, _status(findings), tuple(findings), tuple(facts.values()), claim)

    def _as_judged(self, rule: Rule, spec: FactSpec, fact: Fact) -> Fact:
        """A map fact as the rule judges it: one entry for ``entry:``, its entries for a
        form that reads entries, else its keys as a set."""
        if not spec.map or rule.claim.entries:
            return fact
        if rule.entry is None:
            keys = [Item(Value.string(item.label), item.location, label=item.label) for item in fact.items]
            return replace(fact, items=tuple(unique_items(keys)))
        wanted = rule.entry.lstrip("-")
        found = [item for item in fact.items if item.label.lstrip("-") == wanted]
        if not found:
            shown = ", ".join(item.label for item in fact.items[:20])
            raise FactNotFound(f"no entry {rule.entry!r} (its entries: {shown or 'none'})", fact.location)
        return replace(fact, items=tuple(found[:1]), scalar=True)

    def _judge_names(self, rule: Rule, facts: dict[str, Fact], problems: list[Finding]) -> RuleResult:
        """A ``references`` or ``links`` rule: every name or link of the document resolves."""
        findings = list(problems)
        claim: Claim | None = None
        try:
            if rule.claim.judging is Judging.LINKS:
                from driftguard.judging.links import judge_links

                claim, found = judge_links(rule, self.linked(rule.doc), self.workspace, self.linked)
            else:
                from driftguard.judging.references import judge_references, references_claim

                top = self.repository().top
                text = self.workspace.read_text(rule.doc)

                def read() -> Claim:
                    return references_claim(rule, self.document(rule.doc), top)

                claim = read() if self.cache is None else self.cache.claim(rule.doc, text, (rule.claim, sorted(top)),
                                                                           read)
                found = [] if problems else judge_references(
                    rule, text, claim, list(facts.values()), self.repository(), self._outside(rule),
                    [f for name in rule.facts for f in self.config.facts[name].files],
                    lambda file: self._names_in(rule, file))
            if not claim.items and rule.doc == rule.doc_pattern:
                raise ClaimNotFound(f"the document no longer states it: it holds no {rule.claim.key} to check",
                                    Location(rule.doc))
            findings += found
        except DriftguardError as exc:
            findings.append(error_finding(rule, exc))
        return RuleResult(rule, _status(findings), tuple(findings), tuple(facts.values()), claim)

    def repository(self) -> Repository:
        """The repository's files and the names they hold, read once per run."""
        return self.workspace.cached("repository", "", lambda: Repository(self.workspace.root,
                                                                          self.config.max_file_size))

    def _outside(self, rule: Rule) -> set[str]:
        """The documents of ``rule`` (every one its ``doc:`` names) and the config."""
        return {r.doc for r in self.config.rules if r.id == rule.id} | {self.config.display_path}

    def _names_in(self, rule: Rule, file: str) -> set[str]:
        names: set[str] = set()
        for name in rule.facts:
            spec = self.config.facts[name]
            if file in spec.files:
                try:
                    found = self._extract_file(spec, file)
                except DriftguardError:
                    continue
                if isinstance(found, NameItems):
                    names.update(n for n, label in zip(found.names, found.labels) if label != "literal")
                else:
                    names |= {str(i.value.data) for i in found if i.label != "literal"}
        return names

    def _anchor(self, rule: Rule, facts: dict[str, Fact], findings: list[Finding]) -> list[Finding]:
        """``missing-in-code`` findings pointed at where the code declares the set."""
        found = next((d for name in rule.facts if name in facts
                      if (d := self.declaration(self.config.facts[name], facts[name]))), None)
        if found is None:
            return findings
        where, label = found
        return [replace(f, source=where, declared=label) if f.kind is MISSING_IN_CODE else f for f in findings]

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

    def run(self, rules: Iterable[Rule] | None = None) -> Result:
        chosen = self.config.rules if rules is None else tuple(rules)
        return Result(self.config, tuple(self.judge(rule) for rule in chosen))


def _in_unit(spec: FactSpec, fact: Fact) -> Fact:
    """``fact`` with each bare number read in the spec's ``unit:``."""
    assert spec.unit is not None
    items = []
    for item in fact.items:
        try:
            items.append(replace(item, value=with_unit(item.value, spec.unit)))
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


def _status(findings: list[Finding]) -> Status:
    if any(f.is_error for f in findings):
        return Status.ERROR
    return Status.FAIL if findings else Status.PASS


def rules_touching(config: Config, paths: Iterable[str]) -> tuple[Rule, ...]:
    """The rules whose document or fact files are among ``paths`` (root-relative posix);
    the config file itself selects every rule."""
    wanted = set(paths)
    if config.display_path in wanted:
        return config.rules
    out = []
    for rule in config.rules:
        files = {rule.doc, *(file for name in rule.facts for file in config.facts[name].files)}
        if files & wanted:
            out.append(rule)
    return tuple(out)

