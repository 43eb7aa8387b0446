"""The records discovery passes around: candidates, proposals, the result.

Workers build the candidate records from one file each and send them back
pickled, so they hold only strings, numbers, ``Value``s and selector specs,
never parse trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Union

from driftguard.config.specs import (
    Call,
    Constant,
    Constants,
    Default,
    Env,
    Fields,
    Flags,
    Form,
    ListOf,
    MapKeys,
    StringMethod,
)
from driftguard.model import Value

SetSelector = Union[Constants, StringMethod, MapKeys, Flags, Env, Fields, ListOf]
ScalarSelector = Union[Constant, Default, Call, Flags, Env]
"""What a scalar candidate reads: a constant (``NAME`` or ``NAME["key"]``), a parameter's
default, a call's argument, or one entry (``CodeScalar.entry``) of a map of flags or
environment variables with their defaults."""


@dataclass(frozen=True)
class CodeSet:
    """A candidate set fact: string values one selector reads from one source file."""

    file: str
    selector: SetSelector
    values: tuple[str, ...]
    line: int
    origin: str  # type | enum | string_method | prefix | suffix | map_keys | flags | env | fields | list
    label: str  # the identifier the selector names: a type, a prefix, a map
    defaults: tuple[tuple[str, Value], ...] = ()  # flags or env: each name's default, where the code gives one

    @cached_property
    def value_set(self) -> frozenset[str]:
        return frozenset(self.values)


@dataclass(frozen=True)
class CodeScalar:
    """A candidate scalar fact: a constant with its evaluated number or duration."""

    file: str
    name: str
    value: Value
    line: int
    stems: tuple[str, ...]  # the stems of the name's words
    type_name: str = ""  # the declared named type (Go), if any
    ordinal: bool = False  # one of an enum's numbered members (typed consts, a run of prefixed integers)
    spec: ScalarSelector | None = None  # what reads it, when not the constant ``name``
    option: str = ""  # the option it is the default of: a parameter, a key, a flag, a variable
    owner: str = ""  # what holds the option: a function, a class, a defaults object, a program's flags

    @property
    def selector(self) -> ScalarSelector:
        return self.spec if self.spec is not None else Constant(self.name)

    @property
    def entry(self) -> str | None:
        """The entry of a map fact (flags or env with defaults) this scalar is, if it is one."""
        return self.option if isinstance(self.spec, (Flags, Env)) else None


CodeFact = Union[CodeSet, CodeScalar]


@dataclass(frozen=True)
class TableRef:
    """How a config addresses one table: its first header cell, and a section if needed."""

    title: str
    section: str | None
    line: int


@dataclass(frozen=True)
class SetClaim:
    """A candidate set claim: a table column of code spans, or a section's code spans."""

    doc: str
    kind: str  # table | section | headings | items | block
    values: tuple[str, ...]
    line: int
    table: TableRef | None = None
    column: str | None = None  # None: the first column
    section: str | None = None  # for a section claim: its heading
    section_spans: tuple[str, ...] = ()  # every code span a section claim reads (subsections, tables)
    plain: bool = False  # a first column of plain words, not code spans
    form: Form | None = None  # the claim form that reads exactly these values (headings, items, blocks, flags)
    defaults: tuple[tuple[str, str], ...] = ()  # a table's key -> the cell of its Default column
    default_column: str | None = None


@dataclass(frozen=True)
class QuantityClaim:
    """A candidate scalar claim: a quantity in a sentence or in a table cell."""

    doc: str
    kind: str  # sentence | cell
    value: Value
    line: int
    text: str  # the sentence, or the cell
    start: int  # the quantity's span in ``text``
    end: int
    stems: frozenset[str]  # words of the sentence or the row label
    context: frozenset[str]  # words around it: headings, neighbouring sentences, table and column headers
    identifiers: frozenset[str] = frozenset()  # code-shaped tokens of the sentence or row
    sentence: int = -1  # index into DocIndex.sentences
    table: TableRef | None = None
    column: str | None = None
    label: str = ""  # the row label (first cell)
    section: str | None = None  # the innermost addressable section heading
    counted: str = ""  # the stem of the noun a bare number counts ("two blocks" -> block)
    option: str = ""  # a stated default: the option its section heading, row or sentence names
    item: str = ""  # a stated default named by its bullet: the bullet's first code span, as written


@dataclass(frozen=True)
class SentenceText:
    text: str
    offset: int  # where it starts in the document


@dataclass(frozen=True)
class SectionSpan:
    title: str
    body_start: int
    end: int
    addressable: bool  # the first section of the document with this title


@dataclass(frozen=True)
class SourceFile:
    """What a worker found in one source file."""

    path: str
    sets: tuple[CodeSet, ...]
    scalars: tuple[CodeScalar, ...]


@dataclass(frozen=True)
class DocFile:
    """What a worker found in one markdown document."""

    path: str
    set_claims: tuple[SetClaim, ...]
    quantities: tuple[QuantityClaim, ...]
    sentences: tuple[SentenceText, ...]  # sentences a phrase template could match
    sections: tuple[SectionSpan, ...]
    mentions: frozenset[str] = frozenset()  # code spans naming a source file: `internal/x/fsm.go`
    title: str = ""  # the first heading of level 1, or the front matter's title


def mentioned(file: str, mentions: frozenset[str]) -> bool:
    """Whether a document names ``file``, whole or by a trailing part of its path."""
    return any(m == file or file.endswith("/" + m.lstrip("./")) for m in mentions)


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


GENERATED = "generated code (a Code generated ... DO NOT EDIT. header); never read"


@dataclass(frozen=True)
class FactRef:
    """A fact a proposal uses: its config name and the candidate it reads."""

    name: str
    fact: CodeFact


@dataclass(frozen=True)
class Proposal:
    """One proposed rule: the claim, the facts, the confidence and the evidence."""

    id: str
    claim: Form
    doc: str
    line: int
    facts: tuple[FactRef, ...]
    confidence: float
    evidence: tuple[str, ...]
    direction: str | None = None  # for set rules
    overlap: tuple[str, ...] = ()
    doc_only: tuple[str, ...] = ()  # claimed, not in the facts
    code_only: tuple[str, ...] = ()  # in the facts, not claimed
    basis: str = ""  # which evidence bound it: "the sentence names X", "the column equals ..."
    case_insensitive: bool = False
    entry: str | None = None  # ``entry:``: the one entry of a map fact the scalar claim states
    ignore: tuple[str, ...] = ()  # ``ignore:``: members left out on both sides
    docs: tuple[str, ...] = ()  # every document the rule reads, when near-duplicates collapsed into it
    doc_key: str = ""  # how ``doc:`` names them: a glob matching exactly those documents, or "" for a list
    tier: int = 1  # where its document ranks (``documents.tier``): about the code first, dated records last
    template: str = ""  # the sentence template a scalar proposal reads by (``Draft.template``)

    @property
    def documents(self) -> tuple[str, ...]:
        """The documents the rule is judged on: one, or every near-duplicate's."""
        return self.docs or (self.doc,)


@dataclass(frozen=True)
class NearMiss:
    """A set claim and a code set that overlap but cannot be bound by a passing rule."""

    claim: SetClaim
    fact: CodeSet
    overlap: tuple[str, ...]
    doc_only: tuple[str, ...]
    code_only: tuple[str, ...]


@dataclass
class Stats:
    files: int = 0
    go_files: int = 0
    python_files: int = 0
    typescript_files: int = 0
    markdown_files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    jobs: int = 1
    skipped: list[Skipped] = field(default_factory=list)
    unscanned: dict[str, int] = field(default_factory=dict)  # files of languages discover reads nothing from
    generated: list[str] = field(default_factory=list)  # generated files, recognised and not read
    history: list[str] = field(default_factory=list)  # changelogs, release notes, history pages: never read
    phases: dict[str, float] = field(default_factory=dict)  # seconds per step: walk, scan, match, prove


@dataclass
class Discovery:
    """Everything one ``discover`` run found and proposes."""

    root: Path
    code_sets: tuple[CodeSet, ...]
    code_scalars: tuple[CodeScalar, ...]
    set_claims: tuple[SetClaim, ...]
    quantity_claims: tuple[QuantityClaim, ...]
    proposals: tuple[Proposal, ...]
    near_misses: tuple[NearMiss, ...]
    dropped: tuple[tuple[Proposal, str], ...]  # proposals the engine did not pass, and why
    stats: Stats
    suggestions: tuple[tuple[Proposal, str], ...] = ()  # passing, but selftest cannot show they can fail
    more: int = 0  # candidates past the limit, neither proven nor shown
    limit: int | None = None
    proved: bool = True  # the proposals went through selftest
