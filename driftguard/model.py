"""The frozen value types every layer passes around.

Sources yield facts, documents yield claims; both are made of ``Item``s (a
typed ``Value`` plus the ``Location`` it was read at). The engine compares them
and emits ``Finding``s. Errors that stop a rule from being judged are raised as
``DriftguardError`` subclasses and become findings with an error kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import overload


@dataclass(frozen=True, order=True)
class Location:
    """A place in a file: repository-relative posix path, 1-based line and column."""

    path: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        path = self.path.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r") \
            if "\n" in self.path or "\r" in self.path else self.path  # a file name never forges a line
        if self.line is None:
            return path
        return f"{path}:{self.line}"

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line}


class Kind(str, Enum):
    """What a value is, so that a duration never equals a bare number."""

    NUMBER = "number"
    DURATION = "duration"  # data holds seconds
    BYTES = "bytes"  # data holds a number of bytes
    STRING = "string"
    BOOL = "bool"


@dataclass(frozen=True)
class Value:
    """A typed value and the words it was written in.

    ``data`` is an ``int`` for whole numbers the source or document writes
    exactly (``1<<53 + 1``, ``2**53+1``, ``9007199254740993``), a float for other
    numbers, seconds (float) for durations, ``str`` for strings and ``bool``
    for booleans. ``text`` is the source's own spelling
    ("ten minutes", ``10 * time.Minute``); ``unit`` is a display hint such as
    ``"%"`` or ``"minutes"`` that keeps a rewrite in the document's style.
    """

    kind: Kind
    data: int | float | str | bool
    text: str = field(default="", compare=False)
    unit: str = field(default="", compare=False)

    def same(self, other: Value) -> bool:
        """Equal in meaning: same kind and same amount (floats within 1e-9)."""
        if self.kind is not other.kind:
            return False
        if self.kind in (Kind.NUMBER, Kind.DURATION, Kind.BYTES):
            return _same_amount(self.data, other.data)
        return self.data == other.data

    @property
    def canonical(self) -> str:
        """A spelling independent of the source: ``75``, ``48h``, ``RESOLVING``."""
        if self.kind is Kind.NUMBER:
            return str(self.data) if _exact(self.data) else _number(float(self.data))
        if self.kind is Kind.DURATION:
            return format_seconds(float(self.data))
        if self.kind is Kind.BYTES:
            amount = str(self.data) if _exact(self.data) else _number(float(self.data))
            return f"{amount} bytes"
        if self.kind is Kind.BOOL:
            return "true" if self.data else "false"
        return str(self.data)

    def __str__(self) -> str:
        return self.text or self.canonical

    @classmethod
    def string(cls, data: str, text: str = "") -> Value:
        return cls(Kind.STRING, data, text or data)


def _exact(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _same_amount(a: object, b: object) -> bool:
    """Exact when a side is an exact integer and the other is whole, since floats
    lose integers past 2**53; otherwise equal within float rounding."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if _exact(a) and _exact(b):
        return a == b
    if (_exact(a) or _exact(b)) and float(a if _exact(b) else b).is_integer():
        return int(a) == int(b)
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    except OverflowError:  # an integer past the float range differs from every float
        return False


def _number(x: float) -> str:
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def format_seconds(seconds: float) -> str:
    """``172800`` -> ``48h``; ``5400`` -> ``1h30m``; ``0.25`` -> ``250ms``."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds)
    if rest < 1:
        return f"{sign}{_number(rest * 1000)}ms"
    parts = []
    for unit, size in (("h", 3600), ("m", 60)):
        whole = int(rest // size)
        if whole:
            parts.append(f"{whole}{unit}")
            rest -= whole * size
    if rest:
        parts.append(f"{_number(round(rest, 9))}s")
    return sign + "".join(parts)


@dataclass(frozen=True)
class Item:
    """One value read from a source or a document, with where it was read.

    ``span`` is the character range ``[start, end)`` of the value's text in the
    document, where a reader knows it (the fixer rewrites exactly that range).
    """

    value: Value
    location: Location | None = None
    span: tuple[int, int] | None = None
    label: str = ""  # e.g. the table row label a cell belongs to


@dataclass(frozen=True)
class Fact:
    """The values one named selector extracted from one source file."""

    name: str
    items: Sequence[Item]  # a tuple, or NameItems for a symbols fact
    scalar: bool
    location: Location | None = None  # the file (and line of the declaration, when known)
    warnings: tuple[str, ...] = ()  # ``path:line: what`` for each part of a file the parser could not read


class NameItems(Sequence[Item]):
    """String items held as columns (name, path, line, label), since a ``symbols``
    fact holds hundreds of thousands of them; an ``Item`` is built only when
    asked for, with one ``Location`` per (path, line). Equal to the tuple of
    the same items."""

    __slots__ = ("names", "paths", "lines", "labels", "_built")

    def __init__(self, names: list[str], paths: list[str], lines: list[int], labels: list[str]) -> None:
        if not len(names) == len(paths) == len(lines) == len(labels):
            raise ValueError("columns of different lengths")
        self.names, self.paths, self.lines, self.labels = names, paths, lines, labels
        self._built: tuple[Item, ...] | None = None

    @classmethod
    def of_file(cls, names: dict[str, int], path: str, label: str = "") -> NameItems:
        """One item per name (name -> line) of file ``path``, labelled ``label``."""
        return cls(list(names), [path] * len(names), list(names.values()), [label] * len(names))

    @classmethod
    def joined(cls, parts: Iterable[NameItems]) -> NameItems:
        names: list[str] = []
        paths: list[str] = []
        lines: list[int] = []
        labels: list[str] = []
        for part in parts:
            names += part.names
            paths += part.paths
            lines += part.lines
            labels += part.labels
        return cls(names, paths, lines, labels)

    def unique(self) -> NameItems:
        """The first item of each name, in order."""
        count = len(self.names)
        first = dict(zip(reversed(self.names), range(count - 1, -1, -1)))
        if len(first) == count:
            return self
        keep = sorted(first.values())
        return NameItems([self.names[i] for i in keep], [self.paths[i] for i in keep],
                         [self.lines[i] for i in keep], [self.labels[i] for i in keep])

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Item, ...]: ...

    def __getitem__(self, index: int | slice) -> Item | tuple[Item, ...]:
        if isinstance(index, slice):
            if self._built is not None:
                return self._built[index]
            return tuple(self[i] for i in range(*index.indices(len(self.names))))
        if self._built is not None:
            return self._built[index]
        name = self.names[index]
        return Item(Value(Kind.STRING, name, name), Location(self.paths[index], self.lines[index]), None,
                    self.labels[index])

    def __iter__(self) -> Iterator[Item]:
        return iter(self.built())

    def built(self) -> tuple[Item, ...]:
        if self._built is None:
            places: dict[tuple[str, int], Location] = {}
            out = []
            for name, path, line, label in zip(self.names, self.paths, self.lines, self.labels):
                place = places.get((path, line))
                if place is None:
                    place = places[path, line] = Location(path, line)
                out.append(Item(Value(Kind.STRING, name, name), place, None, label))
            self._built = tuple(out)
        return self._built

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NameItems):
            return (self.names, self.paths, self.lines, self.labels) == (
                other.names, other.paths, other.lines, other.labels)
        return isinstance(other, tuple) and self.built() == other

    def __hash__(self) -> int:
        return hash(self.built())

    def __repr__(self) -> str:
        return f"NameItems({len(self)} names)"


@dataclass(frozen=True)
class Claim:
    """What a document states for one rule: a set of items or a single item."""

    items: tuple[Item, ...]
    location: Location  # the table, section or sentence the claim was read from
    notes: tuple[str, ...] = ()  # ``LINE: what: why`` for each part the reader saw and could not read


class Direction(str, Enum):
    BOTH = "both"
    CODE_TO_DOC = "code-to-doc"  # every code value must be claimed
    DOC_TO_CODE = "doc-to-code"  # every claimed value must exist in code


class Status(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"


@dataclass(frozen=True)
class FindingKind:
    """A stable code and one wording for each kind of mismatch or error."""

    code: str
    kind: str
    summary: str
    is_error: bool  # an error means the rule could not be judged (exit 2)


_KIND_TABLE: dict[str, tuple[str, str, bool]] = {
    # kind: (code, summary, is_error)
    "missing-in-doc": ("DG101", "declared in code, not claimed by the document", False),
    "missing-in-code": ("DG102", "claimed by the document, not declared in code", False),
    "value-mismatch": ("DG103", "the document states a different value than the code", False),
    "claim-not-found": ("DG104", "the document no longer states it", False),
    "fact-not-found": ("DG105", "the source changed shape and this guard no longer reads it", False),
    "ambiguous": ("DG106", "a scalar selector matches more than one thing", False),
    "unresolved-reference": ("DG107", "the document names a symbol or path the code no longer has", False),
    "broken-link": ("DG108", "a relative link points at a file, heading or line that does not exist", False),
    "read-error": ("DG201", "a file could not be read", True),
    "parse-error": ("DG202", "a file could not be parsed", True),
    "config-error": ("DG203", "the configuration is invalid", True),
    "pattern-error": ("DG204", "a regular expression could not be used", True),
}

FINDING_KINDS: dict[str, FindingKind] = {
    kind: FindingKind(code, kind, summary, is_error) for kind, (code, summary, is_error) in _KIND_TABLE.items()
}
"""The registry of finding kinds, by kind name; read-only by convention."""

MISSING_IN_DOC = FINDING_KINDS["missing-in-doc"]
MISSING_IN_CODE = FINDING_KINDS["missing-in-code"]
VALUE_MISMATCH = FINDING_KINDS["value-mismatch"]
CLAIM_NOT_FOUND = FINDING_KINDS["claim-not-found"]
FACT_NOT_FOUND = FINDING_KINDS["fact-not-found"]
UNRESOLVED_REFERENCE = FINDING_KINDS["unresolved-reference"]
BROKEN_LINK = FINDING_KINDS["broken-link"]
"""The drift kinds code compares against by identity (``finding.kind is VALUE_MISMATCH``)."""


@dataclass(frozen=True)
class Finding:
    kind: FindingKind
    rule: str
    message: str
    value: str | None = None
    doc: Location | None = None
    source: Location | None = None
    declared: str = ""  # what ``source`` is when it is the set's declaration: "type SessionState"

    @property
    def code(self) -> str:
        return self.kind.code

    @property
    def is_error(self) -> bool:
        return self.kind.is_error

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.kind.code,
            "kind": self.kind.kind,
            "rule": self.rule,
            "message": self.message,
            "value": self.value,
            "doc": self.doc.to_json() if self.doc else None,
            "source": self.source.to_json() if self.source else None,
        }


class DriftguardError(Exception):
    """A problem that stops a rule (or the run) from being judged.

    ``kind`` names the entry of ``FINDING_KINDS`` the engine reports it as.
    """

    kind = "read-error"

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class ReadError(DriftguardError):
    kind = "read-error"


class ParseError(DriftguardError):
    kind = "parse-error"


class ConfigError(DriftguardError):
    kind = "config-error"


class PatternError(DriftguardError):
    kind = "pattern-error"


class FactNotFound(DriftguardError):
    kind = "fact-not-found"


class AmbiguousFact(DriftguardError):
    kind = "ambiguous"


class ClaimNotFound(DriftguardError):
    kind = "claim-not-found"


class AmbiguousClaim(DriftguardError):
    """The document states the claim twice (two tables or sections with the same heading,
    a repeated row label or column name): which one is meant cannot be told."""

    kind = "ambiguous"
