"""The mutations ``driftguard selftest`` applies, and the shared edit helpers.

A mutation changes one file of the selftest's temporary tree the way a real
drift would: a new member in the source, a bogus value in the document, a
scalar changed on one side. ``plan`` lists the mutations a rule must catch;
each one's ``apply`` turns the file's current text into an ``Edit``. The
language-specific edits live in ``mutations_go`` (tree-sitter-go),
``mutations_py`` (libcst and ast) and ``mutations_doc`` (markdown, and the
regex fallback for ``pattern`` facts).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Callable

from driftguard.config.loader import Config, FactSpec, Rule
from driftguard.model import Direction, Fact, Item, Kind, Location, Value
from driftguard.config.specs import SectionClaim, TableClaim
from driftguard.sources import TEXT_READER, reader_name

SELFTEST = "driftguard_selftest"
"""The bogus value a set mutation adds, in whichever case the neighbours use."""


class NotApplicable(Exception):
    """The mutation has no meaning for this rule's shape (e.g. no value matches its regex)."""


class CannotApply(Exception):
    """The mutation should apply but the selftest could not write it: a selftest failure."""


@dataclass(frozen=True)
class Edit:
    """A mutated file: its new text, what changed and where, and the spellings of the
    mutated value a finding must name (empty: read the new value from the mutated run)."""

    text: str
    what: str
    line: int | None
    expect: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mutation:
    label: str  # e.g. "code: new member (session_states)"
    side: str  # "code" | "doc"
    kind: str  # the finding kind that must name the mutated value
    path: str  # the root-relative file it changes
    apply: Callable[[str], Edit]
    fact: str | None = None  # the fact whose value changes (code side)


def plan(rule: Rule, config: Config, facts: dict[str, Fact], claim_items: tuple[Item, ...],
         claim_line: int | None) -> list[Mutation]:
    """The mutations ``rule`` must catch, given what the clean tree yields for it."""
    from driftguard.selftest import doc

    out: list[Mutation] = []
    if rule.scalar:
        for name in rule.facts:
            spec = config.facts[name]
            out.append(Mutation(f"code: value changed ({name})", "code", "value-mismatch", spec.file,
                                _bind(_change_code, spec, facts.get(name)), fact=name))
        labelled = rule.claim.labelled
        for item in claim_items if labelled else claim_items[:1]:
            label = f"doc: row '{item.label}' changed" if labelled else "doc: value changed"
            out.append(Mutation(label, "doc", "value-mismatch", rule.doc,
                                lambda text, item=item: doc.change_value(text, item)))
        return out
    if rule.direction in (Direction.BOTH, Direction.CODE_TO_DOC):
        for name in rule.facts:
            spec = config.facts[name]
            out.append(Mutation(f"code: new member ({name})", "code", "missing-in-doc", spec.file,
                                _bind(_add_code, spec, facts.get(name)), fact=name))
    if rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE):
        form = rule.claim
        if isinstance(form, TableClaim):
            label, make = "doc: new table row", lambda text: doc.add_row(text, rule, claim_line)
        elif isinstance(form, SectionClaim) and form.list:
            label, make = "doc: new bullet item", lambda text: doc.add_bullet(text, rule)
        else:
            label, make = "doc: new code span", lambda text: doc.add_code_span(text, rule)
        out.append(Mutation(label, "doc", "missing-in-code", rule.doc, make))
    return out


def _bind(action: Callable[[str, FactSpec, Fact], Edit], spec: FactSpec, fact: Fact | None) -> Callable[[str], Edit]:
    def apply(text: str) -> Edit:
        if fact is None or not fact.items:
            raise CannotApply(f"the clean run read nothing for fact '{spec.name}'")
        return action(text, spec, fact)

    return apply


_MODULES = {
    "driftguard.sources.go": "driftguard.selftest.go",
    "driftguard.sources.python": "driftguard.selftest.python",
    TEXT_READER: "driftguard.selftest.doc",
}


def _language(spec: FactSpec):  # type: ignore[no-untyped-def]
    """The mutation module for the reader that reads ``spec`` (imported lazily)."""
    return importlib.import_module(_MODULES[reader_name(spec.file, spec.selector)])


def _add_code(text: str, spec: FactSpec, fact: Fact) -> Edit:
    return _language(spec).add_member(text, spec, fact)


def _change_code(text: str, spec: FactSpec, fact: Fact) -> Edit:
    return _language(spec).change_scalar(text, spec, fact)


# -- shared helpers -------------------------------------------------------------


def newline_of(text: str) -> str:
    m = re.search(r"\r\n|\r|\n", text)
    return m.group() if m else "\n"


def line_starts(text: str) -> list[int]:
    """Character offsets where each line starts (the readers' own line breaks)."""
    return [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]


def offset_of(text: str, loc: Location, starts: list[int] | None = None) -> int:
    """The character offset of a 1-based line and column."""
    starts = starts or line_starts(text)
    if loc.line is None or not 1 <= loc.line <= len(starts):
        raise CannotApply(f"no line {loc.line} in {loc.path}")
    return starts[loc.line - 1] + max((loc.column or 1) - 1, 0)


def line_number(text: str, offset: int) -> int:
    return len(re.findall(r"\r\n?|\n", text[:offset])) + 1


def last_item(fact: Fact) -> Item:
    """The member declared last in the source."""
    placed = [i for i in fact.items if i.location is not None and i.location.line is not None]
    if not placed:
        raise CannotApply(f"fact '{fact.name}' has no source locations to add a member next to")
    return max(placed, key=lambda i: (i.location.line, i.location.column or 0))  # type: ignore[union-attr]


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def new_name(base: str, taken: set[str] | str, regex: str | None = None) -> str:
    """A fresh identifier in the style of ``base`` (``StateDone`` -> ``StateDoneSelftest``,
    ``MAX_X`` -> ``MAX_X_SELFTEST``) that the selector's name ``regex`` still matches;
    ``taken`` is the names in use (or the source text to collect them from)."""
    if isinstance(taken, str):
        taken = set(IDENTIFIER.findall(taken))
    if base.upper() == base and any(c.isalpha() for c in base):
        suffix, word = "_SELFTEST", SELFTEST.upper()
    elif "_" in base or base.islower():
        suffix, word = "_selftest", SELFTEST
    else:
        suffix, word = "Selftest", "DriftguardSelftest"
    pattern = re.compile(regex) if regex else None
    candidates = [base + suffix]
    m = pattern.search(base) if pattern is not None else None
    if m is not None and m.start() > 0:  # a suffix pattern (``ToolName$``): insert before the match
        candidates.append(base[:m.start()] + suffix + base[m.start():])
    candidates.append(word)
    for candidate in candidates:
        for n in ("", *range(2, 50)):
            name = f"{candidate}{n}"
            if name.isidentifier() and name not in taken and (pattern is None or pattern.search(name)):
                return name
    raise NotApplicable(f"no new name the selftest can build matches the name pattern /{regex}/")


def bumped(value: Value) -> Value:
    """A different amount: numbers + 1, durations doubled (a minute when zero)."""
    if value.kind is Kind.NUMBER:
        return Value(Kind.NUMBER, float(value.data) + 1)
    if value.kind is Kind.DURATION:
        seconds = float(value.data)
        return Value(Kind.DURATION, seconds * 2 if seconds else 60.0)
    raise NotApplicable(f"the value `{value}` is not a quantity")
