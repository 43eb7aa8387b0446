"""Smoke test of benchmarks/: the script runs, reports every case, and driftguard
and the naive baseline agree on verdicts. No timing is asserted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
SIZES = (8, 12)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    out = tmp_path_factory.mktemp("bench") / "result.json"
    sizes = ",".join(map(str, SIZES))
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--quick", "--repeat", "1", "--sizes", sizes,
         "--profile", "always", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    return proc.stdout, json.loads(out.read_text(encoding="utf-8"))


def _case_names() -> list[str]:
    names = ["this repository", "examples/pulse on fixtures", "Pulse-like scale (9 Go x 300 KB)"]
    for n in SIZES:
        names += [f"synthetic {n} rules", f"synthetic {n} rules (drifted, verdicts only)"]
    return names


def test_table_has_every_row(bench: tuple[str, dict]) -> None:
    stdout, result = bench
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    for name in _case_names():
        assert any(row.startswith(f"| {name} |") for row in rows), name
    assert [c["case"] for c in result["cases"]] == _case_names()
    for case in result["cases"]:
        if "drifted" not in case["case"]:
            assert case["driftguard"]["median_s"] > 0 and case["baseline"]["median_s"] > 0
            assert case["driftguard"]["median_peak_kb"] > 0 and case["baseline"]["median_peak_kb"] > 0
            assert "time_ratio" in case and "memory_ratio" in case


def test_verdicts_agree_on_every_case(bench: tuple[str, dict]) -> None:
    _, result = bench
    assert result["verdicts_agree"] is True
    for case in result["cases"]:
        agreement = case["agreement"]
        assert agreement["differ"] == [], case["case"]
        assert agreement["unsupported_by_baseline"] == [], case["case"]
        assert agreement["agree"] == case["rules"] > 0
        if case["case"].startswith("synthetic"):
            assert agreement["driftguard_as_expected"] is True


def test_drifted_trees_really_fail(bench: tuple[str, dict]) -> None:
    _, result = bench
    drifted = [c for c in result["cases"] if "drifted" in c["case"]]
    assert len(drifted) == len(SIZES)
    for case in drifted:
        expected_failures = len([i for i in range(case["rules"]) if i % 5 == 4])
        assert case["driftguard_verdicts"].get("fail") == expected_failures
        assert case["baseline_verdicts"].get("fail") == expected_failures


def test_growth_and_profile_are_reported(bench: tuple[str, dict]) -> None:
    stdout, result = bench
    for tool in ("driftguard", "baseline"):
        points = result["growth"][tool]["points"]
        assert [p["rules"] for p in points] == list(SIZES)
        assert all(p["mb_read"] > 0 for p in points)
        assert result["growth"][tool]["fit"]
    assert result["aim"]["target_s"] == 0.15 and result["aim"]["median_s"] > 0
    assert "Go: tree-sitter parse" in result["profile"]["phases"]
    assert result["profile"]["hot_spots"]
    assert "Where the Pulse-like check's time goes" in stdout


def test_baseline_catches_a_drift_driftguard_catches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline is a real checker: a fifth state and a changed count fail in both tools."""
    monkeypatch.syspath_prepend(str(BENCH))
    import naive

    from driftguard.config.loader import load_config
    from driftguard.judging.engine import Engine

    tree = tmp_path / "pulse"
    shutil.copytree(ROOT / "tests" / "fixtures" / "pulse", tree)
    fsm = tree / "internal" / "ai" / "chat" / "fsm.go"
    text = fsm.read_text(encoding="utf-8")
    anchor = '\tStateVerifying SessionState = "VERIFYING"\n'
    assert anchor in text
    fsm.write_text(text.replace(anchor, anchor + '\tStateParked SessionState = "PARKED"\n'), encoding="utf-8")
    doc = tree / "docs" / "PATROL_ARCHITECTURE.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("three times", "four times"), encoding="utf-8")

    config = ROOT / "examples" / "pulse" / "driftguard.yaml"
    ours = {r.rule.id: r.status.value for r in Engine(load_config(config, root=tree)).run().rules}
    theirs = naive.run(config, tree)["rules"]
    unmatched = {rule for rule, v in theirs.items() if v == "n/a"}
    assert unmatched == {"references", "links"}  # the hand-written baseline has no counterpart for these
    assert {rule: v for rule, v in ours.items() if rule not in unmatched} == {
        rule: v for rule, v in theirs.items() if rule not in unmatched}
    assert {rule for rule, v in ours.items() if v == "fail"} == {"session-states", "investigation-attempts"}


def test_the_startup_benchmark_reports_a_ratio_and_a_parser_free_cached_check(tmp_path: Path) -> None:
    out = tmp_path / "startup.json"
    proc = subprocess.run([sys.executable, str(BENCH / "startup.py"), "--repeat", "1", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["runs"] == 1 and result["ratio"] > 0 and result["cached_check_s"] > 0
    assert result["parsers"] == "imported: []"


def test_the_long_lines_benchmark_reports_each_case_with_columns_checked(tmp_path: Path) -> None:
    out = tmp_path / "long_lines.json"
    proc = subprocess.run([sys.executable, str(BENCH / "long_lines.py"), "--quick", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    cases = json.loads(out.read_text(encoding="utf-8"))["cases"]
    names = ["Go constants", "Go constants, non-ASCII line", "Go pattern", "Python constants"]
    assert [c["case"] for c in cases] == names
    for case in cases:
        assert case["columns_ok"] is True, case["case"]
        assert case["one_line_s"] > 0 and case["separate_s"] > 0 and case["ratio"] > 0
        assert case["one_line_bytes"] > 0 and case["separate_bytes"] > 0 and case["runs"] == 1
        assert any(line.startswith(f"| {case['case']} | 2000 |") for line in proc.stdout.splitlines())


def test_the_hostile_benchmark_reports_each_case_against_its_floor(tmp_path: Path) -> None:
    out = tmp_path / "hostile.json"
    proc = subprocess.run([sys.executable, str(BENCH / "hostile.py"), "--quick", "--only", "angle-run", "digits",
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert list(result["markdown"]) == ["angle-run"] and list(result["phrases"]) == ["digits"]
    for row in (result["markdown"]["angle-run"], result["phrases"]["digits"]):
        assert row["chars"] > 0 and row["case_s"] > 0 and row["floor_s"] > 0 and row["ratio"] > 0
    assert result["bound"]["bound_s"] == 0.05 and result["bound"]["stopped_s"] > 0
    assert "| angle-run |" in proc.stdout and "| digits |" in proc.stdout
