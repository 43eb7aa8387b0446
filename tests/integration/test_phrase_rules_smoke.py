"""Smoke test of benchmarks/phrase_rules.py: the generated tree is what the benchmark says
it is (every rule of every size finds its one sentence and passes, each reading the value
the document states; a changed constant fails its rule alone), and the summary the report
is built from is read back. No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, check, cli_on, edit

sys.path.insert(0, str(ROOT / "benchmarks"))
import phrase_rules  # noqa: E402


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, list[tuple[str, str, str]]]:
    root = tmp_path / "tree"
    return root, phrase_rules.generate(root, sentences=24, code_spans=True)


@pytest.mark.parametrize("rules", [3, 24])
def test_every_rule_of_a_size_passes_on_its_own_sentence(tree: tuple[Path, list[tuple[str, str, str]]],
                                                         rules: int, capsys: pytest.CaptureFixture[str]) -> None:
    root, consts = tree
    (root / "rules.yaml").write_text(phrase_rules.config(consts, rules), encoding="utf-8")
    code, out = check(capsys, root, "--no-cache", config="rules.yaml")
    assert code == 0 and phrase_rules.summary(out) == (rules, rules), out
    code, out = cli_on(capsys, root, "report", "--format", "json", "--no-cache", config="rules.yaml")
    report = json.loads(out)
    assert [len(r["claims"]) for r in report["rules"]] == [1] * rules
    stated = [r["claims"][0]["value"] for r in report["rules"]]
    assert [s.split()[0] for s in stated] == [c[2].split()[0] for c in consts[:rules]]


def test_a_changed_constant_fails_its_rule_alone(tree: tuple[Path, list[tuple[str, str, str]]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root, consts = tree
    (root / "rules.yaml").write_text(phrase_rules.config(consts, 24), encoding="utf-8")
    name = consts[5][0]
    edit(root / phrase_rules.SOURCE, f"\t{name} = ", f"\t{name} = 1 + ")
    code, out = check(capsys, root, "--no-cache", config="rules.yaml")
    assert code == 1 and phrase_rules.summary(out) == (24, 23), out
    assert [line.split(": ")[1] for line in out.splitlines() if ": p0" in line] == ["p0005"], out


def test_the_code_spans_are_in_the_document_only_when_asked(tmp_path: Path) -> None:
    plain, spans = tmp_path / "plain", tmp_path / "spans"
    phrase_rules.generate(plain, sentences=20)
    phrase_rules.generate(spans, sentences=20, code_spans=True)
    with_ticks = (spans / phrase_rules.DOC).read_text(encoding="utf-8")
    assert "`" not in (plain / phrase_rules.DOC).read_text(encoding="utf-8")
    assert with_ticks.count("`") == 2 * 3 * 2
    assert with_ticks.replace("`", "") == (plain / phrase_rules.DOC).read_text(encoding="utf-8")
