"""What a link's destination names: relative or not, its path and fragment, and the
root-relative path it resolves to. Plain string functions, shared by the link
reader, the judge and the selftest; they import no markdown parser."""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

__all__ = ["is_relative", "resolve_path", "split_target"]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def is_relative(destination: str) -> bool:
    """Not an absolute URL: no ``scheme:`` and no ``//host`` in front."""
    return not destination.startswith("//") and not _SCHEME.match(destination)


def split_target(destination: str) -> tuple[str, str | None]:
    """``(path, fragment)`` of a destination, both percent-decoded: the path without
    any ``?query``, the fragment None when there is no ``#``."""
    path, hash_, fragment = destination.partition("#")
    path = path.split("?", 1)[0]
    return unquote(path), (unquote(fragment) if hash_ else None)


def resolve_path(doc_path: str, path: str) -> str | None:
    """The root-relative posix path ``path`` (decoded) names from the document at
    ``doc_path``: a leading ``/`` starts at the root, "" is the document itself.
    None when it leaves the root."""
    if not path:
        return doc_path
    if path.startswith("/"):
        joined = path.lstrip("/") or "."
    else:
        joined = posixpath.join(posixpath.dirname(doc_path), path)
    normal = posixpath.normpath(joined)
    if normal == ".." or normal.startswith("../"):
        return None
    return normal
