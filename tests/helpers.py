"""Helpers the test modules share (fixtures live in conftest.py, functions here).

- Trees: ``write_tree`` writes one, ``edit`` changes a file of one, ``digest`` hashes one;
  ``git``, ``new_repo`` and ``commit_all`` make one a git work tree with a fixed author and date.
- Running driftguard in this process: ``judge`` (the engine on a tree's config), ``run_cli``
  (the command line, its exit code and output), ``cli_on`` and ``check`` (a command on a
  tree's config).
- This repository, shared: ``SharedTree`` copies a set of files once per session and lends each
  test a tree of hard links to the copy. An edit through ``edit`` or ``own`` gives the test a
  file of its own first, so a test never changes what another sees; the copy's files are read
  only, and ``SharedTree.lend`` checks after each test that none was written in place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest

if TYPE_CHECKING:
    from driftguard.judging.result import Result
    from driftguard.selftest import SelftestResult

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


# -- trees ------------------------------------------------------------------------------


_GIT_ENV = {"GIT_AUTHOR_NAME": "driftguard test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "driftguard test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
            "GIT_AUTHOR_DATE": "2026-04-02T10:00:00", "GIT_COMMITTER_DATE": "2026-04-02T10:00:00"}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **_GIT_ENV}, check=True,
                          capture_output=True, text=True)
    return done.stdout


def new_repo(path: Path) -> Path:
    """``path`` (made if need be) as a git work tree that signs nothing."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    git(path, "config", "user.name", _GIT_ENV["GIT_AUTHOR_NAME"])
    git(path, "config", "user.email", _GIT_ENV["GIT_AUTHOR_EMAIL"])
    git(path, "config", "commit.gpgsign", "false")
    return path


def commit_all(repo: Path, message: str) -> str:
    """Every change of ``repo`` committed; the commit's short id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "--short", "HEAD").strip()


def write_tree(base: Path, files: dict[str, str | bytes]) -> Path:
    """Each file of ``files`` written under ``base``: text dedented and stripped of a leading newline."""
    for rel, content in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return base


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """``path`` with the first ``count`` ``old`` (all of them for -1) replaced by ``new``; ``old``
    must be there. A file shared with other trees (a hard link) is made the test's own first."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    own(path)
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def own(*paths: Path) -> None:
    """Each of ``paths`` made a file of this tree alone (a writable copy in place of a hard link)."""
    for path in paths:
        if path.stat().st_nlink > 1:
            data = path.read_bytes()
            path.unlink()
            path.write_bytes(data)


def digest(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` (caches left out) -> the hash of its bytes: a tree to compare after a run."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def selftest_of_copy(fixture: Path, dest: Path) -> tuple[SelftestResult, Path, dict[str, str]]:
    """``selftest`` on a copy of the fixture tree ``fixture`` at ``dest``: its result, the copy,
    and the copy's digest from before the run."""
    from driftguard.config.loader import load_config
    from driftguard.selftest import run_selftest

    shutil.copytree(fixture, dest)
    before = digest(dest)
    return run_selftest(load_config(dest / "driftguard.yaml")), dest, before


# -- driftguard in this process ---------------------------------------------------------


def judge(root: Path) -> Result:
    """Every rule of the config at ``root/driftguard.yaml``, judged without a cache."""
    from driftguard.config.loader import load_config
    from driftguard.judging.engine import Engine

    return Engine(load_config(root / "driftguard.yaml")).run()


class Run(NamedTuple):
    """What one command line run gave: ``code, out, err = run_cli(...)``."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def outcome(self) -> tuple[int, str]:
        """The exit code, and standard output and error together."""
        return self.code, self.text


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str, cwd: Path | None = None) -> Run:
    """``driftguard ARGV`` (in ``cwd`` when given, the working folder restored after); the
    output is what was captured since it was last read."""
    from driftguard.cli import main

    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = main(list(argv))
    finally:
        os.chdir(before)
    out, err = capsys.readouterr()
    return Run(code, out, err)


def cli_on(capsys: pytest.CaptureFixture[str], root: Path, command: str, *args: str,
           config: str = "driftguard.yaml") -> tuple[int, str]:
    """``driftguard COMMAND --config ROOT/CONFIG ARGS``: the exit code, and standard output and
    error together."""
    run = run_cli(capsys, command, "--config", str(root / config), *args)
    return run.code, run.text


def check(capsys: pytest.CaptureFixture[str], root: Path, *args: str, config: str = "driftguard.yaml") -> tuple[int, str]:
    """``driftguard check`` of the config ``root/config``: the exit code, and standard output and error together."""
    return cli_on(capsys, root, "check", *args, config=config)


# -- this repository, copied once -------------------------------------------------------


def repository_files() -> dict[str, Path]:
    """This working tree's files (tracked and untracked, not ignored), by path: what the own
    config's ``references`` and ``links`` rules resolve against (see ``SharedTree``)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return {rel: ROOT / rel for rel in filter(None, listed)
            if (ROOT / rel).is_file() and not (ROOT / rel).is_symlink()}


_READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH


class SharedTree:
    """A set of files copied once (read only) and lent to each test as a tree of hard links."""

    def __init__(self, copy: Path, files: dict[str, Path]) -> None:
        self.copy = copy
        self.stamps: dict[str, tuple[int, int]] = {}  # path -> (size, mtime) as copied
        for rel, source in files.items():
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)  # the source's mtime: a later write in place shows
            os.chmod(target, _READ_ONLY)
            info = target.stat()
            self.stamps[rel] = (info.st_size, info.st_mtime_ns)
        self.sources = files

    def lend(self, dest: Path) -> Path:
        """A tree at ``dest`` of hard links to the copy."""
        for rel in self.stamps:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            os.link(self.copy / rel, dest / rel)
        return dest

    def assert_untouched(self) -> None:
        """Fails when a test wrote a file of the copy in place (not through ``edit`` or ``own``),
        which would reach every later test; the file is restored first."""
        spoiled = self.written_in_place()
        assert spoiled == [], f"files of the shared copy written in place (use tests.helpers.edit or own): {spoiled}"

    def written_in_place(self) -> list[str]:
        """The copy's files changed since copied, each copied again from its source."""
        spoiled = []
        for rel, stamp in self.stamps.items():
            info = (self.copy / rel).stat()
            if (info.st_size, info.st_mtime_ns) != stamp:
                spoiled.append(rel)
                (self.copy / rel).unlink()  # a new file: the trees already lent keep what they saw
                shutil.copy2(self.sources[rel], self.copy / rel)
                os.chmod(self.copy / rel, _READ_ONLY)
        return spoiled
