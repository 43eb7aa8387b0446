"""What every claim form declares, with defaults (``Form``), and the enums the stages
dispatch on."""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

from driftguard.config.schema import Reader
from driftguard.model import Direction

ANY_DIRECTION = frozenset(Direction)


class Judging(Enum):
    """How the engine judges a form."""

    COMPARE = "compare"  # the claim's items against the facts': a set, a scalar or labelled rows
    REFERENCES = "references"  # every name the document holds resolves in the code or the repository
    LINKS = "links"  # every link resolves to a file, a heading or a line
    SNIPPETS = "snippets"  # every block a marker ties to code equals that code


class DocMember(Enum):
    """What the selftest adds to the document to show a set claim can fail doc-to-code."""

    ROW = "a new table row"
    BULLET = "a new bullet item"
    CODE_SPAN = "a new code span"
    HEADING = "a new heading"
    MATCH = "a new member on a copied line"
    NONE = "nothing: the form checks code-to-doc only"


class Form:
    """What every claim form declares, with the defaults of a set read from the
    document and compared with its facts both ways."""

    key: ClassVar[str]
    options: ClassVar[frozenset[str]]
    facts: ClassVar[str] = "required"  # required | optional | none
    default_direction: ClassVar[Direction] = Direction.BOTH
    directions: ClassVar[frozenset[Direction]] = ANY_DIRECTION
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

    def for_set(self) -> Form:
        """The form judging a set fact: a form that reads one value reads a list of them
        (a code span ``['.mjs', '.js']``) where it can; any other is returned as it is."""
        return self

    @property
    def within(self) -> tuple[str, str] | None:
        """``("item", LABEL)`` or ``("row", LABEL)``: the one bullet or table row read."""
        return None

    @property
    def needs_evidence(self) -> bool:
        """Whether what the form finds unresolved is reported only with evidence (a
        ``references`` rule that is not ``strict``): a selftest edit must carry some."""
        return False

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


WITHIN = ("item", "row")


def within_of(r: Reader, body: Any, key: str) -> tuple[str, str] | None:
    """``within: {item: LABEL}`` or ``within: {row: LABEL}``, or None."""
    if "within" not in body:
        return None
    spec = r.child(body, "within", f"{key}.within", optional=set(WITHIN))
    if len(spec) != 1:
        r.fail(body, "within", f"{key}.within: expected one of `item: LABEL` or `row: LABEL`")
    kind = next(iter(spec))
    return kind, r.value(spec, kind, str, f"{key}.within")


def within_config(within: tuple[str, str] | None) -> dict[str, Any]:
    return {"within": {within[0]: within[1]}} if within else {}


def present(**keys: Any) -> dict[str, Any]:
    """The keys whose value is not the default (None, False, empty)."""
    return {k: v for k, v in keys.items() if v not in (None, False, (), "")}
