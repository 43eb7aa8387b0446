"""What git remembers of the code: the evidence and the hints of a ``references`` rule.

A name a document states that the code no longer has is reported when the code held
it at the commit that last changed the document's line (``git blame``, then ``git
grep`` in that commit's tree, documentation left out): the name was this project's
code when the line was written. A name the code never held there (a Linux capability,
another product's setting) is not this project's, and is left alone.

For a name the code lost, ``removal`` finds the commit that removed it (``git log
-S``) and the names that commit added, so the finding can say where it went.

Every call is bounded in time and output; without git, or outside a work tree,
nothing is known and every answer is empty. Answers depend only on the commits, so
the engine caches them keyed by ``HEAD`` and the document's content.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from driftguard.judging.repository import DOCUMENTATION, VENDORED

_TIMEOUT = 30
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_UNCOMMITTED = "0" * 40
_NOT_CODE = [f":(exclude,glob)**/*{ext}" for ext in DOCUMENTATION] + \
    [f":(exclude,glob)**/{folder}/**" for folder in VENDORED]
"""Documentation, and vendored code (another project's names: a cloud SDK's variable)."""


@dataclass(frozen=True)
class Removal:
    """The commit that removed a name, and the names it added."""

    commit: str
    date: str
    subject: str
    added: tuple[str, ...]


class History:
    """The git history of the work tree at ``root``, asked lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._head: str | None | bool = False

    def head(self) -> str | None:
        """The commit ``HEAD`` names, or None when ``root`` is in no git work tree."""
        if self._head is False:
            out = self._git("rev-parse", "--verify", "-q", "HEAD")
            self._head = out.strip() if out and re.fullmatch(r"[0-9a-f]{40}\s*", out) else None
        return self._head if isinstance(self._head, str) else None

    def line_commits(self, path: str) -> dict[int, str]:
        """Line -> the commit that last changed it, for the committed lines of ``path``."""
        out = self._git("blame", "--porcelain", "--", path)
        found: dict[int, str] = {}
        for m in re.finditer(r"^([0-9a-f]{40}) \d+ (\d+)", out or "", re.M):
            if m.group(1) != _UNCOMMITTED:
                found[int(m.group(2))] = m.group(1)
        return found

    def code_names(self, commit: str, names: list[str]) -> set[str]:
        """Which of ``names`` occur whole in the code (documentation left out) of ``commit``."""
        if not names:
            return set()
        patterns = [arg for name in sorted(set(names)) for arg in ("-e", name)]
        out = self._git("grep", "-I", "-w", "-F", "-o", "-h", *patterns, commit, "--", ".", *_NOT_CODE)
        return set(out.split()) & set(names) if out else set()

    def removal(self, name: str) -> Removal | None:
        """The most recent commit that changed how often ``name`` occurs in the code, when
        the name is gone since, with the names that commit added."""
        out = self._git("log", "-1", "-S", name, "--format=%h%x00%ad%x00%s", "--date=short", "--", ".", *_NOT_CODE)
        if not out or "\0" not in out:
            return None
        commit, date, subject = out.strip().split("\0", 2)
        diff = self._git("show", "--format=", "--unified=0", commit, "--", ".", *_NOT_CODE) or ""
        added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
        gone = {n for line in removed for n in _IDENTIFIER.findall(line)}
        new = dict.fromkeys(n for line in added for n in _IDENTIFIER.findall(line) if n not in gone)
        return Removal(commit, date, subject, tuple(new))

    def _git(self, *args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, timeout=_TIMEOUT)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode not in (0, 1):  # grep answers 1 for "no match"
            return None
        return done.stdout.decode("utf-8", "replace")
