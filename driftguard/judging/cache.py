"""An optional on-disk cache of extracted facts and read claims.

An entry is keyed by everything its result depends on: the reader, the file's
path and a hash of its content, the selector or claim form, and a fingerprint
of the code that computes it (driftguard's own files by size and mtime, the
Python version, and the installed versions of the parser libraries that reader
uses). A hit therefore gives what a fresh parse would, and editing any of
those is a miss. Only successful results are stored; errors are recomputed.

Each entry is one JSON file named by the hash of its key, written atomically
(a temporary file in the same folder, then ``os.replace``) and checked when
read (a digest of the body and the full key): a damaged entry is a miss and is
rewritten, never an error. Two runs sharing the folder see whole entries or
none. A hit reads the source to hash it but never imports a parser.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from driftguard.judging.cache_codec import (
    Uncacheable,
    claim_from_json,
    claim_to_json,
    items_from_json,
    items_to_json,
    names_from_json,
    names_to_json,
)
from driftguard.judging.fingerprints import CLAIMS, TEXT, code_fingerprint, digest, library_fingerprint
from driftguard.judging.verdict_codec import Judged, judged_from_json, judged_to_json
from driftguard.model import Claim, Item, NameItems

if TYPE_CHECKING:
    from driftguard.config.specs import Selector
    from driftguard.judging.history import Removal
    from driftguard.judging.linked import LinkedDoc

T = TypeVar("T")

FORMAT = 1
"""Bumped whenever the entry layout changes."""

MAX_ENTRIES = 20000
"""Beyond this many entries the oldest are removed (down to nine tenths)."""

_STALE_TEMP_SECONDS = 3600


class FactCache:
    """The cache folder; ``hits``, ``misses`` and ``writes`` count this process's use."""

    def __init__(self, directory: Path | str, max_entries: int = MAX_ENTRIES) -> None:
        self.directory = Path(directory)
        self.max_entries = max_entries
        self.hits = self.misses = self.writes = 0
        self._entries: int | None = None  # entries in the folder as last counted, plus this process's writes
        self._contents: dict[str, tuple[str, str]] = {}  # path -> (text, its digest)

    def items(self, reader: str, path: str, text: str, selector: object,
              compute: Callable[[], Sequence[Item]]) -> Sequence[Item]:
        """The items ``reader`` extracts for ``selector`` from ``path`` (whose content is
        ``text``): stored ones when the key matches, else ``compute()``, stored."""
        return self._through("fact", reader, path, text, selector, compute, items_to_json, items_from_json)

    def problems(self, reader: str, path: str, text: str,
                 compute: Callable[[], list[tuple[int, str]]]) -> list[tuple[int, str]]:
        """What ``reader`` could not parse in ``path`` (content ``text``): ``(line, what)`` each."""
        return self._through("problems", reader, path, text, "problems", compute, _problems_to_json,
                             _problems_from_json)

    def held(self, path: str, text: str, head: str, asked: list[tuple[int, str]],
             compute: Callable[[], list[str]]) -> list[str]:
        """Which names of ``asked`` (line, name) the code held when document ``path`` (content
        ``text``) had those lines last changed, as of commit ``head``."""
        return self._through("held", CLAIMS, path, text, (head, asked), compute, list, _strings)

    def documented(self, path: str, text: str, compute: Callable[[], list[str]]) -> list[str]:
        """The names document ``path`` (content ``text``) defines in headings, rows and items."""
        return self._through("documented", CLAIMS, path, text, "documented", compute, list, _strings)

    def removal(self, head: str, name: str, compute: Callable[[], Removal | None]) -> Removal | None:
        """The commit that removed ``name`` from the code, as of commit ``head``."""
        return self._through("removal", CLAIMS, "", "", (head, name), compute, _removal_to_json, _removal_from_json)

    def repository_names(self, scope: str, stamp: str, compute: Callable[[], list[str]]) -> list[str]:
        """The names the repository's files under ``scope`` hold (a folder, or ``""`` for
        all of them), as of ``stamp``: a digest of each file's path, size and mtime."""
        return self._through("repository", TEXT, scope, "", stamp, compute, list, _strings)

    def holds_repository_names(self, scope: str, stamp: str) -> bool:
        """Whether ``repository_names`` would find an entry for these (not counted as a hit)."""
        entry = self._entry("repository", TEXT, scope, "", stamp)
        return entry is not None and (self.directory / f"{entry[0]}.json").is_file()

    def names(self, selector: Selector, texts: Callable[[], list[tuple[str, str]]],
              stamps: list[tuple[str, tuple[int, ...] | None]],
              compute: Callable[[], Sequence[Item]]) -> Sequence[Item]:
        """A whole ``symbols`` fact over many files as one entry, so a run whose files are
        all unchanged reads one entry instead of one per file. The entry is keyed by the
        files' contents (``texts()``: path and content each); a second, small entry keyed
        by their stamps (``stamps``: path and ``Workspace.stamp`` each) names the
        first, so a run where no file was touched reads none of them. ``compute()`` (which
        goes through the per-file entries) when any file changed."""
        from driftguard.sources import reader_name

        readers = sorted({reader_name(path, selector) for path, _ in stamps})
        libraries = [library_fingerprint(reader) for reader in readers]
        if any(found is None for found in libraries):
            return compute()
        by_stamp = [FORMAT, "names-stamp", readers, repr(selector),
                    [[path, None if stamp is None else list(stamp)] for path, stamp in stamps], code_fingerprint(),
                    libraries]
        stamp_name = digest(json.dumps(by_stamp).encode("ascii"))
        stamped = all(stamp is not None for _, stamp in stamps)
        if stamped:
            pointer = self._read(stamp_name, by_stamp)
            if isinstance(pointer, list):
                found = self._names_entry(pointer)
                if found is not None:
                    return found
            self.misses += 1  # the pointer, or the entry it names, is gone or damaged
        files = [[path, self.content_digest(path, text)] for path, text in texts()]
        key: list[object] = [FORMAT, "names", readers, repr(selector), files, code_fingerprint(), libraries]
        found = self._names_entry(key)
        if found is None:
            self.misses += 1
            value = compute()
            if type(value) is not NameItems:
                return value
            try:
                self._write(digest(json.dumps(key).encode("ascii")), key, names_to_json(value))
            except Uncacheable:
                return value
            found = value
        if stamped:
            self._write(stamp_name, by_stamp, key)
        return found

    def _names_entry(self, key: list[object]) -> NameItems | None:
        stored = self._read(digest(json.dumps(key).encode("ascii")), key)
        if not isinstance(stored, dict):
            return None
        try:
            found = names_from_json(stored)
        except (ValueError, TypeError):
            return None
        self.hits += 1
        return found

    def linked(self, path: str, text: str, compute: Callable[[], LinkedDoc]) -> LinkedDoc:
        """The links and anchors of markdown file ``path`` (content ``text``)."""
        from driftguard.judging.linked import linked_from_json, linked_to_json

        return self._through("linked", CLAIMS, path, text, "links", compute, linked_to_json, linked_from_json)

    def verdict(self, path: str, text: str, key: object, compute: Callable[[], Judged]) -> Judged:
        """What a ``references`` rule finds in document ``path`` (content ``text``), keyed
        by ``key``: everything else the verdict depends on (the rule's facts and documents
        by content, the repository's files by stamp, git's ``HEAD``)."""
        return self._through("verdict", CLAIMS, path, text, key, compute, judged_to_json, judged_from_json)

    def claim(self, path: str, text: str, form: object, compute: Callable[[], Claim]) -> Claim:
        """The claim ``form`` reads from document ``path`` (content ``text``)."""
        return self._through("claim", CLAIMS, path, text, form, compute, claim_to_json, claim_from_json)

    def derived(self, kind: str, path: str, text: str, compute: Callable[[], T],
                encode: Callable[[T], object], decode: Callable[[object], T]) -> T:
        """What a tool derives from document ``path`` (content ``text``) alone, stored under
        its own ``kind`` with its own codec (``coverage`` keeps a document's claim-shaped
        spans), so a run that finds it parses nothing ``check`` would not."""
        return self._through(kind, CLAIMS, path, text, kind, compute, encode, decode)

    def _through(self, kind: str, reader: str, path: str, text: str, spec: object, compute: Callable[[], T],
                 encode: Callable[[T], object], decode: Callable[[object], T]) -> T:
        entry = self._entry(kind, reader, path, text, spec)
        if entry is None:
            return compute()
        name, key = entry
        stored = self._read(name, key)
        if stored is not None:
            try:
                value = decode(stored)
            except (ValueError, TypeError, KeyError, IndexError):
                pass
            else:
                self.hits += 1
                return value
        self.misses += 1
        value = compute()  # an error propagates and is not stored
        try:
            payload = encode(value)
        except Uncacheable:
            return value
        self._write(name, key, payload)
        return value

    def stored_items(self, reader: str, path: str, text: str, selector: object) -> bool:
        """Whether ``items`` would find an entry for these (not counted as a hit)."""
        entry = self._entry("fact", reader, path, text, selector)
        return entry is not None and (self.directory / f"{entry[0]}.json").is_file()

    def _entry(self, kind: str, reader: str, path: str, text: str, spec: object) -> tuple[str, list[object]] | None:
        """The entry's file name and full key, or None when ``reader`` is never cached."""
        libraries = library_fingerprint(reader)
        if libraries is None:
            return None
        key: list[object] = [FORMAT, kind, reader, path, self.content_digest(path, text), repr(spec),
                             code_fingerprint(), libraries]
        return digest(json.dumps(key).encode("ascii")), key

    def content_digest(self, path: str, text: str) -> str:
        """The hash of ``text``, computed once however many facts read the same file."""
        known = self._contents.get(path)
        if known is None or known[0] is not text:
            known = self._contents[path] = (text, digest(text.encode("utf-8", "surrogatepass")))
        return known[1]

    def stored(self, key: list[object]) -> object | None:
        """The value stored under ``key`` (a JSON list), None for none or a damaged one; not
        counted, for an entry whose parts its caller checks (``judging.linked_set``)."""
        return self._read(digest(json.dumps(key).encode("ascii")), key)

    def store(self, key: list[object], payload: object) -> None:
        self._write(digest(json.dumps(key).encode("ascii")), key, payload)

    def _read(self, name: str, key: list[object]) -> object | None:
        try:
            raw = (self.directory / f"{name}.json").read_bytes()
            head, _, body = raw.partition(b"\n")
            if head.decode("ascii") != digest(body):
                return None
            entry = json.loads(body)
        except (OSError, ValueError):  # missing, unreadable, damaged: a miss
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        return entry.get("value")

    def _write(self, name: str, key: list[object], payload: object) -> None:
        body = json.dumps({"key": key, "value": payload}, separators=(",", ":")).encode("ascii")
        data = digest(body).encode("ascii") + b"\n" + body
        temp = self.directory / f".tmp-{os.getpid()}-{os.urandom(6).hex()}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temp, self.directory / f"{name}.json")
        except OSError:  # a full disk or a read-only folder: the run goes on uncached
            try:
                os.unlink(temp)
            except OSError:
                pass
            return
        self.writes += 1
        if self._entries is not None:
            self._entries += 1
        if self._entries is None or self._entries > self.max_entries:
            self.prune()  # on the first write, then whenever the count passes the bound: it holds within a run

    def prune(self) -> int:
        """Remove the oldest entries beyond ``max_entries`` and temporary files over an
        hour old; return how many went. Files vanishing meanwhile are fine."""
        import time

        try:
            names = [n for n in os.listdir(self.directory) if n.endswith(".json") or n.startswith(".tmp-")]
        except OSError:
            return 0
        stale = (time.time() - _STALE_TEMP_SECONDS) * 1e9
        dated, doomed = [], []
        for name in names:
            try:
                mtime = os.stat(self.directory / name).st_mtime_ns
            except OSError:
                continue
            if name.endswith(".json"):
                dated.append((mtime, name))
            elif mtime < stale:
                doomed.append(name)
        kept = len(dated)
        if len(dated) > self.max_entries:
            dated.sort()
            cut = len(dated) - self.max_entries * 9 // 10
            doomed += [name for _, name in dated[:cut]]
            kept -= cut
        self._entries = kept
        removed = 0
        for name in doomed:
            try:
                os.unlink(self.directory / name)
                removed += 1
            except OSError:
                pass
        return removed


def _removal_to_json(found: Removal | None) -> object:
    return {"removal": None if found is None else [found.commit, found.date, found.subject, list(found.added)]}


def _removal_from_json(data: object) -> Removal | None:
    from driftguard.judging.history import Removal

    found = data.get("removal", ()) if isinstance(data, dict) else ()
    if found is None:
        return None
    if not isinstance(found, list) or len(found) != 4:
        raise ValueError("not a removal")
    return Removal(str(found[0]), str(found[1]), str(found[2]), tuple(str(n) for n in found[3]))


def _strings(data: object) -> list[str]:
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        raise ValueError("not a list of names")
    return list(data)


def _problems_to_json(found: list[tuple[int, str]]) -> object:
    return [[line, what] for line, what in found]


def _problems_from_json(data: object) -> list[tuple[int, str]]:
    if not isinstance(data, list):
        raise ValueError("not a list of problems")
    return [(int(line), str(what)) for line, what in data]


# -- where, and whether -------------------------------------------------------


def cache_dir() -> Path | None:
    """``$DRIFTGUARD_CACHE_DIR``, else the platform's user cache folder for
    driftguard (``$XDG_CACHE_HOME/driftguard`` or ``~/.cache/driftguard`` on Linux);
    None when there is no home to put it in."""
    explicit = os.environ.get("DRIFTGUARD_CACHE_DIR")
    if explicit:
        return Path(explicit) if os.path.isabs(explicit) else None  # relative: it would follow the working folder
    import platformdirs

    try:
        return Path(platformdirs.user_cache_dir("driftguard", appauthor=False))
    except (RuntimeError, KeyError):  # no home directory can be determined
        return None


def default_cache() -> FactCache | None:
    """The command line's cache, or None when ``DRIFTGUARD_NO_CACHE`` is set (to
    anything but ``0``) or the folder cannot be made private and writable."""
    if os.environ.get("DRIFTGUARD_NO_CACHE", "0").strip().lower() not in ("", "0", "false", "no"):
        return None
    directory = cache_dir()
    if directory is None:
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = directory.stat()
    except OSError:
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return None  # another user could plant entries there
    if not os.access(directory, os.W_OK | os.X_OK):
        return None
    return FactCache(directory)
