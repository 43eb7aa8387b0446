"""``driftguard fix`` on small trees: each fix kind, the safety checks, and this repository's config."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard import quantities
from driftguard.config.loader import load_config
from driftguard.documents.reader import parse_document
from driftguard.fix import MAY_BE_RIGHT, FixOutcome, apply_fixes, plan_fixes, render_fix
from driftguard.fix.edits import TODO, EditRefused, layout_row, row_splice, value_splice
from driftguard.model import ConfigError, Kind, Value
from tests.helpers import check, edit, judge, own

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''\
from datetime import timedelta
from enum import Enum


class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"


TTL = timedelta(minutes=10)
LIMIT = 75.0
STALE = timedelta(hours=48)
'''

GO = '''\
package fsm

type SessionState string

const (
\tStateResolving SessionState = "RESOLVING"
\tStateReading   SessionState = "READING"
)
'''

DOC = '''\
# Machine

| State  | What it means |
|--------|---------------|
| `IDLE` | nothing to do |
| `BUSY` | working       |

Entries expire after ten minutes.

```
Entries expire after ten minutes.
| Limit | 75% |
```

| Threshold | Default |
|---|---|
| Limit | 75% |
| Stale | 48 hours |

| Go state | Meaning |
| --- | --- |
| `RESOLVING` | looking |
| `READING` | reading |
'''

CONFIG = '''\
version: 1
facts:
  states: {file: src/fsm.py, constants: {type: State}}
  go_states: {file: src/fsm.go, constants: {type: SessionState}}
  ttl: {file: src/fsm.py, constant: TTL}
  limit: {file: src/fsm.py, constant: LIMIT}
  stale: {file: src/fsm.py, constant: STALE}
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State}
  - {id: go-states, fact: go_states, doc: docs/m.md, table: Go state}
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: limits, doc: docs/m.md, table: Threshold, column: Default, rows: {Limit: limit, Stale: stale}}
'''


def make(base: Path, doc: str | bytes = DOC, source: str = SOURCE, go: str = GO, config: str = CONFIG) -> Path:
    for rel, body in {"src/fsm.py": source, "src/fsm.go": go, "driftguard.yaml": config, "docs/m.md": doc}.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    return base


def fix(root: Path, dry_run: bool = False, rules: list[str] | None = None) -> FixOutcome:
    return apply_fixes(plan_fixes(load_config(root / "driftguard.yaml"), rules), dry_run=dry_run)


def doc_of(root: Path) -> str:
    return (root / "docs/m.md").read_bytes().decode("utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Callable[..., Path]:
    return lambda **kw: make(tmp_path / "repo", **kw)


# -- each fix kind --------------------------------------------------------------


def test_a_word_number_in_a_phrase_keeps_its_words(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert doc_of(root) == DOC.replace("Entries expire after ten minutes.\n\n```",
                                       "Entries expire after fifteen minutes.\n\n```")
    assert "'ten minutes' -> 'fifteen minutes'" in render_fix(outcome)
    assert judge(root).ok


def test_a_percent_cell_stays_a_percent_and_the_code_block_is_left_alone(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("LIMIT = 75.0", "LIMIT = 80.0"))
    outcome = fix(root)
    assert outcome.exit_code == 0
    text = doc_of(root)
    assert "| Limit | 80% |\n| Stale" in text
    assert "```\nEntries expire after ten minutes.\n| Limit | 75% |\n```" in text  # the fence is untouched
    assert text == DOC.replace("| Limit | 75% |\n| Stale", "| Limit | 80% |\n| Stale")


def test_hours_stay_hours(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("hours=48", "hours=72"))
    assert fix(root).exit_code == 0
    assert doc_of(root) == DOC.replace("| Stale | 48 hours |", "| Stale | 72 hours |")


def test_a_new_enum_member_gets_an_aligned_row(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace('BUSY = "BUSY"\n', 'BUSY = "BUSY"\n    DONE = "DONE"\n'))
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert doc_of(root) == DOC.replace("| `BUSY` | working       |\n",
                                       "| `BUSY` | working       |\n| `DONE` | TODO: describe |\n")
    assert judge(root).ok


def test_a_new_go_const_gets_a_row_in_backticks(repo: Callable[..., Path]) -> None:
    go = GO.replace('"READING"\n', '"READING"\n\tStateVerifying SessionState = "VERIFYING"\n')
    root = repo(go=go)
    assert fix(root).exit_code == 0
    assert doc_of(root).endswith("| `READING` | reading |\n| `VERIFYING` | TODO: describe |\n")


def test_several_missing_values_become_rows_in_code_order(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace('BUSY = "BUSY"\n', 'BUSY = "BUSY"\n    B = "B"\n    A = "A"\n'))
    assert fix(root).exit_code == 0
    assert "| `BUSY` | working       |\n| `B`    | TODO: describe |\n| `A`    | TODO: describe |\n" in doc_of(root)


def test_every_kind_at_once_on_a_crlf_document(repo: Callable[..., Path]) -> None:
    source = SOURCE.replace("minutes=10", "minutes=15").replace("LIMIT = 75.0", "LIMIT = 80.0")
    source = source.replace('BUSY = "BUSY"\n', 'BUSY = "BUSY"\n    DONE = "DONE"\n')
    root = repo(doc=DOC.replace("\n", "\r\n"), source=source)
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    data = (root / "docs/m.md").read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") == DOC.count("\n") + 1
    assert b"| `BUSY` | working       |\r\n| `DONE` | TODO: describe |\r\n" in data
    assert b"expire after fifteen minutes.\r\n" in data and b"| Limit | 80% |\r\n" in data
    assert judge(root).ok


def test_a_bom_stays_and_is_not_doubled(repo: Callable[..., Path]) -> None:
    root = repo(doc=b"\xef\xbb\xbf" + DOC.encode(), source=SOURCE.replace("hours=48", "hours=72"))
    assert fix(root).exit_code == 0
    data = (root / "docs/m.md").read_bytes()
    assert data == b"\xef\xbb\xbf" + DOC.replace("48 hours", "72 hours").encode()


def test_no_trailing_newline_stays_absent(repo: Callable[..., Path]) -> None:
    go = GO.replace('"READING"\n', '"READING"\n\tStateVerifying SessionState = "VERIFYING"\n')
    root = repo(doc=DOC.rstrip("\n"), go=go)
    assert fix(root).exit_code == 0
    assert doc_of(root) == DOC.rstrip("\n") + "\n| `VERIFYING` | TODO: describe |"


def test_a_wrapped_or_marked_up_value_keeps_its_wrap_and_markup(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("Entries expire after ten minutes.\n\n```",
                      "Entries expire after **ten**\nminutes.\n\n```")
    root = repo(doc=doc, source=SOURCE.replace("minutes=10", "minutes=15"))
    assert fix(root).exit_code == 0
    assert "Entries expire after **fifteen**\nminutes.\n" in doc_of(root)


def test_a_row_in_a_blockquote_keeps_its_prefix() -> None:
    assert layout_row("> | `A` | x |", ["`LONGER`", "TODO: describe"]) == "> | `LONGER` | TODO: describe |"
    assert layout_row("`A` | x", ["`B`", "TODO: describe"]) == "`B` | TODO: describe"
    assert layout_row("|`A`|x|", ["`B`", "y"]) == "|`B`|y|"


def test_the_value_splice_touches_only_the_changed_words() -> None:
    text = "after ten minutes."
    s = value_splice(text, (6, 17), "ten minutes", "fifteen minutes")
    assert (s.start, s.end, s.new) == (6, 9, "fifteen")
    s = value_splice("| 75.0% |", (2, 7), "75.0%", "80.0%")
    assert (s.start, s.end, s.new) == (2, 6, "80.0")


# -- what is not fixed ------------------------------------------------------------


def test_missing_in_code_is_listed_not_fixed(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("| `BUSY` | working       |\n", "| `BUSY` | working       |\n| `GHOST` | gone |\n")
    root = repo(doc=doc)
    outcome = fix(root)
    assert outcome.exit_code == 1
    assert doc_of(root) == doc
    out = render_fix(outcome)
    assert f"{MAY_BE_RIGHT}: `GHOST`" in out and "states" in out
    assert [u.finding.value for u in outcome.unfixed] == ["GHOST"]


def test_a_missing_claim_is_listed_as_not_fixable(repo: Callable[..., Path]) -> None:
    root = repo(doc=DOC.replace("Entries expire after ten minutes.\n\n", ""))
    outcome = fix(root)
    assert outcome.exit_code == 1
    assert "not fixable" in render_fix(outcome) and "claim-not-found" in render_fix(outcome)


def test_only_the_named_rules_are_fixed(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15").replace("hours=48", "hours=72"))
    outcome = fix(root, rules=["ttl"])
    assert outcome.exit_code == 0
    assert "fifteen minutes" in doc_of(root) and "48 hours" in doc_of(root)
    with pytest.raises(ConfigError, match="did you mean 'ttl'"):
        plan_fixes(load_config(root / "driftguard.yaml"), ["ttl1"])


# -- idempotence, dry run, clean documents -----------------------------------------


def test_a_second_fix_changes_nothing(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15").replace('BUSY = "BUSY"\n',
                                                                         'BUSY = "BUSY"\n    DONE = "DONE"\n'))
    assert fix(root).exit_code == 0
    first = (root / "docs/m.md").read_bytes()
    os.utime(root / "docs/m.md", ns=(1_000_000_000, 1_000_000_000))
    again = fix(root)
    assert again.exit_code == 0 and again.docs == ()
    assert (root / "docs/m.md").read_bytes() == first
    assert (root / "docs/m.md").stat().st_mtime_ns == 1_000_000_000


def test_a_clean_document_is_not_written(repo: Callable[..., Path]) -> None:
    root = repo()
    os.utime(root / "docs/m.md", ns=(1_000_000_000, 1_000_000_000))
    outcome = fix(root)
    assert outcome.exit_code == 0 and outcome.docs == ()
    assert doc_of(root) == DOC and (root / "docs/m.md").stat().st_mtime_ns == 1_000_000_000
    assert "nothing remains" in render_fix(outcome)


def test_dry_run_prints_a_diff_and_writes_nothing(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    outcome = fix(root, dry_run=True)
    out = render_fix(outcome)
    assert outcome.exit_code == 1  # the drift is still on disk
    assert "--- a/docs/m.md\n+++ b/docs/m.md\n" in out
    assert "\n-Entries expire after ten minutes.\n+Entries expire after fifteen minutes.\n" in out
    assert doc_of(root) == DOC
    assert "nothing written" in out


def test_the_file_mode_is_kept(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    os.chmod(root / "docs/m.md", 0o640)
    assert fix(root).exit_code == 0
    assert (root / "docs/m.md").stat().st_mode & 0o777 == 0o640


# -- safety -------------------------------------------------------------------------


def test_a_failed_write_leaves_the_original(repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))

    def boom(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    outcome = fix(root)
    assert outcome.exit_code == 2
    assert doc_of(root) == DOC
    assert sorted(p.name for p in (root / "docs").iterdir()) == ["m.md"]  # no temporary file left
    assert "No space left on device" in render_fix(outcome)


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "m.md").write_text(DOC, encoding="utf-8")
    root = make(tmp_path / "repo", source=SOURCE.replace("minutes=10", "minutes=15"))
    (root / "docs/m.md").unlink()
    (root / "docs/m.md").symlink_to(outside / "m.md")
    outcome = fix(root)
    assert outcome.exit_code == 2
    assert (outside / "m.md").read_text(encoding="utf-8") == DOC
    assert "leaves the root" in render_fix(outcome)


def test_a_symlink_inside_the_root_is_written_through(tmp_path: Path) -> None:
    root = make(tmp_path / "repo", source=SOURCE.replace("minutes=10", "minutes=15"))
    (root / "docs/m.md").rename(root / "docs/real.md")
    (root / "docs/m.md").symlink_to("real.md")
    assert fix(root).exit_code == 0
    assert (root / "docs/m.md").is_symlink()
    assert "fifteen minutes" in (root / "docs/real.md").read_text(encoding="utf-8")


def test_a_fix_that_would_not_pass_is_refused(repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15").replace("hours=48", "hours=72"))
    real = quantities.format_like
    monkeypatch.setattr(quantities, "format_like",
                        lambda new, like: "sixteen minutes" if "minutes" in like.text else real(new, like))
    outcome = fix(root)
    assert outcome.exit_code == 1
    assert doc_of(root) == DOC  # the good fix in the same document is not written either
    out = render_fix(outcome)
    assert "refused: nothing written: rule 'ttl' would still fail" in out
    assert "not fixed: 'ten minutes' -> 'sixteen minutes'" in out


def test_a_fix_that_would_change_the_structure_is_refused(repo: Callable[..., Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    monkeypatch.setattr(quantities, "format_like", lambda new, like: "fifteen minutes.\n\n# Injected\n\nAnd")
    outcome = fix(root)
    assert outcome.exit_code == 1
    assert doc_of(root) == DOC
    assert "structure would change" in render_fix(outcome)


def test_a_document_changed_since_planning_is_not_overwritten(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    plan = plan_fixes(load_config(root / "driftguard.yaml"))
    edited = DOC + "\nA line someone just added.\n"
    (root / "docs/m.md").write_text(edited, encoding="utf-8")
    outcome = apply_fixes(plan, dry_run=False)
    assert outcome.exit_code == 2
    assert doc_of(root) == edited
    assert "changed since driftguard read it" in render_fix(outcome)


# -- this repository's own config -------------------------------------------------------


def test_the_shipped_config_is_fixed_after_a_threshold_changes(own_repository: Path, shared_cache: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root = own_repository
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(shared_cache))  # check's runs: parsed once per session
    own(*(root / "docs").glob("*.md"), root / "README.md")  # fix refuses a document with another hard link
    signals = root / "reference_impl/ai/patrol_signals/types.py"
    edit(signals, "SIGNAL_HIGH_CPU_PERCENT = 70.0", "SIGNAL_HIGH_CPU_PERCENT = 85.0")
    assert check(capsys, root)[0] == 1
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    patrol = (root / "docs/PATROL_ARCHITECTURE.md").read_text(encoding="utf-8")
    assert "| High CPU | 85% |" in patrol and "| High CPU | 70% |" not in patrol
    code, out = check(capsys, root)
    assert code == 0, out


# -- properties -------------------------------------------------------------------------

_VALUE = st.text(alphabet="abcXYZ_09|`*-.", min_size=1, max_size=12).filter(lambda v: v.strip("`") != "")


@settings(deadline=None, max_examples=200)
@given(
    columns=st.integers(1, 4),
    column=st.integers(0, 3),
    widths=st.lists(st.integers(0, 6), min_size=4, max_size=4),
    lead=st.booleans(),
    trail=st.booleans(),
    coded=st.booleans(),
    values=st.lists(_VALUE, min_size=1, max_size=3),
    crlf=st.booleans(),
)
def test_added_rows_read_back_as_the_planned_cells(columns: int, column: int, widths: list[int], lead: bool,
                                                   trail: bool, coded: bool, values: list[str], crlf: bool) -> None:
    column = min(column, columns - 1)
    eol = "\r\n" if crlf else "\n"
    if columns == 1:
        lead = True  # a one-column table needs a pipe to be a table

    def row(cells: list[str]) -> str:
        padded = [c + " " * widths[i] for i, c in enumerate(cells)]
        return ("| " if lead else "") + " | ".join(padded) + (" |" if trail or columns == 1 else "")

    header = row([f"H{i}" for i in range(columns)])
    rule = row(["---"] * columns)
    body = row(["`old`" if coded and i == column else f"c{i}" for i in range(columns)])
    text = eol.join(["# T", "", header, rule, body, "", "After."]) + eol
    table = parse_document("t.md", text).tables[0]
    splice, _ = row_splice(text, table, column, values)
    new = text[:splice.start] + splice.new + text[splice.end:]
    again = parse_document("t.md", new).tables[0]
    assert len(again.rows) == 1 + len(values)
    for value, added in zip(values, again.rows[1:]):
        got = [c.code_texts[0] if i == column and coded else c.text for i, c in enumerate(added.cells)]
        want = [value if i == column else TODO for i in range(columns)]
        assert got == want
    assert new.count("\n") == text.count("\n") + len(values)
    assert new.count("\r\n") == (new.count("\n") if crlf else 0)


_STATED = st.sampled_from(["ten minutes", "75%", "48 hours", "1h30m", "three times", "an hour", "2 days",
                           "75.0", "twenty-four hours", "90s", "half an hour", "5 min"])


@settings(deadline=None, max_examples=300)
@given(stated=_STATED, amount=st.integers(1, 500), wrapped=st.booleans())
def test_a_spliced_value_reads_back_as_the_code_value(stated: str, amount: int, wrapped: bool) -> None:
    old = quantities.parse_quantity(stated)
    new = Value(old.kind, float(amount * (60 if old.kind is Kind.DURATION else 1)))
    written = quantities.format_like(new, old)
    source = stated.replace(" ", "\n", 1) if wrapped else stated
    text = f"It is {source} here."
    span = (6, 6 + len(source))
    try:
        s = value_splice(text, span, stated, written)
    except EditRefused as exc:  # the same spelling: nothing to rewrite
        assert written == stated, exc
        return
    out = text[:s.start] + s.new + text[s.end:]
    assert out.startswith("It is ") and out.endswith(" here.")
    region = out[6:len(out) - len(" here.")]
    assert quantities.parse_quantity(" ".join(region.split())).same(new)
    assert region.count("\n") == source.count("\n") or " " not in written


def test_every_stale_occurrence_in_one_sentence_is_rewritten(repo: Callable[..., Path]) -> None:
    doc = DOC.replace("Entries expire after ten minutes.\n\n```",
                      "Entries expire after ten minutes and tokens expire after five minutes.\n\n```")
    root = repo(doc=doc, source=SOURCE.replace("minutes=10", "minutes=15"))
    outcome = fix(root)
    assert outcome.exit_code == 0, render_fix(outcome)
    assert "Entries expire after fifteen minutes and tokens expire after fifteen minutes." in doc_of(root)
    assert "'ten minutes' -> 'fifteen minutes'" in render_fix(outcome)
    assert "'five minutes' -> 'fifteen minutes'" in render_fix(outcome)
    assert judge(root).ok


def test_a_temp_file_left_by_a_killed_fix_is_removed_by_the_next_one(repo: Callable[..., Path]) -> None:
    root = repo(source=SOURCE.replace("minutes=10", "minutes=15"))
    stale = root / "docs" / ".m.md.abc123.driftguard-tmp"
    fresh = root / "docs" / ".m.md.def456.driftguard-tmp"
    other = root / "docs" / ".notes.md.abc123.driftguard-tmp"
    for temp in (stale, fresh, other):
        temp.write_text("half a document")
    old = os.path.getmtime(stale) - 3600
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    assert fix(root).exit_code == 0
    assert not stale.exists()  # ours, for this document, and an hour old
    assert fresh.exists() and other.exists()  # maybe another run's; another document's
    assert "fifteen minutes" in doc_of(root)
