"""``driftguard coverage``: which claim-shaped spans of the documents a rule reads,
in the text and JSON formats, with --show-missing, --fail-under and PATHS."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.cli import build_parser
from driftguard.config.loader import load_config
from driftguard.coverage.measure import measure_coverage
from driftguard.coverage.model import SpanKind, percent
from tests.helpers import run_cli

Tree = Callable[[dict[str, str | bytes]], Path]
ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''
package fsm

import "time"

type State string

const (
	StateIdle State = "IDLE"
	StateBusy State = "BUSY"
)

const TTL = 10 * time.Minute

const Warn = 75
'''

# Six claim-shaped spans: `IDLE` (5) and `BUSY` (6), "ten minutes" (8), "30 seconds" (9),
# the row label "Storage warning" and its "75%" (13). Not counted: header cells, the
# second-column words, "a second" (an ordinal as often as a duration), the bare 3 (no option's noun), and
# everything in the indented and the fenced code.
DOC = '''
# Machine

| State | Meaning |
|---|---|
| `IDLE` | idle |
| `BUSY` | busy |

Entries expire after ten minutes.
Retries back off for 30 seconds, in 3 tries, with a second look.

| Threshold | Default |
|---|---|
| Storage warning | 75% |

    indented `CODE` waits 5 minutes

```go
x := `fenced` // 10 seconds and 50%
```
'''

OTHER = '''
# Other

| State | Meaning |
|---|---|
| `IDLE` | idle |
'''

NOTES = "# Notes\n\nUploads stop at `MaxUpload`, 5 MiB.\n"

HEAD = '''
version: 1
facts:
  states: {file: fsm.go, constants: {type: State}}
  ttl: {file: fsm.go, constant: TTL}
  warn: {file: fsm.go, constant: Warn}
rules:
  - {id: states, fact: states, doc: m.md, table: State}
  - {id: other, fact: states, doc: other.md, table: State, direction: doc-to-code}
'''
TTL_RULE = "  - {id: ttl, fact: ttl, doc: m.md, phrase: 'expire after {value}'}\n"
ROWS_RULE = "  - {id: thresholds, doc: m.md, table: Threshold, column: Default, rows: {Storage warning: warn}}\n"


def config(*rules: str) -> str:
    return HEAD.lstrip("\n") + "".join(rules)


@pytest.fixture
def repo(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "other.md": OTHER, "notes/n.md": NOTES,
                 "driftguard.yaml": config(TTL_RULE, ROWS_RULE)})
    monkeypatch.chdir(root)
    return root


def measured(root: Path) -> dict[str, tuple[int, int]]:
    result = measure_coverage(load_config(root / "driftguard.yaml"))
    return {d.path: (len(d.spans), d.guarded) for d in result.documents}


def test_the_text_format_gives_each_document_spans_guarded_and_percent(repo: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "coverage")
    assert (code, err) == (0, "")
    assert out == ("m.md  6 spans  5 guarded  83%\n"
                   "other.md  1 spans  1 guarded  100%\n"
                   "total  7 spans  6 guarded  86%\n")


def test_show_missing_lists_the_unguarded_spans_under_their_document(repo: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "driftguard.yaml").write_text(config(ROWS_RULE))
    code, out, _ = run_cli(capsys, "coverage", "--show-missing")
    assert code == 0
    assert out.splitlines() == [
        "m.md  6 spans  4 guarded  67%",
        "  m.md:8: ten minutes",
        "  m.md:9: 30 seconds",
        "other.md  1 spans  1 guarded  100%",
        "total  7 spans  5 guarded  71%",
    ]


def test_the_json_format_has_the_documented_shape(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "coverage", "--format", "json")
    assert code == 0
    assert json.loads(out) == {
        "documents": [
            {"path": "m.md", "spans": 6, "guarded": 5, "percent": 83,
             "unguarded": [{"text": "30 seconds", "line": 9}]},
            {"path": "other.md", "spans": 1, "guarded": 1, "percent": 100, "unguarded": []},
        ],
        "total": {"spans": 7, "guarded": 6, "percent": 86},
    }


def test_spans_are_code_spans_labels_and_quantities_outside_code_blocks(repo: Path) -> None:
    result = measure_coverage(load_config(repo / "driftguard.yaml"), ["m.md"])
    (doc,) = result.documents
    found = [(c.span.kind, c.span.text, c.span.line) for c in doc.spans]
    assert found == [
        (SpanKind.CODE, "IDLE", 5), (SpanKind.CODE, "BUSY", 6),
        (SpanKind.QUANTITY, "ten minutes", 8), (SpanKind.QUANTITY, "30 seconds", 9),
        (SpanKind.LABEL, "Storage warning", 13), (SpanKind.QUANTITY, "75%", 13),
    ]
    assert [c.rules for c in doc.spans] == [("states",), ("states",), ("ttl",), (), ("thresholds",),
                                            ("thresholds",)]


def test_a_quantity_in_a_code_span_or_a_label_counts_once(tree: Tree) -> None:
    doc = "# D\n\nThe wait is `5 minutes` long.\n\n| Limit | Why |\n|---|---|\n| 10 MiB | size |\n"
    root = tree({"d.md": doc, "a.go": "package a\n\nconst A = 1\n",
                 "driftguard.yaml": "version: 1\nfacts:\n  a: {file: a.go, constant: A}\n"
                                    "rules:\n  - {id: a, fact: a, doc: d.md, phrase: 'is {value}'}\n"})
    result = measure_coverage(load_config(root / "driftguard.yaml"), ["d.md"])
    assert [(c.span.kind, c.span.text) for c in result.documents[0].spans] == [
        (SpanKind.CODE, "5 minutes"), (SpanKind.LABEL, "10 MiB")]


def test_removing_a_rule_lowers_its_documents_guarded_count_and_adding_one_raises_it(repo: Path) -> None:
    path = repo / "driftguard.yaml"
    path.write_text(config())
    bare = measured(repo)
    path.write_text(config(TTL_RULE))
    with_ttl = measured(repo)
    path.write_text(config(TTL_RULE, ROWS_RULE))
    with_both = measured(repo)
    assert bare == {"m.md": (6, 2), "other.md": (1, 1)}
    assert with_ttl == {"m.md": (6, 3), "other.md": (1, 1)}
    assert with_both == {"m.md": (6, 5), "other.md": (1, 1)}
    path.write_text(config(ROWS_RULE))
    assert measured(repo) == {"m.md": (6, 4), "other.md": (1, 1)}


def test_two_runs_on_the_same_tree_give_the_same_output(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("text", "json"):
        first = run_cli(capsys, "coverage", "--format", fmt, "--show-missing")
        assert run_cli(capsys, "coverage", "--format", fmt, "--show-missing") == first
    run_cli(capsys, "coverage", "--format", "html", "--output", "a.html")
    run_cli(capsys, "coverage", "--format", "html", "--output", "b.html", "--no-cache")
    assert (repo / "a.html").read_bytes() == (repo / "b.html").read_bytes()


@pytest.mark.parametrize(("threshold", "code"), [("0", 0), ("86", 0), ("86.5", 1), ("87", 1), ("100", 1)])
def test_fail_under_compares_the_total_as_shown(repo: Path, capsys: pytest.CaptureFixture[str],
                                                threshold: str, code: int) -> None:
    got, out, err = run_cli(capsys, "coverage", "--fail-under", threshold)
    assert got == code
    assert out.endswith("total  7 spans  6 guarded  86%\n")
    assert err == ("" if code == 0 else f"driftguard: total coverage 86% is below --fail-under {threshold}\n")


@pytest.mark.parametrize("threshold", ["-1", "100.5", "lots"])
def test_fail_under_outside_0_to_100_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str],
                                                      threshold: str) -> None:
    code, out, err = run_cli(capsys, "coverage", "--fail-under", threshold)
    assert code == 2 and out == "" and "--fail-under" in err


def test_paths_measure_only_those_documents_and_a_folder_its_markdown(repo: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "coverage", "other.md")[1] == "other.md  1 spans  1 guarded  100%\ntotal  1 spans  1 guarded  100%\n"
    code, out, _ = run_cli(capsys, "coverage", "notes", "--show-missing")
    assert code == 0
    assert out == ("notes/n.md  2 spans  0 guarded  0%\n  notes/n.md:3: `MaxUpload`\n  notes/n.md:3: 5 MiB\n"
                   "total  2 spans  0 guarded  0%\n")


def test_a_path_that_does_not_exist_is_an_error_naming_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "coverage", "nope.md")
    assert (code, out) == (2, "")
    assert err.startswith("nope.md: error: no such file or folder")


def test_a_document_that_cannot_be_read_is_an_error_and_the_others_are_still_measured(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "driftguard.yaml").write_text(config("  - {id: gone, fact: states, doc: gone.md, table: State}\n"))
    code, out, err = run_cli(capsys, "coverage")
    assert code == 2
    assert "m.md  6 spans  2 guarded  33%" in out.splitlines()
    assert re.match(r"gone\.md: error: ", err), err


def test_html_without_output_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "coverage", "--format", "html")
    assert (code, out) == (2, "")
    assert "--output" in err


@pytest.mark.parametrize(("guarded", "spans", "shown"), [
    (31, 42, 74),  # the example line
    (1, 2, 50), (5, 6, 83), (2, 3, 67),
    (199, 200, 99), (1999, 2000, 99),  # never 100 while one is unguarded
    (1, 1000, 1), (0, 5, 0),  # never 0 while one is guarded
    (5, 5, 100), (0, 0, 100),
])
def test_percent_rounds_half_up_but_never_claims_all_or_nothing_falsely(guarded: int, spans: int,
                                                                         shown: int) -> None:
    assert percent(guarded, spans) == shown


def test_every_coverage_option_is_documented_in_the_guide() -> None:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices["coverage"]
    options = {o for action in sub._actions for o in action.option_strings if o.startswith("--") and o != "--help"}
    guide = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = guide.split("## Coverage", 1)[1].split("\n## ", 1)[0]
    assert sorted(o for o in options if o not in section) == []
    assert "driftguard coverage" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_bare_number_that_states_an_options_value_is_claim_shaped_and_a_count_is_not():
    from driftguard.coverage.spans import claim_spans
    from driftguard.documents.reader import parse_document

    doc = parse_document("d.md", "# D\n\n- `max_connections` (Default 100)\n\nAt most 20 connections are kept. "
                                 "Concurrency is capped at four. If two histogram samples match, once a chunk is cut, "
                                 "it is one of many.\n")
    assert [s.text for s in claim_spans(doc) if s.kind.value == "quantity"] == ["100", "20", "four"]


def test_a_mentions_rule_guards_only_the_spans_it_compares(repo: Path) -> None:
    (repo / "notes/n.md").write_text("# Notes\n\nStates `IDLE` and `BUSY`; also `Other`, `Thing` and `Stuff`.\n")
    path = repo / "driftguard.yaml"
    path.write_text(config() + "  - {id: mentioned, fact: states, doc: notes/n.md, mentions: true}\n")
    assert measured(repo)["notes/n.md"] == (5, 2)  # five code spans; the rule compares the two the code has
