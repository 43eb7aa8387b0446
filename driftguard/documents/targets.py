"""What a link's destination names: relative or not, its path and fragment, and the
root-relative path it resolves to. Plain string functions, shared by the link
reader, the judge and the selftest; they import no markdown parser.

A site generator's own cross-references are links too, with a destination
``:role:target`` that no markdown link can have (a relative path never starts
with ``:``): ``:doc:guide/install`` and ``:ref:label`` (Sphinx's roles, from a
reStructuredText reader or MyST's ``{doc}`` and ``{ref}``), ``:ref:x#y`` and
``:relref:x#y`` (Hugo's ``{{< ref "x#y" >}}`` shortcodes). Their ``target`` is
what the role names as written (``guide/install``, without a title or ``<>``)
and their ``span`` is that text. ``cross_references`` reads the markdown forms
from a document's text; the site that publishes the document resolves them. A
site that does not build Sphinx documents reads a reStructuredText page's
``:doc:`` as the file ``sphinx_document`` names (what it points at on GitHub).

``Link`` is the document model's record of one link (``documents.model`` names it too).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["ROLES", "Link", "cross_reference", "cross_references", "is_relative", "labels", "resolve_path",
           "source_root", "sphinx_document", "split_target"]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
ROLES = ("doc", "ref", "relref")
_ROLE = re.compile(r":(doc|ref|relref):(.*)", re.S)
_SHORTCODE = re.compile(  # {{< ref "x" >}}, {{% relref path="x#y" lang="en" %}}
    r"""\{\{([<%])[ \t]*(ref|relref)[ \t]+(?:path=)?(?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([^\s"'`<>%{}]+))"""
    r"""[^\n<>%{}]{0,200}?[ \t]*[>%]\}\}""")
_MYST_ROLE = re.compile(r"\{(doc|ref)\}`*\Z")
_TITLED = re.compile(r"(?s).*?<([^<>]+)>\s*\Z")
_LABEL = re.compile(r"^[ \t]{0,3}\(([^()\s][^()\n]*)\)=[ \t]*$", re.M)
_SOURCE_FOLDERS = ("source", "docs", "doc", "documentation")


@dataclass(frozen=True)
class Link:
    """A relative link or image: ``[text](target)``, ``[text][ref]``, ``[ref]``, ``![alt](target)``.

    ``target`` is the destination as written (escapes and percent-encoding kept,
    without the ``<>`` of ``<a b.md>``); ``destination`` is what it points at
    (escapes and entities resolved, percent-encoding kept). ``line`` is the line
    the link starts on; ``span`` is the target's text in the document, in the
    ``[ref]: target`` definition for a reference link (None when it cannot be
    placed). ``reference`` is the label of a reference link, "" for an inline one.
    """

    target: str
    destination: str
    line: int
    span: tuple[int, int] | None
    image: bool = False
    reference: str = ""

    @property
    def path(self) -> str:
        """The path part of ``destination``: before any ``?query`` or ``#fragment``."""
        return self.destination.split("#", 1)[0].split("?", 1)[0]

    @property
    def fragment(self) -> str | None:
        """What follows the ``#``, still percent-encoded; None when there is no ``#``."""
        return self.destination.split("#", 1)[1] if "#" in self.destination else None


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


def cross_reference(destination: str) -> tuple[str, str] | None:
    """``(role, target)`` of a ``:role:target`` destination, None for a plain link."""
    m = _ROLE.fullmatch(destination)
    return (m.group(1), m.group(2)) if m else None


def cross_references(text: str, codes: list[tuple[int, int]]) -> list[tuple[str, str, int, int]]:
    """``(role, target, start, end)`` of each Hugo ``ref``/``relref`` shortcode in ``text``
    and each MyST ``{doc}``/``{ref}`` role on a code span (``codes``: each span's content);
    ``start, end`` is where ``target`` lies. Shortcodes inside a code span are left out;
    the caller leaves out those inside code blocks."""
    found = []
    for m in _SHORTCODE.finditer(text):
        group = next(i for i in range(3, 7) if m.group(i) is not None)
        if not any(a <= m.start() < b for a, b in codes):
            found.append((m.group(2), m.group(group), m.start(group), m.end(group)))
    for a, b in codes:
        role = _MYST_ROLE.search(text, max(0, a - 40), a)
        if role is None:
            continue
        titled = _TITLED.match(text, a, b)
        start = titled.start(1) if titled else a
        end = titled.end(1) if titled else b
        found.append((role.group(1), text[start:end], start, end))
    return sorted(found, key=lambda f: f[2])


def labels(text: str) -> list[tuple[str, int]]:
    """MyST's ``(name)=`` targets on a line of their own, with their offsets."""
    return [(m.group(1).strip(), m.start()) for m in _LABEL.finditer(text)]


def sphinx_document(page: str, target: str, suffix: str) -> str | None:
    """The relative destination a Sphinx ``:doc:`` (``suffix`` the page's, e.g. ``.rst``) or
    ``:download:`` (``suffix`` "") target names from the page at root-relative ``page``:
    relative to the page, or, written ``/x``, to the Sphinx source folder (``source_root``).
    None for an absolute URL, or a ``/x`` with no source folder to read it from."""
    name = target.strip()
    if not name or not is_relative(name):
        return None
    name += suffix
    if not name.startswith("/"):
        return name
    root = source_root(page)
    if root is None:
        return None  # no folder to read it from: left unchecked rather than misread
    return posixpath.relpath(posixpath.join(root, name.lstrip("/")), posixpath.dirname(page) or ".")


def source_root(path: str) -> str | None:
    """The Sphinx source folder a page at root-relative ``path`` most likely lives in: its
    deepest folder named ``source``, else its first named ``docs``, ``doc`` or
    ``documentation``; None when none is."""
    parts = path.split("/")[:-1]
    for name in _SOURCE_FOLDERS:
        found = [i for i, part in enumerate(parts) if part == name]
        if found:
            return "/".join(parts[:found[-1 if name == "source" else 0] + 1])
    return None
