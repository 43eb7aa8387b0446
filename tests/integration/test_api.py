"""The Python API for hand-written tests: ``driftguard.run`` and ``driftguard.assert_clean``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import driftguard
from driftguard.model import ConfigError, Status
from driftguard.reporters.text import finding_line

SOURCE = '''
from enum import Enum

class Color(str, Enum):
    RED = "RED"
    BLUE = "BLUE"

RETRIES = 3
'''

DOC = '''
# Colors

| Color | Use |
|---|---|
| `RED` | stop |
| `BLUE` | calm |

A call is retried 3 times.
'''

CONFIG = '''
version: 1
facts:
  colors: {file: pkg/colors.py, constants: {type: Color}}
  retries: {file: pkg/colors.py, constant: RETRIES}
rules:
  - {id: colors, fact: colors, doc: docs/colors.md, table: Color, why: the palette is documented}
  - {id: retries, fact: retries, doc: docs/colors.md, phrase: 'retried {value} times'}
'''

Tree = Callable[[dict[str, str | bytes]], Path]


def sample(tree: Tree, source: str = SOURCE, doc: str = DOC, config: str = CONFIG) -> Path:
    return tree({"pkg/colors.py": source, "docs/colors.md": doc, "driftguard.yaml": config})


def test_run_on_a_clean_tree_is_ok(tree: Tree) -> None:
    result = driftguard.run(sample(tree) / "driftguard.yaml")
    assert result.ok and result.exit_code == 0
    assert result.findings == ()
    assert [rr.rule.id for rr in result.rules] == ["colors", "retries"]


def test_run_accepts_a_string_path(tree: Tree) -> None:
    assert driftguard.run(str(sample(tree) / "driftguard.yaml")).ok


def test_run_reports_drift_with_findings(tree: Tree) -> None:
    source = SOURCE.replace('BLUE = "BLUE"', 'BLUE = "BLUE"\n    GREEN = "GREEN"').replace("= 3", "= 5")
    result = driftguard.run(sample(tree, source=source) / "driftguard.yaml")
    assert not result.ok and result.exit_code == 1
    found = {(f.rule, f.kind.kind, f.value) for f in result.findings}
    assert found == {("colors", "missing-in-doc", "GREEN"), ("retries", "value-mismatch", "3")}


def test_run_with_an_unreadable_document_exits_2(tree: Tree) -> None:
    root = sample(tree, config=CONFIG.replace("docs/colors.md, phrase", "docs/missing.md, phrase"))
    result = driftguard.run(root / "driftguard.yaml")
    assert not result.ok and result.exit_code == 2
    assert result.count(Status.ERROR) == 1 and result.count(Status.PASS) == 1


def test_run_root_overrides_the_config_folder(tree: Tree) -> None:
    root = tree({"project/pkg/colors.py": SOURCE, "project/docs/colors.md": DOC, "conf/driftguard.yaml": CONFIG})
    assert driftguard.run(root / "conf" / "driftguard.yaml", root=root / "project").ok
    assert driftguard.run(root / "conf" / "driftguard.yaml").exit_code == 2  # paths resolve under conf/


def test_run_raises_config_error_for_a_bad_config(tree: Tree) -> None:
    root = sample(tree, config=CONFIG.replace("version: 1", "version: 7"))
    with pytest.raises(ConfigError) as info:
        driftguard.run(root / "driftguard.yaml")
    assert info.value.location is not None and info.value.location.line == 1
    assert driftguard.ConfigError is ConfigError


def test_assert_clean_returns_the_result_when_clean(tree: Tree) -> None:
    result = driftguard.assert_clean(sample(tree) / "driftguard.yaml")
    assert result.ok and len(result.rules) == 2


def test_assert_clean_raises_with_the_text_report(tree: Tree) -> None:
    doc = DOC.replace("| `BLUE` | calm |", "| `BLUE` | calm |\n| `PINK` | retired |")
    config = sample(tree, doc=doc) / "driftguard.yaml"
    with pytest.raises(AssertionError) as info:
        driftguard.assert_clean(config)
    message = str(info.value)
    (finding,) = driftguard.run(config).findings
    assert finding.kind.kind == "missing-in-code" and finding.value == "PINK"
    assert finding_line(finding) in message
    assert "docs/colors.md:" in message and "PINK" in message
    assert "why colors: the palette is documented" in message
    assert "2 rules" in message and "1 passed" in message

