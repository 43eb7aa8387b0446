"""The table claim form: a column's members, labelled rows, or a map's entries."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from driftguard.config.forms.base import DocMember, Form, present
from driftguard.config.schema import Reader


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
    nth: int | None = None  # ``table: {header: NAME, nth: N}``: the Nth table so headed (1-based)
    cells: str | None = None  # ``cells: REGEX``: group 1 of each cell is the member
    keyed: bool = False  # judged against a map fact: set by the loader, not written in the config

    key: ClassVar[str] = "table"
    options: ClassVar[frozenset[str]] = frozenset({"table", "column", "rows", "section", "key", "cells"})

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
        return DocMember.MATCH if self.cells else DocMember.ROW

    @classmethod
    def from_config(cls, r: Reader, body: Any, key: str) -> TableClaim:
        rows = r.rows(body, key)
        key_column = r.value(body, "key", str, key, default=None)
        if rows and key_column:
            r.fail(body, "key", f"{key}.key: a `rows` table names its rows by label; drop `key`")
        header, nth = _table_of(r, body, key)
        return cls(table=header, column=r.value(body, "column", str, key, default=None), rows=rows,
                   section=r.value(body, "section", str, key, default=None), key_column=key_column, nth=nth,
                   cells=r.regex(body, "cells", key, groups=1) if "cells" in body else None)

    def to_config(self) -> dict[str, Any]:
        table: Any = {"header": self.table, "nth": self.nth} if self.nth else self.table
        return present(section=self.section, table=table, key=self.key_column, column=self.column,
                       rows=dict(self.rows) if self.rows else None, cells=self.cells)

    def describe(self) -> str:
        column = f", column '{self.column}'" if self.column else ""
        nth = f" (table {self.nth} so headed)" if self.nth else ""
        return f"the '{self.table}' table{nth}{column}"


def _table_of(r: Reader, body: Any, key: str) -> tuple[str, int | None]:
    """``table: NAME`` or ``table: {header: NAME, nth: N}``."""
    if not isinstance(body["table"], dict):
        return r.value(body, "table", str, key), None
    where = f"{key}.table"
    spec = r.child(body, "table", where, required={"header"}, optional={"nth"})
    nth = r.value(spec, "nth", int, where, default=None)
    if nth is not None and nth < 1:
        r.fail(spec, "nth", f"{where}.nth: expected a position from 1 (the first table so headed), got {nth}")
    return r.value(spec, "header", str, where), nth
