"""What a ``references`` rule's judge consults, built once per run where it can be: the
symbol index of a set of facts, the names the rule's documents define, the packages and
types a dotted name may start with, and git's memory of the code (through the cache:
a warm run with unchanged documents and ``HEAD`` asks git nothing)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from driftguard.config.loader import Rule
from driftguard.judging.evidence import declared_heads, defined_by
from driftguard.judging.fingerprints import digest
from driftguard.judging.history import History, Removal
from driftguard.judging.references import Context
from driftguard.judging.symbol_index import Index
from driftguard.model import DriftguardError, Fact

if TYPE_CHECKING:
    from driftguard.judging.engine import Engine


def symbol_index(engine: Engine, rule: Rule, facts: dict[str, Fact]) -> Index:
    """One index per set of facts, however many documents the rule reads."""
    return engine.workspace.cached("symbol-index", "\0".join(rule.facts), lambda: Index(facts.values()))


def context(engine: Engine, rule: Rule, facts: dict[str, Fact], text: str) -> Context:
    ws = engine.workspace
    repository = engine.repository()
    index = symbol_index(engine, rule, facts)
    def documented() -> frozenset[str]:
        return ws.cached("documented", rule.id, lambda: _documented(engine, rule))

    declared = ws.cached("declared", "\0".join(rule.facts), lambda: declared_heads(index.names, repository))
    history: History = ws.cached("history", "", lambda: History(engine.workspace.root))

    def held(asked: list[tuple[int, str]]) -> set[str]:
        return _held(engine, history, rule.doc, text, asked)

    def removal(name: str) -> Removal | None:
        head = history.head()
        if head is None:
            return None
        cache = engine.cache
        if cache is None:
            return ws.cached("removal", name, lambda: history.removal(name))
        return ws.cached("removal", name, lambda: cache.removal(head, name, lambda: history.removal(name)))

    return Context(repository, engine.outside(rule), tuple(f for n in rule.facts for f in engine.config.facts[n].files),
                   lambda file: engine.names_in(rule, file), documented, declared, held, removal)


def verdict_key(engine: Engine, rule: Rule) -> str | None:
    """What a document's verdict depends on beyond its own text, for the cache: the rule's
    form, its facts' selectors and files by stamp, its documents by content (the names
    they define), the repository's files by stamp and git's ``HEAD``; None when a file
    cannot be read (the verdict is then judged afresh)."""
    return engine.workspace.cached("verdict-key", rule.id, lambda: _verdict_key(engine, rule))


def _verdict_key(engine: Engine, rule: Rule) -> str | None:
    cache = engine.cache
    assert cache is not None
    ws = engine.workspace
    facts = [[repr(engine.config.facts[name]), [[f, ws.stamp(f)] for f in engine.config.facts[name].files]]
             for name in rule.facts]
    if any(stamp is None for _, files in facts for _, stamp in files):
        return None
    try:
        documents = sorted([r.doc, cache.content_digest(r.doc, ws.read_text(r.doc))]
                           for r in engine.siblings(rule))
    except DriftguardError:
        return None
    history: History = ws.cached("history", "", lambda: History(ws.root))
    outside = sorted(engine.outside(rule))
    whole = [repr(rule.claim), facts, documents, outside, engine.repository().stamp(), history.head()]
    return digest(json.dumps(whole).encode("utf-8", "surrogatepass"))


def _documented(engine: Engine, rule: Rule) -> frozenset[str]:
    """The names the rule's documents define, each document's through the cache."""
    out: set[str] = set()
    for other in engine.siblings(rule):
        path = other.doc
        try:
            text = engine.workspace.read_text(path)

            def compute(path: str = path) -> list[str]:
                return sorted(defined_by([engine.document(path)]))

            out.update(compute() if engine.cache is None else engine.cache.documented(path, text, compute))
        except DriftguardError:
            continue
    return frozenset(out)


def _held(engine: Engine, history: History, doc: str, text: str, asked: list[tuple[int, str]]) -> set[str]:
    """Of the (line, name) pairs ``asked``, the names the code held at the commit that last
    changed that line of ``doc``; through the cache, keyed by ``HEAD`` and the document."""
    if not asked:
        return set()
    head = history.head()
    if head is None:
        return set()

    def compute() -> list[str]:
        commits = history.line_commits(doc)
        by_commit: dict[str, list[str]] = {}
        for line, name in asked:
            if line in commits:
                by_commit.setdefault(commits[line], []).append(name)
        return sorted({n for commit, names in by_commit.items() for n in history.code_names(commit, names)})

    if engine.cache is None:
        return set(compute())
    return set(engine.cache.held(doc, text, head, sorted(set(asked)), compute))
