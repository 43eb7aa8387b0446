"""What exists under the root, asked without ever touching anything outside it.

``kind`` walks a root-relative path one name at a time from the (real) root: each
step is an ``lstat`` of one name inside a folder already proven to be inside the
root. A symlink is read (``readlink``: the link itself lives in the tree) and its
target followed only while it stays inside the root, textually, before anything
is asked of it; a target outside is never stat-ed, opened or listed, the path is
``OUTSIDE``. So a link to ``../../etc/passwd``, to ``%2e%2e/x`` or through a
symlink out of the tree costs nothing outside and says it leaves. More than 40
symlinks on one path (a loop) is ``MISSING``.

``Workspace.resolve`` follows a symlink with ``realpath``, which stats the target's
folders first and checks the root after; every question a ``links`` rule asks of
the tree goes through here instead. Answers are cached per run in the workspace.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

from driftguard.judging.workspace import Workspace
from driftguard.model import DriftguardError

FILE, FOLDER, MISSING, OUTSIDE = "file", "folder", "missing", "outside"
_MAX_HOPS = 40
MAX_ENTRIES = 5000  # entries of one folder listed, files of one walk
_SKIPPED = frozenset({"node_modules", "__pycache__"})


class Tree:
    """Root-bound questions about files for one run, through ``workspace``."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.root = str(workspace.root)

    def kind(self, rel: str) -> str:
        """FILE, FOLDER, MISSING or OUTSIDE for root-relative ``rel`` ("" is the root)."""
        return self.workspace.cached("tree-kind", rel, lambda: self._walk(rel)[0])

    def real(self, rel: str) -> str:
        """The root-relative real path of ``rel`` (in-root symlinks followed), "" for none."""
        return self.workspace.cached("tree-real", rel, lambda: self._walk(rel)[1])

    def is_file(self, rel: str) -> bool:
        return self.kind(rel) == FILE

    def is_folder(self, rel: str) -> bool:
        return self.kind(rel) == FOLDER

    def entries(self, folder: str) -> tuple[str, ...]:
        """The names in ``folder`` (sorted, at most ``MAX_ENTRIES``); () for no folder."""
        return self.workspace.cached("tree-entries", folder, lambda: self._entries(folder))

    def may_hold(self, folder: str, name: str) -> bool:
        """Whether ``folder`` may hold an entry ``name`` (case ignored, as some file systems
        ignore it): False only when the folder's whole listing has no such entry, so the
        configs a site may have are looked for with one listing per folder, not one walk
        per name; True when the folder cannot be listed whole."""
        names = self.workspace.cached("tree-names", folder, lambda: self._names(folder))
        return names is None or name.casefold() in names

    def read(self, rel: str) -> str | None:
        """The text of file ``rel``; None when it is no file inside the root or unreadable."""
        if self.kind(rel) != FILE:
            return None
        try:
            return self.workspace.read_text(self.real(rel))
        except DriftguardError:
            return None

    def files(self, folder: str, suffixes: tuple[str, ...]) -> tuple[str, ...]:
        """Root-relative files under ``folder`` whose name ends with one of ``suffixes``
        (case ignored), depth first and sorted; hidden folders and ``node_modules`` left out."""
        return self.workspace.cached("tree-files", f"{folder}\0{'|'.join(suffixes)}",
                                     lambda: tuple(self._files(folder, suffixes)))

    def _files(self, folder: str, suffixes: tuple[str, ...]) -> Iterator[str]:
        stack, found = [folder], 0
        while stack and found < MAX_ENTRIES:
            here = stack.pop()
            for name in reversed(self.entries(here)):
                rel = f"{here}/{name}" if here else name
                kind = self.kind(rel)
                if kind == FOLDER and not name.startswith(".") and name not in _SKIPPED:
                    stack.append(rel)
                elif kind == FILE and name.lower().endswith(suffixes):
                    found += 1
                    yield rel

    def _entries(self, folder: str) -> tuple[str, ...]:
        if self.kind(folder) != FOLDER:
            return ()
        real = self.real(folder)
        try:
            with os.scandir(os.path.join(self.root, real) if real else self.root) as it:
                names = [entry.name for _, entry in zip(range(MAX_ENTRIES), it)]
        except OSError:
            return ()
        return tuple(sorted(names))

    def _names(self, folder: str) -> frozenset[str] | None:
        if self.kind(folder) != FOLDER:
            return frozenset()  # no folder holds nothing (a walk through it finds nothing either)
        real = self.real(folder)
        try:
            with os.scandir(os.path.join(self.root, real) if real else self.root) as it:
                names = [entry.name.casefold() for _, entry in zip(range(MAX_ENTRIES + 1), it)]
        except OSError:  # a folder one may enter but not list: ask each name
            return None
        return None if len(names) > MAX_ENTRIES else frozenset(names)

    def _walk(self, rel: str) -> tuple[str, str]:
        """(kind, real root-relative path) of ``rel``, one name at a time."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        real: list[str] = []
        hops = 0
        mode = stat.S_IFDIR
        while parts:
            part = parts.pop(0)
            if part == "..":
                if not real:
                    return OUTSIDE, ""
                real.pop()
                continue
            here = os.path.join(self.root, *real, part)
            try:
                info = os.lstat(here)
            except (OSError, ValueError):  # ValueError: a NUL in the name
                return MISSING, ""
            if stat.S_ISLNK(info.st_mode):
                hops += 1
                if hops > _MAX_HOPS:
                    return MISSING, ""
                try:
                    target = os.readlink(here)
                except OSError:
                    return MISSING, ""
                inside = self._inside(target)
                if inside is None:
                    return OUTSIDE, ""
                if os.path.isabs(target):
                    real = []
                parts = inside + parts
                continue
            if parts and not stat.S_ISDIR(info.st_mode):
                return MISSING, ""
            real.append(part)
            mode = info.st_mode
        if stat.S_ISDIR(mode):
            return FOLDER, "/".join(real)
        return (FILE if stat.S_ISREG(mode) else MISSING), "/".join(real)

    def _inside(self, target: str) -> list[str] | None:
        """The names a symlink's ``target`` continues with: an absolute one only when it
        names a place under the root (then relative to it), else None."""
        if not os.path.isabs(target):
            return target.replace(os.sep, "/").split("/")
        normal = os.path.normpath(target)
        if normal == self.root:
            return []
        if normal.startswith(self.root.rstrip(os.sep) + os.sep):
            return normal[len(self.root.rstrip(os.sep)) + 1:].split(os.sep)
        return None
