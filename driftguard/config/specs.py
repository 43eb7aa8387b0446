"""Fact selectors and claim forms: the frozen specs the config builds.

A selector says which values to derive from one source file; a claim form says
which part of a document states them. Each spec carries ``scalar``: whether it
yields one value (compared with equal semantics) or a set.

A claim form holds everything the other stages need to know of it: its config
key and options, how it is read from the config (``from_config``), its default
and allowed directions, and how a message names it (``describe``). Adding a
form means one class here, listed in ``CLAIM_KEYS``, and one reader in
``driftguard.documents.claims``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from driftguard.config.schema import Reader
from driftguard.model import Direction, PatternError
from driftguard.user_regex import compile_user_regex

_ANY_DIRECTION = frozenset(Direction)


# -- fact selectors ---------------------------------------------------------


@dataclass(frozen=True)
class Constants:
    """A set: constants declared with ``type`` (Go) / members of Enum class ``type`` (Python),
    or whose name matches the regex ``name``. ``values="names"`` takes names instead of values."""

    type: str | None = None
    name: str | None = None
    values: str = "values"  # "values" | "names"
    scalar = False


@dataclass(frozen=True)
class Constant:
    """A scalar: the evaluated value of the constant (Go const or var, Python module or
    class assignment) ``name``; with ``keys``, the value at that key path inside the
    dict/map or keyed composite literal bound to it (``default_config["installer"]["parallel"]``)."""

    name: str
    keys: tuple[str | int, ...] = ()
    scalar = True

    @property
    def written(self) -> str:
        """The selector as the config wrote it."""
        return self.name + "".join(f"[{k!r}]" if isinstance(k, str) else f"[{k}]" for k in self.keys)


@dataclass(frozen=True)
class StringMethod:
    """A set: the strings returned by the cases of ``func (T) String() string`` (Go) or
    ``T.__str__`` (Python); the default case, and a case that returns no literal (the
    sentinel ``case lastState: return fmt.Sprintf(...)``), are left out."""

    type: str
    scalar = False


@dataclass(frozen=True)
class MapKeys:
    """A set: the keys of the map/dict literal bound to ``name``; identifier keys give
    names, or with ``resolve`` the values of the constants they name."""

    name: str
    resolve: bool = False
    within: str | None = None  # a function or method (``Type.method``) the literal is bound inside
    scalar = False


@dataclass(frozen=True)
class Call:
    """A scalar: literal argument ``arg`` of the one call of ``function`` that matches.

    ``function`` matches the callee's full text (``asyncio.Semaphore``) or its last
    part (``Semaphore``); ``within`` limits the search to a function or method
    (``Type.method`` or a bare name); ``where`` maps ``argN`` to the exact source
    text (whitespace folded) argument N must have.
    """

    function: str
    arg: int = 0
    within: str | None = None
    where: tuple[tuple[int, str], ...] = ()
    scalar = True


@dataclass(frozen=True)
class Calls:
    """A set: literal argument ``arg`` of every call of ``function`` (matched as for
    ``Call``), optionally only inside ``within`` and where the ``where`` arguments match."""

    function: str
    arg: int = 0
    within: str | None = None
    where: tuple[tuple[int, str], ...] = ()
    scalar = False


@dataclass(frozen=True)
class Symbols:
    """A set: every name the files define (functions, types, constants, variables,
    ``Type.method``, fields and their tags, enum members), with the string literals
    of those files as items labelled ``literal``."""

    scalar = False


@dataclass(frozen=True)
class Pattern:
    """The regex fallback for any text file: the first group of every match
    (a set), or of the single match when ``scalar``."""

    regex: str
    scalar: bool = False


Selector = Union[Constants, Constant, StringMethod, MapKeys, Call, Calls, Symbols, Pattern]

SELECTOR_KEYS: dict[str, type] = {
    "constants": Constants,
    "constant": Constant,
    "string_method": StringMethod,
    "map_keys": MapKeys,
    "call": Call,
    "calls": Calls,
    "symbols": Symbols,
    "pattern": Pattern,
}
"""The registry of fact selectors, by config key."""


# -- claim forms ------------------------------------------------------------


@dataclass(frozen=True)
class TableClaim:
    """The table whose first header cell is ``table`` (optionally inside ``section``).

    Without ``rows``: a set, the code spans of column ``column`` (default: the first),
    or a cell's plain text where it has none. With ``rows`` (label -> fact name):
    each labelled row's ``column`` cell is a quantity compared with its fact.
    """

    table: str
    column: str | None = None
    rows: tuple[tuple[str, str], ...] = ()
    section: str | None = None

    facts: ClassVar[str] = "required"  # required | optional | none
    key: ClassVar[str] = "table"
    options: ClassVar[frozenset[str]] = frozenset({"table", "column", "rows", "section"})
    default_direction: ClassVar[Direction] = Direction.BOTH
    directions: ClassVar[frozenset[Direction]] = _ANY_DIRECTION

    @property
    def scalar(self) -> bool:
        return bool(self.rows)

    @property
    def labelled(self) -> bool:
        """Whether the form names its facts itself, one per row label."""
        return bool(self.rows)

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> TableClaim:
        return cls(table=r.value(body, "table", str, key), column=r.value(body, "column", str, key, default=None),
                   rows=r.rows(body, key), section=r.value(body, "section", str, key, default=None))

    def describe(self) -> str:
        column = f", column '{self.column}'" if self.column else ""
        return f"the '{self.table}' table{column}"


@dataclass(frozen=True)
class SectionClaim:
    """A set: the code spans matching ``code_spans`` in the section under heading
    ``section``, or with ``list`` the items of its bullet lists."""

    section: str
    code_spans: str | None = None
    list: bool = False
    scalar = False
    labelled = False

    facts: ClassVar[str] = "required"
    key: ClassVar[str] = "section"
    options: ClassVar[frozenset[str]] = frozenset({"section", "code_spans", "list"})
    default_direction: ClassVar[Direction] = Direction.BOTH
    directions: ClassVar[frozenset[Direction]] = _ANY_DIRECTION

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> SectionClaim:
        code_spans = r.regex(body, "code_spans", key) if "code_spans" in body else None
        as_list = r.value(body, "list", bool, key, default=False)
        if code_spans and as_list:
            r.fail(body, "list", f"{key}: use either `code_spans` or `list`, not both")
        return cls(section=r.value(body, "section", str, key), code_spans=code_spans, list=as_list)

    def describe(self) -> str:
        return f"section '{self.section}'"


@dataclass(frozen=True)
class PhraseClaim:
    """A scalar: the quantity at ``{value}`` in every sentence matching ``template``."""

    template: str
    section: str | None = None
    scalar = True
    labelled = False

    facts: ClassVar[str] = "required"
    key: ClassVar[str] = "phrase"
    options: ClassVar[frozenset[str]] = frozenset({"phrase", "section"})
    default_direction: ClassVar[Direction] = Direction.BOTH
    directions: ClassVar[frozenset[Direction]] = _ANY_DIRECTION

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> PhraseClaim:
        template = r.value(body, "phrase", str, key)
        if template.count("{value}") != 1:
            r.fail(body, "phrase", f"{key}.phrase: expected the template to hold `{{value}}` exactly once")
        return cls(template=template, section=r.value(body, "section", str, key, default=None))

    def describe(self) -> str:
        return f"the sentence '{self.template}'"


@dataclass(frozen=True)
class MentionsClaim:
    """A set, code-to-doc only: every fact value appears as a code span in the
    document (or in ``section``)."""

    section: str | None = None
    scalar = False
    labelled = False

    facts: ClassVar[str] = "required"
    key: ClassVar[str] = "mentions"
    options: ClassVar[frozenset[str]] = frozenset({"mentions", "section"})
    default_direction: ClassVar[Direction] = Direction.CODE_TO_DOC
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.CODE_TO_DOC})

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> MentionsClaim:
        if r.value(body, "mentions", bool, key) is not True:
            r.fail(body, "mentions", f"{key}.mentions: expected `mentions: true`")
        return cls(section=r.value(body, "section", str, key, default=None))

    def describe(self) -> str:
        return f"section '{self.section}'" if self.section else "the document"


@dataclass(frozen=True)
class ReferencesClaim:
    """A set, doc-to-code: the code spans shaped as references (calls, dotted names,
    identifiers, paths) outside code blocks, each of which must resolve."""

    bare: bool = False  # also plain lower-case identifiers
    ignore: tuple[str, ...] = ()  # regexes for spans left alone
    repository: bool = True  # a name found anywhere in the repository outside the documents resolves
    scalar = False
    labelled = False

    facts: ClassVar[str] = "optional"
    key: ClassVar[str] = "references"
    options: ClassVar[frozenset[str]] = frozenset({"references"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})

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

    def describe(self) -> str:
        return "the document's references"


@dataclass(frozen=True)
class LinksClaim:
    """A set, doc-to-code, without a fact: every relative link, reference-style link and
    image target (file, ``#heading`` anchor, ``#L10`` line) must exist."""

    scalar = False
    labelled = False

    facts: ClassVar[str] = "none"
    key: ClassVar[str] = "links"
    options: ClassVar[frozenset[str]] = frozenset({"links"})
    default_direction: ClassVar[Direction] = Direction.DOC_TO_CODE
    directions: ClassVar[frozenset[Direction]] = frozenset({Direction.DOC_TO_CODE})

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> LinksClaim:
        if r.value(body, "links", bool, key) is not True:
            r.fail(body, "links", f"{key}.links: expected `links: true`")
        return cls()

    def describe(self) -> str:
        return "the document's links"


ClaimForm = Union[TableClaim, SectionClaim, PhraseClaim, MentionsClaim, ReferencesClaim, LinksClaim]

CLAIM_KEYS: dict[str, type[ClaimForm]] = {
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
