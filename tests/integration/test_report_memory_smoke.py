"""Smoke test of benchmarks/report_memory.py at a tiny size: every command the benchmark
times runs as it builds it (warm, few names, cold), and the outputs agree (the same
findings in text, JSON and SARIF, the same rule results in check's summary and report's);
the report of the fact of few names lists the same claims. No timing or peak is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import references_scale  # noqa: E402
import report_memory  # noqa: E402
from rounds import timed  # noqa: E402


def test_the_commands_agree_on_a_tiny_tree(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    references_scale.generate(root, pages=2, sources=8)
    config = report_memory.write_config(tmp_path / "refs.yaml", ["internal/**/*.go", "frontend/src/**/*.ts"])
    few = report_memory.write_config(tmp_path / "few.yaml", ["internal/config/*.go"])
    runs = report_memory.runs(root, config, few, tmp_path, ROOT, cold=True)
    assert set(runs) == {*report_memory.COMMANDS, "check, few names", "report json, few names", "check, cold",
                         "report json, cold"}
    outputs = {name: timed(run)[2] for name, run in runs.items()}
    found = report_memory.counts(outputs)
    assert found["agree"], outputs["check"]
    assert found["rules"] == 2 and found["findings"] == 6 and found["names"] > 200 and found["claims"] > 100
    assert outputs["check, cold"] == outputs["check"] and outputs["report json, cold"] == outputs["report json"]
    small = report_memory.listed(json.loads(outputs["report json, few names"]))
    assert small["names"] == 1 and small["claims"] == found["claims"] and small["findings"] > found["findings"]
