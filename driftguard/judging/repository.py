"""The repository outside the documents: which names appear in it, and which files it has.

Files are the tracked files where the root is a git work tree, otherwise every
file under the root but the usual vendored, build and tool folders. A name
appears when it occurs whole: an identifier as a word, a dotted name with
every part (``VM.GuestAgent.Audit`` in ``perms: [VM.GuestAgent.Audit]``). Each
folder's files are read once per run and reduced to the set of names they hold
(by worker processes when they are many bytes); with a cache,
the names of each folder and of the whole are kept by the files' sizes and
modification times, so a warm run stats the files and reads none.
"""

from __future__ import annotations

import bisect
import json
import os
import posixpath
import re
import subprocess
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.judging.fingerprints import digest

if TYPE_CHECKING:
    from driftguard.judging.cache import FactCache

VENDORED = ("vendor", "node_modules", "third_party")
"""Other projects' code kept in the tree: git's history of it is no evidence of this one's names."""

SKIPPED_FOLDERS = frozenset({
    *VENDORED, ".git", ".hg", ".svn",
    ".venv", "venv", "env", "__pycache__", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".hypothesis", ".next", ".nuxt", ".cache", "site-packages",
})
"""Vendored code, environments and tool caches: skipped at any depth of a walk."""

OUTPUT_FOLDERS = frozenset({"dist", "build", "target", "out", "coverage"})
"""Where build and test tools write, at the root: skipped there only, since a package
of the project may be called ``coverage`` or ``build``."""

DOCUMENTATION = (".md", ".markdown", ".mdown", ".mkd", ".mdx", ".rst", ".adoc", ".asciidoc")
"""Prose files: their names never keep a reference alive."""

_NAMES = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_OWN_OUTPUT = re.compile(rb'"name":\s*"driftguard"|<meta name="generator" content="driftguard|'
                         rb'\A\{\s*"ok":\s*(?:true|false),\s*"version":|\A\{\s*"driftguard_baseline":')
"""What driftguard's own reports say near their top (SARIF, the JSON format, the coverage
page, the baseline): a name they quote never keeps a reference alive."""


def repository_files(root: Path) -> list[str]:
    """Root-relative posix paths of the repository's files, sorted: the tracked ones in a
    git work tree (a tracked folder named ``coverage`` or ``build`` is the project's
    own), else every file but those under the usual vendored and build folders."""
    tracked = _git_files(root)
    if tracked is not None:
        return sorted(tracked)
    found = []
    for folder, dirs, files in os.walk(root):
        top = os.path.samefile(folder, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_FOLDERS and not (top and d in OUTPUT_FOLDERS)
                         and not os.path.islink(os.path.join(folder, d)))
        base = Path(folder).relative_to(root)
        found += [(base / f).as_posix() for f in files]
    return sorted(found)


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(["git", "ls-files", "-z", "--cached"], cwd=root, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [p for p in done.stdout.decode("utf-8", "replace").split("\0") if p]


def own_output(data: bytes) -> bool:
    """Whether ``data`` is a report driftguard wrote (SARIF, JSON, the coverage page, a baseline)."""
    return bool(_OWN_OUTPUT.search(data[:4096]))


def read_names(root: Path, max_file_size: int, path: str) -> frozenset[str]:
    """The names of the file ``path`` under ``root``: none for a symlink, a file over
    ``max_file_size``, a binary file or a report driftguard wrote."""
    full = root / path
    try:
        if full.is_symlink() or not full.is_file() or full.stat().st_size > max_file_size:
            return frozenset()
        data = full.read_bytes()
    except OSError:
        return frozenset()
    if b"\0" in data[:8192] or own_output(data):
        return frozenset()
    return names_in(data)


def folder_names(root: Path, max_file_size: int, paths: list[str]) -> frozenset[str]:
    """The names of ``paths`` (``read_names`` of each), the files of one folder."""
    return frozenset().union(*(read_names(root, max_file_size, p) for p in paths))


def names_of(root: str, max_file_size: int, folders: dict[str, list[str]]) -> dict[str, frozenset[str]]:
    """``folder_names`` of each folder, in a worker process."""
    return {folder: folder_names(Path(root), max_file_size, paths) for folder, paths in folders.items()}


def names_in(data: bytes) -> frozenset[str]:
    """Every identifier and every run of dotted parts (``a.b.c`` gives ``a.b``, ``b.c``,
    ``a.b.c`` and each part) in ``data``."""
    out: set[str] = set()
    for token in set(_NAMES.findall(data)):
        parts = token.decode("ascii").split(".")
        if len(parts) == 1:
            out.add(parts[0])
            continue
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                out.add(".".join(parts[i:j]))
    return frozenset(out)


class Repository:
    """Names per file, read lazily, once per run."""

    def __init__(self, root: Path, max_file_size: int, cache: FactCache | None = None) -> None:
        self.root = root
        self.max_file_size = max_file_size
        self.cache = cache
        self.files = repository_files(root)
        self._folders: dict[tuple[str, ...], frozenset[str]] = {}  # the names of a folder's files, by the files
        self._unions: dict[frozenset[str], frozenset[str]] = {}
        self._tails: set[str] | None = None
        self._by_base: dict[str, list[str]] | None = None
        self._whole: str | None = None
        self._stamps: dict[str, object] = {}  # a file's stamp, taken once per run
        self.top = frozenset(f.split("/", 1)[0] for f in self.files)

    def holds(self, path: str) -> bool:
        """Whether a file or folder of the repository ends in ``path`` at a segment boundary."""
        if self._tails is None:
            tails: set[str] = set()
            for file in self.files:
                parts = file.split("/")
                for i in range(len(parts)):
                    for j in range(i + 1, len(parts) + 1):
                        tails.add("/".join(parts[i:j]))
            self._tails = tails
        return path.rstrip("/") in self._tails

    def named(self, base: str) -> list[str]:
        """The files whose last segment is ``base``, in path order."""
        if self._by_base is None:
            by_base: dict[str, list[str]] = {}
            for file in self.files:
                by_base.setdefault(file.rpartition("/")[2], []).append(file)
            self._by_base = by_base
        return self._by_base.get(base, [])

    def near(self, path: str, most: int = 2000) -> list[str]:
        """The files a misspelt or renamed ``path`` may have meant: those under its nearest
        folder that holds any, with its extension when it has one (at most ``most``)."""
        folder = posixpath.dirname(path.rstrip("/"))
        while True:
            under = self._under(folder)
            if under or not folder:
                break
            folder = posixpath.dirname(folder)
        ext = posixpath.splitext(path.rstrip("/"))[1]
        return [f for f in under if not ext or f.endswith(ext)][:most]

    def _under(self, folder: str) -> list[str]:
        if not folder:
            return self.files
        prefix = folder.rstrip("/") + "/"
        start = bisect.bisect_left(self.files, prefix)
        end = bisect.bisect_left(self.files, prefix[:-1] + chr(ord("/") + 1), start)
        return self.files[start:end]

    def _prefetch(self, folders: dict[str, list[str]]) -> None:
        """The names of each folder's files not read yet, read by worker processes when
        they are many bytes (``processes.PARALLEL_FROM``): the reading is a regex over
        every byte. A worker sends back one set per folder."""
        from driftguard.judging import processes

        sizes: dict[str, int] = {}
        for folder, paths in folders.items():
            if tuple(paths) not in self._folders:
                sizes[folder] = sum(s[0] if isinstance(s := self._stamp(p), list) else 0 for p in paths)
        workers = min(processes.default_jobs(), len(sizes))
        if workers < 2 or sum(sizes.values()) < processes.PARALLEL_FROM:
            return
        groups = [{folder: folders[folder] for folder in group} for group in processes.balanced(sizes, workers * 4)]
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=processes.pool_context()) as pool:
                for found in pool.map(names_of, [str(self.root)] * len(groups), [self.max_file_size] * len(groups),
                                      groups):
                    self._folders.update((tuple(folders[folder]), names) for folder, names in found.items())
        except Exception:  # noqa: BLE001 - any failure here: the serial path reads them all
            return

    def _folder(self, paths: list[str]) -> frozenset[str]:
        """The names of ``paths``, the files of one folder, read once per run."""
        key = tuple(paths)
        if key not in self._folders:
            self._folders[key] = folder_names(self.root, self.max_file_size, paths)
        return self._folders[key]

    def names(self, outside: Iterable[str]) -> frozenset[str]:
        """The names of every file but ``outside`` (the documents a rule reads) and the
        documentation (``DOCUMENTATION`` suffixes): a name only prose still mentions, in
        a changelog or a guide no rule reads, is as stale as one in the rule's documents."""
        key = frozenset(outside)
        if key not in self._unions:
            paths = [p for p in self.files if p not in key and not p.lower().endswith(DOCUMENTATION)]
            self._unions[key] = self._union(paths) if self.cache is not None else self._read_all(paths)
        return self._unions[key]

    def _read_all(self, paths: Iterable[str]) -> frozenset[str]:
        folders: dict[str, list[str]] = {}
        for path in paths:
            folders.setdefault(posixpath.dirname(path), []).append(path)
        self._prefetch(folders)
        union: set[str] = set()
        for files in folders.values():
            union |= self._folder(files)
        return frozenset(union)

    def _union(self, paths: list[str]) -> frozenset[str]:
        """``_read_all`` through the cache: the whole union by every file's stamp, and on a
        miss each folder's by its files' stamps, so one changed file rereads one folder."""
        cache = self.cache
        assert cache is not None
        folders: dict[str, list[tuple[str, object]]] = {}
        for path in paths:
            folders.setdefault(posixpath.dirname(path), []).append((path, self._stamp(path)))
        stamps = {folder: _digest([self.max_file_size, files]) for folder, files in folders.items()}

        def folder_names(files: list[tuple[str, object]]) -> list[str]:
            return sorted(self._folder([p for p, _ in files]))

        def every_folder() -> list[str]:
            self._prefetch({folder: [p for p, _ in files] for folder, files in folders.items()
                            if not cache.holds_repository_names(folder + "/", stamps[folder])})
            union: set[str] = set()
            for folder, files in folders.items():
                union.update(cache.repository_names(folder + "/", stamps[folder], partial(folder_names, files)))
            return sorted(union)

        return frozenset(cache.repository_names("", _digest(sorted(stamps.items())), every_folder))

    def stamp(self) -> str:
        """A digest of every file's path, size and modification time (and the size bound)."""
        if self._whole is None:
            self._whole = _digest([self.max_file_size, [(p, self._stamp(p)) for p in self.files]])
        return self._whole

    def _stamp(self, path: str) -> object:
        if path not in self._stamps:
            try:
                found = os.lstat(self.root / path)
            except OSError:
                self._stamps[path] = None
            else:
                self._stamps[path] = [found.st_size, found.st_mtime_ns, found.st_mode]
        return self._stamps[path]


def _digest(data: object) -> str:
    return digest(json.dumps(data, separators=(",", ":")).encode("utf-8", "surrogatepass"))
