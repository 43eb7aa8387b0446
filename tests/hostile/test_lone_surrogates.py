"""A Python string literal can hold a lone surrogate (``"\\ud800"``), which no
encoding can print: every output format shows it escaped instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.text import printable


def test_printable_escapes_lone_surrogates_and_keeps_other_text() -> None:
    assert printable("a\ud800b\udfff") == "a\\ud800b\\udfff"
    assert printable("caf\u00e9 \U0001f600 \x1b[2J") == "caf\u00e9 \U0001f600 \\x1b[2J"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "m.py").write_text('x = "\\ud800"\nY_NAME = "a\\udcffb"\n', encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/a.md").write_text("# D\n\nSee `Y_NAME` and `Z_GONE`.\n", encoding="utf-8")
    (tmp_path / "driftguard.yaml").write_text(
        "version: 1\nfacts:\n  s: {file: m.py, symbols: true}\n"
        "rules:\n  - {id: r, fact: s, doc: docs/a.md, references: {repository: false, strict: true}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "1")
    return tmp_path


@pytest.mark.parametrize("argv", [["report"], ["facts"], ["report", "--format", "json"], ["check", "--format", "sarif"],
                                  ["check", "--format", "github"], ["check", "--format", "json"], ["check"]])
def test_every_format_prints_a_lone_surrogate_escaped(tree: Path, argv: list[str],
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    out, err = capfd.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    assert code == (0 if argv == ["facts"] else 1), err
    if argv in (["report"], ["facts"]):
        assert "\\ud800" in out and "a\\udcffb" in out
    if argv[0] == "check" or argv == ["report"]:
        assert "Z_GONE" in out
