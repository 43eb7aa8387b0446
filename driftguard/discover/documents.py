"""What kind of document a path is, for discovery: a record of the past, or a page about the code.

- A **history** document (a changelog, release notes, a history or news page, a blog
  post) states what the code was at one release; nothing discovered there guards the
  code of today, so it is never read: a file named ``CHANGELOG*``, ``CHANGES*``,
  ``HISTORY*``, ``RELEASE*`` or ``NEWS*`` anywhere, every file of a ``blog/`` folder, and
  every file under a documentation folder (``docs/``, ``doc/``, ``documentation/``) whose
  path below it has a part starting ``release`` (``docs/releases/v2.md``,
  ``docs/release-control/v6/plan.md``, ``docs/release-notes.md``). ``--include`` brings
  such a path back (a glob, a path, or a folder).
- A **dated** document (a date in its name or a folder's, or kept under ``records/``,
  ``decisions/``, ``adr/``) records a decision or an event as it stood that day: read,
  but ranked after every other document.
- An **architecture** document (its path or its title says architecture, design or
  internals) states how the code is built: ranked first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from driftguard.config import globs

HISTORY_NAMES = ("changelog", "changes", "history", "release", "news")
"""File names (their start, any case) of documents that record the past."""
HISTORY_FOLDERS = frozenset({"blog", "blogs", "posts", "announcements", "changelog", "changelogs"})
"""Folders of dated posts (a release announcement states the defaults of that release)."""
DOC_FOLDERS = frozenset({"docs", "doc", "documentation"})
RECORD_FOLDERS = frozenset({"records", "decisions", "adr", "adrs"})
_DATE = re.compile(r"(?<!\d)(?:19|20)\d\d(?:[-_.]?(?:0[1-9]|1[0-2]))(?:[-_.]?(?:0[1-9]|[12]\d|3[01]))?(?!\d)")
"""A year and month, and maybe a day: ``2026-03-10``, ``2024-05``, ``20240510``."""
_ABOUT_CODE = re.compile(r"architect|internals|(?<![a-z])design(?![a-z])", re.IGNORECASE)

ARCHITECTURE, PLAIN, DATED = 0, 1, 2
"""Document tiers, best first."""


def is_history(path: str, include: Iterable[str] = ()) -> bool:
    """Whether the document at root-relative ``path`` records the past and is left out
    (unless an ``include`` pattern names it)."""
    parts = PurePosixPath(path).parts
    if not parts:
        return False
    history = parts[-1].lower().startswith(HISTORY_NAMES) or any(p.lower() in HISTORY_FOLDERS for p in parts[:-1])
    if not history:
        below = next((i for i, part in enumerate(parts[:-1]) if part.lower() in DOC_FOLDERS), None)
        history = below is not None and any(p.lower().startswith("release") for p in parts[below + 1:])
    return history and not included(path, include)


def included(path: str, patterns: Iterable[str]) -> bool:
    """Whether ``path`` is one ``--include`` names: a glob or path matching it, or a folder holding it."""
    for pattern in patterns:
        pattern = pattern.strip().strip("/") if not globs.is_glob(pattern) else pattern.strip()
        if pattern and (globs.matches(pattern, path) or path.startswith(pattern + "/")):
            return True
    return False


def is_dated(path: str) -> bool:
    """Whether the document is a dated record: a date in its name or a folder's, or a records folder."""
    parts = PurePosixPath(path).parts
    if any(part.lower() in RECORD_FOLDERS for part in parts[:-1]):
        return True
    return any(_DATE.search(part) for part in parts)


def about_code(path: str, title: str) -> bool:
    """Whether the document's path or title says it describes how the code is built."""
    return bool(_ABOUT_CODE.search(PurePosixPath(path).as_posix()) or _ABOUT_CODE.search(title))


def tier(path: str, title: str) -> int:
    """``ARCHITECTURE``, ``PLAIN`` or ``DATED``: where the document's proposals rank."""
    if is_dated(path):
        return DATED
    return ARCHITECTURE if about_code(path, title) else PLAIN
