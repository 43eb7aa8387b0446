"""Plan the rows ``driftguard fix`` adds to a table, for every rule that reads the table at once.

A member the code declares and the table lacks gets a row where the code's order
puts it: right after the row of its predecessor (the nearest earlier member of
the fact's items that has a row; rows are matched by the rule's column as the
claim reader reads it, code spans or else plain text), or before the first row
when no earlier member has one. Members that share a place keep the code's order.

Every other rule reading the same table is taken into account, so the rows added
never leave the document half-fixed for one of them:

- two set rules on different columns: a new row would hold ``TODO: describe`` in
  the other rule's column, and nothing tells which values belong together, so the
  rows are refused with one reason naming both rules (unless the other rule lets
  the document say more, ``direction: code-to-doc``, and adds no rows itself);
- two set rules on the same column: a member both lack gets one row, fixing both;
  a member the other rule does not declare (and would then report) is refused;
- a ``rows:`` rule: a new row labelled like one of its rows is refused.

A value no cell can hold (``cell_problem``), or whose row would not read back as
the value, is refused for its row only; the other rows are still added.

Rows are added to markdown pipe tables only: a reStructuredText table (grid,
simple, ``list-table``) keeps its columns aligned by hand, so its rows are refused
with that reason (its values are still rewritten in place by ``fix.plan``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from driftguard.config.specs import Form
from driftguard.documents.formats import MARKDOWN, format_of
from driftguard.documents.model import Document, Row, Table, fold_key
from driftguard.documents.reader import parse_document
from driftguard.fix.changes import Change, Unfixed, code, row_refused
from driftguard.fix.edits import TODO, EditRefused, cell_problem, row_splice
from driftguard.judging.result import RuleResult
from driftguard.model import Direction, DriftguardError, Finding

RST_ROWS = ("not fixable: fix adds rows to markdown tables only; add the row to the reStructuredText table "
            "by hand, keeping its columns aligned")


def grid_cell_problem(path: str, text: str, start: int, end: int, new: str) -> str | None:
    """Why replacing ``text[start:end]`` with ``new`` would break a reStructuredText grid table
    (its borders are drawn by hand: a cell keeps its width), or None."""
    if format_of(path) == MARKDOWN or len(new) == end - start:
        return None
    lo = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    line = text[lo:].splitlines()[0] if lo < len(text) else ""
    above = text[:lo].splitlines()
    while above and above[-1].lstrip().startswith("|"):
        above.pop()
    if not (line.lstrip().startswith("|") and above and above[-1].lstrip().startswith("+")):
        return None
    return (f"'{text[start:end]}' -> '{new}' would change the width of a grid table's cell, whose borders are "
            "drawn by hand; fix it by hand")


@dataclass
class _Reader:
    """One rule reading the table: its column and what it wants added."""

    judged: RuleResult
    form: Form
    column: int
    missing: list[Finding] = field(default_factory=list)

    @property
    def rule(self) -> str:
        return self.judged.rule.id

    @property
    def checks_doc(self) -> bool:
        """Whether a member the document states and the code lacks is a finding of this rule."""
        return self.judged.rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE)

    def key(self, value: str) -> str:
        return value.casefold() if self.judged.rule.case_insensitive else value

    def declares(self, value: str) -> bool:
        return any(self.key(i.value.canonical) == self.key(value) for f in self.judged.facts for i in f.items)


def plan_rows(path: str, text: str, doc: Document, requests: Sequence[tuple[RuleResult, list[Finding]]],
              readers: Sequence[RuleResult]) -> tuple[list[Change], list[Unfixed]]:
    """The row changes for the missing-in-doc findings of ``requests`` (set table rules of the
    document at ``path``), given every rule that reads the document (``readers``)."""
    made: list[Change] = []
    left: list[Unfixed] = []
    if format_of(path) != MARKDOWN:
        return made, [Unfixed(f, RST_ROWS) for _, missing in requests for f in missing]
    tables: dict[int, list[_Reader]] = {}
    for judged, missing in requests:
        form, claim = judged.rule.claim, judged.claim
        table = None if claim is None or claim.location.line is None else _table_at(doc, claim.location.line)
        column = None if table is None else _column(table, form)
        if table is None or column is None:
            left += [Unfixed(f, "not fixable: cannot find the table again") for f in missing]
            continue
        if not table.rows:
            left += [Unfixed(f, "not fixable: the table has no rows to copy the shape of") for f in missing]
            continue
        group = tables.setdefault(table.line, _readers(table, readers))
        adder = next((r for r in group if r.judged.rule is judged.rule), None)
        if adder is None:  # not among the document's readers: judged alone
            adder = _Reader(judged, form, column)
            group.append(adder)
        adder.missing += [f for f in missing if f.value]
        left += [Unfixed(f, "not fixable: the finding names no value") for f in missing if not f.value]
    for line, group in tables.items():
        table = _table_at(doc, line)
        if table is not None:
            got, bad = _plan_table(path, text, table, group)
            made += got
            left += bad
    return made, left


def _table_at(doc: Document, line: int) -> Table | None:
    return next((t for t in doc.tables if t.line == line), None)


def _column(table: Table, form: Form) -> int | None:
    """The column of ``table`` that ``form`` reads; None when the form reads no table column."""
    if form.table_column is None:
        return None
    name, default = form.table_column
    return table.column(name) if name else default


def _readers(table: Table, readers: Sequence[RuleResult]) -> list[_Reader]:
    out = []
    for judged in readers:
        form, claim = judged.rule.claim, judged.claim
        if claim is not None and claim.location.line == table.line:
            column = _column(table, form)
            if column is not None:
                out.append(_Reader(judged, form, column))
    return out


def _plan_table(path: str, text: str, table: Table, group: list[_Reader]) -> tuple[list[Change], list[Unfixed]]:
    made: list[Change] = []
    left: list[Unfixed] = []
    owners: dict[str, tuple[_Reader, list[Finding]]] = {}  # value -> the rule that adds its row, the findings
    for adder in (r for r in group if r.missing):
        for finding in adder.missing:
            value = finding.value or ""
            why = _clash(table, adder, value, group) or _cannot_write(text, table, adder.column, value)
            if why:
                left.append(Unfixed(finding, row_refused(value, why)))
            elif value in owners and owners[value][0].column == adder.column:
                owners[value][1].append(finding)  # the same row fixes both rules
            else:
                owners[value] = (adder, [finding])
    for adder in (r for r in group if r.missing):
        mine = {v: fs for v, (owner, fs) in owners.items() if owner is adder}
        for after, name, values in _places(table, adder, list(mine)):
            try:
                made.append(_change(path, text, table, adder, after, name, values, mine))
            except EditRefused as exc:
                left += [Unfixed(f, row_refused(v, str(exc))) for v in values for f in mine[v]]
    return made, left


def _clash(table: Table, adder: _Reader, value: str, group: list[_Reader]) -> str:
    """Why a row for ``value`` added by ``adder`` would break another rule reading the table, or ''."""
    name = table.header[0].text
    for other in group:
        if other is adder:
            continue
        if other.form.labelled:
            label = value if adder.column == 0 else TODO
            hit = next((lab for lab, _ in other.form.row_facts if fold_key(lab) == fold_key(label)), None)
            if hit is not None:
                return (f"rule '{other.rule}' reads its row '{hit}' in the '{name}' table, and the new row "
                        f"would hold `{TODO}` in its column '{_head(table, other.column)}'; add the row by hand")
        elif other.column != adder.column:
            if other.missing or other.checks_doc:
                return (f"the '{name}' table is read by rule '{adder.rule}' in column "
                        f"'{_head(table, adder.column)}' and by rule '{other.rule}' in column "
                        f"'{_head(table, other.column)}': a new row needs a value in both, and driftguard "
                        "cannot tell which belong together; add the row by hand")
        elif other.checks_doc and not other.declares(value):
            return (f"rule '{other.rule}' reads the same column of the '{name}' table and does not declare "
                    f"{code(value)}, so the new row would fail it; fix the code or add the row by hand")
    return ""


def _head(table: Table, column: int) -> str:
    return table.header[column].text if column < len(table.header) else str(column + 1)


def _cannot_write(text: str, table: Table, column: int, value: str) -> str:
    """Why the row for ``value`` cannot be written so that it reads back as ``value``, or ''."""
    problem = cell_problem(value)
    if problem:
        return problem
    try:
        splice, _ = row_splice(text, table, column, [value])
        again = _table_at(parse_document("fix.md", text[:splice.start] + splice.new + text[splice.end:]),
                          table.line)
    except (EditRefused, DriftguardError) as exc:
        return str(exc)
    row = again.rows[-1] if again is not None and len(again.rows) == len(table.rows) + 1 else None
    if row is None or len(row.cells) != len(table.header) or _read(row, column) != [value]:
        got = "nothing" if row is None else ", ".join(code(v) for v in _read(row, column)) or "nothing"
        return f"the new row would read {got} in column '{_head(table, column)}', not {code(value)}"
    return ""


def _read(row: Row, column: int) -> list[str]:
    """The values of a cell as the claim reader reads them: its code spans, or else its plain text."""
    if column >= len(row.cells):
        return []
    cell = row.cells[column]
    return list(cell.code_texts) if cell.codes else ([cell.text] if cell.text else [])


def _places(table: Table, adder: _Reader, values: list[str]) -> list[tuple[int | None, str, list[str]]]:
    """``values`` grouped by the row they go after (an index; None: before the first row), with the
    member that row is named by, in code order."""
    rows: dict[str, int] = {}
    for index, row in enumerate(table.rows):
        for value in _read(row, adder.column):
            rows.setdefault(adder.key(value), index)
    pending = {adder.key(v): v for v in values}
    first = (_read(table.rows[0], adder.column) or [table.rows[0].cells[0].text if table.rows[0].cells else ""])
    places: dict[int | None, tuple[str, list[str]]] = {}
    after: int | None = None
    name = first[0]
    for item in (i for fact in adder.judged.facts for i in fact.items):
        key = adder.key(item.value.canonical)
        if key in rows:
            after, name = rows[key], item.value.canonical
        elif key in pending:
            places.setdefault(after, (name, []))[1].append(pending.pop(key))
    if pending:  # not among the fact's items (cannot happen for a finding of this rule): at the end
        last = _read(table.rows[-1], adder.column) or [""]
        places.setdefault(len(table.rows) - 1, (last[0], []))[1].extend(pending.values())
    ordered = sorted(places.items(), key=lambda p: -1 if p[0] is None else p[0])
    return [(after, name, values) for after, (name, values) in ordered]


def _change(path: str, text: str, table: Table, adder: _Reader, after: int | None, name: str,
            values: list[str], findings: dict[str, list[Finding]]) -> Change:
    splice, cells = row_splice(text, table, adder.column, values, after)
    where = f"{'before' if after is None else 'after'} {code(name)}"
    shown = ", ".join(code(v) for v in values)
    also = sorted({f.rule for v in values for f in findings[v]} - {adder.rule})
    with_too = f", which rule {' and '.join(repr(r) for r in also)} reads too" if also else ""
    what = f"for {shown} {where} in the '{table.header[0].text}' table{with_too}"
    line = table.rows[0].line if after is None else table.rows[after].line + 1
    return Change(adder.rule, path, line, splice, what, tuple(f for v in values for f in findings[v]),
                  tuple(tuple(c) for c in cells))
