"""Fixtures for the hostile-input tests: run the CLI in a tree and hold it to the contract.

Every bad input must end with exit 2 (or the finding it names), a message that
says which file (and line, where there is one), and never a traceback or the
CLI's catch-all "internal error".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import Run, run_cli, write_tree

CliRunner = Callable[..., Run]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """``cli(root, "check", ...)``: run ``driftguard`` in ``root``; fails on a traceback or internal error."""
    monkeypatch.delenv("DRIFTGUARD_DEBUG", raising=False)

    def run(root: Path, *argv: str) -> Run:
        monkeypatch.chdir(root)  # the tests look at the working folder after the run too
        result = run_cli(capsys, *argv)
        assert "Traceback" not in result.text, result.text
        assert "internal error" not in result.text, result.text
        return result

    return run


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty folder that counts as a repository root (so config lookup stops here)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return root


Writer = Callable[[Path, "dict[str, str | bytes]"], Path]


@pytest.fixture
def write() -> Writer:
    """``write(root, {"a/b.md": "...", "c.bin": b"..."})``: ``tests.helpers.write_tree``."""
    return write_tree
