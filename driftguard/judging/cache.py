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
import sys
from pathlib import Path
from typing import Callable, TypeVar

from driftguard.model import Claim, Item, Kind, Location, Value

try:  # BLAKE2b straight from its C module: importing hashlib costs ~5 ms of OpenSSL
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - an interpreter without it
    from hashlib import blake2b as _blake2b

T = TypeVar("T")

FORMAT = 1
"""Bumped whenever the entry layout changes."""

MAX_ENTRIES = 2000
"""Beyond this many entries the oldest are removed (down to nine tenths)."""

CLAIMS = "driftguard.documents.claims"
"""The 'reader' name claims are cached under."""

LIBRARIES: dict[str, tuple[tuple[str, str], ...]] = {
    "driftguard.sources.go": (("tree_sitter", "tree-sitter"), ("tree_sitter_go", "tree-sitter-go")),
    "driftguard.sources.python": (("libcst", "libcst"),),
    "driftguard.sources.text": (),
    CLAIMS: (("markdown_it", "markdown-it-py"),),
}
"""Reader -> the (import name, distribution) of each library its results depend on.
A reader not listed here is never cached."""

_STALE_TEMP_SECONDS = 3600


def digest(data: bytes) -> str:
    return _blake2b(data, digest_size=32).hexdigest()


class FactCache:
    """The cache folder; ``hits``, ``misses`` and ``writes`` count this process's use."""

    def __init__(self, directory: Path | str, max_entries: int = MAX_ENTRIES) -> None:
        self.directory = Path(directory)
        self.max_entries = max_entries
        self.hits = self.misses = self.writes = 0
        self._pruned = False
        self._contents: dict[str, tuple[str, str]] = {}  # path -> (text, its digest)

    def items(self, reader: str, path: str, text: str, selector: object,
              compute: Callable[[], tuple[Item, ...]]) -> tuple[Item, ...]:
        """The items ``reader`` extracts for ``selector`` from ``path`` (whose content is
        ``text``): stored ones when the key matches, else ``compute()``, stored."""
        return self._through("fact", reader, path, text, selector, compute, items_to_json, items_from_json)

    def claim(self, path: str, text: str, form: object, compute: Callable[[], Claim]) -> Claim:
        """The claim ``form`` reads from document ``path`` (content ``text``)."""
        return self._through("claim", CLAIMS, path, text, form, compute, claim_to_json, claim_from_json)

    def _through(self, kind: str, reader: str, path: str, text: str, spec: object, compute: Callable[[], T],
                 encode: Callable[[T], object], decode: Callable[[object], T]) -> T:
        libraries = library_fingerprint(reader)
        if libraries is None:
            return compute()
        content = self._content_digest(path, text)
        key = [FORMAT, kind, reader, path, content, repr(spec), code_fingerprint(), libraries]
        name = digest(json.dumps(key).encode("ascii"))
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

    def _content_digest(self, path: str, text: str) -> str:
        """The hash of ``text``, computed once however many facts read the same file."""
        known = self._contents.get(path)
        if known is None or known[0] is not text:
            known = self._contents[path] = (text, digest(text.encode("utf-8", "surrogatepass")))
        return known[1]

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
        if not self._pruned:
            self._pruned = True
            self.prune()

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
        if len(dated) > self.max_entries:
            dated.sort()
            doomed += [name for _, name in dated[: len(dated) - self.max_entries * 9 // 10]]
        removed = 0
        for name in doomed:
            try:
                os.unlink(self.directory / name)
                removed += 1
            except OSError:
                pass
        return removed


# -- where, and whether -------------------------------------------------------


def cache_dir() -> Path | None:
    """``$DRIFTGUARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/driftguard``, else
    ``~/.cache/driftguard``; None when there is no home to put it in."""
    explicit = os.environ.get("DRIFTGUARD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "driftguard"
    try:
        return Path.home() / ".cache" / "driftguard"
    except RuntimeError:  # no home directory can be determined
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


# -- fingerprints ---------------------------------------------------------------

_code: str | None = None
_libraries: dict[str, str | None] = {}


def code_fingerprint() -> str:
    """A hash of driftguard's version, the interpreter's and every .py file of the
    package by size and mtime (so an edit in an editable install changes it);
    computed once per process."""
    global _code
    if _code is None:
        from driftguard import __version__

        extra = (__version__, sys.version, sys.implementation.cache_tag or "")
        _code = package_fingerprint(Path(__file__).resolve().parent, extra)
    return _code


def package_fingerprint(package: Path, extra: tuple[str, ...] = ()) -> str:
    """A hash of ``extra`` and the path, size and mtime of each .py file under ``package``."""
    files, pending = [], [package]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    pending.append(Path(entry.path))
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    rel = Path(entry.path).relative_to(package).as_posix()
                    files.append(f"{rel}:{info.st_size}:{info.st_mtime_ns}")
    return digest("\n".join([*extra, "", *sorted(files)]).encode("utf-8", "surrogateescape"))


def library_fingerprint(reader: str) -> str | None:
    """The versions of the libraries ``reader``'s results depend on, found without
    importing them; None (never cache) for an unknown reader or an unknown version."""
    if reader not in _libraries:
        needed = LIBRARIES.get(reader)
        found = None if needed is None else [library_version(name, dist) for name, dist in needed]
        _libraries[reader] = None if found is None or None in found else ";".join(found)  # type: ignore[arg-type]
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
    try:  # not beside it (an egg, a source tree): ask the slow way
        from importlib.metadata import PackageNotFoundError, version

        return f"{dist}={version(dist)}"
    except (ImportError, PackageNotFoundError):
        return None


def _normalise(name: str) -> str:
    return "".join("_" if c in "-_." else c for c in name.lower())


# -- the JSON form ----------------------------------------------------------------


class Uncacheable(TypeError):
    """A value the JSON form could not give back exactly (it is then not stored)."""


_DATA = (bool, int, float, str)


def items_to_json(items: tuple[Item, ...]) -> list[object]:
    if type(items) is not tuple:
        raise Uncacheable("expected a tuple of items")
    return [_item_out(item) for item in items]


def items_from_json(raw: object) -> tuple[Item, ...]:
    if not isinstance(raw, list):
        raise ValueError("expected a list of items")
    return tuple(_item_in(one) for one in raw)


def claim_to_json(claim: Claim) -> dict[str, object]:
    if type(claim) is not Claim or claim.location is None:
        raise Uncacheable("not a plain claim")
    return {"items": items_to_json(claim.items), "location": _location_out(claim.location)}


def claim_from_json(raw: object) -> Claim:
    if not isinstance(raw, dict) or raw.get("location") is None:
        raise ValueError("expected a claim")
    return Claim(items_from_json(raw["items"]), _location_in(raw["location"]))  # type: ignore[arg-type]


def _item_out(item: Item) -> list[object]:
    value, span = item.value, item.span
    if (type(item) is not Item or type(value) is not Value or type(value.kind) is not Kind
            or type(value.data) not in _DATA or not _strings(value.text, value.unit, item.label)):
        raise Uncacheable(f"an item the JSON form cannot carry: {item!r}")
    if span is not None and (type(span) is not tuple or len(span) != 2 or not _ints(*span)):
        raise Uncacheable(f"a span the JSON form cannot carry: {span!r}")
    loc = None if item.location is None else _location_out(item.location)
    return [value.kind.value, value.data, value.text, value.unit, loc, None if span is None else list(span), item.label]


def _item_in(raw: object) -> Item:
    kind, data, text, unit, loc, span, label = raw  # type: ignore[misc]
    if type(data) not in _DATA or not _strings(text, unit, label):
        raise ValueError("a damaged item")
    if span is not None and (not isinstance(span, list) or len(span) != 2 or not _ints(*span)):
        raise ValueError("a damaged span")
    location = None if loc is None else _location_in(loc)
    return Item(Value(Kind(kind), data, text, unit), location, None if span is None else (span[0], span[1]), label)


def _location_out(loc: Location) -> list[object]:
    if type(loc) is not Location or not _strings(loc.path) or not _ints(loc.line, loc.column, none=True):
        raise Uncacheable(f"a location the JSON form cannot carry: {loc!r}")
    return [loc.path, loc.line, loc.column]


def _location_in(raw: object) -> Location:
    path, line, column = raw  # type: ignore[misc]
    if not _strings(path) or not _ints(line, column, none=True):
        raise ValueError("a damaged location")
    return Location(path, line, column)


def _strings(*values: object) -> bool:
    return all(type(v) is str for v in values)


def _ints(*values: object, none: bool = False) -> bool:
    return all(type(v) is int or (none and v is None) for v in values)
