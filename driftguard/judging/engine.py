"""Judge every rule of a config: derive facts, read claims, compare.

Each source and document is read and parsed once per run (``Workspace``
caches both, failures included), and each fact is extracted once however many
rules use it. The engine never formats output; it returns a ``Result``.
Given a ``FactCache`` (``driftguard.judging.cache``), a fact or claim whose file,
spec and code are unchanged since a previous run is read back without parsing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from driftguard.config.loader import Config, FactSpec, Rule
from driftguard.judging.compare import compare_rows, compare_scalar, compare_set, error_finding
from driftguard.judging.result import Result, RuleResult
from driftguard.judging.workspace import Workspace
from driftguard.model import (
    Claim,
    DriftguardError,
    Fact,
    Finding,
    Item,
    Location,
    Status,
)
from driftguard.sources import load_reader, reader_name

if TYPE_CHECKING:
    from driftguard.judging.cache import FactCache


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
        module = reader_name(spec.file, spec.selector)
        ws = self.workspace

        def extract() -> tuple[Item, ...]:
            reader = load_reader(module)  # imported here, so a cache hit never imports a parser
            tree = ws.cached(module, spec.file, lambda: reader.parse(spec.file, ws.read_text(spec.file)))
            return tuple(reader.extract(tree, spec.selector, spec.file))

        if self.cache is None:
            items = extract()
        else:
            items = self.cache.items(module, spec.file, ws.read_text(spec.file), spec.selector, extract)
        first = items[0].location if items and items[0].location else Location(spec.file)
        return Fact(name=spec.name, items=items, scalar=spec.scalar, location=first)

    def claim(self, rule: Rule) -> Claim:
        ws = self.workspace

        def read() -> Claim:
            from driftguard.documents.claims import read_claim  # markdown-it is imported only here
            from driftguard.documents.reader import parse_document

            doc = ws.cached("doc", rule.doc, lambda: parse_document(rule.doc, ws.read_text(rule.doc)))
            return read_claim(doc, rule.claim)

        if self.cache is None:
            return read()
        return self.cache.claim(rule.doc, ws.read_text(rule.doc), rule.claim, read)

    def judge(self, rule: Rule) -> RuleResult:
        facts: dict[str, Fact] = {}
        problems: list[Finding] = []
        for name in rule.facts:
            try:
                facts[name] = self.fact(self.config.facts[name])
            except DriftguardError as exc:
                problems.append(error_finding(rule, exc, fact=name))
        claim: Claim | None = None
        try:
            claim = self.claim(rule)
        except DriftguardError as exc:  # ClaimNotFound among them: error_finding words each kind
            problems.append(error_finding(rule, exc))
        findings = list(problems)
        if claim is not None:
            if rule.claim.labelled:
                findings += compare_rows(rule, facts, claim)
            elif not problems:
                if rule.scalar:
                    findings += compare_scalar(rule, facts[rule.facts[0]], claim)
                else:
                    findings += compare_set(rule, list(facts.values()), claim)
        return RuleResult(rule, _status(findings), tuple(findings), tuple(facts.values()), claim)

    def run(self, rules: Iterable[Rule] | None = None) -> Result:
        chosen = self.config.rules if rules is None else tuple(rules)
        return Result(self.config, tuple(self.judge(rule) for rule in chosen))


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
        files = {rule.doc, *(config.facts[name].file for name in rule.facts)}
        if files & wanted:
            out.append(rule)
    return tuple(out)

