"""Which files the ``references`` rule searches: tracked ones in a git work tree
(whatever their folder is called), else every file but vendored folders and the
build output at the root."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from driftguard.judging import repository
from driftguard.judging.repository import Repository, repository_files

_names_of = repository.names_of


def _marked(root: str, max_file_size: int, folders: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """``names_of``, each folder's names marked with the reading process (a worker's, sent back by pickle)."""
    return {folder: names | {f"pid_{os.getpid()}"} for folder, names in _names_of(root, max_file_size, folders).items()}


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


def test_names_in_documentation_never_keep_a_reference_alive(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from driftguard.cli import main

    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("def run():\n    return 1\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/guide.md").write_text("# Guide\n\nCall `run()`, then `GhostFunc()`.\n", encoding="utf-8")
    (tmp_path / "CHANGELOG.md").write_text("# Changes\n\n- removed `GhostFunc()`\n", encoding="utf-8")
    (tmp_path / "notes.rst").write_text("GhostFunc is gone\n", encoding="utf-8")
    (tmp_path / "driftguard.yaml").write_text(
        "version: 1\nfacts:\n  code: {file: 'src/*.py', symbols: true}\n"
        "rules:\n  - {id: refs, fact: code, doc: docs/guide.md, references: true}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "docs/guide.md:3: refs: `GhostFunc()` names nothing" in out
    (tmp_path / "compose.yaml").write_text("command: GhostFunc\n", encoding="utf-8")  # a config still counts
    assert main(["check", "--no-cache"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("cached", [False, True])
def test_worker_processes_read_the_same_names_as_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              cached: bool) -> None:
    from driftguard.judging import processes
    from driftguard.judging.cache import FactCache

    root = tmp_path / "tree"
    for i in range(12):
        folder = root / f"pkg{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.go").write_text(f"package pkg\n\nfunc Load{i}() {{ cfg.Section{i}.Value = {i} }}\n")
    (root / "pkg0" / "link.go").symlink_to(root / "pkg1" / "f1.go")  # a symlink is never read, by either
    (root / "pkg2" / "blob.bin").write_bytes(b"\0NotAName")
    serial = Repository(root, 1 << 20, FactCache(tmp_path / "one") if cached else None).names(())
    assert {"Load3", "cfg.Section7.Value", "Section7.Value"} <= serial and "NotAName" not in serial
    monkeypatch.setattr(repository, "names_of", _marked)
    monkeypatch.setattr(processes, "PARALLEL_FROM", 0)
    monkeypatch.setattr(processes, "default_jobs", lambda: 2)
    monkeypatch.setattr(processes, "pool_context", lambda: __import__("multiprocessing").get_context("fork"))
    parallel = Repository(root, 1 << 20, FactCache(tmp_path / "two") if cached else None).names(())
    workers = {n for n in parallel if n.startswith("pid_")}
    assert workers and f"pid_{os.getpid()}" not in workers  # read by other processes
    assert parallel - workers == serial
