"""The same inputs give byte-identical JSON across runs and across hash seeds.

Each run is a fresh interpreter with its own ``PYTHONHASHSEED`` (so any output
that leans on set or dict-of-set order would differ) that writes
``check --format json``, ``report --format json`` and ``check --format sarif``
for this repository, the Pulse-shaped fixture, and a drifted copy of it whose
findings cover several kinds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PULSE = REPO / "tests" / "fixtures" / "pulse"
SEEDS = ["0", "1", "12345", "0"]  # the repeated seed checks run-to-run stability as well

RUNNER = """
import sys
from pathlib import Path
from driftguard.cli import main

out = Path(sys.argv[1])
targets = {
    "repo": ["--config", "driftguard.yaml"],
    "pulse": ["--config", "examples/pulse/driftguard.yaml", "--root", "tests/fixtures/pulse"],
    "drifted": ["--config", sys.argv[2]],
}
for name, where in targets.items():
    for command, fmt in (("check", "json"), ("report", "json"), ("check", "sarif")):
        main([command, *where, "--format", fmt, "--output", str(out / f"{name}-{command}-{fmt}.json")])
"""


@pytest.fixture(scope="module")
def drifted(tmp_path_factory) -> Path:
    """A copy of the fixture whose documents drift in several ways at once."""
    root = tmp_path_factory.mktemp("drifted")
    shutil.copytree(PULSE, root, dirs_exist_ok=True)
    safety = root / "docs" / "ASSISTANT_SAFETY.md"
    text = safety.read_text(encoding="utf-8")
    text = text.replace("| `read` | Looks at state without changing it. |\n", "")  # missing in doc
    text = text.replace("| `write` |", "| `write` |\n| `delete` | Removed long ago. |\n| `erase` | Never was. |", 1)
    text = text.replace("expire after ten minutes", "expire after five minutes")  # value mismatch
    safety.write_text(text, encoding="utf-8")
    config = (REPO / "examples" / "pulse" / "driftguard.yaml").read_text(encoding="utf-8")
    (root / "driftguard.yaml").write_text(config.replace("root: ../..", "root: ."), encoding="utf-8")
    return root / "driftguard.yaml"


def _outputs(seed: str, out: Path, config: Path) -> dict[str, bytes]:
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("DRIFTGUARD_DEBUG", None)
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(out), str(config)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_json_output_is_byte_identical_across_runs_and_hash_seeds(tmp_path, drifted):
    runs = [_outputs(seed, tmp_path / f"run{i}-seed{seed}", drifted) for i, seed in enumerate(SEEDS)]
    first = runs[0]
    assert len(first) == 9
    for seed, other in zip(SEEDS[1:], runs[1:]):
        assert other.keys() == first.keys()
        for name in first:
            assert other[name] == first[name], f"{name} differs under PYTHONHASHSEED={seed}"
    # the comparison means something: clean runs pass, the drifted one has findings of several kinds
    assert json.loads(first["repo-check-json.json"])["ok"] is True
    assert json.loads(first["pulse-check-json.json"])["ok"] is True
    kinds = {f["kind"] for f in json.loads(first["drifted-check-json.json"])["findings"]}
    assert {"missing-in-doc", "missing-in-code", "value-mismatch"} <= kinds, kinds
