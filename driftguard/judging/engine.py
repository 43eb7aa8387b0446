"""Judge every rule of a config: derive facts, read claims, compare.

Each source and document is read and parsed once per run (``Workspace``
caches both, failures included), and each fact is extracted once however many
rules use it. The engine never formats output; it returns a ``Result``.
Given a ``FactCache`` (``driftguard.judging.cache``), a fact or claim whose file,
spec and code are unchanged since a previous run is read back without parsing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from driftguard.config.loader import Config, FactSpec, Rule
from driftguard.config.specs import Judging
from driftguard.judging.compare import (
    compare_entries,
    compare_rows,
    compare_scalar,
    compare_set,
    error_finding,
)
from driftguard.judging.result import Result, RuleResult
from driftguard.judging.workspace import Workspace
from driftguard.model import (
    MISSING_IN_CODE,
    Claim,
    ClaimNotFound,
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

if TYPE_CHECKING:
    from driftguard.documents.model import Document
    from driftguard.judging.baseline import Key
    from driftguard.judging.cache import FactCache
    from driftguard.judging.facts import FactReader
    from driftguard.judging.linked import LinkedDoc
    from driftguard.judging.linked_set import LinkedSet
    from driftguard.judging.repository import Repository


class Engine:
    """One run over one config: caches shared by every rule."""

    def __init__(self, config: Config, cache: FactCache | None = None) -> None:
        self.config = config
        self.cache = cache  # None: nothing is read from or written to disk but the run's files
        self.workspace = Workspace(config.root, config.max_file_size, config.root_origin)
        self._known: Counter[Key] | None = None  # the baseline's entries no finding has matched yet
        self._pages: LinkedSet | None = None  # the links and anchors of every page, one cache entry

    @cached_property
    def facts(self) -> FactReader:
        """The facts' reader, made when a rule first reads a fact (a ``links`` run never does)."""
        from driftguard.judging.facts import FactReader

        return FactReader(self.workspace, self.cache)

    def fact(self, spec: FactSpec) -> Fact:
        """The fact ``spec`` names, extracted once per run; raises DriftguardError."""
        return self.facts.fact(spec)

    def declaration(self, spec: FactSpec, fact: Fact) -> tuple[Location, str] | None:
        """Where the files holding ``fact`` declare its set; parsed only when asked."""
        return self.facts.declaration(spec, fact)

    def left_out(self, spec: FactSpec) -> list[str]:
        """What the readers saw and left out of ``spec``'s fact, one line each."""
        return self.facts.left_out(spec)

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
            from driftguard.documents.formats import read_links  # a parser is imported only here

            return linked_doc(read_links(path, ws.read_text(path)))

        pages = self.pages()
        if pages is None:
            return ws.cached("linked", path, read)
        return ws.cached("linked", path, lambda: pages.linked(path, read))

    def own_links(self, path: str) -> LinkedDoc:
        """The links of ``path`` its own ``links`` rule judges: a page that can hold no link
        is parsed only if a link points into it."""
        from driftguard.judging.linked import LinkedDoc, may_link

        pages = self.pages()
        may = may_link(path, self.workspace.read_text(path)) if pages is None else pages.may_link(path)
        return self.linked(path) if may else LinkedDoc(path, (), ())

    def pages(self) -> LinkedSet | None:
        """The cache's one entry for the links and anchors of every page; None uncached."""
        from driftguard.judging.linked_set import LinkedSet

        if self._pages is None and self.cache is not None:
            self._pages = LinkedSet(self.cache, self.workspace, str(self.config.path.absolute()))
        return self._pages

    def document(self, path: str) -> Document:
        from driftguard.documents.formats import read_document  # a parser is imported only here

        ws = self.workspace
        return ws.cached("doc", path, lambda: read_document(path, ws.read_text(path)))

    def judge(self, rule: Rule) -> RuleResult:
        """``rule`` judged, once per run; findings the baseline holds are set apart as known."""
        return self.workspace.cached("judged", f"{rule.id}\0{rule.doc}", lambda: self._known_apart(self._judge(rule)))

    def _known_apart(self, result: RuleResult) -> RuleResult:
        if self.config.baseline is None or not result.findings:
            return result
        from driftguard.judging.baseline import read_baseline, split

        if self._known is None:
            self._known = read_baseline(self.config.baseline).counts()
        new, known = split(result.findings, self._known)
        return replace(result, status=_status(new), findings=tuple(new), known=tuple(known)) if known else result

    def _judge(self, rule: Rule) -> RuleResult:
        facts: dict[str, Fact] = {}
        problems: list[Finding] = []
        for name in rule.facts:
            try:
                facts[name] = self._as_judged(rule, self.config.facts[name], self.fact(self.config.facts[name]))
            except DriftguardError as exc:
                problems.append(error_finding(rule, exc, fact=name))
        if rule.claim.judging is Judging.SNIPPETS:
            return self._judge_snippets(rule)
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
        notes = claim.notes if claim is not None else ()
        return RuleResult(rule, _status(findings), tuple(findings), tuple(facts.values()), claim, notes)

    def _judge_snippets(self, rule: Rule) -> RuleResult:
        """A ``snippet`` rule: each marked block equals the code its marker names."""
        from driftguard.judging.snippets import judge_snippets

        try:
            claim = self.claim(rule)
        except DriftguardError as exc:
            findings = [error_finding(rule, exc)]
            return RuleResult(rule, _status(findings), tuple(findings), (), None)
        fact, findings = judge_snippets(rule, claim, self.workspace, self.facts.symbol_lines)
        return RuleResult(rule, _status(findings), tuple(findings), (fact,), claim)

    def _as_judged(self, rule: Rule, spec: FactSpec, fact: Fact) -> Fact:
        """A map fact as the rule judges it: one entry for ``entry:``, its entries for a
        form that reads entries, else its keys as a set."""
        from driftguard.sources import unique_items

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
        skipped: tuple[str, ...] = ()
        try:
            if rule.claim.judging is Judging.LINKS:
                from driftguard.judging.links import judge_links

                claim, found = judge_links(rule, self.own_links(rule.doc), self.workspace, self.linked)
            else:
                from driftguard.judging.references import judge_references, references_claim
                from driftguard.judging.verdict_codec import Judged

                top = self.repository().top
                text = self.workspace.read_text(rule.doc)

                def read() -> Claim:
                    from driftguard.documents.formats import read_spans  # a parser is imported only here

                    return references_claim(rule, read_spans(rule.doc, text), top)

                claim_key = (rule.claim, sorted(top))
                claim = read() if self.cache is None else self.cache.claim(rule.doc, text, claim_key, read)
                found = []
                if not problems:
                    from driftguard.judging import reference_context

                    def judge() -> Judged:
                        return judge_references(rule, text, claim, reference_context.symbol_index(self, rule, facts),
                                                reference_context.context(self, rule, facts, text))

                    key = None if self.cache is None else reference_context.verdict_key(self, rule)
                    judged = judge() if self.cache is None or key is None else \
                        self.cache.verdict(rule.doc, text, [key, claim_key], judge)
                    found, skipped = judged.findings, tuple(judged.skipped)
            if not claim.items and rule.doc == rule.doc_pattern:
                raise ClaimNotFound(f"the document no longer states it: it holds no {rule.claim.key} to check",
                                    Location(rule.doc))
            if not claim.items and self._glob_holds_none(rule):
                raise ClaimNotFound(f"the documents no longer state it: none of the documents `{rule.doc_pattern}` "
                                    f"names holds {rule.claim.key} to check", Location(rule.doc))
            findings += found
        except DriftguardError as exc:
            findings.append(error_finding(rule, exc))
        return RuleResult(rule, _status(findings), tuple(findings), tuple(facts.values()), claim, skipped)

    def _glob_holds_none(self, rule: Rule) -> bool:
        """Whether ``rule`` is the first document of a glob none of whose documents holds a
        link or reference: such a rule read nothing and is no pass (told once, on the first)."""
        siblings = self.siblings(rule)
        if not siblings or siblings[0] is not rule:
            return False
        for other in siblings[1:]:
            claim = self.judge(other).claim
            if claim is None or claim.items:  # unread (an error of its own) or holding something
                return False
        return True

    def siblings(self, rule: Rule) -> list[Rule]:
        """The rules of ``rule``'s id, in config order: one per document of a glob."""
        return self._by_id.get(rule.id, [])

    @cached_property
    def _by_id(self) -> dict[str, list[Rule]]:
        found: dict[str, list[Rule]] = {}
        for rule in self.config.rules:
            found.setdefault(rule.id, []).append(rule)
        return found

    def repository(self) -> Repository:
        """The repository's files and the names they hold, read once per run."""
        from driftguard.judging.repository import Repository  # git and the tree's names: references only

        return self.workspace.cached("repository", "", lambda: Repository(self.workspace.root,
                                                                          self.config.max_file_size, self.cache))

    def outside(self, rule: Rule) -> set[str]:
        """The documents of ``rule`` (every one its ``doc:`` names) and the config."""
        return {r.doc for r in self.siblings(rule)} | {self.config.display_path}

    def names_in(self, rule: Rule, file: str) -> set[str]:
        names: set[str] = set()
        for name in rule.facts:
            spec = self.config.facts[name]
            if file in spec.files:
                try:
                    found = self.facts.extract_file(spec, file)
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

    def run(self, rules: Iterable[Rule] | None = None) -> Result:
        chosen = self.config.rules if rules is None else tuple(rules)
        result = Result(self.config, tuple(self.judge(rule) for rule in chosen))
        if self._pages is not None:
            self._pages.save(whole=rules is None)
        return result


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

