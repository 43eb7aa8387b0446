"""Path patterns in ``file:`` and ``doc:``: a plain path, a glob, or a list of both.

A glob's ``*`` and ``?`` match within one path segment, ``[abc]`` one character
of a class, and a whole segment ``**`` any number of folders (none included).
Wildcards never match a name starting with a dot, so ``.git`` and ``.venv``
stay out unless a pattern names them. Folder symlinks are not followed (no
loops, nothing outside the root). A glob leaves out the test files of every
language (``driftguard.languages``: Go ``*_test.go``, Python ``test_*.py``,
TypeScript ``*.test.ts`` ...) unless its last part itself names test files
(``**/*_test.go``); a plain path is taken as written, whether or not it exists
(reading it reports a missing file).
Matches are sorted; a list keeps its patterns' order, each path once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from driftguard import languages

_WILD = re.compile(r"[*?\[]")


def is_glob(pattern: str) -> bool:
    return bool(_WILD.search(pattern))


def expand(root: Path, pattern: str, tests: bool = False) -> list[str]:
    """Root-relative posix paths of the regular files ``pattern`` matches, sorted;
    ``tests`` keeps test files whatever the pattern ends with."""
    if not is_glob(pattern):
        return [pattern]
    parts = pattern.split("/")
    fixed = 0
    while fixed < len(parts) - 1 and not is_glob(parts[fixed]):
        fixed += 1
    matcher = _compile(parts[fixed:])
    base = "/".join(parts[:fixed])
    keep_tests = tests or languages.names_tests(pattern)
    found = []
    for rel in _files(root, base):
        tail = rel[len(base) + 1:] if base else rel
        if matcher.fullmatch(tail) and (keep_tests or not languages.is_test_file(rel)):
            found.append(rel)
    return sorted(found)


def problem(pattern: str) -> str | None:
    """What is wrong with ``pattern`` as a glob (a reversed range ``[z-a]``), or None."""
    if not is_glob(pattern):
        return None
    try:
        _compile(pattern.split("/"))
    except re.error as exc:
        return f"cannot be read: {exc.msg}"
    return None


def matches(pattern: str, path: str) -> bool:
    """Whether root-relative ``path`` matches ``pattern`` (a glob, or a path matched whole)."""
    if not is_glob(pattern):
        return path == pattern
    return bool(_compile(pattern.split("/")).fullmatch(path))


def expand_all(root: Path, patterns: Iterable[str]) -> tuple[list[str], list[str]]:
    """(every matched path once, in pattern order; the globs that matched nothing)."""
    paths: dict[str, None] = {}
    empty = []
    for pattern in patterns:
        matched = expand(root, pattern)
        if not matched:
            empty.append(pattern)
        paths.update(dict.fromkeys(matched))
    return list(paths), empty


def _compile(parts: list[str]) -> re.Pattern[str]:
    out = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(r"(?:[^/.][^/]*/)*" if not last else r"(?:[^/.][^/]*/)*[^/.][^/]*")
            continue
        out.append(_segment(part) + ("" if last else "/"))
    return re.compile("".join(out))


def _segment(part: str) -> str:
    out = [] if part.startswith(".") or not is_glob(part[:1]) else ["(?!\\.)"]
    i = 0
    while i < len(part):
        char = part[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := part.find("]", i + 2)) != -1:
            body = part[i + 1:end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _files(root: Path, base: str) -> Iterator[str]:
    """Every regular file under ``base`` (a symlink to one included), never entering a
    dot-folder or a linked folder; file types come from the directory listing."""
    start = os.path.join(root, base) if base else os.fspath(root)
    if not os.path.isdir(start):
        return
    stack = [(start, base + "/" if base else "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith("."):
                        stack.append((entry.path, prefix + entry.name + "/"))
                elif entry.is_file():
                    yield prefix + entry.name
            except OSError:
                continue
