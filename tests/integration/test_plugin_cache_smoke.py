"""Smoke test of benchmarks/plugin_cache.py on a tiny project: every run the benchmark
times runs as it builds it (the pytest floor collects nothing), pytest collects only the
config's rules, and the plugin and check agree on what passes and fails, warm and cold.
No timing is asserted."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from tests.helpers import ROOT, write_tree

sys.path.insert(0, str(ROOT / "benchmarks"))
import plugin_cache  # noqa: E402
from rounds import timed  # noqa: E402

PROJECT = {
    "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
    "tests/test_never_collected.py": "def test_it():\n    raise AssertionError('collected')\n",
    "src/limits.py": "RETRIES = 3\nTIMEOUT_SECONDS = 30\n",
    "docs/limits.md": "# Limits\n\nA call is retried up to 3 times. The timeout is 45 seconds.\n",
    "driftguard.yaml": (
        "version: 1\nfacts:\n  retries: {file: src/limits.py, constant: RETRIES}\n"
        "  timeout: {file: src/limits.py, constant: TIMEOUT_SECONDS}\nrules:\n"
        "  - {id: retries, fact: retries, doc: docs/limits.md, phrase: 'retried up to {value} times'}\n"
        "  - {id: timeout, fact: timeout, doc: docs/limits.md, phrase: 'timeout is {value} seconds'}\n"
    ),
}


def test_the_plugin_and_check_agree_warm_and_cold(tmp_path: Path) -> None:
    project = write_tree(tmp_path / "project", PROJECT)
    (tmp_path / "empty").mkdir()
    runs = plugin_cache.runs(ROOT, project, "driftguard.yaml", tmp_path, round_no=0)
    assert set(runs) == {"check, warm", "plugin, warm", "check, cold", "plugin, cold", "plugin, no cache",
                         "pytest floor"}
    quiet = "-p no:hypothesispytest"  # re-importing hypothesis costs a second per inner pytest
    outputs = {name: timed(replace(run, env={**run.env, "PYTEST_ADDOPTS": quiet}))[2] for name, run in runs.items()}
    for kind in ("warm", "cold"):
        found = plugin_cache.verdicts(outputs[f"check, {kind}"], outputs[f"plugin, {kind}"])
        assert found == {"check": (1, 1), "pytest": (1, 1), "agree": True}, outputs
    assert "collected" not in outputs["plugin, warm"] and "1 failed, 1 passed" in outputs["plugin, no cache"]
    assert "no tests ran" in outputs["pytest floor"]
