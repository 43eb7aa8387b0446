"""The command line: exit codes, the text and JSON formats, facts, PATHS, --output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.cli import ExitCode, main
from tests.helpers import run_cli

Tree = Callable[[dict[str, str | bytes]], Path]

SOURCE = '''
package fsm

type State string

const (
	StateIdle State = "IDLE"
	StateBusy State = "BUSY"
)

const TTL = 10 * time.Minute
'''

DOC = '''
# Machine

| State | Meaning |
|---|---|
| `IDLE` | idle |
| `BUSY` | busy |

Entries expire after ten minutes.
'''

OTHER_DOC = '''
# Other

| State | Meaning |
|---|---|
| `IDLE` | idle |
'''

CONFIG = '''
version: 1
facts:
  states: {file: fsm.go, constants: {type: State}}
  ttl: {file: fsm.go, constant: TTL}
rules:
  - {id: states, fact: states, doc: m.md, table: State, why: all states}
  - {id: ttl, fact: ttl, doc: m.md, phrase: 'expire after {value}'}
  - {id: other, fact: states, doc: other.md, table: State, direction: doc-to-code}
'''

FINDING = re.compile(r"^(?P<doc>[\w./-]+):(?P<line>\d+): (?P<rule>[a-z0-9-]+): (?P<msg>.+?)( \(source: (?P<src>[\w./-]+:\d+)\))?$")


@pytest.fixture
def repo(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "other.md": OTHER_DOC, "driftguard.yaml": CONFIG})
    monkeypatch.chdir(root)
    return root


def test_clean_check_prints_one_summary_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "check")
    assert (code, out, err) == (ExitCode.CLEAN, "driftguard: 3 rules: 3 passed\n", "")


def test_drift_lines_follow_the_documented_format(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "fsm.go").write_text(SOURCE.replace('StateBusy State = "BUSY"', 'StateBusy State = "BUSY"\n\tStateDone State = "DONE"')
                                 .replace("10 * time.Minute", "15 * time.Minute").lstrip("\n"))
    code, out, _ = run_cli(capsys, "check")
    assert code == ExitCode.DRIFT
    lines = out.splitlines()
    assert lines[-1] == "driftguard: 3 rules: 1 passed, 2 failed"
    parsed = [FINDING.match(line) for line in lines if not line.startswith(("  why", "driftguard:"))]
    assert all(parsed), lines
    assert [(m["doc"], m["line"], m["rule"], m["src"]) for m in parsed] == [
        ("m.md", "3", "states", "fsm.go:8"),
        ("m.md", "8", "ttl", "fsm.go:11"),
    ]
    assert "`DONE`" in parsed[0]["msg"] and "fifteen minutes" in parsed[1]["msg"]
    assert "  why states: all states" in lines


def test_json_format_shape(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "m.md").write_text(DOC.replace("| `BUSY` | busy |", "| `BUSY` | busy |\n| `GONE` | gone |").lstrip("\n"))
    code, out, _ = run_cli(capsys, "check", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert data["summary"] == {"rules": 3, "passed": 2, "failed": 1, "errors": 0, "known": 0}
    assert [r["id"] for r in data["rules"]] == ["states", "ttl", "other"]
    assert [r["status"] for r in data["rules"]] == ["fail", "pass", "pass"]
    (finding,) = data["findings"]
    assert finding == {
        "code": "DG102", "kind": "missing-in-code", "rule": "states",
        "message": finding["message"], "value": "GONE",
        "doc": {"path": "m.md", "line": 7}, "source": {"path": "fsm.go", "line": 3},
    }  # the source of a missing-in-code finding is the declaration: `type State string`
    assert data["rules"][0]["findings"] == [finding]


def test_json_null_where_a_side_has_no_location(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "fsm.go").write_text(SOURCE.replace("const TTL = 10 * time.Minute", ""))
    code, out, _ = run_cli(capsys, "check", "--format", "json")
    (finding,) = json.loads(out)["findings"]
    assert code == 1 and finding["kind"] == "fact-not-found"
    assert finding["doc"] == {"path": "m.md", "line": None}


def test_output_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "check", "--format", "json", "--output", "out.json")
    assert code == 0 and out == ""
    assert json.loads((repo / "out.json").read_text())["ok"] is True


def test_paths_select_rules(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "m.md").write_text(DOC.replace("ten minutes", "five minutes"))
    assert run_cli(capsys, "check", "other.md")[:2] == (0, "driftguard: 1 rule: 1 passed\n")
    code, out, _ = run_cli(capsys, "check", "m.md")
    assert code == 1 and out.endswith("driftguard: 2 rules: 1 passed, 1 failed\n")
    (repo / "unrelated.txt").write_text("text\n")
    assert run_cli(capsys, "check", "unrelated.txt") == (
        0, "driftguard: 0 rules: 0 passed\n", "driftguard: no rule reads unrelated.txt; nothing to judge\n")


def test_a_path_that_does_not_exist_is_an_error_naming_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "check", "m.md", "docs/nonexist.md")
    assert code == 2 and out == ""
    assert "docs/nonexist.md: error: no such file or folder" in err and "Traceback" not in err


def test_report_lists_rules_facts_and_mismatches(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "m.md").write_text(DOC.replace("ten minutes", "five minutes"))
    code, out, _ = run_cli(capsys, "report")
    assert code == 1
    assert "PASS  states  (m.md)" in out and "FAIL  ttl  (m.md)" in out
    assert re.search(r"IDLE\s+fsm.go:6", out) and re.search(r"10m\s+fsm.go:10", out)
    assert "Mismatches (1):" in out and "value-mismatch" in out
    code, out, _ = run_cli(capsys, "report", "--format", "markdown")
    assert code == 1 and "| `ttl` | FAIL | m.md |" in out and "## Mismatches" in out
    data = json.loads(run_cli(capsys, "report", "--format", "json")[1])
    assert data["rules"][0]["facts"][0]["values"][0] == {
        "value": "IDLE", "text": '"IDLE"', "kind": "string", "source": {"path": "fsm.go", "line": 6},
    }


def test_facts_command(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "facts")
    assert code == 0
    assert out.splitlines() == [
        "states (set of 2) from fsm.go:", '  fsm.go:6: IDLE  ["IDLE"]', '  fsm.go:7: BUSY  ["BUSY"]',
        "ttl (scalar) from fsm.go:", "  fsm.go:10: 10m  [10 * time.Minute]",
    ]
    code, _, err = run_cli(capsys, "facts", "nope")
    assert code == 2 and "unknown fact(s): nope" in err


@pytest.mark.parametrize(
    "files, argv, words",
    [
        ({"driftguard.yaml": "version: 1\nrules: [\n"}, ["check"], ["driftguard.yaml:3", "not valid YAML"]),
        ({"driftguard.yaml": CONFIG.replace("table: State, why", "tabel: State, why")}, ["check"], ["unknown key rules[0].tabel"]),
        ({}, ["check"], ["no driftguard.yaml"]),
        ({"driftguard.yaml": CONFIG}, ["check", "--config", "missing.yaml"], ["missing.yaml", "not found"]),
        ({"driftguard.yaml": CONFIG}, ["check", "--root", "nowhere"], ["--root nowhere"]),
    ],
)
def test_errors_exit_2_with_file_and_line(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    files: dict[str, str], argv: list[str], words: list[str],
) -> None:
    root = tree({".git/HEAD": "ref: main\n", **files})
    monkeypatch.chdir(root)
    code, out, err = run_cli(capsys, *argv)
    assert code == ExitCode.ERROR
    assert "Traceback" not in out + err
    for word in words:
        assert word in err


def test_missing_source_is_exit_2_not_a_pass(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "fsm.go").unlink()
    code, out, _ = run_cli(capsys, "check")
    assert code == 2 and "m.md: states: fact 'states': file not found (source: fsm.go)" in out
    assert out.endswith("driftguard: 3 rules: 0 passed, 3 errors\n")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "yaml"]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["--version"]) == 0
    assert "driftguard 0.1.0" in capsys.readouterr().out


def test_go_only_check_never_imports_libcst(repo: Path) -> None:
    code = (
        "import sys\nfrom driftguard.cli import main\n"
        "rc = main(['check'])\nassert 'libcst' not in sys.modules, 'libcst imported'\nsys.exit(rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout


def test_module_entry_point(repo: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "driftguard", "check"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "driftguard: 3 rules: 3 passed\n"


def test_selftest_command(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    code, out, _ = run_cli(capsys, "selftest")
    assert code == 0, out
    assert re.search(r"^states\s+code: new member", out, re.M) and "caught" in out and "MISSED" not in out
    assert before == {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}


def test_fix_command_dry_run_then_write(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "fsm.go").write_text(SOURCE.replace("10 * time.Minute", "15 * time.Minute").lstrip("\n"))
    before = (repo / "m.md").read_bytes()
    code, out, _ = run_cli(capsys, "fix", "--dry-run")
    assert code == 1 and "-Entries expire after ten minutes." in out and "+Entries expire after fifteen minutes." in out
    assert (repo / "m.md").read_bytes() == before
    code, out, _ = run_cli(capsys, "fix")
    assert code == 0, out
    assert "expire after fifteen minutes." in (repo / "m.md").read_text()
    assert run_cli(capsys, "check")[0] == 0
    assert run_cli(capsys, "fix", "nope")[0] == 2


def test_discover_command_writes_a_config_check_can_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pulse = Path(__file__).resolve().parents[1] / "fixtures" / "pulse"
    out_file = tmp_path / "proposed.yaml"
    code, out, err = run_cli(capsys, "discover", "--root", str(pulse), "--output", str(out_file), "--jobs", "1")
    assert code == 0 and out == "" and "proposals:" in err
    assert "constants: {type: SessionState}" in out_file.read_text()
    assert run_cli(capsys, "check", "--config", str(out_file), "--root", str(pulse))[0] == 0
    assert run_cli(capsys, "discover", "--root", str(tmp_path / "nowhere"))[0] == 2


def test_terminal_escapes_in_source_strings_are_shown_escaped(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = SOURCE.replace('"BUSY"', '"\\x1b]0;pwned\\x07\\x1b[2J"')  # retitle, then clear the screen
    root = tree({"fsm.go": hostile, "m.md": DOC, "other.md": OTHER_DOC, "driftguard.yaml": CONFIG})
    monkeypatch.chdir(root)
    for command in (["check"], ["report"], ["facts", "states"]):
        code, out, err = run_cli(capsys, *command)
        assert "\x1b" not in out + err and "\x07" not in out + err, command
    code, out, _ = run_cli(capsys, "check")
    assert code == 1 and "\\x1b]0;pwned\\x07\\x1b[2J" in out


@pytest.mark.parametrize("target", ["driftguard.yaml", "m.md", "fsm.go", "./sub/../m.md"])
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_output_never_overwrites_a_file_the_run_reads(
    repo: Path, capsys: pytest.CaptureFixture[str], target: str, fmt: str
) -> None:
    (repo / "sub").mkdir()
    before = {p: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    code, out, err = run_cli(capsys, "check", "--format", fmt, "--output", target)
    assert code == 2 and "which this run reads; nothing was written" in err and "Traceback" not in err
    assert {p: p.read_bytes() for p in repo.iterdir() if p.is_file()} == before


def test_output_into_a_missing_folder_is_a_clean_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "check", "--output", "nowhere/out.txt")
    assert code == 2 and "the folder nowhere does not exist" in err and "internal error" not in err
    assert not (repo / "nowhere").exists()


def test_output_is_written_whole_through_a_rename(repo: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "out.json").write_text("old\n")
    renames: list[tuple[str, str]] = []
    real = __import__("os").replace

    def spy(src: str, dst: str) -> None:
        renames.append((Path(src).parent.name, Path(dst).name))
        real(src, dst)

    monkeypatch.setattr("os.replace", spy)
    assert run_cli(capsys, "check", "--no-cache", "--format", "json", "--output", "out.json")[0] == 0
    assert renames == [(repo.name, "out.json")]
    assert json.loads((repo / "out.json").read_text())["ok"] is True
    assert sorted(p.name for p in repo.iterdir() if "driftguard-tmp" in p.name) == []


def test_discover_output_refuses_an_existing_file_unless_forced(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "proposed.yaml").write_text("mine\n")
    code, _, err = run_cli(capsys, "discover", "--root", ".", "--output", "proposed.yaml")
    assert code == 2 and "pass --force" in err and (repo / "proposed.yaml").read_text() == "mine\n"
    assert run_cli(capsys, "discover", "--root", ".", "--output", "proposed.yaml", "--force")[0] == 0
    assert "version: 1" in (repo / "proposed.yaml").read_text()


def test_a_missing_file_names_the_root_and_what_chose_it(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = CONFIG.replace("version: 1\n", "version: 1\nroot: ../..\n", 1)
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "other.md": OTHER_DOC, "examples/x/driftguard.yaml": moved,
                 "copy.yaml": moved})
    monkeypatch.chdir(root)
    code, out, _ = run_cli(capsys, "check", "--config", "copy.yaml", "--no-cache")
    assert code == 2
    line = (root / "copy.yaml").read_text().splitlines().index("root: ../..") + 1
    assert f"fact 'states': file not found under the root {(root / '../..').resolve()} " \
           f"(set by `root: ../..` in copy.yaml, line {line})" in out
    code, out, _ = run_cli(capsys, "check", "--config", "copy.yaml", "--root", str(root / "examples"), "--no-cache")
    assert code == 2 and f"under the root {(root / 'examples').resolve()} (given with --root)" in out
    assert run_cli(capsys, "check", "--config", "examples/x/driftguard.yaml")[0] == 0


def test_a_missing_file_is_explained_once_however_many_rules_read_it(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = CONFIG.replace("version: 1\n", "version: 1\nroot: ../..\n", 1)
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "other.md": OTHER_DOC, "copy.yaml": moved})
    monkeypatch.chdir(root)
    code, out, _ = run_cli(capsys, "check", "--config", "copy.yaml", "--no-cache")
    assert code == 2
    explained = [line for line in out.splitlines() if "file not found under the root" in line]
    assert len(explained) == len({"fsm.go", "m.md", "other.md"}), out
    repeated = [line for line in out.splitlines() if line.endswith("cannot be read (said above)")]
    assert repeated and all(": fact '" in line or ".md cannot" in line for line in repeated)
    said = [line for line in out.splitlines() if not line.startswith(("  why ", "driftguard: "))]
    assert len(said) == len(explained) + len(repeated)
    json_code, json_out, _ = run_cli(capsys, "check", "--config", "copy.yaml", "--no-cache", "--format", "json")
    messages = [f["message"] for f in json.loads(json_out)["findings"]]  # machine formats keep every message whole
    assert json_code == 2 and len(messages) == len(said)
    assert all("file not found under the root" in m for m in messages)


def test_output_keeps_an_existing_mode_and_gives_a_new_file_the_umask_mode(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import stat

    (repo / "kept.txt").write_text("old\n")
    (repo / "kept.txt").chmod(0o640)
    assert run_cli(capsys, "check", "--output", "kept.txt")[0] == 0
    assert stat.S_IMODE((repo / "kept.txt").stat().st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        assert run_cli(capsys, "check", "--output", "new.txt")[0] == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((repo / "new.txt").stat().st_mode) == 0o644
    assert (repo / "new.txt").read_text() == "driftguard: 3 rules: 3 passed\n"
