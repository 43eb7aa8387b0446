"""The pre-commit hook in a real ``pre-commit try-repo`` run on a throwaway git repository.

pre-commit builds the hook's environment from PyPI, as it always does, so this
test needs the network; it is skipped only when ``pre-commit`` or ``git`` is
missing. ``try-repo`` copies uncommitted changes of tracked files but not
untracked ones, so the hook repository is a fresh snapshot of this working
tree (every file git does not ignore), committed in a temporary repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import commit_all, git, new_repo, write_tree

ROOT = Path(__file__).resolve().parents[2]


def _pre_commit() -> str | None:
    beside = Path(sys.executable).with_name("pre-commit")
    return str(beside) if beside.exists() else shutil.which("pre-commit")


PRE_COMMIT = _pre_commit()
needs_pre_commit = pytest.mark.skipif(
    PRE_COMMIT is None or shutil.which("git") is None, reason="needs the pre-commit and git executables"
)

PROJECT = {
    "driftguard.yaml": """
        version: 1
        facts:
          states: {file: app/states.py, constants: {type: State}}
        rules:
          - {id: states, fact: states, doc: docs/states.md, table: State}
    """,
    "docs/states.md": """
        # States

        | State | Meaning |
        |---|---|
        | `OPEN` | accepting work |
        | `SHUT` | draining |
    """,
    "app/states.py": """
        from enum import Enum


        class State(str, Enum):
            OPEN = "OPEN"
            SHUT = "SHUT"
    """,
}


def snapshot_of_this_repository(tree: Path) -> Path:
    """This working tree's files (tracked and untracked, not ignored), lent as ``tree``
    (the ``own_repository`` fixture), committed there: git only reads them."""
    new_repo(tree)
    commit_all(tree, "snapshot")
    return tree


def try_repo(hook_repo: Path, project: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(cache)
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(hook_repo), "driftguard", "--all-files", "--color", "never"],
        cwd=project, env=env, capture_output=True, text=True, timeout=900,
    )


@needs_pre_commit
def test_hook_manifest_declares_the_driftguard_hook() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "driftguard" and hook["language"] == "python"
    assert hook["entry"] == "driftguard check" and hook["pass_filenames"] is False
    assert hook["require_serial"] is True and hook["types"] == ["file"]
    done = subprocess.run([str(PRE_COMMIT), "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("path", "matched"),
    [("docs/a.md", True), ("README.markdown", True), ("internal/x.go", True), ("app/states.py", True),
     ("driftguard.yaml", True), ("conf/driftguard.yml", True), ("other.yaml", False), ("x.mdx", False),
     ("notdriftguard.yaml", False), ("image.png", False)],
)
def test_hook_files_pattern(path: str, matched: bool) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert bool(re.search(hook["files"], path)) is matched


@needs_pre_commit
def test_try_repo_passes_when_clean_and_fails_on_drift(tmp_path: Path, own_repository: Path) -> None:
    hook_repo = snapshot_of_this_repository(own_repository)
    project = new_repo(tmp_path / "project")
    write_tree(project, PROJECT)
    commit_all(project, "initial")

    clean = try_repo(hook_repo, project, tmp_path / "cache")
    out = clean.stdout + clean.stderr
    assert clean.returncode == 0, out
    assert "driftguard (documentation drift)" in out and "Passed" in out

    states = project / "app" / "states.py"
    states.write_text(states.read_text(encoding="utf-8") + '    HALF = "HALF"\n', encoding="utf-8")
    git(project, "add", "-A")
    drifted = try_repo(hook_repo, project, tmp_path / "cache")
    out = drifted.stdout + drifted.stderr
    assert drifted.returncode == 1, out
    assert "Failed" in out
    assert "docs/states.md:3: states: `HALF` is declared in code but missing" in out
    assert "(source: app/states.py:7)" in out
    assert "driftguard: 1 rule: 0 passed, 1 failed" in out
