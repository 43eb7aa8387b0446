"""Walk a repository and scan its files in parallel, in chunks, across processes.

Each worker reads, parses and scans a chunk of files and sends back only the
compact candidate records (never parse trees). Results are put back in path
order, so the outcome does not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Union

from driftguard import languages
from driftguard.discover.documents import is_history
from driftguard.discover.generated import is_generated
from driftguard.discover.model import GENERATED, DocFile, Skipped, SourceFile
from driftguard.model import DriftguardError

EXCLUDED_DIRS = frozenset({
    "vendor", "node_modules", "testdata", "fixtures", "__pycache__", "site-packages", "dist", "build",
    "venv", "env", "third_party", "mock", "mocks", "fakes", "testutil", "testutils",
})
"""Folders never scanned (besides hidden ones such as ``.git``): vendored code, Go
``testdata``, test fixtures, mocks and test helpers (a mock's sample data equals a number of
the documents by chance), build output and virtual environments."""

DOCUMENT_SUFFIXES = (".md", ".markdown", ".rst", ".rest")
SCANNED = ("go", "python", "typescript")
"""The languages (``Language.name``, lower case) discover proposes rules from; files of
the other languages ``driftguard.languages`` lists are counted, not read."""
OTHER_LANGUAGES = {
    "rust": "Rust", "java": "Java", "kotlin": "Kotlin", "ruby": "Ruby", "c": "C", "c++": "C++", "c#": "C#",
    "php": "PHP", "swift": "Swift", "scala": "Scala",
}
"""Source languages no reader of driftguard has (a ``query`` fact reads some by hand),
counted so the summary can say what discover did not read."""
_OTHER_SUFFIXES = {
    ".rs": "rust", ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".c": "c", ".h": "c", ".cc": "c++",
    ".cpp": "c++", ".hpp": "c++", ".cs": "c#", ".php": "php", ".swift": "swift", ".scala": "scala",
}


def unread_reason(tag: str) -> str:
    """Why discover read no file of the language ``tag``, for the summary."""
    if tag in OTHER_LANGUAGES:
        return f"driftguard has no {OTHER_LANGUAGES[tag]} reader (a `query:` fact reads one by hand)"
    return "discover has no candidate scanner for it (facts of it can be written by hand)"
BUILT_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".min.js", ".min.mjs", ".bundle.js")
"""TypeScript declaration files and built bundles: generated, never read."""
MAX_FILE_SIZE = 2 * 1024 * 1024
SERIAL_BELOW = 256 * 1024  # bytes: smaller trees are scanned in this process when jobs is automatic

Result = Union[SourceFile, DocFile, Skipped]


def file_kind(name: str) -> tuple[str, bool] | None:
    """What discover makes of a file named ``name``: (``markdown`` or its language's
    lower-case name, whether it is a test file), or None for a file of no language."""
    if os.path.splitext(name)[1].lower() in DOCUMENT_SUFFIXES:
        return "markdown", False
    lang = languages.language_of(name)
    return None if lang is None else (lang.name.lower(), lang.is_test(name))


def walk(root: Path, excluded: Iterable[str] = EXCLUDED_DIRS, max_size: int = MAX_FILE_SIZE,
         unscanned: dict[str, int] | None = None, *, include: tuple[str, ...] = (),
         history: list[str] | None = None) -> tuple[list[tuple[str, str, int]], list[Skipped]]:
    """``(relpath, language, size)`` of every file to scan, sorted, and the files refused;
    ``unscanned`` counts, by language, the files of languages discover does not read, and
    ``history`` gathers the changelogs and release notes left out (``include`` keeps those it names)."""
    skip_dirs = frozenset(excluded)
    real_root = root.resolve()
    files: list[tuple[str, str, int]] = []
    skipped: list[Skipped] = []
    def unlisted(exc: OSError) -> None:
        where = Path(os.path.relpath(exc.filename or real_root, real_root)).as_posix()
        skipped.append(Skipped(where + "/", f"cannot list the folder: {exc.strerror or exc}"))

    for folder, dirs, names in os.walk(real_root, onerror=unlisted):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip_dirs
                         and not d.endswith(".egg-info"))
        for name in names:
            kind = file_kind(name)
            if kind is None:
                other = _OTHER_SUFFIXES.get(os.path.splitext(name)[1].lower())
                if other is not None and unscanned is not None:
                    unscanned[other] = unscanned.get(other, 0) + 1
                continue
            if kind[1]:
                continue
            lang = kind[0]
            if lang != "markdown" and lang not in SCANNED:
                if unscanned is not None:
                    unscanned[lang] = unscanned.get(lang, 0) + 1
                continue
            full = os.path.join(folder, name)
            rel = Path(os.path.relpath(full, real_root)).as_posix()
            if lang == "markdown" and is_history(rel, include):
                if history is not None:
                    history.append(rel)
                continue
            if os.path.islink(full):
                try:
                    target = Path(os.path.realpath(full, strict=True))
                except (OSError, RuntimeError):  # a loop, or a link to nothing
                    skipped.append(Skipped(rel, "a symlink that loops or leads nowhere"))
                    continue
                if real_root not in target.parents:
                    skipped.append(Skipped(rel, "a symlink out of the root"))
                    continue
            try:
                info = os.stat(full)
            except OSError as exc:
                skipped.append(Skipped(rel, f"cannot stat: {exc.strerror}"))
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(Skipped(rel, "not a regular file (a FIFO, a device or a socket); not read"))
                continue
            size = info.st_size
            if size > max_size:
                skipped.append(Skipped(rel, f"over the size limit ({size} > {max_size} bytes)"))
                continue
            files.append((rel, lang, size))
    files.sort()
    return files, skipped


def scan_file(root: str, rel: str, lang: str) -> Result:
    """Read and scan one file; any failure to read or parse becomes a ``Skipped``."""
    try:
        raw = Path(root, rel).read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        return Skipped(rel, f"cannot read: {exc.strerror}")
    except UnicodeDecodeError:
        return Skipped(rel, "not UTF-8")
    if "\x00" in text:
        return Skipped(rel, "holds NUL bytes")
    if is_generated(text, lang) or (lang == "typescript" and rel.endswith(BUILT_SUFFIXES)):
        return Skipped(rel, GENERATED)
    try:
        if lang == "go":
            from driftguard.discover.candidates_go import scan_go
            return scan_go(rel, text)
        if lang == "python":
            from driftguard.discover.candidates_py import scan_python
            return scan_python(rel, text)
        if lang == "typescript":
            from driftguard.discover.candidates_ts import scan_typescript
            return scan_typescript(rel, text)
        from driftguard.discover.candidates_md import scan_markdown
        return scan_markdown(rel, text)
    except DriftguardError as exc:
        return Skipped(rel, exc.message)
    except (RecursionError, MemoryError):
        return Skipped(rel, "nested too deeply to scan")
    except Exception as exc:  # one odd file must not stop a scan of thousands; it is reported
        return Skipped(rel, f"could not be scanned: {type(exc).__name__}: {exc}")


def scan_chunk(root: str, chunk: list[tuple[str, str]]) -> list[Result]:
    return [scan_file(root, rel, lang) for rel, lang in chunk]


def chunks(files: list[tuple[str, str, int]], count: int) -> list[list[tuple[str, str]]]:
    """``count`` chunks of about equal bytes: largest files first, each to the lightest chunk."""
    bins: list[list[tuple[str, str]]] = [[] for _ in range(max(count, 1))]
    loads = [0] * len(bins)
    for rel, lang, size in sorted(files, key=lambda f: (-f[2], f[0])):
        i = loads.index(min(loads))
        bins[i].append((rel, lang))
        loads[i] += size + 2048  # a fixed cost per file, besides its bytes
    return [b for b in bins if b]


def default_jobs() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not on Linux
        return max(os.cpu_count() or 1, 1)


def scan_all(root: Path, files: list[tuple[str, str, int]], jobs: int | None,
             progress: Callable[[str], None] | None = None) -> tuple[list[Result], int]:
    """Scan ``files``; returns the results in path order and the number of processes used.
    ``progress`` is called with ``scanned PATH`` once per file, as its result comes back."""
    automatic = jobs is None
    workers = default_jobs() if jobs is None else max(int(jobs), 1)
    total = sum(size for _, _, size in files)
    results: list[Result] = []
    if workers == 1 or len(files) < 2 or (automatic and total < SERIAL_BELOW):
        for rel, lang, _ in files:
            results.append(scan_file(str(root), rel, lang))
            _report(progress, results[-1:])
        return results, 1
    workers = min(workers, len(files))
    parts = chunks(files, workers * 4)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        for done in as_completed([pool.submit(scan_chunk, str(root), part) for part in parts]):
            part_results = done.result()
            results += part_results
            _report(progress, part_results)
    results.sort(key=lambda r: r.path)
    return results, workers


def _report(progress: Callable[[str], None] | None, results: list[Result]) -> None:
    if progress is not None:
        for result in results:
            progress(f"scanned {result.path}")


def _context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe (no other threads), as it starts workers with the parsers loaded."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn" if "spawn" in methods else None)
