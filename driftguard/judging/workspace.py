"""One run's view of the files: safe reading under the root, and a parse cache.

Every path is resolved against the root and refused when it leaves it (through
``..`` or a symlink, including a sibling folder that merely shares a prefix).
Only regular files are read, and none over ``max_file_size`` bytes.
Each file is read and parsed at most once per run, whatever number of rules
use it; a failure is cached too, so every rule that needs the file reports it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

from driftguard.model import DriftguardError, Location, ReadError
from driftguard.text import split_bom

T = TypeVar("T")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class Workspace:
    def __init__(self, root: Path, max_file_size: int, root_origin: str = "") -> None:
        self.root = root.resolve()
        self.root_origin = root_origin
        self.max_file_size = max_file_size
        self._cache: dict[tuple[str, str], object] = {}
        self._folders: dict[str, str] = {}
        self.bytes_read = 0

    def resolve(self, relpath: str) -> Path:
        """The real path of ``relpath``, or ReadError when it is outside the root.

        Each folder is resolved once per run; a file that is not itself a symlink
        then needs only an ``lstat``."""
        return Path(self._real(relpath))

    def _real(self, relpath: str) -> str:
        return self._located(relpath)[0]

    def _located(self, relpath: str) -> tuple[str, os.stat_result | None]:
        """The real path of ``relpath`` and, when it is no symlink, its ``lstat`` (its ``stat``)."""
        folder, _, name = relpath.rpartition("/")
        if folder and name not in ("", ".", ".."):
            real_folder = self._folders.get(folder)
            if real_folder is None:
                try:
                    real_folder = self._folders[folder] = str(self._resolve(folder))
                except ReadError:
                    return str(self._resolve(relpath)), None  # raised again, naming the file
            candidate = os.path.join(real_folder, name)
            try:
                info = os.lstat(candidate)
            except OSError:
                return candidate, None  # missing or unreadable: reading it says so
            if not stat.S_ISLNK(info.st_mode):
                return candidate, info
        return str(self._resolve(relpath)), None

    def _resolve(self, relpath: str) -> Path:
        candidate = self.root / relpath
        try:
            real = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on older Pythons
            raise ReadError(f"cannot resolve the path: {exc}", Location(relpath)) from None
        if real != self.root and self.root not in real.parents:
            raise ReadError("the path leaves the root (through '..' or a symlink); refused", Location(relpath))
        return real

    def read_text(self, relpath: str) -> str:
        return self.cached("text", relpath, lambda: self._read(relpath))

    def cached(self, kind: str, relpath: str, make: Callable[[], T]) -> T:
        """``make()`` once per (kind, path) and run; a raised DriftguardError is cached and re-raised."""
        key = (kind, relpath)
        if key not in self._cache:
            try:
                self._cache[key] = make()
            except DriftguardError as exc:
                self._cache[key] = exc
        found = self._cache[key]
        if isinstance(found, DriftguardError):
            raise found
        return cast(T, found)

    def stamp(self, relpath: str) -> tuple[int, ...] | None:
        """``(size, mtime_ns, ctime_ns, inode, device)`` of ``relpath``, asked as reading it
        would (under the root, a regular file within ``max_file_size``); None when reading
        it would fail or could not be told apart, so the caller reads it and meets the error."""
        def make() -> tuple[int, ...] | None:
            try:
                real, info = self._located(relpath)
                info = info or os.stat(real)
            except (OSError, ValueError, DriftguardError):
                return None
            if not stat.S_ISREG(info.st_mode) or info.st_size > self.max_file_size:
                return None
            return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev

        return self.cached("stamp", relpath, make)

    def _read(self, relpath: str) -> str:
        where = Location(relpath)
        data = self._read_bytes(self.resolve(relpath), where)
        self.bytes_read += len(data)
        if b"\0" in data:
            line = data.count(b"\n", 0, data.index(b"\0")) + 1
            raise ReadError("file holds a NUL byte; expected text", Location(relpath, line))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ReadError(f"file is not valid UTF-8 (byte {exc.start})", Location(relpath, line)) from None
        return split_bom(text)[1]

    def _read_bytes(self, path: Path, where: Location) -> bytes:
        """The bytes of a regular file of at most ``max_file_size`` bytes.

        The file is opened without following a final symlink (one swapped in after
        ``resolve``) and without blocking (a FIFO swapped in), then checked again on
        the open descriptor, and read only up to the limit, even if it grows.
        """
        try:
            info = os.stat(path)
        except FileNotFoundError:
            if self.root_origin:  # a moved root is the usual reason a file that exists is "not found"
                raise ReadError(f"file not found under the root {self.root} ({self.root_origin})", where) from None
            raise ReadError("file not found", where) from None
        except OSError as exc:
            raise ReadError(f"cannot read the file: {exc.strerror or exc}", where) from None
        self._check(info, where)
        limit = self.max_file_size
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
            with os.fdopen(fd, "rb") as handle:
                self._check(os.fstat(handle.fileno()), where)
                data = handle.read(limit + 1)
        except OSError as exc:
            raise ReadError(f"cannot read the file: {exc.strerror or exc}", where) from None
        if len(data) > limit:
            raise ReadError(f"file is over the limit of {limit} bytes (max_file_size)", where)
        return data

    def _check(self, info: os.stat_result, where: Location) -> None:
        if stat.S_ISDIR(info.st_mode):
            raise ReadError("expected a file, found a directory", where)
        if not stat.S_ISREG(info.st_mode):
            raise ReadError("not a regular file (a FIFO, socket or device); refused", where)
        if info.st_size > self.max_file_size:
            raise ReadError(
                f"file is {info.st_size} bytes, over the limit of {self.max_file_size} (max_file_size)", where
            )
