"""Hostile paths: absolute, `..`, symlinks out of the root (a sibling-prefix folder too),
missing files, directories, FIFOs. Each is refused with exit 2 and the path named;
nothing outside the root is ever opened."""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.judging.engine import Engine
from driftguard.judging.workspace import Workspace
from driftguard.model import ReadError

SOURCE = "LIMIT = 5\n"
DOC = "# Limits\n\nThe limit is 5 requests.\n"
SECRET = "LIMIT = 5  # SECRET-MARKER\n"
SECRET_DOC = "# Limits\n\nThe limit is 5 requests. SECRET-MARKER\n"


def config(file: str = "src/limits.py", doc: str = "docs/limits.md") -> str:
    return f"""
    version: 1
    facts:
      limit:
        file: '{file}'
        constant: LIMIT
    rules:
      - id: limit
        fact: limit
        doc: '{doc}'
        phrase: 'limit is {{value}} requests'
    """


@pytest.fixture
def base(repo, write):
    """A passing tree: the fact at src/limits.py, the claim at docs/limits.md."""
    return write(repo, {"src/limits.py": SOURCE, "docs/limits.md": DOC, "driftguard.yaml": config()})


def test_the_base_tree_passes(base, cli):
    assert cli(base, "check").code == 0


# -- refused by the config --------------------------------------------------------


@pytest.mark.parametrize(
    "file, doc, line, words",
    [
        ("/etc/passwd", "docs/limits.md", 4, ["facts.limit.file", "absolute", "/etc/passwd"]),
        ("src/limits.py", "/etc/motd", 9, ["rules[0].doc", "absolute"]),
        ("../outside.py", "docs/limits.md", 4, ["leaves the root", "../outside.py"]),
        ("src/../../outside.py", "docs/limits.md", 4, ["leaves the root"]),
        ("src/limits.py", "docs/../../../etc/motd", 9, ["leaves the root"]),
        ("C:/Windows/win.ini", "docs/limits.md", 4, ["absolute"]),
        ("src\\limits.py", "docs/limits.md", 4, ["/ separators"]),
    ],
)
def test_absolute_and_escaping_paths_are_config_errors(base, write, cli, file, doc, line, words):
    write(base, {"driftguard.yaml": config(file, doc)})
    run = cli(base, "check")
    assert run.code == 2
    assert f"driftguard.yaml:{line}: error:" in run.err
    for word in words:
        assert word in run.err


def test_a_path_that_dips_into_a_folder_and_back_is_fine(base, write, cli):
    write(base, {"driftguard.yaml": config("docs/../src/./limits.py")})
    assert cli(base, "check").code == 0


# -- symlinks ---------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path):
    """A folder next to the repository holding files nothing may read."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "limits.py").write_text(SECRET, encoding="utf-8")
    (folder / "limits.md").write_text(SECRET_DOC, encoding="utf-8")
    return folder


def _link(link: Path, target: Path | str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to(target)


@pytest.mark.parametrize(
    "make, file, doc",
    [
        # a file symlink with an absolute target, as the fact
        (lambda root, out: _link(root / "src/evil.py", out / "limits.py"), "src/evil.py", "docs/limits.md"),
        # a relative file symlink climbing out, as the document
        (lambda root, out: _link(root / "docs/evil.md", Path("../../outside/limits.md")), "src/limits.py", "docs/evil.md"),
        # a directory symlink leaving the root, the file below it
        (lambda root, out: _link(root / "vendor", out), "vendor/limits.py", "docs/limits.md"),
        # a chain of two links, the second one leaving
        (lambda root, out: (_link(root / "src/hop.py", out / "limits.py"), _link(root / "src/evil.py", Path("hop.py"))),
         "src/evil.py", "docs/limits.md"),
    ],
    ids=["file-absolute", "doc-relative", "directory", "chain"],
)
def test_a_symlink_leaving_the_root_is_refused(base, outside, write, cli, make, file, doc):
    make(base, outside)
    write(base, {"driftguard.yaml": config(file, doc)})
    run = cli(base, "check")
    assert run.code == 2
    assert "the path leaves the root" in run.out
    assert "limit:" in run.out and (file if file != "src/limits.py" else doc) in run.out
    assert "SECRET-MARKER" not in run.text


def test_nothing_outside_the_root_is_opened(base, outside, write, monkeypatch):
    """Spy on every way of opening a file while the engine runs over escaping links."""
    _link(base / "src/evil.py", outside / "limits.py")
    _link(base / "docs/evil.md", outside / "limits.md")
    write(base, {"driftguard.yaml": config("src/evil.py", "docs/evil.md")})
    opened: list[str] = []
    real_os_open, real_open, real_io_open = os.open, builtins.open, io.open

    def spy_os_open(path, *args, **kwargs):
        opened.append(os.fspath(path))
        return real_os_open(path, *args, **kwargs)

    def spy_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            opened.append(os.fsdecode(os.fspath(file)))
        return real_open(file, *args, **kwargs)

    cfg = load_config(base / "driftguard.yaml")
    monkeypatch.setattr(os, "open", spy_os_open)
    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(io, "open", spy_open)
    result = Engine(cfg).run()
    monkeypatch.setattr(io, "open", real_io_open)
    assert result.exit_code == 2
    assert [f.kind.kind for f in result.findings] == ["read-error", "read-error"]
    leaked = [p for p in opened if Path(p).resolve().is_relative_to(outside.resolve())]
    assert leaked == []


def test_a_sibling_folder_sharing_the_root_as_a_prefix_is_outside(tmp_path, write, cli):
    """Root `r/repo`, a link into `r/repo_secret`: a string-prefix test would let it through."""
    root = write(tmp_path / "r" / "repo", {".git/HEAD": "ref: main\n", "src/limits.py": SOURCE,
                                           "driftguard.yaml": config("src/limits.py", "docs/limits.md")})
    secret = write(tmp_path / "r" / "repo_secret", {"limits.md": SECRET_DOC}) / "limits.md"
    _link(root / "docs/limits.md", Path("../../repo_secret/limits.md"))
    assert str(secret.resolve()).startswith(str(root.resolve()))  # the trap is real
    run = cli(root, "check")
    assert run.code == 2 and "the path leaves the root" in run.out and "SECRET-MARKER" not in run.text
    workspace = Workspace(root, 1 << 20)
    with pytest.raises(ReadError, match="leaves the root"):
        workspace.resolve("docs/limits.md")
    with pytest.raises(ReadError, match="leaves the root"):
        workspace.resolve("../repo_secret/limits.md")
    assert workspace.resolve("src/limits.py") == (root / "src/limits.py").resolve()


def test_a_symlink_that_stays_inside_the_root_is_followed(base, write, cli):
    _link(base / "docs/alias.md", Path("limits.md"))
    _link(base / "lib", Path("src"))
    write(base, {"driftguard.yaml": config("lib/limits.py", "docs/alias.md")})
    assert cli(base, "check").code == 0


def test_a_root_reached_through_a_symlink_is_not_refused(base, tmp_path, cli):
    link = tmp_path / "checkout"
    link.symlink_to(base)
    assert cli(tmp_path, "check", "--config", str(link / "driftguard.yaml")).code == 0


def test_a_symlink_loop_is_an_error(base, write, cli):
    _link(base / "src/a.py", Path("b.py"))
    _link(base / "src/b.py", Path("a.py"))
    write(base, {"driftguard.yaml": config("src/a.py")})
    run = cli(base, "check")
    assert run.code == 2 and "src/a.py" in run.out and ("cannot resolve" in run.out or "leaves" in run.out)


def test_a_dangling_symlink_is_file_not_found(base, write, cli):
    _link(base / "src/gone.py", Path("nowhere.py"))
    write(base, {"driftguard.yaml": config("src/gone.py")})
    run = cli(base, "check")
    assert run.code == 2 and "fact 'limit': file not found (source: src/gone.py)" in run.out


# -- missing, directories, special files ----------------------------------------------


@pytest.mark.parametrize(
    "file, doc, expect",
    [
        ("src/missing.py", "docs/limits.md", "fact 'limit': file not found (source: src/missing.py)"),
        ("src/limits.py", "docs/missing.md", "docs/missing.md: limit: file not found"),
        ("src", "docs/limits.md", "fact 'limit': expected a file, found a directory (source: src)"),
        ("src/limits.py", "docs", "docs: limit: expected a file, found a directory"),
    ],
)
def test_missing_files_and_directories_are_errors_never_passes(base, write, cli, file, doc, expect):
    write(base, {"driftguard.yaml": config(file, doc)})
    run = cli(base, "check")
    assert run.code == 2
    assert expect in run.out
    assert run.out.endswith("1 rule: 0 passed, 1 error\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_is_refused_without_blocking(base, write, cli, monkeypatch):
    """Opening a FIFO that no one writes blocks for ever unless it is opened non-blocking: every
    open of it must ask for that (an open that does not is refused here, so it fails, not hangs)."""
    pipe = base / "docs" / "pipe.md"
    os.mkfifo(pipe)
    write(base, {"driftguard.yaml": config("src/limits.py", "docs/pipe.md")})
    blocking: list[str] = []
    real_os_open, real_open = os.open, builtins.open

    def guarded_os_open(path, flags, *args, **kwargs):
        if _same(path, pipe) and not flags & os.O_NONBLOCK:
            blocking.append(f"os.open({flags:#o})")
            raise OSError(errno.EWOULDBLOCK, "the test refuses a blocking open of its FIFO")
        return real_os_open(path, flags, *args, **kwargs)

    def guarded_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and _same(file, pipe):
            blocking.append("open()")
            raise OSError(errno.EWOULDBLOCK, "the test refuses a blocking open of its FIFO")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_os_open)
    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    run = cli(base, "check")
    assert blocking == []
    assert run.code == 2 and "docs/pipe.md: limit: not a regular file" in run.out


def _same(path: str | bytes | os.PathLike[str] | os.PathLike[bytes], other: Path) -> bool:
    try:
        return Path(os.fsdecode(os.fspath(path))).resolve() == other.resolve()
    except (OSError, ValueError):
        return False


def test_a_path_too_long_for_the_system_is_an_error(base, write, cli):
    name = "x" * 5000 + ".py"
    write(base, {"driftguard.yaml": config(f"src/{name}")})
    run = cli(base, "check")
    assert run.code == 2 and "fact 'limit':" in run.out and "src/xxxx" in run.out
