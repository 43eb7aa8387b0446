"""Helpers for the hostile-input tests: run the CLI in a tree and hold it to the contract.

Every bad input must end with exit 2 (or the finding it names), a message that
says which file (and line, where there is one), and never a traceback or the
CLI's catch-all "internal error".
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from driftguard.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


CliRunner = Callable[..., Run]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> CliRunner:
    """``cli(root, "check", ...)``: run ``driftguard`` in ``root``; fails on a traceback or internal error."""
    monkeypatch.delenv("DRIFTGUARD_DEBUG", raising=False)

    def run(root: Path, *argv: str) -> Run:
        monkeypatch.chdir(root)
        code = main(list(argv))
        captured = capsys.readouterr()
        result = Run(code, captured.out, captured.err)
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
    """``write(root, {"a/b.md": "...", "c.bin": b"..."})``: text is dedented and stripped of a leading newline."""

    def put(root: Path, files: dict[str, str | bytes]) -> Path:
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return root

    return put
