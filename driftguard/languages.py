"""The languages driftguard reads, one line each: every registry is built from here.

A ``Language`` says which files are its own (extensions), which of those are
tests (a glob leaves them out unless it names them), which installed libraries
its results depend on (they key the cache), and which package reads it: a
module path under ``driftguard.sources`` implementing the reader protocol
(``driftguard.sources.base``), imported only when a file of the language is
read. The readers by extension, the cache's library table, the selftest
mutators, the glob test-file rule and discover's file suffixes all come from
``LANGUAGES``; nothing else in the package lists languages.

A language registered at run time (``register``) may give its reader as an
object instead of a module path; its results are then never cached, since no
fingerprint covers its code.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    name: str  # how messages name it: "Go", "TypeScript"
    extensions: tuple[str, ...]  # with the dot, lower case
    reader: object  # a module path (str), or an object implementing the reader protocol
    libraries: tuple[tuple[str, str], ...] = ()  # (import name, distribution) its results depend on
    test_files: tuple[str, ...] = ()  # globs on a file's name
    partial: bool = False  # its parser recovers around what it cannot read (tree-sitter): the reader's
    # ``problems`` are worth asking for
    modules: str = ""  # what a dotted name's first part may name in a file's path: "folder" (a Go package),
    # "path" (a Python package or module: its folders and its stem), "" (TypeScript: neither)

    @property
    def key(self) -> str:
        """The name its results are cached and its trees kept under."""
        return self.reader if isinstance(self.reader, str) else f"driftguard.languages:{self.name}"

    @property
    def cached(self) -> bool:
        """Whether its results may be cached: only a reader of this package is fingerprinted."""
        return isinstance(self.reader, str)

    def is_test(self, name: str) -> bool:
        """Whether the file named ``name`` (a base name) is one of its test files."""
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.test_files)


_TS_TESTS = tuple(f"*.{kind}.{ext}" for kind in ("test", "spec") for ext in ("ts", "tsx", "mts", "cts", "js", "jsx",
                                                                          "mjs", "cjs"))
_TREE_SITTER = ("tree_sitter", "tree-sitter")

LANGUAGES: list[Language] = [
    Language("Go", (".go",), "driftguard.sources.go", (_TREE_SITTER, ("tree_sitter_go", "tree-sitter-go")),
             ("*_test.go",), partial=True, modules="folder"),
    Language("Python", (".py",), "driftguard.sources.python", (("libcst", "libcst"),),
             ("test_*.py", "*_test.py", "conftest.py"), modules="path"),
    Language("TypeScript", (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
             "driftguard.sources.typescript", (_TREE_SITTER, ("tree_sitter_typescript", "tree-sitter-typescript"),
                                               ("tree_sitter_javascript", "tree-sitter-javascript")), _TS_TESTS,
             partial=True),
]
"""Every language a parser reads; a file of any other extension is read by ``pattern`` only."""


def register(language: Language) -> None:
    """Add ``language`` (or replace the one with its name) for the rest of the process."""
    LANGUAGES[:] = [lang for lang in LANGUAGES if lang.name != language.name] + [language]


def unregister(name: str) -> None:
    LANGUAGES[:] = [lang for lang in LANGUAGES if lang.name != name]


def language_of(path: str) -> Language | None:
    """The language whose extension ``path`` has (the last registered wins a tie)."""
    suffix = posixpath.splitext(posixpath.basename(path.rstrip("/")))[1].lower()
    found = None
    for lang in LANGUAGES:
        if suffix in lang.extensions:
            found = lang
    return found


def by_key(key: str) -> Language | None:
    return next((lang for lang in reversed(LANGUAGES) if lang.key == key), None)


def is_test_file(path: str) -> bool:
    """Whether ``path`` is a test file of its language."""
    lang = language_of(path)
    return lang is not None and lang.is_test(posixpath.basename(path.rstrip("/")))


def names_tests(pattern: str) -> bool:
    """Whether a glob's last part itself names test files (``*_test.go``, ``test_*.py``),
    so that the glob keeps them."""
    last = pattern.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(last, test) for lang in LANGUAGES for test in lang.test_files)


def extensions() -> Iterator[str]:
    for lang in LANGUAGES:
        yield from lang.extensions


def test_files_shown() -> str:
    """The test-file globs as a message lists them: ``*_test.go, test_*.py, ...``."""
    return ", ".join(lang.test_files[0] for lang in LANGUAGES if lang.test_files)
