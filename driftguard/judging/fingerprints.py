"""Fingerprints of the code that computes a cached result: driftguard's own files
and the installed versions of the parser libraries each reader uses, found
without importing them."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from driftguard import languages

CLAIMS = "driftguard.documents.claims"
"""The 'reader' name claims are cached under."""

TEXT = "driftguard.sources.text"
"""The regex reader, which depends on no library."""

QUERY = "driftguard.sources.query:"
"""The ``query`` reader's keys, one per language: ``driftguard.sources.query:rust``."""


def libraries(reader: str) -> tuple[tuple[str, str], ...] | None:
    """The (import name, distribution) of each library ``reader``'s results depend on,
    from its language's declaration; None for a reader that is never cached (one
    registered as an object, or unknown)."""
    if reader == CLAIMS:
        return (("markdown_it", "markdown-it-py"),)
    if reader == TEXT:
        return ()
    if reader.startswith(QUERY):  # the bindings and the language's grammar package; no parser imported
        from driftguard.sources.query.grammars import libraries as grammar_libraries

        return grammar_libraries(reader.removeprefix(QUERY))
    lang = languages.by_key(reader)
    return lang.libraries if lang is not None and lang.cached else None


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=32).hexdigest()


_code: str | None = None
_libraries: dict[str, str | None] = {}


def code_fingerprint() -> str:
    """A hash of driftguard's version, the interpreter's and every .py file of the
    package by size and mtime (so an edit in an editable install changes it);
    computed once per process."""
    global _code
    if _code is None:
        from driftguard._version import __version__

        extra = (__version__, sys.version, sys.implementation.cache_tag or "")
        _code = package_fingerprint(Path(__file__).resolve().parent.parent, extra)
    return _code


def package_fingerprint(package: Path, extra: tuple[str, ...] = ()) -> str:
    """A hash of ``extra`` and the path, size and mtime of each .py file under ``package``."""
    files: list[str] = []
    pending = [(str(package), "")]  # a folder and its posix path under ``package``
    while pending:
        folder, rel = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    pending.append((entry.path, f"{rel}{entry.name}/"))
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    files.append(f"{rel}{entry.name}:{info.st_size}:{info.st_mtime_ns}")
    return digest("\n".join([*extra, "", *sorted(files)]).encode("utf-8", "surrogateescape"))


def library_fingerprint(reader: str) -> str | None:
    """The versions of the libraries ``reader``'s results depend on, found without
    importing them; None (never cache) for an unknown reader or an unknown version."""
    if reader not in _libraries:
        needed = libraries(reader)
        found = None if needed is None else [library_version(name, dist) for name, dist in needed]
        known = [v for v in found or () if v is not None]
        _libraries[reader] = ";".join(known) if found is not None and len(known) == len(found) else None
    return _libraries[reader]


def library_version(module: str, dist: str) -> str | None:
    """``dist``'s version and the mtime of its metadata folder, read from the
    ``*.dist-info`` beside where ``module`` would be imported from."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    places = list(spec.submodule_search_locations or ()) or ([spec.origin] if spec.origin else [])
    if not places:
        return None
    site, wanted, marks = Path(places[0]).parent, _normalise(dist), []
    try:
        names = sorted(n for n in os.listdir(site) if n.endswith(".dist-info"))
        for name in names:
            stem, _, version = name[: -len(".dist-info")].partition("-")
            if _normalise(stem) == wanted:
                marks.append(f"{dist}={version}@{os.stat(site / name).st_mtime_ns}")
    except OSError:
        marks = []
    if marks:
        return ",".join(marks)
    from importlib import metadata  # not beside it (an egg, a source tree): ask the slow way

    try:
        return f"{dist}={metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return None


def _normalise(name: str) -> str:
    return "".join("_" if c in "-_." else c for c in name.lower())
