"""The README's pre-commit snippets work as written: the local hook runs in a real
``pre-commit run`` on a throwaway repository, and the remote form names a revision
this repository has."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import write_tree
from tests.integration.test_precommit import (
    PRE_COMMIT,
    PROJECT,
    commit_all,
    git,
    needs_pre_commit,
    new_repo,
)

ROOT = Path(__file__).resolve().parents[2]


def _snippets() -> list[dict[str, Any]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Running driftguard from pre-commit", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    return [data for data in map(yaml.safe_load, blocks) if isinstance(data, dict) and "repos" in data]


def _repo(kind: str) -> dict[str, Any]:
    found = [r for s in _snippets() for r in s["repos"] if (r["repo"] == "local") == (kind == "local")]
    assert len(found) == 1, f"expected one {kind} snippet in the README, found {len(found)}"
    return found[0]


def test_remote_snippet_names_a_revision_this_repository_has() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git work tree")
    rev = str(_repo("remote")["rev"])
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"the README's pre-commit snippet names rev {rev!r}, which this repository lacks"
    hooks = _repo("remote")["hooks"]
    assert [h["id"] for h in hooks] == ["driftguard"]


def test_local_snippet_matches_the_hook_manifest() -> None:
    (manifest,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = _repo("local")["hooks"]
    assert hook["entry"] == manifest["entry"] and hook["files"] == manifest["files"]
    assert hook["pass_filenames"] is False and hook["language"] == "system"


@needs_pre_commit
def test_local_snippet_passes_when_clean_and_fails_on_drift(tmp_path: Path) -> None:
    project = new_repo(tmp_path / "project")
    write_tree(project, PROJECT)
    config = {"repos": [_repo("local")]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    commit_all(project, "initial")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(tmp_path / "cache")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(PRE_COMMIT), "run", "--all-files", "--color", "never"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=300)

    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "driftguard (documentation drift)" in clean.stdout and "Passed" in clean.stdout
    states = project / "app" / "states.py"
    states.write_text(states.read_text(encoding="utf-8") + '    HALF = "HALF"\n', encoding="utf-8")
    git(project, "add", "-A")
    drifted = run()
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    assert "docs/states.md:3: states: `HALF` is declared in code but missing" in drifted.stdout
