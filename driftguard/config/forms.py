"""Claim forms: which part of a document states a claim, and what every stage
needs to know of it.

A claim form holds everything the other stages need (``Form`` lists it with
the defaults): its config key and options, how it is read from the config
(``from_config``) and written back (``to_config``), its default and allowed
directions, how a message names it (``describe``), how the engine judges it
(``judging``), what ``fix`` may write, and what the selftest adds to the
document to show it can fail (``doc_member``). No stage asks ``isinstance`` of
a claim form. Adding a form means one class here, listed in ``CLAIM_KEYS``,
and one reader in ``driftguard.documents.claims``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

from driftguard.config.schema import Reader
from driftguard.model import Direction, PatternError
from driftguard.user_regex import compile_user_regex

_ANY_DIRECTION = frozenset(Direction)


class Judging(Enum):
    """How the engine judges a form."""

    COMPARE = "compare"  # the claim's items against the facts': a set, a scalar or labelled rows
    REFERENCES = "references"  # every name the document holds resolves in the code or the repository
    LINKS = "links"  # every link resolves to a file, a heading or a line


class DocMember(Enum):
    """What the selftest adds to the document to show a set claim can fail doc-to-code."""

    ROW = "a new table row"
    BULLET = "a new bullet item"
    CODE_SPAN = "a new code span"
    NONE = "nothing: the form checks code-to-doc only"


class Form:
    """What every claim form declares, with the defaults of a set read from the
    document and compared with its facts both ways."""

    key: ClassVar[str]
    options: ClassVar[frozenset[str]]
    facts: ClassVar[str] = "required"  # required | optional | none
    default_direction: ClassVar[Direction] = Direction.BOTH
    directions: ClassVar[frozenset[Direction]] = _ANY_DIRECTION
    judging: ClassVar[Judging] = Judging.COMPARE
    reads_repository: ClassVar[bool] = False  # a name or link may resolve anywhere in the tree

    @property
    def scalar(self) -> bool:
        return False

    @property
    def labelled(self) -> bool:
        """Whether the form names its facts itself, one per label (``row_facts``)."""
        return False

    @property
    def row_facts(self) -> tuple[tuple[str, str], ...]:
        """(label, fact name) of a labelled form."""
        return ()

    def renamed(self, names: dict[str, str]) -> Form:
        """The form with the facts it names renamed (``old -> new``)."""
        return self

    def for_map(self) -> Form:
        """The form judging a map fact (entries keyed by name): a table reads each row's
        key cell and value cell; any other form compares the map's keys as a set."""
        return self

    @property
    def entries(self) -> bool:
        """Whether the form reads key/value entries, judged against a map fact entry by entry."""
        return False

    @property
    def member_column(self) -> tuple[str | None, int] | None:
        """For a table form: the column a new member's text goes in (named, or the default index)."""
        return self.table_column

    @property
    def scope(self) -> str | None:
        """The section heading the form reads under, if any."""
        return None

    @property
    def span_regex(self) -> str | None:
        """The regex a code span must match to be part of the claim, if any."""
        return None

    @property
    def table_column(self) -> tuple[str | None, int] | None:
        """For a table form: the column named (or None) and the index read by default."""
        return None

    @property
    def rewrites_values(self) -> bool:
        """Whether ``fix`` rewrites a stated value that differs from the code's, in place."""
        return False

    @property
    def adds_rows(self) -> bool:
        """Whether ``fix`` adds a table row for a member the document lacks."""
        return False

    @property
    def doc_member(self) -> DocMember:
        return DocMember.CODE_SPAN

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> Form:
        """The form a rule's keys describe (``body`` is the rule's mapping, ``key`` its
        key path for messages); fails through ``r`` with the key's line."""
        raise NotImplementedError

    def to_config(self) -> dict[str, Any]:
        """The rule keys that ``from_config`` reads back into this form."""
        raise NotImplementedError

    def describe(self) -> str:
        """How a message names where the document states the claim."""
        raise NotImplementedError


def _present(**keys: Any) -> dict[str, Any]:
    """The keys whose value is not the default (None, False, empty)."""
    return {k: v for k, v in keys.items() if v not in (None, False, (), "")}


@dataclass(frozen=True)
class TableClaim(Form):
    """The table whose first header cell is ``table`` (optionally inside ``section``).

    Without ``rows``: a set, the code spans of column ``column`` (default: the first),
    or a cell's plain text where it has none. With ``rows`` (label -> fact name):
    each labelled row's ``column`` cell is a quantity compared with its fact.
    """

    table: str
    column: str | None = None
    rows: tuple[tuple[str, str], ...] = ()
    section: str | None = None
    key_column: str | None = None  # ``key:``: the column a map fact's keys are read from (default: the first)
    keyed: bool = False  # judged against a map fact: set by the loader, not written in the config

    key: ClassVar[str] = "table"
    options: ClassVar[frozenset[str]] = frozenset({"table", "column", "rows", "section", "key"})

    @property
    def scalar(self) -> bool:
        return bool(self.rows)

    @property
    def labelled(self) -> bool:
        return bool(self.rows)

    @property
    def row_facts(self) -> tuple[tuple[str, str], ...]:
        return self.rows

    def renamed(self, names: dict[str, str]) -> TableClaim:
        return replace(self, rows=tuple((label, names.get(fact, fact)) for label, fact in self.rows))

    def for_map(self) -> TableClaim:
        return replace(self, keyed=True)

    @property
    def entries(self) -> bool:
        return self.keyed

    @property
    def member_column(self) -> tuple[str | None, int]:
        return (self.key_column, 0) if self.keyed else self.table_column

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def table_column(self) -> tuple[str | None, int]:
        return self.column, 1 if self.rows or self.keyed else 0

    @property
    def rewrites_values(self) -> bool:
        return bool(self.rows) or self.keyed

    @property
    def adds_rows(self) -> bool:
        return not self.rows and not self.keyed

    @property
    def doc_member(self) -> DocMember:
        return DocMember.ROW

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> TableClaim:
        rows = r.rows(body, key)
        key_column = r.value(body, "key", str, key, default=None)
        if rows and key_column:
            r.fail(body, "key", f"{key}.key: a `rows` table names its rows by label; drop `key`")
        return cls(table=r.value(body, "table", str, key), column=r.value(body, "column", str, key, default=None),
                   rows=rows, section=r.value(body, "section", str, key, default=None), key_column=key_column)

    def to_config(self) -> dict[str, Any]:
        return _present(section=self.section, table=self.table, key=self.key_column, column=self.column,
                        rows=dict(self.rows) if self.rows else None)

    def describe(self) -> str:
        column = f", column '{self.column}'" if self.column else ""
        return f"the '{self.table}' table{column}"


@dataclass(frozen=True)
class SectionClaim(Form):
    """A set: the code spans matching ``code_spans`` in the section under heading
    ``section``, or with ``list`` the items of its bullet lists."""

    section: str
    code_spans: str | None = None
    list: bool = False

    key: ClassVar[str] = "section"
    options: ClassVar[frozenset[str]] = frozenset({"section", "code_spans", "list"})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def span_regex(self) -> str | None:
        return self.code_spans

    @property
    def doc_member(self) -> DocMember:
        return DocMember.BULLET if self.list else DocMember.CODE_SPAN

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> SectionClaim:
        code_spans = r.regex(body, "code_spans", key) if "code_spans" in body else None
        as_list = r.value(body, "list", bool, key, default=False)
        if code_spans and as_list:
            r.fail(body, "list", f"{key}: use either `code_spans` or `list`, not both")
        return cls(section=r.value(body, "section", str, key), code_spans=code_spans, list=as_list)

    def to_config(self) -> dict[str, Any]:
        return {"section": self.section, **_present(code_spans=self.code_spans, list=self.list)}

    def describe(self) -> str:
        return f"section '{self.section}'"


@dataclass(frozen=True)
class PhraseClaim(Form):
    """A scalar: the quantity at ``{value}`` in every sentence matching ``template``."""

    template: str
    section: str | None = None

    key: ClassVar[str] = "phrase"
    options: ClassVar[frozenset[str]] = frozenset({"phrase", "section"})

    @property
    def scalar(self) -> bool:
        return True

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def rewrites_values(self) -> bool:
        return True

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> PhraseClaim:
        template = r.value(body, "phrase", str, key)
        if template.count("{value}") != 1:
            r.fail(body, "phrase", f"{key}.phrase: expected the template to hold `{{value}}` exactly once")
        return cls(template=template, section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        return {**_present(section=self.section), "phrase": self.template}

    def describe(self) -> str:
        return f"the sentence '{self.template}'"


@dataclass(frozen=True)
class MentionsClaim(Form):
    """A set, code-to-doc only: every fact value appears as a code span in the
    document (or in ``section``)."""

    section: str | None = None

    key: ClassVar[str] = "mentions"
    options: ClassVar[frozenset[str]] = frozenset({"mentions", "section"})
    default_direction: ClassVar[Direction] = Direction.CODE_TO_DOC
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.CODE_TO_DOC})

    @property
    def scope(self) -> str | None:
        return self.section

    @property
    def doc_member(self) -> DocMember:
        return DocMember.NONE

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> MentionsClaim:
        if r.value(body, "mentions", bool, key) is not True:
            r.fail(body, "mentions", f"{key}.mentions: expected `mentions: true`")
        return cls(section=r.value(body, "section", str, key, default=None))

    def to_config(self) -> dict[str, Any]:
        return {**_present(section=self.section), "mentions": True}

    def describe(self) -> str:
        return f"section '{self.section}'" if self.section else "the document"


@dataclass(frozen=True)
class ReferencesClaim(Form):
    """A set, doc-to-code: the code spans shaped as references (calls, dotted names,
    identifiers, paths) outside code blocks, each of which must resolve."""

    bare: bool = False  # also plain lower-case identifiers
    ignore: tuple[str, ...] = ()  # regexes for spans left alone
    repository: bool = True  # a name found anywhere in the repository outside the documents resolves

    facts: ClassVar[str] = "optional"
    key: ClassVar[str] = "references"
    options: ClassVar[frozenset[str]] = frozenset({"references"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})
    judging: ClassVar[Judging] = Judging.REFERENCES
    reads_repository: ClassVar[bool] = True

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> ReferencesClaim:
        where = f"{key}.references"
        raw = body["references"]
        if raw is True:
            return cls()
        if not isinstance(raw, dict):
            r.fail(body, "references", f"{where}: expected `references: true` or a mapping of bare, ignore, "
                   "repository")
        spec = r.mapping(raw, where, optional={"bare", "ignore", "repository"})
        ignore = r.sequence(spec, "ignore", where) if "ignore" in spec else []
        for i, pattern in enumerate(ignore):
            if not isinstance(pattern, str):
                r.fail(spec, "ignore", f"{where}.ignore[{i}]: expected a regular expression (text)")
            try:
                compile_user_regex(pattern, r.loc(spec, "ignore"))
            except PatternError as exc:
                r.fail(spec, "ignore", f"{where}.ignore[{i}]: {exc.message}")
        return cls(bare=r.value(spec, "bare", bool, where, default=False), ignore=tuple(ignore),
                   repository=r.value(spec, "repository", bool, where, default=True))

    def to_config(self) -> dict[str, Any]:
        options = _present(bare=self.bare, ignore=list(self.ignore))
        if not self.repository:
            options["repository"] = False
        return {"references": options or True}

    def describe(self) -> str:
        return "the document's references"


@dataclass(frozen=True)
class LinksClaim(Form):
    """A set, doc-to-code, without a fact: every relative link, reference-style link and
    image target (file, ``#heading`` anchor, ``#L10`` line) must exist."""

    facts: ClassVar[str] = "none"
    key: ClassVar[str] = "links"
    options: ClassVar[frozenset[str]] = frozenset({"links"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})
    judging: ClassVar[Judging] = Judging.LINKS
    reads_repository: ClassVar[bool] = True

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> LinksClaim:
        if r.value(body, "links", bool, key) is not True:
            r.fail(body, "links", f"{key}.links: expected `links: true`")
        return cls()

    def to_config(self) -> dict[str, Any]:
        return {"links": True}

    def describe(self) -> str:
        return "the document's links"


ClaimForm = Form

CLAIM_KEYS: dict[str, type[Form]] = {
    "table": TableClaim,
    "section": SectionClaim,
    "phrase": PhraseClaim,
    "mentions": MentionsClaim,
    "references": ReferencesClaim,
    "links": LinksClaim,
}
"""The registry of claim forms, by the config key that names each."""

CLAIM_OPTIONS: frozenset[str] = frozenset().union(*(form.options for form in CLAIM_KEYS.values()))
"""Every key some claim form reads from a rule."""
