"""``check --format github``: workflow commands, escaped as the Actions toolkit does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.cli import main
from driftguard.model import FINDING_KINDS, ConfigError, Finding, Location
from driftguard.reporters import github

Tree = Callable[[dict[str, str | bytes]], Path]

SOURCE = '''
from datetime import timedelta
from enum import Enum


class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"
    DONE = "DONE"


TTL = timedelta(minutes=15)
'''

DOC = '''
# Machine

| State | What it means |
|---|---|
| `IDLE` | nothing to do |
| `BUSY` | working |
| `GONE` | retired |

Entries expire after ten minutes.
'''

CONFIG = '''
version: 1
facts:
  states: {file: src/fsm.py, constants: {type: State}}
  ttl: {file: src/fsm.py, constant: TTL}
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State, why: 'every state, both ways'}
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: unread, fact: states, doc: docs/gone.md, table: State}
'''

EXPECTED = (
    "::error file=docs/m.md,line=3,title=driftguard states::"
    "`DONE` is declared in code but missing from the 'State' table (source: src/fsm.py:8)"
    "%0Awhy: every state, both ways\n"
    "::error file=docs/m.md,line=7,title=driftguard states::"
    "`GONE` is stated in the 'State' table but not declared in code (facts: states) (declared: src/fsm.py:5, class State)"
    "%0Awhy: every state, both ways\n"
    "::error file=docs/m.md,line=9,title=driftguard ttl::"
    "the sentence 'expire after {value}' says 'ten minutes' (duration 10m) but the code has "
    "`timedelta(minutes=15)` (duration 15m); the document should say 'fifteen minutes' (source: src/fsm.py:11)\n"
    "::error file=docs/gone.md,title=driftguard unread::file not found\n"
    "driftguard: 3 rules: 0 passed, 2 failed, 1 error\n"
)


@pytest.fixture
def drifted(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tree({"src/fsm.py": SOURCE, "docs/m.md": DOC, "driftguard.yaml": CONFIG})
    monkeypatch.chdir(root)
    return root


def test_drifted_tree_gives_exact_annotations(drifted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--config", str(drifted / "driftguard.yaml"), "--format", "github"])
    out = capsys.readouterr().out
    assert out == EXPECTED
    assert code == 2  # the unreadable document is an error, never a pass


def test_clean_tree_prints_only_the_summary(tree: Tree, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = SOURCE.replace('    DONE = "DONE"\n', "").replace("minutes=15", "minutes=10")
    doc = DOC.replace("| `GONE` | retired |\n", "")
    config = "\n".join(line for line in CONFIG.splitlines() if "unread" not in line)
    root = tree({"src/fsm.py": source, "docs/m.md": doc, "driftguard.yaml": config})
    monkeypatch.chdir(root)
    assert main(["check", "--format", "github"]) == 0
    assert capsys.readouterr().out == "driftguard: 2 rules: 2 passed\n"


@pytest.mark.parametrize(
    "raw, data, prop",
    [
        ("plain text", "plain text", "plain text"),
        ("100%", "100%25", "100%25"),
        ("a\rb", "a%0Db", "a%0Db"),
        ("a\nb", "a%0Ab", "a%0Ab"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("path:12", "path:12", "path%3A12"),
        ("a,b", "a,b", "a%2Cb"),
        ("%0A", "%250A", "%250A"),
        ("50%: x,\ny", "50%25: x,%0Ay", "50%25%3A x%2C%0Ay"),
        ("::error::", "::error::", "%3A%3Aerror%3A%3A"),
    ],
)
def test_escaping_table(raw: str, data: str, prop: str) -> None:
    assert github.escape_data(raw) == data
    assert github.escape_property(raw) == prop


def _unescape(text: str) -> str:
    """What the runner does with an escaped value: ``%25`` last."""
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


@settings(deadline=None, max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("%\r\n:,ab0ADC2535 ")) | st.characters(), max_size=40))
def test_escaping_round_trips_and_leaves_no_separator(text: str) -> None:
    data, prop = github.escape_data(text), github.escape_property(text)
    assert _unescape(data) == text and _unescape(prop) == text
    assert not set("\r\n") & set(data)
    assert not set("\r\n:,") & set(prop)


def test_properties_and_message_are_escaped_in_a_command() -> None:
    kind = FINDING_KINDS["value-mismatch"]
    f = Finding(kind, "odd:rule,id", "says 50%\r\nnot 60%", value="50%",
                doc=Location("docs/a,b:c.md", 4), source=Location("src/x.py", 9))
    assert github.annotation(f) == (
        "::error file=docs/a%2Cb%3Ac.md,line=4,title=driftguard odd%3Arule%2Cid::"
        "says 50%25%0D%0Anot 60%25 (source: src/x.py:9)"
    )


def test_finding_without_doc_uses_the_source_and_without_either_has_no_file() -> None:
    kind = FINDING_KINDS["parse-error"]
    on_source = Finding(kind, "r", "bad syntax", source=Location("src/x.go", 3))
    assert github.annotation(on_source) == "::error file=src/x.go,line=3,title=driftguard r::bad syntax"
    nowhere = Finding(kind, "r", "bad")
    assert github.annotation(nowhere) == "::error title=driftguard r::bad"


def test_render_error_gives_a_relative_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exc = ConfigError("rules[0].id: expected a string", Location(str(tmp_path / "cfg" / "driftguard.yaml"), 7))
    assert github.render_error(exc) == (
        "::error file=cfg/driftguard.yaml,line=7,title=driftguard config-error::rules[0].id: expected a string\n"
    )
    outside = ConfigError("nope", Location("/elsewhere/x.yaml"))
    assert github.render_error(outside) == "::error file=/elsewhere/x.yaml,title=driftguard config-error::nope\n"
    assert github.render_error(ConfigError("no config")) == "::error title=driftguard config-error::no config\n"


def test_config_error_becomes_an_annotation_on_stdout(tree: Tree, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = tree({"driftguard.yaml": "version: 1\nrules:\n  - {id: x, fact: nothing, doc: a.md, table: T}\n"})
    monkeypatch.chdir(root)
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--format", "github"]) == 2
    captured = capsys.readouterr()
    line = captured.out.strip()
    assert line.startswith("::error file=driftguard.yaml,line=3,title=driftguard config-error::"), line
    assert "nothing" in line and captured.out.count("\n") == 1
    assert "error" in captured.err  # stderr still says it for people reading the log


def test_missing_config_in_each_machine_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--config", "none.yaml", "--format", "github"]) == 2
    assert capsys.readouterr().out == "::error file=none.yaml,title=driftguard config-error::config file not found\n"

    assert main(["report", "--config", "none.yaml", "--format", "json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and doc["rules"] == [] and doc["findings"] == []
    assert doc["error"] == {"code": "DG203", "kind": "config-error", "message": "config file not found",
                            "location": {"path": "none.yaml", "line": None}}
    assert doc["summary"] == {"rules": 0, "passed": 0, "failed": 0, "errors": 1}

    assert main(["check", "--config", "none.yaml"]) == 2  # text: stderr only
    captured = capsys.readouterr()
    assert captured.out == "" and "config file not found" in captured.err
