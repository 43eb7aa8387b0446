"""Smoke test of benchmarks/references_scale.py: the generated tree is what the benchmark
says it is (each document holds exactly its three stale names: a call, a path and a name
only git's history shows was renamed, and no other finding; outside git the renamed name
has no evidence and is left alone), and the floor parses every file. No timing is asserted."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, check

sys.path.insert(0, str(ROOT / "benchmarks"))
import references_scale  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refs") / "tree"
    references_scale.generate(root, pages=3, sources=12)
    return root


def test_each_document_holds_its_three_stale_names_and_no_other(tree: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, tree, "--no-cache")
    assert code == 1, out
    found = [line for line in out.splitlines() if ": references: " in line]
    assert len(found) == 9, out
    for page in range(3):
        mine = "\n".join(line for line in found if line.startswith(f"docs/guide{page}.md:"))
        assert "`gone_helper()` names nothing" in mine and "`internal/config/gone.go` names no file" in mine
        assert "`LoadSessionFile` names nothing" in mine and "which added `LoadSessionConfigFile`" in mine


def test_outside_git_the_renamed_name_has_no_evidence(tree: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(tree, outside, ignore=shutil.ignore_patterns(".git"))
    code, out = check(capsys, outside, "--no-cache")
    assert code == 1 and out.count(": references: ") == 6 and "LoadSessionFile" not in out, out


def test_the_floor_parses_every_fact_file_and_document(tree: Path, tmp_path: Path) -> None:
    listing = references_scale._fact_files(tree, tree / "driftguard.yaml", ROOT, tmp_path)
    files = listing.read_text().split()
    assert len(files) == 13 and all((tree / f).is_file() for f in files)
    floor = tmp_path / "floor.py"
    floor.write_text(references_scale._FLOOR)
    done = subprocess.run([sys.executable, str(floor), str(listing), "docs/**/*.md"], cwd=tree,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
