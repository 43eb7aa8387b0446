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
        return present(section=self.section, table=self.table, key=self.key_column, column=self.column,
                        rows=dict(self.rows) if self.rows else None)

    def describe(self) -> str:
        column = f", column '{self.column}'" if self.column else ""
        return f"the '{self.table}' table{column}"
