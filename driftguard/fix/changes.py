"""The values ``driftguard fix`` plans and reports: a ``Change`` and an ``Unfixed`` finding.

A leaf module (the planner, the row planner, the verifier and the writer all use
it). A change carries its own wording for each outcome, so a report never joins
"not fixed" with a past tense such as "added": a value edit reads the same in
every outcome (``'ten minutes' -> 'fifteen minutes'``), a row addition reads
"added a row for `X` after `W` ..." once written, "add a row for ..." in a dry
run and "the row for `X` ... (not added: ...)" when the document was not written.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftguard.fix.edits import Splice
from driftguard.model import Finding


@dataclass(frozen=True)
class Change:
    """One splice of one document, and the findings it fixes."""

    rule: str
    path: str
    line: int
    splice: Splice
    what: str  # "'ten minutes' -> 'fifteen minutes'"; for rows "for `X` after `W` in the 'S' table"
    findings: tuple[Finding, ...]
    rows: tuple[tuple[str, ...], ...] = ()  # the cells of each added row

    def describe(self, status: str, reason: str = "") -> str:
        """The change as the report words it for a document ``status`` ("written", "would-write",
        "refused", "failed"; ``reason`` is the document's): the verb and the phrase agree. A
        failed document whose reason does not begin "nothing written" was written (the text it
        replaced changed during the rename and was saved beside it), so its changes read as fixed."""
        if status == "failed" and not reason.startswith("nothing written"):
            status = "written"
        if not self.rows:
            verb = {"written": "fixed", "would-write": "would fix"}.get(status, "not fixed")
            return f"{verb}: {self.what}"
        rows = f"{len(self.rows)} rows" if len(self.rows) > 1 else "a row"
        if status == "written":
            return f"fixed: added {rows} {self.what}"
        if status == "would-write":
            return f"would fix: add {rows} {self.what}"
        the = "the row" if len(self.rows) == 1 else f"the {rows}"
        return f"not fixed: {the} {self.what} (not added: nothing was written)"


@dataclass(frozen=True)
class Unfixed:
    finding: Finding
    reason: str


def row_refused(value: str, why: str) -> str:
    """The reason an ``Unfixed`` gives for a row that is not added: "not fixed: the row for `X` (why)"."""
    return f"not fixed: the row for {code(value)} ({why})"


def code(value: str) -> str:
    """``value`` as an inline code span in a message."""
    return f"`{value}`"
