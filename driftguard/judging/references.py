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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import cast

from driftguard import languages
from driftguard.config import globs
from driftguard.config.loader import Rule
from driftguard.config.specs import ReferencesClaim
from driftguard.documents.model import Document
from driftguard.documents.references import EXTENSIONS, LOCATED, Shape, shape_of
from driftguard.judging.evidence import instance_of, shape_evidence
from driftguard.judging.history import Removal
from driftguard.judging.repository import Repository
from driftguard.judging.symbol_index import Index, enough_shared, words
from driftguard.judging.verdict_codec import Judged
from driftguard.model import UNRESOLVED_REFERENCE, Claim, Finding, Item, Location, Value
from driftguard.user_regex import compile_user_regex, search_each


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


@dataclass
class Context:
    """What a ``references`` rule resolves its document's names against."""

    repository: Repository
    outside: set[str]  # the documents the rule reads and the config: never evidence
    fact_files: tuple[str, ...]
    defined_in: Callable[[str], set[str]]  # the names a fact file defines (asked only for a file a sentence names)
    documented: Callable[[], frozenset[str]] = frozenset  # names the documents define (evidence.defined_by)
    declared: frozenset[str] = frozenset()  # what a dotted name may start with (evidence.declared_heads)
    held: Callable[[list[tuple[int, str]]], set[str]] = lambda asked: set()  # history: names the code held
    removal: Callable[[str], Removal | None] = lambda name: None


def judge_references(rule: Rule, source: str, claim: Claim, index: Index, context: Context) -> Judged:
    """A finding for each item of ``claim`` that resolves to nothing and names this
    repository's code by its shape or its history (every one with ``strict``), or that a
    sentence places in a file the code does not define it in."""
    form = cast(ReferencesClaim, rule.claim)
    where_facts = ", ".join(f"`{f}`" for f in rule.facts) or "no fact"
    findings: list[Finding] = []
    unresolved: list[tuple[Item, Shape, str]] = []
    repo_names: frozenset[str] | None = None
    for item in claim.items:
        text = str(item.value.data)
        shape = shape_of(text, form.bare)
        assert shape is not None
        if shape.kind == "path":
            if not path_resolves(shape.name, rule.doc, context.repository, index):
                unresolved.append((item, shape, f"`{text}` names no file or folder of the repository"))
            continue
        found = index.symbol(shape.name) or index.literal(shape.name)
        if found is None and form.strict and _documented(shape, text, context) \
                and not shape_evidence(shape, context.declared, context.repository):
            continue  # without strict, evidence alone decides: a span that documents itself proves nothing
        if found is None and form.repository:
            if repo_names is None:
                repo_names = context.repository.names(context.outside)
            if shape.name in repo_names:
                continue
        if found is None:
            scope = f"the symbols of {where_facts}" if rule.facts else "the repository"
            unresolved.append((item, shape, f"`{text}` names nothing in {scope}"
                               f"{' or elsewhere in the repository' if form.repository and rule.facts else ''}"))
            continue
        placed = _placed_in(source, item)
        if placed and found.location is not None:
            wrong = _misplaced(shape, placed, found, context.fact_files, context.defined_in)
            if wrong:
                findings.append(_finding(rule, item, wrong))
    reported, skipped = _with_evidence(form, unresolved, context)
    findings += [_finding(rule, item, message + _hint(shape, index, context)) for item, shape, message in reported]
    return Judged(sorted(findings, key=lambda f: (f.doc.line or 0) if f.doc else 0), skipped)


def _documented(shape: Shape, text: str, context: Context) -> bool:
    """Whether the documents define ``text``, or (for a dotted name whose first part is
    neither a type or package of the code nor an instance of such a type) the option it
    sits under: ``oxc.include`` under a heading `oxc`, ``build.rolldownOptions.output.intro``
    under `build.rolldownOptions`."""
    documented = context.documented()
    if shape.name in documented or text in documented:
        return True
    parts = shape.name.split(".")
    if len(parts) < 2 or parts[0] in context.declared or instance_of(parts[0], context.declared):
        return False
    return any(".".join(parts[:n]) in documented for n in range(1, len(parts)))


def _with_evidence(form: ReferencesClaim, unresolved: list[tuple[Item, Shape, str]],
                   context: Context) -> tuple[list[tuple[Item, Shape, str]], list[str]]:
    """The unresolved items that name this repository's code (by shape, then history),
    and a note for each one left out; with ``strict`` every one is reported."""
    if form.strict:
        return unresolved, []
    reported, pending = [], []
    for entry in unresolved:
        if shape_evidence(entry[1], context.declared, context.repository):
            reported.append(entry)
        else:
            pending.append(entry)
    held = context.held([(item.location.line or 0 if item.location else 0, shape.name) for item, shape, _ in pending])
    skipped = []
    for entry in pending:
        item, shape, _ = entry
        if shape.name in held:
            reported.append(entry)
        else:
            line = item.location.line if item.location else "?"
            skipped.append(f"{line}: `{item.value.data}`: no evidence it names this repository's code (not a call, "
                           "a known package's member or a source path, and not in the code when the line was written)")
    return reported, skipped


def _hint(shape: Shape, index: Index, context: Context) -> str:
    """Where the name went: the commit that removed it and the closest name it added,
    else the closest name the code has."""
    if shape.kind == "path":
        return _closest_path(shape.name, context.repository)
    gone = context.removal(shape.name)
    if gone is not None:
        last = shape.name.split(".")[-1]
        became = [n for n in gone.added if index.symbol(n) is not None and n != last]
        best = _best(last, became)
        added = f", which added `{best}`" if best else ""
        return f"; removed in {gone.commit} ({gone.date}, '{gone.subject}'){added}"
    near = index.closest(shape.name)
    return f"; closest: `{near.value.data}` ({near.location})" if near else ""


def _best(old: str, candidates: list[str]) -> str | None:
    wanted = words(old)
    scored = [(len(set(wanted) & set(words(c))), -abs(len(c) - len(old)), c) for c in candidates
              if enough_shared(wanted, words(c))]
    return max(scored)[2] if scored else None


def _finding(rule: Rule, item: Item, message: str) -> Finding:
    return Finding(UNRESOLVED_REFERENCE, rule.id, message, value=str(item.value.data), doc=item.location)


def path_resolves(path: str, doc_path: str, repository: Repository, index: Index) -> bool:
    """A file or folder relative to the root or the document, a glob that matches, a
    string literal of the facts' files, or a path the repository holds at its end
    (``config/specs.py`` for ``driftguard/config/specs.py``, ``edits.py`` for a file of
    that name): documents name files relative to the package they describe. Nothing
    outside the root is read, stat'ed or walked: a path that climbs out of it, or runs
    through a symlink that leads out, resolves to nothing."""
    if index.literal(path) is not None or posixpath.basename(path.rstrip("/")) in index.bases:
        return True
    folder = posixpath.dirname(doc_path)
    for written in _module_forms(path):
        beside = posixpath.normpath(posixpath.join(folder, written))
        for candidate in dict.fromkeys((posixpath.normpath(written), beside)):
            if candidate.startswith(("../", "/")) or candidate == "..":
                continue
            if globs.is_glob(candidate):
                if globs.expand(repository.root, candidate, tests=True):
                    return True
            elif _inside(repository.root, candidate):
                return True
        if not globs.is_glob(written) and not written.startswith("../") and repository.holds(written.lstrip("./")):
            return True
    return False


def _inside(root: Path, relative: str) -> bool:
    """Whether ``relative`` names a file or folder under ``root`` whose every symlink stays
    under it; a link that leads out is never followed to its target."""
    here = root
    for part in PurePosixPath(relative).parts:
        here = here / part
        if here.is_symlink():
            try:
                target = here.resolve()
            except (OSError, RuntimeError):
                return False
            if not target.is_relative_to(root.resolve()):
                return False
        elif not here.exists():
            return False
    return True


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
    base = posixpath.basename(path.rstrip("/"))
    same = repository.named(base)
    if same:
        return f"; a file of that name: `{same[0]}`"
    by_base = {f.rpartition("/")[2]: f for f in reversed(repository.near(path))}
    close = difflib.get_close_matches(base, list(by_base), n=1, cutoff=0.7)
    return f"; closest: `{by_base[close[0]]}`" if close else ""


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
    if found.location is not None and found.location.path in named:
        return None  # what the name resolved to (``pkg.Name`` by ``Name``) is defined there
    for file in named:
        names = defined_in(file)
        if shape.name in names or any(n.endswith("." + shape.name) for n in names):
            return None
    return (f"`{shape.name}` is not defined in `{place}`; the code defines it in {found.location}")
