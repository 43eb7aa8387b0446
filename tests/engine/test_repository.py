"""Which files the ``references`` rule searches: tracked ones in a git work tree
(whatever their folder is called), else every file but vendored folders and the
build output at the root."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from driftguard.judging.repository import Repository, repository_files


def _tree(root: Path) -> None:
    for rel in ("src/app.py", "coverage/spans.py", "node_modules/dep/index.js", "build/out.txt",
                "src/coverage/measure.py", "src/vendor/lib.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("NAME_" + rel.replace("/", "_").replace(".", "_") + " = 1\n", encoding="utf-8")


def test_a_plain_tree_skips_vendored_folders_and_build_output_at_the_root(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert repository_files(tmp_path) == ["src/app.py", "src/coverage/measure.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_git_tree_searches_every_tracked_file_whatever_its_folder(tmp_path: Path) -> None:
    _tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "src/app.py", "coverage"], cwd=tmp_path, check=True)
    assert repository_files(tmp_path) == ["coverage/spans.py", "src/app.py"]  # untracked ones are not searched
    repo = Repository(tmp_path, 1 << 20)
    assert repo.holds("spans.py") and repo.holds("coverage/spans.py") and not repo.holds("index.js")
    assert "NAME_coverage_spans_py" in repo.names(())
