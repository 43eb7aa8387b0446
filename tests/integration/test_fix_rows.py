"""``driftguard fix`` adding table rows: where a row goes, how the outcome is worded, several rules
reading one table, and values no cell can hold. Every case runs on a small tree through the CLI or
the API and compares the whole document, so a byte changed outside the edit fails the test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard import quantities
from driftguard.config.loader import load_config
from driftguard.fix import Change, FixOutcome, apply_fixes, plan_fixes, render_fix
from driftguard.fix.edits import Splice
from tests.helpers import cli_on, judge, write_tree

GO = '''\
package fsm

type State string

const (
{consts})

type Event string

const (
{events})
'''

DOC = '''\
# Machine

Intro with `IDLE` in prose, which is not a row.

| State  | Meaning |
|--------|---------|
| `IDLE` | waiting |
| `DONE` | over    |

Sessions expire after ten minutes.

Trailing text.
'''

CONFIG = '''\
version: 1
facts:
  states: {file: src/fsm.go, constants: {type: State}}
  ttl: {file: src/conf.py, constant: TTL}
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State}
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
'''

PY = "from datetime import timedelta\n\nTTL = timedelta(minutes={minutes})\n"


def go(states: list[str], events: tuple[str, ...] = ("E0",)) -> str:
    consts = "".join(f'\tState{i} State = "{s}"\n' for i, s in enumerate(states))
    evs = "".join(f'\tEvent{i} Event = "{e}"\n' for i, e in enumerate(events))
    return GO.format(consts=consts, events=evs)


def make(base: Path, states: list[str], doc: str | bytes = DOC, config: str = CONFIG, minutes: int = 10,
         events: tuple[str, ...] = ("E0",), extra: dict[str, str | bytes] | None = None) -> Path:
    files: dict[str, str | bytes] = {
        "src/fsm.go": go(states, events).encode(), "src/conf.py": PY.format(minutes=minutes).encode(),
        "driftguard.yaml": config.encode(), "docs/m.md": doc if isinstance(doc, bytes) else doc.encode(),
    }
    return write_tree(base, {**files, **(extra or {})})


@pytest.fixture
def repo(tmp_path: Path) -> Callable[..., Path]:
    return lambda states, **kw: make(tmp_path / "repo", states, **kw)


def fix(root: Path, dry_run: bool = False) -> FixOutcome:
    return apply_fixes(plan_fixes(load_config(root / "driftguard.yaml")), dry_run=dry_run)


def doc_of(root: Path) -> str:
    return (root / "docs/m.md").read_bytes().decode("utf-8")


def row(value: str, pad: int = 6) -> str:
    return f"| {('`' + value + '`').ljust(pad)} | TODO: describe |\n"


# -- 1. where a row goes ------------------------------------------------------------


def test_a_member_goes_after_its_predecessor_not_at_the_end(repo: Callable[..., Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(["IDLE", "BUSY", "DONE"])
    rc, out = cli_on(capsys, root, "fix")
    assert rc == 0, out
    # the old behaviour appended `BUSY` after `DONE`
    assert doc_of(root) == DOC.replace("| `DONE` |", row("BUSY") + "| `DONE` |")
    assert "docs/m.md:8: states: fixed: added a row for `BUSY` after `IDLE` in the 'State' table\n" in out
    assert cli_on(capsys, root, "check")[0] == 0


def test_a_member_without_a_predecessor_goes_before_the_first_row(repo: Callable[..., Path]) -> None:
    root = repo(["NEW", "IDLE", "DONE"])
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert doc_of(root) == DOC.replace("| `IDLE` |", row("NEW") + "| `IDLE` |")
    assert "fixed: added a row for `NEW` before `IDLE` in the 'State' table" in render_fix(outcome)
    assert judge(root).ok


def test_several_members_keep_code_order_at_each_place(repo: Callable[..., Path]) -> None:
    root = repo(["A0", "A1", "IDLE", "B1", "B0", "DONE", "C1", "C0"])
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    want = DOC.replace("| `IDLE` |", row("A0") + row("A1") + "| `IDLE` |")
    want = want.replace("| `DONE` | over    |\n", row("B1") + row("B0") + "| `DONE` | over    |\n" + row("C1") + row("C0"))
    assert doc_of(root) == want
    out = render_fix(outcome)
    assert "added 2 rows for `A0`, `A1` before `IDLE`" in out
    assert "added 2 rows for `B1`, `B0` after `IDLE`" in out and "added 2 rows for `C1`, `C0` after `DONE`" in out
    assert judge(root).ok


def test_the_predecessor_is_the_nearest_earlier_member_with_a_row(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("| `IDLE` | waiting |\n| `DONE` | over    |\n", "| `DONE` | over    |\n| `IDLE` | waiting |\n")
    root = repo(["IDLE", "GONE", "DONE", "LAST"], doc=doc)  # the table is not in code order
    assert fix(root).exit_code == 0
    assert doc_of(root) == doc.replace("| `IDLE` | waiting |\n",
                                       "| `IDLE` | waiting |\n" + row("GONE")).replace(
        "| `DONE` | over    |\n", "| `DONE` | over    |\n" + row("LAST"))


def test_rows_are_matched_by_the_rules_column(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("| State  | Meaning |\n|--------|---------|\n| `IDLE` | waiting |\n| `DONE` | over    |\n",
                      "| Order | State |\n|---|---|\n| one | `IDLE` |\n| two | `DONE` |\n")
    config = CONFIG.replace("table: State}", "table: Order, column: State}")
    root = repo(["IDLE", "BUSY", "DONE"], doc=doc, config=config)
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert doc_of(root) == doc.replace("| two |", "| TODO: describe | `BUSY` |\n| two |")
    assert judge(root).ok


def test_plain_text_cells_and_a_crlf_document_before_the_first_row(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("`IDLE` |", "IDLE   |").replace("`DONE` |", "DONE   |").replace("\n", "\r\n")
    root = repo(["NEW", "IDLE", "MID", "DONE"], doc=doc)
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    want = doc.replace("| IDLE ", "| NEW    | TODO: describe |\r\n| IDLE ").replace(
        "| DONE ", "| MID    | TODO: describe |\r\n| DONE ")
    assert (root / "docs/m.md").read_bytes() == want.encode()
    assert judge(root).ok


def test_a_table_in_a_blockquote_keeps_its_prefix_in_the_middle(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("| State", "> | State").replace("|--------|", "> |--------|").replace("| `", "> | `")
    root = repo(["NEW", "IDLE", "BUSY", "DONE"], doc=doc)
    assert fix(root).exit_code == 0
    assert doc_of(root) == doc.replace("> | `IDLE`", "> " + row("NEW") + "> | `IDLE`").replace(
        "> | `DONE`", "> " + row("BUSY") + "> | `DONE`")
    assert judge(root).ok


# -- 2. the wording ------------------------------------------------------------------


def test_a_dry_run_says_what_it_would_add(repo: Callable[..., Path], capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(["IDLE", "BUSY", "DONE"])
    rc, out = cli_on(capsys, root, "fix", "--dry-run")
    assert rc == 1 and doc_of(root) == DOC
    assert "\n+| `BUSY` | TODO: describe |\n" in out
    assert "docs/m.md:8: states: would fix: add a row for `BUSY` after `IDLE` in the 'State' table\n" in out
    assert "added" not in out


def test_a_refused_document_never_reads_not_fixed_added(repo: Callable[..., Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(["IDLE", "BUSY", "DONE"], minutes=15)
    monkeypatch.setattr(quantities, "format_like", lambda new, like: "sixteen minutes")  # fails the re-check
    outcome = fix(root)
    out = render_fix(outcome)
    assert outcome.exit_code == 1 and doc_of(root) == DOC
    assert "not fixed: added" not in out and "not fixed: add " not in out
    assert ("docs/m.md:8: states: not fixed: the row for `BUSY` after `IDLE` in the 'State' table "
            "(not added: nothing was written)\n") in out
    assert "docs/m.md: refused: nothing written: rule 'ttl' would still fail" in out


# -- 3. two rules on one table -----------------------------------------------------------

TWO = '''\
# Machine

| State  | Event | Meaning |
|--------|-------|---------|
| `IDLE` | `E0`  | waiting |

Sessions expire after ten minutes.
'''

def two_config(direction: str = "both") -> str:
    facts = CONFIG.replace("rules:", "  events: {file: src/fsm.go, constants: {type: Event}}\nrules:")
    return facts + f"  - {{id: events, fact: events, doc: docs/m.md, table: State, column: Event, " \
                   f"direction: {direction}}}\n"


def test_two_set_rules_on_other_columns_are_refused_with_one_reason(repo: Callable[..., Path]) -> None:
    root = repo(["IDLE", "BUSY"], doc=TWO, config=two_config(), events=("E0", "E1"), minutes=15)
    outcome = fix(root)
    out = render_fix(outcome)
    assert doc_of(root) == TWO.replace("ten minutes", "fifteen minutes")  # the other fix is still written
    reason = ("the 'State' table is read by rule '{}' in column '{}' and by rule '{}' in column '{}': "
              "a new row needs a value in both, and driftguard cannot tell which belong together; "
              "add the row by hand")
    assert f"states: not fixed: the row for `BUSY` ({reason.format('states', 'State', 'events', 'Event')})" in out
    assert f"events: not fixed: the row for `E1` ({reason.format('events', 'Event', 'states', 'State')})" in out
    assert outcome.exit_code == 1


def test_one_rule_adding_beside_a_rule_that_checks_its_column_is_refused(repo: Callable[..., Path]) -> None:
    root = repo(["IDLE", "BUSY"], doc=TWO, config=two_config())
    outcome = fix(root)
    assert doc_of(root) == TWO and outcome.exit_code == 1
    assert "the row for `BUSY` (the 'State' table is read by rule 'states'" in render_fix(outcome)


def test_a_rule_that_lets_the_document_say_more_does_not_block_a_row(repo: Callable[..., Path]) -> None:
    root = repo(["IDLE", "BUSY"], doc=TWO, config=two_config("code-to-doc"))
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert doc_of(root) == TWO.replace("| `E0`  | waiting |\n", "| `E0`  | waiting |\n| `BUSY` | TODO: describe | TODO: describe |\n")
    assert judge(root).ok


ENUM = "from enum import Enum\n\n\nclass State(str, Enum):\n{members}"


def enum(states: list[str]) -> str:
    return ENUM.format(members="".join(f'    {s} = "{s}"\n' for s in states))


def same_column_config() -> str:
    facts = CONFIG.replace("rules:", "  py_states: {file: src/fsm.py, constants: {type: State}}\nrules:")
    return facts + "  - {id: py-states, fact: py_states, doc: docs/m.md, table: State}\n"


def test_two_rules_on_one_column_lacking_the_same_member_get_one_row(repo: Callable[..., Path],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(["IDLE", "BUSY", "DONE"], config=same_column_config(),
                extra={"src/fsm.py": enum(["IDLE", "BUSY", "DONE"])})
    rc, out = cli_on(capsys, root, "fix")
    assert rc == 0, out
    assert doc_of(root) == DOC.replace("| `DONE` |", row("BUSY") + "| `DONE` |")
    assert ("states: fixed: added a row for `BUSY` after `IDLE` in the 'State' table, "
            "which rule 'py-states' reads too\n") in out
    assert cli_on(capsys, root, "check")[0] == 0


def test_a_member_the_other_rule_on_the_column_lacks_is_refused(repo: Callable[..., Path]) -> None:
    root = repo(["IDLE", "BUSY", "DONE"], config=same_column_config(), minutes=15,
                extra={"src/fsm.py": enum(["IDLE", "DONE"])})
    outcome = fix(root)
    assert outcome.exit_code == 1
    assert doc_of(root) == DOC.replace("ten minutes", "fifteen minutes")
    assert ("states: not fixed: the row for `BUSY` (rule 'py-states' reads the same column of the 'State' "
            "table and does not declare `BUSY`, so the new row would fail it; fix the code or add the row "
            "by hand)") in render_fix(outcome)


LABELLED = '''\
# Machine

| State  | Timeout |
|--------|---------|
| `IDLE` | 10 minutes |
| `DONE` | 1 hour |
'''


def labelled_config(extra_label: str = "") -> str:
    facts = CONFIG.replace("rules:", "  done_ttl: {file: src/conf.py, constant: DONE}\nrules:")
    facts = facts.replace("  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}\n", "")
    rows = "{IDLE: ttl, DONE: done_ttl" + (f", {extra_label}: ttl" if extra_label else "") + "}"
    return facts + f"  - {{id: timeouts, doc: docs/m.md, table: State, column: Timeout, rows: {rows}}}\n"


def test_a_set_rule_and_a_rows_rule_on_one_table_are_fixed_in_one_edit(repo: Callable[..., Path]) -> None:
    conf = PY.format(minutes=15) + "DONE = timedelta(hours=2)\n"
    root = repo(["IDLE", "BUSY", "DONE"], doc=LABELLED, config=labelled_config(), extra={"src/conf.py": conf})
    outcome = fix(root)
    out = render_fix(outcome)
    assert outcome.exit_code == 0, out
    assert doc_of(root) == LABELLED.replace("| `IDLE` | 10 minutes |\n| `DONE` | 1 hour |\n",
                                            "| `IDLE` | 15 minutes |\n| `BUSY` | TODO: describe |\n"
                                            "| `DONE` | 2 hours |\n")
    assert "timeouts: fixed: '10 minutes' -> '15 minutes' (row 'IDLE')" in out
    assert "timeouts: fixed: '1 hour' -> '2 hours' (row 'DONE')" in out
    assert "states: fixed: added a row for `BUSY` after `IDLE`" in out
    assert judge(root).ok


def test_a_new_row_labelled_like_a_rows_rule_row_is_refused(repo: Callable[..., Path]) -> None:
    conf = PY.format(minutes=10) + "DONE = timedelta(hours=1)\n"
    root = repo(["IDLE", "BUSY", "DONE"], doc=LABELLED, config=labelled_config("BUSY"), extra={"src/conf.py": conf})
    outcome = fix(root)
    assert doc_of(root) == LABELLED
    assert ("states: not fixed: the row for `BUSY` (rule 'timeouts' reads its row 'BUSY' in the 'State' table, "
            "and the new row would hold `TODO: describe` in its column 'Timeout'; add the row by hand)"
            ) in render_fix(outcome)


# -- 4. values no cell can hold -----------------------------------------------------------


def test_a_value_with_a_pipe_or_outer_spaces_is_refused_for_its_row_only(repo: Callable[..., Path],
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    root = repo(["IDLE", "a|b", "BUSY", " pad ", "DONE", "tail "], minutes=15)
    rc, out = cli_on(capsys, root, "fix")
    assert rc == 1
    assert doc_of(root) == DOC.replace("| `DONE` |", row("BUSY") + "| `DONE` |").replace(
        "ten minutes", "fifteen minutes")
    assert ("states: not fixed: the row for `a|b` (the value `a|b` holds a `|`, which would split the "
            "table cell): `a|b` is declared in code") in out
    assert ("states: not fixed: the row for ` pad ` (the value ' pad ' begins or ends with whitespace, which "
            "markdown strips from a table cell and a code span)") in out
    assert "the row for `tail ` (the value 'tail ' begins or ends with whitespace" in out
    assert "fixed: added a row for `BUSY` after `IDLE`" in out and "'ten minutes' -> 'fifteen minutes'" in out
    assert "driftguard fix: 2 fixes written to 1 document; 3 findings remain" in out


def test_a_cell_value_that_would_break_the_table_is_refused_naming_the_row(
        repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    conf = PY.format(minutes=15) + "DONE = timedelta(hours=2)\n"
    root = repo(["IDLE", "BUSY", "DONE"], doc=LABELLED, config=labelled_config(), extra={"src/conf.py": conf})
    real = quantities.format_like
    monkeypatch.setattr(quantities, "format_like",
                        lambda new, like: "15|minutes" if "minutes" in like.text else real(new, like))
    outcome = fix(root)
    out = render_fix(outcome)
    assert doc_of(root) == LABELLED.replace("| `DONE` | 1 hour |\n",
                                            "| `BUSY` | TODO: describe |\n| `DONE` | 2 hours |\n")
    assert ("timeouts: not fixable: the row 'IDLE': the value `15|minutes` holds a `|`, which would split "
            "the table cell") in out
    assert "'1 hour' -> '2 hours' (row 'DONE')" in out


def test_two_rules_rewriting_one_cell_differently_are_refused_naming_both(repo: Callable[..., Path]) -> None:
    conf = PY.format(minutes=10) + "DONE = timedelta(hours=1)\nOTHER = timedelta(hours=3)\n"
    config = labelled_config().replace("rules:", "  other: {file: src/conf.py, constant: OTHER}\nrules:")
    config += "  - {id: timeouts-too, doc: docs/m.md, table: State, column: Timeout, rows: {DONE: other}}\n"
    root = repo(["IDLE", "DONE"], doc=LABELLED, config=config,
                extra={"src/conf.py": conf.replace("hours=1)", "hours=2)")})
    outcome = fix(root)
    assert doc_of(root) == LABELLED and outcome.exit_code == 1
    out = render_fix(outcome)
    reason = "not fixable: rules 'timeouts' and 'timeouts-too' rewrite the same text differently; fix it by hand"
    assert f"timeouts: {reason}" in out and f"timeouts-too: {reason}" in out


# -- properties ------------------------------------------------------------------------------


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), count=st.integers(2, 7))
def test_every_new_row_follows_its_predecessor_in_code_order(data: st.DataObject, count: int) -> None:
    members = [f"M{i}" for i in range(count)]
    kept = data.draw(st.lists(st.sampled_from(members), min_size=1, unique=True), label="rows in the doc")
    table = "".join(f"| `{m}` | said |\n" for m in kept)
    doc = DOC.replace("| `IDLE` | waiting |\n| `DONE` | over    |\n", table)
    with tempfile.TemporaryDirectory() as tmp:
        root = make(Path(tmp), members, doc=doc)
        outcome = fix(root)
        assert outcome.exit_code == 0, render_fix(outcome)
        text = doc_of(root)
        assert judge(root).ok
    head, rest = text.split("|--------|---------|\n")
    body, tail = rest.split("\n\n", 1)
    assert head + "|--------|---------|\n" == doc.split("|--------|---------|\n")[0] + "|--------|---------|\n"
    assert tail == doc.split(table)[1].lstrip("\n")
    order = [line.split("`")[1] for line in body.split("\n")]
    assert [m for m in order if m in kept] == kept  # the rows that were there keep their order and text
    assert sorted(order) == sorted(members)
    for k, member in enumerate(order):
        if member in kept:
            continue
        earlier = [m for m in members[:members.index(member)] if m in kept]
        start = order.index(earlier[-1]) + 1 if earlier else 0
        between = order[start:k]  # only new members, earlier in code order, sit between it and its place
        assert all(m not in kept and members.index(m) < members.index(member) for m in between)


def test_a_failed_write_says_the_row_was_not_added(repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(["IDLE", "BUSY", "DONE"])

    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    outcome = fix(root)
    out = render_fix(outcome)
    assert outcome.exit_code == 2 and doc_of(root) == DOC
    assert ("states: not fixed: the row for `BUSY` after `IDLE` in the 'State' table "
            "(not added: nothing was written)\n") in out
    assert "added a row" not in out


@pytest.mark.parametrize("status, reason, rows, want", [
    ("written", "", 1, "fixed: added a row for `X` after `W` in the 'S' table"),
    ("would-write", "", 2, "would fix: add 2 rows for `X` after `W` in the 'S' table"),
    ("refused", "nothing written: rule 'r' would still fail", 1,
     "not fixed: the row for `X` after `W` in the 'S' table (not added: nothing was written)"),
    ("failed", "nothing written: cannot write the document", 2,
     "not fixed: the 2 rows for `X` after `W` in the 'S' table (not added: nothing was written)"),
    ("failed", "the fix was written, but the document changed during the rename", 1,
     "fixed: added a row for `X` after `W` in the 'S' table"),
])
def test_each_outcome_words_a_row_change_in_one_tense(status: str, reason: str, rows: int, want: str) -> None:
    change = Change("r", "d.md", 3, Splice(0, 0, ""), "for `X` after `W` in the 'S' table", (),
                    (("`X`", "TODO: describe"),) * rows)
    assert change.describe(status, reason) == want
    value = Change("r", "d.md", 3, Splice(0, 1, "x"), "'ten' -> 'five'", ())
    assert value.describe(status, reason).endswith(": 'ten' -> 'five'")
