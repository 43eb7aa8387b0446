"""A new user's first ten minutes: ``check`` with no config says to run ``init``; ``init``
writes a config that passes on the day (today's findings in a baseline) and that
``selftest`` proves; a baseline holds known findings by rule, document and value, never
line; ``baseline --update`` drops the fixed ones; ``facts`` reads a config of facts alone,
or one selector from one file with no config at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.init import HEADER

from ..conftest import write_tree

GO = """\
package workflow

type State string

const (
\tStateQueued  State = "queued"
\tStateRunning State = "running"
\tStateDone    State = "done"
)
"""

DOC = """\
# Workflow

| State | Meaning |
|---|---|
| `queued` | waits |
| `running` | runs |
| `done` | ran |

See [the guide](guide.md#setup) and `StateQueued`.
"""

GUIDE = "# Guide\n\n## Install\n\nRun it.\n"


def _tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path, {"internal/workflow/state.go": GO, "docs/workflow.md": DOC, "docs/guide.md": GUIDE,
                                 "README.md": "# Tool\n\nRead [the docs](docs/workflow.md).\n"})


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_without_a_config_says_to_run_init(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_tree(tmp_path))
    code, _, err = _run(capsys, "check")
    assert code == 2
    assert "no driftguard.yaml here or above; run `driftguard init` to write one" in err


def test_init_writes_a_config_that_passes_today_and_selftest_proves(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    code, out, _ = _run(capsys, "init")
    assert code == 0, out
    text = (root / "driftguard.yaml").read_text()
    assert text.splitlines()[0] == HEADER
    assert "links: true" in text and "references: true" in text and "symbols: true" in text
    assert "docs/workflow.md:9: links: `guide.md#setup`" in out  # today's broken anchor, written to the baseline
    assert "next:" in out and "driftguard check" in out and "driftguard selftest" in out
    baseline = json.loads((root / "driftguard.baseline.json").read_text())
    assert [e["value"] for e in baseline["findings"]] == ["guide.md#setup"]
    code, out, _ = _run(capsys, "check")
    assert code == 0, out
    assert "1 known finding in the baseline not shown" in out
    code, out, _ = _run(capsys, "selftest")
    assert code == 0, out


def test_init_never_replaces_a_hand_written_config_and_replaces_its_own_only_with_force(tmp_path, capsys,
                                                                                         monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    (root / "driftguard.yaml").write_text("version: 1\nrules: []\n")
    assert _run(capsys, "init")[0] == 2
    code, _, err = _run(capsys, "init", "--force")
    assert code == 2 and "replaces only a config it wrote" in err
    assert (root / "driftguard.yaml").read_text() == "version: 1\nrules: []\n"
    (root / "driftguard.yaml").unlink()
    assert _run(capsys, "init")[0] == 0
    assert _run(capsys, "init")[0] == 2
    assert _run(capsys, "init", "--force")[0] == 0


def test_a_baseline_knows_a_finding_by_rule_document_and_value_not_line(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    assert _run(capsys, "init")[0] == 0
    (root / "docs/workflow.md").write_text("Intro line.\n\n" + DOC)  # the known link moves two lines down
    code, out, _ = _run(capsys, "check")
    assert code == 0, out
    (root / "docs/workflow.md").write_text(DOC.replace("guide.md#setup", "guide.md#setup") + "\nAnd [x](gone.md).\n")
    code, out, _ = _run(capsys, "check")
    assert code == 1
    assert "`gone.md`" in out and "guide.md#setup" not in out and "1 known finding in the baseline not shown" in out


def test_baseline_update_drops_the_fixed_and_adds_the_new_naming_each(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    assert _run(capsys, "init")[0] == 0
    (root / "docs/workflow.md").write_text(DOC.replace("guide.md#setup", "guide.md#install") + "[x](gone.md)\n")
    code, out, _ = _run(capsys, "baseline")
    assert code == 0 and "would write 1 findings" in out and "(run with --update to write it)" in out
    code, out, _ = _run(capsys, "baseline", "--update")
    assert code == 0
    assert "fixed, dropped: docs/workflow.md: links:" in out and "new, added: docs/workflow.md:" in out
    assert [e["value"] for e in json.loads((root / "driftguard.baseline.json").read_text())["findings"]] == \
        ["gone.md"]
    assert _run(capsys, "check")[0] == 0


def test_a_baseline_never_hides_an_error(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.chdir(root)
    assert _run(capsys, "init")[0] == 0
    (root / "internal/workflow/state.go").write_bytes(b"\xff\xfe not utf-8")
    assert _run(capsys, "check")[0] == 2


def test_facts_reads_a_config_of_facts_and_no_rules(tmp_path, capsys):
    root = _tree(tmp_path)
    (root / "driftguard.yaml").write_text("version: 1\nfacts:\n  states:\n    file: internal/workflow/state.go\n"
                                          "    constants: {type: State}\n")
    code, out, _ = _run(capsys, "facts", "--config", str(root / "driftguard.yaml"))
    assert code == 0
    assert "states (set of 3) from internal/workflow/state.go:" in out and ": running" in out
    assert _run(capsys, "check", "--config", str(root / "driftguard.yaml"))[0] == 2  # check still needs a rule


def test_facts_tries_one_selector_on_one_file_with_no_config(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_tree(tmp_path))
    code, out, _ = _run(capsys, "facts", "--file", "internal/workflow/state.go", "--select",
                        "constants: {type: State}")
    assert code == 0, out
    assert out.splitlines() == [
        "selected (set of 3) from internal/workflow/state.go:",
        '  internal/workflow/state.go:6: queued  ["queued"]',
        '  internal/workflow/state.go:7: running  ["running"]',
        '  internal/workflow/state.go:8: done  ["done"]',
    ]
    code, _, err = _run(capsys, "facts", "--file", "internal/workflow/state.go", "--select", "constants: State")
    assert code == 2 and "--select:1: error: facts.selected.constants: expected a mapping, got str 'State'" in err
    assert _run(capsys, "facts", "--select", "constants: {type: State}")[0] == 2
