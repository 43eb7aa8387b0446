"""Judge a ``references`` rule: every code span shaped as a reference must resolve.

Resolution, in order: a symbol or string literal of the rule's facts; for a
path, a file or folder (relative to the root, then to the document's folder),
a glob that matches, or a string literal of the facts' files holding it or its
base name; for a name, unless ``repository: false``, its whole occurrence in
a file of the repository outside the rule's documents, the config and the
documentation (``repository.DOCUMENTATION``).
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Callable, Iterable, Sequence
from pathlib import PurePosixPath
from typing import cast

from driftguard import languages
from driftguard.config import globs
from driftguard.config.loader import Rule
from driftguard.config.specs import ReferencesClaim
from driftguard.documents.model import Document
from driftguard.documents.references import EXTENSIONS, LOCATED, Shape, shape_of
from driftguard.judging.repository import Repository
from driftguard.model import UNRESOLVED_REFERENCE, Claim, Fact, Finding, Item, Location, NameItems, Value
from driftguard.user_regex import compile_user_regex, search_each


class Index:
    """The names a rule's facts define (first definition kept) and their string literals;
    an item is built only for a name that is looked up."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self._symbols: list[tuple[Sequence[Item], dict[str, int]]] = []
        self._literals: list[tuple[Sequence[Item], dict[str, int]]] = []
        for fact in facts:
            items = fact.items
            if isinstance(items, NameItems):
                names, labels = items.names, items.labels
            else:
                names = [str(item.value.data) for item in items]
                labels = [item.label for item in items]
            for literal, tables in ((False, self._symbols), (True, self._literals)):
                at = [i for i, label in enumerate(labels) if (label == "literal") is literal]
                # reversed, so that the first of each name is the one the dict keeps
                tables.append((items, dict(zip([names[i] for i in reversed(at)], reversed(at)))))
        self.bases = {PurePosixPath(text).name for _, table in self._literals for text in table}

    def symbol(self, name: str) -> Item | None:
        """``name`` whole, or a dotted name by its trailing parts (``chat.NewService``)."""
        parts = name.split(".")
        for i in range(len(parts)):
            found = _lookup(self._symbols, ".".join(parts[i:]))
            if found is not None:
                return found
        return None

    def literal(self, name: str) -> Item | None:
        return _lookup(self._literals, name)

    def closest(self, name: str) -> Item | None:
        names = list(dict.fromkeys(n for _, table in self._symbols for n in table))
        last = name.split(".")[-1].lower()
        holding = sorted((n for n in names if last in n.lower() and n.lower() != last), key=len)
        if holding:
            return self.symbol(holding[0])
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
        return self.symbol(close[0]) if close else None


def _lookup(tables: list[tuple[Sequence[Item], dict[str, int]]], name: str) -> Item | None:
    for items, table in tables:
        at = table.get(name)
        if at is not None:
            return items[at]
    return None


def references_claim(rule: Rule, doc: Document, top: frozenset[str]) -> Claim:
    """The reference-shaped code spans of ``doc``; ``top`` holds the repository's
    top-level names, where a path without an extension must start."""
    form = cast(ReferencesClaim, rule.claim)  # judged only for a form whose judging is REFERENCES
    spans = [c for c in doc.code_spans if shape_of(c.text, form.bare, top)]
    if form.ignore:
        where = Location(doc.path)
        for pattern in form.ignore:
            keep = search_each(compile_user_regex(pattern, where, what="ignore pattern"), [c.text for c in spans],
                               where)
            spans = [c for c, hit in zip(spans, keep) if not hit]
    items = tuple(Item(Value.string(c.text), Location(doc.path, c.line), c.span) for c in spans)
    return Claim(items, Location(doc.path))


def judge_references(rule: Rule, source: str, claim: Claim, facts: list[Fact], repository: Repository,
                     outside: Iterable[str], fact_files: Iterable[str],
                     defined_in: Callable[[str], set[str]]) -> list[Finding]:
    """A finding for each item of ``claim`` that resolves to nothing, or that a sentence
    places in a file the code does not define it in. ``defined_in`` gives the names a
    fact file defines (asked only for files a sentence names)."""
    form = cast(ReferencesClaim, rule.claim)
    index = Index(facts)
    files = tuple(fact_files)
    where_facts = ", ".join(f"`{f}`" for f in rule.facts) or "no fact"
    findings = []
    repo_names: frozenset[str] | None = None
    for item in claim.items:
        text = str(item.value.data)
        shape = shape_of(text, form.bare)
        assert shape is not None
        if shape.kind == "path":
            if not _path_resolves(shape.name, rule.doc, repository, index):
                findings.append(_finding(rule, item, f"`{text}` names no file or folder of the repository"
                                         f"{_closest_path(shape.name, repository)}"))
            continue
        found = index.symbol(shape.name) or index.literal(shape.name)
        if found is None and form.repository:
            if repo_names is None:
                repo_names = repository.names(outside)
            if shape.name in repo_names:
                continue
        if found is None:
            near = index.closest(shape.name)
            hint = f"; closest: `{near.value.data}` ({near.location})" if near else ""
            scope = f"the symbols of {where_facts}" if rule.facts else "the repository"
            findings.append(_finding(rule, item, f"`{text}` names nothing in {scope}"
                                     f"{' or elsewhere in the repository' if form.repository and rule.facts else ''}"
                                     f"{hint}"))
            continue
        placed = _placed_in(source, item)
        if placed and found.location is not None:
            wrong = _misplaced(shape, placed, found, files, defined_in)
            if wrong:
                findings.append(_finding(rule, item, wrong))
    return findings


def _finding(rule: Rule, item: Item, message: str) -> Finding:
    return Finding(UNRESOLVED_REFERENCE, rule.id, message, value=str(item.value.data), doc=item.location)


def _path_resolves(path: str, doc_path: str, repository: Repository, index: Index) -> bool:
    """A file or folder relative to the root or the document, a glob that matches, a
    string literal of the facts' files, or a path the repository holds at its end
    (``config/specs.py`` for ``driftguard/config/specs.py``, ``edits.py`` for a file of
    that name): documents name files relative to the package they describe."""
    if index.literal(path) is not None or PurePosixPath(path).name in index.bases:
        return True
    folder = posixpath.dirname(doc_path)
    for written in _module_forms(path):
        for candidate in (written, posixpath.normpath(posixpath.join(folder, written))):
            if candidate.startswith("../") or candidate == "..":
                continue
            if globs.is_glob(candidate):
                if globs.expand(repository.root, candidate, tests=True):
                    return True
            elif (repository.root / candidate).exists():
                return True
        if not globs.is_glob(written) and not written.startswith("../") and repository.holds(written.lstrip("./")):
            return True
    return False


def _module_forms(path: str) -> list[str]:
    """``path``, and for ``pkg/module.NAME`` (a module path with an attribute) the module's
    file and folder forms."""
    head, _, last = path.rpartition("/")
    stem, dot, tail = last.partition(".")
    if not dot or tail.lower() in EXTENSIONS or not stem:
        return [path]
    base = f"{head}/{stem}" if head else stem
    return [path, base, *(f"{base}{ext}" for ext in languages.extensions())]


def _closest_path(path: str, repository: Repository) -> str:
    base = PurePosixPath(path).name
    same = [f for f in repository.files if PurePosixPath(f).name == base]
    if same:
        return f"; a file of that name: `{same[0]}`"
    close = difflib.get_close_matches(path, repository.files, n=1, cutoff=0.75)
    return f"; closest: `{close[0]}`" if close else ""


def _placed_in(text: str, item: Item) -> str | None:
    """The file a sentence says the reference lives in, if it says so."""
    if item.span is None:
        return None
    m = LOCATED.match(text, item.span[1])
    if m is None:
        return None
    place = m.group("paren") or m.group("inside")
    shape = shape_of(place)
    return place if shape is not None and shape.kind == "path" else None


def _misplaced(shape: Shape, place: str, found: Item, files: tuple[str, ...],
               defined_in: Callable[[str], set[str]]) -> str | None:
    """Why ``shape`` is not where the sentence puts it, or None when it is (or cannot be told)."""
    named = [f for f in files if f == place or f.endswith("/" + place)]
    if not named:
        return None  # the facts do not read that file: nothing to judge it by
    for file in named:
        names = defined_in(file)
        if shape.name in names or any(n.endswith("." + shape.name) for n in names):
            return None
    return (f"`{shape.name}` is not defined in `{place}`; the code defines it in {found.location}")
