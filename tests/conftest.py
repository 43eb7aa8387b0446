"""Shared fixtures; the functions the test modules share are in tests/helpers.py."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import SharedTree, repository_files, write_tree

# Tests judge work, not the clock: no property test fails for taking longer than a deadline
# on a busy machine. In CI every property test also draws the same examples each run (issue 5:
# derandomized in CI); locally they keep exploring, so a new counterexample is found here
# rather than in a gate.
settings.register_profile("local", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "local")



@pytest.fixture
def tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """``tree({"a.py": "...", "driftguard.yaml": "..."})`` writes the files and returns the folder."""
    return lambda files: write_tree(tmp_path, files)


@pytest.fixture(autouse=True)
def _private_fact_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI runs in tests use a cache folder of their own, never the user's."""
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(tmp_path_factory.mktemp("dg-cache")))


@pytest.fixture(scope="session")
def shared_repository(tmp_path_factory: pytest.TempPathFactory) -> SharedTree:
    """This working tree's files, copied once per session (read only)."""
    return SharedTree(tmp_path_factory.mktemp("repository"), repository_files())


@pytest.fixture
def own_repository(shared_repository: SharedTree, tmp_path: Path) -> Iterator[Path]:
    """A tree of this repository for one test, lent from the session's copy: change its files
    with ``tests.helpers.edit`` (or ``own`` them first), never in place."""
    yield shared_repository.lend(tmp_path / "repository")
    shared_repository.assert_untouched()


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fact cache for the tests that check a whole shipped config: entries are keyed by the
    content of each file, so a test's edit is a miss of its own and the rest is parsed once
    per session instead of once per test."""
    return tmp_path_factory.mktemp("shared-cache")
