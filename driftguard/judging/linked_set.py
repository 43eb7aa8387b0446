"""The links and anchors of every page a run reads for its ``links`` rules, as one cache entry.

A warm ``links`` run would otherwise read each page (to hash it) and one cache entry
per page that holds a link. Here one entry per root holds, for each page a run asked
about, whether it may hold a link (``linked.may_link``), its ``LinkedDoc`` when one was
read, the digest of its text, and its stamp (size, mtime, ctime, inode, device). A page
is taken from the entry when:

- its stamp is the stored one: it is not read at all. A stamp is stored only when the
  page's mtime and ctime were older, by ``RACY_NS``, than the moment the run began,
  so a page changed again within the file system's clock tick of being read (the
  "racy" case git's index knows) is never trusted by its stamp; it is trusted by
- its digest: the page is read and hashed as the per-page entries are, and its stamp
  is stored for the next run.

Anything else (a new page, a changed one, one that can no longer be read) falls back to
the per-page entry of ``FactCache.linked`` and to parsing, and is written back with the
entry at the end of the run (``save``, only when something changed; a run of every rule
keeps only the pages it asked about, so pages gone from the tree leave it). Nothing in
the entry is trusted beyond its page: a damaged or foreign record is a miss. The entry
is keyed by the root and the config file (two configs over one tree do not take turns
rewriting one entry), the code's fingerprint and the parser's version.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from driftguard.judging.cache import FORMAT, FactCache
from driftguard.judging.fingerprints import CLAIMS, code_fingerprint, library_fingerprint
from driftguard.judging.linked import LinkedDoc, linked_from_json, linked_to_json, may_link
from driftguard.judging.workspace import Workspace
from driftguard.model import DriftguardError

RACY_NS = 2_000_000_000
"""How much older than the run a page's mtime and ctime must be for its stamp to be trusted:
coarser than any file system's clock tick (FAT's is two seconds)."""


def _now() -> int:
    return time.time_ns()


class LinkedSet:
    """One run's view of the entry: records read once, checked page by page, saved once."""

    def __init__(self, cache: FactCache, workspace: Workspace, config: str = "") -> None:
        self.cache = cache
        self.workspace = workspace
        self.config = config  # the config file: each config's pages are an entry of their own
        self.began = _now()
        self._key: list[object] | None = None
        self._records: dict[str, list[object]] | None = None
        self._changed = False
        self._checked: dict[str, list[object] | None] = {}  # path -> its record as this run knows it

    def may_link(self, path: str) -> bool:
        """Whether page ``path`` may hold a link; reads it only when the entry cannot tell."""
        record = self._valid(path)
        if record is not None:
            return bool(record[2])
        text = self.workspace.read_text(path)  # a page that cannot be read raises here, as uncached
        found = may_link(path, text)
        self._record(path, text, found, None)
        return found

    def linked(self, path: str, read: Callable[[], LinkedDoc]) -> LinkedDoc:
        """The links and anchors of page ``path``: from the entry, else the per-page entry, else ``read()``."""
        record = self._valid(path)
        if record is not None and record[3] is not None:
            try:
                found = linked_from_json(record[3])
            except (ValueError, TypeError, KeyError, IndexError):
                pass
            else:
                if found.path == path:
                    self.cache.hits += 1
                    return found
        text = self.workspace.read_text(path)
        found = self.cache.linked(path, text, read)
        self._record(path, text, may_link(path, text), linked_to_json(found))
        return found

    def save(self, whole: bool = True) -> None:
        """Write the entry when this run added or changed a record: of the pages it asked about
        when it judged ``whole`` the config (a page gone from the tree leaves it so), else of
        those and the pages a run of every rule asked about before."""
        key = self._entry_key()
        if self._changed and self._records is not None and key[-1] is not None:
            pages = {p: r for p, r in self._records.items() if p in self._checked or not whole}
            self.cache.store(key, {"pages": pages})
            self._changed = False

    def _valid(self, path: str) -> list[object] | None:
        """The record of ``path`` when it holds for the page: checked once per run, then the
        one this run wrote."""
        if path not in self._checked:
            self._checked[path] = self._check(path)
        return self._checked[path]

    def _check(self, path: str) -> list[object] | None:
        record = self._load().get(path)
        if not isinstance(record, list) or len(record) != 4 or not isinstance(record[1], str):
            return None
        stamp = self.workspace.stamp(path)
        if stamp is not None and record[0] == list(stamp):
            return record
        try:
            text = self.workspace.read_text(path)
        except DriftguardError:  # the caller reads it again and meets the error
            return None
        if self.cache.content_digest(path, text) != record[1]:
            return None
        trusted = self._trusted(stamp)
        if trusted != record[0]:
            record[0] = trusted
            self._changed = True
        return record

    def _record(self, path: str, text: str, may: bool, linked: object) -> None:
        record: list[object] = [self._trusted(self.workspace.stamp(path)), self.cache.content_digest(path, text), may,
                                linked]
        self._load()[path] = self._checked[path] = record
        self._changed = True

    def _trusted(self, stamp: tuple[int, ...] | None) -> list[int] | None:
        """``stamp`` as stored: None unless the page was last changed well before this run began."""
        if stamp is None or max(stamp[1], stamp[2]) >= self.began - RACY_NS:
            return None
        return list(stamp)

    def _load(self) -> dict[str, list[object]]:
        if self._records is None:
            key = self._entry_key()
            stored = self.cache.stored(key) if key[-1] is not None else None  # no parser version: never cached
            pages = stored.get("pages") if isinstance(stored, dict) else None
            self._records = pages if isinstance(pages, dict) else {}
            if not isinstance(pages, dict):
                self.cache.misses += 1  # missing or damaged: each page falls back to its own entry
        return self._records

    def _entry_key(self) -> list[object]:
        if self._key is None:
            self._key = [FORMAT, "linked-set", CLAIMS, str(self.workspace.root), self.config, code_fingerprint(),
                         library_fingerprint(CLAIMS)]
        return self._key
