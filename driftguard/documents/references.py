"""Which code spans of a document are shaped as references to code or files.

A reference is a call (``name()``, ``a.b()``), a dotted name (``Type.method``,
``pkg.Name``), an UPPER_SNAKE, camelCase or PascalCase identifier, or a path
(a span holding ``/`` or ending in a known file extension; a glob is a path
too). With ``bare``, a plain lower-case identifier is one as well. A span that
starts with ``/`` or ``-``, or holds ``://``, ``{``, ``=``, ``<`` or a space,
is not a reference: it is a route, a flag, a URL, a template or prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXTENSIONS = frozenset(
    "go py pyi ts tsx js jsx mjs cjs md markdown yaml yml json toml ini cfg conf sh bash txt rs java kt c h cc cpp "
    "hpp cs rb php swift sql proto html css scss lock mod sum service timer env xml csv tsv jsonl ndjson db sqlite "
    "sqlite3 pem crt pid sock bak".split()
)
"""File extensions that make a span a path even without a ``/``."""

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_CALL = re.compile(rf"({_IDENT}(?:\.{_IDENT})*)\([^()\s]*\)")
_DOTTED = re.compile(rf"{_IDENT}(?:\.{_IDENT})+")
_UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CAMEL = re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")
_PASCAL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_SNAKE = re.compile(r"[a-z_][a-z0-9_]*")
_PATH = re.compile(r"[\w.*?\[\]@+~-]+(?:/[\w.*?\[\]@+~-]*)*")
_HOST_ENDINGS = frozenset("com org net io dev app pro lan local internal home arpa example test cloud co uk de".split())
_NOT_A_REFERENCE = re.compile(r"^[/~$-]|://|[{=<\s]")


@dataclass(frozen=True)
class Shape:
    """A span read as a reference: ``kind`` is call | dotted | identifier | path, and
    ``name`` the text to resolve (a call without its parentheses)."""

    kind: str
    name: str


def shape_of(text: str, bare: bool = False, top: frozenset[str] | None = None) -> Shape | None:
    """The reference ``text`` is shaped as, or None when it is not one. Given ``top``
    (the repository's top-level names), a path without a known extension is a
    reference only when it starts there or at ``./`` or ``../``: ``tools/list``,
    ``github/codeql-action`` and ``grafana/grafana`` name no file of the tree."""
    if not text or _NOT_A_REFERENCE.search(text) or len(text) > 200:
        return None
    if _FILE_PATTERN.fullmatch(text):
        return None
    call = _CALL.fullmatch(text)
    if call:
        return Shape("call", call.group(1))
    if _is_path(text):
        if top is not None and not _rooted(text, top):
            return None
        return Shape("path", text.rstrip("/") or text)
    if _DOTTED.fullmatch(text):
        if text.islower() and text.rpartition(".")[2] in _HOST_ENDINGS:
            return None  # a host name: homepage.lan, relay.example.com
        return Shape("dotted", text)
    if any(p.fullmatch(text) for p in (_UPPER_SNAKE, _CAMEL, _PASCAL)):
        return Shape("identifier", text)
    if bare and _SNAKE.fullmatch(text) and any(c.isalpha() for c in text):
        return Shape("identifier", text)
    return None


def _is_path(text: str) -> bool:
    """A path: a span with ``/``, or a file name with a known extension. A bare name
    pattern (``_test.go``, ``*.md``, ``.gitignore``) describes files, it names none."""
    if not _PATH.fullmatch(text) or text.startswith("."):
        return text.startswith(("./", "../")) and bool(_PATH.fullmatch(text))
    if "/" in text:
        return any(c.isalpha() for c in text)
    stem, dot, extension = text.rpartition(".")
    return bool(dot and stem and extension.lower() in EXTENSIONS)


def _rooted(text: str, top: frozenset[str]) -> bool:
    if text.startswith(("./", "../")):
        return True
    last = text.rstrip("/").rpartition("/")[2]
    return last.rpartition(".")[2].lower() in EXTENSIONS and "." in last or text.split("/", 1)[0] in top


_FILE_PATTERN = re.compile(r"[_*?\[][\w.*?\[\]-]*\.[A-Za-z0-9]+")
"""A name pattern that describes files and names none: ``_test.go``, ``*.md``."""


LOCATED = re.compile(r"`\s*(?:\(\s*`(?P<paren>[^`\s]+)`\s*\)|\s+in\s+`(?P<inside>[^`\s]+)`)")
"""What follows a reference's closing backtick when the sentence says where it lives:
``Foo()` in `pkg/bar.go``` or ``Foo` (`pkg/bar.go`)``."""
