"""One run's view of the files: safe reading under the root, and a parse cache.

Every path is resolved against the root and refused when it leaves it (through
``..`` or a symlink, including a sibling folder that merely shares a prefix).
Each file is read and parsed at most once per run, whatever number of rules
use it; a failure is cached too, so every rule that needs the file reports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

from driftguard.model import DriftguardError, Location, ReadError

T = TypeVar("T")


class Workspace:
    def __init__(self, root: Path, max_file_size: int) -> None:
        self.root = root.resolve()
        self.max_file_size = max_file_size
        self._cache: dict[tuple[str, str], object] = {}
        self.bytes_read = 0

    def resolve(self, relpath: str) -> Path:
        """The real path of ``relpath``, or ReadError when it is outside the root."""
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
        return found  # type: ignore[return-value]

    def _read(self, relpath: str) -> str:
        where = Location(relpath)
        path = self.resolve(relpath)
        if not path.exists():
            raise ReadError("file not found", where)
        if path.is_dir():
            raise ReadError("expected a file, found a directory", where)
        try:
            size = path.stat().st_size
            if size > self.max_file_size:
                raise ReadError(
                    f"file is {size} bytes, over the limit of {self.max_file_size} (max_file_size)", where
                )
            data = path.read_bytes()
        except OSError as exc:
            raise ReadError(f"cannot read the file: {exc.strerror or exc}", where) from None
        self.bytes_read += len(data)
        if b"\0" in data:
            line = data.count(b"\n", 0, data.index(b"\0")) + 1
            raise ReadError("file holds a NUL byte; expected text", Location(relpath, line))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ReadError(f"file is not valid UTF-8 (byte {exc.start})", Location(relpath, line)) from None
        return text[1:] if text.startswith("\ufeff") else text
