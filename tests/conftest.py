"""Shared test helpers: write a small repository tree into a temporary folder."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from driftguard.selftest import SelftestResult

# In CI every property test draws the same examples each run (issue 5: derandomized in CI);
# locally they keep exploring, so a new counterexample is found here rather than in a gate.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def copy_repository(dest: Path) -> Path:
    """This working tree's files (tracked and untracked, not ignored) copied to ``dest``:
    what the own config's ``references`` and ``links`` rules resolve against."""
    import shutil
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file() and not source.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    return dest


def digest(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` (caches left out) -> the hash of its bytes: a tree to compare after a run."""
    import hashlib

    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def selftest_of_copy(fixture: Path, dest: Path) -> tuple[SelftestResult, Path, dict[str, str]]:
    """``selftest`` on a copy of the fixture tree ``fixture`` at ``dest``: its result, the copy,
    and the copy's digest from before the run."""
    import shutil

    from driftguard.config.loader import load_config
    from driftguard.selftest import run_selftest

    shutil.copytree(fixture, dest)
    before = digest(dest)
    return run_selftest(load_config(dest / "driftguard.yaml")), dest, before


def write_tree(base: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return base


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """``tree({"a.py": "...", "driftguard.yaml": "..."})`` writes the files and returns the folder."""
    return lambda files: write_tree(tmp_path, files)


@pytest.fixture(autouse=True)
def _private_fact_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI runs in tests use a cache folder of their own, never the user's."""
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(tmp_path_factory.mktemp("dg-cache")))
