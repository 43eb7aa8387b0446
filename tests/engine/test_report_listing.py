"""``report`` lists a fact's values once, at most ``REPORT_VALUES`` of them, each on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.reporters.text import REPORT_VALUES
from tests.helpers import write_tree


def test_a_large_fact_is_listed_once_and_cut_with_a_pointer_to_facts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    names = [f"NAME_{i:02d}" for i in range(REPORT_VALUES + 5)]
    code = "".join(f'{n} = "{n.lower()}"\n' for n in names)
    doc = "# A\n\n" + ", ".join(f"`{n}`" for n in names) + ".\n"
    root = write_tree(tmp_path, {
        "src/names.py": code, "docs/a.md": doc,
        "driftguard.yaml": "version: 1\nfacts:\n  code: {file: 'src/*.py', symbols: true}\n"
                           "rules:\n  - {id: one, fact: code, doc: docs/a.md, references: true}\n"
                           "  - {id: two, fact: code, doc: docs/a.md, references: {repository: false}}\n",
    })
    monkeypatch.chdir(root)
    assert main(["report", "--no-cache"]) == 0
    out = capsys.readouterr().out
    total = 2 * len(names)  # the names, then their literals
    assert out.count(f"fact code: {total} values") == 2
    assert out.count(f"fact code: {total} values (listed above)") == 1
    assert f"... and {total - REPORT_VALUES} more (`driftguard facts code` lists them all)" in out
    listed = [line for line in out.splitlines() if line.startswith("        ") and "src/names.py" in line]
    assert len(listed) == REPORT_VALUES
    assert main(["facts", "--no-cache", "code"]) == 0
    facts = capsys.readouterr().out
    assert all(n in facts for n in names)


def test_a_multi_line_value_is_listed_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = write_tree(tmp_path, {
        "src/sql.py": 'QUERY_SQL = """select 1\nfrom t"""\n', "docs/a.md": "# A\n\nRun `QUERY_SQL`.\n",
        "driftguard.yaml": "version: 1\nfacts:\n  code: {file: 'src/*.py', symbols: true}\n"
                           "rules:\n  - {id: one, fact: code, doc: docs/a.md, references: true}\n",
    })
    monkeypatch.chdir(root)
    assert main(["report", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "select 1\\nfrom t" in out and "\nfrom t" not in out
