"""Smoke test of benchmarks/coverage_scale.py at a tiny size: the report has its shape, and
``check`` and ``coverage`` both read the generated tree (check finds only the planted stale
references, coverage measures the one document). No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import coverage_scale  # noqa: E402


def test_the_benchmark_times_both_commands_on_a_tree_both_read(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out_json = tmp_path / "result.json"
    assert coverage_scale.main(["--mb", "0.02", "--repeat", "1", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    result = json.loads(out_json.read_text(encoding="utf-8"))
    assert result["bytes"] >= 20_000
    assert set(result["median"]) == {"check cold", "coverage cold", "check warm", "coverage warm"}
    assert all(m["s"] > 0 and m["peak_mb"] > 0 for m in result["median"].values())
    assert set(result["ratios"]) == {"cold", "warm"}
    assert all(set(r) == {"time", "memory"} for r in result["ratios"].values())
    assert result["exit_codes"] == {"check cold": 1, "check warm": 1, "coverage cold": 0, "coverage warm": 0}
    summaries = result["summaries"]
    assert summaries["check cold"] == summaries["check warm"] == "driftguard: 7 rules: 6 passed, 1 failed"
    assert summaries["coverage cold"] == summaries["coverage warm"]
    assert summaries["coverage cold"].startswith("total  ") and " guarded " in summaries["coverage cold"]
    assert "| cold |" in out and "| warm |" in out and "| run | check s | coverage s | time ratio |" in out


def test_the_generated_tree_is_clean_but_for_the_stale_references(tmp_path: Path) -> None:
    from driftguard.config.loader import load_config
    from driftguard.judging.engine import Engine

    config = load_config(coverage_scale.generate(tmp_path / "tree", 30_000))
    result = Engine(config, None).run()
    failed = {r.rule.id for r in result.rules if r.findings}
    assert failed == {"references"}
    stale = [f.value for r in result.rules for f in r.findings]
    assert stale and all(v and v.rstrip("()") in {s.rstrip("()") for s in coverage_scale.STALE} for v in stale)
